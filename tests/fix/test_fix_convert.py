"""The v1beta1/v1beta2 -> v1 conversion as a pure function on plain data (dra-api.md §1.8, §5)."""

from __future__ import annotations

import copy

import pytest

from dralint.fix.convert import EXACT_FIELDS, ConversionError, convertible, to_v1
from dralint.k8s.apivalidation.schema import schema_set


def claim(requests: list, kind: str = "ResourceClaim", version: str = "v1beta1") -> dict:
    devices = {"requests": requests}
    spec = {"spec": {"devices": devices}} if kind == "ResourceClaimTemplate" else {"devices": devices}
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": kind, "metadata": {"name": "c"}, "spec": spec}


def test_request_fields_move_under_exactly_in_order_and_input_is_untouched() -> None:
    request = {
        "name": "gpu",
        "deviceClassName": "gpu.example.com",
        "selectors": [{"cel": {"expression": "true"}}],
        "allocationMode": "ExactCount",
        "count": 2,
        "adminAccess": True,
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "capacity": {"requests": {"memory": "1Gi"}},
        "derivedAttributes": [{"name": "derived/numa", "expression": "1"}],
    }
    original = claim([request])
    frozen = copy.deepcopy(original)
    converted = to_v1(original)
    assert original == frozen
    assert converted["apiVersion"] == "resource.k8s.io/v1"
    moved = converted["spec"]["devices"]["requests"][0]
    assert list(moved) == ["name", "exactly"]
    assert list(moved["exactly"]) == list(request)[1:]
    assert moved["exactly"]["tolerations"] == request["tolerations"]


def test_template_requests_live_under_spec_spec() -> None:
    converted = to_v1(claim([{"name": "a", "deviceClassName": "x"}], kind="ResourceClaimTemplate"))
    assert converted["spec"]["spec"]["devices"]["requests"] == [{"name": "a", "exactly": {"deviceClassName": "x"}}]


def test_first_available_stays_on_the_request_with_flat_subrequests() -> None:
    subrequests = [{"name": "big", "deviceClassName": "big", "count": 2}, {"name": "small", "deviceClassName": "small"}]
    converted = to_v1(claim([{"name": "a", "firstAvailable": subrequests}]))
    assert converted["spec"]["devices"]["requests"] == [{"name": "a", "firstAvailable": subrequests}]


def test_zero_values_count_as_unset_like_the_server() -> None:
    converted = to_v1(
        claim(
            [
                {
                    "name": "a",
                    "deviceClassName": "",
                    "count": 0,
                    "firstAvailable": [{"name": "s", "deviceClassName": "x"}],
                }
            ]
        )
    )
    assert converted["spec"]["devices"]["requests"] == [
        {"name": "a", "firstAvailable": [{"name": "s", "deviceClassName": "x"}]}
    ]
    kept = to_v1(claim([{"name": "a", "deviceClassName": "x", "adminAccess": False}]))
    assert kept["spec"]["devices"]["requests"][0]["exactly"] == {"deviceClassName": "x", "adminAccess": False}


def test_request_with_flat_fields_and_exactly_is_refused_without_changes() -> None:
    original = claim([{"name": "a", "deviceClassName": "x", "exactly": {"deviceClassName": "y"}}])
    with pytest.raises(ConversionError, match="exactly"):
        to_v1(original)


def slice_(spec_extra: dict, devices: list) -> dict:
    spec = {
        "driver": "d.example.com",
        "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
        **spec_extra,
        "devices": devices,
    }
    return {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": spec}


def test_basic_fields_are_lifted_into_the_device_in_place() -> None:
    basic = {
        "attributes": {"model": {"string": "a100"}},
        "capacity": {"memory": {"value": "80Gi"}},
        "consumesCounters": [{"counterSet": "c", "counters": {"m": {"value": "1"}}}],
        "taints": [{"key": "k", "effect": "NoSchedule"}],
        "bindsToNode": True,
        "allowMultipleAllocations": True,
    }
    converted = to_v1(slice_({"nodeName": "n1"}, [{"name": "d0", "basic": basic, "extra": 1}, {"name": "d1"}]))
    assert converted["spec"]["devices"] == [{"name": "d0", **basic, "extra": 1}, {"name": "d1"}]
    assert list(converted["spec"]["devices"][0]) == ["name", *basic, "extra"]


def test_slice_zero_node_selection_fields_are_dropped() -> None:
    converted = to_v1(slice_({"nodeName": "", "allNodes": True}, [{"name": "d", "basic": {}}]))
    assert "nodeName" not in converted["spec"] and converted["spec"]["allNodes"] is True
    assert converted["spec"]["devices"] == [{"name": "d"}]
    converted = to_v1(slice_({"nodeName": "n1", "allNodes": False}, []))
    assert converted["spec"]["nodeName"] == "n1" and "allNodes" not in converted["spec"]


def test_basic_clashing_with_device_field_is_refused() -> None:
    with pytest.raises(ConversionError, match="attributes"):
        to_v1(slice_({}, [{"name": "d", "attributes": {}, "basic": {"attributes": {}}}]))


def test_v1beta2_and_device_class_change_only_the_api_version() -> None:
    v1beta2 = claim([{"name": "a", "exactly": {"deviceClassName": "x"}}], version="v1beta2")
    converted = to_v1(v1beta2)
    assert converted == {**v1beta2, "apiVersion": "resource.k8s.io/v1"}
    device_class = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "DeviceClass",
        "metadata": {"name": "g"},
        "spec": {"selectors": [{"cel": {"expression": "true"}}], "extendedResourceName": "example.com/gpu"},
    }
    assert to_v1(device_class) == {**device_class, "apiVersion": "resource.k8s.io/v1"}


@pytest.mark.parametrize("version", ["v1beta2", "v1alpha3"])
def test_device_taint_rule_changes_only_the_api_version(version: str) -> None:
    rule = {
        "apiVersion": f"resource.k8s.io/{version}",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "r"},
        "spec": {"deviceSelector": {"driver": "d.example.com"}, "taint": {"key": "k", "effect": "NoSchedule"}},
    }
    assert to_v1(rule) == {**rule, "apiVersion": "resource.k8s.io/v1"}


@pytest.mark.parametrize(
    "obj",
    [
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim"},
        {"apiVersion": "resource.k8s.io/v1beta1", "kind": "DeviceTaintRule"},
        {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourceClaim"},
        {"apiVersion": "v1", "kind": "Pod"},
        {"kind": "ResourceClaim"},
    ],
)
def test_other_objects_are_not_convertible(obj: dict) -> None:
    assert not convertible(obj)
    with pytest.raises(ConversionError):
        to_v1(obj)


def test_an_aliased_request_is_converted_once() -> None:
    shared = {"name": "a", "deviceClassName": "x"}
    requests = to_v1(claim([shared, shared]))["spec"]["devices"]["requests"]
    assert requests[0] is requests[1]
    assert requests[0] == {"name": "a", "exactly": {"deviceClassName": "x"}}


def test_the_mapping_matches_the_bundled_schemas() -> None:
    """v1beta1 request fields = v1 ExactDeviceRequest fields; BasicDevice fields are v1 Device
    fields; every other resource.k8s.io type has the same fields in v1beta1, v1beta2 and v1."""
    definitions = schema_set().definitions

    def fields(version: str, name: str) -> set[str]:
        return set(definitions[f"io.k8s.api.resource.{version}.{name}"]["properties"])

    assert (
        set(EXACT_FIELDS)
        == fields("v1", "ExactDeviceRequest")
        == fields("v1beta1", "DeviceRequest") - {"name", "firstAvailable"}
    )
    assert fields("v1beta1", "BasicDevice") == fields("v1", "Device") - {"name"}
    assert fields("v1beta1", "Device") == {"name", "basic"}
    reshaped = {"DeviceRequest", "Device", "BasicDevice", "ExactDeviceRequest"}
    compared = 0
    for key, definition in definitions.items():
        group, _, name = key.rpartition(".")
        v1 = definitions.get(f"io.k8s.api.resource.v1.{name}")
        if (
            group in ("io.k8s.api.resource.v1beta1", "io.k8s.api.resource.v1beta2")
            and name not in reshaped
            and v1
            and "properties" in definition
        ):
            assert set(definition["properties"]) == set(v1.get("properties", {})), key
            compared += 1
    assert compared > 50
