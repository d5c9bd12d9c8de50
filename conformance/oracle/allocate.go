package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// clusterSnapshot is the --slices file: what the scheduler would see in the cluster.
type clusterSnapshot struct {
	slices  []*resourceapi.ResourceSlice
	classes []*resourceapi.DeviceClass
	nodes   []*corev1.Node
	claims  []*resourceapi.ResourceClaim
}

// templateVerdict is the allocator's answer for one pod template: the nodes on which all of
// its claims can be allocated (one replica, against the snapshot's existing allocations).
type templateVerdict struct {
	Template      string   `json:"template"`
	FeasibleNodes []string `json:"feasibleNodes"`
	Unresolved    []string `json:"unresolved,omitempty"`
	Error         string   `json:"error,omitempty"`
}

func loadSnapshot(path string) (*clusterSnapshot, error) {
	docs, err := readDocuments(path)
	if err != nil {
		return nil, err
	}
	snapshot := &clusterSnapshot{}
	for _, doc := range docs {
		obj := decodeExternal(doc.JSON)
		switch o := obj.(type) {
		case *resourceapi.ResourceSlice:
			snapshot.slices = append(snapshot.slices, o)
		case *resourceapi.DeviceClass:
			snapshot.classes = append(snapshot.classes, o)
		case *corev1.Node:
			snapshot.nodes = append(snapshot.nodes, o)
		case *resourceapi.ResourceClaim:
			snapshot.claims = append(snapshot.claims, o)
		}
	}
	snapshot.nodes = withSliceNodes(snapshot.nodes, snapshot.slices)
	return snapshot, nil
}

// withSliceNodes adds a bare Node for every node a ResourceSlice names that the snapshot has no
// Node object for: a driver publishes slices only for nodes that exist.
func withSliceNodes(nodes []*corev1.Node, slices []*resourceapi.ResourceSlice) []*corev1.Node {
	known := sets.New[string]()
	for _, n := range nodes {
		known.Insert(n.Name)
	}
	for _, s := range slices {
		if s.Spec.NodeName != nil && *s.Spec.NodeName != "" && !known.Has(*s.Spec.NodeName) {
			known.Insert(*s.Spec.NodeName)
			node := &corev1.Node{}
			node.Name = *s.Spec.NodeName
			node.Labels = map[string]string{"kubernetes.io/hostname": node.Name}
			nodes = append(nodes, node)
		}
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	return nodes
}

// decodeExternal decodes, defaults and converts DRA objects to resource.k8s.io/v1, the version
// the allocator reads; other kinds come back in their own external version, or nil.
func decodeExternal(js []byte) runtime.Object {
	if js == nil {
		return nil
	}
	obj, gvk, err := strictCodecs.UniversalDeserializer().Decode(js, nil, nil)
	if err != nil && !runtime.IsStrictDecodingError(err) {
		return nil
	}
	legacyscheme.Scheme.Default(obj)
	if gvk.Group == resourceapi.GroupName && gvk.Version != resourceapi.SchemeGroupVersion.Version {
		converted, err := legacyscheme.Scheme.ConvertToVersion(obj, resourceapi.SchemeGroupVersion)
		if err != nil {
			return nil
		}
		return converted
	}
	return obj
}

// classLister serves the snapshot's and the inputs' DeviceClasses to the allocator.
type classLister map[string]*resourceapi.DeviceClass

func (l classLister) List() ([]*resourceapi.DeviceClass, error) {
	out := make([]*resourceapi.DeviceClass, 0, len(l))
	for _, c := range l {
		out = append(out, c)
	}
	return out, nil
}

func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	if c, ok := l[name]; ok {
		return c, nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclasses"), name)
}

// podTemplate is a pod spec found in the inputs, with the object it belongs to.
type podTemplate struct {
	label     string
	namespace string
	pod       *corev1.Pod
}

// allocateTemplates runs the structured allocator for every pod template with claims.
func allocateTemplates(docs []document, snapshot *clusterSnapshot) []templateVerdict {
	classes := classLister{}
	templates := map[string]*resourceapi.ResourceClaimTemplate{}
	claims := map[string]*resourceapi.ResourceClaim{}
	for _, c := range snapshot.classes {
		classes[c.Name] = c
	}
	for _, c := range snapshot.claims {
		claims[c.Namespace+"/"+c.Name] = c
	}
	var pods []podTemplate
	for _, doc := range docs {
		switch o := decodeExternal(doc.JSON).(type) {
		case *resourceapi.DeviceClass:
			classes[o.Name] = o
		case *resourceapi.ResourceClaimTemplate:
			templates[namespaceOf(o.Namespace)+"/"+o.Name] = o
		case *resourceapi.ResourceClaim:
			claims[namespaceOf(o.Namespace)+"/"+o.Name] = o
		}
		if t := findPodTemplate(doc.JSON); t != nil && len(t.pod.Spec.ResourceClaims) > 0 {
			pods = append(pods, *t)
		}
	}
	features := dynamicresources.AllocatorFeatures(feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate))
	cache := dracel.NewCache(10, dracel.Features{EnableConsumableCapacity: features.ConsumableCapacity, EnableListTypeAttributes: features.ListTypeAttributes})
	state := allocatedState(snapshot.claims)
	out := []templateVerdict{}
	for _, t := range pods {
		out = append(out, allocateTemplate(t, templates, claims, classes, snapshot, features, state, cache))
	}
	return out
}

func allocateTemplate(t podTemplate, templates map[string]*resourceapi.ResourceClaimTemplate, existing map[string]*resourceapi.ResourceClaim,
	classes classLister, snapshot *clusterSnapshot, features structured.Features, state structured.AllocatedState, cache *dracel.Cache) templateVerdict {
	verdict := templateVerdict{Template: t.label, FeasibleNodes: []string{}}
	var claims []*resourceapi.ResourceClaim
	for i, ref := range t.pod.Spec.ResourceClaims {
		switch {
		case ref.ResourceClaimTemplateName != nil:
			tmpl, ok := templates[t.namespace+"/"+*ref.ResourceClaimTemplateName]
			if !ok {
				verdict.Unresolved = append(verdict.Unresolved, "ResourceClaimTemplate "+*ref.ResourceClaimTemplateName)
				continue
			}
			claim := &resourceapi.ResourceClaim{Spec: tmpl.Spec.Spec}
			claim.Name, claim.Namespace = fmt.Sprintf("%s-%s", t.pod.Name, ref.Name), t.namespace
			claim.UID = types.UID(fmt.Sprintf("generated-%d", i))
			claims = append(claims, claim)
		case ref.ResourceClaimName != nil:
			claim, ok := existing[t.namespace+"/"+*ref.ResourceClaimName]
			if !ok {
				verdict.Unresolved = append(verdict.Unresolved, "ResourceClaim "+*ref.ResourceClaimName)
				continue
			}
			if claim.Status.Allocation == nil {
				claims = append(claims, claim)
			}
		}
	}
	if len(verdict.Unresolved) > 0 {
		return verdict
	}
	ctx := context.Background()
	allocator, err := structured.NewAllocator(ctx, features, state, classes, snapshot.slices, cache)
	if err != nil {
		verdict.Error = err.Error()
		return verdict
	}
	affinity := nodeaffinity.GetRequiredNodeAffinity(t.pod)
	for _, node := range snapshot.nodes {
		if fits, _ := affinity.Match(node); !fits {
			continue
		}
		if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, t.pod.Spec.Tolerations, scheduleBlocking, false); untolerated {
			continue
		}
		results, err := allocator.Allocate(ctx, node, claims)
		if err != nil {
			verdict.Error = err.Error()
			return verdict
		}
		if results != nil || len(claims) == 0 {
			verdict.FeasibleNodes = append(verdict.FeasibleNodes, node.Name)
		}
	}
	sort.Strings(verdict.FeasibleNodes)
	return verdict
}

func scheduleBlocking(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// allocatedState marks the devices of the snapshot's allocated claims as in use.
func allocatedState(claims []*resourceapi.ResourceClaim) structured.AllocatedState {
	state := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	for _, claim := range claims {
		if claim.Status.Allocation == nil {
			continue
		}
		for _, r := range claim.Status.Allocation.Devices.Results {
			id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
			if r.ShareID != nil {
				state.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, r.ShareID))
				continue
			}
			state.AllocatedDevices.Insert(id)
		}
	}
	return state
}

func namespaceOf(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// findPodTemplate returns the pod spec of a Pod or of a workload's pod template.
func findPodTemplate(js []byte) *podTemplate {
	var obj struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Spec json.RawMessage `json:"spec"`
	}
	if json.Unmarshal(js, &obj) != nil || obj.Spec == nil {
		return nil
	}
	var template struct {
		Template *corev1.PodTemplateSpec `json:"template"`
		Job      *struct {
			Spec struct {
				Template *corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		} `json:"jobTemplate"`
	}
	pod := &corev1.Pod{}
	switch obj.Kind {
	case "Pod":
		if json.Unmarshal(obj.Spec, &pod.Spec) != nil {
			return nil
		}
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob":
		if json.Unmarshal(obj.Spec, &template) != nil {
			return nil
		}
		spec := template.Template
		if template.Job != nil {
			spec = template.Job.Spec.Template
		}
		if spec == nil {
			return nil
		}
		pod.Spec = spec.Spec
	default:
		return nil
	}
	ns := namespaceOf(obj.Metadata.Namespace)
	pod.Name, pod.Namespace = obj.Metadata.Name, ns
	return &podTemplate{label: fmt.Sprintf("%s %s/%s", obj.Kind, ns, obj.Metadata.Name), namespace: ns, pod: pod}
}
