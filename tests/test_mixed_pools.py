"""Mixed node pools: old kubelets (SCH007) and device plugins beside DRA drivers are no place for a pod."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import lint_text

from dralint.cli.main import main
from dralint.k8s.kubelet import minor_version, too_old

WORKLOAD = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: one-gpu
  containers:
  - name: main
    image: registry.example.com/trainer:1.0
"""


def snapshot(old: str, new: str, new_busy: bool) -> str:
    """Two nodes with one GPU each; the new node's GPU optionally held by another claim."""
    docs = [
        """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.example.com'"}
"""
    ]
    for name, version in (("old-node", old), ("new-node", new)):
        docs.append(f"""\
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
status: {{nodeInfo: {{kubeletVersion: {version}}}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}-gpus}}
spec:
  driver: gpu.example.com
  nodeName: {name}
  pool: {{name: {name}, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
""")
    if new_busy:
        docs.append("""\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: busy, namespace: default}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: new-node, device: gpu-0}]
""")
    return "---\n".join(docs)


@pytest.mark.parametrize(
    ("text", "expected"), [("v1.35.2-eks-1234", (1, 35)), ("1.36", (1, 36)), ("", None), ("dev", None)]
)
def test_minor_version(text, expected):
    assert minor_version(text) == expected


def test_the_newest_missing_feature_is_named():
    assert too_old("v1.35.0", {"dra", "extended-resource"}).gate == "DRAExtendedResource"
    assert too_old("v1.33.9", {"dra", "extended-resource"}).gate == "DRAExtendedResource"
    assert too_old("v1.36.0", {"dra", "extended-resource", "consumable-capacity"}) is None
    assert too_old("unknown", {"dra"}) is None


def test_pod_that_fits_only_on_an_old_kubelet(tmp_path):
    result = lint_text(
        tmp_path, WORKLOAD, slices=snapshot("v1.33.4", "v1.36.1", new_busy=True), select=["SCH001", "SCH007"]
    )
    found = [(d.rule, d.message) for d in result.diagnostics]
    assert found == [
        (
            "SCH007",
            "Pod default/trainer fits only on node(s) whose kubelet is too old for it: old-node "
            "(v1.33.4): kubelet v1.33.4 is older than 1.34, the first release with "
            "DynamicResourceAllocation on by default (ResourceClaims)",
        )
    ]


def test_new_node_with_room_is_chosen_and_nothing_reported(tmp_path):
    result = lint_text(
        tmp_path, WORKLOAD, slices=snapshot("v1.33.4", "v1.36.1", new_busy=False), select=["SCH001", "SCH007"]
    )
    assert not result.diagnostics
    (tmp_path / "w.yaml").write_text(WORKLOAD)
    out = CliRunner().invoke(
        main, ["simulate", "--slices", str(tmp_path / "slices.yaml"), "--format", "json", str(tmp_path / "w.yaml")]
    )
    assert json.loads(out.output)["templates"][0]["feasibleNodes"] == ["new-node"]


def test_no_finding_when_the_old_node_is_also_full(tmp_path):
    """Nodes without room are SCH001's: the kubelet is not what stops the pod."""
    result = lint_text(
        tmp_path,
        WORKLOAD,
        slices=snapshot("v1.36.0", "v1.36.1", new_busy=True).replace(
            "pool: new-node, device: gpu-0}",
            "pool: new-node, device: gpu-0}, {request: gpu, driver: gpu.example.com, pool: old-node, device: gpu-0}",
        ),
        select=["SCH001", "SCH007"],
    )
    assert [d.rule for d in result.diagnostics] == ["SCH001"]


def test_node_with_device_plugin_and_dra_driver_is_no_place_for_extended_resources(tmp_path):
    guide = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  extendedResourceName: example.com/gpu
  selectors:
  - cel: {expression: "device.driver == 'gpu.example.com'"}
---
apiVersion: v1
kind: Pod
metadata: {name: legacy}
spec:
  containers:
  - name: main
    image: registry.example.com/app:1.0
    resources: {limits: {example.com/gpu: 1}}
"""

    def fleet(busy: bool) -> str:
        text = snapshot("v1.37.0", "v1.37.0", new_busy=busy)
        marker = "status: {nodeInfo: {kubeletVersion: v1.37.0}}"
        return text.replace(
            marker, "status: {nodeInfo: {kubeletVersion: v1.37.0}, allocatable: {example.com/gpu: '1'}}", 1
        )

    assert "allocatable: {example.com/gpu: '1'}" in fleet(False)
    (tmp_path / "w.yaml").write_text(guide)
    (tmp_path / "s.yaml").write_text(fleet(False))
    out = CliRunner().invoke(
        main, ["simulate", "--slices", str(tmp_path / "s.yaml"), "--format", "json", str(tmp_path / "w.yaml")]
    )
    assert json.loads(out.output)["templates"][0]["feasibleNodes"] == ["new-node"]
    result = lint_text(tmp_path, guide, slices=fleet(True), select=["SCH001"])
    assert [d.message for d in result.diagnostics] == [
        "Pod default/legacy cannot be scheduled on any of the 2 node(s) of the snapshot: 1 node: not enough devices "
        "of class gpu.example.com (need 1, node has 0 free); 1 node: the node's device plugin advertises "
        "example.com/gpu "
        "while DRA driver gpu.example.com publishes devices of class gpu.example.com on it (both would hand them out)"
    ]


def test_features_an_allocation_makes_the_kubelet_use():
    from dataclasses import replace

    from dralint.k8s.allocator import ClaimResult, Pick, parse_claim
    from dralint.k8s.allocator.examples import h100_mig
    from dralint.k8s.allocator.simulate import kubelet_features
    from dralint.k8s.inventory import Inventory

    inv = Inventory.build(h100_mig(1))
    partition = next(d for d in inv.all_devices() if "mig" in d.id.name)
    claim = parse_claim("c", {})
    # A partition needs nothing more from the kubelet (KEP-4815: API server and scheduler only).
    assert kubelet_features([ClaimResult(claim, (Pick("r", partition, False, {}, False),))]) == {"dra"}
    assert kubelet_features([ClaimResult(claim, (Pick("r", partition, True, {}, False),))]) == {
        "dra",
        "consumable-capacity",
    }
    assert kubelet_features([ClaimResult(replace(claim, extended=True), ())]) == {"dra", "extended-resource"}
