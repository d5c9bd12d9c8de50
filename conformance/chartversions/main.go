// Command chartversions answers, with the library Helm, Flux and Argo CD use, which versions
// satisfy each chart version constraint: the ground truth of dralint.k8s.chartversions.
//
// Input on stdin: {"constraints": ["25.8.x", ...], "versions": ["25.3.2", ...]}. Output: a JSON
// object from each constraint to the versions that satisfy it, or null when the library
// refuses the constraint.
package main

import (
	"encoding/json"
	"os"

	"github.com/Masterminds/semver/v3"
)

type question struct {
	Constraints []string `json:"constraints"`
	Versions    []string `json:"versions"`
}

func main() {
	var q question
	if err := json.NewDecoder(os.Stdin).Decode(&q); err != nil {
		panic(err)
	}
	answers := map[string][]string{}
	for _, text := range q.Constraints {
		constraint, err := semver.NewConstraint(text)
		if err != nil {
			answers[text] = nil
			continue
		}
		kept := []string{}
		for _, v := range q.Versions {
			if constraint.Check(semver.MustParse(v)) {
				kept = append(kept, v)
			}
		}
		answers[text] = kept
	}
	if err := json.NewEncoder(os.Stdout).Encode(answers); err != nil {
		panic(err)
	}
}
