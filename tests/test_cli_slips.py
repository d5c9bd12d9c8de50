"""Slips that used to turn the gate off silently (issue 20): each is a usage error or a finding now."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from dralint.cli.main import main
from dralint.k8s.features import DRA_GATES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PRIVILEGED = """apiVersion: v1
kind: Pod
metadata: {name: p, namespace: a}
spec:
  containers:
  - name: c
    image: registry.example/app:1.0
    securityContext: {privileged: true}
"""


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_unknown_rule_selector_is_a_usage_error_with_a_suggestion(tmp_path, option):
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    result = invoke("lint", option, "SEC00", option, "REL0O1", str(tmp_path))
    assert result.exit_code == 2
    assert "'REL0O1' matches no dralint rule" in result.output
    assert "did you mean 'REL001'?" in result.output


def test_comma_separated_select_selects_each_rule(tmp_path):
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    together = invoke("lint", "--format", "json", "--select", "SEC001,SEC003,REL001", str(tmp_path))
    apart = invoke(
        "lint", "--format", "json", "--select", "SEC001", "--select", "SEC003", "--select", "REL001", str(tmp_path)
    )
    assert together.exit_code == apart.exit_code
    assert together.output == apart.output
    assert '"rule": "' in together.output


def test_comma_separated_ignore_drops_each_rule(tmp_path):
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    shown = invoke("lint", "--format", "json", "--profile", "strict", str(tmp_path)).output
    rules = sorted({line.split('"rule": "')[1].split('"')[0] for line in shown.splitlines() if '"rule": "' in line})
    assert len(rules) >= 2
    result = invoke("lint", "--format", "json", "--profile", "strict", "--ignore", ",".join(rules), str(tmp_path))
    assert result.exit_code == 0, result.output
    assert '"rule": "' not in result.output


def test_unknown_closed_world_kind_is_a_usage_error(tmp_path):
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    result = invoke("lint", "--closed-world", "DeviceClas", str(tmp_path))
    assert result.exit_code == 2
    assert "did you mean 'DeviceClass'?" in result.output
    assert invoke("lint", "--closed-world", "DeviceClass,Node", "--select", "REF", str(tmp_path)).exit_code == 0


def test_unknown_feature_gate_is_a_usage_error(tmp_path):
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    result = invoke("lint", "--feature-gates", "DRAPartitionableDevice=true", str(tmp_path))
    assert result.exit_code == 2
    assert "did you mean 'DRAPartitionableDevices'?" in result.output
    ok = invoke(
        "lint",
        "--select",
        "API",
        "--feature-gates",
        "DRAListTypeAttributes=true,DRADerivedAttributes=false",
        str(tmp_path),
    )
    assert ok.exit_code == 0, ok.output


def test_every_gate_the_code_reads_is_a_known_gate():
    root = Path(__file__).resolve().parent.parent
    import re

    used = set()
    for path in [*(root / "dralint").rglob("*.py"), root / "schemas" / "dra-overlay.yaml"]:
        used |= set(re.findall(r"\b(DRA[A-Z][a-z][A-Za-z]*|DynamicResourceAllocation)\b", path.read_text()))
    used -= {"DRADevice"}  # the CEL message type, not a gate
    assert used and used <= set(DRA_GATES)


def test_fix_rule_accepts_commas_and_suggests_a_rule(tmp_path):
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    wrong = invoke("fix", "--rule", "API001,API01", str(tmp_path))
    assert wrong.exit_code == 2
    assert "'API01' is not a dralint rule; did you mean 'API001'?" in wrong.output
    assert invoke("fix", "--diff", "--rule", "API001,API012", str(tmp_path)).exit_code == 0


def test_config_select_accepts_comma_lists(tmp_path):
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    (tmp_path / ".dralint.yaml").write_text("select: ['SEC001,REL001']\nignore: [BOGUS99]\n")
    result = invoke("lint", "--config", str(tmp_path / ".dralint.yaml"), "--format", "json", str(tmp_path / "pod.yaml"))
    assert "'SEC001,REL001'" not in result.output
    assert "'BOGUS99' matches no dralint rule" in result.output


def test_output_with_an_unknown_format_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    result = invoke("lint", "--output", "yaml=x.yaml", "pod.yaml")
    assert result.exit_code == 2
    assert "unknown format 'yaml'" in result.output
    assert not (tmp_path / "yaml=x.yaml").exists()
    assert invoke("lint", "--output", "./yaml=x.yaml", "pod.yaml").exit_code == 1
    assert (tmp_path / "yaml=x.yaml").read_text().startswith("pod.yaml:")


def test_unreadable_file_named_on_the_command_line_is_a_finding_and_the_run_goes_on(tmp_path, monkeypatch):
    """click's own readability check used to abort the run; the file is reported like any other."""
    import os

    import dralint.yaml.sources

    secret, good = tmp_path / "noperm.yaml", tmp_path / "good.yaml"
    secret.write_text(PRIVILEGED)
    good.write_text(PRIVILEGED)
    real_open, real_access = open, os.access

    def deny_open(path, *args, **kwargs):
        if str(path) == str(secret):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(dralint.yaml.sources, "open", deny_open, raising=False)
    monkeypatch.setattr(
        os, "access", lambda path, mode, *a, **k: str(path) != str(secret) and real_access(path, mode, *a, **k)
    )
    result = invoke("lint", "--format", "json", "--select", "YAML008,SEC001", str(secret), str(good))
    assert result.exit_code == 1, result.output
    assert f"cannot read {secret}: Permission denied" in result.output
    assert f'"path": "{good}"' in result.output


def _junit(output: str):
    import xml.etree.ElementTree as ET

    return ET.fromstring(output.split("\n", 1)[1])


def test_junit_verdict_agrees_with_the_exit_code(tmp_path):
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    (tmp_path / "values.yaml").write_text("replicas: 1\n")  # a Helm values file: one info finding
    below = invoke("lint", "--format", "junit", "--select", "YAML010,REL001", "--fail-on", "error", str(tmp_path))
    root = _junit(below.output)
    assert below.exit_code == 0
    assert root.get("failures") == "0"
    assert "Helm values file" in "".join(e.text or "" for e in root.iter("system-out"))
    gated = invoke("lint", "--format", "junit", "--select", "YAML010,REL001", "--fail-on", "info", str(tmp_path))
    assert gated.exit_code == 1
    assert int(_junit(gated.output).get("failures")) >= 1


def test_junit_fails_when_only_the_score_gate_fails(tmp_path):
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    result = invoke(
        "lint", "--format", "junit", "--select", "REL001", "--fail-on", "never", "--min-score", "100", str(tmp_path)
    )
    root = _junit(result.output)
    assert result.exit_code == 1
    assert root.get("failures") == "1"
    assert [f.get("message") for f in root.iter("failure")] == [next(iter(root.iter("failure"))).get("message")]
    assert "--min-score 100" in next(iter(root.iter("failure"))).get("message")


def test_write_baseline_says_what_it_wrote_and_reports_no_failed_gate(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    result = invoke("lint", "--select", "SEC001", "--write-baseline", "base.json", "pod.yaml")
    assert result.exit_code == 0
    assert "wrote baseline base.json with 1 finding\n" in result.output
    assert "FAILED" not in result.output


def test_sarif_links_to_no_page_that_does_not_exist(tmp_path):
    """No public home page exists, so neither informationUri nor helpUri is written (issue 20);
    the rule text travels in ``help``."""
    import json

    (tmp_path / "pod.yaml").write_text(PRIVILEGED)
    report = json.loads(invoke("lint", "--format", "sarif", "--select", "SEC001", str(tmp_path)).stdout)
    driver = report["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver
    assert driver["rules"] and all("helpUri" not in rule and rule["help"]["markdown"] for rule in driver["rules"])


def test_config_file_names_unknown_gates_and_kinds(tmp_path):
    from dralint.lint.config import load_config

    config = tmp_path / ".dralint.yaml"
    config.write_text("feature-gates: {DRAPartitionableDevice: true}\nclosed-world: [DeviceClas, Node]\n")
    loaded = load_config(str(config))
    messages = [(f.rule, f.span.line, f.message) for f in loaded.findings]
    assert [(rule, line) for rule, line, _ in messages] == [("CFG001", 1), ("CFG001", 2)]
    assert "did you mean 'DRAPartitionableDevices'?" in messages[0][2]
    assert "did you mean 'DeviceClass'?" in messages[1][2]
