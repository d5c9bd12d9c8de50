"""The API server's static cost estimate of a DRA selector, against the 1,000,000 limit.

The API server refuses a selector whose *estimated* worst-case cost exceeds
``CELSelectorExpressionMaxCost = 1,000,000``.  None of the Python CEL libraries estimates cost,
so this module ports the estimator the v1.37 compiler runs, over the checked tree of
:mod:`dralint.k8s.cel.ast` (node types and overload ids come from the checker, as in cel-go).
It follows, function by function, with the same integer arithmetic (sizes and costs are
unsigned 64-bit and saturate at 2**64 - 1, cost factors round up):

* ``github.com/google/cel-go`` v0.29.2 ``checker/cost.go``: the walk (``coster.cost``), the
  costs of identifiers, selections, literals, list/map/message creation, comprehensions and
  ``cel.bind`` (``costBind``: the bound variable takes the size of its initialiser), and the
  built-in functions (``functionCost``: ``matches``, ``contains``, ``startsWith``, ``in``, ``+``,
  comparisons, ``?:``, ``&&``...; any other function costs 1);
* ``ext/lists.go`` and ``ext/sets.go`` there: ``lists.range``, ``slice``, ``flatten``,
  ``reverse``, ``distinct``, ``sort``, ``sortBy`` and ``sets.*``, which override the rest;
* ``k8s.io/apiserver`` v0.37.2 ``pkg/cel/library/cost.go`` (``CostEstimator.EstimateCallCost``,
  by function name): ``lowerAscii``/``upperAscii``/``substring``/``trim``, ``replace``,
  ``split``, ``join``, ``find``/``findAll``, ``quantity``/``semver`` parsing, list
  ``isSorted``/``sum``/``min``/``max``/``includes``, and ``==`` on two Quantities or Semvers
  (cost 1).  The strings extension is at version 2 there, so its own estimators (version 5)
  are not used;
* ``k8s.io/dynamic-resource-allocation`` v0.37.2 ``cel/compile.go`` (``sizeEstimator``): the
  maximum sizes of what ``device`` holds (driver 63, 32 domains of at most 63 characters, 32
  attributes or capacities per domain, identifiers 32, attribute values 64, quantities 0).

**Where sizes come from.**  The estimator knows the size of a value only in these ways
(``coster.computeSize``): a size computed for that node (a function that reports its result
size, such as ``lowerAscii`` or ``+``; a comprehension; ``cel.bind``; ``dyn``), a literal, a
*field path* that the DRA size estimator can follow from ``device`` (``device.attributes["d"].x``,
also through a bound variable or a comprehension variable, which carry the path of what they
were bound to), a scalar type (size 1), or a bound variable's own size.  Paths are made only by
identifiers, field selections and ``[...]`` indexing: an optional selection ``.?x``, an optional
index ``[?k]`` and every other function call produce a value with no path.  So
``device.attributes["d"].?uuid.orValue("")`` has **no size** (``orValue`` reports none), nor has
a variable bound to it, and any function whose cost grows with that size (``lowerAscii``,
``matches``, ``split``, ``contains``...) is estimated at about 2**64 / 10: the server refuses
the selector.  A comprehension over a value of unknown size is refused the same way, and so
is ``lists.range(n)`` with a non-literal ``n``.  Comparing such a value with ``==`` stays cheap
(the cost is the smaller of the two sizes).

Known limits of the port: the types and overloads are the Python checker's.  Where it types
less precisely than cel-go the estimate can be higher: a capacity read without a path (through
an optional) is ``dyn``, not ``Quantity``, so ``==`` on it is charged by size; ``flatten()``
returns ``list(dyn)``, so what follows is charged for every overload a ``dyn`` admits
(``string(e)`` as ``bytes_to_string``, ``sortBy`` as a string sort).  Kubernetes functions that
dralint does not check (URL, IP/CIDR, format, ...) are "not checked" before any cost is
estimated.  Measured: equal to the compiler's figure on 65 of 65 selectors of the shared
corpus, on the 165 shapes of the conformance generator and on 507 of 511 random compositions
that both compile (the 4 others go through ``flatten()``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from dralint.k8s.cel.ast import Node

__all__ = ["CostEstimate", "estimate_cost", "MAX_COST", "UNBOUNDED"]

MAX_COST = 1_000_000
UNBOUNDED = (1 << 64) - 1  # cel-go's math.MaxUint64: the saturated size or cost

# cel-go common/cost.go
_STRING_FACTOR = 0.1
_REGEX_FACTOR = 0.25
_LIST_CREATE, _MAP_CREATE, _STRUCT_CREATE = 10, 30, 40


def _add(a: int, b: int) -> int:
    return min(a + b, UNBOUNDED)


def _mul(a: int, b: int) -> int:
    return min(a * b, UNBOUNDED)


def _factor(x: int, factor: float) -> int:
    """cel-go ``multiplyByCostFactor``: the product rounded up, saturated."""
    value = float(x)
    if value > 0 and factor > 0 and value > float(UNBOUNDED) / factor:
        return UNBOUNDED
    product = math.ceil(value * factor)
    return UNBOUNDED if product >= 2.0**64 else int(product)


def _wrap(x: int) -> int:
    """Go's uint64 arithmetic where cel-go does not saturate (it wraps)."""
    return x % (1 << 64)


class Size(NamedTuple):
    """cel-go ``SizeEstimate``: the range of a string's, list's or map's size."""

    lo: int
    hi: int

    def add(self, other: Size) -> Size:
        return Size(_add(self.lo, other.lo), _add(self.hi, other.hi))

    def mul(self, other: Size) -> Size:
        return Size(_mul(self.lo, other.lo), _mul(self.hi, other.hi))

    def union(self, other: Size) -> Size:
        return Size(min(self.lo, other.lo), max(self.hi, other.hi))

    def cost(self, factor: float) -> int:
        """The maximum of ``MultiplyByCostFactor`` (only maxima decide the verdict)."""
        return _factor(self.hi, factor)


UNKNOWN = Size(0, UNBOUNDED)


class _Entry(NamedTuple):
    """cel-go ``entrySizeEstimate``: the sizes of a container literal's keys and values."""

    container: str  # list | map
    key: Size
    val: Size

    def union(self, other: _Entry | None) -> _Entry | None:
        if other is None:
            return None
        return _Entry(self.container, self.key.union(other.key), self.val.union(other.val))


class _Path:
    """A field path as cel-go holds it: a Go ``[]string`` view of an array it may share.

    cel-go extends paths with Go's ``append`` (``addPath(e, append(c.getPath(operand), field))``,
    ``pushIterKey``/``pushIterValue``), which writes in place when the array has room and so can
    overwrite the last element of another path made from the same one.  The estimate depends on
    it: in ``device.attributes["d"].all(k, v, ...)`` the key's path is written ``@keys`` and then
    overwritten ``@values`` by the value's, so the key is given the value's size (64, not 32).
    Capacities grow as Go grows a ``[]string`` (1, 2, 4, 8...: 16-byte elements, power-of-two
    size classes).
    """

    __slots__ = ("cells", "length")

    def __init__(self, cells: list[str], length: int) -> None:
        self.cells = cells
        self.length = length

    def names(self) -> tuple[str, ...]:
        return tuple(self.cells[: self.length])

    def append(self, name: str) -> _Path:
        if self.length < len(self.cells):
            self.cells[self.length] = name
            return _Path(self.cells, self.length + 1)
        capacity = max(self.length + 1, 2 * len(self.cells))
        return _Path(self.cells[: self.length] + [name] + [""] * (capacity - self.length - 1), self.length + 1)


_NO_PATH = _Path([], 0)


class _Var(NamedTuple):
    """A comprehension or bind variable: the path, size and entry sizes it was bound with."""

    path: _Path
    size: Size | None
    entry: _Entry | None


class _Decl(NamedTuple):
    """A DeclType of the DRA environment as the size estimator walks it."""

    max: int
    fields: dict[str, _Decl] | None = None
    key: _Decl | None = None
    elem: _Decl | None = None


_ATTRIBUTE = _Decl(64)  # DeviceAttributeMaxValueLength (64 >= ResourceSliceMaxAttributeValuesPerDevice, 48)
_DOMAIN, _ID = _Decl(63), _Decl(32)
_DEVICE = _Decl(
    0,
    fields={
        "driver": _Decl(63),
        "attributes": _Decl(32, key=_DOMAIN, elem=_Decl(32, key=_ID, elem=_ATTRIBUTE)),
        "capacity": _Decl(32, key=_DOMAIN, elem=_Decl(32, key=_ID, elem=_Decl(0))),
        "allowMultipleAllocations": _Decl(1),
    },
)
_CAPACITY_DOMAIN = ("device", "capacity", "@values")


def _device_size(path: tuple[str, ...]) -> Size | None:
    """dynamic-resource-allocation ``sizeEstimator.EstimateSize``: a path from ``device`` only."""
    if not path or path[0] != "device":
        return None
    node = _DEVICE
    for name in path[1:]:
        if name in ("@items", "@values"):
            if node.elem is None:
                return None
            node = node.elem
        elif name == "@keys":
            if node.key is None:
                return None
            node = node.key
        elif node.fields and name in node.fields:
            node = node.fields[name]
        elif node.elem is _ATTRIBUTE:  # any name in an attribute map has the attribute size
            node = _ATTRIBUTE
        else:
            return None
    return Size(0, node.max)


_SCALAR_TYPES = frozenset({"bool", "int", "uint", "double", "timestamp", "duration"})
_PRIMITIVE_TYPES = _SCALAR_TYPES | {"string", "bytes", "dyn", "null_type", "type", "error", "any"}


def _is_scalar(type_name: str) -> bool:
    if type_name.startswith("optional_type(") and type_name.endswith(")"):
        return _is_scalar(type_name[len("optional_type(") : -1])
    return type_name in _SCALAR_TYPES


def _selects_with_cost(type_name: str) -> bool:
    """cel-go charges a field selection on a map, a message or a type parameter."""
    if type_name.startswith("map("):
        return True
    # anything else that is not a primitive or parameterised type is a message or a type parameter
    return "(" not in type_name and type_name not in _PRIMITIVE_TYPES


def _element_type(type_name: str) -> str | None:
    """The parameter of a ``list(T)`` type (``listElementNode``), None for anything else."""
    if type_name.startswith("list(") and type_name.endswith(")"):
        return type_name[5:-1]
    return None


_COMPARISONS = frozenset(
    {"equals", "not_equals"}
    | {f"{op}_{kind}" for op in ("less", "greater", "less_equals", "greater_equals") for kind in ("string", "bytes")}
)
_CONSTANT_K8S = frozenset(
    {
        "sign",
        "asInteger",
        "isInteger",
        "asApproximateFloat",
        "isGreaterThan",
        "isLessThan",
        "compareTo",
        "add",
        "sub",
        "major",
        "minor",
        "patch",
    }
)
# The Python checker's ids where they differ from cel-go's.
_CEL_GO_OVERLOAD = {"list_range": "lists_range"}


_SIZED = (
    "only literals and values read along a path from device have a size the compiler knows; "
    "an optional (.?x, [?k], orValue()) and most function results have none"
)


class CostEstimate(NamedTuple):
    """Worst-case cost of one selector, and what made it unbounded, if anything did."""

    max_cost: int
    unbounded: str = ""  # why the estimate is beyond any limit: which function met an unknown size

    @property
    def bounded(self) -> bool:
        return not self.unbounded


class _Estimator:
    """cel-go's ``coster`` over the Python checked tree, with the DRA size estimator."""

    def __init__(self) -> None:
        self.paths: dict[int, _Path] = {}
        self.sizes: dict[int, Size] = {}
        self.entries: dict[int, _Entry] = {}
        self.scopes: dict[str, list[_Var]] = {}
        self.unknown_reads = 0
        self.unbounded = ""

    # --- variables and paths (coster.getPath, push/peek/pop) ---
    def peek(self, name: str) -> _Var | None:
        stack = self.scopes.get(name)
        return stack[-1] if stack else None

    def push(self, name: str, var: _Var) -> None:
        self.scopes.setdefault(name, []).append(var)

    def pop(self, name: str) -> None:
        self.scopes[name].pop()

    def path(self, node: Node) -> _Path:
        if node.kind == "ident":
            var = self.peek(str(node.value))
            if var is not None:
                return var.path
        return self.paths.get(node.id, _NO_PATH)

    def node_type(self, node: Node) -> str:
        """The checker's type, except that a capacity value is a Quantity, as in the DRA env."""
        path = self.path(node).names()
        if len(path) == 4 and path[:3] == _CAPACITY_DOMAIN:
            return "kubernetes.Quantity"
        return node.type

    # --- sizes (coster.computeSize, computeEntrySize) ---
    def computed_size(self, node: Node) -> Size | None:
        if node.id in self.sizes:
            return self.sizes[node.id]
        literal = _literal_size(node)
        if literal is not None:
            return literal
        estimated = _device_size(self.path(node).names())
        if estimated is not None:
            self.sizes[node.id] = estimated
            return estimated
        if _is_scalar(node.type):
            return Size(1, 1)
        if node.kind == "ident":
            var = self.peek(str(node.value))
            if var is not None and var.size is not None:
                return var.size
        return None

    def size(self, node: Node) -> Size:
        """``sizeOrUnknown``: an unknown size counts as 2**64 - 1 and is noted for the message."""
        found = self.computed_size(node)
        if found is None:
            self.unknown_reads += 1
            return UNKNOWN
        return found

    def entry(self, node: Node) -> _Entry | None:
        if node.id in self.entries:
            return self.entries[node.id]
        if node.kind == "ident":
            var = self.peek(str(node.value))
            if var is not None:
                return var.entry
        return None

    def item_size(self, container: Node) -> Size | None:
        """The size of a list's elements (``listElementNode``): by path only; None if not a list."""
        if _element_type(container.type) is None:
            return None
        path = self.path(container).names()
        if path and path[0] in ("@result", "__result__"):
            path = ()  # newAstNode gives the estimators no path rooted at an accumulator
        found = _device_size(path + ("@items",)) if path else None
        if found is None:
            self.unknown_reads += 1
            return UNKNOWN
        return found

    # --- the walk (coster.cost) ---
    def cost(self, node: Node | None) -> int:
        if node is None:
            return 0
        kind = node.kind
        if kind == "const":
            return 0
        if kind == "ident":
            var = self.peek(str(node.value))
            self.paths[node.id] = var.path if var is not None else _Path([str(node.value)], 1)
            return 1
        if kind == "select":
            return self.select(node)
        if kind == "list":
            return self.create_list(node)
        if kind == "struct":
            return self.create_map(node) if not node.value else _add(sum(self.cost(a) for a in node.args), 40)
        if kind == "comprehension":
            return self.bind(node) if _is_bind(node) else self.comprehension(node)
        return self.call(node)

    def select(self, node: Node) -> int:
        operand = node.target
        if operand is None:
            return 0
        if node.test_only:  # has(): the Kubernetes environment makes the presence test free
            return self.cost(operand)
        total = self.cost(operand)
        if _selects_with_cost(self.node_type(operand)):
            total = _add(total, 1)
        self.paths[node.id] = self.path(operand).append(str(node.value))
        return total

    def create_list(self, node: Node) -> int:
        total = 0
        item = Size(0, 0) if not node.args else Size(UNBOUNDED, 0)
        for element in node.args:
            total = _add(total, self.cost(element))
            item = item.union(self.size(element))
        self.entries[node.id] = _Entry("list", Size(1, 1), item)
        return _add(total, _LIST_CREATE)

    def create_map(self, node: Node) -> int:
        total = 0
        empty = Size(0, 0) if not node.args else Size(UNBOUNDED, 0)
        keys, values = empty, empty
        for key, value in zip(node.args[::2], node.args[1::2], strict=True):
            total = _add(_add(total, self.cost(key)), self.cost(value))
            keys = keys.union(self.size(key))
            values = values.union(self.size(value))
        self.entries[node.id] = _Entry("map", keys, values)
        return _add(total, _MAP_CREATE)

    def comprehension(self, node: Node) -> int:
        iter_range, init = node.iter_range, node.accu_init
        if iter_range is None or init is None:
            return 0
        total = _add(self.cost(iter_range), self.cost(init))
        self.push(node.accu_var, _Var(self.path(init), self.computed_size(init), self.entry(init)))
        entry = self.entry(iter_range)
        container = entry.container if entry else ("list" if iter_range.type.startswith("list(") else "map")
        base = self.path(iter_range)
        if node.iter_var2:
            key_size = entry.key if entry else None
            value_size = entry.val if entry else None
            self.push(node.iter_var, _Var(base.append("@indices" if container == "list" else "@keys"), key_size, None))
            self.push(
                node.iter_var2, _Var(base.append("@items" if container == "list" else "@values"), value_size, None)
            )
        elif container == "list":
            self.push(node.iter_var, _Var(base.append("@items"), entry.val if entry else None, None))
        else:
            self.push(node.iter_var, _Var(base.append("@keys"), entry.key if entry else None, None))
        per_item = _add(self.cost(node.loop_condition), self.cost(node.loop_step))
        self.pop(node.iter_var)
        if node.iter_var2:
            self.pop(node.iter_var2)
        total = _add(total, self.cost(node.result))
        self.pop(node.accu_var)
        count = self.size(iter_range)
        if count.hi == UNBOUNDED and not self.unbounded:
            self.unbounded = f"a comprehension ranges over a value of unknown size: {_SIZED}"
        total = _add(total, _mul(count.hi, per_item))
        if init.kind == "const":
            self._set_size(node, self.computed_size(init))
        elif init.kind == "list" or (init.kind == "struct" and not init.value):
            self.sizes[node.id] = count
            step = self.entry(node.loop_step) if node.loop_step else None
            if step is not None:
                self.entries[node.id] = step
        return total

    def bind(self, node: Node) -> int:
        init = node.accu_init
        if init is None:
            return 0
        total = _add(self.cost(node.iter_range), self.cost(init))
        self.push(node.accu_var, _Var(self.path(init), self.computed_size(init), self.entry(init)))
        total = _add(total, self.cost(node.result))
        self.pop(node.accu_var)
        if node.result is not None:
            self._set_size(node, self.computed_size(node.result))
            result_entry = self.entry(node.result)
            if result_entry is not None:
                self.entries[node.id] = result_entry
        return total

    def _set_size(self, node: Node, size: Size | None) -> None:
        if size is not None:
            self.sizes[node.id] = size

    def call(self, node: Node) -> int:
        name = str(node.value)
        if name == "dyn" and node.args:  # maybeUnwrapDynCall: dyn() keeps its argument's sizes
            arg = node.args[0]
            total = _add(self.cost(arg), 1)
            self._set_size(node, self.computed_size(arg))
            arg_entry = self.entry(arg)
            if arg_entry is not None:
                self.entries[node.id] = arg_entry
            return total
        arg_costs = [self.cost(arg) for arg in node.args]
        if not node.overloads:
            return 0
        total = self.cost(node.target) if node.target is not None else 0
        function_cost = 0
        result: Size | None = None
        for overload in node.overloads:
            before = self.unknown_reads
            cost, size = self.function_cost(node, name, _CEL_GO_OVERLOAD.get(overload, overload), arg_costs)
            if self.unknown_reads > before and cost - sum(arg_costs) > MAX_COST and not self.unbounded:
                self.unbounded = f"{_display(name)} is applied to a value of unknown size: {_SIZED}"
            function_cost = max(function_cost, cost)
            if size is not None:
                result = size if result is None else result.union(size)
            if overload in ("index_list", "index_map") and node.args:
                container = node.args[0]
                container_entry = self.entry(container)
                result = container_entry.val if container_entry else None
                self.paths[node.id] = self.path(container).append("@items" if overload == "index_list" else "@values")
            if result is None:
                result = self.computed_size(node)
        self._set_size(node, result)
        return _add(total, function_cost)

    def function_cost(self, node: Node, name: str, overload: str, arg_costs: list[int]) -> tuple[int, Size | None]:
        """``functionCost``: the extension estimators, then Kubernetes', then cel-go's own."""
        args_total = 0
        for arg_cost in arg_costs:
            args_total = _add(args_total, arg_cost)
        for estimate in (self.extension_cost, self.kubernetes_cost):
            found = estimate(node, name, overload)
            if found is not None:
                return _add(found[0], args_total), found[1]
        return self.builtin_cost(node, overload, arg_costs, args_total)

    def extension_cost(self, node: Node, name: str, overload: str) -> tuple[int, Size | None] | None:
        """cel-go ext/lists.go (version 3) and ext/sets.go ``OverloadCostEstimate``s."""
        target, args = node.target, node.args
        if overload == "lists_range" and target is None and len(args) == 1:
            return _allocating(1, Size(*[_literal_uint(args[0], UNBOUNDED)] * 2))
        if target is None:
            if overload.startswith("list_sets_") and len(args) == 2:
                factor = 2.0 if overload == "list_sets_equivalent_list" else 1.0
                return _add(_factor(self.size(args[0]).mul(self.size(args[1])).hi, factor), 1), None
            return None
        if overload == "list_slice" and len(args) == 2:
            whole = self.size(target)
            span = _wrap(_literal_uint(args[1], whole.hi) - _literal_uint(args[0], 0))
            return _allocating(1, Size(span, span))
        if overload in ("list_flatten", "list_flatten_int") and len(args) <= 1:
            depth = _literal_uint(args[0], UNBOUNDED) if args else 1
            return _allocating(float(depth), self.size(target))
        if overload == "list_reverse" and not args:
            return _allocating(1, self.size(target))
        if overload == "list_distinct" and not args:
            whole = self.size(target)
            return _allocating(2.0, whole.mul(whole))
        if overload.startswith("list_") and overload.endswith("_sort") and not args:
            whole = self.size(target)
            return _allocating(_sort_factor(overload, "_sort"), whole.mul(whole))
        if overload.startswith("list_") and overload.endswith("_sortByAssociatedKeys") and len(args) == 1:
            keys = self.size(args[0])
            return _allocating(_sort_factor(overload, "_sortByAssociatedKeys"), keys.mul(keys))
        return None

    def kubernetes_cost(self, node: Node, name: str, overload: str) -> tuple[int, Size | None] | None:
        """apiserver pkg/cel/library/cost.go ``EstimateCallCost`` (by function name)."""
        target, args = node.target, node.args
        if name in _CONSTANT_K8S:
            return 1, None
        if name in ("quantity", "isQuantity", "semver", "isSemver") and args:
            return self.size(args[0]).cost(_STRING_FACTOR), None
        if name == "_==_" and len(args) == 2:
            left, right = self.node_type(args[0]), self.node_type(args[1])
            if left == right and left in ("kubernetes.Quantity", "kubernetes.Semver"):
                return 1, None
            return None
        if target is None:
            return None
        if name in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"):
            element = _element_type(target.type)
            if element is not None:
                item = self.item_size(target) if element in ("string", "bytes") else None
                each = _add(1, item.cost(_STRING_FACTOR)) if item is not None else 1
                return _mul(self.size(target).hi, each), None
            if name == "includes":
                return self.size(target).hi, None
            return self.size(target).cost(_STRING_FACTOR), None
        if name in ("lowerAscii", "upperAscii", "substring", "trim"):
            whole = self.size(target)
            return whole.cost(_STRING_FACTOR), whole
        if name == "replace" and len(args) >= 2:
            return self.replace_cost(self.size(target), self.size(args[0]), self.size(args[1]))
        if name == "split":
            whole = self.size(target)
            most = whole.hi
            if len(args) > 1 and args[1].kind == "const" and type(args[1].value) is int:
                most = _wrap(args[1].value)
            return whole.cost(2 * _STRING_FACTOR), Size(0, most)
        if name == "join":
            return self.join_cost(target, args)
        if name in ("find", "findAll") and args:
            whole = self.size(target)
            return _regex_cost(whole, self.size(args[0])), Size(0, whole.hi)
        return None

    @staticmethod
    def replace_cost(whole: Size, old: Size, new: Size) -> tuple[int, Size]:
        """The ``replace`` case of ``EstimateCallCost``: the longest result replaces the shortest
        needle by the longest replacement as often as possible, the shortest the other way."""
        count_hi, kept_hi = _replacements(whole.hi, old.lo, new.hi <= old.lo)
        count_lo, kept_lo = _replacements(whole.lo, old.hi, old.hi <= new.lo)
        result = Size(count_lo, count_hi).mul(new).add(Size(kept_lo, kept_hi))
        return whole.cost(2 * _STRING_FACTOR), result

    def join_cost(self, target: Node, args: list[Node]) -> tuple[int, Size]:
        items = self.size(target)
        item = self.item_size(target)
        joined = items.mul(item) if item is not None else Size(0, 0)
        if args:
            separators = Size(max(items.lo - 1, 0), max(items.hi - 1, 0))
            joined = joined.add(self.size(args[0]).mul(separators))
        return joined.cost(_STRING_FACTOR), joined

    def builtin_cost(self, node: Node, overload: str, arg_costs: list[int], args_total: int) -> tuple[int, Size | None]:
        """The ``switch overloadID`` of ``functionCost``; any other function costs 1."""
        target, args = node.target, node.args
        if overload == "string_format" and target is not None:
            return _add(self.size(target).cost(_STRING_FACTOR), args_total), None
        if overload in ("string_to_bytes", "bytes_to_string", "strings_quote") and len(args) == 1:
            text = self.size(args[0])
            cost = _add(text.cost(_STRING_FACTOR), args_total)
            if overload == "string_to_bytes":
                return cost, Size(text.lo, _wrap(text.hi * 4))
            if overload == "bytes_to_string":
                return cost, Size(text.lo // 4, text.hi)
            return cost, Size(_wrap(text.lo + 2), _wrap(text.hi * 2 + 2))
        if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
            return _add(self.size(args[0]).cost(_STRING_FACTOR), args_total), None
        if overload == "in_list" and len(args) == 2:
            return _add(self.size(args[1]).cost(1), args_total), None
        if overload in ("matches", "matches_string"):
            pair = (target, args[0]) if overload == "matches_string" and target and len(args) == 1 else None
            if overload == "matches" and target is None and len(args) == 2:
                pair = (args[0], args[1])
            if pair is not None:
                return _add(_regex_cost(self.size(pair[0]), self.size(pair[1])), args_total), None
        if overload == "contains_string" and target is not None and len(args) == 1:
            work = _mul(self.size(target).cost(_STRING_FACTOR), self.size(args[0]).cost(_STRING_FACTOR))
            return _add(work, args_total), None
        if overload in ("logical_and", "logical_or"):
            return _add(arg_costs[0], arg_costs[1]), None
        if overload == "conditional":
            size = self.size(args[1]).union(self.size(args[2]))
            then_entry = self.entry(args[1])
            merged = then_entry.union(self.entry(args[2])) if then_entry else None
            if merged is not None:
                self.entries[node.id] = merged
            return _add(arg_costs[0], max(arg_costs[1], arg_costs[2])), size
        if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            size = self.size(args[0]).add(self.size(args[1]))
            left_entry = self.entry(args[0])
            merged = left_entry.union(self.entry(args[1])) if left_entry else None
            if merged is not None:
                self.entries[node.id] = merged
            if overload == "add_list":
                return _add(1, args_total), size
            return _add(size.cost(_STRING_FACTOR), args_total), size
        if overload in _COMPARISONS and len(args) == 2:
            smallest = min(self.size(args[0]).hi, self.size(args[1]).hi)
            return _add(_factor(smallest, _STRING_FACTOR), args_total), None
        return _add(1, args_total), None


def _regex_cost(text: Size, pattern: Size) -> int:
    """``matches``, ``find``: (the text + 1) x 0.1 times the pattern x 0.25, each rounded up."""
    return _mul(_factor(_add(text.hi, 1), _STRING_FACTOR), pattern.cost(_REGEX_FACTOR))


def _replacements(length: int, needle: int, no_change: bool) -> tuple[int, int]:
    """For one bound of ``replace``: how many replacements, and how many characters are kept."""
    if needle == 0:  # an empty needle is replaced around every character
        return (length + 1 if length < UNBOUNDED else length), length
    if no_change:
        return 0, length
    return min(math.ceil(float(length) / float(needle)), UNBOUNDED), 0


def _display(name: str) -> str:
    return {"_==_": "==", "_+_": "+", "@in": "in"}.get(name, f"{name}()")


def _literal_size(node: Node) -> Size | None:
    """``computeExprSize``: literals, and list and map literals by their number of entries."""
    if node.kind == "const":
        if isinstance(node.value, (str, bytes)):
            return Size(len(node.value), len(node.value))
        return Size(1, 1)
    if node.kind == "list":
        return Size(len(node.args), len(node.args))
    if node.kind == "struct" and not node.value:
        return Size(len(node.args) // 2, len(node.args) // 2)
    return None


def _literal_uint(node: Node, default: int) -> int:
    """cel-go ext ``nodeAsUintValue``: an int literal (negative as 0), else the default."""
    if node.kind != "const" or type(node.value) is not int:
        return default
    return max(node.value, 0)


def _allocating(factor: float, size: Size) -> tuple[int, Size]:
    """cel-go ext ``estimateAllocatingListCall``: the list's size times the factor, a call, a list."""
    return _add(_add(size.cost(factor), 1), _LIST_CREATE), size


def _sort_factor(overload: str, suffix: str) -> float:
    element = overload[len("list_") : -len(suffix)]
    return 2.0 + _STRING_FACTOR if element in ("string", "bytes") else 2.0


def _is_bind(node: Node) -> bool:
    """cel-go ``isBind``: an empty list literal range, a literal false condition, a named accumulator."""
    condition = node.loop_condition
    return (
        node.iter_range is not None
        and node.iter_range.kind == "list"
        and not node.iter_range.args
        and condition is not None
        and condition.kind == "const"
        and condition.value is False
        and node.accu_var != "__result__"
    )


def estimate_cost(root: Node) -> CostEstimate:
    """The compiler's worst-case cost of a checked expression tree (see the module docstring)."""
    estimator = _Estimator()
    cost = estimator.cost(root)
    return CostEstimate(max_cost=cost, unbounded=estimator.unbounded if cost > MAX_COST else "")
