"""Every numeric limit dralint enforces, pinned on both sides, and exact scores (issue 20).

An off-by-one at a limit passes any test that only probes far from it; these probe the last
accepted value and the first refused one.
"""

from __future__ import annotations

import pytest
from allocator_fixtures import allocate, claim_spec, request
from test_allocator import gpus

from dralint.k8s.allocator import MAX_RESULTS, Fatal
from dralint.k8s.apivalidation import validate_object
from dralint.k8s.apivalidation.semantic import (
    MAX_ATTRIBUTE_STRING_LENGTH,
    MAX_ATTRIBUTES_AND_CAPACITIES,
    MAX_DEVICES_PER_SLICE,
    OPAQUE_PARAMETERS_MAX_LENGTH,
)
from dralint.lint.config import load_config
from dralint.lint.score import score
from dralint.yaml.loader import MAX_DEPTH, SourceText, load
from dralint.yaml.sources import FileIssue, SourceFile, read

# --- the allocator's per-claim device limit -------------------------------------------------


def test_a_claim_of_exactly_the_device_limit_allocates():
    results, *_ = allocate([gpus(MAX_RESULTS + 8)], claim_spec(request("g", count=MAX_RESULTS)))
    assert results is not None
    assert sum(len(r.picks) for r in results) == MAX_RESULTS == 32


def test_a_claim_of_one_more_than_the_limit_is_fatal():
    with pytest.raises(
        Fatal, match=f"number of requested devices {MAX_RESULTS + 1} exceeds the claim limit of {MAX_RESULTS}"
    ):
        allocate([gpus(MAX_RESULTS + 8)], claim_spec(request("g", count=MAX_RESULTS + 1)))


@pytest.mark.parametrize("devices,fatal", [(MAX_RESULTS, False), (MAX_RESULTS + 1, True)])
def test_all_mode_at_the_device_limit(devices, fatal):
    spec = claim_spec(request("g", allocationMode="All"))
    if fatal:
        with pytest.raises(Fatal, match="exceeds the claim limit"):
            allocate([gpus(devices)], spec)
    else:
        results, *_ = allocate([gpus(devices)], spec)
        assert sum(len(r.picks) for r in results) == devices


# --- reading input --------------------------------------------------------------------------


@pytest.mark.parametrize("size,kept", [(100, True), (101, False)])
def test_file_size_limit(tmp_path, size, kept):
    target = tmp_path / "big.yaml"
    target.write_bytes(b"#" * size)
    got = read(str(target), max_bytes=100)
    assert isinstance(got, SourceFile if kept else FileIssue)
    if not kept:
        assert got.kind == "too-large"


def _depth_problems(levels: int) -> list[str]:
    text = "a: " + "[" * levels + "]" * levels + "\n"
    return [p.message for p in load(SourceText("deep.yaml", text)).problems]


def test_nesting_depth_limit():
    # The root mapping and the value of `a` are two levels; the flow sequences fill the rest.
    assert _depth_problems(MAX_DEPTH - 1) == []
    assert _depth_problems(MAX_DEPTH) == [f"the document nests deeper than {MAX_DEPTH} levels; it was skipped"]


@pytest.mark.parametrize("extra,refused", [(0, False), (1, True)])
def test_config_file_size_limit(tmp_path, extra, refused):
    config = tmp_path / ".dralint.yaml"
    head = b"profile: strict\n"
    config.write_bytes(head + b"#" * (1024 * 1024 - len(head) - 1) + b"\n" + b"#" * extra)
    messages = [f.message for f in load_config(str(config)).findings]
    assert ("the config file is over 1 MiB; that is no config file" in messages) is refused


# --- API limits ----------------------------------------------------------------------------


def _slice(devices: list[dict]) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "gpu.example.com",
            "nodeName": "n1",
            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def _messages(obj: dict) -> list[str]:
    return [e.message for e in validate_object(obj)]


@pytest.mark.parametrize("count,refused", [(MAX_DEVICES_PER_SLICE, False), (MAX_DEVICES_PER_SLICE + 1, True)])
def test_devices_per_slice(count, refused):
    found = _messages(_slice([{"name": f"d{i}"} for i in range(count)]))
    assert any("spec.devices" in m and "Too many" in m for m in found) is refused, found


@pytest.mark.parametrize(
    "count,refused", [(MAX_ATTRIBUTES_AND_CAPACITIES, False), (MAX_ATTRIBUTES_AND_CAPACITIES + 1, True)]
)
def test_attributes_and_capacities_per_device(count, refused):
    attributes = {f"a{i}": {"int": i} for i in range(count - 1)}
    found = _messages(_slice([{"name": "d", "attributes": attributes, "capacity": {"memory": {"value": "1Gi"}}}]))
    assert bool(found) is refused, found


@pytest.mark.parametrize(
    "length,refused", [(MAX_ATTRIBUTE_STRING_LENGTH, False), (MAX_ATTRIBUTE_STRING_LENGTH + 1, True)]
)
def test_attribute_string_length(length, refused):
    found = _messages(_slice([{"name": "d", "attributes": {"model": {"string": "x" * length}}}]))
    assert bool(found) is refused, found


@pytest.mark.parametrize("extra,refused", [(0, False), (1, True)])
def test_opaque_parameters_size(extra, refused):
    # {"v":"..."} is 8 bytes of JSON around the string.
    parameters = {"v": "x" * (OPAQUE_PARAMETERS_MAX_LENGTH - 8 + extra)}
    obj = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "c"},
        "spec": {"config": [{"opaque": {"driver": "gpu.example.com", "parameters": parameters}}]},
    }
    found = _messages(obj)
    assert any("Too long" in m for m in found) is refused, found


# --- exact scores --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "objects,errors,warnings,expected",
    [
        (1, 0, 0, 100),
        (0, 0, 0, 100),
        (0, 1, 0, 16),
        (1, 0, 1, 50),
        (1, 1, 0, 16),
        (10, 1, 0, 66),
        (10, 0, 1, 90),
        (100, 0, 1, 99),
        (99, 0, 1, 99),
        (1000, 1, 0, 99),
        (19, 0, 1, 95),
        (5, 1, 5, 33),
    ],
)
def test_exact_scores(objects, errors, warnings, expected):
    assert score(objects, errors, warnings) == expected


def test_a_single_warning_among_very_many_objects_still_scores_below_100():
    assert score(10**9, 0, 1) == 99
