"""Malformed snapshots and claims never raise: wrong types anywhere give problems or no match."""

from __future__ import annotations

from allocator_fixtures import DEFAULT_CLASSES, fake_matcher
from hypothesis import given, settings
from hypothesis import strategies as st

from dralint.k8s.allocator import Fatal, Simulator, extended_resource_classes, pod_demand
from dralint.k8s.inventory import Inventory

junk = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=4) | st.sampled_from(["1Gi", "x", "-1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


def maybe(value):
    """The well-formed value, or junk of any type in its place."""
    return st.one_of(st.just(value), junk)


device_st = st.fixed_dictionaries(
    {
        "name": maybe("gpu-0"),
        "attributes": maybe({"model": {"string": "H100"}}),
        "capacity": maybe({"memory": {"value": "80Gi", "requestPolicy": {"validRange": {"min": "1", "step": "2"}}}}),
        "consumesCounters": maybe([{"counterSet": "cs", "counters": {"mem": {"value": "1"}}}]),
        "taints": maybe([{"key": "k", "effect": "NoSchedule"}]),
        "allowMultipleAllocations": maybe(True),
        "nodeSelector": maybe(
            {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["x"]}]}]}
        ),
    }
)
slice_st = st.fixed_dictionaries(
    {
        "kind": st.just("ResourceSlice"),
        "metadata": maybe({"name": "s"}),
        "spec": st.fixed_dictionaries(
            {
                "driver": maybe("gpu.example.com"),
                "pool": maybe({"name": "p", "generation": 1, "resourceSliceCount": 1}),
                "nodeName": maybe("n1"),
                "perDeviceNodeSelection": maybe(True),
                "devices": st.lists(device_st, max_size=3) | junk,
                "sharedCounters": maybe([{"name": "cs", "counters": {"mem": {"value": "2"}}}]),
            }
        ),
    }
)
claim_st = st.fixed_dictionaries(
    {
        "devices": st.fixed_dictionaries(
            {
                "requests": st.lists(
                    st.fixed_dictionaries(
                        {
                            "name": maybe("r"),
                            "exactly": maybe(
                                {
                                    "deviceClassName": "gpu",
                                    "count": 2,
                                    "allocationMode": "ExactCount",
                                    "capacity": {"requests": {"memory": "3"}},
                                    "tolerations": [{"operator": "Exists"}],
                                }
                            ),
                        }
                    ),
                    max_size=2,
                )
                | junk,
                "constraints": maybe([{"matchAttribute": "gpu.example.com/model"}]),
            }
        )
    }
)
allocated_st = st.fixed_dictionaries(
    {
        "kind": st.just("ResourceClaim"),
        "metadata": maybe({"name": "done", "namespace": "default"}),
        "status": maybe(
            {
                "allocation": {
                    "devices": {
                        "results": [
                            {
                                "driver": "gpu.example.com",
                                "pool": "p",
                                "device": "gpu-0",
                                "shareID": "x",
                                "consumedCapacity": {"memory": "1"},
                            }
                        ]
                    }
                }
            }
        ),
    }
)


@settings(max_examples=200, deadline=None)
@given(st.lists(slice_st, max_size=3), st.lists(allocated_st, max_size=2), claim_st, junk)
def test_malformed_input_never_raises(slices, claims, spec, containers):
    inv = Inventory.build(slices + claims + DEFAULT_CLASSES)
    ext = extended_resource_classes(inv.device_classes)
    template = {"kind": "ResourceClaimTemplate", "spec": {"spec": spec}}
    pod = {"resourceClaims": [{"name": "c", "resourceClaimTemplateName": "t"}], "containers": containers}
    demand = pod_demand("pod", pod, "default", lambda *_: template, inv, ext)
    outcome = Simulator(inv, inv.device_classes, fake_matcher, ext).place(demand, 2)
    assert outcome.fatal is None or isinstance(outcome.fatal, Fatal)
    assert isinstance(outcome.summary(), str)
