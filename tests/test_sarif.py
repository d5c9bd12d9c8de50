"""SARIF output: the official 2.1.0 schema, GitHub code scanning's profile, stable fingerprints."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import jsonschema
from click.testing import CliRunner
from conftest import CORPUS, require

from dralint.cli.main import main
from dralint.diagnostics import Severity
from dralint.fix.runner import fix_replacements
from dralint.lint.baseline import baseline_document
from dralint.lint.catalog import Rule
from dralint.lint.gate import lint_with_config
from dralint.lint.options import LintOptions
from dralint.reporters.sarif import chunks, document, rule_descriptor

REPO = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
DUPLICATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team-a\n  name: again\n"
_LEVELS = {"none", "note", "warning", "error"}


def schema_errors(log: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft4Validator(SCHEMA)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]


def _text(holder: Any, key: str) -> str | None:
    value = holder.get(key) if isinstance(holder, dict) else None
    return value.get("text") if isinstance(value, dict) else None


def github_problems(log: dict[str, Any]) -> list[str]:
    """What GitHub code scanning requires of an uploaded SARIF file (libraries.md §4)."""
    out: list[str] = []
    if not log.get("$schema") or log.get("version") != "2.1.0" or not isinstance(log.get("runs"), list):
        out.append("sarifLog needs $schema, version 2.1.0 and runs[]")
        return out
    if len(log["runs"]) != 1:
        out.append(
            f"one run per file (got {len(log['runs'])}); the CodeQL action rejects several runs with one category"
        )
    for run in log["runs"]:
        driver = run.get("tool", {}).get("driver", {})
        if not driver.get("name"):
            out.append("tool.driver.name is required and must not be empty")
        if not isinstance(driver.get("rules"), list):
            out.append("tool.driver.rules[] is required")
        if not isinstance(run.get("results"), list):
            out.append("run.results[] is required, even when empty")
        if not str(run.get("automationDetails", {}).get("id", "")).strip():
            out.append("runAutomationDetails.id should name the category")
        rules = driver.get("rules") or []
        ids = [r.get("id") for r in rules]
        if len(set(ids)) != len(ids):
            out.append("duplicate rule ids")
        for rule in rules:
            where = f"rule {rule.get('id')}"
            for key in ("shortDescription", "fullDescription", "help"):
                text = _text(rule, key)
                if not text or (key != "help" and len(text) > 1024):
                    out.append(f"{where}: {key}.text is required (1-1024 characters)")
            if len(rule.get("name", "")) > 255:
                out.append(f"{where}: name longer than 255")
            props = rule.get("properties", {})
            if len(props.get("tags", [])) > 20:
                out.append(f"{where}: more than 20 tags")
            if props.get("precision") not in (None, "very-high", "high", "medium", "low"):
                out.append(f"{where}: bad precision")
            if props.get("problem.severity") not in (None, "error", "warning", "recommendation"):
                out.append(f"{where}: bad problem.severity")
            sec = props.get("security-severity")
            if sec is not None and (not isinstance(sec, str) or not 0.1 <= float(sec) <= 10.0):
                out.append(f"{where}: security-severity must be a string from 0.1 to 10.0")
            if rule.get("defaultConfiguration", {}).get("level", "warning") not in _LEVELS:
                out.append(f"{where}: bad defaultConfiguration.level")
        for index, result in enumerate(run.get("results") or []):
            where = f"result {index} ({result.get('ruleId')})"
            if not _text(result, "message"):
                out.append(f"{where}: message.text is required")
            if result.get("ruleId") not in ids or ids.index(result["ruleId"]) != result.get("ruleIndex"):
                out.append(f"{where}: ruleId/ruleIndex do not point at the driver's rule")
            if result.get("level") not in _LEVELS:
                out.append(f"{where}: bad level")
            prints = result.get("partialFingerprints") or {}
            if not prints.get("primaryLocationLineHash"):
                out.append(
                    f"{where}: partialFingerprints.primaryLocationLineHash missing (API uploads duplicate alerts)"
                )
            locations = result.get("locations") or []
            if not locations:
                out.append(f"{where}: needs at least one location")
            for location in locations[:1] + [r for r in result.get("relatedLocations", [])]:
                physical = location.get("physicalLocation", {})
                uri = physical.get("artifactLocation", {}).get("uri", "")
                if not uri or uri.startswith("/") or ("://" in uri and not uri.startswith("file://")):
                    out.append(f"{where}: artifactLocation.uri must be repository-relative (or a file URI)")
                region = physical.get("region", {})
                for key in ("startLine", "startColumn", "endLine", "endColumn"):
                    if not isinstance(region.get(key), int) or region[key] < 1:
                        out.append(f"{where}: region.{key} must be a 1-based integer")
                if (region.get("endLine", 0), region.get("endColumn", 0)) < (
                    region.get("startLine", 0),
                    region.get("startColumn", 0),
                ):
                    out.append(f"{where}: region ends before it starts")
    return out


def sarif(*args: str) -> tuple[dict[str, Any], int]:
    result = CliRunner().invoke(main, ["lint", "--format", "sarif", *args])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout), result.exit_code


def test_examples_validate_against_the_official_schema_and_github(monkeypatch):
    monkeypatch.chdir(REPO)
    log, _ = sarif("--no-config", "examples/")
    assert schema_errors(log) == []
    assert github_problems(log) == []
    run = log["runs"][0]
    assert run["results"], "the examples hold at least one finding"
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert location["artifactLocation"]["uri"].startswith("examples/")
        assert ":" in result["partialFingerprints"]["primaryLocationLineHash"]


def test_result_region_related_locations_and_rule_descriptor(in_tmp):
    (in_tmp / "deploy").mkdir()
    (in_tmp / "deploy" / "cm.yaml").write_text(DUPLICATE)
    log, code = sarif("deploy")
    assert code == 1
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "YAML002" and result["level"] == "error"
    physical = result["locations"][0]["physicalLocation"]
    assert physical == {
        "artifactLocation": {"uri": "deploy/cm.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 6, "startColumn": 3, "endLine": 6, "endColumn": 7},
    }
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["region"]["startLine"] == 4
    assert related["message"]["text"] == "first defined here"
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == in_tmp.resolve().as_uri() + "/"
    (rule,) = log["runs"][0]["tool"]["driver"]["rules"]
    assert rule["id"] == "YAML002" and rule["name"] == "duplicate-key"
    assert rule["defaultConfiguration"]["level"] == "error"
    assert rule["properties"]["problem.severity"] == "error" and "yaml" in rule["properties"]["tags"]
    assert "## Why it matters" in rule["help"]["markdown"]
    assert schema_errors(log) == [] and github_problems(log) == []


def test_clean_run_still_has_results_and_rules_arrays(in_tmp):
    (in_tmp / "ok.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n")
    log, code = sarif("ok.yaml")
    assert code == 0
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []
    assert schema_errors(log) == [] and github_problems(log) == []


def test_fingerprints_survive_lines_added_above(in_tmp):
    (in_tmp / "cm.yaml").write_text(DUPLICATE)
    before, _ = sarif("cm.yaml")
    (in_tmp / "cm.yaml").write_text(
        "# a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n---\n" + DUPLICATE
    )
    after, _ = sarif("cm.yaml")
    (old,), (new,) = before["runs"][0]["results"], after["runs"][0]["results"]
    assert old["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
    assert new["locations"][0]["physicalLocation"]["region"]["startLine"] == 13
    assert old["partialFingerprints"] == new["partialFingerprints"]


def test_identical_findings_get_distinct_fingerprints(in_tmp):
    (in_tmp / "cm.yaml").write_text(DUPLICATE + "---\n" + DUPLICATE)
    log, _ = sarif("cm.yaml")
    prints = [r["partialFingerprints"]["primaryLocationLineHash"] for r in log["runs"][0]["results"]]
    assert len(prints) == 2 and len(set(prints)) == 2


def test_sarif_root_and_files_outside_it(in_tmp):
    (in_tmp / "repo" / "deploy").mkdir(parents=True)
    (in_tmp / "repo" / "deploy" / "cm.yaml").write_text(DUPLICATE)
    (in_tmp / "elsewhere.yaml").write_text(DUPLICATE)
    log, _ = sarif("--sarif-root", "repo", "repo", "elsewhere.yaml")
    uris = sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"])
    assert uris == ["deploy/cm.yaml", (in_tmp / "elsewhere.yaml").resolve().as_uri()]
    assert schema_errors(log) == [] and github_problems(log) == []


def test_suppressed_findings_are_reported_as_suppressions(in_tmp):
    (in_tmp / "a.yaml").write_text(
        DUPLICATE.replace("name: again", "name: again  # dralint: ignore[YAML002] old generator")
    )
    (in_tmp / "vendor").mkdir()
    (in_tmp / "vendor" / "b.yaml").write_text(DUPLICATE)
    (in_tmp / ".dralint.yaml").write_text("per-path-ignores:\n  vendor/*: [YAML002]\n")
    log, code = sarif(".")
    assert code == 0
    by_uri = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r for r in log["runs"][0]["results"]}
    assert by_uri["a.yaml"]["suppressions"] == [
        {"kind": "inSource", "status": "accepted", "justification": "old generator"}
    ]
    assert by_uri["vendor/b.yaml"]["suppressions"][0]["kind"] == "external"
    assert "vendor/*" in by_uri["vendor/b.yaml"]["suppressions"][0]["justification"]
    assert schema_errors(log) == [] and github_problems(log) == []


def test_security_rules_carry_security_severity():
    rule = Rule(
        id="SEC900",
        name="privileged-container",
        severity=Severity.ERROR,
        category="security",
        summary="s",
        rationale="r",
        fix="f",
        tags=("pod",),
        security_severity="8.5",
    )
    props = rule_descriptor(rule)["properties"]
    assert props["security-severity"] == "8.5" and "security" in props["tags"]
    assert props["problem.severity"] == "error" and props["precision"] == "high"


def test_github_profile_check_catches_what_peers_got_wrong():
    """The checker itself must reject the peer defects it exists for."""
    broken = {
        "$schema": "x",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "", "rules": [{"id": "R1", "shortDescription": {"text": "s"}}]}},
                "results": [
                    {
                        "ruleId": "R1",
                        "ruleIndex": 0,
                        "level": "warning",
                        "message": {"text": "m"},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": "a.yaml"},
                                    "region": {"startLine": 0, "startColumn": 1, "endLine": 1, "endColumn": 2},
                                }
                            }
                        ],
                    }
                ],
            }
        ],
    }
    problems = " | ".join(github_problems(broken))
    for expected in ("driver.name", "fullDescription", "startLine", "primaryLocationLineHash", "runAutomationDetails"):
        assert expected in problems


def test_every_format_writes_its_own_file_in_one_run(in_tmp):
    (in_tmp / "cm.yaml").write_text(DUPLICATE)
    result = CliRunner().invoke(
        main,
        [
            "lint",
            "cm.yaml",
            "--format",
            "sarif",
            "--output",
            "out.sarif",
            "--format",
            "text",
            "--output",
            "junit=report.xml",
            "--format",
            "json",
            "-o",
            "report.json",
        ],
    )
    assert result.exit_code == 1
    assert "cm.yaml:6:3: error" in result.stdout
    assert json.loads((in_tmp / "out.sarif").read_text())["version"] == "2.1.0"
    assert json.loads((in_tmp / "report.json").read_text())["version"] == 1
    assert (in_tmp / "report.xml").read_text().startswith("<?xml")


V1BETA1_CLASS = """\
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
"""


def test_fixable_findings_carry_their_edits_as_fixes(in_tmp):
    Path("class.yaml").write_text(V1BETA1_CLASS)
    log, _ = sarif("class.yaml")
    assert not schema_errors(log)
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "API012"]
    (fix,) = result["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "class.yaml"
    (replacement,) = change["replacements"]
    assert replacement["deletedRegion"]["startLine"] == 1
    assert replacement["insertedContent"]["text"].startswith("apiVersion: resource.k8s.io/v1\n")
    unfixable = [r for r in log["runs"][0]["results"] if r["ruleId"] != "API012"]
    assert all("fixes" not in r for r in unfixable)


#: A name with a quote, a backslash, a control character and non-ASCII letters, which SARIF
#: carries in messages and logical locations.
ODD_TEXT = (
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: team-a\n  name: "caf\\u00e9 \\"q\\" \\a \\\\ \\u2603"\n'
)


POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team-a}\nspec:\n  containers:\n"
    "  - {name: c, image: nginx:1.25}\n"
)


def written_and_as_data(options: LintOptions, fixes: bool = True) -> tuple[str, str]:
    """The log ``chunks`` writes, and ``document``'s data encoded as the log is (the CLI adds
    the fixes before writing)."""
    result = lint_with_config(options)
    if fixes:
        result = dataclasses.replace(result, fixes=fix_replacements(result))
    return "".join(chunks(result)), json.dumps(document(result), ensure_ascii=False, separators=(",", ":")) + "\n"


def test_the_log_written_by_templates_is_the_log_as_data(monkeypatch):
    monkeypatch.chdir(REPO)
    written, as_data = written_and_as_data(LintOptions(paths=["examples"], profile="strict", jobs=1))
    assert '"fixes":' in written and '"relatedLocations":' in written
    assert written == as_data


def test_the_corpus_log_written_by_templates_is_its_log_as_data():
    """Without fixes: making each of the corpus's 215 fixes alone takes half a minute."""
    require(CORPUS, "corpus")
    written, as_data = written_and_as_data(LintOptions(paths=[str(CORPUS)], profile="strict", jobs=1), fixes=False)
    assert written.count('"ruleId":') > 3000
    assert written == as_data


def test_suppressed_known_odd_and_outside_findings_are_written_as_their_data(in_tmp):
    (in_tmp / "repo").mkdir()
    (in_tmp / "repo" / "odd.yaml").write_text(ODD_TEXT, encoding="utf-8")
    (in_tmp / "repo" / "kept.yaml").write_text(
        DUPLICATE.replace("name: again", "name: again  # dralint: ignore[YAML002] generator")
    )
    (in_tmp / "repo" / "known.yaml").write_text(DUPLICATE + "---\n" + POD)  # findings with and without related places
    (in_tmp / "repo" / "class.yaml").write_text(V1BETA1_CLASS)
    (in_tmp / "elsewhere.yaml").write_text(DUPLICATE)
    known = lint_with_config(LintOptions(paths=["repo/known.yaml"], profile="strict"))
    (in_tmp / "baseline.json").write_text(json.dumps(baseline_document(known.diagnostics, known.fingerprints)))
    options = LintOptions(
        paths=["repo", "elsewhere.yaml"], sarif_root="repo", baseline="baseline.json", profile="strict"
    )
    written, as_data = written_and_as_data(options)
    results = json.loads(written)["runs"][0]["results"]
    assert {"inSource", "external"} <= {s["kind"] for r in results for s in r.get("suppressions", [])}
    assert any("suppressions" in r and "relatedLocations" not in r and "fixes" not in r for r in results)
    assert any("fixes" in r for r in results) and "caf\u00e9" in written and "\\u0007" in written
    assert written == as_data
