"""The two cel-expr-python environments behind :mod:`dralint.k8s.cel` (the only importer of the library).

Why two: cel-expr-python type-checks custom *opaque* types (``kubernetes.Quantity``,
``kubernetes.Semver``) but cannot carry their values at run time ("Unimplemented type: 13").
So:

* the **check env** declares ``device`` as a message built at run time from a protobuf
  descriptor (``kubernetes.DRADevice``: ``driver`` string, ``attributes``/``capacity`` as
  ``map<string, google.protobuf.Struct>`` i.e. map of map of dyn, ``allowMultipleAllocations``
  bool) and Quantity/Semver as abstract types, with declarations only;
* the **eval env** declares ``device`` as ``map(string, dyn)`` and represents a Quantity or a
  Semver as a *canonical tagged string*: ``"\\ue000q:" + exact decimal value`` or
  ``"\\ue000v:" + version without build metadata``.  Canonical tags make CEL ``==`` agree with
  Kubernetes (``quantity("1Gi") == quantity("1024Mi")``; build metadata ignored).  The tag is a
  private-use character, not NUL, because the library truncates strings at NUL.

Both environments enable the extensions the Kubernetes base environment has: optionals,
``cel.bind``, strings (version 2), lists, sets and two-variable comprehensions (through the
library's YAML env config, which also knows ``lists``, ``sets`` and ``two-var-comprehensions``).  On top
come the Kubernetes libraries dralint implements: quantity, semver, regex ``find``/``findAll``,
list ``isSorted``/``sum``/``min``/``max`` and DRA ``includes``.  Kubernetes functions that are
not implemented here (URL, IP/CIDR, format, list ``indexOf``/``lastIndexOf``...) are listed in
:data:`UNSUPPORTED_NAMES`; an expression that uses them is reported as "not checked".

Difference kept on purpose: inside evaluation ``isInteger()``/``asInteger()`` answer from the
quantity's value, because the tag holds the value only (Kubernetes answers from its internal
int64 representation, so ``quantity("1000m").isInteger()`` is false there and true here).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from fractions import Fraction
from itertools import pairwise
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, struct_pb2

from dralint.k8s.quantity import Quantity, QuantityError, is_quantity, parse_quantity
from dralint.k8s.semver import Semver, SemverError, is_semver, parse_semver

__all__ = [
    "check_env",
    "eval_env",
    "QUANTITY_TAG",
    "SEMVER_TAG",
    "quantity_tag",
    "semver_tag",
    "UNSUPPORTED_NAMES",
    "CelEvalError",
]

QUANTITY_TAG = "\ue000q:"
SEMVER_TAG = "\ue000v:"

# Kubernetes CEL library functions that dralint does not implement: an "undeclared reference"
# to one of these is a gap in dralint, never a finding.
UNSUPPORTED_NAMES = frozenset(
    {
        "url",
        "isURL",
        "getScheme",
        "getHost",
        "getHostname",
        "getPort",
        "getEscapedPath",
        "getQuery",
        "ip",
        "isIP",
        "cidr",
        "isCIDR",
        "family",
        "isUnspecified",
        "isLoopback",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isGlobalUnicast",
        "containsIP",
        "containsCIDR",
        "masked",
        "prefixLength",
        "format",
        "validate",
        "indexOf",
        "lastIndexOf",
        "mul",
        "div",
        "divInt",
    }
)

#: The cel-go extensions of the v1.37 base environment (k8s.io/apiserver pkg/cel/environment
#: base.go): strings at version 2 (no string reverse()), lists, sets, two-variable
#: comprehensions, optionals and cel.bind; no math (math.greatest, math.least are undeclared).
_EXTENSIONS_YAML = "extensions:\n" + "".join(
    f'  - name: "{name}"\n' + (f"    version: {version}\n" if version is not None else "")
    for name, version in (
        ("optional", None),
        ("bindings", None),
        ("strings", 2),
        ("lists", None),
        ("sets", None),
        ("two-var-comprehensions", None),
    )
)


class CelEvalError(Exception):
    """Raised inside a function implementation; the library turns it into a CEL error value."""


# --- tagged values -------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def quantity_tag(q: Quantity) -> str:
    """Canonical tagged string for a Quantity: its exact value in plain decimal notation."""
    return QUANTITY_TAG + _decimal_text(q.value)


@functools.lru_cache(maxsize=4096)
def semver_tag(v: Semver) -> str:
    """Canonical tagged string for a Semver: equal precedence gives equal tags."""
    return SEMVER_TAG + v.precedence_key()


def _decimal_text(value: Fraction) -> str:
    sign = "-" if value < 0 else ""
    value = abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    if not rest:
        return f"{sign}{whole}"
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
        if digits > 60:  # not a decimal fraction; cannot come from parsed quantities
            raise CelEvalError("quantity value is not a decimal number")
    scaled = value.numerator * 10**digits // value.denominator
    text = str(scaled).rjust(digits + 1, "0")
    return f"{sign}{text[:-digits]}.{text[-digits:]}"


@functools.lru_cache(maxsize=4096)
def _as_quantity(tagged: Any) -> Quantity:
    if isinstance(tagged, str) and tagged.startswith(QUANTITY_TAG):
        return parse_quantity(tagged[len(QUANTITY_TAG) :])
    raise CelEvalError("no such overload")


@functools.lru_cache(maxsize=4096)
def _as_semver(tagged: Any) -> Semver:
    if isinstance(tagged, str) and tagged.startswith(SEMVER_TAG):
        return parse_semver(tagged[len(SEMVER_TAG) :])
    raise CelEvalError("no such overload")


def _ordered(a: Any, b: Any) -> int:
    """compareTo for two Quantities or two Semvers; mixed kinds are a runtime overload error."""
    if isinstance(a, str) and isinstance(b, str):
        if a.startswith(QUANTITY_TAG) and b.startswith(QUANTITY_TAG):
            return _as_quantity(a).compare(_as_quantity(b))
        if a.startswith(SEMVER_TAG) and b.startswith(SEMVER_TAG):
            return _as_semver(a).compare(_as_semver(b))
    raise CelEvalError("no such overload")


# --- function implementations (eval env) ---------------------------------------------------
@functools.lru_cache(maxsize=4096)
def _quantity(text: str) -> str:
    try:
        return quantity_tag(parse_quantity(text))
    except QuantityError as exc:
        raise CelEvalError(str(exc)) from exc


@functools.lru_cache(maxsize=4096)
def _semver(text: str, normalize: bool = False) -> str:
    try:
        return semver_tag(parse_semver(text, normalize))
    except SemverError as exc:
        raise CelEvalError(str(exc)) from exc


def _as_integer(q: str) -> int:
    try:
        return _as_quantity(q).as_integer()
    except QuantityError as exc:
        raise CelEvalError(str(exc)) from exc


def _arith(op: str) -> Callable[[str, Any], str]:
    def apply(q: str, other: Any) -> str:
        left = _as_quantity(q)
        right = other if isinstance(other, int) and not isinstance(other, bool) else _as_quantity(other)
        return quantity_tag(left.add(right) if op == "add" else left.sub(right))

    return apply


def _find(text: str, pattern: str) -> str:
    match = _regex(pattern).search(text)
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found = [m.group(0) for m in _regex(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


@functools.lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise CelEvalError(f"invalid regex: {exc}") from exc


def _list_values(items: list[Any]) -> list[Any]:
    if not items:
        raise CelEvalError("list is empty")
    return items


def _list_min(items: list[Any]) -> Any:
    return min(_list_values(items), key=functools.cmp_to_key(_cmp_any))


def _list_max(items: list[Any]) -> Any:
    return max(_list_values(items), key=functools.cmp_to_key(_cmp_any))


def _cmp_any(a: Any, b: Any) -> int:
    if isinstance(a, str) and isinstance(b, str) and a[:3] == b[:3] and a[:1] == "\ue000":
        return _ordered(a, b)
    return (a > b) - (a < b)


def _is_sorted(items: list[Any]) -> bool:
    return all(_cmp_any(a, b) <= 0 for a, b in pairwise(items))


def _includes(container: Any, item: Any) -> bool:
    return item in container if isinstance(container, list) else container == item


# --- declarations ----------------------------------------------------------------------------
_S, _B, _I, _D, _DYN = cel.Type.STRING, cel.Type.BOOL, cel.Type.INT, cel.Type.DOUBLE, cel.Type.DYN
_LIST = cel.Type.List(_DYN)


# The checker needs one overload taking dyn; the library's run-time dispatch never matches a dyn
# parameter, so the eval env gets concrete overloads instead.
_CHECK_ONLY = frozenset({"dra_list_includes"})
_EVAL_ONLY = frozenset({"dra_list_includes_int", "dra_list_includes_bool", "dra_list_includes_string"})


def _declarations(q: Any, v: Any, typed: bool) -> list[Any]:
    """Function declarations; ``typed`` distinguishes the check env (opaque types, no impls)."""
    table: dict[str, list[tuple[str, Any, list[Any], bool, Callable[..., Any]]]] = {
        "quantity": [("quantity_string", q, [_S], False, _quantity)],
        "isQuantity": [("is_quantity_string", _B, [_S], False, is_quantity)],
        "semver": [
            ("string_to_semver", v, [_S], False, _semver),
            ("string_bool_to_semver", v, [_S, _B], False, _semver),
        ],
        "isSemver": [
            ("is_semver_string", _B, [_S], False, is_semver),
            ("is_semver_string_bool", _B, [_S, _B], False, is_semver),
        ],
        # a function, not a method, in the library (cel.Overload): q.sign() does not compile
        "sign": [("quantity_sign", _I, [q], False, lambda a: _as_quantity(a).sign())],
        "asApproximateFloat": [("quantity_get_float", _D, [q], True, lambda a: _as_quantity(a).as_approximate_float())],
        "asInteger": [("quantity_get_int", _I, [q], True, _as_integer)],
        "isInteger": [("quantity_is_integer", _B, [q], True, lambda a: _as_quantity(a).is_integer())],
        "add": [
            ("quantity_add", q, [q, q], True, _arith("add")),
            ("quantity_add_int", q, [q, _I], True, _arith("add")),
        ],
        "sub": [
            ("quantity_sub", q, [q, q], True, _arith("sub")),
            ("quantity_sub_int", q, [q, _I], True, _arith("sub")),
        ],
        "compareTo": [
            ("quantity_compare_to", _I, [q, q], True, _ordered),
            ("semver_compare_to", _I, [v, v], True, _ordered),
        ],
        "isGreaterThan": [
            ("quantity_is_greater_than", _B, [q, q], True, lambda a, b: _ordered(a, b) == 1),
            ("semver_is_greater_than", _B, [v, v], True, lambda a, b: _ordered(a, b) == 1),
        ],
        "isLessThan": [
            ("quantity_is_less_than", _B, [q, q], True, lambda a, b: _ordered(a, b) == -1),
            ("semver_is_less_than", _B, [v, v], True, lambda a, b: _ordered(a, b) == -1),
        ],
        "major": [("semver_major", _I, [v], True, lambda a: _as_semver(a).major)],
        "minor": [("semver_minor", _I, [v], True, lambda a: _as_semver(a).minor)],
        "patch": [("semver_patch", _I, [v], True, lambda a: _as_semver(a).patch)],
        "find": [("string_find_n", _S, [_S, _S], True, _find)],
        "findAll": [
            ("string_find_all", cel.Type.List(_S), [_S, _S], True, _find_all),
            ("string_find_all_n", cel.Type.List(_S), [_S, _S, _I], True, _find_all),
        ],
        "isSorted": [("list_is_sorted", _B, [_LIST], True, _is_sorted)],
        "sum": [("list_sum", _DYN, [_LIST], True, lambda items: sum(items))],
        "min": [("list_min", _DYN, [_LIST], True, _list_min)],
        "max": [("list_max", _DYN, [_LIST], True, _list_max)],
        "includes": [
            ("dra_list_includes", _B, [_LIST, _DYN], True, _includes),
            ("dra_list_includes_int", _B, [_LIST, _I], True, _includes),
            ("dra_list_includes_bool", _B, [_LIST, _B], True, _includes),
            ("dra_list_includes_string", _B, [_LIST, _S], True, _includes),
            ("dra_int_includes", _B, [_I, _I], True, _includes),
            ("dra_bool_includes", _B, [_B, _B], True, _includes),
            ("dra_string_includes", _B, [_S, _S], True, _includes),
            ("dra_semver_includes", _B, [v, v], True, _includes),
        ],
    }
    decls = []
    for name, overloads in table.items():
        seen: set[tuple[str, ...]] = set()
        made = []
        for overload_id, result, params, member, impl in overloads:
            signature = tuple(p.name() for p in params)
            if overload_id in _EVAL_ONLY if typed else overload_id in _CHECK_ONLY:
                continue
            if not typed and signature in seen:
                continue  # Quantity and Semver share the string representation at run time
            seen.add(signature)
            if typed:
                made.append(cel.Overload(overload_id, result, params, is_member=member))
            else:
                made.append(cel.Overload(overload_id, result, params, is_member=member, impl=impl))
        decls.append(cel.FunctionDecl(name, made))
    return decls


def _device_pool() -> descriptor_pool.DescriptorPool:
    """``kubernetes.DRADevice`` as a protobuf message built at run time (no .proto, no codegen)."""
    field = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="dralint/dra_device.proto", package="kubernetes", syntax="proto3")
    proto.dependency.append("google/protobuf/struct.proto")
    message = proto.message_type.add(name="DRADevice")
    message.field.add(name="driver", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    for number, name, entry in ((2, "attributes", "AttributesEntry"), (3, "capacity", "CapacityEntry")):
        nested = message.nested_type.add(name=entry)
        nested.options.map_entry = True
        nested.field.add(name="key", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
        nested.field.add(
            name="value",
            number=2,
            type=field.TYPE_MESSAGE,
            label=field.LABEL_OPTIONAL,
            type_name=".google.protobuf.Struct",
        )
        message.field.add(
            name=name,
            number=number,
            type=field.TYPE_MESSAGE,
            label=field.LABEL_REPEATED,
            type_name=f".kubernetes.DRADevice.{entry}",
        )
    message.field.add(name="allowMultipleAllocations", number=4, type=field.TYPE_BOOL, label=field.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(struct_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(proto)
    return pool


@functools.lru_cache(maxsize=1)
def check_env() -> Any:
    """The typed environment used to check expressions (declarations only)."""
    quantity_type = cel.Type.AbstractType("kubernetes.Quantity")
    semver_type = cel.Type.AbstractType("kubernetes.Semver")
    return cel.NewEnv(
        _device_pool(),
        config=cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML),
        variables={"device": cel.Type("kubernetes.DRADevice")},
        functions=_declarations(quantity_type, semver_type, typed=True),
    )


@functools.lru_cache(maxsize=1)
def eval_env() -> Any:
    """The environment used to evaluate expressions against device data."""
    return cel.NewEnv(
        config=cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML),
        variables={"device": cel.Type.Map(_S, _DYN)},
        functions=_declarations(_S, _S, typed=False),
    )
