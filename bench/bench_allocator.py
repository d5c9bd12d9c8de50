"""Benchmark: simulate 200 pod templates on a 1,000-node x 8-device snapshot.

    PYTHONPATH=. python bench/bench_allocator.py [--nodes 1000] [--devices 8] [--templates 200]
                                                 [--allocated 0.25] [--uuids] [--pipeline]

Prints the time to build the inventory, the time to place every template on every node
(replicas packed), and the peak resident memory. Selectors run through the real CEL adapter. With
``--pipeline`` the same input is also written to disk and run through ``dralint lint`` end to
end (YAML parsing, positions, all checks), which is what a user waits for.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DRIVER = "gpu.example.com"


def _rss_mib() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def snapshot(
    nodes: int, per_node: int, allocated: float = 0.25, seed: int = 7, uuids: bool = False
) -> list[dict[str, Any]]:
    """Node-local slices of ``per_node`` GPUs, two models, two PCIe roots, a share allocated.

    As in ``kubectl get resourceslices`` output, slice, node and pool names differ per node and
    device names repeat on every node. Each device is allocated with probability ``allocated``,
    so nodes differ by which devices are free (with 8 devices, up to 256 patterns per model):
    the equivalence classes of ``dralint simulate`` number a few hundred, not two.
    ``allocated=0`` gives the best case (two classes: one per model). ``uuids`` adds a unique
    ``uuid`` attribute per device, as real drivers publish (NVIDIA's: uuid, pciBusID): every
    node is then a class of its own, the worst case.
    """
    rng, ids = random.Random(seed), random.Random(seed + 1)
    objs: list[dict[str, Any]] = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu.example.com"},
            "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]},
        }
    ]
    results = []
    for n in range(nodes):
        node = f"node-{n:04d}"
        model = "H100" if n % 3 else "A100"
        devices = [
            {
                "name": f"gpu-{i}",
                "attributes": {
                    "model": {"string": model},
                    "index": {"int": i},
                    "pciRoot": {"string": f"root-{i * 2 // per_node}"},
                },
                "capacity": {"memory": {"value": "80Gi"}},
            }
            for i in range(per_node)
        ]
        if uuids:
            for dev in devices:
                dev["attributes"]["uuid"] = {"string": f"GPU-{ids.getrandbits(128):032x}"}
        objs.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{node}-gpus"},
                "spec": {
                    "driver": DRIVER,
                    "nodeName": node,
                    "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                    "devices": devices,
                },
            }
        )
        for i in range(per_node):
            if rng.random() < allocated:
                results.append({"request": "gpu", "driver": DRIVER, "pool": node, "device": f"gpu-{i}"})
    objs.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "running", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
            "status": {"allocation": {"devices": {"results": results}}},
        }
    )
    return objs


def workloads(count: int, per_node: int, seed: int = 11) -> list[dict[str, Any]]:
    """Deployments with claim templates: 1..per_node GPUs, model selectors, constraints, fallbacks."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for t in range(count):
        gpus = rng.choice([1, 1, 2, 4, per_node, per_node + 1])
        request: dict[str, Any] = {"deviceClassName": "gpu.example.com", "count": gpus}
        if t % 4 == 1:
            request["selectors"] = [{"cel": {"expression": f"device.attributes['{DRIVER}'].model == 'H100'"}}]
        devices: dict[str, Any] = {"requests": [{"name": "gpus", "exactly": request}]}
        if t % 5 == 2:
            devices["constraints"] = [{"matchAttribute": f"{DRIVER}/pciRoot"}]
        if t % 7 == 3:
            devices["requests"] = [
                {
                    "name": "gpus",
                    "firstAvailable": [
                        {"name": "many", **request, "count": per_node * 2},
                        {"name": "few", **request, "count": max(1, gpus // 2)},
                    ],
                }
            ]
        out.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": f"t{t}", "namespace": "default"},
                "spec": {"spec": {"devices": devices}},
            }
        )
        out.append(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": f"w{t}", "namespace": "default"},
                "spec": {
                    "replicas": rng.choice([1, 2, 4, 16]),
                    "selector": {"matchLabels": {"app": f"w{t}"}},
                    "template": {
                        "metadata": {"labels": {"app": f"w{t}"}},
                        "spec": {
                            "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": f"t{t}"}],
                            "containers": [{"name": "main", "image": "registry.example.com/app:1"}],
                        },
                    },
                },
            }
        )
    return out


def direct(nodes: int, per_node: int, templates: int, allocated: float, uuids: bool = False) -> None:
    """Inventory + simulator on plain dicts: the allocator's own cost, in both walk modes."""
    from dralint.checks.scheduling.simulation import cel_matcher
    from dralint.k8s.allocator import Simulator, extended_resource_classes, pod_demand
    from dralint.k8s.inventory import Inventory

    snap = snapshot(nodes, per_node, allocated, uuids=uuids)
    work = workloads(templates, per_node)
    index = {(o["kind"], "default", o["metadata"]["name"]): o for o in work}
    rss0 = _rss_mib()
    t0 = time.perf_counter()
    inv = Inventory.build(snap)
    t1 = time.perf_counter()
    ext = extended_resource_classes(inv.device_classes)
    print(f"snapshot: {nodes} nodes x {per_node} devices = {len(inv.devices)} devices; {templates} templates")
    print(f"inventory build: {t1 - t0:.2f} s")
    for every_node, what in ((False, "lint rules (stop once replicas are placed)"), (True, "simulate (every node)")):
        sim = Simulator(inv, inv.device_classes, cel_matcher(), ext)
        fits = placed = wanted = 0
        t2 = time.perf_counter()
        for obj in work:
            if obj["kind"] != "Deployment":
                continue
            spec = obj["spec"]["template"]["spec"]
            demand = pod_demand(
                obj["metadata"]["name"], spec, "default", lambda k, ns, n: index.get((k, ns, n)), inv, ext
            )
            outcome = sim.place(demand, obj["spec"]["replicas"], every_node=every_node)
            fits += outcome.schedulable
            placed += outcome.placed
            wanted += obj["spec"]["replicas"]
        t3 = time.perf_counter()
        print(f"placement, {what}: {t3 - t2:.2f} s; schedulable {fits}/{templates}, replicas placed {placed}/{wanted}")
    print(f"max RSS growth during build + placement: {_rss_mib() - rss0:.0f} MiB")


def pipeline(nodes: int, per_node: int, templates: int, allocated: float, uuids: bool = False) -> None:
    """The same input through ``lint`` from files on disk (YAML parse and every check)."""
    from dralint.lint.engine import lint
    from dralint.lint.options import LintOptions

    with tempfile.TemporaryDirectory() as tmp:
        slices = Path(tmp) / "slices.yaml"
        manifests = Path(tmp) / "workloads.yaml"
        slices.write_text(yaml.safe_dump_all(snapshot(nodes, per_node, allocated, uuids=uuids)), encoding="utf-8")
        manifests.write_text(yaml.safe_dump_all(workloads(templates, per_node)), encoding="utf-8")
        t0 = time.perf_counter()
        result = lint(LintOptions(paths=[str(manifests)], slices=[str(slices)], profile="strict"))
        t1 = time.perf_counter()
    sch = sum(1 for d in result.diagnostics if d.rule.startswith("SCH"))
    print(f"end-to-end `dralint lint` with the snapshot: {t1 - t0:.2f} s ({sch} SCH findings)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument("--templates", type=int, default=200)
    parser.add_argument("--allocated", type=float, default=0.25, help="share of devices already in use")
    parser.add_argument("--uuids", action="store_true", help="a unique uuid attribute per device (every node distinct)")
    parser.add_argument("--pipeline", action="store_true")
    args = parser.parse_args()
    direct(args.nodes, args.devices, args.templates, args.allocated, args.uuids)
    if args.pipeline:
        pipeline(args.nodes, args.devices, args.templates, args.allocated, args.uuids)
    print(f"max RSS of the process: {_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
