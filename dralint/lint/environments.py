"""Environments: the clusters one run may hold, and which files belong to which.

A platform repository keeps several clusters in one tree (``clusters/prod``, ``envs/staging``,
Kustomize overlays over shared bases). Objects of two clusters never meet, so cross-object
checks are judged within each environment (``Context.view``). The environments come from the
config (``environments: {NAME: [GLOB, ...]}``) or, without that key, from the layout of the
paths (see ``docs/environments.md``). A file that no environment claims belongs to every
environment (a shared base, a ``--context`` or ``--slices`` file).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable

#: Directories whose subdirectories are environments or clusters.
ENVIRONMENT_PARENTS = frozenset({"clusters", "envs", "environments", "overlays"})
#: Directory names that name an environment when a sibling directory names one too.
ENVIRONMENT_WORDS = frozenset(
    {
        "canary",
        "demo",
        "dev",
        "development",
        "live",
        "preprod",
        "pre-prod",
        "prod",
        "production",
        "qa",
        "sandbox",
        "stage",
        "staging",
        "test",
        "testing",
        "uat",
    }
)
#: How a render's display path starts (``<kustomize build DIR>``, ``<helm template DIR>``).
_RENDERS = ("<kustomize build ", "<helm template ")

EVERYWHERE: frozenset[str] = frozenset()


class Environments:
    """The environments of a run and the ones each path belongs to (none: every one)."""

    __slots__ = ("names", "_of", "how")

    def __init__(self, of: dict[str, frozenset[str]], names: Iterable[str] = (), how: str = "") -> None:
        self._of = of
        self.names: tuple[str, ...] = tuple(sorted(set(names) | {n for s in of.values() for n in s}))
        #: How they were found: "config", "layout", or "" when the run is one environment.
        self.how = how

    @property
    def several(self) -> bool:
        return len(self.names) > 1

    def of(self, path: str) -> frozenset[str]:
        """The environments ``path`` belongs to; empty when it is shared by all of them."""
        return self._of.get(path, EVERYWHERE)

    def includes(self, path: str, name: str) -> bool:
        found = self.of(path)
        return not found or name in found


def _rendered(path: str) -> str | None:
    """The directory a render's display path names, or None for a file."""
    if path.endswith(">"):
        for start in _RENDERS:
            if path.startswith(start):
                return path[len(start) : -1]
    return None


def _normal(path: str) -> str:
    return os.path.normpath(_rendered(path) or path).replace(os.sep, "/")


def _glob_matches(pattern: str, path: str) -> bool:
    """``fnmatch`` with a pattern without wildcards also naming everything under it."""
    pattern = pattern.replace(os.sep, "/").rstrip("/")
    if pattern.endswith("/**"):
        base = pattern[:-3]
        if path == base or path.startswith(base + "/"):
            return True
    if not any(ch in pattern for ch in "*?["):
        return path == pattern or path.startswith(pattern + "/")
    return fnmatch.fnmatchcase(path, pattern)


def configured(paths: Iterable[str], patterns: dict[str, list[str]]) -> Environments:
    """Environments named in the config: a path belongs to every environment with a matching glob."""
    normal = {name: [os.path.normpath(p).replace(os.sep, "/") for p in globs] for name, globs in patterns.items()}
    of: dict[str, frozenset[str]] = {}
    for path in paths:
        shown = _normal(path)
        names = frozenset(name for name, globs in normal.items() if any(_glob_matches(g, shown) for g in globs))
        if names:
            of[path] = names
    return Environments(of, patterns, "config")


def _layout_name(parts: list[str], parents: dict[tuple[str, ...], set[str]]) -> str | None:
    """The environment a path's directories place it in: the first directory that is one of
    two or more siblings under an environments parent, or named like an environment beside
    another such sibling."""
    for depth, part in enumerate(parts):
        siblings = parents.get(tuple(parts[:depth]), set())
        if len(siblings) < 2 or part not in siblings:
            continue
        parent = parts[depth - 1] if depth else ""
        if parent.lower() in ENVIRONMENT_PARENTS or part.lower() in ENVIRONMENT_WORDS:
            return part
    return None


def from_layout(paths: Iterable[str]) -> Environments:
    """Environments recognised in the directory layout alone (see docs/environments.md)."""
    split = {path: _normal(path).split("/") for path in paths}
    renders = [path for path in split if _rendered(path) is not None]
    parents: dict[tuple[str, ...], set[str]] = {}
    for path, parts in split.items():
        directories = parts if path in renders else parts[:-1]
        for depth, part in enumerate(directories):
            parent = parts[depth - 1].lower() if depth else ""
            if parent in ENVIRONMENT_PARENTS or part.lower() in ENVIRONMENT_WORDS:
                parents.setdefault(tuple(parts[:depth]), set()).add(part)
    of: dict[str, frozenset[str]] = {}
    for path, parts in split.items():
        name = _layout_name(parts if path in renders else parts[:-1], parents)
        if name is None and path.startswith("<kustomize build") and len(renders) > 1:
            name = parts[-1]  # each overlay rendered in the run is a cluster of its own
        if name is not None:
            of[path] = frozenset({name})
    return Environments(of, how="layout") if len({n for s in of.values() for n in s}) > 1 else Environments({})


def environments(paths: Iterable[str], patterns: dict[str, list[str]]) -> Environments:
    """The run's environments: from the config when it names any, else from the layout."""
    return configured(paths, patterns) if patterns else from_layout(paths)


def tagged(message: str, names: Iterable[str]) -> str:
    """``message`` naming the environments it was found in."""
    listed = sorted(names)
    return f"{message} (environment{'s' if len(listed) > 1 else ''} {', '.join(listed)})"
