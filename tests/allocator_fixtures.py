"""Hand-written snapshot builders and a fake selector matcher for the allocator tests.

The fake matcher knows a handful of named predicates instead of CEL; the allocator only needs
"true / false / runtime error" per (selectors, device), which is exactly what it provides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dralint.k8s.allocator import EvalError, Features, Search, Selection, Simulator, parse_claim
from dralint.k8s.allocator.view import State, node_view
from dralint.k8s.inventory import Device, Inventory

DRIVER = "gpu.example.com"


def _attr_is(name: str, value: Any) -> Callable[[Device], bool]:
    kind = "string" if isinstance(value, str) else "int"
    return lambda d: d.attribute(f"{DRIVER}/{name}") == (kind, value)


PREDICATES: dict[str, Callable[[Device], bool | EvalError]] = {
    "is-h100": _attr_is("model", "H100"),
    "is-a100": _attr_is("model", "A100"),
    "is-gpu": lambda d: d.driver == DRIVER,
    "whole-gpu": _attr_is("kind", "gpu"),
    "is-mig": _attr_is("kind", "mig"),
    "needs-ecc": lambda d: (
        d.attribute(f"{DRIVER}/ecc") == ("bool", True)
        if d.attribute(f"{DRIVER}/ecc")
        else EvalError(0, "no such key: ecc")
    ),
}


def fake_matcher(exprs: tuple[str, ...], dev: Device) -> bool | EvalError:
    """All named predicates true; the first error is reported with its selector index."""
    for i, expr in enumerate(exprs):
        got = PREDICATES[expr](dev)
        if isinstance(got, EvalError):
            return EvalError(i, got.message)
        if not got:
            return False
    return True


def device(name: str, **attrs: Any) -> dict[str, Any]:
    """A v1 device with typed attributes; ``capacity``/``consumes``/``taints`` pass through."""
    out: dict[str, Any] = {"name": name, "attributes": {}}
    for key, value in attrs.items():
        if key in ("capacity", "consumesCounters", "taints", "allowMultipleAllocations", "nodeName"):
            out[key] = value
        elif isinstance(value, bool):
            out["attributes"][key] = {"bool": value}
        elif isinstance(value, int):
            out["attributes"][key] = {"int": value}
        else:
            out["attributes"][key] = {"string": value}
    return out


def resource_slice(
    name: str,
    devices: list[dict[str, Any]] | None = None,
    *,
    node: str | None = "n1",
    pool: str | None = None,
    generation: int = 1,
    count: int = 1,
    driver: str = DRIVER,
    counters: dict[str, dict[str, str]] | None = None,
    **selection: Any,
) -> dict[str, Any]:
    """A ResourceSlice; node-local by default, or with allNodes/nodeSelector/perDeviceNodeSelection."""
    spec: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool or node or name, "generation": generation, "resourceSliceCount": count},
    }
    if node and not selection:
        spec["nodeName"] = node
    spec.update(selection)
    if devices is not None:
        spec["devices"] = devices
    if counters is not None:
        spec["sharedCounters"] = [
            {"name": cs, "counters": {k: {"value": v} for k, v in values.items()}} for cs, values in counters.items()
        ]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def device_class(name: str, *selectors: str, ext: str | None = None, created: str = "") -> dict[str, Any]:
    """A DeviceClass with named fake selectors."""
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": s}} for s in selectors]}
    if ext:
        spec["extendedResourceName"] = ext
    meta: dict[str, Any] = {"name": name}
    if created:
        meta["creationTimestamp"] = created
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta, "spec": spec}


def allocated_claim(name: str, *devices: tuple[str, str], shared: dict[str, str] | None = None) -> dict[str, Any]:
    """A ResourceClaim with status.allocation holding (pool, device) pairs of the test driver."""
    results = []
    for pool, dev in devices:
        r: dict[str, Any] = {"request": "r", "driver": DRIVER, "pool": pool, "device": dev}
        if shared is not None:
            r["shareID"] = "11111111-2222-3333-4444-555555555555"
            r["consumedCapacity"] = shared
        results.append(r)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}},
        "status": {"allocation": {"devices": {"results": results}}},
    }


def request(name: str, cls: str = "gpu", **fields: Any) -> dict[str, Any]:
    """A v1 ``exactly`` request."""
    body = {"deviceClassName": cls}
    for key, value in fields.items():
        if key == "selectors":
            body[key] = [{"cel": {"expression": s}} for s in value]
        else:
            body[key] = value
    return {"name": name, "exactly": body}


def claim_spec(*requests: dict[str, Any], constraints: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A ResourceClaimSpec."""
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    return {"devices": devices}


DEFAULT_CLASSES = [device_class("gpu", "is-gpu"), device_class("mig", "is-mig"), device_class("full", "whole-gpu")]


def allocate(
    objects: list[dict[str, Any]],
    *specs: dict[str, Any],
    node: str = "n1",
    budget: int = 200_000,
    features: Features = Features(),
):
    """Run one Allocate(node, claims) and return (results or None, simulator, view, claims)."""
    inv = Inventory.build(objects + [c for c in DEFAULT_CLASSES if c["metadata"]["name"] not in _names(objects)])
    sim = Simulator(inv, inv.device_classes, fake_matcher, budget=budget, features=features)
    claims = [parse_claim(f"c{i}", s) for i, s in enumerate(specs)]
    view = node_view(inv, inv.nodes[node], features)
    results = Search(view, claims, sim.selection, State.from_inventory(inv), budget).run()
    return results, sim, view, claims


def _names(objects: list[dict[str, Any]]) -> set[str]:
    return {o["metadata"]["name"] for o in objects if o.get("kind") == "DeviceClass"}


def picked(results) -> list[tuple[str, str]]:
    """(request, device name) pairs of a result list."""
    return [(p.request, p.device.id.name) for r in results for p in r.picks]


def selection_for(inv: Inventory) -> Selection:
    """A Selection over the inventory's classes with the fake matcher."""
    return Selection(inv.device_classes, fake_matcher)
