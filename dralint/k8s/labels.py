"""Label selectors and node selection with the API server's and scheduler's semantics.

Several checks ask "does this selector pick that object?" (Services and NetworkPolicies over
pods) or "can these two workloads land on the same node?" (a device plugin and a DRA driver).
Getting the operators subtly wrong is what makes cross-resource checks noisy, so the logic lives
here once, with the Kubernetes rules:

* ``LabelSelector``: ``matchLabels`` and ``matchExpressions`` are ANDed; operators ``In``,
  ``NotIn``, ``Exists``, ``DoesNotExist``. An empty selector matches everything; a missing
  (``None``) selector matches nothing.
* Node selection of a pod: ``spec.nodeSelector`` AND (OR over the required node-affinity terms,
  each term ANDing its expressions, with ``Gt``/``Lt`` as integer comparisons, and ``matchFields``
  on ``metadata.name``). Tolerations never select nodes; they only permit taints.

Besides matching a concrete node, ``NodeSelection.may_overlap`` answers the symbolic question
"is there any label set both selections accept?", which is what a linter can answer when the
cluster's Nodes are not known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from dralint.yaml.plain import as_dict

#: Operators of metav1.LabelSelectorRequirement.
SELECTOR_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})
#: Operators of core/v1 NodeSelectorRequirement.
NODE_OPERATORS = SELECTOR_OPERATORS | {"Gt", "Lt"}


class Requirement(NamedTuple):
    """One ``key operator values`` condition; unknown operators never match (fail closed)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.operator == "In" and len(self.values) == 1:
            return f"{self.key}={self.values[0]}"
        if self.operator in ("Exists", "DoesNotExist"):
            return self.key if self.operator == "Exists" else f"!{self.key}"
        if self.operator in ("Gt", "Lt"):
            return f"{self.key} {'>' if self.operator == 'Gt' else '<'} {self.values[0] if self.values else '?'}"
        return f"{self.key} {self.operator.lower()} ({', '.join(self.values)})"

    def matches(self, labels: Mapping[str, Any]) -> bool:
        present = self.key in labels
        value = label_text(labels[self.key]) if present else None
        if self.operator == "In":
            return present and value in self.values
        if self.operator == "NotIn":
            return not present or value not in self.values
        if self.operator == "Exists":
            return present
        if self.operator == "DoesNotExist":
            return not present
        if self.operator in ("Gt", "Lt"):
            bound = _integer(self.values[0]) if len(self.values) == 1 else None
            number = _integer(value) if present else None
            if bound is None or number is None:
                return False
            return number > bound if self.operator == "Gt" else number < bound
        return False


def label_text(value: Any) -> str:
    """A label value as the API sees it; an unquoted YAML ``true`` is the string ``true``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _integer(value: Any) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def _requirements(expressions: Any, operators: frozenset[str]) -> list[Requirement]:
    """Parse ``matchExpressions``; a malformed entry becomes a never-matching requirement."""
    out: list[Requirement] = []
    for item in expressions if isinstance(expressions, list) else []:
        if not isinstance(item, dict):
            continue
        operator = str(item.get("operator", ""))
        values = item.get("values")
        values = tuple(label_text(v) for v in values) if isinstance(values, list) else ()
        out.append(
            Requirement(str(item.get("key", "")), operator if operator in operators else f"invalid:{operator}", values)
        )
    return out


def _equalities(mapping: Any) -> list[Requirement]:
    if not isinstance(mapping, dict):
        return []
    return [Requirement(str(k), "In", (label_text(v),)) for k, v in mapping.items()]


def selector_requirements(selector: Mapping[str, Any]) -> list[Requirement]:
    """The ANDed requirements of a metav1.LabelSelector."""
    return _equalities(selector.get("matchLabels")) + _requirements(
        selector.get("matchExpressions"), SELECTOR_OPERATORS
    )


def _never(key: str) -> bool:
    return False


def selector_matches(selector: Any, labels: Mapping[str, Any], holds: Callable[[str], bool] = _never) -> bool:
    """Whether a metav1.LabelSelector picks an object with ``labels``.

    ``None`` (no selector) matches nothing and ``{}`` matches everything, as in the API. A term
    on a key for which ``holds`` is true counts as met (labels a controller adds later).
    """
    if selector is None or not isinstance(selector, dict):
        return False
    return all(holds(req.key) or req.matches(labels) for req in selector_requirements(selector))


def map_selector_matches(selector: Any, labels: Mapping[str, Any], holds: Callable[[str], bool] = _never) -> bool:
    """Whether an equality-only selector (a Service's ``spec.selector``) picks ``labels``.

    An empty or missing map matches nothing: a Service without a selector manages no endpoints.
    A key for which ``holds`` is true counts as matched.
    """
    if not isinstance(selector, dict) or not selector:
        return False
    return all(holds(str(k)) or (k in labels and label_text(labels[k]) == label_text(v)) for k, v in selector.items())


class NodeTerm(NamedTuple):
    """One required node-affinity term: its label requirements and ``metadata.name`` fields."""

    labels: tuple[Requirement, ...] = ()
    fields: tuple[Requirement, ...] = ()

    def matches(self, node_labels: Mapping[str, Any], node_name: str | None) -> bool:
        if not all(req.matches(node_labels) for req in self.labels):
            return False
        if self.fields:
            if node_name is None:
                return False
            return all(req.matches({"metadata.name": node_name}) for req in self.fields)
        return True


def node_selector_terms(node_selector: Any) -> list[NodeTerm]:
    """The ORed terms of a core/v1 NodeSelector (``nodeSelectorTerms``)."""
    terms = node_selector.get("nodeSelectorTerms") if isinstance(node_selector, dict) else None
    out: list[NodeTerm] = []
    for term in terms if isinstance(terms, list) else []:
        if not isinstance(term, dict):
            continue
        out.append(
            NodeTerm(
                tuple(_requirements(term.get("matchExpressions"), NODE_OPERATORS)),
                tuple(_requirements(term.get("matchFields"), NODE_OPERATORS)),
            )
        )
    return out


class NodeSelection(NamedTuple):
    """Which nodes something can run on: ``required`` ANDed with any one of ``terms``.

    ``terms`` empty means no affinity restriction. ``node_name`` pins to one node.
    """

    required: tuple[Requirement, ...] = ()
    terms: tuple[NodeTerm, ...] = ()
    node_name: str | None = None

    @property
    def unrestricted(self) -> bool:
        return not self.required and not self.terms and self.node_name is None

    def describe(self) -> str:
        """A short human rendering, such as ``gpu-pool=dra`` or ``zone in (a, b)``."""
        if self.unrestricted:
            return "every node"
        parts = [r.describe() for r in self.required]
        if self.terms:
            terms = [" and ".join(r.describe() for r in t.labels + t.fields) or "any node" for t in self.terms]
            parts.append(terms[0] if len(terms) == 1 else "(" + " or ".join(terms) + ")")
        if self.node_name:
            parts.append(f"node {self.node_name}")
        return " and ".join(parts)

    def matches(self, node_labels: Mapping[str, Any], node_name: str | None = None) -> bool:
        """Whether a node with these labels (and name, if known) is selected."""
        if self.node_name is not None and node_name is not None and node_name != self.node_name:
            return False
        if not all(req.matches(node_labels) for req in self.required):
            return False
        return not self.terms or any(term.matches(node_labels, node_name) for term in self.terms)

    def _alternatives(self) -> list[tuple[list[Requirement], list[Requirement]]]:
        terms = self.terms or (NodeTerm(),)
        fields_for_name = [Requirement("metadata.name", "In", (self.node_name,))] if self.node_name else []
        return [(list(self.required) + list(t.labels), list(t.fields) + fields_for_name) for t in terms]

    def may_overlap(self, other: NodeSelection, excluding: Iterable[NodeSelection] = ()) -> bool:
        """Whether some node could be selected by both, whatever labels the cluster uses,
        optionally outside every selection in ``excluding``."""
        outside: list[list[Requirement]] = [[]]
        for selection in excluding:
            outside = [kept + extra for kept in outside for extra in selection.complement()][:_MAX_ALTERNATIVES]
        for labels_a, fields_a in self._alternatives():
            for labels_b, fields_b in other._alternatives():
                if not satisfiable(fields_a + fields_b):
                    continue
                if any(satisfiable(labels_a + labels_b + extra) for extra in outside):
                    return True
        return False

    def complement(self) -> list[list[Requirement]]:
        """Label requirements (ORed alternatives, each ANDed) for nodes this selection skips.

        ``not (R and (T1 or T2))`` is ``not R`` or ``(not T1 and not T2)``. A ``nodeName`` or
        ``matchFields`` pin is not expressible in labels and is left out, which can only make
        the complement smaller (fewer nodes counted as outside).
        """
        if self.unrestricted:
            return []
        out = [[negated] for negated in map(_negate, self.required) if negated]
        if self.terms:
            combos: list[list[Requirement]] = [[]]
            for term in self.terms:
                options = [n for n in map(_negate, term.labels) if n]
                combos = [c + [o] for c in combos for o in options][:_MAX_ALTERNATIVES]
            out += combos
        return out


_MAX_ALTERNATIVES = 256
_NEGATIONS = {"In": "NotIn", "NotIn": "In", "Exists": "DoesNotExist", "DoesNotExist": "Exists"}


def _negate(req: Requirement) -> Requirement | None:
    """The requirement a label set meets exactly when it fails ``req`` (None if unknown).

    ``Gt n`` negates to ``Lt n+1`` (and ``Lt n`` to ``Gt n-1``), which leaves out nodes
    without the label: the complement is then an under-approximation, never an over one.
    """
    if req.operator in _NEGATIONS:
        return Requirement(req.key, _NEGATIONS[req.operator], req.values)
    bound = _integer(req.values[0]) if req.operator in ("Gt", "Lt") and len(req.values) == 1 else None
    if bound is None:
        return None
    return (
        Requirement(req.key, "Lt", (str(bound + 1),))
        if req.operator == "Gt"
        else Requirement(req.key, "Gt", (str(bound - 1),))
    )


def pod_node_selection(spec: Mapping[str, Any]) -> NodeSelection:
    """The node selection of a pod spec: nodeSelector, required node affinity, nodeName.

    Preferred affinity and tolerations are ignored on purpose: neither restricts placement.
    """
    node_affinity = as_dict(as_dict(spec.get("affinity")).get("nodeAffinity"))
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    node_name = spec.get("nodeName") if isinstance(spec.get("nodeName"), str) and spec.get("nodeName") else None
    return NodeSelection(tuple(_equalities(spec.get("nodeSelector"))), tuple(node_selector_terms(required)), node_name)


def satisfiable(requirements: Iterable[Requirement]) -> bool:
    """Whether one label set can meet every requirement (the symbolic overlap test)."""
    by_key: dict[str, list[Requirement]] = {}
    for req in requirements:
        by_key.setdefault(req.key, []).append(req)
    return all(_key_satisfiable(reqs) for reqs in by_key.values())


class _KeyState:
    __slots__ = ("allowed", "excluded", "must_exist", "must_not_exist", "lower", "upper")

    def __init__(self) -> None:
        self.allowed: set[str] | None = None
        self.excluded: set[str] = set()
        self.must_exist = False
        self.must_not_exist = False
        self.lower: int | None = None
        self.upper: int | None = None


def _key_satisfiable(reqs: list[Requirement]) -> bool:
    state = _KeyState()
    for req in reqs:
        if req.operator == "In":
            state.must_exist = True
            state.allowed = set(req.values) if state.allowed is None else state.allowed & set(req.values)
        elif req.operator == "NotIn":
            state.excluded |= set(req.values)
        elif req.operator == "Exists":
            state.must_exist = True
        elif req.operator == "DoesNotExist":
            state.must_not_exist = True
        elif req.operator in ("Gt", "Lt"):
            bound = _integer(req.values[0]) if len(req.values) == 1 else None
            if bound is None:
                return False
            state.must_exist = True
            if req.operator == "Gt":
                state.lower = bound if state.lower is None else max(state.lower, bound)
            else:
                state.upper = bound if state.upper is None else min(state.upper, bound)
        else:
            return False
    if state.must_not_exist:
        return not state.must_exist
    if state.lower is not None and state.upper is not None and state.upper - state.lower < 2:
        return False
    if state.allowed is None:
        return True
    candidates = state.allowed - state.excluded
    if state.lower is not None or state.upper is not None:
        candidates = {v for v in candidates if _within(v, state.lower, state.upper)}
    return bool(candidates)


def _within(value: str, lower: int | None, upper: int | None) -> bool:
    number = _integer(value)
    if number is None:
        return False
    return (lower is None or number > lower) and (upper is None or number < upper)
