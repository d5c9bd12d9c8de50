"""Text meant for a terminal or a CI log: what must not reach it raw."""

from __future__ import annotations

import re

#: C0 controls other than tab and line feed, DEL, and C1 controls: a terminal acts on them;
#: bidirectional overrides and isolates reorder the text around them.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with control characters written as ``\\xNN``, for terminals and logs.

    A manifest (or a rule example) may hold NUL, ESC or a carriage return; printed raw they
    corrupt the terminal or hide text, so every human-readable output escapes them.
    """
    if text.isprintable():  # every character _CONTROL matches is non-printable: nothing to escape
        return text
    return _CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )
