"""CEL checks through the whole pipeline: exact line and column inside every scalar style."""

from __future__ import annotations

import pytest
from conftest import lint_text

HEAD = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
"""


def _diags(tmp_path, manifest: str, rule: str = "CEL001", **options):
    result = lint_text(tmp_path, manifest, **options)
    return [d for d in result.diagnostics if d.rule == rule]


def _claim(requests: str, api_version: str = "resource.k8s.io/v1") -> str:
    """A ResourceClaim whose ``spec.devices.requests`` is the given YAML (indented by 4)."""
    return f"""apiVersion: {api_version}
kind: ResourceClaim
metadata:
  name: c
  namespace: default
spec:
  devices:
    requests:
{requests}"""


def _at(diag) -> tuple[int, int, int, int]:
    return diag.span.line, diag.span.column, diag.span.end_line, diag.span.end_column


# Each case: the expression scalar as written in YAML; the error is the `>` of `device.driver > 5`
# or the `drivr` field, on the line and column given (1-based, end exclusive).
@pytest.mark.parametrize(
    ("scalar", "where"),
    [
        ("      expression: device.driver > 5\n", (8, 33, 8, 34)),
        ('      expression: |\n        device.driver == "a" ||\n        device.driver > 5\n', (10, 23, 10, 24)),
        ('      expression: >-\n        device.driver == "a" ||\n        device.driver > 5\n', (10, 23, 10, 24)),
        ("      expression: 'device.driver == ''a'' ||\n        device.driver > 5'\n", (9, 23, 9, 24)),
        ('      expression: "device.driver == \\"a\\" ||\n        device.driver > 5"\n', (9, 23, 9, 24)),
        (
            '      expression: "device.driver == \\u0022a\\u0022 || device.driver > 5"\n',
            (8, 68, 8, 69),
        ),  # escapes count in the file
        ('      expression: |\n        device.driver == "a" ||\n          device.drivr == "b"\n', (10, 18, 10, 23)),
    ],
)
def test_compile_error_position_in_every_scalar_style(tmp_path, scalar: str, where) -> None:
    diags = _diags(tmp_path, HEAD + scalar)
    assert len(diags) == 1, diags
    assert _at(diags[0]) == where
    assert diags[0].message.startswith("compilation failed: ERROR: <input>:")


def test_eof_error_in_block_scalar_points_at_the_last_content_character(tmp_path) -> None:
    diags = _diags(
        tmp_path, HEAD + '      expression: |\n        device.driver == "a" &&\n          (device.driver == "b"\n'
    )
    assert len(diags) == 1 and "<EOF>" in diags[0].message
    assert _at(diags[0])[:2] == (10, 31)  # the closing quote, last character of the content


def test_selectors_in_claims_templates_and_subrequests(tmp_path) -> None:
    manifest = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: t
  namespace: default
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: device.driver > 1
      - name: alt
        firstAvailable:
        - name: small
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: device.drivr == "x"
"""
    diags = _diags(tmp_path, manifest)
    assert [(d.span.line, d.span.column, d.field) for d in diags] == [
        (15, 41, "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression"),
        (22, 34, "spec.spec.devices.requests[1].firstAvailable[0].selectors[0].cel.expression"),
    ]


def test_v1beta1_flat_request(tmp_path) -> None:
    manifest = _claim(
        """    - name: gpu
      deviceClassName: gpu.example.com
      selectors:
      - cel:
          expression: device.driver == 1
""",
        "resource.k8s.io/v1beta1",
    )
    assert [d.span.line for d in _diags(tmp_path, manifest)] == [13]


def test_result_type_length_and_not_checked(tmp_path) -> None:
    assert _diags(tmp_path, HEAD + "      expression: device.driver\n", "CEL002")
    long = 'device.driver == "' + "x" * 10300 + '"'
    assert _diags(tmp_path, HEAD + f"      expression: '{long}'\n", "CEL003")
    info = _diags(tmp_path, HEAD + '      expression: url("https://a").getHost() == "a"\n', "CEL006")
    assert [d.severity.value for d in info] == ["info"]
    assert not _diags(tmp_path, HEAD + '      expression: url("https://a").getHost() == "a"\n')


def test_version_and_capacity_lints_point_at_the_operator(tmp_path) -> None:
    version = _diags(
        tmp_path,
        HEAD
        + """      expression: |
        device.driver == "gpu.example.com" &&
        device.attributes["gpu.example.com"].driverVersion >= "550"
""",
        "CEL011",
    )
    capacity = _diags(
        tmp_path,
        HEAD
        + """      expression: |
        device.driver == "gpu.example.com" &&
        device.capacity["gpu.example.com"].memory == "40Gi"
""",
        "CEL012",
    )
    assert [(_at(d), d.severity.value) for d in version] == [((10, 60, 10, 62), "error")]
    assert [(_at(d), d.severity.value) for d in capacity] == [((10, 51, 10, 53), "error")]
    assert capacity[0].message == (
        "compilation failed: ERROR: <input>:2:43: found no matching overload for "
        "'_==_' applied to '(kubernetes.Quantity, string)'"
    )


SLICES = """apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata:
    name: a
  spec:
    driver: gpu.example.com
    nodeName: node-a
    pool: {name: node-a, generation: 1, resourceSliceCount: 1}
    devices:
    - name: gpu-0
      attributes:
        productName: {string: A100}
        fwVersion: {version: 1.2.3}
    - name: gpu-1
      attributes:
        fwVersion: {version: 1.3.0}
"""


def test_snapshot_knows_which_attributes_are_versions(tmp_path) -> None:
    manifest = HEAD + '      expression: device.attributes["gpu.example.com"].fwVersion > "1.2.0"\n'
    assert _diags(tmp_path, manifest, "CEL011", slices=SLICES)


def test_request_inherits_the_class_selectors(tmp_path) -> None:
    manifest = (
        HEAD
        + """      expression: device.driver == "gpu.example.com"
---
"""
        + _claim("""    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: |
              device.attributes["gpu.example.com"].?productName.orValue("") == "H100"
""")
    )
    diags = _diags(tmp_path, manifest, "CEL015", slices=SLICES)
    assert len(diags) == 1
    assert diags[0].object.kind == "ResourceClaim"
    assert (
        'considered the 2 devices that DeviceClass "gpu.example.com" admits (2 of gpu.example.com)' in diags[0].message
    )
    assert (diags[0].span.line, diags[0].span.column) == (24, 15)


def test_snapshot_rules_stay_quiet_without_slices(tmp_path) -> None:
    manifest = HEAD.replace("gpu.example.com", "gpu.acme.example") + (
        '      expression: device.attributes["gpu.acme.example"].productName == "H100"\n'
    )
    result = lint_text(tmp_path, manifest)  # strict profile: CEL009 is on
    assert not {d.rule for d in result.diagnostics} & {"CEL008", "CEL010", "CEL015"}
    assert {d.rule for d in result.diagnostics} >= {"CEL009"}
    # a driver of the catalog is judged against what it publishes instead (tests/test_driver_checks.py)
    catalog = lint_text(
        tmp_path, HEAD + '      expression: device.attributes["gpu.example.com"].productName == "H100"\n'
    )
    assert [d.rule for d in catalog.diagnostics if d.rule == "CEL010"] == ["CEL010"]


def test_request_of_an_unknown_class_is_not_evaluated(tmp_path) -> None:
    manifest = _claim("""    - name: gpu
      exactly:
        deviceClassName: not-in-this-run
        selectors:
        - cel:
            expression: device.attributes["resource.kubernetes.io"].pciBusID == "0008:06:00.0"
""")
    result = lint_text(tmp_path, manifest, slices=SLICES)
    assert not {d.rule for d in result.diagnostics} & {"CEL008", "CEL015"}


def test_feature_gated_parts_of_the_environment(tmp_path) -> None:
    manifest = HEAD + '      expression: device.attributes["gpu.example.com"].ids.includes(3)\n'
    off = _diags(tmp_path, manifest)
    assert [(d.span.line, d.span.column, d.span.end_column) for d in off] == [(8, 60, 68)]
    assert "undeclared reference to 'includes'" in off[0].message
    assert not _diags(tmp_path, manifest, feature_gates={"DRAListTypeAttributes": True})
    field = HEAD + "      expression: device.allowMultipleAllocations\n"
    assert not _diags(tmp_path, field)  # beta, on by default
    assert _diags(tmp_path, field, feature_gates={"DRAConsumableCapacity": False})


def test_only_the_newest_generation_of_a_pool_counts(tmp_path) -> None:
    stale = (
        SLICES.replace("generation: 1", "generation: 0")
        .replace("name: a\n", "name: old\n")
        .replace("productName: {string: A100}", "productName: {string: H100}")
    )
    manifest = HEAD + '      expression: device.attributes["gpu.example.com"].?productName.orValue("") == "H100"\n'
    both = stale + "\n".join(SLICES.splitlines()[3:]) + "\n"
    assert _diags(tmp_path, manifest, "CEL015", slices=both)  # the H100 slice is outdated
    assert not _diags(tmp_path, manifest, "CEL015", slices=stale)  # alone, it is the newest
