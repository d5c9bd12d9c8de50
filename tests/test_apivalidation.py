"""The pure API-validation layer: formats, overlay, semantic rules, versions, pods, generator."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import pytest
import yaml
from dra_manifests import resource_claim

from dralint.k8s.apivalidation import check_pod_spec, formats, meta, validate_object, version_verdict
from dralint.k8s.apivalidation import errors as E
from dralint.k8s.apivalidation.schema import schema_set
from dralint.k8s.quantity import quantity_value


def _errors(text: str, **gates: bool) -> list[tuple[str, str]]:
    return [(e.rule, e.message) for e in validate_object(yaml.safe_load(text), gates)]


def _rules(text: str) -> list[str]:
    return [rule for rule, _ in _errors(text)]


def test_every_overlay_entry_applies_to_some_definition():
    assert schema_set().unused_overlay == set()


def test_generator_reproduces_the_committed_files():
    if importlib.util.find_spec("kubernetes_validate") is None:
        # CI installs the extra (.ci/run), so drift between the bundled schemas and their
        # generator cannot hide behind a skip there.
        if os.environ.get("CI"):
            pytest.fail("kubernetes-validate (the 'schemas' extra) is not installed; CI must install it")
        pytest.skip("kubernetes-validate (the 'schemas' extra) is not installed")
    from tools.generate_schemas import INDEX_FILE, SCHEMA_FILE, build

    schema_gz, index_json = build()
    assert build() == (schema_gz, index_json)
    assert SCHEMA_FILE.read_bytes() == schema_gz
    assert INDEX_FILE.read_bytes() == index_json


def test_index_covers_every_served_dra_version():
    kinds = schema_set().index["kinds"]
    for version in ("v1", "v1beta2", "v1beta1"):
        for kind in ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"):
            assert f"resource.k8s.io/{version}/{kind}" in kinds
    assert "resource.k8s.io/v1/DeviceTaintRule" in kinds
    assert "resource.k8s.io/v1alpha3/ResourceClaim" not in kinds
    assert kinds["apps/v1/Deployment"] == "io.k8s.api.apps.v1.Deployment"
    assert schema_set().definition_for("resource.k8s.io/v1", "DeviceClass") == "io.k8s.api.resource.v1.DeviceClass"
    assert schema_set().definition_for("resource.k8s.io/v1alpha3", "DeviceClass") is None


@pytest.mark.parametrize(
    "check,value,ok",
    [
        (formats.dns_label, "gpu-0", True),
        (formats.dns_label, "GPU", False),
        (formats.dns_label, "a" * 63, True),
        (formats.dns_label, "a" * 64, False),
        (formats.dns_subdomain, "gpu.example.com", True),
        (formats.dns_subdomain, "gpu_example.com", False),
        (formats.driver_name, "GPU.Example.com", True),
        (formats.driver_name, "a" * 64, False),
        (formats.pool_name, "node-1/gpus", True),
        (formats.pool_name, "a//b", False),
        (formats.qualified_name, "model", True),
        (formats.qualified_name, "gpu.example.com/model", True),
        (formats.qualified_name, "gpu.example.com/pcie-root", False),
        (formats.qualified_name, "a/b/c", False),
        (formats.qualified_name, "x" * 33, False),
        (formats.fully_qualified_name, "numaNode", False),
        (formats.fully_qualified_name, "example.com/numaNode", True),
        (formats.label_key, "example.com/unhealthy", True),
        (formats.label_value, "", True),
        (formats.label_value, "-bad", False),
        (formats.semver, "1.2.3-rc.1+build.5", True),
        (formats.semver, "1.2", False),
        (formats.extended_resource_name, "example.com/gpu", True),
        (formats.extended_resource_name, "example.com", False),
        (formats.extended_resource_name, "deviceclass.resource.kubernetes.io/gpu", False),
        (formats.extended_resource_name, "requests.example.com/gpu", False),
    ],
)
def test_formats(check, value, ok):
    assert (check(value) == []) is ok


def test_quantities_are_exact():
    assert quantity_value("1Gi") == 2**30
    assert quantity_value("500m") * 2 == 1
    assert quantity_value("1e3") == 1000
    assert quantity_value("10 GB") is None


DEVICE_SLICE = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 0, resourceSliceCount: 1}
  devices:
  - name: d
%s
"""


def _device(body: str) -> list[tuple[str, str]]:
    return _errors(DEVICE_SLICE % "\n".join("    " + line for line in body.strip().splitlines()))


def test_attributes_plus_capacity_limit_32():
    attributes = ", ".join(f"a{i}: {{int: 1}}" for i in range(20))
    capacities = ", ".join(f"c{i}: {{value: 1}}" for i in range(12))
    ok = f"attributes: {{{attributes}}}\ncapacity: {{{capacities}}}"
    assert _device(ok) == []
    too_many = ok.replace("c0: {value: 1}", "c0: {value: 1}, c99: {value: 1}")
    assert _device(too_many) == [
        (E.TOO_MANY, "spec.devices[0]: the total number of attributes and capacities must not exceed 32 (has 33)")
    ]


def test_attribute_value_rules():
    found = _device("attributes:\n  a: {string: x, int: 1}\n  v: {version: '1.2'}\n  s: {string: %s}" % ("y" * 65))
    assert (
        E.ONE_OF,
        'spec.devices[0].attributes.a: Invalid value: {"int":1,"string":"x"}: exactly one value must be specified',
    ) in found
    assert (
        E.INVALID_VALUE,
        'spec.devices[0].attributes.v.version: Invalid value: "1.2": must be a string compatible with '
        "semver.org spec 2.0.0",
    ) in found
    assert (E.TOO_LONG, "spec.devices[0].attributes.s.string: Too long: may not be more than 64 bytes") in found


def test_capacity_request_policy_rules():
    without_sharing = "capacity:\n  mem: {value: 8Gi, requestPolicy: {default: 1Gi, validValues: [1Gi]}}"
    assert [r for r, _ in _device(without_sharing)] == [E.INVALID_VALUE]
    good = (
        "allowMultipleAllocations: true\n"
        + "capacity:\n  mem: {value: 8Gi, requestPolicy: {default: 2Gi, validRange: {min: 1Gi, max: 8Gi, step: 1Gi}}}"
    )
    assert _device(good) == []
    bad = good.replace("default: 2Gi", "default: 1500Mi").replace("max: 8Gi", "max: 9Gi")
    messages = [m for _, m in _device(bad)]
    assert any("max is larger than capacity value" in m for m in messages)
    assert any("default" in m and "multiple of a given step" in m for m in messages)
    values = (
        "allowMultipleAllocations: true\ncapacity:\n  mem: {value: 8Gi, requestPolicy: {default: 3Gi, "
        "validValues: [2Gi, 1Gi, 16Gi]}}"
    )
    assert [m for _, m in _device(values)] == [
        'spec.devices[0].capacity.mem.requestPolicy.validValues[1]: Invalid value: "1Gi": values must be '
        "sorted in ascending order and unique",
        'spec.devices[0].capacity.mem.requestPolicy.validValues[2]: Invalid value: "16Gi": option is larger '
        "than capacity value",
        'spec.devices[0].capacity.mem.requestPolicy.default: Invalid value: "3Gi": default value is not '
        "valid according to the requestPolicy",
    ]
    no_default = (
        "allowMultipleAllocations: true\ncapacity:\n  mem: {value: 8Gi, requestPolicy: {validRange: {min: 1Gi, "
        "step: 0}}}"
    )
    assert [m for _, m in _device(no_default)] == [
        "spec.devices[0].capacity.mem.requestPolicy.default: Required value: required when validRange is defined",
        "spec.devices[0].capacity.mem.requestPolicy.validRange.step: Invalid value: 0: must be greater than zero",
    ]


def test_node_allocatable_resources_rules():
    good = (
        "capacity: {cores: {value: 8}}\nnodeAllocatableResources:\n"
        "  cpu: {mapping: {capacityKey: cores, capacityMultiplier: 1}}"
    )
    assert [r for r, _ in _device(good)] == [E.FEATURE_GATED]
    bad = (
        "capacity: {cores: {value: 8}}\nnodeAllocatableResources:\n  example.com/gpu: {}\n"
        "  cpu: {mapping: {capacityKey: threads, deviceMultiplier: 0}, overhead: {perPod: -1}}"
    )
    found = [m for r, m in _device(bad) if r != E.FEATURE_GATED]
    assert found == [
        'spec.devices[0].nodeAllocatableResources[example.com/gpu]: Invalid value: "example.com/gpu": must '
        "be a node-allocatable resource name, not an extended resource",
        "spec.devices[0].nodeAllocatableResources[example.com/gpu]: Required value: `mapping` or `overhead` "
        "is required",
        "spec.devices[0].nodeAllocatableResources.cpu.mapping: Required value: `capacityKey` and "
        "`capacityMultiplier` must be set together",
        'spec.devices[0].nodeAllocatableResources.cpu.mapping.capacityKey: Invalid value: "threads": must '
        "name an entry of the device's capacity",
        "spec.devices[0].nodeAllocatableResources.cpu.mapping.deviceMultiplier: Invalid value: 0: must be positive",
        "spec.devices[0].nodeAllocatableResources.cpu.overhead.perPod: Invalid value: -1: must be non-negative",
    ]


def test_binding_conditions_need_each_other_and_must_not_overlap():
    assert [r for r, _ in _device("bindingConditions: [Ready]")] == [E.REQUIRED]
    assert _device("bindingConditions: [Ready]\nbindingFailureConditions: [Failed]") == []
    assert [r for r, _ in _device("bindingConditions: [Ready]\nbindingFailureConditions: [Ready]")] == [E.INVALID_VALUE]


def test_slice_node_selection_one_of_and_counters_xor_devices():
    text = DEVICE_SLICE.replace("  nodeName: node-1\n", "  allNodes: false\n") % ""
    assert _errors(text) == [  # false does not count as choosing, so both complaints apply
        (
            E.ONE_OF,
            "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
            "`perDeviceNodeSelection` is required",
        ),
        (E.INVALID_VALUE, "spec.allNodes: Invalid value: false: must be either unset or set to true"),
    ]
    both = (
        DEVICE_SLICE.replace(
            "  nodeName: node-1\n", "  nodeName: node-1\n  sharedCounters: [{name: cs, counters: {mem: {value: 1}}}]\n"
        )
        % ""
    )
    assert _errors(both) == [(E.ONE_OF, "spec: only one of `sharedCounters` or `devices` is allowed")]
    none = DEVICE_SLICE.replace("  nodeName: node-1\n", "") % ""
    assert [r for r, _ in _errors(none)] == [E.ONE_OF]


def test_per_device_node_fields_need_per_device_node_selection():
    found = _device("nodeName: node-1")
    assert [r for r, _ in found] == [E.INVALID_VALUE]
    assert "perDeviceNodeSelection" in found[0][1]


FALLBACKS = """
firstAvailable:
- {name: big, deviceClassName: big.example.com}
- {name: small, deviceClassName: small.example.com, count: -1}
"""


def test_constraint_references_and_count():
    ok = resource_claim(FALLBACKS, "constraints:\n- {requests: [gpu/big, gpu], matchAttribute: example.com/numa}")
    assert _errors(ok) == [
        (
            E.INVALID_VALUE,
            "spec.devices.requests[0].firstAvailable[1].count: Invalid value: -1: must be greater than zero",
        )
    ]
    bad = resource_claim(FALLBACKS, "constraints:\n- {requests: [gpu/huge, gpu/big/x, gpu, gpu], matchAttribute: numa}")
    rules = [r for r, _ in _errors(bad)]
    assert rules.count(E.UNDEFINED_REFERENCE) == 2
    assert E.DUPLICATE in rules and E.INVALID_FORMAT in rules


def test_all_mode_with_count_and_toleration_exists_with_value():
    text = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t}
spec:
  metadata: {labels: {a: b}, name: nope}
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          allocationMode: All
          count: 2
          tolerations: [{key: k, operator: Exists, value: v, effect: PreferNoSchedule}]
"""
    assert sorted(_errors(text)) == sorted(
        [
            (E.INVALID_VALUE, "spec.metadata.name: Forbidden: cannot be set"),
            (
                E.INVALID_VALUE,
                "spec.spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when "
                "allocationMode is 'All'",
            ),
            (
                E.INVALID_VALUE,
                'spec.spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: "v": must be '
                "empty for operator `Exists`",
            ),
            (
                E.UNSUPPORTED_VALUE,
                'spec.spec.devices.requests[0].exactly.tolerations[0].effect: Unsupported value: "PreferNoSchedule": '
                'supported values: "None", "NoSchedule", "NoExecute"',
            ),
        ]
    )


def test_opaque_parameters_must_be_an_object():
    text = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  config:
  - opaque: {driver: gpu.example.com, parameters: [1, 2]}
  - opaque: {driver: gpu_example.com, parameters: {a: 1}}
  - {}
"""
    assert [r for r, _ in _errors(text)] == [E.WRONG_TYPE, E.INVALID_FORMAT, E.REQUIRED]


def test_derived_attribute_must_be_referenced_by_a_constraint():
    text = resource_claim("""
        exactly:
          deviceClassName: gpu.example.com
          derivedAttributes: [{name: example.com/numa, expression: "1"}]
    """)
    assert _errors(text, DRADerivedAttributes=True) == [
        (
            E.UNDEFINED_REFERENCE,
            (
                "spec.devices.requests[0].exactly.derivedAttributes[0].name: Invalid value: "
                '"example.com/numa": must be referenced '
                "by at least one matchAttribute or distinctAttribute constraint targeting this request"
            ),
        )
    ]


def test_v1beta1_shapes_validate_against_their_own_schema():
    text = """
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: d
    basic:
      attributes: {model: {string: a100}}
"""
    assert _rules(text) == [E.VERSION_DEPRECATED]
    request = resource_claim("", api_version="resource.k8s.io/v1beta1")
    assert _rules(request) == [E.VERSION_DEPRECATED, E.ONE_OF]
    v1_shape = resource_claim("exactly: {deviceClassName: gpu.example.com}", api_version="resource.k8s.io/v1beta1")
    unknown = [e for e in validate_object(yaml.safe_load(v1_shape)) if e.rule == E.UNKNOWN_FIELD]
    assert [(e.path, e.hint) for e in unknown] == [
        (
            ("spec", "devices", "requests", 0, "exactly"),
            "`exactly:` is the v1 request shape: change apiVersion to resource.k8s.io/v1 (v1beta1 is removed in v1.38)",
        )
    ]


@pytest.mark.parametrize(
    "api_version,kind,rule,definition",
    [
        ("resource.k8s.io/v1", "DeviceClass", None, True),
        ("resource.k8s.io/v1beta2", "ResourceSlice", E.VERSION_DEPRECATED, True),
        ("resource.k8s.io/v1alpha3", "DeviceTaintRule", E.VERSION_DEPRECATED, True),
        ("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest", E.FEATURE_GATED, True),
        ("resource.k8s.io/v1alpha3", "ResourceClaimTemplate", E.VERSION_NOT_SERVED, False),
        ("resource.k8s.io/v1alpha2", "PodSchedulingContext", E.VERSION_NOT_SERVED, False),
        ("resource.k8s.io/v1", "Deviceclass", E.UNKNOWN_KIND, False),
        ("resource.k8s.io/v1", "ResourceClass", E.VERSION_NOT_SERVED, False),
        ("extensions/v1beta1", "Deployment", E.VERSION_NOT_SERVED, False),
        ("batch/v1beta1", "CronJob", E.VERSION_NOT_SERVED, False),
        ("kubeflow.org/v2beta1", "MPIJob", E.NOT_VALIDATED, False),
    ],
)
def test_version_verdicts(api_version, kind, rule, definition):
    verdict = version_verdict(api_version, kind)
    assert [e.rule for e in verdict.errors] == ([rule] if rule else [])
    assert (verdict.definition is not None) is definition


def test_a_kind_in_the_wrong_group_names_its_group():
    verdict = version_verdict("v1", "Deployment")
    assert [(e.rule, e.hint) for e in verdict.errors] == [
        (E.UNKNOWN_KIND, "Deployment is served as apiVersion apps/v1")
    ]


def test_removed_versions_name_the_migration_target():
    assert version_verdict("batch/v1beta1", "CronJob").errors[0].hint == "use apiVersion batch/v1"
    assert "apps/v1" in version_verdict("extensions/v1beta1", "Deployment").errors[0].hint
    assert "resource.k8s.io/v1" in version_verdict("resource.k8s.io/v1alpha3", "ResourceClaim").errors[0].hint


def _pod(spec: str) -> list[tuple[str, E.Path, str]]:
    return [(e.rule, e.path, e.message) for e in check_pod_spec(yaml.safe_load(spec), ("spec",))]


def test_pod_claims_and_container_references():
    found = _pod("""
resourceClaims:
- {name: gpu, resourceClaimTemplateName: one-gpu}
- {name: gpu, resourceClaimName: shared}
- {name: nic}
resources: {claims: [{name: gpu}]}
initContainers:
- name: init
  resources: {claims: [{name: gpu}, {name: gpu, request: big}]}
ephemeralContainers:
- name: debug
  resources: {claims: [{name: gpu, request: Big_One}]}
""")
    assert (
        E.DUPLICATE,
        ("spec", "resourceClaims", 1, "name"),
        'spec.resourceClaims[1].name: Duplicate value: "gpu"',
    ) in found
    assert (
        E.ONE_OF,
        ("spec", "resourceClaims", 2),
        "spec.resourceClaims[2]: Required value: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
    ) in found
    assert (
        E.INVALID_VALUE,
        ("spec", "resources", "claims"),
        "spec.resources.claims: Forbidden: claims cannot be set for Resources at pod-level",
    ) in found
    assert (
        E.DUPLICATE,
        ("spec", "initContainers", 0, "resources", "claims", 1),
        'spec.initContainers[0].resources.claims[1]: Duplicate value: "gpu/big"',
    ) in found
    assert [r for r, p, _ in found if p[1] == "ephemeralContainers"] == [E.INVALID_FORMAT]


def test_container_claim_names_are_left_to_the_reference_checks():
    """Whether a container's claim is declared by the pod is REF003's finding, not repeated here."""
    assert _pod("containers: [{name: c, resources: {claims: [{name: gpu}]}}]") == []


@pytest.mark.parametrize(
    "resources,messages",
    [
        ({"limits": {"example.com/gpu": 1}}, []),
        ({"limits": {"example.com/gpu": 2}, "requests": {"example.com/gpu": 2}}, []),
        (
            {"limits": {"example.com/gpu": "500m"}},
            ['spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer'],
        ),
        (
            {"requests": {"example.com/gpu": 1}},
            [
                "spec.containers[0].resources.limits[example.com/gpu]: Required value: Limit must be set for "
                "non overcommitable resources"
            ],
        ),
        (
            {"limits": {"example.com/gpu": 2}, "requests": {"example.com/gpu": 1}},
            [
                "spec.containers[0].resources.requests[example.com/gpu]: Invalid value: 1: must be equal to "
                "example.com/gpu limit of 2"
            ],
        ),
        ({"limits": {"cpu": "500m", "kubernetes.io/foo": "0.5"}}, []),
    ],
)
def test_extended_resources(resources: dict[str, Any], messages: list[str]):
    spec = {"containers": [{"name": "c", "resources": resources}]}
    assert [e.message for e in check_pod_spec(spec, ("spec",))] == messages


def test_server_written_status_is_reported_once():
    text = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {}
status:
  reservedFor: [{resource: pods, name: p}]
"""
    assert _errors(text) == [
        (E.SERVER_WRITTEN, "status: is written by the server (status); it is ignored on create or rejected on apply")
    ]


def test_validation_inside_a_discarded_status_is_not_reported_but_decoding_is():
    """Create resets status, so only what the JSON decoder rejects there still fails a request."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "registry.example/app:1"}]},
        "status": {"containerStatuses": [{"name": "c"}]},
    }
    assert [(e.rule, e.path) for e in validate_object(pod)] == [("API016", ("status",))]
    pod["status"]["containerStatuses"][0]["bogus"] = 1
    pod["status"]["containerStatuses"][0]["restartCount"] = "many"
    rules = {(e.rule, e.path[-1]) for e in validate_object(pod)}
    assert {("API001", "bogus"), ("API002", "restartCount")} <= rules
    assert not any(rule == "API003" for rule, _ in rules)


@pytest.mark.parametrize(
    "field_name, value",
    [
        ("annotations", {"big": "x" * (256 * 1024)}),
        ("finalizers", ["a/b/c"]),
        ("ownerReferences", [{"apiVersion": "v1", "kind": "Job", "name": "", "uid": "u"}]),
        *[(name, "x") for name in sorted(meta.SERVER_SET_FIELDS)],
    ],
)
def test_each_metadata_field_is_checked_on_its_own(field_name, value):
    """``check_object_meta`` skips its last checks when none of their fields is there: each
    field alone must still be reported."""
    data = {"metadata": {"name": "ok", field_name: value}}
    assert [e.path[:2] for e in meta.check_object_meta(data, "ConfigMap", False)] == [("metadata", field_name)]
    assert meta.check_object_meta({"metadata": {"name": "ok", "labels": {"a": "b"}}}, "ConfigMap", False) == []


def test_version_verdicts_are_kept_per_api_version_and_kind():
    assert version_verdict("apps/v1", "Deployment").definition == "io.k8s.api.apps.v1.Deployment"
    assert version_verdict("apps/v1", "Deployment") is version_verdict("apps/v1", "Deployment")
    assert version_verdict("apps/v1beta1", "Deployment").definition is None
    assert version_verdict("apps/v1", "DaemonSet").definition == "io.k8s.api.apps.v1.DaemonSet"


def test_topology_spread_constraints_values_as_the_server_judges_them():
    """The five errors the v1.37 server gives for this spec (conformance/oracle, 2026-12-07)."""
    found = _pod("""
containers: [{name: c, image: registry.example/app:1.0}]
topologySpreadConstraints:
- {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
- {maxSkew: 1, topologyKey: "", whenUnsatisfiable: DoNotSchedule}
- {maxSkew: 1, topologyKey: host, whenUnsatisfiable: Maybe}
- {maxSkew: 1, topologyKey: rack, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}
- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
""")
    base = ("spec", "topologySpreadConstraints")
    assert [(rule, path) for rule, path, _ in found] == [
        (E.INVALID_VALUE, (*base, 0, "maxSkew")),
        (E.DUPLICATE, (*base, 0)),
        (E.REQUIRED, (*base, 1, "topologyKey")),
        (E.UNSUPPORTED_VALUE, (*base, 2, "whenUnsatisfiable")),
        (E.INVALID_VALUE, (*base, 3, "minDomains")),
    ]
    assert found[4][2].endswith("can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway")
