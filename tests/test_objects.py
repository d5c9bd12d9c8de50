"""Objects from documents: identity, namespaces, List items, and every workload's pod template."""

from __future__ import annotations

import pytest

from dralint.k8s.manifests import objects_from
from dralint.k8s.objects import field_path, pod_templates
from dralint.yaml.loader import SourceText, load


def objects(text: str, lists: bool = False):
    out = []
    for doc in load(SourceText("m.yaml", text), lists=lists).documents:
        out.extend(objects_from(doc, "scan")[0])
    return out


def test_namespace_defaults_and_cluster_scope():
    pod, dc = objects(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\napiVersion: resource.k8s.io/v1\n"
        "kind: DeviceClass\nmetadata: {name: gpu, namespace: ignored}\n"
    )
    assert (pod.namespace, dc.namespace) == ("default", None)
    assert (dc.group, dc.version) == ("resource.k8s.io", "v1")


@pytest.mark.parametrize("lists", [False, True], ids=["one document", "items as documents"])
def test_list_items_become_objects_with_positions(lists):
    text = (
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n"
    )
    first, second = objects(text, lists)
    assert (first.name, second.name) == ("a", "b")
    assert (second.doc.index, second.doc.item, second.base) == ((0, 1, ()) if lists else (0, None, ("items", 1)))
    span = second.span(("metadata", "name"))
    assert (span.line, span.column) == (10, 11)
    assert second.span(("metadata", "name"), key=True).column == 5


def test_finding_carries_field_path_and_object():
    (pod,) = objects(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: i\n"
    )
    finding = pod.finding(("spec", "containers", 0, "image"), "msg", hint="h")
    assert finding.field == "spec.containers[0].image"
    assert (finding.span.line, finding.span.column, finding.span.end_column) == (8, 12, 13)
    assert finding.object.name == "p"
    assert field_path(("a", 0, "b")) == "a[0].b"


WORKLOADS = {
    "Deployment": ("apps/v1", "spec:\n  replicas: 3\n  template:\n    spec:\n      containers: [{name: c}]\n", [3]),
    "StatefulSet": ("apps/v1", "spec:\n  template:\n    spec:\n      containers: [{name: c}]\n", [1]),
    "DaemonSet": ("apps/v1", "spec:\n  template:\n    spec:\n      containers: [{name: c}]\n", [None]),
    "Job": ("batch/v1", "spec:\n  parallelism: 4\n  template:\n    spec:\n      containers: [{name: c}]\n", [4]),
    "CronJob": (
        "batch/v1",
        "spec:\n  jobTemplate:\n    spec:\n      parallelism: 2\n      template:\n        spec:\n"
        "          containers: [{name: c}]\n",
        [2],
    ),
    "JobSet": (
        "jobset.x-k8s.io/v1alpha2",
        "spec:\n  replicatedJobs:\n  - name: w\n    replicas: 2\n    template:\n      spec:\n"
        "        parallelism: 3\n        template:\n          spec:\n            containers: [{name: c}]\n",
        [6],
    ),
    "MPIJob": (
        "kubeflow.org/v2beta1",
        "spec:\n  mpiReplicaSpecs:\n    Launcher:\n      replicas: 1\n      template:\n        spec:\n"
        "          containers: [{name: c}]\n    Worker:\n      replicas: 8\n      template:\n        spec:\n"
        "          containers: [{name: c}]\n",
        [1, 8],
    ),
    "PyTorchJob": (
        "kubeflow.org/v1",
        "spec:\n  pytorchReplicaSpecs:\n    Master:\n      template:\n        spec:\n"
        "          containers: [{name: c}]\n",
        [1],
    ),
    "LeaderWorkerSet": (
        "leaderworkerset.x-k8s.io/v1",
        "spec:\n  replicas: 2\n  leaderWorkerTemplate:\n    size: 4\n    leaderTemplate:\n      spec:\n"
        "        containers: [{name: c}]\n    workerTemplate:\n      spec:\n        containers: [{name: c}]\n",
        [2, 6],
    ),
    "RayCluster": (
        "ray.io/v1",
        "spec:\n  headGroupSpec:\n    template:\n      spec:\n        containers: [{name: c}]\n"
        "  workerGroupSpecs:\n  - groupName: gpu\n    replicas: 5\n    template:\n      spec:\n"
        "        containers: [{name: c}]\n",
        [1, 5],
    ),
    "Rollout": (
        "argoproj.io/v1alpha1",
        "spec:\n  replicas: 2\n  template:\n    spec:\n      containers: [{name: c}]\n",
        [2],
    ),
    "Workflow": (
        "argoproj.io/v1alpha1",
        "spec:\n  templates:\n  - name: train\n    container: {name: c, image: i}\n  - name: steps\n    steps: []\n",
        [1],
    ),
}


@pytest.mark.parametrize("kind", sorted(WORKLOADS))
def test_pod_templates_of_every_workload_kind(kind):
    api_version, body, replicas = WORKLOADS[kind]
    (obj,) = objects(f"apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: w}}\n{body}")
    templates = pod_templates(obj)
    assert [t.replicas for t in templates] == replicas
    for template in templates:
        containers = list(template.containers())
        assert containers, f"{kind}: no containers found"
        path, container = containers[0]
        assert obj.get(path) is container


def test_objects_without_pods_have_no_templates():
    (cm,) = objects("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    assert pod_templates(cm) == []


def test_spans_kept_per_path_and_key_and_dropped_with_the_expanded_document():
    """Spans are kept while the document is expanded: the same path as key and as value, and
    two paths, must each get their own span, before and after the document is frozen."""
    (pod,) = objects(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: i\n"
    )
    image = ("spec", "containers", 0, "image")
    for _ in range(2):
        value, key, name = pod.span(image), pod.span(image, key=True), pod.span(("spec", "containers", 0, "name"))
        assert (value.line, value.column, key.column, name.line, name.column) == (8, 12, 5, 7, 11)
        assert pod.finding(list(image), "m").span == value and pod.finding(image, "m", key=True).span == key
        assert pod.span(("spec", "missing", "deeper")) == pod.span(("spec",), key=True)
        pod.doc.freeze()


def test_running_containers_are_kept_per_template():
    """Each template keeps its own list: the launcher's native sidecar must not leak into the
    worker's, and the worker's plain init container stays out."""
    from dralint.k8s.workloads import running_containers

    (job,) = objects(
        "apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: j}\nspec:\n  mpiReplicaSpecs:\n"
        "    Launcher:\n      template:\n        spec:\n          initContainers: [{name: side, "
        "restartPolicy: Always}]\n"
        "          containers: [{name: l}]\n"
        "    Worker:\n      template:\n        spec:\n          initContainers: [{name: setup}]\n"
        "          containers: [{name: w}]\n"
    )
    launcher, worker = pod_templates(job)
    for _ in range(2):
        assert [c["name"] for _, c in running_containers(launcher)] == ["side", "l"]
        assert [c["name"] for _, c in running_containers(worker)] == ["w"]


def test_items_of_one_list_keep_their_own_pod_templates():
    """A List's items read as one document share it, and so the place their templates are
    kept: each item must still get its own, whichever is asked first."""
    text = (
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n"
        "  spec: {containers: [{name: ca}]}\n"
        "- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n  spec: {containers: [{name: cb}]}\n"
    )
    first, second = objects(text)
    for obj, name in ((second, "cb"), (first, "ca"), (second, "cb")):
        (template,) = pod_templates(obj)
        assert [c["name"] for _, c in template.containers()] == [name] and template.owner is obj


def test_extended_requests_are_kept_per_template_mode_and_container():
    """Plain and implicit (``deviceclass.resource.kubernetes.io/``) requests are kept apart, and
    each container keeps its own: asking for one must not answer another."""
    from dralint.k8s.migration import template_extended_requests

    (pod,) = objects(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - {name: a, resources: {limits: {nvidia.com/gpu: 1, cpu: 1}}}\n"
        "  - {name: b}\n"
        "  - {name: c, resources: {requests: {deviceclass.resource.kubernetes.io/gpu: 2}, limits: "
        "{example.com/nic: 1}}}\n"
    )
    (template,) = pod_templates(pod)
    for _ in range(2):
        plain = template_extended_requests(template, implicit=False)
        implicit = template_extended_requests(template, implicit=True)
        assert {path[-1]: [r.resource for r in found] for path, found in plain.items()} == {
            0: ["nvidia.com/gpu"],
            2: ["example.com/nic"],
        }
        assert {path[-1]: [r.resource for r in found] for path, found in implicit.items()} == {
            2: ["deviceclass.resource.kubernetes.io/gpu"]
        }
        assert implicit[("spec", "containers", 2)][0].path == (
            "spec",
            "containers",
            2,
            "resources",
            "requests",
            "deviceclass.resource.kubernetes.io/gpu",
        )


def test_values_kept_for_a_template_are_freed_with_the_expanded_document():
    """A run turns the cyclic collector off: what checks keep about a template (container
    security records point back at it) must go by reference counting once the document is
    frozen, or every expanded tree would stay in memory."""
    import gc
    import weakref

    from dralint.k8s.podsec import containers

    (pod,) = objects("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n")
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        (template,) = pod_templates(pod)
        sec = next(containers(template))
        assert next(containers(template)) is sec
        kept = weakref.ref(sec), weakref.ref(template)
        del sec, template
        pod.doc.freeze()
        assert [ref() for ref in kept] == [None, None]
    finally:
        if was_enabled:
            gc.enable()
