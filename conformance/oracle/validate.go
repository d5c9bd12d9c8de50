package main

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
)

// objectVerdict is what the real code says about one object.
type objectVerdict struct {
	Document   int          `json:"document"`
	Item       *int         `json:"item,omitempty"`
	APIVersion string       `json:"apiVersion,omitempty"`
	Kind       string       `json:"kind,omitempty"`
	Namespace  string       `json:"namespace,omitempty"`
	Name       string       `json:"name,omitempty"`
	Validated  bool         `json:"validated"`
	Served     bool         `json:"served"`
	Accepted   bool         `json:"accepted"`
	Decode     string       `json:"decodeError,omitempty"`
	Errors     []fieldError `json:"errors"`
	CEL        []celVerdict `json:"cel"`
}

// fieldError is one entry of the server's field.ErrorList (or one strict-decoding error).
type fieldError struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
}

// adminNamespaces lets the resource strategies look up namespaces; every namespace is created
// on demand with the admin-access label, so adminAccess requests are judged on their shape only.
var adminNamespaces = fake.NewSimpleClientset()

var strictCodecs = serializer.NewCodecFactory(legacyscheme.Scheme, serializer.EnableStrict)

// strategies are the API server's create strategies for the kinds dralint validates.
var strategies = map[schema.GroupKind]rest.RESTCreateStrategy{
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}:         resourceclaim.NewStrategy(adminNamespaces.CoreV1().Namespaces(), nil),
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}: resourceclaimtemplate.NewStrategy(adminNamespaces.CoreV1().Namespaces()),
	{Group: "resource.k8s.io", Kind: "DeviceClass"}:           deviceclass.Strategy,
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}:         resourceslice.Strategy,
	{Group: "resource.k8s.io", Kind: "DeviceTaintRule"}:       devicetaintrule.Strategy,
	{Group: "", Kind: "Pod"}:                                  pod.Strategy,
	{Group: "apps", Kind: "Deployment"}:                       deployment.Strategy,
	{Group: "apps", Kind: "StatefulSet"}:                      statefulset.Strategy,
	{Group: "apps", Kind: "DaemonSet"}:                        daemonset.Strategy,
	{Group: "apps", Kind: "ReplicaSet"}:                       replicaset.Strategy,
	{Group: "batch", Kind: "Job"}:                             job.Strategy,
	{Group: "batch", Kind: "CronJob"}:                         cronjob.Strategy,
}

// judgeObject decodes one object with the server's scheme and runs its create validation.
func judgeObject(doc document) objectVerdict {
	verdict := objectVerdict{Document: doc.Index, Errors: []fieldError{}, CEL: []celVerdict{}}
	if doc.Item >= 0 {
		item := doc.Item
		verdict.Item = &item
	}
	if doc.Error != "" {
		verdict.Decode = doc.Error
		return verdict
	}
	// Read the type and name the way kubectl does, case-sensitively (an unstructured object),
	// not with encoding/json's case-insensitive field matching.
	head := &unstructured.Unstructured{}
	if err := head.UnmarshalJSON(doc.JSON); err != nil && !runtime.IsMissingKind(err) && !runtime.IsMissingVersion(err) {
		verdict.Decode = err.Error()
		return verdict
	}
	verdict.APIVersion, verdict.Kind = head.GetAPIVersion(), head.GetKind()
	verdict.Namespace, verdict.Name = head.GetNamespace(), head.GetName()
	verdict.CEL = compileSelectors(doc.JSON)

	if verdict.APIVersion == "" || verdict.Kind == "" {
		// kubectl refuses such a document before sending it ("apiVersion not set").
		verdict.Decode = "apiVersion or kind not set"
		return verdict
	}
	gv, err := schema.ParseGroupVersion(verdict.APIVersion)
	if err != nil {
		verdict.Decode = err.Error()
		return verdict
	}
	strategy, known := strategies[schema.GroupKind{Group: gv.Group, Kind: verdict.Kind}]
	if !known {
		return verdict
	}
	verdict.Validated = true
	verdict.Served = servedByDefault(gv.WithKind(verdict.Kind))
	if !verdict.Served {
		return verdict
	}
	external, _, err := strictCodecs.UniversalDeserializer().Decode(doc.JSON, nil, nil)
	if err != nil && !runtime.IsStrictDecodingError(err) {
		verdict.Decode = err.Error()
		return verdict
	}
	if err != nil {
		verdict.Errors = append(verdict.Errors, strictErrors(err)...)
	}
	verdict.Errors = append(verdict.Errors, validateCreate(external, strategy)...)
	verdict.Accepted = len(verdict.Errors) == 0
	return verdict
}

// validateCreate defaults and converts the object to the internal version and runs the
// strategy's create path (PrepareForCreate, then hand-written and declarative validation).
func validateCreate(external runtime.Object, strategy rest.RESTCreateStrategy) []fieldError {
	scheme := legacyscheme.Scheme
	scheme.Default(external)
	gvk := external.GetObjectKind().GroupVersionKind()
	internal, err := scheme.ConvertToVersion(external, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return []fieldError{{Field: "", Type: "ConversionError", Detail: err.Error()}}
	}
	meta, err := metaAccessor(internal)
	if err != nil {
		return []fieldError{{Field: "metadata", Type: "InternalError", Detail: err.Error()}}
	}
	namespace := ""
	if strategy.NamespaceScoped() {
		namespace = meta.GetNamespace()
		if namespace == "" {
			namespace = metav1.NamespaceDefault
			meta.SetNamespace(namespace)
		}
		ensureAdminNamespace(namespace)
	}
	// kubectl sends a cluster-scoped object to the cluster-wide path, where the server clears
	// any namespace it carries; a namespaced one goes to its own (or the default) namespace.
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(namespace, strategy.NamespaceScoped()), meta); err != nil {
		return []fieldError{{Field: "metadata.namespace", Type: "BadRequest", Detail: err.Error()}}
	}
	if meta.GetName() == "" && meta.GetGenerateName() != "" {
		meta.SetName(names.SimpleNameGenerator.GenerateName(meta.GetGenerateName()))
	}
	rest.FillObjectMetaSystemFields(meta)
	plural, _ := apimeta.UnsafeGuessKindToResource(gvk)
	ctx := genericapirequest.WithNamespace(genericapirequest.NewContext(), namespace)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIPrefix: "apis", APIGroup: gvk.Group, APIVersion: gvk.Version,
		Resource: plural.Resource, Namespace: namespace, Name: meta.GetName(),
	})
	strategy.PrepareForCreate(ctx, internal)
	return fieldErrors(rest.ValidateCreate(ctx, internal, strategy))
}

func ensureAdminNamespace(name string) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"resource.kubernetes.io/admin-access": "true"}}}
	_, err := adminNamespaces.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		panic(err)
	}
}

func fieldErrors(list field.ErrorList) []fieldError {
	out := make([]fieldError, 0, len(list))
	for _, e := range list {
		out = append(out, fieldError{Field: e.Field, Type: string(e.Type), Detail: e.Detail})
	}
	return out
}

// strictErrors turns a strict-decoding error (unknown or duplicate fields, which kubectl's
// default fieldValidation=Strict makes fatal) into one entry per offending field.
func strictErrors(err error) []fieldError {
	var out []fieldError
	strict, _ := runtime.AsStrictDecodingError(err)
	for _, e := range strict.Errors() {
		msg := e.Error()
		kind := "StrictDecoding"
		switch {
		case strings.HasPrefix(msg, "unknown field "):
			kind = "FieldValueUnknown"
		case strings.HasPrefix(msg, "duplicate field "):
			kind = "FieldValueDuplicate"
		}
		path := msg
		if start, end := strings.Index(msg, `"`), strings.LastIndex(msg, `"`); start >= 0 && end > start {
			path = msg[start+1 : end]
		}
		out = append(out, fieldError{Field: path, Type: kind, Detail: msg})
	}
	return out
}
