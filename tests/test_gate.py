"""CI behaviour: baseline, --fail-on and --min-score gates with the summary naming the gate,
--format/--output pairing, GitHub annotations and JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import click
import pytest
from click.testing import CliRunner

from dralint.cli.main import main, report_targets
from dralint.lint.engine import lint
from dralint.lint.options import LintOptions

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
DUPLICATE = CM + "  name: again\n"


def invoke(*args):
    return CliRunner().invoke(main, ["lint", "--no-config", "--select", "YAML", *args])


def test_baseline_hides_known_findings_and_survives_edits_above(in_tmp):
    (in_tmp / "cm.yaml").write_text(DUPLICATE)
    written = invoke("--write-baseline", "base.json", "cm.yaml")
    assert written.exit_code == 0 and "wrote baseline base.json with 1 finding\n" in written.output
    recorded = json.loads((in_tmp / "base.json").read_text())
    assert recorded["version"] == 1 and [f["rule"] for f in recorded["findings"]] == ["YAML002"]

    (in_tmp / "cm.yaml").write_text("# moved down by a new header\n\n" + DUPLICATE)
    known = invoke("--baseline", "base.json", "cm.yaml")
    assert known.exit_code == 0, known.output
    assert "1 known finding hidden by the baseline" in known.stdout

    (in_tmp / "cm.yaml").write_text("# moved down by a new header\n\n" + DUPLICATE + "  namespace: a\n  namespace: b\n")
    new = invoke("--baseline", "base.json", "cm.yaml")
    assert new.exit_code == 1
    assert "cm.yaml:9:3: error: duplicate key 'namespace'" in new.stdout
    assert "duplicate key 'name'" not in new.stdout


@pytest.mark.parametrize("text", ["", DUPLICATE + "---\n" + CM.replace("settings", 'caf\u00e9-\\"q\\"')])
def test_the_baseline_written_by_templates_is_its_document_indented(in_tmp, text):
    import json

    from dralint.lint.baseline import baseline_document, baseline_texts

    (in_tmp / "cm.yaml").write_text(text or CM, encoding="utf-8")
    result = lint(LintOptions(paths=["cm.yaml"], profile="strict"))
    assert bool(result.diagnostics) == bool(text)
    written = "".join(baseline_texts(result.diagnostics, result.fingerprints))
    assert written == json.dumps(baseline_document(result.diagnostics, result.fingerprints), indent=2) + "\n"


def test_bad_baseline_is_a_usage_error(in_tmp):
    (in_tmp / "cm.yaml").write_text(CM)
    (in_tmp / "base.json").write_text("{not json")
    result = invoke("--baseline", "base.json", "cm.yaml")
    assert result.exit_code == 2 and "base.json:1:2: not a dralint baseline" in result.output
    assert invoke("--baseline", "missing.json", "cm.yaml").exit_code == 2
    (in_tmp / "base.json").write_text('{"version": 1, "fingerprint": "other/v9", "findings": []}')
    assert "write it again" in invoke("--baseline", "base.json", "cm.yaml").output


def test_min_score_gate_and_summary_name_the_failed_gate(in_tmp):
    (in_tmp / "cm.yaml").write_text(DUPLICATE)
    result = invoke("--fail-on", "never", "--min-score", "50", "cm.yaml")
    assert result.exit_code == 1
    assert result.stdout.strip().splitlines()[-1].endswith("score 16/100; FAILED --min-score 50 (score 16)")
    both = invoke("--min-score", "50", "cm.yaml")
    assert "FAILED --fail-on error (1 finding at error) and --min-score 50 (score 16)" in both.stdout
    (in_tmp / "cm.yaml").write_text(CM)
    assert invoke("--min-score", "100", "cm.yaml").exit_code == 0
    assert invoke("--min-score", "101", "cm.yaml").exit_code == 2


def test_summary_line_only_where_it_cannot_corrupt_a_report(in_tmp):
    (in_tmp / "cm.yaml").write_text(DUPLICATE)
    on_stdout = invoke("--format", "sarif", "cm.yaml")
    json.loads(on_stdout.output)  # stdout and stderr together are still one SARIF document
    to_file = invoke("--format", "sarif", "--output", "out.sarif", "cm.yaml")
    assert to_file.stdout.startswith("1 file, 1 object") and "FAILED --fail-on error" in to_file.stdout


def test_report_targets_pairing():
    assert report_targets([]) == [("text", None)]
    assert report_targets(["--format", "sarif", "--output", "a.sarif", "--format", "text"]) == [
        ("sarif", "a.sarif"),
        ("text", None),
    ]
    assert report_targets(["--output", "sarif=a.sarif", "--format=json"]) == [("sarif", "a.sarif"), ("json", None)]
    assert report_targets(["-o", "log.txt"]) == [("text", "log.txt")]
    assert report_targets(["-olog.txt", "--format", "junit"]) == [("junit", "log.txt")]
    assert report_targets(["--format", "github", "--", "--format"]) == [("github", None)]
    with pytest.raises(click.UsageError):
        report_targets(["--format", "sarif", "--format", "json"])


def test_two_reports_on_stdout_is_a_usage_error(in_tmp):
    (in_tmp / "cm.yaml").write_text(CM)
    result = invoke("--format", "sarif", "--format", "json", "cm.yaml")
    assert result.exit_code == 2 and "only one report can go to standard output" in result.output


def test_github_annotations(in_tmp):
    (in_tmp / "a, b.yaml").write_text(DUPLICATE)
    result = invoke("--format", "github", "a, b.yaml")
    first = result.stdout.splitlines()[0]
    assert first.startswith(
        "::error file=a%2C b.yaml,line=5,col=3,endLine=5,endColumn=6,title=YAML002 duplicate-key::duplicate key 'name'"
    )
    assert "%0Ahint: keep one of the two keys" in first
    assert result.stdout.splitlines()[-1].startswith("1 file, 1 object")


def test_github_annotations_escape_message_hint_and_title_as_one_text():
    from dralint.diagnostics import Diagnostic, Severity, Span
    from dralint.reporters.github import _data, _property, render

    odd = "50% of\r\nbell \a, colon: done"
    diag = Diagnostic("API007", "odd,name:x", Severity.WARNING, odd, Span("a.yaml", 300, 2, 301, 9), hint=odd)
    result = lint(LintOptions(paths=[]))
    result.diagnostics = [diag, diag]
    first, second = render(result).splitlines()[:2]
    expected = (
        f"::warning file=a.yaml,line=300,col=2,endLine=301,endColumn=9,title={_property('API007 odd,name:x')}"
        f"::{_data(odd + chr(10) + 'hint: ' + odd)}"
    )
    assert first == second == expected
    assert expected.endswith("::50%25 of%0D%0Abell \\x07, colon: done%0Ahint: 50%25 of%0D%0Abell \\x07, colon: done")


def test_junit_one_case_per_object_and_one_failure_per_finding(in_tmp):
    (in_tmp / "two.yaml").write_text(DUPLICATE + "---\n" + CM.replace("settings", "other"))
    (in_tmp / "broken.yaml").write_text("a: [\n")
    invoke("--format", "junit", "--output", "report.xml", ".")
    root = ET.parse(in_tmp / "report.xml").getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    two = suites["two.yaml"]
    cases = {c.get("name"): c for c in two.iter("testcase")}
    assert set(cases) == {"ConfigMap default/again", "ConfigMap default/other"}
    (failure,) = cases["ConfigMap default/again"].iter("failure")
    assert failure.get("type") == "YAML002 duplicate-key" and "two.yaml:5:3" in failure.text
    assert list(cases["ConfigMap default/other"]) == []
    broken = suites["broken.yaml"]
    assert [c.get("name") for c in broken.iter("testcase")] == ["(file)"]
    assert root.get("failures") == str(sum(int(s.get("failures")) for s in suites.values()))


def test_unwritable_output_is_a_clean_error(in_tmp):
    (in_tmp / "cm.yaml").write_text(CM)
    result = invoke("--format", "sarif", "--output", str(in_tmp / "missing-dir" / "out.sarif"), "cm.yaml")
    assert result.exit_code == 2 and "dralint: cannot write" in result.output
    assert isinstance(result.exception, SystemExit)


def test_context_that_contains_the_linted_file_loads_it_once(in_tmp):
    (in_tmp / "deploy").mkdir()
    (in_tmp / "deploy" / "changed.yaml").write_text(CM)
    (in_tmp / "deploy" / "other.yaml").write_text(CM.replace("settings", "other"))
    result = lint(LintOptions(paths=["deploy/changed.yaml"], context=["deploy"]))
    assert sorted((o.name, o.origin) for o in result.context.objects) == [("other", "context"), ("settings", "scan")]


def test_own_config_and_baseline_files_are_not_linted_as_manifests(in_tmp):
    (in_tmp / "cm.yaml").write_text(CM)
    (in_tmp / ".dralint.yaml").write_text("fail-on: info\n")
    (in_tmp / "base.json").write_text('{"version": 1, "fingerprint": "dralint/v1", "findings": []}')
    result = CliRunner().invoke(main, ["lint", "--select", "YAML", "--baseline", "base.json", "."])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "1 file, 1 object: 0 errors, 0 warnings, 0 infos; score 100/100"
