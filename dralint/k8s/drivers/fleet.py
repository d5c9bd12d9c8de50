"""Small cluster snapshots built from the catalog: ``--slices example:<driver>``.

A fleet is two nodes, each with two devices of every kind the driver publishes with its chart's
defaults (of every kind, for a driver that publishes none by default), the DeviceClasses the
chart installs by default, and the Nodes: real device shapes
(names, attributes, capacities and their types as the release publishes them) with the
catalog's example values.
"""

from __future__ import annotations

from typing import Any

from dralint.k8s.drivers.catalog import Catalog, DriverRelease

__all__ = ["fleet", "fleet_releases"]

NODES = 2
DEVICES_PER_KIND = 2

Obj = dict[str, Any]


def fleet_releases(catalog: Catalog, name: str) -> list[DriverRelease]:
    """The releases ``example:NAME`` stands for: a driver (``gpu.nvidia.com``, newest release),
    a driver at a release (``gpu.nvidia.com@25.8.0``) or a project (``nvidia-dra-driver-gpu``:
    each of its drivers at its newest release); empty for names the catalog does not know."""
    wanted, _, version = name.partition("@")
    drivers = [d for d in catalog.drivers if d == wanted.lower()] or sorted(
        {r.driver for r in catalog.releases if r.project.name == wanted}
    )
    out = []
    for driver in drivers:
        releases = catalog.releases_of(driver)
        chosen = [r for r in releases if r.version == version.lstrip("v")] if version else releases[-1:]
        out += chosen
    return out


def _device(release: DriverRelease, kind: str, index: int) -> Obj:
    attributes: Obj = {}
    for attribute in release.attributes:
        if kind in attribute.kinds:
            name = attribute.ident if attribute.domain == release.driver else attribute.qualified
            attributes[name] = {attribute.type: attribute.value_for(kind)}  # the ResourceSlice keys are the type names
    capacity: Obj = {}
    for entry in release.capacity:
        if kind in entry.kinds:
            name = entry.ident if entry.domain == release.driver else entry.qualified
            capacity[name] = {"value": entry.example}
    shape = next(k for k in release.kinds if k.name == kind)
    device: Obj = {"name": shape.device_name.replace("{i}", str(index)), "attributes": attributes}
    if capacity:
        device["capacity"] = capacity
    return device


def _slice(release: DriverRelease, node: str) -> Obj:
    kinds = [k.name for k in release.kinds if k.default] or [k.name for k in release.kinds]  # asked for by name
    devices = [_device(release, kind, i) for kind in kinds for i in range(DEVICES_PER_KIND)]
    seen: set[str] = set()
    for number, device in enumerate(devices):  # kinds named alike (a fixed name) still get one name each
        if device["name"] in seen:
            device["name"] = f"{device['name']}-{number}"
        seen.add(device["name"])
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{release.driver}"},
        "spec": {
            "driver": release.driver,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def _device_class(release: DriverRelease) -> list[Obj]:
    out = []
    for device_class in release.classes:
        if not device_class.default:
            continue
        spec: Obj = {"selectors": [{"cel": {"expression": s}} for s in device_class.selectors]}
        if device_class.extended_resource_name and device_class.extended_default:
            spec["extendedResourceName"] = device_class.extended_resource_name
        out.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClass",
                "metadata": {"name": device_class.name},
                "spec": spec,
            }
        )
    return out


def fleet(releases: list[DriverRelease]) -> list[Obj]:
    """Nodes, ResourceSlices and DeviceClasses of a small cluster running ``releases``."""
    nodes = [f"node-{i}" for i in range(NODES)]
    objects: list[Obj] = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}}}
        for n in nodes
    ]
    for release in releases:
        objects += _device_class(release)
        objects += [_slice(release, n) for n in nodes]
    return objects
