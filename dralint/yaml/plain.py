"""Narrow values of parsed YAML to the container a caller expects.

Manifests are user input: a field that should be a mapping can hold a string or a list. Checks
report wrong types through the schema, so everywhere else treats them as empty, and these two
helpers say so once, with types a checker can follow (``x.get(k) if isinstance(x.get(k), dict)``
is right at run time but opaque to mypy).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def as_dict(value: object) -> dict[str, Any]:
    """``value`` if it is a mapping, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    """``value`` if it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def type_name(value: object) -> str:
    """How a message names the type of a parsed value: ``an integer``, ``a mapping``, ``null``."""
    if value is None:
        return "null"
    names = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
    }
    return names.get(type(value), f"a {type(value).__name__} value")


def as_mapping(value: object) -> Mapping[str, Any]:
    """``value`` if it is any mapping, else an empty one (for code that accepts any Mapping)."""
    return value if isinstance(value, Mapping) else {}
