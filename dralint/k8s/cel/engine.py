"""``check`` and ``evaluate``: the API server's and the scheduler's view of one selector."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NamedTuple

from dralint.k8s.cel.ast import Node, decode_checked_expr
from dralint.k8s.cel.capacity import QUANTITY, capacity_type_errors, flatten_errors, is_capacity_value
from dralint.k8s.cel.cost import MAX_COST, CostEstimate, estimate_cost
from dralint.k8s.cel.device import Device
from dralint.k8s.semver import Semver


@functools.cache
def _cel_library() -> ModuleType:
    """The adapter over cel-expr-python, imported on first use: the library and protobuf take
    longer to import than a small lint takes to run, and most files hold no CEL at all."""
    from dralint.k8s.cel import env

    return env


__all__ = [
    "CelIssue",
    "CheckResult",
    "EvalResult",
    "MatchResult",
    "check",
    "evaluate",
    "matches",
    "MAX_LENGTH",
    "MAX_COST",
]

MAX_LENGTH = 10_240

_ERROR_LINE = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*)")
#: cel-go writes a method call's receiver before its arguments: 'kubernetes.Quantity.(int)'
_OVERLOAD = re.compile(r"found no matching overload for '([^']+)' applied to '(?:([^']+?)\.(?=\())?\((.*)\)'")
#: A capacity read right before ``.method(``: the server types it kubernetes.Quantity, the
#: library dyn (dralint/k8s/cel/capacity.py says why).
_CAPACITY_RECEIVER = re.compile(r"device\.capacity\[[^\]]+\](?:\.\w+|\[[^\]]+\])$")
_UNDECLARED = re.compile(r"undeclared reference to '([^']+)'")
_QUOTED = re.compile(r"'([^']+)'")
_TYPE_PARAMETER = re.compile(r"\bT%\d+\b")
_NUMERIC = {"int", "uint", "double"}
_ORDERING = {"_<_", "_<=_", "_>_", "_>=_", "_==_", "_!=_"}


class CelIssue(NamedTuple):
    """One problem in an expression, at 0-based character offsets ``[start, end)``."""

    message: str
    start: int
    end: int
    kind: str = "compile"  # compile | capacity | result-type | length | cost


class CheckResult(NamedTuple):
    """What the API server would say about an expression, plus what dralint learnt on the way.

    ``errors`` are rejections at apply time; ``warnings`` are cost figures near the limit;
    ``not_checked`` explains why the library could not check it (syntax or
    functions Kubernetes has and dralint does not), in which case ``errors`` holds only syntax
    errors, which do not depend on declarations. ``ast`` is the checked tree (its nodes compare
    by identity), when the library checked the expression.
    """

    expression: str
    errors: tuple[CelIssue, ...] = ()
    warnings: tuple[CelIssue, ...] = ()
    not_checked: str | None = None
    result_type: str | None = None
    cost: CostEstimate | None = None
    ast: Node | None = None

    @property
    def ok(self) -> bool:
        """Compiled and checked with no error."""
        return not self.errors and self.not_checked is None


class EvalResult(NamedTuple):
    """A selector's outcome on one device.

    ``value`` is the boolean result; ``error`` is a runtime error (the scheduler aborts the
    pod's allocation attempt, it does not treat the device as "no match"); ``unsupported``
    says dralint could not evaluate the expression at all (not checked, or too costly).
    """

    value: bool | None = None
    error: str | None = None
    unsupported: str | None = None

    @property
    def matched(self) -> bool:
        return self.value is True


class MatchResult(NamedTuple):
    """All selectors of a class or request on one device, in the scheduler's order."""

    matched: bool
    error: str | None = None
    selector: int | None = None  # index of the selector that was false or failed
    unsupported: str | None = None


def _offset(expression: str, line: int, column: int) -> int:
    """CEL line:col (1-based, code points) -> 0-based offset, clamped past-EOF to the content."""
    starts = [0]
    for index, char in enumerate(expression):
        if char == "\n":
            starts.append(index + 1)
    offset = starts[min(line, len(starts)) - 1] + column - 1
    content_end = len(expression.rstrip())
    if offset >= content_end:
        offset = max(content_end - 1, 0)
    return offset


def _span(expression: str, offset: int, detail: str) -> tuple[int, int]:
    """Extend a one-character position to the name the message talks about, when it is there."""
    match = _QUOTED.search(detail)
    if match:
        name = match.group(1)
        for start in (offset, offset + 1, offset - len(name)):  # at, after the ".", before the "("
            if start >= 0 and expression.startswith(name, start):
                return start, start + len(name)
    return offset, min(offset + 1, max(len(expression), 1))


def _library_gap(detail: str) -> str | None:
    """Why an error is a gap of the CEL library or of dralint, not of the expression."""
    match = _UNDECLARED.search(detail)
    if match and match.group(1).split(".")[0] in _cel_library().UNSUPPORTED_NAMES:
        return f"uses '{match.group(1)}', a Kubernetes CEL function dralint does not implement"
    match = _OVERLOAD.search(detail)
    if match:
        function, receiver, listed = match.groups()
        args = ([receiver] if receiver else []) + [a.strip() for a in listed.split(",")]
        if function in _ORDERING and len(args) == 2 and set(args) <= _NUMERIC:
            return "compares numbers of different types, which Kubernetes allows and the checker does not"
        if function in ("indexOf", "lastIndexOf") and args and args[0].startswith("list"):
            return f"uses the Kubernetes list function '{function}', which dralint does not implement"
    return None


def _as_the_server_writes(expression: str, offset: int, detail: str) -> str:
    """The library's "applied to '(R, A)'" of a method call as cel-go writes it, 'R.(A)', with a
    capacity receiver typed as the server types it."""
    match = _OVERLOAD.search(detail)
    if match is None or match.group(2) is not None:
        return detail
    function, listed = match.group(1), match.group(3)
    before = expression[:offset]
    if expression[offset : offset + 1] != "(" or not before.endswith("." + function):
        return detail
    receiver, _, rest = listed.partition(", ")
    if receiver == "dyn" and _CAPACITY_RECEIVER.search(before[: -len(function) - 1]):
        receiver = "kubernetes.Quantity"
    return detail[: match.start()] + f"found no matching overload for '{function}' applied to '{receiver}.({rest})'"


def _parse_errors(expression: str, text: str) -> list[tuple[str, int, int]]:
    """(API-server style message, start, end) for each ``ERROR: <input>:L:C: ...`` line."""
    found = []
    for match in _ERROR_LINE.finditer(text):
        detail = re.sub(r" \[[A-Z_]+\]$", "", match.group(3)).replace(" (in container '')", "")
        detail = _TYPE_PARAMETER.sub("dyn", detail)  # a type left free is dyn in cel-go's messages
        line, column = int(match.group(1)), int(match.group(2))
        offset = _offset(expression, line, column)
        detail = _as_the_server_writes(expression, offset, detail)
        start, end = _span(expression, offset, detail)
        found.append((f"compilation failed: ERROR: <input>:{line}:{column}: {detail}", start, end))
    return found


@functools.lru_cache(maxsize=8192)
def check(expression: str) -> CheckResult:
    """Check an expression as the API server does at apply time (cached per distinct text)."""
    if len(expression.encode("utf-8", "surrogatepass")) > MAX_LENGTH:
        issue = CelIssue(f"Too long: may not be more than {MAX_LENGTH} bytes", 0, len(expression), "length")
        return CheckResult(expression, errors=(issue,))
    bad = next((i for i, c in enumerate(expression) if "\ud800" <= c <= "\udfff"), None)
    if bad is not None:
        # YAML's "\ud800" escape can produce a lone surrogate; it is not text the API server can read
        issue = CelIssue(
            f"compilation failed: character U+{ord(expression[bad]):04X} at offset {bad} is not valid "
            "Unicode text (a lone surrogate)",
            bad,
            bad + 1,
        )
        return CheckResult(expression, errors=(issue,))
    try:
        compiled = _cel_library().check_env().compile(expression)
    except RuntimeError as exc:
        return _failed(expression, str(exc))
    ast = decode_checked_expr(compiled.serialize())
    result_type = QUANTITY if is_capacity_value(ast) else ast.type
    errors = [
        CelIssue(message, start, end, "capacity") for message, start, end in capacity_type_errors(expression, ast)
    ]
    errors += [CelIssue(message, start, end) for message, start, end in flatten_errors(expression, ast)]
    if result_type not in ("bool", "dyn"):
        end = len(expression.rstrip())
        start = len(expression) - len(expression.lstrip())
        errors.append(
            CelIssue(
                f"must evaluate to bool or the unknown type, not {result_type}",
                start,
                max(end, start + 1),
                "result-type",
            )
        )
    cost = estimate_cost(ast)
    warnings: list[CelIssue] = []
    if not errors:  # the server stops at a compile error and never estimates the cost
        cost_issue = _cost_issue(expression, cost)
        if cost_issue is not None:
            (errors if cost.max_cost > MAX_COST else warnings).append(cost_issue)
    return CheckResult(expression, tuple(errors), tuple(warnings), None, result_type, cost, ast)


def _cost_issue(expression: str, cost: CostEstimate) -> CelIssue | None:
    """Over the limit the server refuses the selector; above half of it is worth a warning."""
    whole = (0, max(len(expression.rstrip()), 1))
    if cost.max_cost > MAX_COST:
        why = f" ({cost.unbounded})" if cost.unbounded else ""
        message = (
            f"too complex, exceeds cost limit: estimated cost {cost.max_cost} exceeds the limit of {MAX_COST}{why}"
        )
        return CelIssue(message, *whole, "cost")
    if cost.max_cost > MAX_COST // 2:
        return CelIssue(f"estimated cost {cost.max_cost} is more than half of the limit of {MAX_COST}", *whole, "cost")
    return None


def _failed(expression: str, text: str) -> CheckResult:
    parsed = _parse_errors(expression, text)
    if not parsed:
        return CheckResult(expression, errors=(CelIssue(f"compilation failed: {text}", 0, 1),))
    gaps = [reason for message, _s, _e in parsed if (reason := _library_gap(message))]
    if gaps:
        syntax = tuple(CelIssue(m, s, e) for m, s, e in parsed if ": Syntax error: " in m)
        return CheckResult(expression, errors=syntax, not_checked=gaps[0])
    issues = tuple(CelIssue(m, s, e) for m, s, e in parsed)
    return CheckResult(expression, errors=issues)


# --- evaluation ------------------------------------------------------------------------------
class _Program(NamedTuple):
    program: Any
    attribute_domains: frozenset[str]
    capacity_domains: frozenset[str]


@functools.lru_cache(maxsize=8192)
def _program(expression: str) -> _Program | str:
    """Compile once for evaluation; a string is the reason it cannot be evaluated."""
    result = check(expression)
    if result.errors:
        return "CEL compile error: " + result.errors[0].message
    if result.not_checked:
        return "not evaluated: " + result.not_checked
    if result.cost is not None and result.cost.max_cost > MAX_COST:
        return "not evaluated: the estimated cost exceeds the runtime limit"
    try:
        program = _cel_library().eval_env().compile(expression)
    except RuntimeError as exc:
        return f"not evaluated: {exc}"
    attributes, capacity = _defaulted_domains(result.ast) if result.ast else (frozenset(), frozenset())
    return _Program(program, attributes, capacity)


def _defaulted_domains(root: Node) -> tuple[frozenset[str], frozenset[str]]:
    """Domains to fill with ``{}`` to mimic Kubernetes' default-empty domain maps.

    Kubernetes returns an empty map for an unknown domain on lookup only; ``in``, ``has()``,
    ``size()`` and iteration still see the real domains.  Pre-filling is exact when the
    expression only looks domains up; when it also inspects the domain map itself we do not
    pre-fill that map, so a guard like ``"d" in device.attributes`` keeps its meaning.
    """
    looked_up: dict[str, set[str]] = {"attributes": set(), "capacity": set()}
    lookups: set[int] = set()
    for node in root.walk():
        container = _domain_map(node.target) if node.kind == "select" and not node.test_only else None
        if container and node.target is not None:
            looked_up[container].add(str(node.value))
            lookups.add(node.target.id)
        if node.kind == "call" and node.value in ("_[_]", "_[?_]") and len(node.args) == 2:
            container = _domain_map(node.args[0])
            if container and node.args[1].is_literal_string:
                looked_up[container].add(str(node.args[1].value))
                lookups.add(node.args[0].id)
    inspected = {name for node in root.walk() if (name := _domain_map(node)) and node.id not in lookups}
    return (
        frozenset(looked_up["attributes"]) if "attributes" not in inspected else frozenset(),
        frozenset(looked_up["capacity"]) if "capacity" not in inspected else frozenset(),
    )


def _domain_map(node: Node | None) -> str | None:
    """'attributes' or 'capacity' if node is ``device.attributes`` / ``device.capacity``."""
    if (
        node is not None
        and node.kind == "select"
        and node.value in ("attributes", "capacity")
        and node.target is not None
        and node.target.kind == "ident"
        and node.target.value == "device"
    ):
        return str(node.value)
    return None


def _value(value: Any) -> Any:
    if isinstance(value, Semver):
        return _cel_library().semver_tag(value)
    if isinstance(value, list):
        return [_value(item) for item in value]
    return value


def _device_data(device: Device) -> dict[str, Any]:
    cached = device.cel_data
    if cached is None:
        cached = {
            "driver": device.driver,
            "attributes": {d: {n: _value(v) for n, v in names.items()} for d, names in device.attributes.items()},
            "capacity": {
                d: {n: _cel_library().quantity_tag(q) for n, q in names.items()} for d, names in device.capacity.items()
            },
            "allowMultipleAllocations": device.allow_multiple_allocations,
        }
        device.cel_data = cached
    return cached


def _with_defaults(data: dict[str, Any], program: _Program) -> dict[str, Any]:
    missing_attr = [d for d in program.attribute_domains if d not in data["attributes"]]
    missing_cap = [d for d in program.capacity_domains if d not in data["capacity"]]
    if not missing_attr and not missing_cap:
        return data
    data = dict(data)
    if missing_attr:
        data["attributes"] = {**data["attributes"], **{d: {} for d in missing_attr}}
    if missing_cap:
        data["capacity"] = {**data["capacity"], **{d: {} for d in missing_cap}}
    return data


_STATUS = re.compile(r"^[A-Z_]+: ")
_MISSING_KEY = re.compile(r'^Key not found in map : "?(.*?)"?$')


def _runtime_message(text: str) -> str:
    text = _STATUS.sub("", str(text))
    match = _MISSING_KEY.match(text)
    if match:
        return (
            f"no such key: {match.group(1)}. consider using CEL optional chaining (.? followed by "
            "orValue()) or guarding the check with has() for optional fields"
        )
    return text


def evaluate(expression: str, device: Device) -> EvalResult:
    """Evaluate one selector on one device with the scheduler's semantics (see the package doc)."""
    program = _program(expression)
    if isinstance(program, str):
        if program.startswith("CEL compile error"):
            return EvalResult(error=program)
        return EvalResult(unsupported=program)
    if device.problems:
        return EvalResult(error=device.problems[0])
    data = _with_defaults(_device_data(device), program)
    result = program.program.eval(data={"device": data})
    kind = result.type().name()
    if kind == "BOOL":
        return EvalResult(value=bool(result.value()))
    if kind == "ERROR":
        return EvalResult(error=_runtime_message(result.value()))
    return EvalResult(error=f"CEL result of type {kind.lower()} could not be converted to bool")


def matches(selectors: Sequence[str], device: Device) -> MatchResult:
    """All selectors true, in order; the first false stops, an error aborts (as the allocator)."""
    for index, expression in enumerate(selectors):
        result = evaluate(expression, device)
        if result.unsupported:
            return MatchResult(False, selector=index, unsupported=result.unsupported)
        if result.error:
            return MatchResult(False, error=result.error, selector=index)
        if not result.value:
            return MatchResult(False, selector=index)
    return MatchResult(True)
