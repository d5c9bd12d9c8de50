"""Stable identities for findings, shared by SARIF ``partialFingerprints`` and the baseline.

A fingerprint must not change when lines are added above a finding, or code scanning reopens
every alert and a baseline stops matching after any edit. So it hashes what the finding is
about (rule, file, object, field, message) and never its line or column. Findings without an
object or field (YAML-level problems) use the text of their line instead, which moves with
the finding. Identical findings in one file are told apart by their order of occurrence.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable

from dralint.diagnostics import Diagnostic, in_report_order
from dralint.yaml.loader import SourceText

#: Bump when the recipe changes, so old baselines are recognisably stale instead of silently wrong.
FINGERPRINT_VERSION = "dralint/v1"


def normal_path(path: str) -> str:
    """The path as the same file is named from any invocation: relative to cwd, '/'-separated."""
    if path.startswith("<"):
        return path
    try:
        rel = os.path.relpath(os.path.abspath(path))
    except ValueError:  # another drive on Windows
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")


def _identity(diag: Diagnostic, sources: dict[str, SourceText], paths: dict[str, str]) -> str:
    if diag.span.path not in paths:
        paths[diag.span.path] = normal_path(diag.span.path)
    parts = [diag.rule, paths[diag.span.path], diag.message]
    if diag.object is not None:
        obj = diag.object
        parts += [obj.api_version, obj.kind, obj.namespace or "", obj.name]
    if diag.field:
        parts.append(diag.field)
    else:
        source = sources.get(diag.span.path)
        parts.append(source.line_text(diag.span.line).strip() if source else "")
    return "\x1f".join(parts)


def fingerprints(diagnostics: Iterable[Diagnostic], sources: dict[str, SourceText]) -> dict[Diagnostic, str]:
    """``{diagnostic: "hash:occurrence"}`` for every diagnostic, in report order."""
    import hashlib  # only SARIF and baselines ask for fingerprints: a plain run does not load it

    seen: Counter[str] = Counter()
    out: dict[Diagnostic, str] = {}
    paths: dict[str, str] = {}
    for diag in in_report_order(diagnostics):
        digest = hashlib.sha256(_identity(diag, sources, paths).encode("utf-8")).hexdigest()[:32]
        seen[digest] += 1
        out[diag] = f"{digest}:{seen[digest]}"
    return out
