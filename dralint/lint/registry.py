"""Check registration: a check is a plain function, declared with the rule ids it reports.

Modules under ``dralint.checks`` are imported on first use, so adding a check means adding a
module; no central list needs editing (and no merge conflicts over one).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    from dralint.lint.context import Context
    from dralint.diagnostics import Finding
    from dralint.k8s.objects import KubeObject

ObjectCheckFn = Callable[["KubeObject", "Context"], Iterable["Finding"]]
ContextCheckFn = Callable[["Context"], Iterable["Finding"]]


@dataclass(frozen=True)
class Check:
    """A registered check: the function and the rules it may report."""

    function: Callable
    rules: tuple[str, ...]
    kinds: frozenset[str] | None
    per_object: bool
    #: The rule a finding without one is reported under: the check's only rule, if it has one.
    #: A field, not a property: the engine reads it for every check on every object.
    default_rule: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "default_rule", self.rules[0] if len(self.rules) == 1 else None)

    @property
    def name(self) -> str:
        return f"{self.function.__module__}.{self.function.__qualname__}"


_CHECKS: list[Check] = []


def object_check(*rules: str, kinds: Iterable[str] | None = None) -> Callable[[ObjectCheckFn], ObjectCheckFn]:
    """Register ``fn(obj, ctx)``, run once per scanned object (of ``kinds``, if given)."""

    def register(fn: ObjectCheckFn) -> ObjectCheckFn:
        _CHECKS.append(Check(fn, tuple(rules), frozenset(kinds) if kinds is not None else None, True))
        return fn

    return register


def context_check(*rules: str) -> Callable[[ContextCheckFn], ContextCheckFn]:
    """Register ``fn(ctx)``, run once per lint run, for checks that look across objects."""

    def register(fn: ContextCheckFn) -> ContextCheckFn:
        _CHECKS.append(Check(fn, tuple(rules), None, False))
        return fn

    return register


_loaded = False


def all_checks() -> list[Check]:
    """Every registered check, importing the ``dralint.checks`` package tree on first call."""
    global _loaded
    if not _loaded:
        import dralint.checks as package

        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
        _loaded = True
    return list(_CHECKS)


def implemented_rules() -> set[str]:
    """Rule ids some check can report (engine-level rules are declared in the engine)."""
    return {rule for check in all_checks() for rule in check.rules}
