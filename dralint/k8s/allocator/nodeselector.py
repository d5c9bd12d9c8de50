"""Core NodeSelector semantics, needed for slice visibility and result node selectors.

Terms are ORed, requirements inside a term ANDed; ``matchFields`` only knows ``metadata.name``.
An empty term selects nothing, as in the API server's helper.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dralint.yaml.plain import as_list


class SelectorError(ValueError):
    """A node selector the scheduler cannot evaluate (the allocator treats this as fatal)."""


def _requirement(req: Mapping[str, Any], value: str | None) -> bool:
    op = req.get("operator")
    values = [str(v) for v in as_list(req.get("values"))]
    if op == "In":
        return value is not None and value in values
    if op == "NotIn":
        return value is None or value not in values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            raise SelectorError(f"operator {op} needs exactly one value")
        try:
            bound, have = int(values[0]), int(value) if value is not None else None
        except ValueError as exc:
            raise SelectorError(f"operator {op}: {exc}") from exc
        return have is not None and (have > bound if op == "Gt" else have < bound)
    raise SelectorError(f"unknown operator {op!r}")


def node_matches(selector: Mapping[str, Any], name: str, labels: Mapping[str, str]) -> bool:
    """True when the node (name + labels) matches the NodeSelector; raises SelectorError."""
    for term in as_list(selector.get("nodeSelectorTerms")):
        if not isinstance(term, Mapping):
            continue
        exprs = [r for r in as_list(term.get("matchExpressions")) if isinstance(r, Mapping)]
        fields = [r for r in as_list(term.get("matchFields")) if isinstance(r, Mapping)]
        if not exprs and not fields:
            continue
        ok = all(_requirement(r, labels.get(str(r.get("key")))) for r in exprs)
        for r in fields:
            if r.get("key") != "metadata.name":
                raise SelectorError(f"unsupported field selector {r.get('key')!r}")
            ok = ok and _requirement(r, name)
        if ok:
            return True
    return False


def labels_match(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A pod's plain ``nodeSelector`` map: every key must have exactly that value."""
    return all(labels.get(str(k)) == str(v) for k, v in selector.items())
