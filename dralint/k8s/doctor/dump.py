"""A live cluster dump (``kubectl get ... -A -o yaml``) indexed by kind, namespace and name."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from dralint.k8s.apivalidation import non_finite_numbers
from dralint.k8s.manifests import objects_from
from dralint.k8s.objects import KubeObject
from dralint.yaml.loader import DataPath, Document, SourceText, load
from dralint.yaml.plain import type_name


class DumpError(ValueError):
    """The input is not a readable dump (YAML syntax, not Kubernetes objects)."""


class Dump:
    """Objects of one dump; namespaced kinds are keyed by (namespace, name)."""

    def __init__(self, objects: Iterable[KubeObject], skipped: Iterable[str] = ()) -> None:
        self.objects = list(objects)
        #: ``path:line:column: why`` of each document or object left out (see ``load_dump``).
        self.skipped = list(skipped)
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
    skipped: list[str] = []
    for doc in result.documents:
        found, shape_problems = objects_from(doc, "cluster")
        skipped.extend(_located(p.document, p.path, p.message) for p in shape_problems)
        for obj in found:
            why = _unusable(obj)
            if why is None:
                objects.append(obj)
            else:
                skipped.append(_located(obj.doc, obj.base + why[0], f"{obj.display}: {why[1]}"))
    if not objects:
        raise DumpError(
            "\n".join(
                [
                    *skipped,
                    f"{path}: no Kubernetes object found (expected the output of "
                    "kubectl get pods,resourceclaims,resourceslices,deviceclasses,nodes -A -o yaml)",
                ]
            )
        )
    return Dump(objects, skipped)


def _located(doc: Document, path: DataPath, message: str) -> str:
    span = doc.locate(path)
    return f"{span.path}:{span.line}:{span.column}: {message}; it was left out"


def _unusable(obj: KubeObject) -> tuple[DataPath, str] | None:
    """Where and why an object of the dump cannot be a cluster's: an identity that is no name
    (a list as ``metadata.namespace``), or a number no field can hold. The API server would
    never have stored it, and every step of the diagnosis would trip over it."""
    meta = obj.data.get("metadata")
    if not isinstance(meta, Mapping):
        return ("metadata",), f"metadata must be a mapping, not {type_name(meta)}"
    for key in ("name", "namespace"):
        if key in meta and not isinstance(meta[key], str):
            return ("metadata", key), f"metadata.{key} must be a string, not {type_name(meta[key])}"
    if not obj.doc.finite:
        error = next(non_finite_numbers(obj.data), None)
        if error is not None:
            return tuple(error.path), error.message
    return None
