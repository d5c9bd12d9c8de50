"""Built-in cluster snapshots, selectable as ``--slices example:<name>``.

They let a user without a cluster see the simulation work, and they are the fixtures of the
examples/ directory. Each is generated from a few parameters rather than stored as thousands of
YAML lines, so the shapes (pools, counter sets, claims in status) stay consistent by construction.
Everything here is invented; the attribute names follow the public drivers' conventions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

from dralint.yaml.sources import FileIssue, SourceFile

PREFIX = "example:"

Obj = dict[str, Any]

NVIDIA = "gpu.nvidia.com"
EXAMPLE = "gpu.example.com"
NET = "net.example.com"

#: MIG profiles of an 80 GB H100 per device name suffix: (memory slices, compute slices, count).
H100_MIG = {"3g.40gb": (4, 3, 2), "1g.10gb": (1, 1, 7)}


def _meta(name: str, **labels: str) -> Obj:
    return {"name": name, "labels": labels} if labels else {"name": name}


def _node(name: str, **labels: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Node", "metadata": _meta(name, **{"kubernetes.io/hostname": name, **labels})}


def _class(name: str, expression: str, ext: str | None = None) -> Obj:
    spec: Obj = {"selectors": [{"cel": {"expression": expression}}]}
    if ext:
        spec["extendedResourceName"] = ext
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": _meta(name), "spec": spec}


def _slice(name: str, driver: str, pool: str, count: int, body: Obj) -> Obj:
    spec = {"driver": driver, "pool": {"name": pool, "generation": 1, "resourceSliceCount": count}, **body}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": _meta(name), "spec": spec}


def _attrs(**values: Any) -> Obj:
    out = {}
    for key, value in values.items():
        kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "string"
        out[key.replace("_", "")] = {kind: value}
    return out


def _claim(name: str, namespace: str, driver: str, pool: str, devices: list[str], node: str) -> Obj:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "mig.nvidia.com"}}]}},
        "status": {
            "allocation": {
                "devices": {
                    "results": [{"request": "gpu", "driver": driver, "pool": pool, "device": d} for d in devices]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                    ]
                },
            }
        },
    }


def _h100_gpu(node: str, index: int) -> tuple[Obj, list[Obj]]:
    """Counter set and devices (whole GPU + MIG partitions) of one H100 on one node."""
    counter_set = f"gpu-{index}"
    counters = {"memory": {"value": "8"}, "compute": {"value": "7"}}
    root = f"pci0000:{index // 4:02x}"
    common = dict(productName="NVIDIA H100 80GB HBM3", architecture="Hopper", pcieRoot=root, index=index)

    def consume(mem: int, compute: int) -> list[Obj]:
        return [
            {
                "counterSet": counter_set,
                "counters": {"memory": {"value": str(mem)}, "compute": {"value": str(compute)}},
            }
        ]

    devices = [
        {
            "name": f"gpu-{index}",
            "attributes": _attrs(type="gpu", uuid=f"GPU-{node}-{index}", **common),
            "capacity": {"memory": {"value": "80Gi"}},
            "consumesCounters": consume(8, 7),
        }
    ]
    for profile, (mem, compute, count) in H100_MIG.items():
        for k in range(count):
            devices.append(
                {
                    "name": f"gpu-{index}-mig-{profile}-{k}",
                    "attributes": _attrs(type="mig", profile=profile, parentIndex=index, **common),
                    "capacity": {"memory": {"value": f"{mem * 10}Gi"}},
                    "consumesCounters": consume(mem, compute),
                }
            )
    return {"name": counter_set, "counters": counters}, devices


def h100_mig(nodes: int = 4) -> list[Obj]:
    """``nodes`` nodes with 8 partitionable H100s each; some partitions in use, one GPU tainted.

    Per node: one slice with the 8 counter sets and two device slices of 4 GPUs (the 64-device
    limit for slices with counters), all in one pool named after the node.
    """
    objs: list[Obj] = [
        _class("gpu.nvidia.com", f"device.driver == '{NVIDIA}' && device.attributes['{NVIDIA}'].type == 'gpu'"),
        _class("mig.nvidia.com", f"device.driver == '{NVIDIA}' && device.attributes['{NVIDIA}'].type == 'mig'"),
    ]
    for n in range(nodes):
        node = f"h100-node-{n}"
        objs.append(_node(node, **{"nvidia.com/gpu.product": "H100", "topology.kubernetes.io/zone": f"zone-{n % 2}"}))
        sets: list[Obj] = []
        halves: list[list[Obj]] = [[], []]
        for i in range(8):
            cs, devices = _h100_gpu(node, i)
            sets.append(cs)
            halves[i // 4].extend(devices)
        if n == 1:
            halves[0][0]["taints"] = [{"key": "nvidia.com/gpu-unhealthy", "value": "xid-79", "effect": "NoSchedule"}]
        objs.append(_slice(f"{node}-counters", NVIDIA, node, 3, {"nodeName": node, "sharedCounters": sets}))
        for h, devices in enumerate(halves):
            objs.append(_slice(f"{node}-gpus-{h}", NVIDIA, node, 3, {"nodeName": node, "devices": devices}))
    # Node 0 runs inference pods on MIG slices of GPU 0 and 1: those GPUs are no longer whole.
    objs.append(_claim("inference-0", "serving", NVIDIA, "h100-node-0", ["gpu-0-mig-3g.40gb-0"], "h100-node-0"))
    objs.append(_claim("inference-1", "serving", NVIDIA, "h100-node-0", ["gpu-1-mig-1g.10gb-0"], "h100-node-0"))
    return objs


def mixed() -> list[Obj]:
    """Two A100 nodes, one L4 node, and a network pool shared by a rack with consumable bandwidth."""
    objs: list[Obj] = [
        _class("gpu.example.com", f"device.driver == '{EXAMPLE}'", ext="example.com/gpu"),
        _class("a100.example.com", f"device.driver == '{EXAMPLE}' && device.attributes['{EXAMPLE}'].model == 'A100'"),
        _class("nic.example.com", f"device.driver == '{NET}'"),
    ]
    layout = {"a100-0": ("A100", 4, "rack-a"), "a100-1": ("A100", 4, "rack-a"), "l4-0": ("L4", 2, "rack-b")}
    for node, (model, count, rack) in layout.items():
        objs.append(_node(node, rack=rack))
        devices = [
            {
                "name": f"gpu-{i}",
                "attributes": _attrs(model=model, index=i, numa=i * 2 // count),
                "capacity": {"memory": {"value": "80Gi" if model == "A100" else "24Gi"}},
            }
            for i in range(count)
        ]
        objs.append(_slice(f"{node}-gpus", EXAMPLE, node, 1, {"nodeName": node, "devices": devices}))
    bandwidth = {
        "value": "100G",
        "requestPolicy": {"default": "1G", "validRange": {"min": "1G", "max": "100G", "step": "1G"}},
    }
    nics = [
        {
            "name": f"uplink-{i}",
            "allowMultipleAllocations": True,
            "attributes": _attrs(rack="rack-a", speed="100G"),
            "capacity": {"bandwidth": bandwidth},
        }
        for i in range(2)
    ]
    rack_a = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["rack-a"]}]}]}
    objs.append(_slice("rack-a-uplinks", NET, "rack-a", 1, {"nodeSelector": rack_a, "devices": nics}))
    return objs


def kind_example(gpus: int = 8) -> list[Obj]:
    """One node of the dra-example-driver's kind cluster: ``gpus`` fake GPUs, class gpu.example.com."""
    node = "dra-example-driver-cluster-worker"
    devices = [
        {
            "name": f"gpu-{i}",
            "attributes": _attrs(model="LATEST-GPU-MODEL", index=i, driverVersion="1.0.0"),
            "capacity": {"memory": {"value": "80Gi"}},
        }
        for i in range(gpus)
    ]
    return [
        _class("gpu.example.com", f"device.driver == '{EXAMPLE}'"),
        _node(node),
        _slice(f"{node}-gpu.example.com", EXAMPLE, node, 1, {"nodeName": node, "devices": devices}),
    ]


EXAMPLES: dict[str, tuple[str, Callable[[], list[Obj]]]] = {
    "h100-mig": ("4 nodes x 8 H100 with MIG partitions on shared counters", h100_mig),
    "mixed": ("A100 and L4 nodes plus a rack-wide NIC pool with consumable bandwidth", mixed),
    "kind": ("the dra-example-driver kind worker with 8 example GPUs", kind_example),
}


def load_example(name: str) -> list[Obj]:
    """Objects of a built-in snapshot, or of a catalog driver's fleet (``example:gpu.nvidia.com``,
    ``example:gpu.nvidia.com@25.8.0``, ``example:nvidia-dra-driver-gpu``); KeyError with the
    known names for a typo."""
    if name in EXAMPLES:
        return EXAMPLES[name][1]()
    from dralint.k8s.drivers import builtin_catalog
    from dralint.k8s.drivers.fleet import fleet, fleet_releases

    catalog = builtin_catalog()
    releases = fleet_releases(catalog, name)
    if not releases:
        raise KeyError(
            f"unknown example snapshot {name!r}; known: {', '.join(sorted(EXAMPLES))}, or a driver of the catalog "
            f"({', '.join(catalog.drivers)}), optionally @VERSION"
        )
    return fleet(releases)


def example_sources(paths: list[str]) -> list[SourceFile | FileIssue]:
    """``example:<name>`` entries of ``--slices`` as in-memory YAML files (others are skipped).

    Rendering to YAML lets the built-in snapshots go through the same loader as a user's file,
    so findings on them carry positions like any other snapshot.
    """
    out: list[SourceFile | FileIssue] = []
    for path in paths:
        if not path.startswith(PREFIX):
            continue
        try:
            objects = load_example(path[len(PREFIX) :])
        except KeyError as exc:
            out.append(FileIssue(path, "unreadable", str(exc.args[0])))
            continue
        out.append(SourceFile(path, yaml.safe_dump_all(objects, sort_keys=False)))
    return out
