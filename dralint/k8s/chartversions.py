"""Helm chart version constraints, as Helm, Flux and Argo CD read them.

A `Chart.yaml` dependency's `version`, a Flux HelmRelease's `spec.chart.spec.version` and an
Argo CD Application's `targetRevision` for a Helm chart may each be a range (`25.8.x`,
`~25.8.0`, `>=25.3.0 <25.12.0`) as well as one version; all three are read with the Go library
github.com/Masterminds/semver/v3 (v3.5.0, `constraints.go`, the version helm v3.22.0 requires).
Its rules, written again here for the versions a driver catalog holds (releases, never
pre-releases):

* `||` separates alternatives; inside one, comparisons separated by spaces or commas must
  all hold. `A - B` means `>= A <= B`.
* A comparison is an operator (none or `=`, `!=`, `>`, `<`, `>=`/`=>`, `<=`/`=<`, `~`/`~>`,
  `^`) and a version of one to three numbers with an optional `v` and pre-release; a missing
  or wildcard (`x`, `X`, `*`) part makes it "dirty" at that level, read as 0 except where an
  operator says otherwise: `=` on a dirty version is `~`, `> 1.2.x` is `>= 1.3.0`, `<= 1.x`
  is `< 2`.
* `~1.2.3` is `>= 1.2.3 < 1.3.0` (`~1` is `>= 1 < 2`); `^1.2.3` is `>= 1.2.3 < 2.0.0`, and
  below 1.0.0 the first non-zero part is the one that must stay (`^0.2.3` is `< 0.3.0`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from dralint.k8s.semver import SemverError, parse_semver

__all__ = ["matching"]

_PART = r"[0-9]+|[xX*]"
_VERSION = rf"v?({_PART})(?:\.({_PART}))?(?:\.({_PART}))?(-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?"
_OPERATOR = r"=>|=<|>=|<=|!=|~>|[=<>~^]|"
_COMPARISON = re.compile(rf"({_OPERATOR})\s*({_VERSION})")
_SEPARATOR = re.compile(r"\s*,\s*|\s+")
_HYPHEN = re.compile(rf"({_VERSION})\s+-\s+({_VERSION})")
#: The library's own bound on a constraint's length (``MaxConstraintLen``).
_MAX_LENGTH = 256


class _Bound(NamedTuple):
    """A comparison's version: numbers, whether it has a pre-release, and its dirty levels."""

    numbers: tuple[int, int, int]
    pre: bool
    dirty: bool  # some part missing or a wildcard
    minor_dirty: bool  # the minor (and so the patch) part
    patch_dirty: bool  # the patch part only


Release = tuple[int, int, int]


def _wild(part: str | None) -> bool:
    return part is None or part in ("x", "X", "*")


def _bound(major: str, minor: str | None, patch: str | None, pre: str | None) -> _Bound:
    if _wild(major):
        return _Bound((0, 0, 0), bool(pre), True, False, False)
    if _wild(minor):
        return _Bound((int(major), 0, 0), bool(pre), True, True, False)
    if _wild(patch):
        return _Bound((int(major), int(minor or 0), 0), bool(pre), True, False, True)
    return _Bound((int(major), int(minor or 0), int(patch or 0)), bool(pre), False, False, False)


def _at_least(v: Release, c: _Bound) -> bool:
    """``v >= c`` by semver precedence: a release ranks above a pre-release of its numbers."""
    return v >= c.numbers


def _equal(v: Release, c: _Bound) -> bool:
    return v == c.numbers and not c.pre


def _tilde(v: Release, c: _Bound) -> bool:
    if not _at_least(v, c):
        return False
    if c.numbers == (0, 0, 0) and not c.minor_dirty and not c.patch_dirty:
        return True
    return v[0] == c.numbers[0] and (c.minor_dirty or v[1] == c.numbers[1])


def _caret(v: Release, c: _Bound) -> bool:
    major, minor, patch = c.numbers
    if not _at_least(v, c):
        return False
    if major > 0 or c.minor_dirty:
        return v[0] == major
    if v[0] > 0:
        return False
    if minor > 0 or c.patch_dirty:
        return v[1] == minor
    return v[1] == 0 and v[2] == patch


def _not_equal(v: Release, c: _Bound) -> bool:
    if not c.dirty:
        return not _equal(v, c)
    if v[0] != c.numbers[0]:
        return True
    if c.minor_dirty:
        return False
    if v[1] != c.numbers[1] or (not c.patch_dirty and v[2] != c.numbers[2]):
        return True
    return c.pre  # the same numbers: only a pre-release bound differs from them


def _greater(v: Release, c: _Bound) -> bool:
    if not c.dirty or (v[0] == c.numbers[0] and not c.minor_dirty and not c.patch_dirty):
        return _at_least(v, c) and not _equal(v, c)
    if v[0] != c.numbers[0] or c.minor_dirty:
        return v[0] > c.numbers[0]
    return v[1] > c.numbers[1]


def _at_most(v: Release, c: _Bound) -> bool:
    if not c.dirty:
        return not _at_least(v, c) or _equal(v, c)
    if v[0] != c.numbers[0]:
        return v[0] < c.numbers[0]
    return c.minor_dirty or v[1] <= c.numbers[1]


_OPERATIONS: dict[str, Callable[[Release, _Bound], bool]] = {
    "": lambda v, c: _tilde(v, c) if c.dirty else _equal(v, c),
    "!=": _not_equal,
    ">": _greater,
    "<": lambda v, c: not _at_least(v, c),
    ">=": _at_least,
    "<=": _at_most,
    "~": _tilde,
    "^": _caret,
}
_SPELLINGS = {"=": "", "=>": ">=", "=<": "<=", "~>": "~"}

Comparison = tuple[Callable[[Release, _Bound], bool], _Bound]


def _alternative(text: str) -> list[Comparison] | None:
    """The comparisons that must all hold; None when ``text`` is no list of them."""
    text = _HYPHEN.sub(lambda m: f">= {m.group(1)} <= {m.group(6)}", text)
    comparisons: list[Comparison] = []
    position = 0
    text = text.strip()
    while position < len(text):
        if comparisons:
            gap = _SEPARATOR.match(text, position)
            if gap is None:
                return None
            position = gap.end()
        found = _COMPARISON.match(text, position)
        if found is None or found.end() == position:
            return None
        operator = _SPELLINGS.get(found.group(1), found.group(1))
        comparisons.append((_OPERATIONS[operator], _bound(*found.group(3, 4, 5, 6))))
        position = found.end()
    return comparisons or None


def matching(constraint: str, versions: Iterable[str]) -> list[str] | None:
    """The ``versions`` (release versions such as ``25.8.0``) that satisfy ``constraint``, in
    their order; None when ``constraint`` is no constraint the library would accept."""
    if len(constraint) > _MAX_LENGTH:
        return None
    alternatives = [_alternative(part) for part in constraint.split("||")]
    if any(a is None for a in alternatives):
        return None
    kept = []
    for version in versions:
        try:
            parsed = parse_semver(version.lstrip("v"))
        except SemverError:
            continue
        if parsed.pre:
            continue  # a catalog holds releases (the library would judge these by other rules)
        release = (parsed.major, parsed.minor, parsed.patch)
        if any(all(test(release, bound) for test, bound in a or ()) for a in alternatives):
            kept.append(version)
    return kept
