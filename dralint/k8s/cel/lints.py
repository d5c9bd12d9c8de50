"""Static selector lints: mistakes the API server accepts and the scheduler then trips over.

The API server type-checks a selector but knows nothing about attribute names or about which
attributes are versions, and it types every attribute and capacity as ``dyn`` for the checker.
These functions look at the checked tree (:mod:`dralint.k8s.cel.ast`) and return
:class:`SelectorNote` records with 0-based offsets into the expression; the rule ids and the
YAML positions are added by ``dralint/checks/cel``.  Nothing here needs a cluster snapshot:
where a snapshot makes a lint precise, the caller passes what it knows (``versions``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import NamedTuple

from dralint.k8s.cel.ast import Node
from dralint.k8s.cel.device import Device
from dralint.k8s.cel.engine import check, evaluate
from dralint.k8s.quantity import QuantityError, parse_quantity
from dralint.k8s.semver import is_semver

__all__ = [
    "Lookup",
    "SelectorNote",
    "lookups",
    "pinned_drivers",
    "domain_mismatches",
    "unguarded_lookups",
    "version_string_comparisons",
    "quantity_string_comparisons",
    "constant_value",
    "gated_uses",
    "GATED",
    "STANDARD_DOMAINS",
]

# Domains every driver may use for standardized attributes (e.g. resource.kubernetes.io/pcieRoot).
STANDARD_DOMAINS = frozenset({"resource.kubernetes.io"})

_COMPARISONS = {"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"}
_ORDERING = {"_<_", "_<=_", "_>_", "_>=_"}


class SelectorNote(NamedTuple):
    """One lint result: message, optional hint, and the 0-based span in the expression."""

    message: str
    start: int
    end: int
    hint: str | None = None
    fails: bool = False  # the scheduler gets a runtime error (not just a wrong answer)


class Lookup(NamedTuple):
    """``device.attributes[domain].name`` (or ``capacity``) with literal domain and name."""

    kind: str  # "attributes" | "capacity"
    domain: str
    name: str
    node: Node  # the select/index node that reads the name
    domain_node: Node  # the string literal holding the domain
    guarded: bool  # read through has(), ``in`` or optional syntax


def _domain_map(node: Node | None) -> str | None:
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


def _domain_access(node: Node | None) -> tuple[str, str, Node] | None:
    """(kind, domain, literal node) when ``node`` is ``device.attributes["d"]`` or ``.capacity["d"]``."""
    if node is None or node.kind != "call" or node.value not in ("_[_]", "_[?_]") or len(node.args) != 2:
        return None
    kind = _domain_map(node.args[0])
    key = node.args[1]
    if kind and key.is_literal_string:
        return kind, str(key.value), key
    return None


def lookups(root: Node) -> list[Lookup]:
    """Every read of a literal attribute or capacity name under a literal domain."""
    found: list[Lookup] = []
    for node in root.walk():
        container: Node | None = None
        name: str | None = None
        guarded = False
        if node.kind == "select" and node.target is not None:
            container, name, guarded = node.target, str(node.value), node.test_only
        elif (
            node.kind == "call"
            and node.value in ("_[_]", "_[?_]", "_?._")
            and len(node.args) == 2
            and node.args[1].is_literal_string
        ):
            container, name, guarded = node.args[0], str(node.args[1].value), node.value != "_[_]"
        elif node.kind == "call" and node.value == "@in" and len(node.args) == 2 and node.args[0].is_literal_string:
            container, name, guarded = node.args[1], str(node.args[0].value), True
        access = _domain_access(container)
        if access and name is not None:
            kind, domain, literal = access
            found.append(Lookup(kind, domain, name, node, literal, guarded))
    return found


def _literal_span(expression: str, node: Node) -> tuple[int, int]:
    """Span of a string literal token starting at ``node.offset`` (quotes included)."""
    start = node.offset
    if start < 0 or start >= len(expression):
        return 0, max(len(expression), 1)
    quote = expression[start]
    if quote in "\"'":
        end = expression.find(quote, start + 1)
        while end > 0 and expression[end - 1] == "\\":
            end = expression.find(quote, end + 1)
        if end > 0:
            return start, end + 1
    return start, start + 1


def _name_span(expression: str, lookup: Lookup) -> tuple[int, int]:
    """Span of the attribute name in ``.name`` or ``["name"]``."""
    node = lookup.node
    if node.kind == "select":
        at = expression.find(lookup.name, node.offset)
        if at >= 0:
            return at, at + len(lookup.name)
    for arg in node.args:
        if arg.is_literal_string and arg.value == lookup.name:
            return _literal_span(expression, arg)
    return max(node.offset, 0), max(node.offset, 0) + 1


def pinned_drivers(root: Node) -> set[str]:
    """Drivers pinned by a top-level ``device.driver == "x"`` conjunct (or ``x in [...]`` list)."""
    pinned: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind == "call" and node.value == "_&&_":
            stack.extend(node.args)
            continue
        if node.kind == "call" and node.value == "_==_" and len(node.args) == 2:
            left, right = node.args
            for a, b in ((left, right), (right, left)):
                if _is_driver(a) and b.is_literal_string:
                    pinned.add(str(b.value).lower())
    return pinned


def _is_driver(node: Node) -> bool:
    return node.kind == "select" and node.value == "driver" and _is_device(node.target)


def domain_mismatches(
    expression: str, root: Node, drivers: set[str], published: set[str] | None = None
) -> list[SelectorNote]:
    """Domains indexed by this selector that no eligible device can have.

    Two cases: a "domain" holding a ``/`` (a qualified name used as a domain, always an empty
    map), and a domain that differs from every driver the class/request pins.  Subdomains of a
    pinned driver (``gce.dra.net`` for ``dra.net``), the standard ``resource.kubernetes.io``
    domain and, with a snapshot, domains the pinned drivers' devices publish (``published``) are
    fine.
    """
    notes: list[SelectorNote] = []
    seen: set[int] = set()
    for lookup in lookups(root):
        domain = lookup.domain.lower()
        if lookup.domain_node.offset in seen:
            continue
        seen.add(lookup.domain_node.offset)
        span = _literal_span(expression, lookup.domain_node)
        if "/" in domain:
            prefix, _, name = lookup.domain.partition("/")
            notes.append(
                SelectorNote(
                    f'"{lookup.domain}" is not a domain but a qualified name: device.{lookup.kind}["{lookup.domain}"] '
                    "is always an empty map",
                    *span,
                    hint=f'device.{lookup.kind}["{prefix}"].{name.split("/")[0]}',
                )
            )
            continue
        if (
            not drivers
            or domain in STANDARD_DOMAINS
            or (published and domain in published)
            or any(domain == d or domain.endswith("." + d) for d in drivers)
        ):
            continue
        pinned = ", ".join(f'"{d}"' for d in sorted(drivers))
        notes.append(
            SelectorNote(
                f'selector reads {lookup.kind} of domain "{lookup.domain}" but only devices of driver {pinned} '
                f"can be selected; their {lookup.kind} are under their own driver's domain",
                *span,
                hint=f'use device.{lookup.kind}["{sorted(drivers)[0]}"] or check the driver name',
            )
        )
    return notes


def unguarded_lookups(
    expression: str, root: Node, carried: Callable[[Lookup], bool] | None = None
) -> list[SelectorNote]:
    """Attribute/capacity reads not protected by ``has()``, ``in`` or ``.?name``; ``carried``
    says which reads every device the selector can meet has (the driver catalog knows)."""
    lookups_found = lookups(root)
    guarded = {(lk.kind, lk.domain, lk.name) for lk in lookups_found if lk.guarded}
    notes: list[SelectorNote] = []
    for lookup in lookups_found:
        if lookup.guarded or (lookup.kind, lookup.domain, lookup.name) in guarded:
            continue
        if carried is not None and carried(lookup):
            continue
        notes.append(
            SelectorNote(
                f'{lookup.kind[:-1] if lookup.kind == "attributes" else "capacity"} "{lookup.name}" of domain '
                f'"{lookup.domain}" is read without a guard: on a device that does not publish it the selector '
                "fails and the pod cannot be scheduled",
                *_name_span(expression, lookup),
                hint=f'write device.{lookup.kind}["{lookup.domain}"].?{lookup.name}.orValue(...) or guard it with '
                f'has(device.{lookup.kind}["{lookup.domain}"].{lookup.name})',
            )
        )
    return notes


def _comparisons(root: Node) -> Iterator[tuple[Node, Node, Node]]:
    for node in root.walk():
        if node.kind == "call" and node.value in _COMPARISONS and len(node.args) == 2:
            yield node, node.args[0], node.args[1]


def version_string_comparisons(
    expression: str,
    root: Node,
    versions: Mapping[tuple[str, str], str] | None = None,
    known_domains: frozenset[str] | None = None,
) -> list[SelectorNote]:
    """A version attribute compared with a string literal.

    ``versions``: (domain, name) pairs the snapshot publishes as versions, or the driver
    catalog for the ``known_domains`` it describes, each with the words that say where (" in
    gpu.nvidia.com 25.8.0 ...", so a finding names what it was judged against; "" for the
    snapshot). Elsewhere a name containing "version" compared with a version-like string
    literal is reported.
    """
    by_id = {lk.node.id: lk for lk in lookups(root) if lk.kind == "attributes"}
    notes: list[SelectorNote] = []
    for call, left, right in _comparisons(root):
        for attr, literal in ((left, right), (right, left)):
            lookup = by_id.get(attr.id)
            if lookup is None or not literal.is_literal_string:
                continue
            text = str(literal.value)
            exact = versions is not None and (known_domains is None or lookup.domain in known_domains)
            where = (versions or {}).get((lookup.domain, lookup.name)) if exact else None
            known = where is not None
            guessed = not exact and "version" in lookup.name.lower() and is_semver(text, True)
            if not (known or guessed):
                continue
            outcome = (
                "a runtime error on every device that has it (no ordering between a version and a string)"
                if call.value in _ORDERING
                else "never true (a version never equals a string)"
            )
            notes.append(
                SelectorNote(
                    f'"{lookup.name}" is a version attribute{where or ""}; comparing it with the string '
                    f"{json.dumps(text)} is {outcome}",
                    call.offset,
                    call.offset + len(_operator(call)),
                    hint=f'compare versions: device.attributes["{lookup.domain}"].{lookup.name}'
                    f".compareTo(semver({json.dumps(text)}, true)) {_operator(call)} 0",
                    fails=call.value in _ORDERING,
                )
            )
    return notes


def _operator(call: Node) -> str:
    return str(call.value).strip("_").replace("_", "")


def quantity_string_comparisons(expression: str, root: Node) -> list[SelectorNote]:
    """``<``/``>`` between strings where one is a quantity literal: compares characters, not amounts."""
    notes: list[SelectorNote] = []
    for call, left, right in _comparisons(root):
        if call.value not in _ORDERING:
            continue
        for literal, other in ((left, right), (right, left)):
            if not literal.is_literal_string or other.type not in ("string", "dyn") or other.is_literal_string:
                continue
            text = str(literal.value)
            if not any(c.isalpha() for c in text) or not _is_quantity(text):
                continue
            notes.append(
                SelectorNote(
                    f'compares a string with "{text}" character by character ("100Gi" < "20Gi" is true); '
                    "a quantity needs quantity() on both sides",
                    call.offset,
                    call.offset + len(_operator(call)),
                    hint=f'quantity(<string>).compareTo(quantity("{text}")) {_operator(call)} 0',
                )
            )
    return notes


def _is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return text[0].isdigit() or text[0] in "+-."


def constant_value(expression: str) -> bool | str | None:
    """True/False when the selector never reads ``device`` (the same for every device);
    an error text when it always fails; None when it depends on the device."""
    result = check(expression)
    if result.ast is None or result.errors:
        return None
    if any(node.kind == "ident" and node.value == "device" for node in result.ast.walk()):
        return None
    outcome = evaluate(expression, Device(driver=""))
    if outcome.error:
        return outcome.error
    return outcome.value


# Parts of the DRA CEL environment that the API server declares only behind a feature gate:
# name -> (gate, default at 1.37, the cel-go error when the gate is off).
GATED = {
    "includes": ("DRAListTypeAttributes", False, "undeclared reference to 'includes' (in container '')"),
    "allowMultipleAllocations": ("DRAConsumableCapacity", True, "undefined field 'allowMultipleAllocations'"),
}


def gated_uses(expression: str, root: Node, gates: dict[str, bool]) -> list[SelectorNote]:
    """Uses of gated functions/fields while their gate is off: the API server cannot compile them.

    (The scheduler compiles stored selectors with everything declared, so only new objects fail.)
    """
    notes: list[SelectorNote] = []
    for node in root.walk():
        is_call = node.kind == "call" and node.target is not None and node.value == "includes"
        is_field = node.kind == "select" and node.value == "allowMultipleAllocations" and _is_device(node.target)
        if not (is_call or is_field):
            continue
        name = str(node.value)
        gate, default, detail = GATED[name]
        if gates.get(gate, default):
            continue
        start = expression.find(name, max(node.target.offset if node.target else 0, 0))
        if start < 0:
            continue
        line = expression.count("\n", 0, node.offset) + 1
        column = node.offset - (expression.rfind("\n", 0, node.offset) + 1) + 1
        notes.append(
            SelectorNote(
                f"compilation failed: ERROR: <input>:{line}:{column}: {detail}",
                start,
                start + len(name),
                hint=f"'{name}' needs the {gate} feature gate, which is off; enable it on the cluster "
                f"(and pass --feature-gates {gate}=true) or avoid it",
            )
        )
    return notes


def _is_device(node: Node | None) -> bool:
    return node is not None and node.kind == "ident" and node.value == "device"


LIST_ATTRIBUTES_GATE = "DRAListTypeAttributes"


def _macro_name_span(expression: str, paren: int) -> tuple[int, int]:
    """The macro name just before the '(' at ``paren`` (cel-go positions a macro at its '(')."""
    end = paren
    while end > 0 and expression[end - 1].isspace():
        end -= 1
    start = end
    while start > 0 and (expression[start - 1].isalnum() or expression[start - 1] == "_"):
        start -= 1
    return (start, end) if start < end else (paren, paren + 1)


def scalar_comprehensions(expression: str, root: Node, gates: dict[str, bool]) -> list[SelectorNote]:
    """``all``/``exists``/``exists_one``/``map``/``filter`` over one attribute's value while
    DRAListTypeAttributes is off. The API server's compiler then types an attribute value as a
    scalar union that cannot be iterated and rejects the selector at create (checked against the
    v1.37 code by the conformance oracle); dralint's own environment types it as dyn, so this
    lint restores the error.

    With the gate on, list attributes exist and such a comprehension is valid.
    """
    if gates.get(LIST_ATTRIBUTES_GATE, False):
        return []
    notes: list[SelectorNote] = []
    for node in root.walk():
        if node.kind != "comprehension" or node.iter_range is None:
            continue
        source = node.iter_range
        if source.kind == "call" and source.value == "orValue" and source.target is not None:
            source = source.target  # device.attributes["d"].?name.orValue([]) iterates the value too
        read = next((found for found in lookups(source) if found.node is source and found.kind == "attributes"), None)
        if read is None:
            continue
        start, end = _macro_name_span(expression, node.offset)
        macro = expression[start:end]
        notes.append(
            SelectorNote(
                f"'{macro}' iterates over attribute {read.domain}/{read.name}, but with "
                f"{LIST_ATTRIBUTES_GATE} off (the v1.37 "
                "default) an attribute value is a single int, bool, string or version, and the API server rejects the "
                "selector: \"expression of type 'any' cannot be range of a comprehension\"",
                start,
                end,
                fails=True,
                hint=f'compare the value directly (e.g. device.attributes["{read.domain}"].{read.name} == ...), '
                "or enable "
                f"{LIST_ATTRIBUTES_GATE} on the cluster and pass --feature-gates {LIST_ATTRIBUTES_GATE}=true",
            )
        )
    return notes
