"""Which devices of an inventory a list of selectors selects, and why none did.

Used for the "matches no device" finding: the scheduler ANDs a class's and a request's
selectors; when no device passes, the useful answer is *which* part of *which* selector rules
everything out.  :func:`conjuncts` splits a selector at its top-level ``&&`` operators (using the
operator positions from the checked tree), so each part can be evaluated on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from dralint.k8s.cel.ast import Node
from dralint.k8s.cel.device import Device
from dralint.k8s.cel.engine import check, evaluate, matches

__all__ = ["Selection", "Conjunct", "conjuncts", "matching_devices"]


class Conjunct(NamedTuple):
    """One top-level ``&&`` operand: its text and 0-based offsets in the whole expression."""

    text: str
    start: int
    end: int


class Selection:
    """The outcome of a set of selectors over an inventory."""

    __slots__ = ("matched", "considered", "drivers", "errors", "rejected_by", "unsupported", "excluded_by")

    def __init__(self) -> None:
        self.matched: list[Device] = []
        self.considered = 0
        self.drivers: Counter[str] = Counter()
        self.errors: list[tuple[Device, int, str]] = []
        self.rejected_by: Counter[int] = Counter()
        self.unsupported: str | None = None
        # (selector index, conjunct) false on every considered device, when no device matched
        self.excluded_by: tuple[int, Conjunct] | None = None


def conjuncts(expression: str) -> list[Conjunct]:
    """Split at top-level ``&&``; one part (the whole expression) when it is not a conjunction."""
    whole = [Conjunct(expression.strip(), len(expression) - len(expression.lstrip()), len(expression.rstrip()))]
    result = check(expression)
    if result.ast is None or result.errors:
        return whole
    cuts = sorted(_and_operators(result.ast))
    if not cuts:
        return whole
    pieces: list[Conjunct] = []
    start = 0
    for cut in [*cuts, len(expression)]:
        raw = expression[start:cut]
        lead = len(raw) - len(raw.lstrip())
        pieces.append(Conjunct(raw.strip(), start + lead, start + lead + len(raw.strip())))
        start = cut + 2
    if any(not p.text or not _balanced(p.text) or check(p.text).errors for p in pieces):
        return whole  # e.g. the whole conjunction sits inside one pair of parentheses
    return pieces


def _and_operators(root: Node) -> list[int]:
    if root.kind != "call" or root.value != "_&&_":
        return []
    found = [root.offset]
    for arg in root.args:
        found.extend(_and_operators(arg))
    return found


def _balanced(text: str) -> bool:
    depth = 0
    quote = ""
    for index, char in enumerate(text):
        if quote:
            if char == quote and text[index - 1] != "\\":
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0 and not quote


def matching_devices(selectors: Sequence[str], devices: Iterable[Device]) -> Selection:
    """Evaluate ``selectors`` (ANDed, in order) on every device; explain an empty result."""
    selection = Selection()
    pool = list(devices)
    for device in pool:
        selection.considered += 1
        selection.drivers[device.driver] += 1
        outcome = matches(selectors, device)
        if outcome.unsupported:
            selection.unsupported = outcome.unsupported
            return selection
        if outcome.matched:
            selection.matched.append(device)
        elif outcome.error is not None and outcome.selector is not None:
            selection.errors.append((device, outcome.selector, outcome.error))
        elif outcome.selector is not None:
            selection.rejected_by[outcome.selector] += 1
    if not selection.matched and not selection.errors and pool:
        selection.excluded_by = _excluding_conjunct(selectors, pool)
    return selection


def _excluding_conjunct(selectors: Sequence[str], devices: list[Device]) -> tuple[int, Conjunct] | None:
    for index, expression in enumerate(selectors):
        for part in conjuncts(expression):
            if all(not evaluate(part.text, device).matched for device in devices):
                return index, part
    return None
