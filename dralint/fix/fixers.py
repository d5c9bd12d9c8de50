"""The fixes: one function per fixable rule, editing the round-trip tree of one file.

A fix is declared twice on purpose: the catalog entry says ``fixable: true`` (what users and
SARIF consumers see) and a function here registered with :func:`fixer` does the edit. A test
keeps the two in step. A fix function gets the diagnostic's target and returns a description
of what it changed, or None when this particular finding has no safe mechanical fix (for
example an unknown field with no single close match); it raises FixError when the fix applies
but cannot be made (the message is reported).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, MutableMapping
from typing import Any, NamedTuple

from dralint.diagnostics import Diagnostic
from dralint.fix import convert
from dralint.fix.document import EditableFile
from dralint.k8s.apivalidation.schema import schema_set
from dralint.yaml.loader import DataPath, Document

#: Rules whose fixes run first: renames leave every other data path where it was, while a
#: version migration moves fields, so typo fixes go before it in one pass.
ORDER = ("API001", "API012")


class FixError(ValueError):
    """The fix applies to this finding but cannot be made safely."""


class Target(NamedTuple):
    """Where a diagnostic points, in both the positioned document and the editable file."""

    file: EditableFile
    document: Document
    path: DataPath
    base: DataPath
    diagnostic: Diagnostic

    @property
    def object_data(self) -> Any:
        """The object's plain data (the List item for objects inside a List)."""
        data: Any = self.document.data
        for step in self.base:
            data = data[step]
        return data

    def node(self, path: DataPath) -> Any:
        """The editable node at ``path`` (relative to the document); None when it is gone."""
        try:
            return self.file.node(self.document.index, path)
        except (KeyError, IndexError, TypeError):
            return None


FixFunction = Callable[[Target], "str | None"]
_FIXERS: dict[str, FixFunction] = {}


def fixer(rule: str) -> Callable[[FixFunction], FixFunction]:
    """Register the fix for ``rule`` (one per rule)."""

    def register(function: FixFunction) -> FixFunction:
        if rule in _FIXERS:
            raise ValueError(f"two fixes for {rule}")
        _FIXERS[rule] = function
        return function

    return register


def fixers() -> dict[str, FixFunction]:
    """Every registered fix by rule id."""
    return dict(_FIXERS)


def priority(rule: str) -> int:
    return ORDER.index(rule) if rule in ORDER else len(ORDER)


# --- API012: deprecated resource.k8s.io version -> v1 ------------------------------------


@fixer("API012")
def migrate_to_v1(target: Target) -> str | None:
    """Convert a v1beta1/v1beta2 DeviceClass, ResourceClaim(Template) or ResourceSlice to v1."""
    obj = target.node(target.base)
    if not convert.convertible(obj):
        return None
    try:
        changes = convert.convert_in_place(obj, indent=target.file.indent)
    except convert.ConversionError as error:
        raise FixError(str(error)) from error
    return "; ".join(changes)


# --- API001: unknown field ----------------------------------------------------------------

_DID_YOU_MEAN = re.compile(r"did you mean `([^`]+)`\?")


def known_fields(api_version: str, kind: str, path: DataPath) -> list[str] | None:
    """The field names the v1.37 schema allows in the mapping at ``path`` of an object."""
    schemas = schema_set()
    name = schemas.definition_for(api_version, kind)
    node: Any = schemas.definitions.get(name) if name else None
    for step in path:
        node = _resolve(schemas.definitions, node)
        if node is None:
            return None
        node = node.get("items") if isinstance(step, int) else (node.get("properties") or {}).get(step)
    node = _resolve(schemas.definitions, node)
    return sorted((node or {}).get("properties") or {}) if node is not None else None


def _resolve(definitions: dict[str, Any], node: Any) -> dict[str, Any] | None:
    """Follow ``$ref`` (keeping local overrides such as extra properties) until a plain node."""
    while isinstance(node, dict) and "$ref" in node:
        target = definitions.get(node["$ref"].rsplit("/", 1)[-1])
        if target is None:
            return None
        node = {**target, **{k: v for k, v in node.items() if k not in ("$ref", "properties")}}
    return node if isinstance(node, dict) else None


def single_suggestion(name: str, known: list[str]) -> str | None:
    """The one known field ``name`` is a typo of, or None when there is none or several."""
    lowered = {k.lower(): k for k in known}
    if name.lower() in lowered:
        return lowered[name.lower()]
    close = difflib.get_close_matches(name.lower(), list(lowered), n=2, cutoff=0.75)
    return lowered[close[0]] if len(close) == 1 else None


def rename_key(mapping: MutableMapping[str, Any], old: str, new: str) -> None:
    """Rename a key in place: same position, same value, same comments, same key quoting."""
    position = list(mapping).index(old)
    table = getattr(mapping, "ca", None)
    comments = table.items.pop(old, None) if table is not None else None
    value = mapping.pop(old)
    key = type(old)(new) if isinstance(old, str) and type(old) is not str else new
    if hasattr(mapping, "insert"):
        mapping.insert(position, key, value)
    else:
        items = list(mapping.items())
        items.insert(position, (key, value))
        mapping.clear()
        mapping.update(items)
    if table is not None and comments is not None:
        table.items[key] = comments
        convert.shift_line_comment(mapping, key, len(new) - len(old))


@fixer("API001")
def unknown_field(target: Target) -> str | None:
    """Fix an unknown field: a typo with one close match, or a v1beta1 shape inside v1."""
    if not target.path or not isinstance(target.path[-1], str):
        return None
    name = target.path[-1]
    parent = target.node(target.path[:-1])
    if not isinstance(parent, MutableMapping) or name not in parent:
        return None
    hint = target.diagnostic.hint or ""
    if "under `exactly:`" in hint:
        return _move_under_exactly(target, parent)
    if "has no `basic`" in hint:
        if parent[name] and not isinstance(parent[name], MutableMapping):
            # lift_keys walks the value as a mapping; a list or scalar there has no fields to lift
            raise FixError(
                f"`{name}` is not a mapping, so there are no device fields to lift out of it; fix it by hand"
            )
        lifted = convert.lift_keys(parent, name, indent=target.file.indent)
        return f"{', '.join(lifted)} lifted out of basic" if lifted else "empty basic removed"
    match = _DID_YOU_MEAN.search(hint)
    if not match:
        return None
    data = target.object_data
    relative = target.path[len(target.base) :]
    known = known_fields(str(data.get("apiVersion")), str(data.get("kind")), relative[:-1])
    suggestion = single_suggestion(name, known or [])
    if suggestion is None or suggestion != match.group(1):
        return None
    if suggestion in parent:
        raise FixError(f"`{suggestion}` is already set next to `{name}`; keep one of them by hand")
    rename_key(parent, name, suggestion)
    return f"{name} renamed to {suggestion}"


def _move_under_exactly(target: Target, request: MutableMapping[str, Any]) -> str | None:
    fields = [k for k in request if k in convert.EXACT_FIELDS]
    if "exactly" in request:
        raise FixError("the request already has `exactly`; merge the fields by hand")
    if "firstAvailable" in request:
        raise FixError("the request has `firstAvailable`; device fields belong in its subrequests")
    convert.move_keys(request, fields, "exactly", indent=target.file.indent)
    return f"{', '.join(fields)} moved under exactly"


# --- API016: server-written field --------------------------------------------------------


@fixer("API016")
def remove_server_written(target: Target) -> str | None:
    """Delete a status field the server writes; a ``status`` left empty goes with it."""
    if not target.path or not isinstance(target.path[-1], str):
        return None
    parent = target.node(target.path[:-1])
    name = target.path[-1]
    if not isinstance(parent, MutableMapping) or name not in parent:
        return None
    convert.delete_key(parent, name)
    removed = ".".join(str(step) for step in target.path[len(target.base) :])
    status_path = target.path[:-1]
    if status_path[len(target.base) :] == ("status",) and not parent:
        convert.delete_key(target.node(status_path[:-1]), "status")
        removed += " (and the empty status)"
    return f"{removed} removed"
