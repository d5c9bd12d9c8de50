"""Placement of pod templates over every node of the snapshot, and greedy replica packing.

For one template every node is tried from the same starting occupancy (what the scheduler's
Filter does for one pod). Replicas are then packed greedily: each placed pod takes its devices
out of the pool before the next one is tried, which answers "how many of my N replicas fit at
once". Because removing devices never makes a node feasible again, packing walks the nodes once.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

from dralint.k8s.allocator.equivalence import NodeShapes, claim_key, reads_key
from dralint.k8s.allocator.explain import explain
from dralint.k8s.allocator.model import Claim, Features, Matcher
from dralint.k8s.allocator.nodeselector import SelectorError, labels_match, node_matches
from dralint.k8s.allocator.pod import PodDemand, extended_requests, in_user_terms, pod_total
from dralint.k8s.allocator.search import DEFAULT_BUDGET, BudgetExceeded, ClaimResult, Fatal, Search, Selection
from dralint.k8s.allocator.view import NodeView, State, node_view
from dralint.k8s.inventory import Inventory, Node, amount
from dralint.k8s.kubelet import describe, too_old

#: Replicas beyond this are not packed one by one (the answer would be "M of N" anyway).
MAX_PACKED_REPLICAS = 5_000

AFFINITY_REASON = "node(s) didn't match Pod's node affinity/selector"
#: The scheduler's TaintToleration filter, which runs before node affinity.
TAINT_REASON = "node(s) had untolerated taint(s)"


@dataclass(slots=True)
class Outcome:
    """Per-template answer: feasible nodes with a concrete assignment, or grouped reasons."""

    label: str
    nodes: int = 0
    feasible: list[str] = field(default_factory=list)  # all of them only with every_node
    first: list[ClaimResult] | None = None
    reasons: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    fatal: Fatal | None = None
    replicas: int = 1
    placed: int = 0
    packing: list[str] = field(default_factory=list)
    #: When some replicas but not all fit: why the next one fits on no node, once the placed
    #: ones hold their devices (computed with ``every_node`` only).
    unplaced: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    @property
    def all_placed(self) -> bool:
        """Every replica found room, or packing stopped at its cap with no failure yet."""
        return self.placed >= min(self.replicas, MAX_PACKED_REPLICAS)

    @property
    def schedulable(self) -> bool:
        """At least one node can take one pod."""
        return bool(self.feasible)

    def summary(self) -> str:
        """Reasons grouped like the scheduler's "0/N nodes are available" histogram."""
        if self.fatal is not None:
            return self.fatal.message
        if not self.nodes:
            return "the snapshot names no node (add Node objects: kubectl get nodes -o yaml)"
        parts = sorted(self.reasons.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        return "; ".join(f"{len(nodes)} node{'s' if len(nodes) != 1 else ''}: {reason}" for reason, nodes in parts)


def kubelet_features(results: Sequence[ClaimResult]) -> set[str]:
    """Keys of :data:`dralint.k8s.kubelet.FEATURES` an allocation makes the node's kubelet use."""
    used = {"dra"}
    for result in results:
        if result.claim.extended:
            used.add("extended-resource")
        if any(pick.shared for pick in result.picks):
            used.add("consumable-capacity")
    return used


#: What a pod's search reads of device attributes: the selector lists of its classes and
#: requests, and the attributes its constraints compare.
Signature = tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]


@dataclass(slots=True)
class _Grouping:
    """Node classes under one notion of alike devices (``Simulator._signature``)."""

    number: int
    shapes: NodeShapes
    #: The class of each node of ``Simulator._names`` (-1 until first needed).
    class_of: list[int]
    #: The nodes of each class, ascending (built when the feasible list needs it).
    by_class: list[list[int]] | None = None
    #: The class of each class of the full grouping (number 0) it has met.
    by_full: dict[int, int] = field(default_factory=dict)


#: The answer of a node the pod's node selector or affinity rules out, before asking why.
_RULED_OUT: tuple[bool, Any] = (False, None)
#: The same answer from ``Simulator._class_answer`` without explanation: the search found no
#: solution on a valid view (every other failure comes with its reason).
_FAILED = _RULED_OUT


def _has_node_constraints(demand: PodDemand) -> bool:
    """The pod restricts its nodes (node selector, required affinity, claims allocated with a
    node selector): otherwise ``Simulator._node_filter`` passes every node but a tainted one,
    which the node's class answers for (taints are part of it)."""
    return (
        bool(demand.node_selector)
        or demand.affinity is not None
        or any(done.node_selector is not None for done in demand.allocated)
    )


def _untolerated(demand: PodDemand, node: Node) -> bool:
    """A NoSchedule or NoExecute taint of the node that no toleration of the pod matches."""
    return any(not any(t.tolerates(*taint) for t in demand.tolerations) for taint in node.taints)


class Simulator:
    """Holds the per-run caches: node views, node classes, selector results, the snapshot's occupancy."""

    def __init__(
        self,
        inv: Inventory,
        classes: Mapping[str, Mapping[str, Any]],
        matcher: Matcher,
        ext: Mapping[str, str] | None = None,
        budget: int = DEFAULT_BUDGET,
        features: Features = Features(),
        *,
        same_shapes: bool = True,
    ) -> None:
        self.inv = inv
        self.features = features
        self.selection = Selection(classes, matcher, features)
        self.ext = ext or {}
        self.budget = budget
        self.base = State.from_inventory(inv)
        self._views: dict[str, NodeView] = {}
        self._names = inv.node_names()
        #: Without ``same_shapes`` every node is a class of its own and packing states are always
        #: searched: the plain walk, the tests' reference.
        self._same_shapes = same_shapes
        self._groupings: dict[Signature | None, _Grouping] = {}
        #: The grouping of the current place() call (see ``_signature``); number 0 compares
        #: devices in everything selectors can see.
        self._group = self._grouping(None)
        self._pools: dict[str, frozenset[tuple[str, str]]] = {}
        # Answers per (claims, node class) under the snapshot's occupancy, for the current place() call.
        self._answers: dict[Hashable, tuple[bool, Any]] = {}
        # Per claim list (the claims' ids) and node class: the answers one place() call has looked up.
        self._seen: dict[tuple[int, ...], dict[int, tuple[bool, Any]]] = {}
        # The same by claim content, kept for the whole run (the snapshot's occupancy never changes).
        self._by_content: dict[Hashable, tuple[bool, Any]] = {}
        # The content of the claim lists of the current place() call (numbered), by the claims' ids.
        self._content_numbers: dict[Hashable, int] = {}
        self._contents: dict[tuple[int, ...], int] = {}

    def view(self, node: Node) -> NodeView:
        """The node's pools and candidates, built once."""
        found = self._views.get(node.name)
        if found is None:
            found = self._views[node.name] = node_view(self.inv, node, self.features)
        return found

    def node_class(self, name: str, demand: PodDemand | None = None) -> int:
        """The equivalence class of a node: nodes of one class get the same answer from every
        allocation under the snapshot's occupancy (only a pod's node selector or affinity,
        checked per node, can still tell them apart). With ``demand``, the classes that pod is
        placed with: nodes whose devices differ only in attributes it never reads are alike."""
        group = self._grouping(self._signature(demand)) if demand is not None else self._groupings[None]
        return self._classify(group, self._names.index(name))

    def _grouping(self, signature: Signature | None) -> _Grouping:
        """The node classes for pods of one signature (None: devices alike in all selectors see)."""
        found = self._groupings.get(signature)
        if found is None:
            shapes = (
                NodeShapes(self.base)
                if signature is None
                else NodeShapes(self.base, reads_key(self.selection, *signature))
            )
            found = self._groupings[signature] = _Grouping(len(self._groupings), shapes, [-1] * len(self._names))
        return found

    def _signature(self, demand: PodDemand) -> Signature | None:
        """What the pod's search reads of device attributes: the selector lists of its classes
        and requests, and the attributes its constraints compare. None (devices alike only in
        everything) for pods with extended resources, whose node checks also read other classes."""
        if demand.containers or not self._same_shapes:
            return None
        selectors: dict[tuple[str, ...], None] = {}
        attributes: set[str] = set()
        for claim in demand.claims:
            for req in claim.requests:
                for alt in req.alternatives:
                    selectors[self.selection.class_selectors(alt.class_name)] = None
                    selectors[alt.selectors] = None
            attributes.update(con.attribute for con in claim.constraints)
        return tuple(selectors), tuple(sorted(attributes))

    def _node_class(self, i: int) -> int:
        """Equivalence class of the i-th node (sorted by name) in the current grouping."""
        return self._classify(self._group, i)

    def _classify(self, group: _Grouping, i: int) -> int:
        """The i-th node's class in ``group``. Nodes alike in everything are alike for every
        pod, so a pod's grouping looks at one node per class of the full grouping."""
        found = group.class_of[i]
        if found < 0:
            if not self._same_shapes:
                found = i
            elif group.number == 0:
                node = self.inv.nodes[self._names[i]]
                found = group.shapes.node_class(node, self.view(node))
            else:
                full = self._classify(self._groupings[None], i)
                found = group.by_full.get(full, -1)
                if found < 0:
                    node = self.inv.nodes[self._names[i]]
                    found = group.by_full[full] = group.shapes.node_class(node, self.view(node))
            group.class_of[i] = found
        return found

    def _pools_of(self, node: Node) -> frozenset[tuple[str, str]]:
        """The pools of the node's candidates: a packing state that took nothing from them
        leaves the node as the snapshot has it."""
        found = self._pools.get(node.name)
        if found is None:
            found = self._pools[node.name] = frozenset((d.id.driver, d.id.pool) for d in self.view(node).candidates)
        return found

    # ------------------------------------------------------------------ one node

    def _node_filter(self, demand: PodDemand, node: Node) -> str | None:
        """Pod-level node constraints: taints, nodeSelector, required node affinity, allocated claims."""
        if _untolerated(demand, node):
            return TAINT_REASON
        if node.source is not None:
            try:
                if not labels_match(demand.node_selector, node.labels) or (
                    demand.affinity is not None and not node_matches(demand.affinity, node.name, node.labels)
                ):
                    return AFFINITY_REASON
            except SelectorError:
                return AFFINITY_REASON
        for done in demand.allocated:
            if done.node_selector is not None:
                try:
                    ok = node_matches(done.node_selector, node.name, node.labels)
                except SelectorError:
                    ok = False
                if not ok:
                    return "resourceclaim not available on the node"
        return None

    def try_node(
        self, demand: PodDemand, claims: Sequence[Claim], node: Node, state: State, *, explain_failure: bool = True
    ) -> tuple[list[ClaimResult] | None, str | None]:
        """(results, None) when the pod fits on the node, else (None, reason); raises Fatal.

        Without ``explain_failure`` a failed search returns (None, None): explaining costs a
        second look at the node and is only needed when no node fits at all.
        """
        reason = self._node_filter(demand, node)
        if reason:
            return None, reason
        return self._try_devices(demand, claims, node, state, explain_failure)

    def _try_devices(
        self, demand: PodDemand, claims: Sequence[Claim], node: Node, state: State, explain_failure: bool
    ) -> tuple[list[ClaimResult] | None, str | None]:
        """``try_node`` once the pod's node selector and affinity allow the node: what depends on
        the node's class only. A node whose kubelet predates a feature the allocation uses, or
        whose device plugin serves an extended resource of the pod while a DRA driver publishes
        the same devices there, is no place for it; nor is a node with a taint the pod does not
        tolerate (checked here too, for the pods ``_node_filter`` does not screen)."""
        if _untolerated(demand, node):
            return None, TAINT_REASON
        results, reason = self._allocate_on(demand, claims, node, state, explain_failure)
        if reason and demand.containers:
            reason = in_user_terms(reason, demand)
        if results is not None:
            reason = self._double_managed(demand, node)
            if reason:
                return None, reason
        if results and node.kubelet:
            old = too_old(node.kubelet, kubelet_features(results))
            if old is not None:
                return None, describe(old, node.kubelet)
        return results, reason

    def _double_managed(self, demand: PodDemand, node: Node) -> str | None:
        """The reason when the node's device plugin would serve one of the pod's extended
        resources although a DRA driver publishes devices of the mapped class on the node."""
        if not self.features.extended_resource:
            return None
        for resource in sorted({r for c in demand.containers for r in c.wanted}):
            if resource not in self.ext or (amount(node.allocatable.get(resource)) or 0) <= 0:
                continue
            selectors = self.selection.class_selectors(self.ext[resource])
            drivers = sorted(
                {d.driver for d in self.view(node).candidates if self.selection.evaluate(selectors, d) is True}
            )
            if drivers:
                return (
                    f"the node's device plugin advertises {resource} while DRA driver {', '.join(drivers)} "
                    f"publishes devices of class {self.ext[resource]} on it (both would hand them out)"
                )
        return None

    def _allocate_on(
        self, demand: PodDemand, claims: Sequence[Claim], node: Node, state: State, explain_failure: bool
    ) -> tuple[list[ClaimResult] | None, str | None]:
        todo, reason = self._todo(demand, claims, node)
        if reason:
            return None, reason
        if not todo:
            return [], None
        return self._search(self.view(node), todo, state, explain_failure)

    def _todo(self, demand: PodDemand, claims: Sequence[Claim], node: Node) -> tuple[list[Claim], str | None]:
        """The claims to allocate on the node: the pod's, and the special claim of its extended
        resources that DRA serves there; or the reason the node cannot serve those."""
        special = None
        if self.features.extended_resource:
            special, reason = extended_requests(demand.containers, node, self.ext)
            if reason:
                return [], reason
        return list(claims) + ([special] if special else []), None

    def _search(
        self, view: NodeView, todo: list[Claim], state: State, explain_failure: bool
    ) -> tuple[list[ClaimResult] | None, str | None]:
        try:
            results = Search(view, todo, self.selection, state, self.budget).run()
        except BudgetExceeded:
            return None, f"timed out trying to allocate devices (search budget of {self.budget} steps)"
        if results is not None:
            return results, None
        if view.invalid:
            return None, "invalid resource pools were encountered"
        return None, explain(view, todo, self.selection, state) if explain_failure else None

    def _class_answer(
        self, demand: PodDemand, claims: Sequence[Claim], i: int, explain_failure: bool
    ) -> tuple[bool, Any]:
        """(True, portable results) or (False, reason) for the i-th node under the snapshot's
        occupancy, node filter aside: searched once per node class and claim list.

        Pods without extended resources share answers by claim content across templates (many
        workloads ask for the same "one GPU of class X"), except explained failures: their
        reasons may name the claim."""
        cls = self._node_class(i)
        key: Hashable
        if explain_failure or demand.containers or not self._same_shapes:
            answers, key = self._answers, (tuple(map(id, claims)), cls)
        else:
            ids = tuple(map(id, claims))
            content = self._contents.get(ids)
            if content is None:
                # A small number per distinct content: hashing the nested key on every lookup costs.
                known = self._content_numbers
                content = self._contents[ids] = known.setdefault(tuple(map(claim_key, claims)), len(known))
            answers, key = self._by_content, (content, self._group.number, cls)
        hit = answers.get(key)
        if hit is not None and (hit[0] or hit[1] is not None or not explain_failure):
            return hit
        node = self.inv.nodes[self._names[i]]
        if explain_failure and self._seen.get(tuple(map(id, claims)), {}).get(cls) == _FAILED:
            answer: tuple[bool, Any] = (False, self._explained(demand, claims, node))
        else:
            results, reason = self._try_devices(demand, claims, node, self.base, explain_failure)
            answer = (
                (True, self._group.shapes.portable(self.view(node), results))
                if results is not None
                else (False, reason)
            )
        answers[key] = answer
        return answer

    def _explained(self, demand: PodDemand, claims: Sequence[Claim], node: Node) -> str:
        """Why the pod's search fails on the node under the snapshot's occupancy, when an answer
        without explanation already said it does (``_FAILED``): the search is not run again, a
        fleet the pod fits nowhere on would search each node class twice."""
        todo, _ = self._todo(demand, claims, node)
        reason = explain(self.view(node), todo, self.selection, self.base)
        return in_user_terms(reason, demand) if demand.containers else reason

    def _try(
        self,
        demand: PodDemand,
        claims: Sequence[Claim],
        i: int,
        state: State,
        touched: set[tuple[str, str]],
        explain_failure: bool,
    ) -> tuple[list[ClaimResult] | None, str | None]:
        """``try_node`` on the i-th node in a packing state that took devices from the pools in
        ``touched``: from the node's class when the state left the node untouched."""
        node = self.inv.nodes[self._names[i]]
        if not self._same_shapes or (touched and not self._pools_of(node).isdisjoint(touched)):
            return self.try_node(demand, claims, node, state, explain_failure=explain_failure)
        reason = self._node_filter(demand, node) if _has_node_constraints(demand) else None
        if reason:
            return None, reason
        if explain_failure:
            fits, value = self._class_answer(demand, claims, i, True)
        else:
            _, (fits, value) = next(self._walk(demand, claims, i, i + 1))
        return (self._group.shapes.restore(self.view(node), value, claims), None) if fits else (None, value)

    # ------------------------------------------------------------------ templates

    def place(self, demand: PodDemand, replicas: int = 1, *, every_node: bool = True) -> Outcome:
        """Pack ``replicas`` pods greedily over the nodes in order; the first one answers "does
        one pod fit at all".

        One walk over the nodes is enough: taking devices never makes a node feasible again, and
        until the first pod is placed the packing state is the snapshot's. ``every_node`` also
        checks the nodes after the packing frontier (from the snapshot's state) so that
        ``feasible`` lists every node one pod fits on; without it the walk stops as soon as all
        replicas are placed, which is all the lint rules need. Under the snapshot's state each
        node class is searched once (nodes are walked in order, so the first node of a class
        answers for it, and a Fatal error surfaces at the same node as a walk that searched every node).
        """
        out = Outcome(demand.label, nodes=len(self.inv.nodes), replicas=replicas)
        self._answers.clear()
        self._seen.clear()
        self._contents.clear()
        self._group = self._grouping(self._signature(demand))
        try:
            start = self._first_fit(demand, out)
            if start is not None:
                self._pack(demand, out, start, every_node)
        except Fatal as exc:
            out.fatal = exc
            out.feasible.clear()
            out.first = None
            out.placed = 0
            out.packing.clear()
        return out

    def _first_fit(self, demand: PodDemand, out: Outcome) -> int | None:
        """The first node one pod fits on under the snapshot's occupancy; the reasons of the
        nodes before it (explained for every node when none fits)."""
        names, nodes, claims = self._names, self.inv.nodes, demand.claims
        screened = _has_node_constraints(demand)
        failed: list[int] = []
        for i, (fits, reason) in self._walk(demand, claims, 0, len(names)):
            if fits:
                return i
            if screened and reason is None:
                reason = self._node_filter(demand, nodes[names[i]])
            if reason is not None:
                out.reasons[reason].append(names[i])
            else:
                failed.append(i)
        # A node's explained answer is its class's: asked once per class, in node order (so a
        # Fatal error surfaces at the same node), not once per node of a fleet it fits nowhere on.
        class_of = self._group.class_of
        reasons: dict[int, str] = {}
        for i in failed:
            reason = reasons.get(class_of[i])
            if reason is None:
                _, answer = self._class_answer(demand, claims, i, True)
                reason = reasons[class_of[i]] = answer or "cannot allocate all claims"
            out.reasons[reason].append(names[i])
        return None

    def _walk(
        self, demand: PodDemand, claims: Sequence[Claim], start: int, stop: int
    ) -> Iterator[tuple[int, tuple[bool, Any]]]:
        """(i, answer) for the nodes ``start``..``stop`` (exclusive) in order under the snapshot's
        occupancy: (True, portable results), or (False, reason or None: not explained); a node
        the pod's node selector or affinity rules out answers (False, None) and the caller asks
        ``_node_filter`` why. Answers are kept per class and claim list for the place() call."""
        nodes, names, class_of = self.inv.nodes, self._names, self._group.class_of
        screened = _has_node_constraints(demand)
        seen = self._seen.setdefault(tuple(map(id, claims)), {})
        for i in range(start, stop):
            if screened and self._node_filter(demand, nodes[names[i]]) is not None:
                yield i, _RULED_OUT
                continue
            cls = class_of[i] if class_of[i] >= 0 else self._node_class(i)
            answer = seen.get(cls)
            yield i, answer if answer is not None else self._class_answer_seen(demand, claims, i, seen)

    def _class_answer_seen(
        self, demand: PodDemand, claims: Sequence[Claim], i: int, seen: dict[int, tuple[bool, Any]]
    ) -> tuple[bool, Any]:
        """``_class_answer`` without explanation, kept in the call's ``seen`` table of the claim list."""
        answer = seen[self._group.class_of[i]] = self._class_answer(demand, claims, i, False)
        return answer

    def _pack(self, demand: PodDemand, out: Outcome, start: int, every_node: bool) -> None:
        """Place replicas from node ``start`` on (one fits there), each taking its devices;
        with ``every_node`` also list the nodes one pod fits on from the snapshot's state."""
        target = max(1, min(out.replicas, MAX_PACKED_REPLICAS))
        state = self.base.fork()
        touched: set[tuple[str, str]] = set()
        claims = list(demand.claims)
        pinned: list[set[str]] = []  # nodes allowed by shared claims allocated by earlier replicas
        here: Counter[str] = Counter()  # replicas per node, for its device plugins' resources
        i = start
        while i < len(self._names) and out.placed < target:
            name = self._names[i]
            placed_here = False
            while out.placed < target and all(name in allowed for allowed in pinned):
                if self._plugin_short(demand, name, here[name]):
                    break
                results, _ = self._try(demand, claims, i, state, touched, False)
                if results is None:
                    break
                if not placed_here:
                    out.feasible.append(name)
                    placed_here = True
                out.first = out.first or results
                picks = [(p.device, p.shared, p.consumed) for r in results for p in r.picks if not p.admin]
                state.take(picks)
                touched.update((dev.id.driver, dev.id.pool) for dev, _, _ in picks)
                out.placed += 1
                here[name] += 1
                out.packing.append(name)
                if demand.shared and not pinned:
                    pinned = [self._nodes_for(results[k]) for k in sorted(demand.shared)]
                    claims = [c for k, c in enumerate(claims) if k not in demand.shared]
            if not placed_here and every_node:
                self._add_feasible(demand, out, i, i + 1)
            i += 1
        if every_node:
            self._add_feasible(demand, out, i, len(self._names))
            if out.placed < target:
                self._explain_unplaced(out, demand, claims, pinned, state, touched, here)

    def _add_feasible(self, demand: PodDemand, out: Outcome, start: int, stop: int) -> None:
        """Append the nodes ``start``..``stop`` (exclusive) one pod fits on under the snapshot's state.

        Without node constraints a node's answer is its class's, so the classes are answered
        in the order of their first node in the range (as a walk node by node would meet them)
        and the nodes then picked by class."""
        names = self._names
        if _has_node_constraints(demand) or stop - start < 2:
            out.feasible.extend(names[i] for i, (fits, _) in self._walk(demand, demand.claims, start, stop) if fits)
            return
        members = self._members()
        seen = self._seen.setdefault(tuple(map(id, demand.claims)), {})
        pending = []
        for cls, nodes in enumerate(members):
            if cls not in seen:
                first = bisect_left(nodes, start)
                if first < len(nodes) and nodes[first] < stop:
                    pending.append(nodes[first])
        for i in sorted(pending):
            self._class_answer_seen(demand, demand.claims, i, seen)
        fits = [seen.get(cls, _RULED_OUT)[0] for cls in range(len(members))]
        # Node by node in C: this runs for every placed replica over the rest of the fleet.
        out.feasible.extend(compress(names[start:stop], map(fits.__getitem__, self._group.class_of[start:stop])))

    def _members(self) -> list[list[int]]:
        """The nodes (positions in ``_names``, ascending) of each class, every node classified."""
        group = self._group
        if group.by_class is None:
            by_class: dict[int, list[int]] = defaultdict(list)
            for i in range(len(self._names)):
                by_class[self._classify(group, i)].append(i)
            group.by_class = [by_class.get(cls, []) for cls in range(max(by_class, default=-1) + 1)]
        return group.by_class

    def _explain_unplaced(
        self,
        out: Outcome,
        demand: PodDemand,
        claims: list[Claim],
        pinned: list[set[str]],
        state: State,
        touched: set[tuple[str, str]],
        here: Counter[str],
    ) -> None:
        """Why replica ``placed + 1`` fits nowhere, per node, in the state the placed ones left."""
        for i, name in enumerate(self._names):
            if not all(name in allowed for allowed in pinned):
                out.unplaced["a claim every replica shares is allocated on devices this node cannot use"].append(name)
                continue
            short = self._plugin_short(demand, name, here[name])
            if short:
                out.unplaced[short].append(name)
                continue
            results, reason = self._try(demand, claims, i, state, touched, True)
            if results is None:
                out.unplaced[reason or "cannot allocate all claims"].append(name)

    def _plugin_short(self, demand: PodDemand, name: str, placed: int) -> str | None:
        """NodeResourcesFit's reason when one more replica exceeds what the node's device plugins
        advertise, the ``placed`` replicas already there holding theirs (None when it fits)."""
        node = self.inv.nodes[name]
        for resource in sorted({r for c in demand.containers for r in (*c.wanted, *c.unmapped)}):
            have = amount(node.allocatable.get(resource)) or 0
            if placed and have > 0 and (placed + 1) * pod_total(demand.containers, resource) > have:
                return f"Insufficient {resource}"
        return None

    def _nodes_for(self, result: ClaimResult) -> set[str]:
        """Nodes on which an allocated shared claim stays usable (its result node selector)."""
        allowed = set()
        for name, node in self.inv.nodes.items():
            ids = {d.id for d in self.view(node).candidates}
            if all(p.device.id in ids for p in result.picks):
                allowed.add(name)
        return allowed
