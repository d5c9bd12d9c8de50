"""The device-plugin-to-DRA migration, end to end: examples/migration in its broken and fixed
forms, with and without cluster state, plus the extended-resource rules one by one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import lint_text

from dralint.lint.engine import lint
from dralint.lint.options import LintOptions

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "migration"
FAMILIES = ("REF", "EXT")


def _lint_example(form: str, cluster: bool = False):
    options = LintOptions(paths=[str(EXAMPLE / form)], profile="strict")
    if cluster:
        options.slices = [str(EXAMPLE / "cluster-state.yaml")]
    return lint(options)


def _mine(result):
    return sorted(
        (Path(d.span.path).name, d.rule, d.severity.value) for d in result.diagnostics if d.rule.startswith(FAMILIES)
    )


@pytest.mark.parametrize("cluster", [False, True])
def test_broken_migration_reports_overlap_mapping_and_quota(cluster):
    result = _lint_example("broken", cluster)
    assert _mine(result) == [
        ("device-plugin.yaml", "EXT005", "error"),
        ("quota.yaml", "EXT006", "warning"),
        ("workloads.yaml", "EXT001", "warning"),
    ]
    overlap = next(d for d in result.diagnostics if d.rule == "EXT005")
    assert "{key: gpu-pool, operator: NotIn, values: [dra]}" in overlap.hint
    assert any(r.span.path.endswith("dra-driver.yaml") for r in overlap.related)
    if cluster:
        assert "on node gpu-dra-1" in overlap.message
        assert any(r.span.path.endswith("cluster-state.yaml") for r in overlap.related)
    mapping = next(d for d in result.diagnostics if d.rule == "EXT001")
    assert "extendedResourceName: nvidia.com/gpu" in mapping.hint
    quota = next(d for d in result.diagnostics if d.rule == "EXT006")
    assert 'gpu.nvidia.com.deviceclass.resource.k8s.io/devices: "8"' in quota.hint


@pytest.mark.parametrize("cluster", [False, True])
def test_fixed_migration_is_clean(cluster):
    assert _mine(_lint_example("fixed", cluster)) == []


def test_gpu_training_example_keeps_its_deliberate_mistakes():
    result = lint(LintOptions(paths=[str(EXAMPLE.parent / "gpu-training")], profile="strict"))
    rules = {d.rule for d in result.diagnostics}
    assert {"REF002", "REF003"} <= rules


DEVICE_PLUGIN = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: plugin, namespace: kube-system}}
spec:
  template:
    spec:
{placement}      containers:
      - name: p
        image: {image}
      volumes:
      - name: dp
        hostPath: {{path: /var/lib/kubelet/device-plugins}}
"""

DRA_DRIVER = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: driver, namespace: dra}
spec:
  template:
    spec:
      nodeSelector: {pool: dra}
      containers:
      - name: d
        image: registry.example/kubelet-plugin:1.0
      volumes:
      - name: plugin-dir
        hostPath: {path: /var/lib/kubelet/plugins/gpu.amd.com}
"""


@pytest.mark.parametrize(
    "image,placement,overlap",
    [
        ("docker.io/rocm/k8s-device-plugin:1.31", "", True),
        ("docker.io/rocm/k8s-device-plugin:1.31", "      nodeSelector: {pool: legacy}\n", False),
        (
            "docker.io/rocm/k8s-device-plugin:1.31",
            "      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
            "[{matchExpressions: [{key: pool, operator: In, values: [dra, legacy]}]}]}}}\n",
            True,
        ),
        ("nvcr.io/nvidia/k8s-device-plugin:v0.17.0", "", False),  # NVIDIA GPUs, AMD driver
        ("registry.example/custom:1", "", False),  # a device plugin for an unknown resource
        ("registry.example/custom:1 --resource=amd.com/gpu", "", False),  # not args: the image string
    ],
)
def test_overlap_uses_vendor_and_selector_semantics(tmp_path, image, placement, overlap):
    text = DEVICE_PLUGIN.format(image=image, placement=placement) + "---\n" + DRA_DRIVER
    found = [d for d in lint_text(tmp_path, text).diagnostics if d.rule == "EXT005"]
    assert bool(found) is overlap


def test_generic_device_plugin_recognised_by_socket_dir_and_args(tmp_path):
    plugin = DEVICE_PLUGIN.format(image="registry.example/custom:1", placement="").replace(
        "        image: registry.example/custom:1\n",
        "        image: registry.example/custom:1\n        args: [--resource-name=gpu.amd.com/gpu]\n",
    )
    driver = DRA_DRIVER.replace(
        "gpu.amd.com}", "gpu.amd.com}\n      - name: reg\n        hostPath: {path: /var/lib/kubelet/plugins_registry}"
    )
    (diag,) = [d for d in lint_text(tmp_path, plugin + "---\n" + driver).diagnostics if d.rule == "EXT005"]
    assert "gpu.amd.com/gpu" in diag.message and "gpu.amd.com" in diag.message


CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: {name}
  {stamp}
spec:
  extendedResourceName: vendor.example/gpu
---
"""


def test_duplicate_mapping_names_the_winner_when_timestamps_are_known(tmp_path):
    text = CLASS.format(name="a-class", stamp='creationTimestamp: "2026-01-01T00:00:00Z"') + CLASS.format(
        name="b-class", stamp='creationTimestamp: "2026-03-01T00:00:00Z"'
    )
    (diag,) = [d for d in lint_text(tmp_path, text).diagnostics if d.rule == "EXT002"]
    assert "the scheduler uses 'b-class'" in diag.message
    assert diag.object.name == "a-class"


def test_duplicate_mapping_with_equal_timestamps_prefers_the_smaller_name(tmp_path):
    stamp = 'creationTimestamp: "2026-01-01T00:00:00Z"'
    text = CLASS.format(name="b-class", stamp=stamp) + CLASS.format(name="a-class", stamp=stamp)
    (diag,) = [d for d in lint_text(tmp_path, text).diagnostics if d.rule == "EXT002"]
    assert "the scheduler uses 'a-class'" in diag.message and diag.object.name == "b-class"


def test_duplicate_mapping_without_timestamps_reports_every_class(tmp_path):
    text = CLASS.format(name="a-class", stamp="") + CLASS.format(name="b-class", stamp="")
    found = [d for d in lint_text(tmp_path, text).diagnostics if d.rule == "EXT002"]
    assert sorted(d.object.name for d in found) == ["a-class", "b-class"]
    assert all("depends on creation order" in d.message for d in found)


POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: ml}}
spec:
  initContainers:
  - name: init
    image: i:1
    resources:
      limits: {{{resource}: 1}}
  containers:
  - {{name: c, image: "i:1"}}
"""


UNMAPPED_CLASS = """\
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.vendor.example}
"""


def test_unprovided_extended_resource_in_init_container(tmp_path):
    result = lint_text(tmp_path, POD.format(resource="vendor.example/gpu") + UNMAPPED_CLASS)
    (diag,) = [d for d in result.diagnostics if d.rule == "EXT001"]
    assert diag.severity.value == "warning" and "container 'init'" in diag.message
    assert (diag.span.line, diag.span.column) == (9, 16)


def test_no_dra_in_the_run_means_no_extended_resource_verdict(tmp_path):
    result = lint_text(tmp_path, POD.format(resource="vendor.example/gpu"))
    assert not [d for d in result.diagnostics if d.rule == "EXT001"]


def test_unprovided_extended_resource_is_an_error_when_classes_and_nodes_are_known(tmp_path):
    state = (
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: "
        "{name: x}}\n"
        "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {other.example/fpga: '2'}}}\n"
    )
    (diag,) = [
        d
        for d in lint_text(tmp_path, POD.format(resource="vendor.example/gpu"), slices=state).diagnostics
        if d.rule == "EXT001"
    ]
    assert diag.severity.value == "error"
    served = state.replace("other.example/fpga", "vendor.example/gpu")
    assert not [
        d
        for d in lint_text(tmp_path, POD.format(resource="vendor.example/gpu"), slices=served).diagnostics
        if d.rule == "EXT001"
    ]


def test_native_and_hugepage_resources_are_not_extended(tmp_path):
    result = lint_text(tmp_path, POD.format(resource="hugepages-2Mi").replace("1}", "2Mi, memory: 1Gi}"))
    assert not [d for d in result.diagnostics if d.rule.startswith("EXT")]


def test_implicit_class_resource(tmp_path):
    pod = POD.format(resource="deviceclass.resource.kubernetes.io/gpu.vendor.example")
    out_of_scope = lint_text(tmp_path, pod)
    assert [d.rule for d in out_of_scope.diagnostics if d.rule in ("REF001", "EXT004")] == ["REF001"]
    closed = lint_text(tmp_path, pod, closed_world={"DeviceClass"})
    (diag,) = [d for d in closed.diagnostics if d.rule == "EXT004"]
    assert (diag.span.line, diag.span.column) == (9, 16)
    present = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.vendor.example}\n---\n" + pod
    assert not [d for d in lint_text(tmp_path, present).diagnostics if d.rule in ("REF001", "EXT004", "EXT001")]


def test_quota_in_the_cluster_state_is_checked_against_scanned_workloads(tmp_path):
    workloads = (EXAMPLE / "broken" / "workloads.yaml").read_text()
    quota = (EXAMPLE / "broken" / "quota.yaml").read_text()
    result = lint_text(tmp_path, workloads, slices=quota)
    (diag,) = [d for d in result.diagnostics if d.rule == "EXT006"]
    assert diag.span.path.endswith("slices.yaml") and diag.span.line == 9
    assert diag.related[0].span.path.endswith("manifest.yaml")


def test_overlap_seen_in_the_cluster_state_alone_is_reported_on_the_node(tmp_path):
    state = (
        (EXAMPLE / "cluster-state.yaml")
        .read_text()
        .replace(
            '    allocatable: {cpu: "64", memory: 512Gi}\n',
            '    allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "2"}\n',
        )
    )
    result = lint_text(tmp_path, (EXAMPLE / "fixed" / "deviceclass.yaml").read_text(), slices=state)
    (diag,) = [d for d in result.diagnostics if d.rule == "EXT005"]
    assert diag.span.path.endswith("slices.yaml") and "node gpu-dra-1" in diag.message
    assert diag.related[0].span.line == state.splitlines().index("    driver: gpu.nvidia.com") + 1
    clean = lint_text(
        tmp_path,
        (EXAMPLE / "fixed" / "deviceclass.yaml").read_text(),
        slices=(EXAMPLE / "cluster-state.yaml").read_text(),
    )
    assert not [d for d in clean.diagnostics if d.rule == "EXT005"]


def test_command_line_with_cluster_state_and_closed_world():
    """What a platform team runs in CI: JSON out, exit 1 on the overlap, related locations kept."""
    from click.testing import CliRunner

    from dralint.cli.main import main

    broken = CliRunner().invoke(
        main,
        [
            "lint",
            str(EXAMPLE / "broken"),
            "--slices",
            str(EXAMPLE / "cluster-state.yaml"),
            "--select",
            "EXT",
            "--format",
            "json",
        ],
    )
    assert broken.exit_code == 1, broken.output
    report = json.loads(broken.output)
    overlap = next(d for d in report["diagnostics"] if d["rule"] == "EXT005")
    assert overlap["path"].endswith("device-plugin.yaml") and overlap["severity"] == "error"
    assert {Path(r["path"]).name for r in overlap["related"]} == {"dra-driver.yaml", "cluster-state.yaml"}
    fixed = CliRunner().invoke(
        main, ["lint", str(EXAMPLE / "fixed"), "--closed-world", "DeviceClass", "--select", "REF", "--select", "EXT"]
    )
    assert fixed.exit_code == 0, fixed.output
