"""Type errors on capacities that the API server's checker finds and the library's cannot.

Kubernetes declares ``device.capacity`` as ``map(string, map(string, kubernetes.Quantity))``,
so ``device.capacity["d"].memory > 5`` or ``== "40Gi"`` fails to compile at apply time ("found
no matching overload for '_>_' applied to '(kubernetes.Quantity, int)'").  dralint's check
environment can only type the inner values as dyn (a protobuf ``Struct``), which accepts those
expressions.  This module restores the missing part: it types every read of a capacity value
as ``kubernetes.Quantity`` and reports each use that has no overload for a Quantity, with the
message the API server prints.  Uses it cannot judge (a value bound to a variable, functions
dralint does not model) are left alone, so it never reports what the server accepts.

One such error is not about capacities: cel-go declares ``flatten()`` for a list of lists
only, and the library for any list, so ``[1, 2].flatten()`` compiles here and not there
(``flatten(1)`` with a depth takes any list in both).
"""

from __future__ import annotations

from dralint.k8s.cel.ast import Node

__all__ = ["QUANTITY", "capacity_type_errors", "flatten_errors", "is_capacity_value"]

QUANTITY = "kubernetes.Quantity"
_OPERATORS = {
    "_<_": "<",
    "_<=_": "<=",
    "_>_": ">",
    "_>=_": ">=",
    "_+_": "+",
    "_-_": "-",
    "_*_": "*",
    "_/_": "/",
    "_%_": "%",
    "_&&_": "&&",
    "_||_": "||",
    "_==_": "==",
    "_!=_": "!=",
}
_EQUALITY = {"_==_", "_!=_"}
# member function -> argument types it accepts after the Quantity receiver
_METHODS = {
    "compareTo": {QUANTITY},
    "isGreaterThan": {QUANTITY},
    "isLessThan": {QUANTITY},
    "add": {QUANTITY, "int"},
    "sub": {QUANTITY, "int"},
    "asInteger": set(),
    "isInteger": set(),
    "asApproximateFloat": set(),
}
# global functions that do not take a Quantity (a conversion or a string function)
_NOT_FOR_QUANTITY = {
    "quantity",
    "semver",
    "isQuantity",
    "isSemver",
    "string",
    "int",
    "uint",
    "double",
    "bytes",
    "bool",
    "size",
    "timestamp",
    "duration",
    "matches",
}


def _is_capacity_map(node: Node | None) -> bool:
    """``device.capacity[<any key>]``."""
    if node is None or node.kind != "call" or node.value != "_[_]" or len(node.args) != 2:
        return False
    base = node.args[0]
    return (
        base.kind == "select"
        and base.value == "capacity"
        and base.target is not None
        and base.target.kind == "ident"
        and base.target.value == "device"
    )


def is_capacity_value(node: Node) -> bool:
    """A read of one capacity value: ``device.capacity[d].name`` or ``device.capacity[d][key]``."""
    if node.kind == "select" and not node.test_only:
        return _is_capacity_map(node.target)
    if node.kind == "call" and node.value == "_[_]" and len(node.args) == 2:
        return _is_capacity_map(node.args[0])
    return False


def _type(node: Node) -> str:
    return QUANTITY if is_capacity_value(node) else node.type


def _position(expression: str, offset: int) -> str:
    line = expression.count("\n", 0, offset) + 1
    column = offset - (expression.rfind("\n", 0, offset) + 1) + 1
    return f"<input>:{line}:{column}"


def _overload_error(
    expression: str,
    call: Node,
    function: str,
    types: list[str],
    start: int,
    end: int,
) -> tuple[str, int, int]:
    # cel-go writes a method call's receiver before the arguments: 'kubernetes.Quantity.(int)'
    shown = f"{types[0]}.({', '.join(types[1:])})" if call.target is not None else f"({', '.join(types)})"
    detail = f"found no matching overload for '{function}' applied to '{shown}'"
    return f"compilation failed: ERROR: {_position(expression, call.offset)}: {detail}", start, end


def capacity_type_errors(expression: str, root: Node) -> list[tuple[str, int, int]]:
    """(API-server message, start, end) for each use of a capacity that has no overload."""
    errors: list[tuple[str, int, int]] = []
    for call in root.walk():
        if call.kind != "call":
            continue
        function = str(call.value)
        operands = ([call.target] if call.target is not None else []) + call.args
        if not any(is_capacity_value(node) for node in operands):
            continue
        types = [_type(node) for node in operands]
        if function in _OPERATORS:
            if function in _EQUALITY and all(t in (QUANTITY, "dyn") for t in types):
                continue
            start = max(call.offset, 0)
            errors.append(_overload_error(expression, call, function, types, start, start + len(_OPERATORS[function])))
        elif function == "!_":
            errors.append(_overload_error(expression, call, function, types, call.offset, call.offset + 1))
        elif call.target is not None and is_capacity_value(call.target):
            accepted = _METHODS.get(function)
            if accepted is None:
                continue  # a function dralint does not model: leave it to the server
            if len(call.args) > (1 if accepted else 0) or any(t not in accepted | {"dyn"} for t in types[1:]):
                name_at = expression.rfind(function, 0, call.offset + 1)
                errors.append(
                    _overload_error(expression, call, function, types, max(name_at, 0), max(name_at, 0) + len(function))
                )
        elif call.target is None and function in _NOT_FOR_QUANTITY:
            name_at = expression.rfind(function, 0, call.offset + 1)
            errors.append(
                _overload_error(expression, call, function, types, max(name_at, 0), max(name_at, 0) + len(function))
            )
    return errors


def flatten_errors(expression: str, root: Node) -> list[tuple[str, int, int]]:
    """(API-server message, start, end) for each ``flatten()`` of a list whose elements the
    checker knows are not lists."""
    errors = []
    for call in root.walk():
        if call.kind != "call" or call.value != "flatten" or call.target is None or call.args:
            continue
        shown = call.target.type
        element = shown[len("list(") : -1] if shown.startswith("list(") and shown.endswith(")") else None
        if element is None or element == "dyn" or element.startswith("list("):
            continue
        name_at = expression.rfind("flatten", 0, call.offset + 1)
        errors.append(_overload_error(expression, call, "flatten", [shown], max(name_at, 0), max(name_at, 0) + 7))
    return errors
