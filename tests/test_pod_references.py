"""Pods and workloads against their claims: every workload kind, exact positions."""

from __future__ import annotations

import pytest
from conftest import lint_text

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: gpu-and-nic
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - {name: big, deviceClassName: big.vendor.example}
        - {name: small, deviceClassName: small.vendor.example}
      - name: nic
        exactly: {deviceClassName: nic.vendor.example}
---
"""

JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: pretrain
  namespace: ml
spec:
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 2
        template:
          spec:
            resourceClaims:
            - name: devices
              resourceClaimTemplateName: gpu-and-nic
            initContainers:
            - name: warmup
              image: registry.example/warmup:1.0
              resources:
                claims:
                - name: device
            containers:
            - name: main
              image: registry.example/train:1.0
              resources:
                claims:
                - name: devices
                  request: {request}
"""


def _of(result, rule):
    return [d for d in result.diagnostics if d.rule == rule]


def position(text: str, line_text: str, value: str) -> tuple[int, int]:
    """1-based line and column of ``value`` on the first line containing ``line_text``."""
    for number, line in enumerate(text.splitlines(), 1):
        if line_text in line:
            return number, line.index(value, line.index(line_text)) + 1
    raise AssertionError(f"{line_text!r} not in text")


def test_undeclared_claim_in_an_init_container_of_a_jobset(tmp_path):
    text = TEMPLATE + JOBSET.format(request="gpu")
    result = lint_text(tmp_path, text)
    (diag,) = _of(result, "REF003")
    assert (diag.span.line, diag.span.column) == position(text, "                - name: device", "device")
    assert "JobSet ml/pretrain (workers)" in diag.message and "did you mean 'devices'?" in diag.message
    assert (diag.related[0].span.line, diag.related[0].span.column) == position(
        text, "resourceClaims:", "resourceClaims"
    )
    assert not _of(result, "REF004"), "the typo is reported once, not again as an unused claim"


def test_request_must_be_a_top_level_request_name(tmp_path):
    text = TEMPLATE + JOBSET.format(request="small")
    result = lint_text(tmp_path, text)
    (diag,) = _of(result, "REF005")
    assert (diag.span.line, diag.span.column, diag.span.end_column) == position(text, "request: small", "small") + (
        position(text, "request: small", "small")[1] + 5,
    )
    assert "'gpu', 'nic'" in diag.message
    assert "subrequest of 'gpu'" in diag.hint
    assert diag.related[0].span.path == diag.span.path and diag.related[0].span.line == 6


def test_known_request_is_clean(tmp_path):
    result = lint_text(tmp_path, TEMPLATE + JOBSET.format(request="nic"))
    assert not _of(result, "REF005")


@pytest.mark.parametrize(
    "workload,expected",
    [
        (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ml}\nspec:\n"
            "  replicas: 3\n  template:\n    spec:\n{spec}",
            "3 pods",
        ),
        (
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d, namespace: ml}\nspec:\n  template:\n"
            "    spec:\n{spec}",
            "one pod per node",
        ),
        (
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: d, namespace: ml}\nspec:\n  parallelism: 2\n"
            "  template:\n    spec:\n{spec}",
            "2 pods",
        ),
        (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ml}\nspec:\n"
            "  replicas: 1\n  template:\n    spec:\n{spec}",
            None,
        ),
    ],
)
def test_shared_claim_in_multi_pod_workloads(tmp_path, workload, expected):
    spec = (
        "      resourceClaims:\n      - {name: gpu, resourceClaimName: shared}\n"
        "      containers:\n      - name: c\n        image: i:1\n        resources: {claims: [{name: gpu}]}\n"
    )
    result = lint_text(tmp_path, workload.replace("{spec}", spec))
    found = _of(result, "REF006")
    if expected is None:
        assert not found
    else:
        (diag,) = found
        assert expected in diag.message


def test_unused_network_claim_is_not_reported(tmp_path):
    text = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: multinic}
spec:
  selectors:
  - cel: {expression: device.driver == "dra.net"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: nics, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - {name: nic, exactly: {deviceClassName: multinic}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  resourceClaims:
  - {name: net, resourceClaimTemplateName: nics}
  - {name: gpu, resourceClaimTemplateName: other}
  containers:
  - {name: c, image: "i:1"}
"""
    result = lint_text(tmp_path, text)
    assert ["'gpu'" in d.message for d in _of(result, "REF004")] == [True]


def test_gang_scheduling_info_and_its_evidence(tmp_path):
    mpijob = """\
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: nccl, namespace: ml}
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers: [{name: l, image: "i:1"}]
    Worker:
      replicas: 4
      template:
        spec:
          containers:
          - name: w
            image: i:1
            resources: {limits: {nvidia.com/gpu: 8}}
"""
    (diag,) = _of(lint_text(tmp_path, mpijob), "REF007")
    assert diag.severity.value == "info" and "runs 4 pods" in diag.message
    ganged = mpijob.replace(
        "        spec:\n          containers:\n          - name: w",
        "        spec:\n          schedulerName: volcano\n          containers:\n          - name: w",
    )
    assert not _of(lint_text(tmp_path, ganged), "REF007")
    # A list is no scheduler name (it used to reach the set lookup: TypeError, unhashable list).
    listed = lint_text(tmp_path, ganged.replace("schedulerName: volcano", "schedulerName: [volcano]"))
    assert not _of(listed, "INT001")
    assert len(_of(listed, "REF007")) == 1


def test_admin_access_only_checked_when_namespace_is_known(tmp_path):
    claim = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: monitor, namespace: ops}
spec:
  devices:
    requests:
    - name: all
      exactly: {deviceClassName: gpu.vendor.example, allocationMode: All, adminAccess: true}
"""
    assert not _of(lint_text(tmp_path, claim), "REF011")
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: ops}\n"
    (diag,) = _of(lint_text(tmp_path, claim, slices=namespace), "REF011")
    assert diag.span.line == 8 and diag.related[0].span.path.endswith("slices.yaml")


def test_pod_group_claims_are_resolved_too(tmp_path):
    group = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: group-1, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: one-gpu
"""
    result = lint_text(tmp_path, group, closed_world={"ResourceClaimTemplate"})
    (diag,) = _of(result, "REF002")
    assert (diag.span.line, diag.span.column) == position(group, "resourceClaimTemplateName", "one-gpu")
