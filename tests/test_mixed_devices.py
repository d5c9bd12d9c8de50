"""EXT007 and the device kinds: what a DeviceClass behind a legacy count really matches."""

from __future__ import annotations

import json

from click.testing import CliRunner
from conftest import lint_text

from dralint.cli.main import main
from dralint.k8s.allocator.examples import h100_mig, mixed
from dralint.k8s.devicekinds import DeviceKind, cel_condition, narrowing_attribute, summarize
from dralint.k8s.inventory import Inventory

GUIDE = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.nvidia.com
spec:
  extendedResourceName: nvidia.com/gpu
  selectors:
  - cel:
      expression: device.driver == "gpu.nvidia.com"
---
apiVersion: v1
kind: Pod
metadata:
  name: gpu-smoke-test
spec:
  restartPolicy: Never
  containers:
  - name: cuda
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    resources:
      limits:
        nvidia.com/gpu: 1
"""


def test_whole_gpus_and_mig_partitions_are_told_apart():
    inv = Inventory.build(h100_mig(1))
    summary = summarize(inv.all_devices(), inv)
    assert summary.mixed
    assert (
        summary.describe()
        == "8 whole NVIDIA H100 80GB HBM3 (memory 80Gi), 72 partitions of NVIDIA H100 80GB HBM3 in 2 profiles"
    )
    whole = DeviceKind(False, "NVIDIA H100 80GB HBM3", "80Gi")
    assert narrowing_attribute(summary, whole) == ("gpu.nvidia.com/type", "string", "gpu")


def test_models_and_memory_sizes_are_kinds():
    inv = Inventory.build(mixed())
    gpus = [d for d in inv.all_devices() if d.driver == "gpu.example.com"]
    summary = summarize(gpus, inv)
    # The mixed example names its model in `model` and has no partitions.
    assert summary.describe() == "8 whole A100 (memory 80Gi), 2 whole L4 (memory 24Gi)"
    attribute = narrowing_attribute(summary, DeviceKind(False, "A100", "80Gi"))
    assert attribute == ("gpu.example.com/model", "string", "A100")
    assert cel_condition("gpu.example.com", *attribute) == "device.attributes['gpu.example.com'].model == 'A100'"


def test_one_kind_is_not_mixed():
    inv = Inventory.build(h100_mig(1))
    whole = [d for d in inv.all_devices() if not d.consumes or d.id.name.count("-") == 1]
    assert not summarize(whole, inv).mixed


def _slices_option(tmp_path, manifest, **options):
    from dralint.lint.gate import lint_with_config
    from dralint.lint.options import LintOptions

    target = tmp_path / "guide.yaml"
    target.write_text(manifest)
    opts = LintOptions(paths=[str(target)], slices=["example:h100-mig"], profile="strict", **options)
    return lint_with_config(opts, None)


def test_guide_class_on_h100_mig_is_a_warning_with_the_narrowing_attribute(tmp_path):
    result = _slices_option(tmp_path, GUIDE, select=["EXT007"])
    found = [d for d in result.diagnostics if d.rule == "EXT007"]
    assert len(found) == 1
    assert (found[0].span.line, found[0].span.column) == (6, 25)
    assert (
        "32 whole NVIDIA H100 80GB HBM3 (memory 80Gi), 288 partitions of NVIDIA H100 80GB HBM3 in 2 profiles"
        in found[0].message
    )
    assert "device.attributes['gpu.nvidia.com'].type == 'gpu'" in (found[0].hint or "")


def test_class_used_by_count_is_checked_without_extended_resource_name(tmp_path):
    manifest = (
        GUIDE.replace("  extendedResourceName: nvidia.com/gpu\n", "").split("---")[0]
        + """---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com, count: 1}
"""
    )
    result = _slices_option(tmp_path, manifest, select=["EXT007"])
    found = [d for d in result.diagnostics if d.rule == "EXT007"]
    assert len(found) == 1 and "a request with a count may get any of them" in found[0].message
    unused = GUIDE.replace("  extendedResourceName: nvidia.com/gpu\n", "").split("---")[0]
    assert not [d for d in _slices_option(tmp_path, unused, select=["EXT007"]).diagnostics if d.rule == "EXT007"]


def test_without_slices_nothing_is_reported(tmp_path):
    result = lint_text(tmp_path, GUIDE, select=["EXT007"])
    assert not [d for d in result.diagnostics if d.rule == "EXT007"]


def test_simulate_shows_the_kind_a_legacy_request_received(tmp_path):
    path = tmp_path / "guide.yaml"
    path.write_text(GUIDE)
    out = CliRunner().invoke(main, ["simulate", "--slices", "example:h100-mig", "--format", "json", str(path)])
    devices = json.loads(out.output)["templates"][0]["claims"][0]["devices"]
    assert devices == [
        {
            "request": "nvidia.com/gpu of container 'cuda'",
            "device": "gpu.nvidia.com/h100-node-0/gpu-0-mig-3g.40gb-1",
            "kind": "partition of NVIDIA H100 80GB HBM3 (memory 40Gi)",
        }
    ]
    text = CliRunner().invoke(main, ["simulate", "--slices", "example:h100-mig", str(path)]).output
    assert "gpu-0-mig-3g.40gb-1 [partition of NVIDIA H100 80GB HBM3 (memory 40Gi)]" in text
