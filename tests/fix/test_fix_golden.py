"""Golden files: each case under golden/ is an input and the exact bytes `dralint fix` makes of it.

The expected files were produced by the fixer and then read line by line against the v1beta1 ->
v1 mapping (dra-api.md §5) before being committed; the test keeps them from drifting. Fixing an
expected file again must change nothing (idempotence).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dralint.fix.runner import fix_bytes
from dralint.lint.options import LintOptions

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if p.is_dir())
#: Cases whose point is that the file stays as it is.
UNCHANGED = {"unchanged-v1", "rejected-typo"}


def _fix(case: Path, tmp_path: Path, which: str):
    source = next(case.glob(f"{which}.*"))
    target = tmp_path / f"manifest{source.suffix}"
    target.write_bytes(source.read_bytes())
    return fix_bytes(str(target), target.read_bytes(), LintOptions(profile="strict")), source


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_fix_matches_golden(case: Path, tmp_path: Path) -> None:
    outcome, source = _fix(case, tmp_path, "input")
    expected = (case / f"expected{source.suffix}").read_bytes()
    assert outcome.fixed == expected
    assert outcome.problem is None
    if case.name in UNCHANGED:
        assert outcome.fixed == source.read_bytes()
    else:
        assert outcome.applied and outcome.fixed != source.read_bytes()


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_fixing_twice_changes_nothing(case: Path, tmp_path: Path) -> None:
    outcome, source = _fix(case, tmp_path, "expected")
    assert outcome.fixed == source.read_bytes()
    assert not outcome.applied


def test_rejected_fix_is_reported(tmp_path: Path) -> None:
    outcome, _ = _fix(GOLDEN / "rejected-typo", tmp_path, "input")
    assert [(r.rule, r.line, r.column) for r in outcome.rejected] == [("API001", 11, 9)]
    assert "API002" in outcome.rejected[0].reason and "count" in outcome.rejected[0].reason


def test_format_facts_survive(tmp_path: Path) -> None:
    crlf, _ = _fix(GOLDEN / "crlf-claim", tmp_path, "input")
    assert crlf.fixed.count(b"\r\n") == crlf.fixed.count(b"\n") and b"exactly:\r\n" in crlf.fixed
    bom, _ = _fix(GOLDEN / "bom-deviceclass", tmp_path, "input")
    assert bom.fixed.startswith(b"\xef\xbb\xbfapiVersion: resource.k8s.io/v1\n")
