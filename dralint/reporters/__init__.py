"""Reporters format a finished run; they compute nothing (the run already holds every figure)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Iterable, Iterator
from itertools import islice
from typing import Any

from dralint.lint.engine import RunResult

Reporter = Callable[[RunResult, bool], str]
#: A reporter that hands its report over in pieces, so a large one is never whole in memory.
ChunkedReporter = Callable[[RunResult, bool], Iterable[str]]


_MODULES = {"text": "text", "json": "json_report", "sarif": "sarif", "github": "github", "junit": "junit"}


def reporter(name: str) -> Reporter:
    """The formatting function for ``--format name``; only that reporter's module is imported."""
    render: Reporter = importlib.import_module(f"dralint.reporters.{_MODULES[name]}").render
    return render


def chunked_reporter(name: str) -> ChunkedReporter:
    """Like ``reporter``, in pieces where the format's module writes them so (``chunks``)."""
    module = importlib.import_module(f"dralint.reporters.{_MODULES[name]}")
    pieces: ChunkedReporter | None = getattr(module, "chunks", None)
    if pieces is not None:
        return pieces
    whole = reporter(name)
    return lambda result, color: (whole(result, color),)


FORMATS = ("text", "json", "sarif", "github", "junit")


class RepeatedTexts(dict):
    """The text a reporter writes for a value that recurs across findings (a rule's hint, a
    field), written once per value: ``texts[value]``.

    A run repeats a few such values per rule, so the table stays small; a check whose values
    differ from finding to finding would grow it with the run, so it starts over past
    ``LIMIT`` values instead.
    """

    LIMIT = 1024

    def __init__(self, write: Callable[[Any], str]) -> None:
        super().__init__()
        self._write = write

    def __missing__(self, value: Hashable) -> str:
        if len(self) >= self.LIMIT:
            self.clear()
        text = self[value] = self._write(value)
        return text


#: Texts per piece of a report written in pieces (``joined``).
BATCH = 1000


def joined(texts: Iterable[str], separator: str = "") -> Iterator[str]:
    """``separator.join(texts)`` in pieces of ``BATCH`` texts (and the separators between them).

    Writing tens of thousands of small strings one by one costs more than joining them first;
    a piece of a thousand findings is still small beside the whole report.
    """
    pieces = iter(texts)
    batch = list(islice(pieces, BATCH))
    while batch:
        yield separator.join(batch)
        batch = list(islice(pieces, BATCH))
        if batch:
            yield separator
