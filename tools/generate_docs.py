"""Regenerate docs/rules.md from the rule catalog (tests fail when it is stale)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dralint.catalog import load_catalog  # noqa: E402
from dralint.docs import rules_markdown  # noqa: E402

TARGET = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def main() -> None:
    rules = sorted(load_catalog().values(), key=lambda r: r.id)
    TARGET.write_text(rules_markdown(rules), encoding="utf-8")
    print(f"wrote {TARGET} ({len(rules)} rules)")


if __name__ == "__main__":
    main()
