"""Plain scalars resolved the way Kubernetes' YAML decoder does (YAML 1.1, go-yaml v2).

Both readers (``dralint.yaml.loader`` from libyaml's events, ``dralint.yaml.blockfast`` line by
line) resolve scalars here, so a value never depends on which reader took its document.
"""

from __future__ import annotations

import math
import re
from typing import Any

# --- scalar resolution (YAML 1.1, as Kubernetes' decoder) -------------------------------
#
# Kubernetes turns YAML into JSON with sigs.k8s.io/yaml, which resolves plain scalars with its
# fork of go-yaml v2. Its rules, followed here: the table below (where y/n are booleans, as in
# YAML 1.1), then for text starting with a digit or sign, a Go integer with underscores removed
# (0755 octal, 0x1F, 0o17, 0b101), then a simple float (1e3, 08 -> 8.0, -.5). Base-60 numbers
# (12:30) are deliberately not supported there, so they stay strings; so do timestamps, which
# the JSON conversion writes back as strings anyway.

_TABLE: dict[str, Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
_BOOLS = {k: v for k, v in _TABLE.items() if isinstance(v, bool)}
#: Go's integer literal syntax (strconv.ParseInt with base 0), underscores already removed.
_GO_INT = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_GO_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_GO_DOT_FLOAT = re.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?")
_INT_BASES = {"x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2}
_INT_MIN, _UINT_MAX = -(2**63), 2**64 - 1
#: Digits of the largest integer Go's ParseUint reads (18,446,744,073,709,551,615).
_MAX_DECIMAL_DIGITS = len(str(_UINT_MAX))
_NUMERIC_START = set("0123456789-+")
_MAYBE_SPECIAL = _NUMERIC_START | set(".~yYnNtTfFoO")


def _go_int(plain: str) -> int | None:
    """The value of ``plain`` as Go's ParseInt(plain, 0, 64) (or ParseUint) reads it, or None."""
    if not _GO_INT.fullmatch(plain):
        return None
    sign = -1 if plain[0] == "-" else 1
    digits = plain.lstrip("+-")
    if digits[0] == "0" and len(digits) > 1:
        base = _INT_BASES.get(digits[1])
        value = int(digits[2:], base) if base else int(digits[1:], 8)  # a bare leading 0: octal
    elif len(digits) > _MAX_DECIMAL_DIGITS:  # out of range, and past what ``int`` converts (4,300 digits)
        return None
    else:
        value = int(digits)
    value *= sign
    return value if _INT_MIN <= value <= _UINT_MAX else None


def _number(text: str) -> int | float | None:
    """An int or float for text starting with a digit or a sign, as go-yaml resolves it."""
    plain = text.replace("_", "")
    value = _go_int(plain)
    if value is not None:
        return value
    if _GO_FLOAT.fullmatch(plain):
        return float(plain)
    return None


def resolve_plain(text: str) -> Any:
    """Resolve an untagged plain scalar the way Kubernetes' YAML decoder does."""
    if not text:
        return None
    first = text[0]
    if first not in _MAYBE_SPECIAL:
        return text
    if text in _TABLE:
        return _TABLE[text]
    if first in _NUMERIC_START:
        number = _number(text)
        return text if number is None else number
    if first == "." and _GO_DOT_FLOAT.fullmatch(text):
        return float(text)
    return text


def resolve_tagged(text: str, tag: str) -> Any:
    """Honour the explicit core tags; keep anything else (or what does not fit) as written."""
    short = tag.rsplit(":", 1)[-1] if tag.startswith("tag:yaml.org,2002:") else tag.lstrip("!")
    value = resolve_plain(text) if short in ("int", "float", "bool", "null") else text
    if short == "int" and type(value) is int:
        return value
    if short == "float" and type(value) in (int, float):
        return float(value)
    if short == "bool" and text in _BOOLS:
        return _BOOLS[text]
    if short == "null":
        return None
    return text


#: The integers every Kubernetes integer field can hold: int64 (int32 fields say so in the schema).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def out_of_range(value: Any) -> bool:
    """Whether a resolved scalar is a number no Kubernetes field can hold: NaN or an infinity
    (``.nan``, ``-.Inf``, ``1e999``, a 5,000-digit integer, ``!!float nan``) or an integer past
    int64. Both readers note it where they resolve scalars, so that a document known to hold
    none need not be searched for one (see ``Document.finite``)."""
    kind = type(value)
    if kind is float:
        return not math.isfinite(value)
    return kind is int and not INT64_MIN <= value <= INT64_MAX


def key_text(key: Any) -> str:
    """A resolved scalar key as the text a mapping keeps it under (``true``, ``1``, ``null``)."""
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


#: Characters that make a plain scalar mean something else inside a flow collection or a line.
_FLOW_SPECIAL = frozenset(",[]{}#&*!|>'\"%@`:")


def flow_scalar(text: str) -> str:
    """``text`` written so that YAML reads it back as that string inside a flow collection:
    plain when it resolves to itself, double-quoted otherwise (``"true"``, ``"1.0"``, ``"a: b"``),
    for hints a user pastes."""
    if text and text == text.strip() and resolve_plain(text) == text and not _FLOW_SPECIAL.intersection(text):
        return text
    import json  # only for the values that need quoting

    return json.dumps(text)
