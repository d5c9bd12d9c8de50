"""Claims and templates against DeviceClasses, drivers and the snapshot's attributes."""

from __future__ import annotations

from conftest import lint_text

CLASSES = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.vendor.example}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.vendor.example"'}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: nic.vendor.example}
spec:
  selectors:
  - cel: {expression: '"nic.vendor.example" == device.driver'}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: any-device}
---
"""

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pair, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.vendor.example}
    - name: nic
      exactly: {deviceClassName: {nic_class}}
    constraints:
    - requests: {constraint_requests}
      matchAttribute: {attribute}
    config:
    - {config_requests}opaque:
        driver: {driver}
        parameters: {{mode: fast}}
"""

SLICES = """\
apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1beta1
  kind: ResourceSlice
  metadata: {name: gpus}
  spec:
    driver: gpu.vendor.example
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices:
    - name: gpu-0
      basic:
        attributes:
          numa: {int: 0}
          resource.kubernetes.io/pcieRoot: {string: pci0}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: nics}
  spec:
    driver: nic.vendor.example
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices:
    - name: nic-0
      attributes:
        resource.kubernetes.io/pcieRoot: {string: pci0}
"""


def _claim(**values):
    defaults = {
        "nic_class": "nic.vendor.example",
        "constraint_requests": "[gpu, nic]",
        "attribute": "resource.kubernetes.io/pcieRoot",
        "config_requests": "",
        "driver": "gpu.vendor.example",
    }
    defaults.update(values)
    text = CLAIM
    for key, value in defaults.items():
        text = text.replace("{" + key + "}", value)
    return CLASSES + text.replace("{{", "{").replace("}}", "}")


def _rules(tmp_path, text, rule, slices=SLICES):
    return [d for d in lint_text(tmp_path, text, slices=slices).diagnostics if d.rule == rule]


def test_shared_attribute_of_both_drivers_is_fine(tmp_path):
    assert not _rules(tmp_path, _claim(), "REF010")


def test_short_attribute_names_are_qualified_with_the_driver(tmp_path):
    assert not _rules(tmp_path, _claim(constraint_requests="[gpu]", attribute="gpu.vendor.example/numa"), "REF010")
    (diag,) = _rules(
        tmp_path, _claim(constraint_requests="[gpu, nic]", attribute="gpu.vendor.example/numaNode"), "REF010"
    )
    assert "none of the 2 devices" in diag.message and diag.related[0].span.path.endswith("slices.yaml")


def test_scanned_slices_are_examples_not_the_fleet(tmp_path):
    """A repository's captured ResourceSlices describe some demo cluster, not the one the claim
    will meet: only cluster state given with --slices can prove an attribute is never published."""
    claim = _claim(constraint_requests="[gpu]", attribute="gpu.vendor.example/numaNode")
    assert _rules(tmp_path, claim, "REF010")
    assert not _rules(tmp_path, claim + "---\n" + SLICES, "REF010", slices=None)


def test_unknown_class_driver_leaves_the_constraint_alone(tmp_path):
    assert not _rules(tmp_path, _claim(nic_class="any-device", attribute="example.com/nothing"), "REF010")


def test_config_for_every_request_must_name_one_of_their_drivers(tmp_path):
    (diag,) = _rules(tmp_path, _claim(driver="gpu.other.example"), "REF009")
    assert "gpu.vendor.example, nic.vendor.example" in diag.message
    assert [r.span.line for r in diag.related] == [5, 12]


def test_config_scoped_to_a_request_of_its_driver_is_fine(tmp_path):
    assert not _rules(
        tmp_path, _claim(driver="nic.vendor.example", config_requests="requests: [nic]\n      "), "REF009"
    )
    assert _rules(tmp_path, _claim(driver="nic.vendor.example", config_requests="requests: [gpu]\n      "), "REF009")


def test_driver_name_case_is_ignored_like_the_api_server_does(tmp_path):
    assert not _rules(
        tmp_path, _claim(driver="GPU.vendor.example", config_requests="requests: [gpu]\n      "), "REF009"
    )


def test_a_snapshot_slice_whose_driver_is_not_a_string_is_skipped(tmp_path):
    # `driver: {a: 1}` used to reach a set lookup: TypeError (unhashable dict), an internal error.
    broken = (
        SLICES
        + """\
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: broken}
  spec:
    driver: {a: 1}
    nodeName: n1
    pool: {name: n1, generation: 1, resourceSliceCount: 1}
    devices:
    - name: gpu-9
      attributes:
        numaNode: {int: 0}
"""
    )
    result = lint_text(
        tmp_path, _claim(constraint_requests="[gpu, nic]", attribute="gpu.vendor.example/numaNode"), slices=broken
    )
    assert not [d for d in result.diagnostics if d.rule == "INT001"]
    (diag,) = [d for d in result.diagnostics if d.rule == "REF010"]
    assert "none of the 2 devices" in diag.message
