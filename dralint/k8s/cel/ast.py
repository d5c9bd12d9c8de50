"""The checked CEL syntax tree, decoded from the library's serialized ``cel.expr.CheckedExpr``.

cel-expr-python does not expose its AST, but ``Expression.serialize()`` returns a
``google.protobuf.Any`` holding a ``cel.expr.CheckedExpr``.  Instead of vendoring the cel-spec
``.proto`` files we read the few fields we need straight from the protobuf wire format (field
numbers from cel-spec ``syntax.proto``/``checked.proto``, which are frozen).  The result is a
small tree of :class:`Node` with each node's source offset (0-based, in code points, from
``SourceInfo.positions``) and, for checked expressions, its static type name and the ids of
the overloads the checker resolved its call to (``reference_map``).  The cost
estimator and the selector lints work on this tree; macros (``all``, ``exists``, ``has``,
``cel.bind``...) appear already expanded, as in cel-go.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

__all__ = ["Node", "decode_checked_expr"]

# cel.expr.Constant oneof field numbers -> python conversion
_CONST_NULL, _CONST_BOOL, _CONST_INT, _CONST_UINT, _CONST_DOUBLE, _CONST_STRING, _CONST_BYTES = 1, 2, 3, 4, 5, 6, 7
# cel.expr.Type primitive enum
_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "timestamp", 3: "duration"}


class Node:
    """One expression node: ``kind`` is const, ident, select, call, list, struct or comprehension.

    The decoder makes an empty node and fills in what the serialized node holds.
    """

    __slots__ = (
        "id",
        "kind",
        "offset",
        "type",
        "overloads",
        "value",
        "target",
        "args",
        "test_only",
        "iter_var",
        "iter_var2",
        "accu_var",
        "iter_range",
        "accu_init",
        "loop_condition",
        "loop_step",
        "result",
    )

    def __init__(self, id: int, kind: str) -> None:
        self.id = id
        self.kind = kind
        self.offset = -1
        self.type = "dyn"
        self.overloads: tuple[str, ...] = ()  # a call's resolved overload ids
        self.value: object = None  # const value, ident name, select field, call name, message name
        self.target: Node | None = None  # select operand or member-call receiver
        self.args: list[Node] = []  # call args, list elements, struct values
        self.test_only = False  # select used by has()
        self.iter_var = ""
        self.iter_var2 = ""
        self.accu_var = ""
        self.iter_range: Node | None = None
        self.accu_init: Node | None = None
        self.loop_condition: Node | None = None
        self.loop_step: Node | None = None
        self.result: Node | None = None

    def children(self) -> Iterator[Node]:
        """Direct sub-expressions in source order (receiver first)."""
        for child in (
            self.target,
            *self.args,
            self.iter_range,
            self.accu_init,
            self.loop_condition,
            self.loop_step,
            self.result,
        ):
            if child is not None:
                yield child

    def walk(self) -> Iterator[Node]:
        """This node and every descendant, depth first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(list(node.children())))

    @property
    def is_literal_string(self) -> bool:
        return self.kind == "const" and isinstance(self.value, str)


def _fields(buf: bytes) -> Iterator[tuple[int, int, Any]]:
    """Yield (field number, wire type, value) for one message's bytes."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
            yield number, wire, value
        elif wire == 2:
            length, pos = _varint(buf, pos)
            yield number, wire, buf[pos : pos + length]
            pos += length
        elif wire == 1:
            yield number, wire, buf[pos : pos + 8]
            pos += 8
        elif wire == 5:
            yield number, wire, buf[pos : pos + 4]
            pos += 4
        else:
            raise ValueError(f"unsupported wire type {wire}")


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _map_entries(raw: bytes) -> tuple[int, bytes | int]:
    key: int = 0
    value: bytes | int = b""
    for number, _wire, item in _fields(raw):
        if number == 1:
            key = _signed(item)
        elif number == 2:
            value = item
    return key, value


def _type_name(raw: bytes) -> str:
    """A cel-go style type name (``int``, ``list(string)``, ``kubernetes.Quantity``)."""
    for number, _wire, item in _fields(raw):
        if number == 1:
            return "dyn"
        if number == 2:
            return "null_type"
        if number == 3:
            return _PRIMITIVES.get(item, "dyn")
        if number == 4:
            return f"wrapper({_PRIMITIVES.get(item, 'dyn')})"
        if number == 5:
            return _WELL_KNOWN.get(item, "dyn")
        if number == 6:
            elem = next((v for n, _w, v in _fields(item) if n == 1), b"")
            return f"list({_type_name(elem)})"
        if number == 7:
            parts = {n: v for n, _w, v in _fields(item)}
            return f"map({_type_name(parts.get(1, b''))}, {_type_name(parts.get(2, b''))})"
        if number == 9:
            return item.decode()
        if number == 10:
            return item.decode()
        if number == 11:
            return "type"
        if number == 12:
            return "error"
        if number == 14:  # AbstractType{name, parameter_types}
            name = next((v.decode() for n, _w, v in _fields(item) if n == 1), "abstract")
            params = [_type_name(v) for n, _w, v in _fields(item) if n == 2]
            return f"{name}({', '.join(params)})" if params else name
    return "dyn"


def _constant(raw: bytes) -> object:
    for number, _wire, item in _fields(raw):
        if number == _CONST_NULL:
            return None
        if number == _CONST_BOOL:
            return bool(item)
        if number == _CONST_INT:
            return _signed(item)
        if number == _CONST_UINT:
            return item
        if number == _CONST_DOUBLE:
            return struct.unpack("<d", item)[0]
        if number == _CONST_STRING:
            return item.decode("utf-8", "surrogatepass")
        if number == _CONST_BYTES:
            return bytes(item)
    return None


def _overload_ids(raw: bytes) -> tuple[int, tuple[str, ...]]:
    """One ``reference_map`` entry: the expression id and its Reference's ``overload_id`` list."""
    key, value = _map_entries(raw)
    if not isinstance(value, bytes):
        return key, ()
    return key, tuple(v.decode() for n, _w, v in _fields(value) if n == 3)


_Tables = tuple[dict[int, int], dict[int, str], dict[int, tuple[str, ...]]]


def _expr(raw: bytes, tables: _Tables) -> Node:
    node = Node(id=0, kind="const")
    for number, _wire, item in _fields(raw):
        if number == 2:
            node.id = item
        elif number == 3:
            node.kind, node.value = "const", _constant(item)
        elif number == 4:
            node.kind = "ident"
            node.value = next((v.decode() for n, _w, v in _fields(item) if n == 1), "")
        elif number in (5, 6):  # Select{operand, field, test_only} / Call{target, function, args}
            node.kind = "select" if number == 5 else "call"
            for n, _w, v in _fields(item):
                if n == 1:
                    node.target = _expr(v, tables)
                elif n == 2:
                    node.value = v.decode()
                elif n == 3 and number == 5:
                    node.test_only = bool(v)
                elif n == 3:
                    node.args.append(_expr(v, tables))
        elif number == 7:
            node.kind = "list"
            node.args = [_expr(v, tables) for n, _w, v in _fields(item) if n == 1]
        elif number == 8:
            node.kind = "struct"  # a map literal (value "") or a message (value is its name)
            node.value = ""
            for n, _w, v in _fields(item):
                if n == 1:
                    node.value = v.decode()
                elif n == 2:
                    for en, _ew, ev in _fields(v):
                        if en in (3, 4):
                            node.args.append(_expr(ev, tables))
        elif number == 9:
            node.kind = "comprehension"
            for n, _w, v in _fields(item):
                if n == 1:
                    node.iter_var = v.decode()
                elif n == 2:
                    node.iter_range = _expr(v, tables)
                elif n == 3:
                    node.accu_var = v.decode()
                elif n == 4:
                    node.accu_init = _expr(v, tables)
                elif n == 5:
                    node.loop_condition = _expr(v, tables)
                elif n == 6:
                    node.loop_step = _expr(v, tables)
                elif n == 7:
                    node.result = _expr(v, tables)
                elif n == 8:
                    node.iter_var2 = v.decode()
    positions, types, overloads = tables
    node.offset = positions.get(node.id, -1)
    node.type = types.get(node.id, "dyn")
    node.overloads = overloads.get(node.id, ())
    return node


def decode_checked_expr(serialized: bytes) -> Node:
    """Decode ``Expression.serialize()`` output (an Any holding a CheckedExpr) into a tree."""
    payload = b""
    for number, _wire, item in _fields(serialized):
        if number == 2:
            payload = item
    expr_raw = b""
    positions: dict[int, int] = {}
    types: dict[int, str] = {}
    overloads: dict[int, tuple[str, ...]] = {}
    for number, _wire, item in _fields(payload):
        if number == 2:
            key, ids = _overload_ids(item)
            if ids:
                overloads[key] = ids
        elif number == 3:
            key, value = _map_entries(item)
            types[key] = _type_name(value) if isinstance(value, bytes) else "dyn"
        elif number == 4:
            expr_raw = item
        elif number == 5:
            for n, _w, v in _fields(item):
                if n == 4:
                    key, value = _map_entries(v)
                    if isinstance(value, int):
                        positions[key] = value
    return _expr(expr_raw, (positions, types, overloads))
