"""Offline model of the scheduler's structured-parameters allocator (Kubernetes 1.37 defaults).

Entry points: :class:`Simulator` (per-template placement over the snapshot, replica packing),
:func:`pod_demand` (what a pod asks for), :class:`Search` (one Allocate(node, claims) call).
Selectors are evaluated through a ``Matcher`` callable so this package never depends on a CEL
engine directly.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dralint.k8s.allocator.model import (
        MAX_RESULTS,
        Alternative,
        Claim,
        Constraint,
        EvalError,
        Features,
        Matcher,
        parse_claim,
    )
    from dralint.k8s.allocator.pod import PodDemand, extended_resource_classes, pod_demand
    from dralint.k8s.allocator.search import BudgetExceeded, ClaimResult, Fatal, Pick, Search, Selection
    from dralint.k8s.allocator.simulate import Outcome, Simulator
    from dralint.k8s.allocator.view import NodeView, State, node_view

#: Where each public name lives. The modules load on first use of a name, so a lint run that
#: only reads the bundled snapshots (``examples``) does not pay for the allocator's import.
_HOMES = {
    "model": ("MAX_RESULTS", "Alternative", "Claim", "Constraint", "EvalError", "Features", "Matcher", "parse_claim"),
    "pod": ("PodDemand", "extended_resource_classes", "pod_demand"),
    "search": ("BudgetExceeded", "ClaimResult", "Fatal", "Pick", "Search", "Selection"),
    "simulate": ("Outcome", "Simulator"),
    "view": ("NodeView", "State", "node_view"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


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
