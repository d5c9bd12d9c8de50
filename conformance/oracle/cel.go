package main

import (
	"encoding/json"
	"fmt"
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apiserver/pkg/cel/environment"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/kubernetes/pkg/features"
)

// celVerdict is the DRA CEL compiler's result for one selector expression.
type celVerdict struct {
	Field      string `json:"field"`
	Expression string `json:"expression"`
	Error      string `json:"error,omitempty"`
	ErrorType  string `json:"errorType,omitempty"`
	Cost       uint64 `json:"cost,omitempty"`
	OverLimit  bool   `json:"overLimit"`
	TooLong    bool   `json:"tooLong,omitempty"`
}

// compileSelectors finds every `cel.expression` string in the object and compiles it in the
// environment the API server uses for new expressions, with the gates' CEL features.
func compileSelectors(js []byte) []celVerdict {
	var tree any
	if json.Unmarshal(js, &tree) != nil {
		return []celVerdict{}
	}
	found := map[string]string{}
	collectExpressions(tree, "", found)
	fields := make([]string, 0, len(found))
	for f := range found {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	compiler := dracel.GetCompiler(dracel.Features{
		EnableConsumableCapacity: utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
		EnableListTypeAttributes: utilfeature.DefaultFeatureGate.Enabled(features.DRAListTypeAttributes),
	})
	envType := environment.NewExpressions
	out := make([]celVerdict, 0, len(fields))
	for _, f := range fields {
		v := celVerdict{Field: f, Expression: found[f]}
		if len(found[f]) > resourceapi.CELSelectorExpressionMaxLength {
			// The API server refuses the length and never compiles such an expression.
			v.TooLong = true
			out = append(out, v)
			continue
		}
		result := compiler.CompileCELExpression(found[f], dracel.Options{EnvType: &envType})
		if result.Error != nil {
			v.Error, v.ErrorType = result.Error.Detail, string(result.Error.Type)
		} else {
			v.Cost = result.MaxCost
			v.OverLimit = result.MaxCost > resourceapi.CELSelectorExpressionMaxCost
		}
		out = append(out, v)
	}
	return out
}

func collectExpressions(node any, path string, found map[string]string) {
	switch n := node.(type) {
	case map[string]any:
		if cel, ok := n["cel"].(map[string]any); ok {
			if expr, ok := cel["expression"].(string); ok {
				found[join(path, "cel.expression")] = expr
			}
		}
		for key, child := range n {
			collectExpressions(child, join(path, key), found)
		}
	case []any:
		for i, child := range n {
			collectExpressions(child, fmt.Sprintf("%s[%d]", path, i), found)
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
