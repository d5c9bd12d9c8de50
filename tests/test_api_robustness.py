"""Any value in any place must give findings, never an exception: each node of a few rich
manifests is replaced, one at a time, by values of every JSON type (and YAML-only ones)."""

from __future__ import annotations

import copy
import datetime
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from dra_manifests import resource_claim

from dralint.k8s.apivalidation import check_pod_spec, validate_object

MANIFESTS = (
    resource_claim(
        """
firstAvailable:
- name: big
  deviceClassName: big.example.com
  tolerations: [{key: k, operator: Exists}]
  derivedAttributes: [{name: example.com/numa, expression: "1"}]
  capacity: {requests: {bw: 1Gi}}
""",
        """
constraints:
- {requests: [gpu/big, gpu], matchAttribute: example.com/numa}
config:
- {requests: [gpu], opaque: {driver: nic.example.com, parameters: {a: 1}}}
""",
    )
    + """---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  perDeviceNodeSelection: true
  partitionTypeAttribute: gpu.example.com/type
  skipNodeOperations: [NodePrepareResources]
  pool: {name: p, generation: 0, resourceSliceCount: 1}
  devices:
  - name: d
    nodeName: n
    allowMultipleAllocations: true
    attributes: {type: {string: x}, v: {versions: [1.0.0]}}
    capacity: {mem: {value: 8Gi, requestPolicy: {default: 1Gi, validRange: {min: 1Gi, step: 1Gi}}}}
    consumesCounters: [{counterSet: cs, counters: {mem: {value: 1Gi}}}]
    nodeAllocatableResources: {cpu: {mapping: {capacityKey: mem, capacityMultiplier: 1}, overhead: {perPod: 1}}}
    bindingConditions: [a]
    bindingFailureConditions: [b]
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: t}]
  containers:
  - name: c
    resources: {claims: [{name: gpu, request: big}], limits: {example.com/gpu: 1}, requests: {example.com/gpu: 1}}
"""
)
ODD_VALUES: list[Any] = [
    None,
    0,
    -1,
    1.5,
    True,
    "",
    "A_B",
    [],
    [None],
    {},
    {"a": {}},
    {1: 2},
    [[1]],
    datetime.date(2024, 1, 1),
]


def _paths(node: Any, path: tuple = ()) -> Iterator[tuple]:
    if path:
        yield path
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _paths(child, path + (key,))


def _replaced(document: dict[str, Any], path: tuple, value: Any) -> dict[str, Any]:
    copied = copy.deepcopy(document)
    node = copied
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = copy.deepcopy(value)
    return copied


@pytest.mark.parametrize("document", list(yaml.safe_load_all(MANIFESTS)), ids=lambda d: d["kind"])
def test_no_exception_for_any_value_anywhere(document):
    for path in _paths(document):
        for value in ODD_VALUES:
            mutated = _replaced(document, path, value)
            try:
                validate_object(mutated)
                check_pod_spec(mutated.get("spec"), ("spec",))
            except Exception as error:  # report which replacement broke it
                pytest.fail(f"{path} = {value!r}: {type(error).__name__}: {error}")
