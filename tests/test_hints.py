"""Hints are advice a user pastes (issue 43): the YAML they show is valid YAML of the right shape,
and where the hint says where it goes, putting it there makes the finding go away without a new
error. Every rule example's hints are tried."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import lint_text

from dralint.diagnostics import Diagnostic, Severity
from dralint.lint.catalog import load_catalog

CATALOG = load_catalog()
#: Inline snippets: `key: value` or a flow collection, without a placeholder.
_SNIPPET = re.compile(r"`([^`]+)`")
_PLACEHOLDER = re.compile(r"<[^>]*>|\.\.\.")


def _lint(tmp_path: Path, example, manifest: str | None = None):
    name = example.options.get("filename", "example.yaml")
    options = {k: v for k, v in example.options.items() if k != "filename"}
    return lint_text(tmp_path, manifest or example.manifest, slices=example.slices, name=name, **options)


def snippets(hint: str) -> list[str]:
    """The YAML a hint shows: its backticked key-value snippets and the block after its first line."""
    found = [s for s in _SNIPPET.findall(hint) if (": " in s or s.startswith(("{", "["))) and not s.startswith("#")]
    if "\n" in hint:
        found.append(hint.split("\n", 1)[1])
    return found


def _cases() -> list[tuple[str, int]]:
    return [(rule.id, index) for rule in sorted(CATALOG.values(), key=lambda r: r.id) for index in range(len(rule.bad))]


def _hinted(tmp_path: Path, rule_id: str, index: int) -> tuple[Any, list[Diagnostic]]:
    example = CATALOG[rule_id].bad[index]
    result = _lint(tmp_path, example)
    return example, [d for d in result.diagnostics if d.rule == rule_id and d.hint]


@pytest.mark.parametrize(("rule_id", "index"), _cases())
def test_every_yaml_a_hint_shows_is_valid_yaml_of_the_right_shape(tmp_path, rule_id, index):
    _, hinted = _hinted(tmp_path, rule_id, index)
    for diag in hinted:
        for text in snippets(diag.hint or ""):
            if _PLACEHOLDER.search(text):
                continue
            parsed = yaml.safe_load(text)
            assert isinstance(parsed, (dict, list)), f"{rule_id}: {text!r} is no mapping or list"
            _no_unquoted_booleans_among_strings(parsed, rule_id, text)


def _no_unquoted_booleans_among_strings(value: Any, rule_id: str, text: str) -> None:
    """Label values, selector values and env values are strings: `values: [true]` is rejected."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("values", "matchLabels", "nodeSelector") and isinstance(item, (list, dict)):
                items = item.values() if isinstance(item, dict) else item
                assert all(isinstance(v, str) for v in items), f"{rule_id}: {text!r} has a non-string in {key}"
            _no_unquoted_booleans_among_strings(item, rule_id, text)
    elif isinstance(value, list):
        for item in value:
            _no_unquoted_booleans_among_strings(item, rule_id, text)


# --- applying a hint -------------------------------------------------------------------------

#: Where a hint says its snippet goes, and how to find that place from the finding's field.
_WHERE = (
    (re.compile(r"on the container|on every container|under the resources of the container"), "container"),
    (re.compile(r"^add `resources: "), "container"),
    (re.compile(r"at pod level|to the pod spec|in the pod spec|in spec\.template\.spec"), "pod"),
    (re.compile(r"^set `spec: "), "object"),
    (re.compile(r"to this volumeMount"), "field-parent"),
)


def _path(field: str) -> list[str | int]:
    out: list[str | int] = []
    for part in re.findall(r"[^.\[\]]+|\[[^\]]*\]", field):
        out.append(int(part[1:-1]) if part.startswith("[") and part[1:-1].isdigit() else part.strip("[]"))
    return out


def _place(field: str, where: str) -> list[str | int] | None:
    path = _path(field)
    if where == "object":
        return []
    if where == "field-parent":
        return path[:-1]
    names = [i for i, step in enumerate(path) if step in ("containers", "initContainers")]
    if where == "container":
        return path[: names[0] + 2] if names else None
    # the pod spec: the path up to the containers, or the field itself when it is one
    if names:
        return path[: names[0]]
    for marker in (["spec", "template", "spec"], ["spec"]):
        if path[: len(marker)] == marker:
            return marker
    return None


def _merge(target: dict, patch: dict) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)


def _applied(manifest: str, diag: Diagnostic, place: list[str | int], patch: dict) -> str | None:
    documents = list(yaml.safe_load_all(manifest))
    line = diag.span.line
    starts = [i for i, text in enumerate(manifest.split("\n"), 1) if text == "---"]
    index = sum(1 for s in starts if s < line) - (1 if manifest.startswith("---") else 0)
    node: Any = documents[index]
    for step in place:
        if isinstance(node, dict) and isinstance(step, str):
            node = node.setdefault(step, {})
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            node = node[step]
        else:
            return None
    if not isinstance(node, dict):
        return None
    _merge(node, patch)
    return yaml.safe_dump_all(documents, sort_keys=False)


def _pasted(tmp_path: Path, rule_id: str, index: int) -> int:
    """Paste each hint of one rule example where the hint says it goes, and lint again: the finding
    is gone and no new error appears. Returns how many hints could be pasted."""
    example, hinted = _hinted(tmp_path, rule_id, index)
    before = _lint(tmp_path, example)
    errors_before = {(d.rule, d.message) for d in before.diagnostics if d.severity is Severity.ERROR}
    tried = 0
    for diag in hinted:
        hint = diag.hint or ""
        where = next((w for pattern, w in _WHERE if pattern.search(hint)), None)
        texts = [t for t in snippets(hint) if not _PLACEHOLDER.search(t)]
        if where is None or diag.field is None or not texts:
            continue
        place = _place(diag.field, where)
        patch = yaml.safe_load(texts[-1] if "\n" in hint else texts[0])
        if place is None or not isinstance(patch, dict):
            continue
        fixed = _applied(example.manifest, diag, place, patch)
        if fixed is None:
            continue
        tried += 1
        after = _lint(tmp_path, example, fixed)
        still = [
            d for d in after.diagnostics if d.rule == rule_id and d.object == diag.object and d.field == diag.field
        ]
        assert still == [], f"{rule_id}: after pasting {patch} at {place}: {[d.message for d in still]}"
        new_errors = {(d.rule, d.message) for d in after.diagnostics if d.severity is Severity.ERROR} - errors_before
        assert new_errors == set(), f"{rule_id}: pasting {patch} made new errors {new_errors}"
    return tried


def test_applying_a_hint_where_it_says_makes_the_finding_go_away(tmp_path):
    # Most hints say what to change in words ("remove", "rename"); those that show a snippet and say
    # where it goes are pasted (26 today). The floor keeps the test from passing by pasting nothing.
    pasted = {case: _pasted(tmp_path, *case) for case in _cases()}
    assert sum(pasted.values()) >= 26, f"too few hints could be pasted: {pasted}"


OVERLAP = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: nvidia-device-plugin, namespace: kube-system}
spec:
  selector: {matchLabels: {app: dp}}
  template:
    metadata: {labels: {app: dp}}
    spec:
      nodeSelector: {nvidia.com/gpu.present: "true"}
      containers:
      - name: device-plugin
        image: nvcr.io/nvidia/k8s-device-plugin:v0.17.1
      volumes:
      - {name: dp, hostPath: {path: /var/lib/kubelet/device-plugins}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: dra-kubelet-plugin, namespace: nvidia-dra-driver-gpu}
spec:
  selector: {matchLabels: {app: dra}}
  template:
    metadata: {labels: {app: dra}}
    spec:
      nodeSelector: {nvidia.com/gpu.present: "true", gpu-pool: dra}
      containers:
      - name: gpus
        image: nvcr.io/nvidia/k8s-dra-driver-gpu:v25.3.0
      volumes:
      - {name: registry, hostPath: {path: /var/lib/kubelet/plugins_registry}}
      - {name: plugins, hostPath: {path: /var/lib/kubelet/plugins}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  extendedResourceName: nvidia.com/gpu
  selectors:
  - cel: {expression: device.driver == "gpu.nvidia.com"}
"""


def _ext005(tmp_path: Path, text: str, **options) -> list[Diagnostic]:
    return [d for d in lint_text(tmp_path, text, **options).diagnostics if d.rule == "EXT005"]


def test_ext005_excludes_the_label_that_separates_the_dra_pool_and_pasting_it_clears_the_overlap(tmp_path):
    (found,) = _ext005(tmp_path, OVERLAP)
    assert "{key: gpu-pool, operator: NotIn, values: [dra]}" in (found.hint or "")
    assert "nvidia.com/gpu.present" not in (found.hint or "")
    documents = list(yaml.safe_load_all(OVERLAP))
    _merge(documents[0]["spec"]["template"]["spec"], yaml.safe_load(found.hint.split("\n", 1)[1]))
    fixed = yaml.safe_dump_all(documents, sort_keys=False)
    assert _ext005(tmp_path, fixed) == []


def test_ext005_quotes_label_values_yaml_would_read_as_booleans(tmp_path):
    text = OVERLAP.replace("gpu-pool: dra", 'dra.example/managed: "true"')
    (found,) = _ext005(tmp_path, text)
    assert '{key: dra.example/managed, operator: NotIn, values: ["true"]}' in (found.hint or "")
    patch = yaml.safe_load(found.hint.split("\n", 1)[1])
    assert patch["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0][
        "matchExpressions"
    ][0]["values"] == ["true"]


def test_ext005_says_why_it_cannot_judge_on_a_snapshot_of_other_nodes(tmp_path):
    from dralint.lint.gate import lint_with_config
    from dralint.lint.options import LintOptions

    (tmp_path / "ds.yaml").write_text(OVERLAP)
    result = lint_with_config(LintOptions(paths=[str(tmp_path / "ds.yaml")], slices=["example:h100-mig"]), None)
    (said,) = [d for d in result.diagnostics if d.rule == "EXT005"]
    assert said.severity is Severity.INFO
    assert "matches none of the" in said.message and "cannot be judged" in said.message
