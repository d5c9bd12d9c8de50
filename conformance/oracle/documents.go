package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// document is one object of an input file as kubectl would send it: JSON, plus where it was.
type document struct {
	Index int    // 0-based position of the YAML document in the file
	Item  int    // 0-based position inside a List, or -1
	JSON  []byte // the object, converted the way kubectl converts YAML
	Error string // why the document could not be read as an object
}

// readDocuments splits a multi-document YAML or JSON file into objects, expanding `kind: List`.
func readDocuments(path string) ([]document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	reader := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []document
	for index := 0; ; index++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			docs = append(docs, document{Index: index, Item: -1, Error: err.Error()})
			break
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			index--
			continue
		}
		docs = append(docs, expandList(index, raw)...)
	}
	return docs, nil
}

// expandList converts one YAML document to JSON and returns its items if it is a List.
func expandList(index int, raw []byte) []document {
	js, err := sigsyaml.YAMLToJSON(raw)
	if err != nil {
		return []document{{Index: index, Item: -1, Error: err.Error()}}
	}
	var list struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(js, &list); err == nil && list.Kind == "List" {
		var docs []document
		for item, obj := range list.Items {
			docs = append(docs, document{Index: index, Item: item, JSON: obj})
		}
		return docs
	}
	if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
		return []document{{Index: index, Item: -1, Error: "empty document"}}
	}
	return []document{{Index: index, Item: -1, JSON: js}}
}

// stripComments drops full-line comments so a comment-only document counts as empty.
func stripComments(raw []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(raw, []byte("\n")) {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || trimmed[0] == '#' || bytes.Equal(trimmed, []byte("---")) {
			continue
		}
		out = append(out, line)
	}
	return bytes.Join(out, []byte("\n"))
}
