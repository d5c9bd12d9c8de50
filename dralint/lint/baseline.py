"""Baselines: adopt dralint on an existing repository and fail only on new findings.

The file records findings by fingerprint (see ``dralint.lint.fingerprint``), so a finding stays
"known" when unrelated lines above it change. Rule, path and message are stored only so a
reviewer can read the file; matching uses the fingerprint alone.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from json.encoder import encode_basestring_ascii as _string
from typing import Any

from dralint import __version__
from dralint.diagnostics import Diagnostic
from dralint.lint.fingerprint import FINGERPRINT_VERSION, normal_path

BASELINE_VERSION = 1


class BaselineError(ValueError):
    """A baseline file that cannot be used; the message says why."""


def baseline_document(diagnostics: list[Diagnostic], fingerprints: dict[Diagnostic, str]) -> dict[str, Any]:
    """The JSON written by ``--write-baseline``."""
    return {
        "version": BASELINE_VERSION,
        "fingerprint": FINGERPRINT_VERSION,
        "tool": {"name": "dralint", "version": __version__},
        "findings": [
            {"fingerprint": fingerprints[d], "rule": d.rule, "path": normal_path(d.span.path), "message": d.message}
            for d in diagnostics
        ],
    }


#: How ``baseline_document`` with no findings ends, indented: the findings go between the brackets.
_NO_FINDINGS_END = "[]\n}"


def baseline_texts(diagnostics: list[Diagnostic], fingerprints: dict[Diagnostic, str]) -> Iterator[str]:
    """``json.dumps(baseline_document(diagnostics, fingerprints), indent=2)`` and a line break,
    in pieces: the head, then each finding written by a template.

    With ``indent`` the standard library encodes through its pure-Python encoder, one
    generator step per value: writing the baseline of 64,000 findings took 1.9 s more than the
    run's text report, and held the whole document. Only the strings are encoded here, in C,
    each file's path once.
    """
    head = json.dumps(baseline_document([], fingerprints), indent=2)
    if not diagnostics:
        yield head + "\n"
        return
    yield head[: -len(_NO_FINDINGS_END) + 1] + "\n"
    paths: dict[str, str] = {}
    separator = ""
    for diag in diagnostics:
        path = paths.get(diag.span.path)
        if path is None:
            path = paths[diag.span.path] = _string(normal_path(diag.span.path))
        yield (
            f'{separator}    {{\n      "fingerprint": {_string(fingerprints[diag])},\n'
            f'      "rule": {_string(diag.rule)},\n'
            f'      "path": {path},\n      "message": {_string(diag.message)}\n    }}'
        )
        separator = ",\n"
    yield "\n  ]\n}\n"


def read_baseline(path: str) -> Counter[str]:
    """The fingerprints recorded in ``path``, with multiplicity."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        raise BaselineError(f"cannot read baseline {path}: {error.strerror or error}") from error
    except json.JSONDecodeError as error:
        raise BaselineError(f"{path}:{error.lineno}:{error.colno}: not a dralint baseline: {error.msg}") from error
    except UnicodeDecodeError as error:
        raise BaselineError(f"{path}: not a dralint baseline: not UTF-8 text ({error.reason})") from error
    if (
        not isinstance(data, dict)
        or data.get("version") != BASELINE_VERSION
        or not isinstance(data.get("findings"), list)
    ):
        raise BaselineError(
            f"{path}: not a version {BASELINE_VERSION} dralint baseline (write one with --write-baseline)"
        )
    if data.get("fingerprint") != FINGERPRINT_VERSION:
        raise BaselineError(
            f"{path}: written with fingerprint recipe {data.get('fingerprint')!r}, this dralint uses "
            f"{FINGERPRINT_VERSION!r}; write it again"
        )
    known: Counter[str] = Counter()
    for entry in data["findings"]:
        if isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str):
            known[entry["fingerprint"]] += 1
    return known


def split_known(
    diagnostics: list[Diagnostic], fingerprints: dict[Diagnostic, str], known: Counter[str]
) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(new, known): each baseline entry hides at most one finding."""
    left = Counter(known)
    new: list[Diagnostic] = []
    hidden: list[Diagnostic] = []
    for diag in diagnostics:
        mark = fingerprints[diag]
        if left[mark] > 0:
            left[mark] -= 1
            hidden.append(diag)
        else:
            new.append(diag)
    return new, hidden
