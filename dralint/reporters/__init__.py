"""Reporters format a finished run; they compute nothing (the run already holds every figure)."""

from __future__ import annotations

from typing import Callable

from dralint.lint.engine import RunResult

Reporter = Callable[[RunResult, bool], str]


def reporter(name: str) -> Reporter:
    """The formatting function for ``--format name``."""
    from dralint.reporters import github, json_report, junit, sarif, text

    table: dict[str, Reporter] = {
        "text": text.render,
        "json": json_report.render,
        "sarif": sarif.render,
        "github": github.render,
        "junit": junit.render,
    }
    return table[name]


FORMATS = ("text", "json", "sarif", "github", "junit")
