"""The real-world corpus (skipped when absent): the whole run completes with valid JSON and no
traceback, and the documents its INDEX.md says do not parse are reported at their exact line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CORPUS, require

from dralint.cli.main import main

require(CORPUS / "INDEX.md", "the shared corpus")


def unparseable_files() -> list[Path]:
    """The files INDEX.md marks as not parsing (table rows saying 'does NOT parse')."""
    rows = [line for line in (CORPUS / "INDEX.md").read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    names = [re.match(r"\| `([^`]+)`", row).group(1) for row in rows if "does NOT parse" in row]
    return [CORPUS / name for name in names]


def first_content_after_end_marker(path: Path) -> tuple[int, int]:
    """1-based (line of the '...' marker, line of the first content after it), read directly."""
    lines = path.read_text(encoding="utf-8").splitlines()
    marker = next(i for i, line in enumerate(lines) if re.match(r"\.\.\.(\s|$)", line))
    content = next(
        i for i in range(marker + 1, len(lines)) if lines[i].strip() and not lines[i].lstrip().startswith("#")
    )
    return marker + 1, content + 1


@pytest.fixture(scope="module")
def report() -> dict:
    result = CliRunner().invoke(main, ["lint", "--format", "json", str(CORPUS)])
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    return json.loads(result.output)


def test_the_whole_corpus_is_linted(report):
    assert report["summary"]["files"] >= 200 and report["summary"]["objects"] >= 400
    assert not [d for d in report["diagnostics"] if d["rule"] == "INT001"]
    for diag in report["diagnostics"]:
        assert diag["line"] >= 1 and diag["column"] >= 1, diag


def test_the_unparseable_documents_are_reported_at_their_line(report):
    broken = unparseable_files()
    assert len(broken) == 2
    syntax = {d["path"]: d for d in report["diagnostics"] if d["rule"] == "YAML001"}
    assert set(syntax) == {str(p) for p in broken}
    for path in broken:
        marker, content = first_content_after_end_marker(path)
        diag = syntax[str(path)]
        assert (diag["line"], diag["column"]) == (content, 1)
        assert "'...'" in diag["message"]
        assert [(r["line"], r["column"]) for r in diag["related"]] == [(marker, 1)]
