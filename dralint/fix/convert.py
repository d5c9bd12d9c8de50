"""resource.k8s.io v1beta1 / v1beta2 (and v1alpha3 DeviceTaintRule) -> v1 conversion, as data edits.

The field-by-field mapping follows the API server's own conversion (facts: dra-api.md §1.8 and
§5, checked against pkg/apis/resource/v1beta1/conversion.go):

* v1beta2 has the v1 layout; only ``apiVersion`` changes.
* v1beta1 ResourceClaim / ResourceClaimTemplate: a request's device fields
  (``deviceClassName``, ``selectors``, ``allocationMode``, ``count``, ``adminAccess``,
  ``tolerations``, ``capacity``, ``derivedAttributes``) move under ``exactly:``.
  ``firstAvailable`` stays on the request; its subrequests already have the flat shape. Like
  the server, ``exactly`` is created only when one of those fields is set to a non-zero value.
* v1beta1 ResourceSlice: the fields of ``devices[].basic`` move up into the device entry; the
  slice's ``nodeName: ""`` and ``allNodes: false`` mean "unset" in v1beta1 but would be set
  (and invalid) values in v1, where both are pointers, so they are dropped.
* DeviceClass: same fields in every version.
* DeviceTaintRule v1beta2 / v1alpha3: same fields as v1 at v1.37 (dra-api.md §1.6; the bundled
  schema definitions agree); only ``apiVersion`` changes.

The edits work on any mutable mapping, so the same code converts plain dicts (JSON files,
tests) and ruamel.yaml round-trip maps (YAML files), where moving a key also moves the comments
attached to it and new maps inherit the flow/block style of their parent.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any, NamedTuple

from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken

GROUP = "resource.k8s.io"
TARGET = f"{GROUP}/v1"
KINDS = frozenset({"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"})
#: (version, kind) pairs this module converts to v1.
CONVERTIBLE = frozenset(
    {(version, kind) for version in ("v1beta1", "v1beta2") for kind in KINDS}
    | {("v1beta2", "DeviceTaintRule"), ("v1alpha3", "DeviceTaintRule")}
)

#: v1beta1 DeviceRequest fields that v1 keeps in ExactDeviceRequest.
EXACT_FIELDS = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
    "derivedAttributes",
)


class ConversionError(ValueError):
    """The object cannot be converted mechanically; the message says what is in the way."""


def convertible(obj: Any) -> bool:
    """Whether ``obj`` is a pre-v1 DRA object this module converts to v1."""
    if not isinstance(obj, MutableMapping):
        return False
    api_version = obj.get("apiVersion")
    if not isinstance(api_version, str):
        return False
    group, _, version = api_version.partition("/")
    return group == GROUP and (version, obj.get("kind")) in CONVERTIBLE


def to_v1(obj: MutableMapping[str, Any], indent: int = 2) -> MutableMapping[str, Any]:
    """A v1 copy of a v1beta1/v1beta2 DeviceClass, ResourceClaim(Template) or ResourceSlice.

    The input is not modified. Raises ConversionError when the object is not one of those or
    when its content makes a mechanical conversion ambiguous.
    """
    result = copy.deepcopy(obj)
    convert_in_place(result, indent)
    return result


def convert_in_place(obj: MutableMapping[str, Any], indent: int = 2) -> list[str]:
    """Convert ``obj`` to v1 in place; return a description of each change, in order.

    All problems are detected before anything is edited, so a ConversionError leaves ``obj``
    untouched. ``indent`` is the file's indentation step, used to re-indent moved comments.
    """
    if not convertible(obj):
        raise ConversionError(f"{obj.get('apiVersion')!r} {obj.get('kind')!r} has no conversion to resource.k8s.io/v1")
    plan = _plan_v1beta1(obj, obj["kind"], indent) if obj["apiVersion"].endswith("/v1beta1") else []
    changes = [f"apiVersion {obj['apiVersion']} -> {TARGET}"]
    set_scalar(obj, "apiVersion", TARGET)
    changes.extend(edit() for edit in plan)
    return changes


Edit = Callable[[], str]


def _plan_v1beta1(obj: MutableMapping[str, Any], kind: str, indent: int) -> list[Edit]:
    """The edits a v1beta1 object needs, checked for conflicts before any is made."""
    plan: list[Edit] = []
    if kind in ("ResourceClaim", "ResourceClaimTemplate"):
        spec_path = ("spec", "spec") if kind == "ResourceClaimTemplate" else ("spec",)
        requests = _get(obj, spec_path + ("devices", "requests"))
        seen: set[int] = set()
        for index, request in enumerate(requests if isinstance(requests, list) else ()):
            if not isinstance(request, MutableMapping) or id(request) in seen:
                continue  # an aliased request (*anchor) is one node: convert it once
            seen.add(id(request))
            if _needs_exactly(request):
                if "exactly" in request:
                    raise ConversionError(f"request {index} has both v1beta1 device fields and `exactly`")
                plan.append(functools.partial(_move_request_fields, index, request, indent))
            elif any(field in request for field in EXACT_FIELDS):
                plan.append(functools.partial(_drop_unset_fields, index, request))
    elif kind == "ResourceSlice":
        spec = obj.get("spec")
        if not isinstance(spec, MutableMapping):
            return plan
        if any(_is_zero_selector(spec, key) for key in ("nodeName", "allNodes")):
            plan.append(functools.partial(_drop_unset_selectors, spec))
        devices = spec.get("devices")
        unique = {
            id(device): (index, device)
            for index, device in reversed(list(enumerate(devices if isinstance(devices, list) else ())))
        }
        for index, device in sorted(unique.values(), key=lambda item: item[0]):
            if isinstance(device, MutableMapping) and "basic" in device:
                basic = device["basic"]
                if basic is not None and not isinstance(basic, MutableMapping):
                    raise ConversionError(f"device {index}: `basic` is not a mapping")
                clash = sorted(set(basic or ()) & (set(device) - {"basic"}))
                if clash:
                    raise ConversionError(f"device {index}: {', '.join(clash)} set both in `basic` and on the device")
                plan.append(functools.partial(_lift_basic, index, device, indent))
    return plan


def _get(obj: Any, path: tuple[str, ...]) -> Any:
    for step in path:
        if not isinstance(obj, MutableMapping):
            return None
        obj = obj.get(step)
    return obj


def _is_set(value: Any) -> bool:
    """The server's "field is set" test: Go zero values ("" / 0 / nil) count as unset."""
    return value is not None and value != "" and not (value == 0 and not isinstance(value, bool))


def _needs_exactly(request: MutableMapping[str, Any]) -> bool:
    return any(field in request and _is_set(request[field]) for field in EXACT_FIELDS)


def _move_request_fields(index: int, request: MutableMapping[str, Any], indent: int) -> str:
    moved = move_keys(request, [k for k in request if k in EXACT_FIELDS], "exactly", indent)
    return f"request {index}: {', '.join(moved)} moved under exactly"


def _drop_unset_fields(index: int, request: MutableMapping[str, Any]) -> str:
    """Zero-valued device fields (``deviceClassName: ""``) that the server ignores in v1beta1."""
    dropped = [k for k in list(request) if k in EXACT_FIELDS]
    for key in dropped:
        delete_key(request, key)
    return f"request {index}: unset {', '.join(dropped)} dropped"


def _lift_basic(index: int, device: MutableMapping[str, Any], indent: int) -> str:
    lifted = lift_keys(device, "basic", indent)
    if not lifted:
        return f"device {index}: empty basic removed"
    return f"device {index}: {', '.join(lifted)} lifted out of basic"


def _is_zero_selector(spec: MutableMapping[str, Any], key: str) -> bool:
    """``nodeName: ""`` or ``allNodes: false``: unset in v1beta1, a set value in v1."""
    value = spec.get(key)
    return value is False if key == "allNodes" else (isinstance(value, str) and value == "")


def _drop_unset_selectors(spec: MutableMapping[str, Any]) -> str:
    dropped = [key for key in ("nodeName", "allNodes") if _is_zero_selector(spec, key)]
    for key in dropped:
        delete_key(spec, key)
    return f"spec: {', '.join(dropped)} dropped (unset in v1beta1, an invalid value in v1)"


# --- mapping edits that keep ruamel.yaml comments and styles -----------------------------


def _comments(mapping: Any) -> Any:
    """The ruamel comment table of a mapping (None for plain dicts)."""
    return getattr(mapping, "ca", None)


def set_scalar(mapping: MutableMapping[str, Any], key: str, value: str) -> None:
    """Replace a string value, keeping its quoting style and the gap before a line comment."""
    old = mapping.get(key)
    style = type(old) if isinstance(old, str) and type(old) is not str else None
    mapping[key] = style(value) if style is not None else value
    if isinstance(old, str):
        shift_line_comment(mapping, key, len(value) - len(old))


def shift_line_comment(mapping: Any, key: Any, delta: int) -> None:
    """Move the comment at the end of ``key``'s line by ``delta`` columns (its line got longer)."""
    table = _comments(mapping)
    entry = table.items.get(key) if table is not None else None
    token = entry[2] if entry and len(entry) > 2 else None
    if token is not None and token.start_mark is not None and not token.value.startswith("\n"):
        token.start_mark = CommentMark(max(token.start_mark.column + delta, 0))


def delete_key(mapping: MutableMapping[str, Any], key: str) -> None:
    """Remove a key with its end-of-line comment; full-line comments after it stay in place."""
    keys = list(mapping)
    position = keys.index(key)
    comments = _take_comments(_comments(mapping), key)
    del mapping[key]
    if comments is not None and position > 0:
        following = comments.lines[1:] if comments.eol_column is not None else comments.lines
        _comment_lines_after(mapping, keys[position - 1], _Comments(following, None), None)


def _new_mapping_like(parent: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    new = type(parent)()
    flow = getattr(getattr(parent, "fa", None), "flow_style", None)
    if flow is not None and flow() and hasattr(new, "fa"):
        new.fa.set_flow_style()
    return new


def _insert(mapping: MutableMapping[str, Any], position: int, key: str, value: Any) -> None:
    if hasattr(mapping, "insert"):
        mapping.insert(position, key, value)
        return
    items = list(mapping.items())
    items.insert(position, (key, value))
    mapping.clear()
    mapping.update(items)


def _key_column(mapping: Any, key: str) -> int | None:
    position = getattr(getattr(mapping, "lc", None), "key", None)
    try:
        return position(key)[1] if position else None
    except (KeyError, TypeError):
        return None


class _Comments(NamedTuple):
    """The comments attached to one key, as whole lines, plus the end-of-line comment's column."""

    lines: list[str]
    eol_column: int | None  # None: the first line is a full-line comment, not on the key's line

    def shifted(self, from_column: int | None, delta: int) -> _Comments:
        """The comments moved ``delta`` columns, for a key moved one level deeper or shallower."""
        lines = self.lines
        if from_column is not None and delta:
            lines = []
            for index, line in enumerate(self.lines):
                indent = len(line) - len(line.lstrip(" "))
                if not (index == 0 and self.eol_column is not None) and indent >= from_column:
                    line = " " * max(indent + delta, 0) + line.lstrip(" ")
                lines.append(line)
        column = None if self.eol_column is None else max(self.eol_column + delta, 0)
        return _Comments(lines, column)

    def token(self) -> CommentToken:
        prefix = "" if self.eol_column is not None else "\n"
        return CommentToken(prefix + "".join(self.lines), CommentMark(self.eol_column or 0), None)


def _parse_comments(tokens: list[CommentToken]) -> _Comments | None:
    if not tokens:
        return None
    text = "".join(token.value for token in tokens)
    eol = not text.startswith("\n") and text.lstrip(" ").startswith("#")
    body = text if eol else text[1:]
    body = body if body.endswith("\n") else body + "\n"
    lines = [line + "\n" for line in body.split("\n")[:-1]]  # blank lines are kept
    first = tokens[0].start_mark
    return _Comments(lines, (first.column if first is not None else 0) if eol else None)


def _take_comments(table: Any, key: Any) -> _Comments | None:
    """Detach the comments stored on ``key``.

    ruamel.yaml keeps a comment at the end of a key's line, and the full-line comments after
    it, in one token; comments between a key and its nested block sit in a second slot.
    """
    entry = table.items.pop(key, None) if table is not None else None
    if not entry:
        return None
    return _parse_comments(
        ([entry[2]] if entry[2] is not None else [])
        + [t for t in (entry[3] if len(entry) > 3 and entry[3] else ()) if t is not None]
    )


def _tokens(entry: Any) -> Iterator[CommentToken]:
    if isinstance(entry, CommentToken):
        yield entry
    elif isinstance(entry, list):
        for item in entry:
            yield from _tokens(item)


def shift_comments(node: Any, from_column: int | None, delta: int) -> None:
    """Move every comment inside ``node`` by ``delta`` columns (the node moved that much)."""
    if from_column is None or not delta:
        return
    stack = [node]
    seen: set[int] = set()  # ruamel shares a token between a key and the mapping it opens
    while stack:
        current = stack.pop()
        table = _comments(current)
        for token in _tokens(list(table.items.values()) + [table.comment] if table is not None else []):
            if id(token) in seen:
                continue
            seen.add(id(token))
            comments = _parse_comments([token])
            if comments is not None:
                moved = comments.shifted(from_column, delta)
                token.value = moved.token().value
                # ruamel annotates Token.start_mark as StreamMark, but its own comment tokens carry
                # a CommentMark (see CommentToken.__init__); the stub is narrower than the library.
                token.start_mark = CommentMark(moved.eol_column or 0)  # type: ignore[assignment]
        if isinstance(current, MutableMapping):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)


def _put_comments(table: Any, key: str, comments: _Comments | None) -> None:
    if table is not None and comments is not None and comments.lines:
        table.items[key] = [None, None, comments.token(), None]


def _comment_lines_after(mapping: Any, key: str, comments: _Comments | None, column: int | None) -> None:
    """Attach comments as full lines after ``key``'s line (an end-of-line comment included)."""
    table = _comments(mapping)
    if table is None or comments is None or not comments.lines:
        return
    indent = " " * (column or 0)
    text = "".join(indent + line if line.startswith("#") else line for line in comments.lines)
    entry = table.items.setdefault(key, [None, None, None, None])
    if entry[2] is None:
        entry[2] = CommentToken("\n" + text, CommentMark(0), None)
    else:
        entry[2].value = entry[2].value + text


def move_keys(mapping: MutableMapping[str, Any], keys: list[str], into: str, indent: int = 2) -> list[str]:
    """Move ``keys`` (in their order) into a new mapping stored under ``into``.

    The new key takes the place of the first moved key; comments attached to moved keys move
    with them, one indentation step deeper.
    """
    position = list(mapping).index(keys[0])
    column = _key_column(mapping, keys[0])
    child = _new_mapping_like(mapping)
    table, child_table = _comments(mapping), _comments(child)
    for key in keys:
        comments = _take_comments(table, key)
        child[key] = mapping.pop(key)
        shift_comments(child[key], column, indent)
        _put_comments(child_table, key, comments.shifted(column, indent) if comments else None)
    _insert(mapping, position, into, child)
    return keys


def lift_keys(mapping: MutableMapping[str, Any], key: str, indent: int = 2) -> list[str]:
    """Replace ``mapping[key]`` (a mapping) by its entries, in place and in order.

    Comments on the removed key move to the line before the first lifted entry; comments on
    the entries move with them, one indentation step shallower.
    """
    keys = list(mapping)
    position = keys.index(key)
    column = _key_column(mapping, key)
    inner = None if column is None else column + indent
    child = mapping[key] or {}
    table, child_table = _comments(mapping), _comments(child)
    own = _take_comments(table, key)
    if child_table is not None:
        child_table.comment = None
    lifted = list(child)
    del mapping[key]
    for offset, name in enumerate(lifted):
        _insert(mapping, position + offset, name, child[name])
        shift_comments(child[name], inner, -indent)
        comments = _take_comments(child_table, name)
        _put_comments(table, name, comments.shifted(inner, -indent) if comments else None)
    if position > 0 and own is not None:
        _comment_lines_after(mapping, keys[position - 1], own.shifted(inner, -indent), column)
    return lifted
