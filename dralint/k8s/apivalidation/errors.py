"""The error record of API validation, and messages worded like the API server's.

Kubernetes reports validation failures as ``field.Error`` values whose text is
``<field path>: <type>: <value>: <detail>`` (``spec.devices.requests[0].name: Invalid value: "A": ...``).
dralint keeps that shape so users recognise what ``kubectl apply`` would print, and adds the data
path (to find the YAML position), whether the position is the key or the value, a rule id and a hint.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from dralint.k8s import objects

PathItem = str | int
Path = tuple[PathItem, ...]

# Rule ids (catalog: rules/APIxxx.yaml).
UNKNOWN_FIELD = "API001"
WRONG_TYPE = "API002"
REQUIRED = "API003"
UNSUPPORTED_VALUE = "API004"
TOO_MANY = "API005"
TOO_LONG = "API006"
INVALID_FORMAT = "API007"
ONE_OF = "API008"
INVALID_VALUE = "API009"
DUPLICATE = "API010"
VERSION_NOT_SERVED = "API011"
VERSION_DEPRECATED = "API012"
UNKNOWN_KIND = "API013"
NOT_VALIDATED = "API014"
FEATURE_GATED = "API015"
SERVER_WRITTEN = "API016"
UNDEFINED_REFERENCE = "API017"
EXTENDED_RESOURCE = "API018"
NAMESPACE_IGNORED = "API019"


class ApiError(NamedTuple):
    """One thing the API server would reject (or silently drop) in an object.

    ``path`` is the data path inside the object (``("spec", "devices", "requests", 0)``); ``key``
    says the finding belongs on the key at that path (unknown field, missing child, too-long
    list) rather than on its value. ``gate`` is set for fields that need a feature gate, so
    callers can drop the error when the user enabled that gate.
    """

    path: Path
    rule: str
    message: str
    key: bool = False
    hint: str | None = None
    gate: str | None = None


def field_path(path: Path) -> str:
    """The Kubernetes field name of ``path``; the object itself is ``<root>``."""
    return objects.field_path(tuple(path)) or "<root>"


#: Characters of a value a message quotes in full; a longer one is quoted by its two ends.
SHOWN_CHARS = 80


def shortened(text: str) -> str:
    """``text``, or its two ends and its length when it is longer than ``SHOWN_CHARS``: a 1 MB
    label value or a 5,000-digit number would otherwise be the whole message, in every report."""
    if len(text) <= SHOWN_CHARS:
        return text
    half = SHOWN_CHARS // 2
    return f"{text[:half]}…{text[-half // 2 :]} ({len(text):,} characters)"


def render_value(value: Any) -> str:
    """Render a value as the server does in ``Invalid value: ...`` (strings quoted, JSON otherwise)."""
    if isinstance(value, str):
        return shortened(json.dumps(value))
    if isinstance(value, (dict, list)):
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
        return text if len(text) <= 60 else "{...}" if isinstance(value, dict) else "[...]"
    return shortened(json.dumps(value, default=str))


def invalid(path: Path, value: Any, detail: str) -> str:
    """``<path>: Invalid value: <value>: <detail>``."""
    return f"{field_path(path)}: Invalid value: {render_value(value)}: {detail}"


def required(path: Path, detail: str = "") -> str:
    """``<path>: Required value[: <detail>]``."""
    return f"{field_path(path)}: Required value" + (f": {detail}" if detail else "")


def duplicate(path: Path, value: Any) -> str:
    """``<path>: Duplicate value: <value>``."""
    return f"{field_path(path)}: Duplicate value: {render_value(value)}"


def too_many(path: Path, count: int, limit: int) -> str:
    """``<path>: Too many: <n>: must have at most <limit> items``."""
    return f"{field_path(path)}: Too many: {count}: must have at most {limit} items"


def too_long(path: Path, limit: int) -> str:
    """``<path>: Too long: may not be more than <limit> bytes``."""
    return f"{field_path(path)}: Too long: may not be more than {limit} bytes"


def not_supported(path: Path, value: Any, supported: list[Any]) -> str:
    """``<path>: Unsupported value: <value>: supported values: "a", "b"``."""
    listed = ", ".join(render_value(v) for v in supported)
    return f"{field_path(path)}: Unsupported value: {render_value(value)}: supported values: {listed}"


def forbidden(path: Path, detail: str) -> str:
    """``<path>: Forbidden: <detail>``."""
    return f"{field_path(path)}: Forbidden: {detail}"
