"""Reporters format a finished run; they compute nothing (the run already holds every figure)."""

from __future__ import annotations

import importlib
from typing import Callable

from dralint.lint.engine import RunResult

Reporter = Callable[[RunResult, bool], str]


def reporter(name: str) -> Reporter:
    """The formatting function for ``--format name``; only that reporter's module is imported."""
    modules = {"text": "text", "json": "json_report", "sarif": "sarif", "github": "github", "junit": "junit"}
    render: Reporter = importlib.import_module(f"dralint.reporters.{modules[name]}").render
    return render


FORMATS = ("text", "json", "sarif", "github", "junit")
