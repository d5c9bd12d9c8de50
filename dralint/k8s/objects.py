"""Kubernetes objects as checks see them, and where each workload keeps its pod template.

A check never deals with YAML: it gets a ``KubeObject`` with plain data and asks it for spans
by data path. ``pod_templates`` is the one place that knows where every workload kind (built-in
and the common batch/ML CRDs) keeps its pods, so no check repeats that knowledge.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

from dralint.diagnostics import Finding, ObjectRef, Related, Severity, Span
from dralint.yaml.loader import DataPath, Document

#: Kinds that live outside namespaces (built-in groups; CRDs are assumed namespaced).
CLUSTER_SCOPED_KINDS = frozenset(
    {
        "APIService",
        "CertificateSigningRequest",
        "ClusterRole",
        "ClusterRoleBinding",
        "ClusterTrustBundle",
        "ComponentStatus",
        "CSIDriver",
        "CSINode",
        "CustomResourceDefinition",
        "DeviceClass",
        "DeviceTaintRule",
        "FlowSchema",
        "IngressClass",
        "IPAddress",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "MutatingWebhookConfiguration",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PodSecurityPolicy",
        "PriorityClass",
        "PriorityLevelConfiguration",
        "ResourcePoolStatusRequest",
        "ResourceSlice",
        "RuntimeClass",
        "ServiceCIDR",
        "StorageClass",
        "StorageVersion",
        "StorageVersionMigration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
        "VolumeAttributesClass",
    }
)


T = TypeVar("T")
#: Marks a missing key in ``KubeObject.get`` (None may be a value).
_ABSENT = object()


class ObjectIndex(Protocol):
    """The lookups Kubernetes knowledge needs over a set of objects.

    ``dralint.lint.context.Context`` is the run's index and satisfies this protocol; k8s/
    code is typed against the protocol so that it never depends on the lint machinery.
    """

    objects: list[KubeObject]

    def by_kind(self, kind: str) -> list[KubeObject]: ...

    def find(self, kind: str, namespace: str | None, name: str) -> KubeObject | None: ...

    def memo(self, key: Any, factory: Callable[[], T]) -> T: ...


@functools.lru_cache(maxsize=8192)
def field_path(path: DataPath) -> str:
    """Render a data path the way Kubernetes names fields: ``spec.requests[0].exactly``.

    Map keys that are not plain identifiers are written ``attributes[gpu.example.com/model]``,
    as the API server does for map entries.
    """
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif step.replace("_", "").isalnum() and not step[:1].isdigit():
            out += f".{step}" if out else step
        else:
            out += f"[{step}]"
    return out


class KubeObject:
    """One Kubernetes object: a document, or one item of a ``List``.

    Identity (kind, names, where it came from) is plain attributes; ``data`` is read through
    the document, which the engine may have frozen to save memory and expands on demand.
    """

    __slots__ = ("api_version", "kind", "name", "namespace", "doc", "base", "origin", "_ref")

    def __init__(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None,
        doc: Document,
        base: DataPath = (),
        origin: str = "scan",
    ):
        self.api_version = api_version
        self.kind = kind
        self.name = name
        self.namespace = namespace
        self.doc = doc
        self.base = base
        self.origin = origin  # scan | context | cluster
        self._ref: ObjectRef | None = None

    def __repr__(self) -> str:
        return f"KubeObject({self.display} at {self.path})"

    def __reduce__(self) -> tuple:
        # A constructor call: workers (--jobs) send thousands of objects, and the generic
        # protocol for slotted classes costs several times as much.
        return (KubeObject, (self.api_version, self.kind, self.name, self.namespace, self.doc, self.base, self.origin))

    @property
    def data(self) -> dict[str, Any]:
        node = self.doc.data
        if self.base:  # a List's item
            for step in self.base:
                node = node[step]
        return node

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]

    @property
    def path(self) -> str:
        return self.doc.path

    @property
    def ref(self) -> ObjectRef:
        """The object's identity, built once: every finding about the object carries it."""
        if self._ref is None:
            self._ref = ObjectRef(self.api_version, self.kind, self.namespace, self.name)
        return self._ref

    @property
    def display(self) -> str:
        """``Kind namespace/name`` as a user would type it."""
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"

    @property
    def labels(self) -> dict[str, Any]:
        labels = self.get(("metadata", "labels"))
        return labels if isinstance(labels, dict) else {}

    @property
    def annotations(self) -> dict[str, Any]:
        annotations = self.get(("metadata", "annotations"))
        return annotations if isinstance(annotations, dict) else {}

    def get(self, path: DataPath, default: Any = None) -> Any:
        """The value at ``path`` inside this object, or ``default``."""
        node: Any = self.doc.data if not self.base else self.data
        for step in path:
            if isinstance(node, dict) and isinstance(step, str):
                node = node.get(step, _ABSENT)
                if node is _ABSENT:
                    return default
            elif isinstance(node, list) and isinstance(step, int) and -len(node) <= step < len(node):
                node = node[step]
            else:
                return default
        return node

    def span(self, path: DataPath, key: bool = False) -> Span:
        """Span of the key or value at ``path`` (see ``Document.locate``).

        Kept per document while it is expanded: several findings of one object usually point
        at the same place (three rules at a container's ``name``), and the walk to it costs
        more than the lookup.
        """
        where = self.base + tuple(path) if self.base else tuple(path)
        spans = self.doc.derived
        memo_key = ("span", where, key)
        span = spans.get(memo_key)
        if span is None:
            span = spans[memo_key] = self.doc.locate(where, key=key)
        return span

    def scalar_span(self, path: DataPath, start: int, end: int | None = None) -> Span:
        """Span of characters ``start:end`` inside the string value at ``path``."""
        return self.doc.scalar_offset_span(self.base + tuple(path), start, end)

    def finding(
        self,
        path: DataPath,
        message: str,
        *,
        hint: str | None = None,
        rule: str | None = None,
        key: bool = False,
        related: tuple[Related, ...] | list[Related] = (),
        severity: Severity | None = None,
        span: Span | None = None,
    ) -> Finding:
        """A finding about this object, located at the key or value at ``path``."""
        path = tuple(path)
        return Finding(
            message,
            span or self.span(path, key),
            hint,
            rule,
            field_path(path) or None,
            self._ref or self.ref,
            tuple(related),
            severity,
        )

    def related(self, path: DataPath, message: str, key: bool = False) -> Related:
        """A pointer at this object for a finding reported on another one."""
        return Related(self.span(path, key=key), message)


# --- pod templates -----------------------------------------------------------------------

CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


class PodTemplate:
    """A pod spec inside some object, with how many pods it stands for.

    ``replicas`` is None for a DaemonSet (one pod per selected node). ``container_fields``
    and ``single_container_fields`` let kinds whose templates are not full pod specs (Argo
    Workflow steps) say where their containers are.
    """

    __slots__ = (
        "owner",
        "spec",
        "path",
        "replicas",
        "role",
        "container_fields",
        "single_container_fields",
        "metadata_path",
        "label",
        "_containers",
        "__weakref__",
    )

    def __init__(
        self,
        owner: KubeObject,
        spec: dict[str, Any],
        path: DataPath,
        replicas: int | None = 1,
        role: str | None = None,
        container_fields: tuple[str, ...] = CONTAINER_LISTS,
        single_container_fields: tuple[str, ...] = (),
        metadata_path: DataPath | None = None,
    ) -> None:
        self.owner = owner
        self.spec = spec
        self.path = path
        self.replicas = replicas
        self.role = role
        self.container_fields = container_fields
        self.single_container_fields = single_container_fields
        self.metadata_path = metadata_path
        #: How a report names this template: ``Deployment ns/name`` or ``... (worker)``. Built
        #: with the template, not on first use: nearly every template gets a finding, and each
        #: finding's message starts with the label.
        self.label = owner.display + (f" ({role})" if role else "")
        self._containers: list[tuple[DataPath, dict[str, Any]]] | None = None

    def memo(self, key: Any, factory: Callable[[], T]) -> T:
        """A value several checks derive from this template (its containers' security
        settings), computed once.

        It is kept with the document's other derived values, which go when the document is
        frozen again, and not on the template: a value that points back at the template (a
        container's security record does) would form a cycle with it, and the run turns the
        cyclic collector off, so the pair and the expanded tree under it would never be freed.
        The entry holds the template too, so its ``id`` is not reused while the entry exists.
        """
        derived = self.owner.doc.derived
        memo_key = ("pod-template-memo", id(self), key)
        found = derived.get(memo_key)
        if found is None:
            found = derived[memo_key] = (self, factory())
        return found[1]

    def containers(self) -> Iterator[tuple[DataPath, dict[str, Any]]]:
        """Every container of the template with its path, init and ephemeral included.

        Most pod checks walk the containers, so the list is found once per template.
        """
        if self._containers is None:
            self._containers = list(self._find_containers())
        return iter(self._containers)

    def _find_containers(self) -> Iterator[tuple[DataPath, dict[str, Any]]]:
        for name in self.container_fields:
            items = self.spec.get(name)
            if isinstance(items, list):
                for index, container in enumerate(items):
                    if isinstance(container, dict):
                        yield self.path + (name, index), container
        for name in self.single_container_fields:
            container = self.spec.get(name)
            if isinstance(container, dict):
                yield self.path + (name,), container

    @property
    def metadata(self) -> dict[str, Any]:
        if self.metadata_path is None:
            return {}
        meta = self.owner.get(self.metadata_path)
        return meta if isinstance(meta, dict) else {}


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _template(
    owner: KubeObject, template_path: DataPath, replicas: int | None, role: str | None = None
) -> PodTemplate | None:
    """The pod template at ``template_path`` (a PodTemplateSpec: metadata + spec)."""
    spec = owner.get(template_path + ("spec",))
    if not isinstance(spec, dict):
        return None
    return PodTemplate(
        owner, spec, template_path + ("spec",), replicas, role, metadata_path=template_path + ("metadata",)
    )


def _replica_specs(owner: KubeObject, field_name: str) -> Iterator[PodTemplate]:
    """Kubeflow-style ``<x>ReplicaSpecs: {Role: {replicas, template}}``."""
    specs = owner.get(("spec", field_name))
    if not isinstance(specs, dict):
        return
    for role, spec in specs.items():
        if isinstance(spec, dict):
            found = _template(owner, ("spec", field_name, role, "template"), _int(spec.get("replicas"), 1), str(role))
            if found:
                yield found


def _ray_groups(owner: KubeObject, base: DataPath) -> Iterator[PodTemplate]:
    head = _template(owner, base + ("headGroupSpec", "template"), 1, "head")
    if head:
        yield head
    groups = owner.get(base + ("workerGroupSpecs",))
    for index, group in enumerate(groups if isinstance(groups, list) else []):
        if isinstance(group, dict):
            role = str(group.get("groupName") or f"worker-{index}")
            found = _template(
                owner, base + ("workerGroupSpecs", index, "template"), _int(group.get("replicas"), 1), role
            )
            if found:
                yield found


def _jobset(owner: KubeObject) -> Iterator[PodTemplate]:
    jobs = owner.get(("spec", "replicatedJobs"))
    for index, job in enumerate(jobs if isinstance(jobs, list) else []):
        if not isinstance(job, dict):
            continue
        job_spec = job.get("template", {}).get("spec", {}) if isinstance(job.get("template"), dict) else {}
        pods = _int(job.get("replicas"), 1) * _int(
            job_spec.get("parallelism") if isinstance(job_spec, dict) else None, 1
        )
        found = _template(
            owner,
            ("spec", "replicatedJobs", index, "template", "spec", "template"),
            pods,
            str(job.get("name") or index),
        )
        if found:
            yield found


def _leader_worker_set(owner: KubeObject) -> Iterator[PodTemplate]:
    groups = _int(owner.get(("spec", "replicas")), 1)
    size = _int(owner.get(("spec", "leaderWorkerTemplate", "size")), 1)
    base = ("spec", "leaderWorkerTemplate")
    leader = _template(owner, base + ("leaderTemplate",), groups, "leader")
    if leader:
        yield leader
    worker = _template(owner, base + ("workerTemplate",), groups * (max(size - 1, 0) if leader else size), "worker")
    if worker:
        yield worker


def _argo_workflow(owner: KubeObject) -> Iterator[PodTemplate]:
    spec_path: DataPath = ("spec", "workflowSpec") if owner.kind == "CronWorkflow" else ("spec",)
    templates = owner.get(spec_path + ("templates",))
    for index, template in enumerate(templates if isinstance(templates, list) else []):
        if isinstance(template, dict) and any(k in template for k in ("container", "script", "containerSet")):
            yield PodTemplate(
                owner,
                template,
                spec_path + ("templates", index),
                1,
                str(template.get("name") or index),
                container_fields=("initContainers", "sidecars"),
                single_container_fields=("container", "script"),
                metadata_path=spec_path + ("templates", index, "metadata"),
            )


def pod_templates(obj: KubeObject) -> list[PodTemplate]:
    """Every pod template ``obj`` creates pods from; empty for objects that create none.

    Many checks ask for the same object's templates, so the answer is kept with the object's
    document until the document is frozen again.
    """
    if obj.kind not in POD_TEMPLATE_KINDS:
        return []  # decided without expanding the document
    derived = obj.doc.derived
    # A plain string for a top-level object (nearly all): asked for ~20 times per object.
    key = ("pod-templates", obj.base) if obj.base else "pod-templates"
    found: list[PodTemplate] | None = derived.get(key)
    if found is None:
        found = derived[key] = _find_templates(obj)
    return found


def _find_templates(obj: KubeObject) -> list[PodTemplate]:
    kind, group = obj.kind, obj.group
    if kind == "Pod" and group == "":
        spec = obj.get(("spec",))
        return [PodTemplate(obj, spec, ("spec",), 1, metadata_path=("metadata",))] if isinstance(spec, dict) else []
    if kind == "PodTemplate" and group == "":
        found = _template(obj, ("template",), 1)
        return [found] if found else []
    if kind in ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController") or (
        kind == "Rollout" and group == "argoproj.io"
    ):
        found = _template(obj, ("spec", "template"), _int(obj.get(("spec", "replicas")), 1))
        return [found] if found else []
    if kind == "DaemonSet":
        found = _template(obj, ("spec", "template"), None)
        return [found] if found else []
    if kind == "Job" and group == "batch":
        found = _template(obj, ("spec", "template"), _int(obj.get(("spec", "parallelism")), 1))
        return [found] if found else []
    if kind == "CronJob":
        found = _template(
            obj,
            ("spec", "jobTemplate", "spec", "template"),
            _int(obj.get(("spec", "jobTemplate", "spec", "parallelism")), 1),
        )
        return [found] if found else []
    if kind == "JobSet":
        return list(_jobset(obj))
    if kind == "LeaderWorkerSet":
        return list(_leader_worker_set(obj))
    if kind in _KUBEFLOW_FIELDS:
        return list(_replica_specs(obj, _KUBEFLOW_FIELDS[kind]))
    if kind == "RayCluster":
        return list(_ray_groups(obj, ("spec",)))
    if kind in ("RayJob", "RayService"):
        base = ("spec", "rayClusterSpec") if kind == "RayJob" else ("spec", "rayClusterConfig")
        return list(_ray_groups(obj, base))
    if group == "argoproj.io" and kind in ("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow"):
        return list(_argo_workflow(obj))
    return []


_KUBEFLOW_FIELDS = {
    "MPIJob": "mpiReplicaSpecs",
    "PyTorchJob": "pytorchReplicaSpecs",
    "TFJob": "tfReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs",
    "PaddleJob": "paddleReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
}

#: Every kind that may hold a pod template (``pod_templates`` is empty for all others, whatever
#: their content). Checks that only look at pod templates register for these kinds, so a run
#: does not call them for the ConfigMaps, Services, claims and classes of a repository.
POD_TEMPLATE_KINDS = frozenset(
    {
        "Pod",
        "PodTemplate",
        "Deployment",
        "ReplicaSet",
        "StatefulSet",
        "ReplicationController",
        "Rollout",
        "DaemonSet",
        "Job",
        "CronJob",
        "JobSet",
        "LeaderWorkerSet",
        *_KUBEFLOW_FIELDS,
        "RayCluster",
        "RayJob",
        "RayService",
        "Workflow",
        "WorkflowTemplate",
        "ClusterWorkflowTemplate",
        "CronWorkflow",
    }
)
