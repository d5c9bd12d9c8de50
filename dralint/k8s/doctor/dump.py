"""A live cluster dump (``kubectl get ... -A -o yaml``) indexed by kind, namespace and name."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from dralint.k8s.manifests import objects_from
from dralint.k8s.objects import KubeObject
from dralint.yaml.loader import SourceText, load


class DumpError(ValueError):
    """The input is not a readable dump (YAML syntax, not Kubernetes objects)."""


class Dump:
    """Objects of one dump; namespaced kinds are keyed by (namespace, name)."""

    def __init__(self, objects: Iterable[KubeObject]) -> None:
        self.objects = list(objects)
        self._by_kind: dict[str, list[KubeObject]] = defaultdict(list)
        self._index: dict[tuple[str, str | None, str], KubeObject] = {}
        for obj in self.objects:
            self._by_kind[obj.kind].append(obj)
            self._index[(obj.kind, obj.namespace, obj.name)] = obj

    def of_kind(self, kind: str) -> list[KubeObject]:
        """Every object of ``kind``, in dump order."""
        return list(self._by_kind.get(kind, ()))

    def get(self, kind: str, namespace: str | None, name: str) -> KubeObject | None:
        """One object, or None when the dump does not hold it."""
        return self._index.get((kind, namespace, name))

    def lookup(self, kind: str, namespace: str, name: str) -> KubeObject | None:
        """The allocator's ``Lookup`` over this dump."""
        return self.get(kind, namespace, name)

    def classes(self) -> dict[str, Mapping[str, Any]]:
        """DeviceClass data by name."""
        return {obj.name: obj.data for obj in self.of_kind("DeviceClass")}


def load_dump(text: str, path: str = "<stdin>") -> Dump:
    """Parse a dump; raises :class:`DumpError` with the first problem when it cannot be read."""
    result = load(SourceText(path, text), lists=True)
    if result.problems:
        problem = result.problems[0]
        raise DumpError(f"{path}:{problem.line + 1}:{problem.column + 1}: {problem.message}")
    objects: list[KubeObject] = []
    for doc in result.documents:
        found, _shape_problems = objects_from(doc, "cluster")
        objects.extend(found)
    if not objects:
        raise DumpError(
            f"{path}: no Kubernetes object found (expected the output of "
            "kubectl get pods,resourceclaims,resourceslices,deviceclasses,nodes -A -o yaml)"
        )
    return Dump(objects)
