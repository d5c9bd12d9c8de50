"""The run's index over every object: scanned, extra context, and cluster state.

Built once per run and read by checks. It stays small on purpose: a check that needs its own
index builds it in its own module through ``memo`` instead of growing this class.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from dralint.k8s.objects import KubeObject
from dralint.lint.options import LintOptions

T = TypeVar("T")
#: Marks an index not built yet in ``Context.memo`` (None is a valid index).
_UNSET = object()

#: Kinds whose completeness changes a verdict (references to them become errors when closed):
#: the DRA targets, Nodes, the core objects pods and Services refer to, the workloads an
#: autoscaler scales, and ``Pod`` for "the run holds every workload" (selectors).
CLOSABLE_KINDS = (
    "ConfigMap",
    "DaemonSet",
    "Deployment",
    "DeviceClass",
    "IngressClass",
    "Node",
    "PersistentVolumeClaim",
    "Pod",
    "ReplicaSet",
    "ReplicationController",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "Secret",
    "Service",
    "ServiceAccount",
    "StatefulSet",
)


class Context:
    """Every object of the run, indexed by kind and by (kind, namespace, name)."""

    def __init__(self, objects: Iterable[KubeObject], options: LintOptions | None = None):
        self.objects: list[KubeObject] = list(objects)
        self.options = options or LintOptions()
        self._by_kind: dict[str, list[KubeObject]] = defaultdict(list)
        self._cluster_kinds = {obj.kind for obj in self.objects if obj.origin == "cluster"}
        self._by_name: dict[tuple[str, str | None, str], KubeObject] = {}
        for obj in self.objects:
            self._by_kind[obj.kind].append(obj)
            self._by_name.setdefault((obj.kind, obj.namespace, obj.name), obj)
        self._memo: dict[Any, Any] = {}

    @property
    def scanned(self) -> list[KubeObject]:
        """Objects the user asked to lint (not context or cluster state)."""
        return [obj for obj in self.objects if obj.origin == "scan"]

    def by_kind(self, kind: str) -> list[KubeObject]:
        return self._by_kind.get(kind, [])

    def find(self, kind: str, namespace: str | None, name: str) -> KubeObject | None:
        return self._by_name.get((kind, namespace, name))

    def is_closed(self, kind: str) -> bool:
        """True when the run is known to hold every object of ``kind`` that exists.

        That is the case when the user said so, or when cluster state was given and it holds
        objects of that kind (a cluster dump lists all of them).
        """
        return kind in self.options.closed_world or kind in self._cluster_kinds

    def memo(self, key: Any, factory: Callable[[], T]) -> T:
        """Build an index once per run; ``key`` should name the module that owns it.

        Checks ask on every object, so an answer is found with one lookup (it may be None)."""
        value = self._memo.get(key, _UNSET)
        if value is _UNSET:
            value = self._memo[key] = factory()
        return value
