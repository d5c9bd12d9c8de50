"""Bad input gets a finding that says what is wrong, in printable text (issue 20, items 7-9, 18)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import rules_of

from dralint.cli.main import main
from dralint.reporters.terminal import printable

SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: d0
    allowMultipleAllocations: true
    capacity:
      memory:
        value: 10Gi
        requestPolicy:
          default: 1Gi
          validRange: {min: 1Gi, max: %(max)s}
    nodeAllocatableResources:
      cpu:
        mapping: {deviceMultiplier: %(multiplier)s}
"""
CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: a}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
"""


NON_FINITE = [
    (".nan", ".nan"),
    (".NaN", ".nan"),
    (".inf", ".inf"),
    ("-.inf", "-.inf"),
    ("-.Inf", "-.inf"),
    ("+.INF", ".inf"),
    ("1e999", ".inf"),
    ("-1e999", "-.inf"),
    ("!!float .nan", ".nan"),
    ("!!float 1e999", ".inf"),
]


@pytest.mark.parametrize("written,shown", NON_FINITE)
@pytest.mark.parametrize("before", ["", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"])
def test_non_finite_numbers_are_an_api_finding_at_their_position(lint_manifest, written, shown, before):
    """Also after a document the fast YAML reader took (it hands the rest of the file to libyaml)."""
    result = lint_manifest(
        before + SLICE % {"max": written, "multiplier": written}, feature_gates={"DRANodeAllocatableResources": True}
    )
    assert "INT001" not in rules_of(result)
    found = [(d.rule, d.span.line, d.span.column, d.message) for d in result.diagnostics if "finite" in d.message]
    lines = before.count("\n")
    assert [(rule, line, column) for rule, line, column, _ in found] == [
        ("API002", lines + 16, 39),
        ("API002", lines + 19, 37),
    ]
    assert all(f"Invalid value: {shown}: must be a finite number" in message for *_, message in found)


def test_non_finite_numbers_in_cluster_state_do_not_crash_a_check(lint_manifest, tmp_path):
    result = lint_manifest(CLAIM, slices=SLICE % {"max": "-.inf", "multiplier": ".nan"})
    assert "INT001" not in rules_of(result)


@pytest.mark.parametrize(
    "manifest,message,line,column",
    [
        ("apiVersion: v1\nkind: List\nitems: nope\n", "items of a List must be a list of objects, not a string", 3, 1),
        ("apiVersion: 1.0\nkind: Pod\nmetadata: {name: a}\n", "apiVersion must be a string, not a number", 1, 1),
        ("apiVersion: v1\nkind: 7\nmetadata: {name: a}\n", "kind must be a string, not an integer", 2, 1),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\n---\n42\n",
            "the document is an integer, not a mapping",
            5,
            1,
        ),
        ("apiVersion: v1\nkind: List\nitems: [true]\n", "item 0 of the list is a boolean, not a mapping", 3, 9),
        # Items read one by one (block style) say the same, and a List of items without identity is still reported.
        ("apiVersion: v1\nkind: List\nitems:\n- {}\n- true\n", "item 1 of the list is a boolean, not a mapping", 5, 3),
        (
            "apiVersion: v1\nkind: List\nitems:\n- data: {a: 1}\n",
            "1 document(s) in this file have no apiVersion and no kind",
            4,
            3,
        ),
        ("kind: List\nitems:\n- apiVersion: v1\n  metadata: {name: a}\n", "the object has no kind", 3, 3),
    ],
)
def test_shape_messages_say_what_is_wrong(lint_manifest, manifest, message, line, column):
    result = lint_manifest(manifest)
    found = [d for d in result.diagnostics if message in d.message]
    assert [(d.span.line, d.span.column) for d in found] == [(line, column)], [d.message for d in result.diagnostics]
    assert not any("did you mean" in d.message or "should be spelled" in d.message for d in result.diagnostics)


def test_control_characters_are_escaped_in_text_output(tmp_path):
    explained = CliRunner().invoke(main, ["explain", "YAML009"])
    assert explained.exit_code == 0
    assert "\x00" not in explained.output and "\\x00" in explained.output
    target = tmp_path / "cm.yaml"
    target.write_text(
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\ndata: {k: "\\e[31mred", k: x}\n'
    )
    linted = CliRunner().invoke(main, ["lint", "--select", "YAML002", str(target)])
    assert "\x1b" not in linted.output
    snippet = next(line for line in linted.output.splitlines() if line.startswith("    4 | "))
    marker = linted.output.splitlines()[linted.output.splitlines().index(snippet) + 1]
    assert snippet[marker.index("^") :].startswith("k: x")


def test_printable_keeps_tabs_and_newlines():
    assert printable("a\tb\nc\x00\x1b\x85\u202e") == "a\tb\nc\\x00\\x1b\\x85\\u202e"


def test_printable_text_is_returned_unchanged_only_when_nothing_needs_escaping():
    # printable() skips its regular expression for text str.isprintable() accepts: every
    # character it escapes must therefore be one isprintable() rejects.
    from dralint.reporters.terminal import _CONTROL

    escaped = [chr(code) for code in range(0x3000) if _CONTROL.match(chr(code))]
    assert len(escaped) == 30 + 33 + 5 + 4
    assert not any(char.isprintable() for char in escaped)
    assert printable("plain ascii and ünïcode") == "plain ascii and ünïcode"


def test_non_manifest_yaml_is_skipped_quietly_and_counted_in_verbose_mode(tmp_path):
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yaml").write_text("on: [push]\njobs: {test: {runs-on: ubuntu-latest}}\n")
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    (tmp_path / "broken.yaml").write_text("a: [\n")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\n")
    result = CliRunner().invoke(main, ["lint", "--verbose", str(tmp_path)])
    assert "ci.yaml" not in result.output and ".pre-commit-config" not in result.output
    # A file that does not parse may have held a manifest; it ends in the open list, so the
    # error is at the end of the stream: the last line, after its last character.
    assert "broken.yaml:1:5: error:" in result.output
    assert "2 files, 1 object" in result.output
    assert "dralint: skipped 2 files with no Kubernetes document" in result.output
    quiet = CliRunner().invoke(main, ["lint", str(tmp_path / ".pre-commit-config.yaml")])
    assert quiet.exit_code == 0 and "skipped" not in quiet.output


def test_precommit_hook_leaves_out_the_usual_tool_files():
    import re
    from pathlib import Path

    import yaml

    (hook,) = yaml.safe_load((Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml").read_text())
    excluded = re.compile(hook["exclude"])
    for path in (
        ".github/workflows/ci.yaml",
        ".pre-commit-config.yaml",
        ".gitlab-ci.yml",
        "mkdocs.yml",
        "package.json",
        "sub/.dralint.yaml",
    ):
        assert excluded.search(path), path
    for path in ("deploy/app.yaml", "k8s/github/claims.yaml", "charts/gpu/values-prod.json", "workflows/train.yaml"):
        assert not excluded.search(path), path
