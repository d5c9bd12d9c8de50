"""The official YAML test suite through dralint's loader (skipped when the suite is absent).

Every input must load without an exception; every input the suite marks invalid must give a
syntax finding at a line of the file; every valid input must give none, except the inputs
libyaml (a YAML 1.1 parser) rejects although YAML 1.2 allows them. Those are listed below with
the reason, and the test checks that they are still reported cleanly, inside the file.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import YAML_TEST_SUITE, require

from dralint.cli.main import main
from dralint.lint.engine import ENGINE_RULES
from dralint.yaml.loader import SourceText, load
from dralint.yaml.sources import SourceFile, decode

SUITE = YAML_TEST_SUITE

require(SUITE, "the YAML test suite")

EMPTY_KEY = "an empty implicit key (': value'), which YAML 1.1 and libyaml do not allow"
DIRECTIVE = "a reserved or future directive (%FOO, %YAML 1.3, %YAM), which libyaml refuses instead of ignoring"
COLON = "YAML 1.2's relaxed ':' rules (a plain scalar or anchor containing or starting with ':')"
FLOW_KEY = "a flow mapping key whose ':' or second line is on the next line, which libyaml refuses"
TAB = "a tab used as separation where 1.2 allows it (after indentation or before a flow node)"
MARKER = (
    "a document marker case libyaml handles differently ('...' without a document, bare document after '...', "
    "'%' at column 0 inside content)"
)
ZERO_INDENT = "a top-level block scalar with zero indentation"
UNICODE_ANCHOR = "an anchor name outside the characters libyaml accepts (an emoji)"

#: Valid YAML 1.2 inputs that libyaml rejects, with the reason. They must still be reported
#: cleanly (a syntax finding inside the file, no exception).
LIBYAML_REJECTS = {
    "2JQS": EMPTY_KEY,
    "6M2F": EMPTY_KEY,
    "NHX8": EMPTY_KEY,
    "NKF9": EMPTY_KEY,
    "S3PD": EMPTY_KEY,
    "SM9W/01": EMPTY_KEY,
    "UKK6/00": EMPTY_KEY,
    "M2N8/00": EMPTY_KEY,
    "CFD4": EMPTY_KEY,
    "FRK4": EMPTY_KEY,
    "2LFX": DIRECTIVE,
    "6LVF": DIRECTIVE,
    "MUS6/05": DIRECTIVE,
    "MUS6/06": DIRECTIVE,
    "BEC7": DIRECTIVE,
    "2SXE": COLON,
    "4ABK": COLON,
    "58MP": COLON,
    "5T43": COLON,
    "DBG4": COLON,
    "HM87/00": COLON,
    "W5VH": COLON,
    "4MUZ/00": FLOW_KEY,
    "4MUZ/01": FLOW_KEY,
    "4MUZ/02": FLOW_KEY,
    "5MUD": FLOW_KEY,
    "K3WX": FLOW_KEY,
    "9SA2": FLOW_KEY,
    "NJ66": FLOW_KEY,
    "VJP3/01": FLOW_KEY,
    "6BCT": TAB,
    "6CA3": TAB,
    "96NN/00": TAB,
    "96NN/01": TAB,
    "A2M4": TAB,
    "DK95/00": TAB,
    "DK95/03": TAB,
    "DK95/04": TAB,
    "Q5MG": TAB,
    "R4YG": TAB,
    "Y79Y/001": TAB,
    "Y79Y/010": TAB,
    "7Z25": MARKER,
    "M7A3": MARKER,
    "HWV9": MARKER,
    "QT73": MARKER,
    "UT92": MARKER,
    "W4TN": MARKER,
    "DK3J": ZERO_INDENT,
    "FP8R": ZERO_INDENT,
    "8XYN": UNICODE_ANCHOR,
}

#: YAML syntax findings: libyaml's errors (YAML001), tabs (YAML003), and YAML 1.2 violations
#: that libyaml and Kubernetes accept (YAML012).
SYNTAX_RULES = ("YAML001", "YAML003", "YAML012")
SYNTAX_KINDS = {kind for kind, rule in ENGINE_RULES.items() if rule in SYNTAX_RULES}


def _cases() -> list[str]:
    return sorted(str(Path(folder).relative_to(SUITE)) for folder, _dirs, files in os.walk(SUITE) if "in.yaml" in files)


CASES = _cases()


def _load(case: str):
    folder = SUITE / case
    source = decode(str(folder / "in.yaml"), (folder / "in.yaml").read_bytes())
    assert isinstance(source, SourceFile), f"{case}: {source}"
    text = SourceText(source.path, source.text)
    return text, load(text)


def _syntax_findings(case: str) -> tuple[SourceText, list]:
    text, result = _load(case)
    return text, [p for p in result.problems if p.kind in SYNTAX_KINDS]


def _assert_inside(case: str, text: SourceText, problems: list) -> None:
    lines = len(text.line_starts)
    for problem in problems:
        assert 0 <= problem.line < lines, f"{case}: finding at line {problem.line + 1} of {lines}: {problem}"
        assert problem.column >= 0 and problem.message


def test_the_suite_is_complete_enough():
    invalid = [c for c in CASES if (SUITE / c / "error").exists()]
    assert len(CASES) > 300 and len(invalid) > 80


def test_the_exception_list_names_real_valid_cases():
    for case in LIBYAML_REJECTS:
        assert case in CASES and not (SUITE / case / "error").exists(), case


@pytest.mark.parametrize("case", [c for c in CASES if (SUITE / c / "error").exists()])
def test_invalid_input_is_reported_inside_the_file(case):
    text, problems = _syntax_findings(case)
    assert problems, f"{case} is invalid YAML but gave no syntax finding"
    _assert_inside(case, text, problems)


@pytest.mark.parametrize("case", [c for c in CASES if not (SUITE / c / "error").exists()])
def test_valid_input_has_no_syntax_finding(case):
    text, problems = _syntax_findings(case)
    if case in LIBYAML_REJECTS:
        assert problems, (
            f"{case} is listed as rejected by libyaml ({LIBYAML_REJECTS[case]}) but loads: remove it from the list"
        )
        _assert_inside(case, text, problems)
    else:
        assert not problems, f"{case} is valid YAML 1.2 but got {problems}"


def test_the_whole_suite_through_the_command_line():
    """Objects, checks and reporters see every odd document shape too: no crash, no INT001."""
    result = CliRunner().invoke(main, ["lint", "--verbose", "--format", "json", "--profile", "strict", str(SUITE)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    report = json.loads(result.stdout)
    # Inputs with no Kubernetes document are skipped quietly and only counted (--verbose).
    skipped = int(re.search(r"skipped (\d+) files? with no Kubernetes document", result.stderr).group(1))
    assert report["summary"]["files"] + skipped == len(CASES)
    assert not [d for d in report["diagnostics"] if d["rule"] == "INT001"]
    flagged = {
        str(Path(d["path"]).parent.relative_to(SUITE)) for d in report["diagnostics"] if d["rule"] in SYNTAX_RULES
    }
    assert {c for c in CASES if (SUITE / c / "error").exists()} <= flagged
