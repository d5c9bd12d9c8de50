"""API findings through the whole pipeline: rule, message and exact 1-based line:column.

Positions follow the issue's contract: an unknown field at its key, a bad value at the value,
a missing required field at the key of the mapping that lacks it, a too-long list at its key.
"""

from __future__ import annotations

from click.testing import CliRunner
from conftest import lint_text
from dra_manifests import resource_claim

from dralint.cli.main import main


def _found(tmp_path, manifest: str, rule: str, **options):
    result = lint_text(tmp_path, manifest, **options)
    return [(d.span.line, d.span.column, d.message) for d in result.diagnostics if d.rule == rule], result


CLAIM_V1BETA1_SHAPE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: gpu.example.com
        count: 1
"""


def test_unknown_field_points_at_key_and_says_move_under_exactly(tmp_path):
    found, result = _found(tmp_path, CLAIM_V1BETA1_SHAPE, "API001")
    assert [(line, col) for line, col, _ in found] == [(10, 9), (11, 9)]
    assert found[0][2] == 'unknown field "spec.spec.devices.requests[0].deviceClassName"'
    first = next(d for d in result.diagnostics if d.rule == "API001")
    assert "under `exactly:`" in first.hint
    assert first.span.end_column == 9 + len("deviceClassName")
    # the one-of error on the same request would only repeat the advice
    assert not [d for d in result.diagnostics if d.rule == "API008"]


def test_pod_claim_source_of_v1_30_gets_the_migration_hint(tmp_path):
    manifest = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  resourceClaims:
  - name: gpu
    source:
      resourceClaimTemplateName: one-gpu
  containers:
  - name: main
    image: registry.example.com/trainer:1.0
"""
    result = lint_text(tmp_path, manifest)
    unknown = next(d for d in result.diagnostics if d.rule == "API001")
    assert (unknown.span.line, unknown.span.column, unknown.message) == (
        8,
        5,
        'unknown field "spec.resourceClaims[0].source"',
    )
    assert "removed in v1.31" in unknown.hint


def test_selector_with_an_empty_cel_key(tmp_path):
    manifest = resource_claim("""
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel:
            expression: device.driver == "gpu.example.com"
    """)
    result = lint_text(tmp_path, manifest)
    found = sorted(
        (d.rule, d.span.line, d.span.column, d.message) for d in result.diagnostics if d.rule in ("API001", "API003")
    )
    assert found == [
        ("API001", 13, 11, 'unknown field "spec.devices.requests[0].exactly.selectors[0].expression"'),
        ("API003", 12, 11, "spec.devices.requests[0].exactly.selectors[0].cel: Required value"),
    ]


def test_label_key_at_the_key_label_value_at_the_value(tmp_path):
    manifest = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels:
    app_/name: web
    tier: -gpu-
"""
    found, _ = _found(tmp_path, manifest, "API007")
    assert [(line, col) for line, col, _ in found] == [(6, 5), (7, 11)]
    assert found[1][2].startswith('metadata.labels.tier: Invalid value: "-gpu-": a valid label must be')


def test_did_you_mean_from_the_schema_keys(tmp_path):
    manifest = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  extendedResouceName: example.com/gpu
"""
    result = lint_text(tmp_path, manifest)
    diag = next(d for d in result.diagnostics if d.rule == "API001")
    assert (diag.span.line, diag.span.column) == (6, 3)
    assert diag.hint == "did you mean `extendedResourceName`?"


def test_did_you_mean_is_case_insensitive(tmp_path):
    manifest = resource_claim("""
        exactly:
          deviceClassname: gpu.example.com
    """)
    result = lint_text(tmp_path, manifest)
    unknown = next(d for d in result.diagnostics if d.rule == "API001")
    assert unknown.hint == "did you mean `deviceClassName`?"
    missing = next(d for d in result.diagnostics if d.rule == "API003")
    assert missing.message == "spec.devices.requests[0].exactly.deviceClassName: Required value"
    assert (missing.span.line, missing.span.column) == (9, 7)  # the key `exactly:` that lacks it


def test_bad_value_points_at_value(tmp_path):
    manifest = resource_claim("""
        exactly:
          deviceClassName: gpu.example.com
          allocationMode: Some
    """)
    found, _ = _found(tmp_path, manifest, "API004")
    assert found == [
        (
            11,
            25,
            'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": '
            'supported values: "ExactCount", "All"',
        )
    ]


def test_unquoted_yaml_boolean_where_a_string_belongs(tmp_path):
    manifest = resource_claim("""
        exactly:
          deviceClassName: gpu.example.com
          tolerations:
          - {key: example.com/ready, value: yes}
    """)
    result = lint_text(tmp_path, manifest)
    diag = next(d for d in result.diagnostics if d.rule == "API002")
    assert (
        diag.message
        == "spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: true: must be of type string"
    )
    assert (diag.span.line, diag.span.column) == (12, 43)
    assert diag.hint == "quote the value: unquoted, YAML reads it as a boolean"


def _requests(n: int) -> str:
    items = "".join(f"    - {{name: r{i}, exactly: {{deviceClassName: gpu.example.com}}}}\n" for i in range(n))
    return (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: many\nspec:\n  devices:\n"
        f"    requests:\n{items}"
    )


def test_32_requests_are_fine_33_are_too_many_at_the_list_key(tmp_path):
    assert not _found(tmp_path, _requests(32), "API005")[0]
    found, _ = _found(tmp_path, _requests(33), "API005")
    assert found == [(7, 5, "spec.devices.requests: Too many: 33: must have at most 32 items")]


def _subrequests(n: int) -> str:
    items = "".join(f"        - {{name: s{i}, deviceClassName: gpu.example.com}}\n" for i in range(n))
    return (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: alternatives\nspec:\n  devices:\n"
        f"    requests:\n    - name: gpu\n      firstAvailable:\n{items}"
    )


def test_firstavailable_boundary_8_and_9(tmp_path):
    assert not _found(tmp_path, _subrequests(8), "API005")[0]
    found, _ = _found(tmp_path, _subrequests(9), "API005")
    assert found == [(9, 7, "spec.devices.requests[0].firstAvailable: Too many: 9: must have at most 8 items")]


def _opaque(size: int) -> str:
    # {"blob":"xxx"} serialises to len('{"blob":""}') + n bytes
    filler = "x" * (size - len('{"blob":""}'))
    return f"""\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  config:
  - opaque:
      driver: gpu.example.com
      parameters:
        blob: {filler}
"""


def test_opaque_parameters_10240_bytes_fine_10241_too_long(tmp_path):
    assert not _found(tmp_path, _opaque(10240), "API006")[0]
    found, _ = _found(tmp_path, _opaque(10241), "API006")
    assert found == [(9, 7, "spec.config[0].opaque.parameters: Too long: may not be more than 10240 bytes")]


def _slice(devices: int, taints: bool) -> str:
    taint = ", taints: [{key: example.com/t, effect: NoSchedule}]" if taints else ""
    items = "".join(f"  - {{name: d{i}{taint}}}\n" for i in range(devices))
    return (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n  driver: gpu.example.com\n"
        "  nodeName: node-1\n  pool: {name: p, generation: 0, resourceSliceCount: 1}\n  devices:\n" + items
    )


def test_devices_per_slice_128_or_64_with_taints(tmp_path):
    assert not _found(tmp_path, _slice(128, False), "API005")[0]
    assert _found(tmp_path, _slice(129, False), "API005")[0] == [
        (9, 3, "spec.devices: Too many: 129: must have at most 128 items")
    ]
    assert not _found(tmp_path, _slice(64, True), "API005")[0]
    assert _found(tmp_path, _slice(65, True), "API005")[0] == [
        (9, 3, "spec.devices: Too many: 65: must have at most 64 items")
    ]


def test_pod_rules_in_a_deployment_template(tmp_path):
    manifest = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: inference
spec:
  selector: {matchLabels: {app: inference}}
  template:
    metadata: {labels: {app: inference}}
    spec:
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: one-gpu
      containers:
      - name: main
        image: registry.example.com/inference:1.0
        resources:
          claims:
          - name: gpu
          - {name: gpu, request: big}
"""
    found, result = _found(tmp_path, manifest, "API010")
    assert found == [(19, 13, 'spec.template.spec.containers[0].resources.claims[1]: Duplicate value: "gpu/big"')]
    assert not [d for d in result.diagnostics if d.severity.value == "error" and d.rule != "API010"]


def test_version_findings_sit_on_apiversion(tmp_path):
    manifest = """\
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata:
  name: gpu.example.com
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata:
  name: gpu.example.com
driverName: gpu.example.com
"""
    result = lint_text(tmp_path, manifest)
    by_rule = {d.rule: d for d in result.diagnostics}
    assert (by_rule["API012"].span.line, by_rule["API012"].span.column, by_rule["API012"].severity.value) == (
        1,
        13,
        "error",
    )
    assert "removed in v1.38" in by_rule["API012"].message
    assert (by_rule["API011"].span.line, by_rule["API011"].span.column, by_rule["API011"].severity.value) == (
        6,
        13,
        "error",
    )
    assert "DeviceClass" in by_rule["API011"].hint
    assert "API001" not in by_rule  # an unserved kind is not schema-checked


def test_custom_resources_get_one_info_per_kind(tmp_path):
    manifest = "".join(
        f"---\napiVersion: gpu.example.com/v1\nkind: GpuConfig\nmetadata:\n  name: c{i}\n" for i in range(3)
    )
    manifest += "---\napiVersion: gpu.example.com/v1\nkind: Other\nmetadata:\n  name: o\n"
    found, _ = _found(tmp_path, manifest, "API014")
    assert [line for line, _, _ in found] == [2, 17]


def test_feature_gate_option_accepts_the_field(tmp_path):
    manifest = resource_claim(
        """
        exactly:
          deviceClassName: gpu.example.com
          derivedAttributes:
          - name: example.com/numa
            expression: device.attributes["gpu.example.com"].numa
    """,
        "constraints:\n- matchAttribute: example.com/numa",
    )
    found, _ = _found(tmp_path, manifest, "API015")
    assert found == [
        (
            11,
            9,
            "spec.devices.requests[0].exactly.derivedAttributes: the API server drops this field unless "
            "feature gate DRADerivedAttributes is enabled (off by default in v1.37)",
        )
    ]
    assert not _found(tmp_path, manifest, "API015", feature_gates={"DRADerivedAttributes": True})[0]


def test_yaml_values_without_json_type_do_not_crash(tmp_path):
    manifest = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
  creationTimestamp: 2025-08-13T06:31:39Z
  labels: {1: one}
"""
    result = lint_text(tmp_path, manifest)
    assert not [d for d in result.diagnostics if d.rule == "INT001"]
    # a captured creationTimestamp is the one finding: the server sets it itself
    assert [(d.rule, d.field) for d in result.diagnostics if d.rule.startswith("API")] == [
        ("API016", "metadata.creationTimestamp")
    ]


def test_feature_gates_flag_on_the_command_line(tmp_path):
    path = tmp_path / "slice.yaml"
    path.write_text(
        _slice(1, False).replace("  - {name: d0}\n", "  - {name: d0, attributes: {numa: {ints: [0, 1]}}}\n")
    )
    gated = CliRunner().invoke(main, ["lint", "--profile", "strict", str(path)])
    assert "[API015]" in gated.output and "DRAListTypeAttributes" in gated.output
    enabled = CliRunner().invoke(
        main, ["lint", "--profile", "strict", "--feature-gates", "DRAListTypeAttributes=true", str(path)]
    )
    assert "[API015]" not in enabled.output and enabled.exit_code == 0, enabled.output
