"""Check registration: a check is a plain function, declared with the rule ids it reports.

Modules under ``dralint.checks`` are imported on first use, so adding a check means adding a
module; no central list needs editing (and no merge conflicts over one).

A run imports only the check modules that can apply to the kinds it holds: pre-commit lints one
file at a time, and importing all of them (with what they import) was a third of the start of a
one-file run. Which kinds a module's checks apply to is recorded in ``check_index.py``, generated
by ``tools/generate_docs.py`` and checked by a test; a module missing from it is always imported,
and when the modules' text no longer matches it every module is imported, so a stale index costs
time, never a check.
"""

from __future__ import annotations

import importlib
import json
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dralint.diagnostics import Finding
    from dralint.k8s.objects import KubeObject
    from dralint.lint.context import Context

ObjectCheckFn = Callable[["KubeObject", "Context"], Iterable["Finding"]]
ContextCheckFn = Callable[["Context"], Iterable["Finding"]]


class Check:
    """A registered check: the function and the rules it may report."""

    __slots__ = ("function", "rules", "kinds", "per_object", "default_rule")

    def __init__(
        self, function: Callable, rules: tuple[str, ...], kinds: frozenset[str] | None, per_object: bool
    ) -> None:
        self.function = function
        self.rules = rules
        self.kinds = kinds
        self.per_object = per_object
        #: The rule a finding without one is reported under: the check's only rule, if it has
        #: one. A field, not a property: the engine reads it for every check on every object.
        self.default_rule = rules[0] if len(rules) == 1 else None

    @property
    def name(self) -> str:
        return f"{self.function.__module__}.{self.function.__qualname__}"


#: Registered checks by the module that defines them, in definition order.
_CHECKS: dict[str, list[Check]] = {}


def object_check(*rules: str, kinds: Iterable[str] | None = None) -> Callable[[ObjectCheckFn], ObjectCheckFn]:
    """Register ``fn(obj, ctx)``, run once per scanned object (of ``kinds``, if given)."""

    def register(fn: ObjectCheckFn) -> ObjectCheckFn:
        _CHECKS.setdefault(fn.__module__, []).append(
            Check(fn, tuple(rules), frozenset(kinds) if kinds is not None else None, True)
        )
        return fn

    return register


def context_check(*rules: str) -> Callable[[ContextCheckFn], ContextCheckFn]:
    """Register ``fn(ctx)``, run once per lint run, for checks that look across objects."""

    def register(fn: ContextCheckFn) -> ContextCheckFn:
        _CHECKS.setdefault(fn.__module__, []).append(Check(fn, tuple(rules), None, False))
        return fn

    return register


_PACKAGE = "dralint.checks"


def check_modules() -> list[tuple[str, Path]]:
    """(module name, file) of every check module, in a fixed order (the order checks run in)."""
    root = Path(__file__).resolve().parent.parent / "checks"
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name != "__init__.py":
            parts = path.relative_to(root).with_suffix("").parts
            found.append((".".join((_PACKAGE, *parts)), path))
    return found


def _digest(modules: list[tuple[str, Path]]) -> int:
    """A checksum of the check modules' text: tells whether ``check_index.py`` describes them."""
    digest = 0
    for name, path in modules:
        digest = zlib.crc32(path.read_bytes(), zlib.crc32(name.encode("utf-8"), digest))
    return digest


def _wanted(modules: list[tuple[str, Path]], kinds: Iterable[str] | None) -> list[str]:
    """The modules a run over objects of ``kinds`` needs (all of them when ``kinds`` is None)."""
    names = [name for name, _ in modules]
    if kinds is None:
        return names
    from dralint.lint import check_index

    if _digest(modules) != check_index.DIGEST:
        return names
    present = set(kinds)
    # None: a check for every kind or a run-wide check; missing: a module newer than the index.
    return [name for name in names if (applies := check_index.KINDS.get(name)) is None or present.intersection(applies)]


def all_checks(kinds: Iterable[str] | None = None) -> list[Check]:
    """The registered checks that can apply to objects of ``kinds`` (every check when None),
    importing their modules on first call; run-wide checks are always among them.

    Checks registered outside ``dralint.checks`` (a test's deliberately broken check) come
    first, as registered; then the package's modules in their fixed order, however many of them
    earlier calls imported.
    """
    modules = check_modules()
    wanted = _wanted(modules, kinds)
    for name in wanted:
        if name not in _CHECKS:
            importlib.import_module(name)
            _CHECKS.setdefault(name, [])
    package = {name for name, _ in modules}
    elsewhere = [name for name in _CHECKS if name not in package]
    return [check for name in elsewhere + wanted for check in _CHECKS[name]]


_INDEX_HEADER = '''"""Generated by tools/generate_docs.py from the check modules (dralint.lint.registry): the
kinds each module's checks apply to; None for a check of any kind or a run-wide check, [] for a
module without checks (its users import it). Do not edit."""
'''


def check_index() -> str:
    """The text of ``check_index.py`` for the check modules as they are now."""
    modules = check_modules()
    kinds: dict[str, set[str] | None] = {name: set() for name, _ in modules}
    for check in all_checks():
        module = check.function.__module__
        if module not in kinds:  # registered outside the package (by a test)
            continue
        if check.kinds is None or not check.per_object:
            kinds[module] = None
        elif (known := kinds[module]) is not None:
            known.update(check.kinds)
    listing = "".join(
        f"    {json.dumps(name)}: {'None' if found is None else json.dumps(sorted(found))},\n"
        for name, found in kinds.items()
    )
    return f"{_INDEX_HEADER}\nDIGEST = {_digest(modules)}\n\nKINDS: dict[str, list[str] | None] = {{\n{listing}}}\n"


def implemented_rules() -> set[str]:
    """Rule ids some check can report (engine-level rules are declared in the engine)."""
    return {rule for check in all_checks() for rule in check.rules}
