"""SCH checks through the lint pipeline, the built-in snapshots, and ``dralint simulate``."""

from __future__ import annotations

import json
import textwrap

from click.testing import CliRunner
from conftest import lint_text

from dralint.cli.main import main
from dralint.k8s.allocator.examples import EXAMPLES, load_example
from dralint.k8s.inventory import Inventory

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == 'gpu.example.com'
"""


def node_slice(node: str, *devices: str, taint: str = "") -> str:
    items = "".join(f"  - name: {d}\n{taint}" for d in devices)
    return f"""\
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: {node}-gpus
spec:
  driver: gpu.example.com
  nodeName: {node}
  pool:
    name: {node}
    generation: 1
    resourceSliceCount: 1
  devices:
{items}"""


def workload(count: int, replicas: int = 1) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata:
          name: gpus
        spec:
          spec:
            devices:
              requests:
              - name: gpus
                exactly:
                  deviceClassName: gpu.example.com
                  count: {count}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: train
        spec:
          replicas: {replicas}
          selector: {{matchLabels: {{app: t}}}}
          template:
            metadata: {{labels: {{app: t}}}}
            spec:
              resourceClaims:
              - name: gpus
                resourceClaimTemplateName: gpus
              containers:
              - name: main
                image: registry.example.com/train:1
        """
    )


TAINT = "    taints:\n    - key: example.com/unhealthy\n      effect: NoSchedule\n"
FLEET = (
    CLASS
    + node_slice("a", "gpu-0", "gpu-1")
    + node_slice("b", "gpu-0", "gpu-1", "gpu-2", taint=TAINT)
    + node_slice("c", "gpu-0")
)


def sch(result) -> list[tuple[str, int, int, str]]:
    return [(d.rule, d.span.line, d.span.column, d.message) for d in result.diagnostics if d.rule.startswith("SCH")]


def test_not_schedulable_groups_reasons_per_node(tmp_path):
    (found,) = sch(lint_text(tmp_path, workload(3), slices=FLEET, profile="strict"))
    rule, line, column, message = found
    assert (rule, line, column) == ("SCH001", 24, 7)  # the resourceClaims key of the template
    assert message == (
        "Deployment default/train cannot be scheduled on any of the 3 node(s) of the snapshot: "
        "1 node: device taint example.com/unhealthy:NoSchedule not tolerated; "
        "1 node: not enough devices of class gpu.example.com (need 3, node has 1 free); "
        "1 node: not enough devices of class gpu.example.com (need 3, node has 2 free)"
    )


def test_fitting_workload_is_clean(tmp_path):
    assert sch(lint_text(tmp_path, workload(1), slices=FLEET, profile="strict")) == []


def test_replicas_that_do_not_all_fit(tmp_path):
    (found,) = sch(lint_text(tmp_path, workload(1, replicas=5), slices=FLEET, profile="strict"))
    assert found[0] == "SCH002" and found[3].startswith("only 3 of 5 replicas")
    assert found[1:3] == (19, 13)  # spec.replicas


def test_no_snapshot_no_findings(tmp_path):
    assert sch(lint_text(tmp_path, workload(64), profile="strict")) == []


def test_snapshot_problem_is_reported_in_the_snapshot_file(tmp_path):
    stale = node_slice("a", "gpu-0").replace("generation: 1", "generation: 1", 1)
    newer = node_slice("a", "gpu-0").replace("a-gpus", "a-gpus-new").replace("generation: 1", "generation: 2")
    result = lint_text(tmp_path, CLASS, slices=CLASS + stale + newer, profile="strict")
    (diag,) = [d for d in result.diagnostics if d.rule == "SCH006"]
    assert diag.span.path.endswith("slices.yaml") and diag.span.line == 19
    assert "generation 1 but the pool is at generation 2" in diag.message


def test_examples_build_without_problems():
    for name in EXAMPLES:
        inv = Inventory.build(load_example(name))
        assert inv.problems == [] and inv.devices, name


def test_h100_example_counts_partitions_and_taints(tmp_path):
    manifest = workload(8, replicas=3).replace("gpu.example.com", "gpu.nvidia.com")
    runner = CliRunner()
    path = tmp_path / "w.yaml"
    path.write_text(manifest)
    out = runner.invoke(main, ["simulate", "--slices", "example:h100-mig", "--format", "json", str(path)])
    assert out.exit_code == 0, out.output
    (row,) = json.loads(out.output)["templates"]
    # node 0 has MIG slices of two GPUs in use, node 1 has a tainted GPU: 8 whole GPUs only on 2 and 3
    assert row["feasibleNodes"] == ["h100-node-2", "h100-node-3"]
    assert (row["placed"], row["replicas"]) == (2, 3)
    assert [d["device"] for d in row["claims"][0]["devices"]][:2] == [
        "gpu.nvidia.com/h100-node-2/gpu-0",
        "gpu.nvidia.com/h100-node-2/gpu-1",
    ]


def test_simulate_text_table_and_exit_codes(tmp_path):
    (tmp_path / "w.yaml").write_text(workload(3))
    runner = CliRunner()
    out = runner.invoke(main, ["simulate", "--slices", "example:kind", str(tmp_path / "w.yaml")])
    assert out.exit_code == 0, out.output
    assert "dra-example-driver-cluster-worker-gpu.example.com" not in out.output
    assert (
        "gpus (template gpus) / gpus: gpu.example.com/dra-example-driver-cluster-worker/{gpu-0, gpu-1, gpu-2}"
        in out.output
    )
    (tmp_path / "w.yaml").write_text(workload(9))
    out = runner.invoke(main, ["simulate", "--slices", "example:kind", str(tmp_path / "w.yaml")])
    assert out.exit_code == 1
    assert (
        "1 node(s) (dra-example-driver-cluster-worker): not enough devices of class gpu.example.com (need 9, "
        "node has 8 free)" in out.output
    )


def test_simulate_needs_a_snapshot(tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["simulate", str(tmp_path)]).exit_code == 2
    out = runner.invoke(main, ["simulate", "--slices", "example:nope", str(tmp_path)])
    assert out.exit_code == 2


def test_snapshot_cel_devices_for_the_cel_checks(tmp_path):
    from dralint.checks.scheduling.simulation import snapshot_cel_devices

    result = lint_text(tmp_path, CLASS, slices=FLEET, profile="strict")
    devices = snapshot_cel_devices(result.context)
    assert sorted(d.label for d in devices)[:2] == ["gpu.example.com/a/gpu-0", "gpu.example.com/a/gpu-1"]
    assert len(devices) == 6
    assert snapshot_cel_devices(lint_text(tmp_path, CLASS, profile="strict").context) == []


def test_missing_device_class_is_left_to_the_reference_checks(tmp_path):
    manifest = workload(1).replace("deviceClassName: gpu.example.com", "deviceClassName: nope.example.com")
    assert sch(lint_text(tmp_path, manifest, slices=FLEET, profile="strict")) == []
    runner = CliRunner()
    (tmp_path / "w.yaml").write_text(manifest)
    (tmp_path / "s.yaml").write_text(FLEET)
    out = runner.invoke(main, ["simulate", "--slices", str(tmp_path / "s.yaml"), str(tmp_path / "w.yaml")])
    assert "request gpus: device class nope.example.com does not exist" in out.output


def test_cel_runtime_error_is_reported_on_the_pod_it_stops(tmp_path):
    manifest = workload(1).replace(
        "count: 1",
        "count: 1\n          selectors:\n          - cel:\n"
        "              expression: device.attributes['gpu.example.com'].model == 'H100'",
    )
    result = lint_text(tmp_path, manifest, slices=FLEET, profile="strict")
    (diag,) = [d for d in result.diagnostics if d.rule == "SCH001"]
    assert "CEL runtime error: no such key: model" in diag.message
    assert [(r.span.line, r.message) for r in diag.related][1:] == [
        (15, "selector #0 fails here"),
        (22, "on device gpu.example.com/a/gpu-0"),
    ]


MIXED_WORKLOAD = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: gpu-and-uplink
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: a100.example.com
      - name: uplink
        exactly:
          deviceClassName: nic.example.com
          capacity:
            requests:
              bandwidth: 30G
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: workers
spec:
  replicas: 8
  serviceName: w
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      resourceClaims:
      - name: dev
        resourceClaimTemplateName: gpu-and-uplink
      containers:
      - name: main
        image: registry.example.com/worker:1
"""


def test_mixed_example_shares_uplink_bandwidth(tmp_path):
    (tmp_path / "w.yaml").write_text(MIXED_WORKLOAD)
    runner = CliRunner()
    out = runner.invoke(main, ["simulate", "--slices", "example:mixed", "--format", "json", str(tmp_path / "w.yaml")])
    (row,) = json.loads(out.output)["templates"]
    # two 100G uplinks on rack-a, 30G per pod: three pods per uplink; the L4 node is in rack-b
    assert (row["placed"], row["feasibleNodes"]) == (6, ["a100-0", "a100-1"])
    uplink = row["claims"][0]["devices"][1]
    assert uplink == {
        "request": "uplink",
        "device": "net.example.com/rack-a/uplink-0",
        "consumedCapacity": {"bandwidth": "30G"},
    }
    text = runner.invoke(main, ["simulate", "--slices", "example:mixed", str(tmp_path / "w.yaml")]).output
    assert "StatefulSet default/workers       6/8      2/3  a100-0 x4, a100-1 x2" in text


def test_slices_in_the_linted_manifests_are_not_the_fleet(tmp_path):
    """Without --slices nothing is simulated, even when the manifests hold ResourceSlices."""
    result = lint_text(tmp_path, FLEET + "---\n" + workload(9), profile="strict")
    assert sch(result) == []


def test_shipped_scheduling_example_on_the_h100_snapshot():
    from pathlib import Path

    from dralint.lint.engine import lint
    from dralint.lint.options import LintOptions

    example = Path(__file__).resolve().parent.parent / "examples" / "scheduling"
    result = lint(LintOptions(paths=[str(example)], slices=["example:h100-mig"], profile="strict"))
    found = sorted((d.rule, d.span.line) for d in result.diagnostics if d.rule.startswith("SCH"))
    assert found == [("SCH001", 105), ("SCH002", 65)]
    assert not [d for d in result.diagnostics if d.severity.value == "error" and not d.rule.startswith("SCH")]


def test_unserved_extended_resource_is_left_to_ext001(tmp_path):
    pod = textwrap.dedent(
        """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          containers:
          - name: c
            image: registry.example.com/x:1
            resources:
              limits:
                deviceclass.resource.kubernetes.io/gpu.example.com: "1"
                vendor.example.com/fpga: "1"
        """
    )
    assert sch(lint_text(tmp_path, pod, slices=FLEET, profile="strict")) == []


def test_feature_gates_reach_the_simulation(tmp_path):
    tainted_only = CLASS + node_slice("b", "gpu-0", "gpu-1", "gpu-2", taint=TAINT)
    assert [f[0] for f in sch(lint_text(tmp_path, workload(2), slices=tainted_only, profile="strict"))] == ["SCH001"]
    off = lint_text(
        tmp_path, workload(2), slices=tainted_only, profile="strict", feature_gates={"DRADeviceTaints": False}
    )
    assert sch(off) == []


STANDALONE_CLAIM = (
    CLASS
    + """\
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: shared-gpus
spec:
  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu.example.com
        count: {count}
"""
)


def test_standalone_claim_that_no_node_can_satisfy_is_reported(tmp_path):
    """Issue 18: a ResourceClaim no scanned pod uses is placed on its own against --slices."""
    snapshot = node_slice("node-a", "gpu-0", "gpu-1", "gpu-2", "gpu-3")
    result = lint_text(tmp_path, STANDALONE_CLAIM.format(count=8), slices=snapshot)
    found = [d for d in result.diagnostics if d.rule == "SCH001"]
    assert [(d.span.line, d.span.column) for d in found] == [(16, 5)]
    assert found[0].message.startswith("ResourceClaim default/shared-gpus cannot be allocated on any of the 1 node(s)")
    fits = lint_text(tmp_path, STANDALONE_CLAIM.format(count=4), slices=snapshot)
    assert not [d for d in fits.diagnostics if d.rule == "SCH001"]


def test_claim_used_by_a_pod_is_reported_once_at_the_pod(tmp_path):
    snapshot = node_slice("node-a", "gpu-0", "gpu-1", "gpu-2", "gpu-3")
    pod = """\
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  resourceClaims: [{name: gpus, resourceClaimName: shared-gpus}]
  containers: [{name: c, image: busybox, resources: {claims: [{name: gpus}]}}]
"""
    result = lint_text(tmp_path, STANDALONE_CLAIM.format(count=8) + pod, slices=snapshot)
    assert [d.object.kind for d in result.diagnostics if d.rule == "SCH001"] == ["Pod"]
