"""The run's index over every object: scanned, extra context, and cluster state.

Built once per run and read by checks. It stays small on purpose: a check that needs its own
index builds it in its own module through ``memo`` instead of growing this class.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from dralint.k8s.objects import KubeObject
from dralint.lint.environments import Environments, tagged
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
    """Every object of the run, indexed by kind and by (kind, namespace, name).

    Identical objects (same kind, identity and content: a DeviceClass copied into every
    cluster's directory) are one object here, the first one read; two different objects with
    one identity are both kept. Only objects whose identity is taken are compared, so a run
    without copies expands nothing more.

    With several environments (``environments``), ``view`` gives the Context an object is
    judged in: its environment's objects and the shared ones, nothing of the other clusters.
    """

    def __init__(
        self,
        objects: Iterable[KubeObject],
        options: LintOptions | None = None,
        environments: Environments | None = None,
        label: tuple[str, ...] = (),
    ):
        self.options = options or LintOptions()
        self.environments = environments or Environments({})
        #: The environments this Context stands for, when it is one of several (messages name them).
        self.label = label
        self._by_kind: dict[str, list[KubeObject]] = defaultdict(list)
        self._by_name: dict[tuple[str, str | None, str], KubeObject] = {}
        objects = list(objects)
        #: Every object given, copies too: an environment's view keeps its own copy.
        self._given = objects if self.environments.several else []
        kept: list[KubeObject] = []
        cluster_kinds: set[str] = set()
        for obj in objects:
            if obj.origin == "cluster":
                cluster_kinds.add(obj.kind)
            key = (obj.kind, obj.namespace, obj.name)
            first = self._by_name.get(key)
            if first is None:
                self._by_name[key] = obj
            elif first.api_version == obj.api_version and first.data == obj.data:
                continue
            kept.append(obj)
            self._by_kind[obj.kind].append(obj)
        self.objects: list[KubeObject] = kept
        self._cluster_kinds = cluster_kinds
        self._memo: dict[Any, Any] = {}
        self._views: dict[frozenset[str], Context] = {}

    def view(self, obj: KubeObject) -> Context:
        """The Context ``obj`` is judged in: this one unless the run holds several environments."""
        if not self.environments.several:
            return self
        return self.within(self.environments.of(obj.path))

    def within(self, names: frozenset[str]) -> Context:
        """The objects of the environments ``names`` and the shared ones (all of them: empty)."""
        if not names or names == frozenset(self.environments.names):
            return self
        view = self._views.get(names)
        if view is None:
            envs = self.environments
            members = [
                o for o in self._given if o.origin == "cluster" or names & envs.of(o.path) or not envs.of(o.path)
            ]
            view = self._views[names] = Context(members, self.options, label=tuple(sorted(names)))
            view._cluster_kinds = self._cluster_kinds
        return view

    def tag(self, message: str) -> str:
        """``message`` naming this Context's environments, when it stands for some."""
        return tagged(message, self.label) if self.label else message

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
