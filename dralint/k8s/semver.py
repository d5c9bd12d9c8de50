"""Semantic versions as the Kubernetes CEL semver library sees them.

DRA ``version`` attributes become Semver values in selectors, compared with
``semver("1.2.3")``.  Kubernetes parses them with ``github.com/blang/semver/v4``:

* ``Parse`` is strict semver 2.0.0: exactly ``MAJOR.MINOR.PATCH``, no leading zeros in numeric
  parts or numeric pre-release identifiers, identifiers limited to ``[0-9A-Za-z-]``, no empty
  identifiers, numbers are uint64.  A leading ``v`` is an error.
* ``semver(s, true)`` normalizes first (``normalizeAndParse`` in the apiserver): a leading ``v``
  is dropped, leading zeros in the first three dot-separated parts are removed, and a missing
  minor or patch becomes 0 (a short version must not carry ``-`` or ``+``).
* Precedence (``compareTo``): major, minor, patch numerically; a version without pre-release
  ranks above one with it; pre-release identifiers compare left to right, numeric ones
  numerically and below alphanumeric ones, alphanumeric ones by byte order, and a shorter list
  that is a prefix ranks lower.  Build metadata is ignored, also by ``==``.
"""

from __future__ import annotations

import functools

__all__ = ["Semver", "SemverError", "parse_semver", "is_semver"]

_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
_UINT64_MAX = 2**64 - 1


class SemverError(ValueError):
    """Raised for a string the Kubernetes semver library rejects."""


@functools.total_ordering
class Semver:
    """A parsed version; equality and order follow semver precedence (build ignored)."""

    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(
        self, major: int, minor: int, patch: int, pre: tuple[int | str, ...] = (), build: tuple[str, ...] = ()
    ) -> None:
        self.major = major
        self.minor = minor
        self.patch = patch
        self.pre = pre
        self.build = build

    def compare(self, other: Semver) -> int:
        """-1, 0 or 1 by semver precedence (``Version.Compare``)."""
        left = (self.major, self.minor, self.patch)
        right = (other.major, other.minor, other.patch)
        if left != right:
            return -1 if left < right else 1
        if not self.pre or not other.pre:
            return (not self.pre) - (not other.pre)
        for a, b in zip(self.pre, other.pre, strict=False):
            result = _compare_identifier(a, b)
            if result:
                return result
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self.compare(other) == 0

    def __lt__(self, other: Semver) -> bool:
        return self.compare(other) < 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def precedence_key(self) -> str:
        """The version without build metadata: equal keys mean equal precedence."""
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(p) for p in self.pre)
        return text

    def __str__(self) -> str:
        return self.precedence_key() + ("+" + ".".join(self.build) if self.build else "")

    def __repr__(self) -> str:
        return f"Semver({str(self)!r})"


def _compare_identifier(a: int | str, b: int | str) -> int:
    a_num, b_num = isinstance(a, int), isinstance(b, int)
    if a_num != b_num:
        return -1 if a_num else 1
    if a_num:
        return (a > b) - (a < b)  # type: ignore[operator]
    a_bytes, b_bytes = str(a).encode(), str(b).encode()
    return (a_bytes > b_bytes) - (a_bytes < b_bytes)


def _number(text: str, what: str) -> int:
    if not text or not set(text) <= _NUMBERS:
        raise SemverError(f"Invalid character(s) found in {what} number {text!r}")
    if len(text) > 1 and text[0] == "0":
        raise SemverError(f"{what.capitalize()} number must not contain leading zeroes {text!r}")
    value = int(text)
    if value > _UINT64_MAX:
        raise SemverError(f"{what} number {text!r} is out of range")
    return value


def _prerelease(text: str) -> int | str:
    if not text:
        raise SemverError("Prerelease is empty")
    if set(text) <= _NUMBERS:
        if len(text) > 1 and text[0] == "0":
            raise SemverError(f"Numeric PreRelease version must not contain leading zeroes {text!r}")
        return int(text)
    if set(text) <= _ALPHANUM:
        return text
    raise SemverError(f"Invalid character(s) found in prerelease {text!r}")


@functools.lru_cache(maxsize=4096)
def parse_semver(text: str, normalize: bool = False) -> Semver:
    """``semver(text)`` or, with normalize, ``semver(text, true)``; raises SemverError."""
    if not isinstance(text, str):
        raise SemverError("Version string must be a string")
    if normalize:
        text = _normalize(text)
    if not text:
        raise SemverError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    major = _number(parts[0], "major")
    minor = _number(parts[1], "minor")
    rest = parts[2]
    build: tuple[str, ...] = ()
    pre: tuple[int | str, ...] = ()
    if "+" in rest:
        rest, build_text = rest.split("+", 1)
        build = tuple(build_text.split("."))
        for item in build:
            if not item:
                raise SemverError("Build meta data is empty")
            if not set(item) <= _ALPHANUM:
                raise SemverError(f"Invalid character(s) found in build meta data {item!r}")
    if "-" in rest:
        rest, pre_text = rest.split("-", 1)
        pre = tuple(_prerelease(p) for p in pre_text.split("."))
    patch = _number(rest, "patch")
    return Semver(major, minor, patch, pre, build)


def _normalize(text: str) -> str:
    """The apiserver's ``normalizeAndParse`` rewriting, before the strict parse."""
    if text.startswith("v"):
        text = text[1:]
    parts = text.split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            stripped = part.lstrip("0")
            if not stripped or stripped[0] not in _NUMBERS:
                stripped = "0" + stripped
            parts[i] = stripped
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts.extend("0" for _ in range(3 - len(parts)))
    return ".".join(parts)


def is_semver(text: str, normalize: bool = False) -> bool:
    """``isSemver(text)`` / ``isSemver(text, true)``."""
    try:
        parse_semver(text, normalize)
    except SemverError:
        return False
    return True
