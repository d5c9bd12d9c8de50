"""EXT007: a DeviceClass behind a legacy count (``nvidia.com/gpu: 1``, ``count: 2``) that matches
devices of different kinds in the --slices snapshot.

A count says "N devices" and nothing about which: when the class matches whole GPUs and MIG
partitions, or two models, the allocator takes whichever comes first in its search order, so a
pod written for a whole GPU can run on a slice of one. The finding lists what the class matches
and names an attribute of the snapshot that keeps one kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.checks.scheduling.simulation import simulation
from dralint.diagnostics import Finding
from dralint.k8s.devicekinds import KindSummary, cel_condition, narrowing_attribute, summarize
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.lint.registry import context_check
from dralint.yaml.plain import as_list, as_mapping

CLAIM_KINDS = {"ResourceClaim": ("spec",), "ResourceClaimTemplate": ("spec", "spec")}


def _counted_classes(ctx: Context) -> set[str]:
    """Classes that scanned claims request by count (ExactCount, the default mode)."""
    names: set[str] = set()
    for obj in ctx.scanned:
        base = CLAIM_KINDS.get(obj.kind)
        if base is None:
            continue
        body: Any = obj.data
        for step in base:
            body = as_mapping(body).get(step)
        for request in as_list(as_mapping(as_mapping(body).get("devices")).get("requests")):
            request = as_mapping(request)
            for alt in [as_mapping(request.get("exactly")), *map(as_mapping, as_list(request.get("firstAvailable")))]:
                if alt.get("deviceClassName") and alt.get("allocationMode", "ExactCount") == "ExactCount":
                    names.add(str(alt["deviceClassName"]))
    return names


def _hint(summary: KindSummary, driver: str) -> str:
    keep = max(summary.groups, key=lambda k: (not k.partition, len(summary.groups[k])))
    found = narrowing_attribute(summary, keep)
    if found is None:
        return (
            f"no single attribute tells {keep.label()} apart from the rest; select on capacity or the model "
            "attribute, or give each kind its own DeviceClass"
        )
    qualified, kind, value = found
    return (
        f"to keep only {keep.label()}, add `{cel_condition(driver, qualified, kind, value)}` to the selector; "
        "give the other kinds their own DeviceClass"
    )


@context_check("EXT007")
def check_mixed_devices(ctx: Context) -> Iterator[Finding]:
    """Classes with extendedResourceName or used by count whose matches are of several kinds."""
    sim = simulation(ctx)
    if sim is None:
        return
    counted = _counted_classes(ctx)
    selection = sim.simulator.selection
    for name, obj in sorted(sim.classes.items()):
        ext = obj.get(("spec", "extendedResourceName"))
        if obj.origin != "scan" or not (isinstance(ext, str) and ext or name in counted):
            continue
        selectors = selection.class_selectors(name)
        devices = [d for d in sim.inv.all_devices() if selection.evaluate(selectors, d) is True]
        summary = summarize(devices, sim.inv)
        if not summary.mixed:
            continue
        yield _finding(obj, name, ext if isinstance(ext, str) else None, summary, _hint(summary, devices[0].driver))


def _finding(obj: KubeObject, name: str, ext: str | None, summary: KindSummary, hint: str) -> Finding:
    path = ("spec", "extendedResourceName") if ext else ("metadata", "name")
    asked = f"a pod asking {ext}: 1" if ext else "a request with a count"
    return obj.finding(
        path,
        f"DeviceClass {name} matches devices of different kinds in the snapshot: {summary.describe()}; "
        f"{asked} may get any of them",
        hint=hint,
    )
