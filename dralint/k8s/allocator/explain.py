"""Why a node cannot take a pod's claims, in words a user can act on.

The scheduler only says "cannot allocate all claims". After the search failed on a node this
module looks again, request by request: how many devices match, how many are free, and what
blocks the rest (in use, an untolerated taint, shared counters used up, capacity). When every
request fits on its own, the claim constraints or the competition between requests are to blame.
The messages carry no node or pool name (pools are often named after their node) so that
identical reasons group across nodes.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from dralint.k8s.allocator.model import Alternative, Claim
from dralint.k8s.allocator.search import BudgetExceeded, Fatal, Search, Selection, blocking_taint
from dralint.k8s.allocator.view import NodeView, State
from dralint.k8s.inventory import Device

#: Budget of the "is it the constraint?" re-runs; when one runs out the answer is "it fits",
#: which only makes the explanation less specific.
EXPLAIN_BUDGET = 20_000


def _matches(sel: Selection, claim: Claim, alt: Alternative, dev: Device, state: State) -> bool:
    """Selectors on a device; an error on a device in use does not count (the scheduler skips
    in-use devices before evaluating anything)."""
    if alt.admin or not state.is_dedicated(dev.id):
        return sel.selectable(claim, alt, dev)
    try:
        return sel.selectable(claim, alt, dev)
    except Fatal:
        return False


def _shortfall(view: NodeView, claim: Claim, alt: Alternative, sel: Selection, state: State) -> str | None:
    """A reason when this alternative cannot get its devices on the node even alone, else None."""
    probe = Search(view, [claim], sel, state)
    matching = [d for d in view.candidates if _matches(sel, claim, alt, d, state)]
    what = f"devices of class {alt.class_name}" + (f" for request {alt.label}" if alt.selectors else "")
    if not matching:
        text = f"no device of class {alt.class_name} matches request {alt.label}"
        if view.incomplete:
            text += f" (a pool of driver {view.incomplete[0].split('/', 1)[0]} is incomplete)"
        return text
    in_use = taints = counters = capacity = 0
    taint_names: Counter[str] = Counter()
    unpublished: Counter[str] = Counter()
    usable = 0
    for dev in matching:
        if not alt.admin and state.is_dedicated(dev.id):
            in_use += 1
        elif (taint := blocking_taint(dev, alt, sel.features)) is not None:
            taints += 1
            taint_names[taint] += 1
        elif not probe.counters_fit(dev):
            counters += 1
        elif probe.capacity_fit(dev, alt) is None:
            capacity += 1
            unpublished.update(name for name in alt.capacity if name not in dev.capacity)
        else:
            usable += 1
    need = len(matching) if alt.all_mode else alt.count
    if usable >= need:
        return None
    if taints and usable + taints >= need:
        return f"device taint {taint_names.most_common(1)[0][0]} not tolerated"
    head = f"not enough {what} (need {need}, node has {usable} free"
    if counters and usable + counters >= need:
        return f"{head}: shared counters used up by allocated partitions of the same device)"
    if capacity and usable + capacity >= need:
        if unpublished:
            return f"{head}: the devices publish no capacity {unpublished.most_common(1)[0][0]!r})"
        return f"{head}: remaining capacity too small)"
    if alt.all_mode:
        return f"allocationMode All needs every matching device free ({in_use} of {len(matching)} in use)"
    return head + ")"


def explain(view: NodeView, claims: Sequence[Claim], sel: Selection, state: State) -> str:
    """One reason for a node on which the search found no solution."""
    try:
        for claim in claims:
            for req in claim.requests:
                reasons = []
                for alt in req.alternatives:
                    reason = _shortfall(view, claim, alt, sel, state)
                    if reason is None:
                        break
                    reasons.append(reason)
                else:
                    if len(reasons) > 1:
                        return f"{reasons[0]} (and no firstAvailable fallback of request {req.name} fits)"
                    return reasons[0]
        free = [dataclasses.replace(c, constraints=()) for c in claims]
        constrained = [(i, con) for i, c in enumerate(claims) for con in c.constraints]
        if constrained and _fits(view, free, sel, state):
            for i, con in constrained:
                trial = list(free)
                trial[i] = dataclasses.replace(claims[i], constraints=(con,))
                if len(constrained) == 1 or not _fits(view, trial, sel, state):
                    return f"constraint {con.kind} {con.attribute} cannot be satisfied (claim {claims[i].label})"
            return "claim constraints cannot be satisfied together"
    except Fatal as exc:
        return exc.message
    if len(claims) > 1 or sum(len(c.requests) for c in claims) > 1:
        return "not enough free devices for all requests together"
    return "cannot allocate all claims"


def _fits(view: NodeView, claims: Sequence[Claim], sel: Selection, state: State) -> bool:
    try:
        return Search(view, claims, sel, state, EXPLAIN_BUDGET).run() is not None
    except BudgetExceeded:
        return True
