"""dralint's single adapter over the CEL library (cel-expr-python); nothing else imports it.

API (small on purpose; the allocator and the selector checks use only this):

* ``check(expression) -> CheckResult``: what the API server says at apply time.  ``errors``
  are :class:`CelIssue` with 0-based ``start``/``end`` character offsets into the expression
  and messages in the API server's words ("compilation failed: ERROR: <input>:1:15: found no
  matching overload for '_>_' applied to '(string, int)'", "must evaluate to bool or the
  unknown type, not string", "Too long: ...", "too complex, exceeds cost limit ...").
  ``not_checked`` is set, instead of errors, for syntax or functions Kubernetes accepts but
  dralint cannot check (never a false error).  ``cost`` is the static estimate
  (:mod:`dralint.k8s.cel.cost` documents the model); ``ast`` is the checked tree for lints.
  Results are cached per distinct expression text, so each expression compiles once per run.
* ``evaluate(expression, device) -> EvalResult``: the scheduler's view on one
  :class:`Device`: ``value`` True/False, or ``error`` (a runtime error aborts the pod's
  allocation, it is not "no match"), or ``unsupported`` when dralint cannot evaluate it.
  Semantics: an unknown domain is an empty map, a missing attribute is an error
  ("no such key: x ..."), ``&&``/``||`` absorb errors as CEL specifies, a device with an
  unloadable attribute fails every selector.  Evaluation is bounded by refusing expressions
  whose estimated cost exceeds the 1,000,000 runtime limit (the library has no cost guard).
* ``matches(selectors, device) -> MatchResult``: all selectors in order, as the allocator.
* ``matching_devices(selectors, devices) -> Selection``: which devices of an inventory match,
  and, when none does, which top-level ``&&`` conjunct excluded them.
* ``Device``: ``driver``, ``attributes[domain][name]`` (int, bool, str, Semver, or lists),
  ``capacity[domain][name]`` (Quantity), ``allow_multiple_allocations``;
  ``Device.from_slice(driver, spec_devices_entry, pool)`` builds one from a ResourceSlice.
"""

from dralint.k8s.cel.cost import MAX_COST, CostEstimate
from dralint.k8s.cel.device import Device, split_qualified_name
from dralint.k8s.cel.engine import MAX_LENGTH, CelIssue, CheckResult, EvalResult, MatchResult, check, evaluate, matches
from dralint.k8s.cel.selection import Selection, conjuncts, matching_devices

__all__ = [
    "MAX_COST",
    "MAX_LENGTH",
    "CelIssue",
    "CheckResult",
    "CostEstimate",
    "Device",
    "EvalResult",
    "MatchResult",
    "Selection",
    "check",
    "conjuncts",
    "evaluate",
    "matches",
    "matching_devices",
    "split_qualified_name",
]
