"""Seeded scheduling scenarios that dralint simulate and the real v1.37 scheduler both judge.

Each scenario is a small cluster (Nodes with labels, taints, allocatable and kubelet versions;
ResourceSlices of a GPU driver with whole GPUs or MIG partitions on shared counters and of a NIC
driver; DeviceClasses, some mapping an extended resource; claims already allocated) and a
workload (a Deployment of 1-3 replicas whose pods use a claim template, a shared claim or the
extended resource, with selectors, node selectors and affinity, matchAttribute, firstAvailable,
allocationMode All, admin access, device and node tolerations). The same seed gives the same
scenarios on any machine: the recorder runs them on the control plane, the Go-free test runs
dralint on them and compares with the recorded verdicts.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any

SEED = 20261207
COUNT = 320
GPU = "gpu.example.com"
NIC = "nic.example.com"
EXTENDED = "example.com/gpu"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
NODE_TAINT = {"key": "example.com/reserved", "value": "true", "effect": "NoSchedule"}
DEVICE_TAINT = {"key": "example.com/unhealthy", "value": "true", "effect": "NoSchedule"}
ADMIN_LABEL = "resource.kubernetes.io/admin-access"

Obj = dict[str, Any]


@dataclass(frozen=True)
class Scenario:
    """``snapshot`` is the cluster (dralint's --slices), ``workload`` what is deployed into it."""

    id: str
    namespace: str
    snapshot: list[Obj]
    workload: list[Obj]
    replicas: int
    features: tuple[str, ...]

    @property
    def digest(self) -> str:
        """Changes whenever the generator gives this scenario other objects."""
        text = json.dumps([self.snapshot, self.workload, self.replicas], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def deployment(self) -> Obj:
        return next(o for o in self.workload if o["kind"] == "Deployment")


def _attr(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    return {"string": value}


class _Builder:
    def __init__(self, number: int) -> None:
        self.rng = random.Random(f"{SEED}-{number}")
        self.sid = f"s{number:03d}"
        self.namespace = self.sid
        self.features: set[str] = set()
        self.nodes: list[str] = []
        self.devices: dict[str, list[tuple[str, str]]] = {}  # node -> [(device, class kind)]
        self.models: dict[str, str] = {}

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # ---------------------------------------------------------------- the cluster

    def node(self, index: int) -> Obj:
        name = f"{self.sid}-n{index}"
        model = self.rng.choice(["A100", "H100"])
        self.models[name] = model
        labels = {
            "kubernetes.io/hostname": name,
            "example.com/gpu-model": model,
            "topology.kubernetes.io/zone": self.rng.choice(["zone-a", "zone-b"]),
        }
        allocatable = {"cpu": "16", "memory": "64Gi", "pods": "110"}
        spec: Obj = {}
        if self.chance(0.2):
            spec["taints"] = [NODE_TAINT]
            self.features.add("node-taint")
        if self.chance(0.12):
            allocatable[EXTENDED] = str(self.rng.choice([1, 2]))
            self.features.add("device-plugin")
        kubelet = "v1.37.2"
        if self.chance(0.05):
            kubelet = "v1.33.4"
            self.features.add("old-kubelet")
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": spec,
            "status": {
                "capacity": allocatable,
                "allocatable": allocatable,
                "nodeInfo": {"kubeletVersion": kubelet},
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        }

    def gpu_slices(self, node: str, mig: bool) -> list[Obj]:
        count = self.rng.randint(1, 2) if mig else self.rng.randint(1, 4)
        devices: list[Obj] = []
        counters: list[Obj] = []
        for i in range(count):
            base = {
                "type": "gpu",
                "model": self.models[node],
                "index": i,
                PCIE_ROOT: f"pci{i // 2}",
            }
            gpu: Obj = {"name": f"gpu-{i}", "attributes": {k: _attr(v) for k, v in base.items()}}
            gpu["capacity"] = {"memory": {"value": "80Gi"}}
            if self.chance(0.1):
                gpu["taints"] = [DEVICE_TAINT]
                self.features.add("device-taint")
            self.devices.setdefault(node, []).append((gpu["name"], "gpu"))
            if mig:
                counters.append({"name": f"gpu-{i}", "counters": {"compute": {"value": "7"}, "memory": {"value": "8"}}})
                gpu["consumesCounters"] = [
                    {"counterSet": f"gpu-{i}", "counters": {"compute": {"value": "7"}, "memory": {"value": "8"}}}
                ]
            devices.append(gpu)
            if not mig:
                continue
            for part, (compute, memory) in enumerate([(3, 4), (3, 4), (1, 1)]):
                profile = "3g.40gb" if compute == 3 else "1g.10gb"
                attrs = {**base, "type": "mig", "profile": profile}
                devices.append(
                    {
                        "name": f"gpu-{i}-mig-{part}",
                        "attributes": {k: _attr(v) for k, v in attrs.items()},
                        "capacity": {"memory": {"value": f"{memory * 10}Gi"}},
                        "consumesCounters": [
                            {
                                "counterSet": f"gpu-{i}",
                                "counters": {"compute": {"value": str(compute)}, "memory": {"value": str(memory)}},
                            }
                        ],
                    }
                )
                self.devices[node].append((f"gpu-{i}-mig-{part}", "mig"))
        pool = {"name": node, "generation": 1, "resourceSliceCount": 2 if mig else 1}
        slices = []
        if mig:
            self.features.add("mig")
            slices.append(self._slice(f"{node}-counters", GPU, node, pool, sharedCounters=counters))
        slices.append(self._slice(f"{node}-gpus", GPU, node, pool, devices=devices))
        return slices

    def nic_slice(self, node: str) -> Obj | None:
        count = self.rng.randint(0, 2)
        if not count:
            return None
        devices = [
            {"name": f"nic-{i}", "attributes": {"type": _attr("nic"), PCIE_ROOT: _attr(f"pci{i}")}}
            for i in range(count)
        ]
        self.devices.setdefault(node, []).extend((d["name"], "nic") for d in devices)
        pool = {"name": f"{node}-nic", "generation": 1, "resourceSliceCount": 1}
        return self._slice(f"{node}-nics", NIC, node, pool, devices=devices)

    @staticmethod
    def _slice(name: str, driver: str, node: str, pool: Obj, **spec: Any) -> Obj:
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": name},
            "spec": {"driver": driver, "nodeName": node, "pool": pool, **spec},
        }

    def device_class(self, kind: str, driver: str, extended: bool) -> Obj:
        spec: Obj = {
            "selectors": [
                {
                    "cel": {
                        "expression": f'device.driver == "{driver}" && device.attributes["{driver}"].type == "{kind}"'
                    }
                }
            ]
        }
        if extended:
            spec["extendedResourceName"] = EXTENDED
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": f"{self.sid}-{kind}"},
            "spec": spec,
        }

    def allocated_claim(self) -> Obj | None:
        """A claim of another namespace already holding one or two GPUs of one node."""
        candidates = [(n, d) for n in self.nodes for d, kind in self.devices.get(n, []) if kind == "gpu"]
        if not candidates:
            return None
        node = self.rng.choice(sorted({n for n, _ in candidates}))
        mine = [d for n, d in candidates if n == node]
        taken = self.rng.sample(mine, min(len(mine), self.rng.randint(1, 2)))
        self.features.add("allocated-claim")
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "busy", "namespace": f"{self.sid}-other"},
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "gpu", "exactly": {"deviceClassName": f"{self.sid}-gpu", "count": len(taken)}}
                    ]
                }
            },
            "status": {
                "allocation": {
                    "devices": {
                        "results": [{"request": "gpu", "driver": GPU, "pool": node, "device": d} for d in taken]
                    },
                    "nodeSelector": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                        ]
                    },
                }
            },
        }

    # ---------------------------------------------------------------- the workload

    def request(self, name: str, kind: str, admin: bool) -> Obj:
        exactly: Obj = {"deviceClassName": f"{self.sid}-{kind}"}
        if kind == "nic" and self.chance(0.3):
            exactly["allocationMode"] = "All"
            self.features.add("allocation-all")
        elif kind == "gpu":
            exactly["count"] = self.rng.choice([1, 1, 2])
        if kind == "gpu" and self.chance(0.25):
            model = self.rng.choice(["A100", "H100"])
            exactly["selectors"] = [{"cel": {"expression": f'device.attributes["{GPU}"].model == "{model}"'}}]
            self.features.add("request-selector")
        if kind == "gpu" and self.chance(0.15):
            exactly["tolerations"] = [{"key": DEVICE_TAINT["key"], "operator": "Exists", "effect": "NoSchedule"}]
            self.features.add("device-toleration")
        if admin and kind == "gpu":
            exactly["adminAccess"] = True
            self.features.add("admin-access")
        return {"name": name, "exactly": exactly}

    def claim_spec(self, mig: bool, nics: bool, admin: bool) -> Obj:
        requests: list[Obj] = []
        constraints: list[Obj] = []
        if mig and self.chance(0.5):
            requests.append(self.request("gpu", "mig", False))
        elif self.chance(0.3):
            self.features.add("first-available")
            first = self.request("gpu", "gpu", False)["exactly"]
            first.setdefault("selectors", [{"cel": {"expression": f'device.attributes["{GPU}"].model == "H100"'}}])
            second = {"deviceClassName": f"{self.sid}-{'mig' if mig else 'gpu'}"}
            requests.append({"name": "gpu", "firstAvailable": [{"name": "big", **first}, {"name": "any", **second}]})
        else:
            requests.append(self.request("gpu", "gpu", admin))
        if nics and self.chance(0.4):
            requests.append(self.request("nic", "nic", False))
            if self.chance(0.6) and "exactly" in requests[0]:
                constraints.append({"requests": ["gpu", "nic"], "matchAttribute": PCIE_ROOT})
                self.features.add("match-attribute")
        devices: Obj = {"requests": requests}
        if constraints:
            devices["constraints"] = constraints
        return {"devices": devices}

    def build(self) -> Scenario:
        mig = self.chance(0.35)
        nodes = [self.node(i) for i in range(self.rng.randint(1, 3))]
        self.nodes = [n["metadata"]["name"] for n in nodes]
        slices: list[Obj] = []
        for name in self.nodes:
            if self.chance(0.85) or name == self.nodes[0]:
                slices.extend(self.gpu_slices(name, mig))
            nic = self.nic_slice(name)
            if nic is not None:
                slices.append(nic)
        nics = any(s["spec"]["driver"] == NIC for s in slices)
        style = self.rng.choices(["template", "shared", "extended"], weights=[6, 1, 3])[0]
        mapped = style == "extended" and self.chance(0.6)
        if style == "extended":
            self.features.add("extended-mapped" if mapped else "extended-unmapped")
        classes = [self.device_class("gpu", GPU, mapped)]
        if mig:
            classes.append(self.device_class("mig", GPU, False))
        if nics:
            classes.append(self.device_class("nic", NIC, False))
        snapshot: list[Obj] = [*nodes, *slices, *classes]
        if self.chance(0.3):
            busy = self.allocated_claim()
            if busy is not None:
                snapshot.append(busy)
        admin = style == "template" and self.chance(0.08)
        namespace: Obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}}
        if admin:
            namespace["metadata"]["labels"] = {ADMIN_LABEL: "true"}
        workload: list[Obj] = [namespace]
        pod_spec: Obj = {"containers": [{"name": "app", "image": "registry.example.com/app:1.0"}]}
        if style == "template":
            workload.append(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaimTemplate",
                    "metadata": {"name": "gpu", "namespace": self.namespace},
                    "spec": {"spec": self.claim_spec(mig, nics, admin)},
                }
            )
            pod_spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu"}]
            pod_spec["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
        elif style == "shared":
            self.features.add("shared-claim")
            workload.append(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaim",
                    "metadata": {"name": "shared", "namespace": self.namespace},
                    "spec": self.claim_spec(mig, nics, False),
                }
            )
            pod_spec["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "shared"}]
            pod_spec["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
        else:
            count = str(self.rng.choice([1, 1, 2]))
            pod_spec["containers"][0]["resources"] = {"limits": {EXTENDED: count}, "requests": {EXTENDED: count}}
        if self.chance(0.2):
            pod_spec["nodeSelector"] = {"topology.kubernetes.io/zone": self.rng.choice(["zone-a", "zone-b"])}
            self.features.add("node-selector")
        if self.chance(0.15):
            model = self.rng.choice(["A100", "H100"])
            pod_spec["affinity"] = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "example.com/gpu-model", "operator": "In", "values": [model]}
                                ]
                            }
                        ]
                    }
                }
            }
            self.features.add("node-affinity")
        if self.chance(0.5):
            pod_spec["tolerations"] = [{"key": NODE_TAINT["key"], "operator": "Exists", "effect": "NoSchedule"}]
        replicas = self.rng.choice([1, 1, 2, 3])
        if replicas > 1:
            self.features.add("replicas")
        labels = {"app": "work"}
        workload.append(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "work", "namespace": self.namespace},
                "spec": {
                    "replicas": replicas,
                    "selector": {"matchLabels": labels},
                    "template": {"metadata": {"labels": labels}, "spec": pod_spec},
                },
            }
        )
        return Scenario(self.sid, self.namespace, snapshot, workload, replicas, tuple(sorted(self.features)))


def scenarios(count: int = COUNT) -> list[Scenario]:
    """The scenarios, the same for the same seed and count."""
    return [_Builder(number).build() for number in range(count)]
