"""The slips of the platform-repository trial (issue 43), each with its test."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from dralint.cli.main import main
from dralint.lint.catalog import load_catalog
from dralint.lint.ruledocs import explain

ROOT = Path(__file__).resolve().parent.parent


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_explain_shows_what_tells_the_example_from_its_fix():
    text = explain(load_catalog()["EXT001"])
    example = text.split("## Example\n", 1)[1].split("## Use instead\n", 1)[0]
    instead = text.split("## Use instead\n", 1)[1].split("## How to fix\n", 1)[0]
    assert example != instead
    assert "extendedResourceName: vendor.example/gpu" in instead and "cluster state (`--slices`)" in instead


def test_no_rule_shows_the_same_text_as_example_and_use_instead():
    same = []
    for rule in load_catalog().values():
        text = explain(rule)
        if "## Use instead\n" in text and "## Example\n" in text:
            example = text.split("## Example\n", 1)[1].split("## Use instead\n", 1)[0]
            if example == text.split("## Use instead\n", 1)[1].split("## How to fix\n", 1)[0]:
                same.append(rule.id)
    assert same == []


def test_config_without_show_prints_help_and_exits_0():
    result = invoke("config")
    assert result.exit_code == 0 and "--show" in result.output


def test_summary_says_one_file_and_one_object(tmp_path):
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\n")
    result = invoke("lint", "--no-config", str(tmp_path / "a.yaml"))
    assert "1 file, 1 object:" in result.output


def test_fix_with_an_unknown_rule_has_no_doubled_semicolon(tmp_path):
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\n")
    result = invoke("fix", "--rule", "NOPE", str(tmp_path))
    assert result.exit_code == 2 and "'NOPE' is not a dralint rule; fixable rules:" in result.output
    assert ";;" not in result.output


def test_nothing_read_gives_no_score(tmp_path):
    missing = invoke("lint", "--no-config", str(tmp_path / "nonexistent.yaml"))
    assert missing.exit_code == 2 and "score" in missing.output and "/100" not in missing.output
    (tmp_path / "empty").mkdir()
    empty = invoke("lint", "--no-config", str(tmp_path / "empty"))
    assert empty.exit_code == 2 and "score 100/100" not in empty.output and "no score" in empty.output


def test_a_pss_level_from_the_config_file_is_not_said_to_come_from_the_option(lint_manifest):
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\nspec:\n  containers:\n"
        "  - name: c\n    image: registry.example/app:1.0\n    securityContext: {privileged: true}\n"
    )
    result = lint_manifest(pod, config="pss-level: baseline\n")
    found = [d.message for d in result.diagnostics if d.rule == "PSS002"]
    assert found and all("from --pss-level" not in m for m in found)
    assert "pss-level setting (--pss-level or the config file)" in found[0]


def test_duplicate_key_says_what_kubectl_really_does(lint_manifest):
    result = lint_manifest("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n")
    message = next(d.message for d in result.diagnostics if d.rule == "YAML002")
    assert "keeps the last value" in message and "API server never sees the duplicate" in message
    assert "rejects" not in message


SIM = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  extendedResourceName: example.com/gpu
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "nope"'}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: any.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: broken, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: g
        exactly:
          deviceClassName: any.example.com
          selectors:
          - cel: {expression: 'device.attributes["x"].foo +'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - {name: g, exactly: {deviceClassName: any.example.com}}
"""
POD = """---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ml}}
spec:
  {claims}
  containers:
  - name: main
    image: registry.example/app:1.0
    resources: {resources}
"""


def test_simulate_says_each_error_once_names_requests_as_written_and_that_templates_are_placed_alone(tmp_path):
    text = SIM
    text += POD.format(name="ext", claims="", resources="{limits: {example.com/gpu: 1}}")
    text += POD.format(
        name="cel",
        claims="resourceClaims: [{name: g, resourceClaimTemplateName: broken}]",
        resources="{claims: [{name: g}]}",
    )
    for name in ("first", "second"):
        text += POD.format(
            name=name,
            claims="resourceClaims: [{name: g, resourceClaimTemplateName: one}]",
            resources="{claims: [{name: g}]}",
        )
    (tmp_path / "pods.yaml").write_text(text)
    result = invoke("simulate", "--slices", "example:kind", str(tmp_path / "pods.yaml"))
    assert "CEL compile error: CEL compile error" not in result.output and "CEL compile error" in result.output
    assert "container-0-request-0" not in result.output
    assert "matches request example.com/gpu of container 'main'" in result.output
    assert "each template is placed on its own" in result.output


@pytest.mark.parametrize(
    ("model", "said", "hint"),
    [
        ("", "no node of the snapshot has more than 8 such devices", "ask for at most 8 per pod"),
        (' && device.attributes["gpu.example.com"].model == "nope"', "has any device of that class", "selectors"),
    ],
)
def test_sch003_says_what_the_nodes_have_and_what_to_do(tmp_path, model, said, hint):
    text = SIM.split("---\n", 1)[0].replace(' && device.attributes["gpu.example.com"].model == "nope"', model)
    text += POD.format(name="big", claims="", resources="{limits: {example.com/gpu: 99}}")
    (tmp_path / "pod.yaml").write_text(text)
    result = invoke("lint", "--no-config", "--select", "SCH003", "--slices", "example:kind", str(tmp_path / "pod.yaml"))
    assert said in result.output and hint in result.output
    assert "more than 0" not in result.output


def test_multi_line_hints_keep_their_indentation_under_the_hint(tmp_path):
    from test_hints import OVERLAP

    (tmp_path / "ds.yaml").write_text(OVERLAP)
    result = invoke("lint", "--no-config", "--select", "EXT005", str(tmp_path / "ds.yaml"))
    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("        hint: "))
    assert lines[start + 1] == " " * 14 + "affinity:"
    assert lines[start + 2] == " " * 16 + "nodeAffinity:"
