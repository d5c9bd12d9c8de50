"""The progress line of long runs, on stderr: files and documents read and the rate, then
objects checked (``lint``) or pod templates simulated (``simulate``).

Shown only where a person watches: stderr is a terminal, ``CI`` is not set and ``--quiet`` was
not given. It appears once a run has taken about two seconds, so quick runs never flicker,
and it is erased before the report is written.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TextIO

#: Seconds before the line first appears, and between two updates of it.
DELAY = 2.0
INTERVAL = 0.25


def wanted(stream: TextIO, quiet: bool) -> bool:
    """Whether a progress line belongs on ``stream``: a terminal, outside CI, not silenced."""
    return not quiet and not os.environ.get("CI") and bool(getattr(stream, "isatty", lambda: False)())


class ProgressLine:
    """Told by the engine how far it is (``dralint.lint.engine.Progress``); rewrites one line in
    place with a carriage return."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.start = clock()
        self.next_update = self.start + DELAY
        self.width = 0
        self.files = self.documents = 0

    def read(self, files: int, documents: int) -> None:
        self.files += files
        self.documents += documents
        now = self.clock()
        if now < self.next_update:
            return
        rate = self.documents / max(now - self.start, 1e-9)
        self._show(
            now,
            f"dralint: {self.files:,} file{'s' if self.files != 1 else ''}, {self.documents:,} documents, "
            f"{rate:,.0f} documents/s",
        )

    def checking(self, objects: int, total: int) -> None:
        self._count("checked", objects, total, "objects")

    def simulating(self, templates: int, total: int) -> None:
        """``dralint simulate``: pod templates simulated so far, of ``total``."""
        self._count("simulated", templates, total, "pod templates")

    def _count(self, verb: str, done: int, total: int, noun: str) -> None:
        now = self.clock()
        if now >= self.next_update:
            self._show(now, f"dralint: {verb} {done:,} of {total:,} {noun}")

    def _show(self, now: float, text: str) -> None:
        self.next_update = now + INTERVAL
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        """Erase the line, if one was shown, so the report starts on a clean line."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0
