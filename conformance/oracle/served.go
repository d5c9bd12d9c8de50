package main

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/controlplane"
)

// defaultResources is the set of group/version/resources a v1.37 API server serves without
// --runtime-config: a beta or alpha version it does not serve is a create that fails.
var defaultResources = controlplane.DefaultAPIResourceConfigSource()

func servedByDefault(gvk schema.GroupVersionKind) bool {
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	return defaultResources.ResourceEnabled(plural)
}

func metaAccessor(obj runtime.Object) (metav1.Object, error) {
	return meta.Accessor(obj)
}
