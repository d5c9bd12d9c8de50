// Command oracle prints, for every object in the given manifest files, the verdicts of the
// real Kubernetes v1.37 code: create-time validation as the API server runs it, the DRA CEL
// compiler's result for every selector, and (with --slices) the structured allocator's
// placement of every pod template. dralint's conformance tests compare against its output.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/capabilities"
)

// fileVerdicts is one line of output: everything the oracle says about one input file.
type fileVerdicts struct {
	Path       string            `json:"path"`
	Objects    []objectVerdict   `json:"objects"`
	Allocation []templateVerdict `json:"allocation,omitempty"`
	Error      string            `json:"error,omitempty"`
}

func main() {
	gates := flag.String("feature-gates", "", "feature gates, Name=true|false,... (v1.37 defaults otherwise)")
	slices := flag.String("slices", "", "cluster snapshot (ResourceSlices, DeviceClasses, Nodes, ResourceClaims) to allocate against")
	allowPrivileged := flag.Bool("allow-privileged", true, "kube-apiserver --allow-privileged (kubeadm, kind and the managed services set it)")
	flag.Parse()
	capabilities.Setup(*allowPrivileged, 0)
	if *gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*gates); err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
	}
	var snapshot *clusterSnapshot
	if *slices != "" {
		s, err := loadSnapshot(*slices)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		snapshot = s
	}
	out := json.NewEncoder(os.Stdout)
	for _, path := range flag.Args() {
		if err := out.Encode(judgeFile(path, snapshot)); err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(1)
		}
	}
}

// judgeFile reads one manifest file and judges each object in it.
func judgeFile(path string, snapshot *clusterSnapshot) fileVerdicts {
	verdicts := fileVerdicts{Path: path, Objects: []objectVerdict{}}
	docs, err := readDocuments(path)
	if err != nil {
		verdicts.Error = err.Error()
		return verdicts
	}
	for _, doc := range docs {
		verdicts.Objects = append(verdicts.Objects, judgeObject(doc))
	}
	if snapshot != nil {
		verdicts.Allocation = allocateTemplates(docs, snapshot)
	}
	return verdicts
}
