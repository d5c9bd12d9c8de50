"""Where selectors live in DRA objects, and which selectors are ANDed together.

A DeviceClass's ``spec.selectors`` form one group.  In a ResourceClaim (``spec``) or a
ResourceClaimTemplate (``spec.spec``) each request's ``exactly`` (v1, v1beta2), the request itself
(v1beta1's flat shape) and each ``firstAvailable`` subrequest form a group; the scheduler ANDs
the group with the selectors of the DeviceClass it names, class first.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from dralint.k8s.objects import KubeObject

__all__ = ["SelectorGroup", "selector_groups", "class_expressions", "SELECTOR_KINDS"]

SELECTOR_KINDS = frozenset({"DeviceClass", "ResourceClaim", "ResourceClaimTemplate"})
DataPath = tuple[Any, ...]


class SelectorGroup(NamedTuple):
    """Selectors evaluated together: the string expressions and the paths to each of them."""

    owner: DataPath  # path of the class spec / request / subrequest
    expressions: tuple[str, ...]
    paths: tuple[DataPath, ...]  # path of each ``...cel.expression`` string
    indexes: tuple[int, ...]  # position of each in the ``selectors`` list
    class_name: str | None = None  # deviceClassName for request groups
    label: str = ""  # "request gpu", "subrequest gpu/small", "class"


def _group(data: Any, owner: DataPath, class_name: str | None, label: str) -> SelectorGroup | None:
    selectors = data.get("selectors") if isinstance(data, dict) else None
    if not isinstance(selectors, list):
        return None
    expressions, paths, indexes = [], [], []
    for index, selector in enumerate(selectors):
        cel = selector.get("cel") if isinstance(selector, dict) else None
        expression = cel.get("expression") if isinstance(cel, dict) else None
        if isinstance(expression, str):
            expressions.append(expression)
            paths.append((*owner, "selectors", index, "cel", "expression"))
            indexes.append(index)
    if not expressions:
        return None
    return SelectorGroup(owner, tuple(expressions), tuple(paths), tuple(indexes), class_name, label)


def _requests(obj: KubeObject, base: DataPath) -> Iterator[SelectorGroup]:
    requests = obj.get((*base, "devices", "requests"))
    for i, request in enumerate(requests if isinstance(requests, list) else ()):
        if not isinstance(request, dict):
            continue
        name = request.get("name", i)
        path = (*base, "devices", "requests", i)
        exactly = request.get("exactly")
        if isinstance(exactly, dict):
            group = _group(exactly, (*path, "exactly"), exactly.get("deviceClassName"), f'request "{name}"')
        else:  # v1beta1: request fields are flat
            group = _group(request, path, request.get("deviceClassName"), f'request "{name}"')
        if group:
            yield group
        subrequests = request.get("firstAvailable")
        for j, sub in enumerate(subrequests if isinstance(subrequests, list) else ()):
            if isinstance(sub, dict):
                group = _group(
                    sub,
                    (*path, "firstAvailable", j),
                    sub.get("deviceClassName"),
                    f'subrequest "{name}/{sub.get("name", j)}"',
                )
                if group:
                    yield group


def selector_groups(obj: KubeObject) -> list[SelectorGroup]:
    """Every selector group of a DeviceClass, ResourceClaim or ResourceClaimTemplate.

    Found once per object and kept with the document's other derived values (dropped when it
    is frozen): the compile and the semantics checks both ask, the snapshot checks too with
    ``--slices``."""
    if obj.kind not in SELECTOR_KINDS:
        return []  # decided without expanding the document
    derived = obj.doc.derived
    key = ("selector-groups", obj.base)
    found: list[SelectorGroup] | None = derived.get(key)
    if found is None:
        found = derived[key] = _find_groups(obj)
    return found


def _find_groups(obj: KubeObject) -> list[SelectorGroup]:
    if obj.kind == "DeviceClass":
        group = _group(obj.get(("spec",)), ("spec",), None, "class")
        return [group] if group else []
    if obj.kind == "ResourceClaim":
        return list(_requests(obj, ("spec",)))
    if obj.kind == "ResourceClaimTemplate":
        return list(_requests(obj, ("spec", "spec")))
    return []


def class_expressions(obj: KubeObject, group: SelectorGroup, ctx: Any) -> tuple[str, ...]:
    """Selectors of the DeviceClass a request names, when the run has it (class first)."""
    if obj.kind == "DeviceClass" or not isinstance(group.class_name, str):
        return ()
    name = group.class_name
    return ctx.memo((__name__, "class-expressions", name), lambda: _class_expressions(ctx, name))


def _class_expressions(ctx: Any, name: str) -> tuple[str, ...]:
    """The selectors of DeviceClass ``name``; asked for once per run and class, since every
    claim of the class asks."""
    device_class = ctx.find("DeviceClass", None, name)
    if device_class is None:
        return ()
    return tuple(e for g in selector_groups(device_class) for e in g.expressions)
