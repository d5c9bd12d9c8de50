"""Offline model of the scheduler's structured-parameters allocator (Kubernetes 1.37 defaults).

Entry points: :class:`Simulator` (per-template placement over the snapshot, replica packing),
:func:`pod_demand` (what a pod asks for), :class:`Search` (one Allocate(node, claims) call).
Selectors are evaluated through a ``Matcher`` callable so this package never depends on a CEL
engine directly.
"""

from dralint.k8s.allocator.model import MAX_RESULTS, Alternative, Claim, Constraint, EvalError, Features, Matcher, parse_claim
from dralint.k8s.allocator.pod import PodDemand, extended_resource_classes, pod_demand
from dralint.k8s.allocator.search import BudgetExceeded, ClaimResult, Fatal, Pick, Search, Selection
from dralint.k8s.allocator.simulate import Outcome, Simulator
from dralint.k8s.allocator.view import NodeView, State, node_view

__all__ = [
    "MAX_RESULTS",
    "Alternative",
    "BudgetExceeded",
    "Claim",
    "ClaimResult",
    "Constraint",
    "EvalError",
    "Fatal",
    "Features",
    "Matcher",
    "NodeView",
    "Outcome",
    "Pick",
    "PodDemand",
    "Search",
    "Selection",
    "Simulator",
    "State",
    "extended_resource_classes",
    "node_view",
    "parse_claim",
    "pod_demand",
]
