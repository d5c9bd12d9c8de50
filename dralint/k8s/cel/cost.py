"""A conservative static cost estimate for a DRA selector, against the 1,000,000 limit.

The API server rejects a selector whose *estimated* worst-case cost exceeds
``CELSelectorExpressionMaxCost = 1,000,000`` (cel-go ``EstimateCost`` with the DRA size
estimator).  None of the Python CEL libraries estimates cost, so dralint walks the checked AST
(:mod:`dralint.k8s.cel.ast`) with a simplified version of cel-go's model.

The model, per node (``cost``, plus a ``Shape`` = maximum length of a string or collection and
the shapes of its items and keys):

* constants cost 0; identifiers, field selections, ``has()`` and index operations cost 1;
* a call costs 1 plus its arguments; ``&&``/``||`` cost both sides (the worst case evaluates
  both); ``?:`` costs the condition plus the dearer branch;
* string work is linear in the input: ``contains``, ``startsWith``, ``endsWith``, ``==``/``<``
  on strings, ``lowerAscii``, ``split``, ``replace``... cost ``1 + ceil(0.1 * length)``;
  ``matches``/``find``/``findAll`` cost ``(1 + ceil(0.1 * length)) * (1 + ceil(0.25 * regex length))``;
  string and list concatenation add the lengths; ``in`` on a list costs its length;
* list literals cost 10 plus their elements, map literals 30 plus their entries;
* a comprehension (``all``, ``exists``, ``map``, ``filter``, two-variable forms, ``cel.bind``)
  costs its range, its initial value, ``N x (condition + step)`` and its result, where ``N`` is
  the range's maximum size.  Nesting therefore multiplies.

Sizes come from the DRA type bounds in ``k8s.io/dynamic-resource-allocation/cel``: at most 32
domains, 32 attributes per domain (attributes and capacities together are at most 32 per
device), domain names up to 63 characters, identifiers up to 32, driver names up to 63,
attribute values up to 64 characters (list attributes are bounded at 64 items here, above the
real 48).  Literal strings and lists have their real sizes; ``lists.range(n)`` with a literal
``n`` has size ``n``.

When a size cannot be bounded (a list built from a non-literal ``lists.range``) the estimate is
marked ``bounded=False`` and uses :data:`UNBOUNDED_SIZE`; cel-go would answer "unbounded" there
and reject the selector, so dralint reports such a case as a warning, not an error.  The
estimate is an upper bound of this model; cel-go charges some operations differently (for
example it knows exact argument sizes for more functions), so figures near the limit are a
warning, not a verdict.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from dralint.k8s.cel.ast import Node

__all__ = ["CostEstimate", "estimate_cost", "MAX_COST", "UNBOUNDED_SIZE"]

MAX_COST = 1_000_000
UNBOUNDED_SIZE = 1_000_000


class Shape(NamedTuple):
    """Maximum size of a value and of its items (list elements / map values) and map keys."""

    size: int = 0
    item: Shape | None = None
    key: Shape | None = None


class CostEstimate(NamedTuple):
    """Worst-case cost of one selector, and whether every size in it was bounded."""

    max_cost: int
    bounded: bool = True


_SCALAR = Shape()
_ATTRIBUTE_VALUE = Shape(64, item=Shape(64))
_INNER_ATTRIBUTES = Shape(32, item=_ATTRIBUTE_VALUE, key=Shape(32))
_INNER_CAPACITY = Shape(32, item=_SCALAR, key=Shape(32))
_DEVICE_FIELDS = {
    "driver": Shape(63),
    "attributes": Shape(32, item=_INNER_ATTRIBUTES, key=Shape(63)),
    "capacity": Shape(32, item=_INNER_CAPACITY, key=Shape(63)),
    "allowMultipleAllocations": _SCALAR,
}
_DEVICE = Shape(size=-1)  # marker for the `device` variable itself

_LINEAR_STRING = frozenset(
    {
        "contains",
        "startsWith",
        "endsWith",
        "lowerAscii",
        "upperAscii",
        "trim",
        "replace",
        "split",
        "substring",
        "charAt",
        "indexOf",
        "lastIndexOf",
        "join",
        "quote",
        "format",
        "reverse",
        "_==_",
        "_!=_",
        "_<_",
        "_<=_",
        "_>_",
        "_>=_",
        "size",
        "quantity",
        "semver",
        "isQuantity",
        "isSemver",
    }
)
_REGEX = frozenset({"matches", "find", "findAll"})
_PASS_SHAPE = frozenset(
    {
        "lowerAscii",
        "upperAscii",
        "trim",
        "replace",
        "substring",
        "reverse",
        "sort",
        "distinct",
        "slice",
        "quote",
        "format",
    }
)


class _Estimator:
    def __init__(self) -> None:
        self.bounded = True
        self.scopes: list[dict[str, Shape]] = []

    def lookup(self, name: str) -> Shape | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def visit(self, node: Node) -> tuple[int, Shape]:
        kind = node.kind
        if kind == "const":
            value = node.value
            return 0, Shape(len(value)) if isinstance(value, (str, bytes)) else _SCALAR
        if kind == "ident":
            if node.value == "device":
                return 1, _DEVICE
            return 1, self.lookup(str(node.value)) or _SCALAR
        if kind == "select":
            cost, shape = self.visit(node.target) if node.target else (0, _SCALAR)
            if shape is _DEVICE:
                return cost + 1, _DEVICE_FIELDS.get(str(node.value), _SCALAR)
            return cost + 1, (shape.item or _SCALAR) if not node.test_only else _SCALAR
        if kind == "list":
            parts = [self.visit(arg) for arg in node.args]
            item = max((s for _c, s in parts), key=lambda s: s.size, default=_SCALAR)
            return 10 + sum(c for c, _s in parts), Shape(len(parts), item=item)
        if kind == "struct":
            parts = [self.visit(arg) for arg in node.args]
            item = max((s for _c, s in parts), key=lambda s: s.size, default=_SCALAR)
            return 30 + sum(c for c, _s in parts), Shape(len(parts) // 2, item=item, key=item)
        if kind == "comprehension":
            return self.comprehension(node)
        return self.call(node)

    def comprehension(self, node: Node) -> tuple[int, Shape]:
        range_cost, range_shape = self.visit(node.iter_range) if node.iter_range else (0, _SCALAR)
        init_cost, init_shape = self.visit(node.accu_init) if node.accu_init else (0, _SCALAR)
        count = range_shape.size
        is_map = range_shape.key is not None
        first = (range_shape.key if is_map else range_shape.item) or _SCALAR
        second = (range_shape.item if is_map else _SCALAR) or _SCALAR
        scope = {
            node.iter_var: first,
            node.accu_var: Shape(max(count, init_shape.size), item=range_shape.item or init_shape.item),
        }
        if node.iter_var2:
            scope[node.iter_var2] = second
        self.scopes.append(scope)
        condition = self.visit(node.loop_condition)[0] if node.loop_condition else 0
        step = self.visit(node.loop_step)[0] if node.loop_step else 0
        result_cost, result_shape = self.visit(node.result) if node.result else (0, _SCALAR)
        self.scopes.pop()
        return range_cost + init_cost + count * (condition + step) + result_cost, result_shape

    def call(self, node: Node) -> tuple[int, Shape]:
        name = str(node.value)
        if node.target is None and "." in name:
            name = name.rsplit(".", 1)[1]  # namespaced global: lists.range, math.greatest
        receiver = [node.target] if node.target is not None else []
        parts = [self.visit(arg) for arg in receiver + node.args]
        cost = sum(c for c, _s in parts)
        shapes = [s for _c, s in parts]
        if name in ("_&&_", "_||_"):
            return cost, _SCALAR
        if name == "_?_:_":
            return parts[0][0] + max(parts[1][0], parts[2][0]), max(shapes[1:], key=lambda s: s.size)
        if name in ("_[_]", "_[?_]"):
            container = shapes[0]
            if container is _DEVICE:
                return cost + 1, _SCALAR
            return cost + 1, container.item or _SCALAR
        if name == "@in":
            container = shapes[1]
            return cost + (1 if container.key is not None else max(1, container.size)), _SCALAR
        if name == "_+_":
            longest = max(shapes, key=lambda s: s.size)
            total = sum(s.size for s in shapes)
            return cost + 1 + math.ceil(0.1 * total), Shape(total, item=longest.item)
        if name in _REGEX:
            text = shapes[0].size
            pattern = shapes[1].size if len(shapes) > 1 else 0
            work = (1 + math.ceil(0.1 * text)) * (1 + math.ceil(0.25 * pattern))
            return cost + work, Shape(text, item=Shape(text)) if name == "findAll" else Shape(text)
        if name == "range" and node.target is None and node.args and node.args[0].kind == "const":
            size = int(node.args[0].value) if isinstance(node.args[0].value, int) else 0
            return cost + 1 + size, Shape(max(size, 0))
        if name == "range":
            self.bounded = False
            return cost + 1, Shape(UNBOUNDED_SIZE)
        if name in _LINEAR_STRING:
            longest_size = max((s.size for s in shapes), default=0)
            shape = shapes[0] if name in _PASS_SHAPE and shapes else _SCALAR
            if name == "split":
                shape = Shape(longest_size, item=Shape(longest_size))
            return cost + 1 + math.ceil(0.1 * longest_size), shape
        if name in _PASS_SHAPE and shapes:
            return cost + 1 + shapes[0].size, shapes[0]
        if name == "flatten" and shapes:
            inner = shapes[0].item or _SCALAR
            return cost + 1 + shapes[0].size, Shape(shapes[0].size * max(inner.size, 1), item=inner.item)
        return cost + 1, _SCALAR


def estimate_cost(root: Node) -> CostEstimate:
    """Estimate the worst-case cost of a checked expression tree (see the module docstring)."""
    estimator = _Estimator()
    cost, _shape = estimator.visit(root)
    return CostEstimate(max_cost=cost, bounded=estimator.bounded)
