"""One mistake, one finding: collapse diagnostics that report the same mistake twice.

Checks are independent, so one typo can reach several of them: a value the API server
rejects is also a reference that resolves to nothing. When diagnostics of different
correctness families (YAML, API, CEL, REF, EXT, SCH) cover exactly the same span, the one the
API server would meet first is kept (the others follow from it), with the others' messages
as notes at the same place.

Judgement rules (security, reliability) stack on one span on purpose, such as three missing
resource settings on one ``resources`` key, and are never merged; nor are findings of one
rule at different places (two duplicate keys are two mistakes, each suppressible on its own
line). Repeats inside one check (a parser's follow-on errors, subrequests naming one missing
class) are grouped by that check, which knows they share a cause.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

from dralint.diagnostics import Diagnostic, Related, sort_one_file

#: Correctness families, in the order a mistake is met: parse, API server, CEL compile,
#: references, extended resources, scheduling.
_PRECEDENCE = ("YAML", "API", "CEL", "REF", "EXT", "SCH")


@functools.cache
def _family(rule: str) -> str:
    return rule.rstrip("0123456789")


#: Records one message may have before ``_each_once`` looks them up by hash instead of in a list.
_LISTED = 8


def _each_once(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """``list(dict.fromkeys(diagnostics))``, comparing whole records only among those with one
    message: hashing a record hashes all its fields, in Python.

    The table is keyed by the message, a string the record already holds: nearly every message
    names its object, so almost every key has one record, and the table costs no object of its
    own per finding (this runs for the largest file at the run's peak of memory). A message
    many records share (a constant one, at many places) gets a set once it has ``_LISTED``.
    """
    seen: dict[str, Diagnostic | list[Diagnostic] | set[Diagnostic]] = {}
    out: list[Diagnostic] = []
    for diag in diagnostics:
        same = seen.get(diag.message)
        if same is None:
            seen[diag.message] = diag
        elif isinstance(same, Diagnostic):
            if diag == same:
                continue
            seen[diag.message] = [same, diag]
        elif diag in same:
            continue
        elif isinstance(same, list):
            same.append(diag)
            if len(same) > _LISTED:
                seen[diag.message] = set(same)
        else:
            same.add(diag)
        out.append(diag)
    return out


def _note(diag: Diagnostic) -> Related:
    return Related(diag.span, f"also: {diag.message} [{diag.rule}]")


def _merge(kept: Diagnostic, dropped: list[Diagnostic], note: Callable[[Diagnostic], Related]) -> Diagnostic:
    return dataclasses.replace(kept, related=kept.related + tuple(note(d) for d in dropped)) if dropped else kept


def _same_span(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    groups: dict[tuple, list[Diagnostic]] = {}
    for diag in diagnostics:
        if _family(diag.rule) in _PRECEDENCE:
            groups.setdefault((diag.span, diag.object), []).append(diag)
        else:
            out.append(diag)
    for group in groups.values():
        families = {_family(d.rule) for d in group}
        if len(families) < 2:
            out.extend(group)
            continue
        best = min(group, key=lambda d: (-d.severity.rank, _PRECEDENCE.index(_family(d.rule)), d.rule))
        kept = [d for d in group if _family(d.rule) == _family(best.rule)]
        dropped = [d for d in group if _family(d.rule) != _family(best.rule)]
        out.extend(_merge(d, dropped, _note) if d is best else d for d in kept)
    return out


def one_file(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of one file, given in the order the run made them, each once, with
    repeated reports of one mistake merged (see the module docstring), in report order. A
    mistake is in one file, so merging never crosses files (``lint.assembly`` finishes each
    file on its own).

    Repeats are dropped in the order the run made the diagnostics, which does not depend on
    hashing or on ``--jobs``, so the choice among equal candidates is the same in every run.
    """
    unique = _same_span(_each_once(diagnostics))
    sort_one_file(unique)
    return unique
