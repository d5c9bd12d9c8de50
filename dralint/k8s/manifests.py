"""From parsed documents to Kubernetes objects: List expansion, identity, defaults."""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

from dralint.k8s.objects import CLUSTER_SCOPED_KINDS, KubeObject
from dralint.yaml.loader import DataPath, Document
from dralint.yaml.plain import as_dict, type_name


class ShapeProblem(NamedTuple):
    """A document or item that cannot become an object; ``kind`` names the rule's case."""

    kind: str  # not-mapping | missing-identity | no-identity
    document: Document
    path: DataPath
    message: str
    hint: str | None = None


def _object(doc: Document, data: dict[str, Any], base: DataPath, origin: str) -> KubeObject:
    api_version = data.get("apiVersion")
    kind = data.get("kind")
    meta = as_dict(data.get("metadata"))
    name = meta.get("name")
    if not isinstance(name, str):
        generated = meta.get("generateName")
        name = generated if isinstance(generated, str) else ""
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
    if kind in CLUSTER_SCOPED_KINDS:
        namespace = None
    elif not namespace:
        namespace = "default"
    # Interned: a run holds thousands of objects that share a few kinds and namespaces.
    return KubeObject(
        sys.intern(str(api_version)),
        sys.intern(str(kind)),
        name,
        None if namespace is None else sys.intern(namespace),
        doc,
        base,
        origin,
    )


def _is_list(data: dict[str, Any]) -> bool:
    """``kind: List`` (or ``PodList`` and the like) with ``items``, whatever their type."""
    kind = data.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and "items" in data


def _identity_types(doc: Document, data: dict[str, Any], base: DataPath) -> list[ShapeProblem]:
    """``apiVersion: 1.0`` or ``kind: 7``: the key is there, its value is no name."""
    return [
        ShapeProblem(
            "missing-identity",
            doc,
            base + (key,),
            f"{key} must be a string, not {type_name(data[key]) if data[key] != '' else 'an empty string'}",
            f"write {key} as text, such as `{example}`",
        )
        for key, example in (("apiVersion", "apiVersion: v1"), ("kind", "kind: ConfigMap"))
        if key in data and not (isinstance(data[key], str) and data[key])
    ]


def _missing_identity(doc: Document, data: dict[str, Any], base: DataPath, missing: str) -> ShapeProblem:
    """Point at a miscased key (``apiversion``) when there is one: that is the usual cause."""
    miscased = next((k for k in data if isinstance(k, str) and k.lower() == missing.lower()), None)
    if miscased is not None:
        return ShapeProblem(
            "missing-identity",
            doc,
            base + (miscased,),
            f"'{miscased}' should be spelled '{missing}'; without it the API server cannot tell what the object is",
            f"rename '{miscased}' to '{missing}'",
        )
    return ShapeProblem(
        "missing-identity",
        doc,
        base,
        f"the object has no {missing}; the API server cannot tell what it is",
        f"add {missing} (for example `apiVersion: v1` and `kind: ConfigMap`)",
    )


def objects_from(doc: Document, origin: str) -> tuple[list[KubeObject], list[ShapeProblem]]:
    """The objects one document holds (a List holds several, unless its items were read as
    documents of their own, see ``Document.item``) and what kept others out."""
    objects: list[KubeObject] = []
    problems: list[ShapeProblem] = []
    if doc.data is None:
        return objects, problems
    # (data, path in the document, number in a List's items)
    candidates: list[tuple[Any, DataPath, int | None]] = [(doc.data, (), doc.item)]
    if doc.item is None and isinstance(doc.data, dict) and _is_list(doc.data):
        items = doc.data["items"]
        if not isinstance(items, list):
            problems.append(
                ShapeProblem(
                    "not-mapping",
                    doc,
                    ("items",),
                    f"items of a {doc.data['kind']} must be a list of objects, not {type_name(items)}",
                )
            )
            return objects, problems
        candidates = [(item, ("items", i), i) for i, item in enumerate(items)]
    for data, base, item in candidates:
        if not isinstance(data, dict):
            what = "the document" if item is None else f"item {item} of the list"
            problems.append(
                ShapeProblem(
                    "not-mapping",
                    doc,
                    base,
                    f"{what} is {type_name(data)}, not a mapping; a Kubernetes object is a mapping with "
                    "apiVersion and kind",
                )
            )
            continue
        wrong_types = _identity_types(doc, data, base)
        if wrong_types:
            problems.extend(wrong_types)
            continue
        has_version = isinstance(data.get("apiVersion"), str) and data["apiVersion"]
        has_kind = isinstance(data.get("kind"), str) and data["kind"]
        if not has_version and not has_kind:
            problems.append(ShapeProblem("no-identity", doc, base, "no apiVersion and no kind"))
            continue
        if not has_version or not has_kind:
            problems.append(_missing_identity(doc, data, base, "apiVersion" if not has_version else "kind"))
            continue
        objects.append(_object(doc, data, base, origin))
    return objects, problems
