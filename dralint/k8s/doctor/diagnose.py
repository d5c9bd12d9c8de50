"""Explain one Pending or failing device pod the way an operator would check it, step by step.

The steps, in order: what the scheduler said; (a) do drivers publish usable devices for the
nodes the pod may run on (slices per node, complete pools, current generation); (b) do its
claims exist, are they allocated and reserved for it, on which devices (including the claim the
scheduler generates for extended resources); (c) does the pod status record them; (d) would the
allocator place it now, on the dump's free devices (devices of allocated claims are taken); then
for a pod on a node, the node's kubelet and device plugin, and the containers' waiting reasons.
Each step carries the ``kubectl`` command that shows its evidence.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from dralint.diagnostics import internal_error
from dralint.k8s.allocator import Outcome, Simulator, extended_resource_classes, pod_demand
from dralint.k8s.allocator.model import parse_claim
from dralint.k8s.allocator.nodeselector import SelectorError, labels_match, node_matches
from dralint.k8s.allocator.search import ClaimResult, Pick
from dralint.k8s.allocator.simulate import kubelet_features
from dralint.k8s.cel import Device as CelDevice
from dralint.k8s.cel import matching_devices
from dralint.k8s.celmatch import cel_matcher, cel_view
from dralint.k8s.devicekinds import device_kind
from dralint.k8s.doctor.dump import Dump
from dralint.k8s.images import KUBELET_REASON, image_problem
from dralint.k8s.inventory import Device, DeviceId, Inventory, Node
from dralint.k8s.kubelet import describe, too_old
from dralint.k8s.migration import is_extended_resource_name, same_vendor
from dralint.k8s.objects import KubeObject
from dralint.yaml.plain import as_list, as_mapping

OK, NOTE, WARNING, PROBLEM = "ok", "note", "warning", "problem"
#: Waiting reasons of a container that is merely on its way.
TRANSIENT_WAITING = frozenset({"ContainerCreating", "PodInitializing"})
#: Annotations the resourceclaim controller and the scheduler put on the claims they generate.
POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name"
EXTENDED_CLAIM = "resource.kubernetes.io/extended-resource-claim"


@dataclass(frozen=True)
class Step:
    """One check: ``status`` is ok, note, warning (a risk that does not block the pod) or problem
    (a reason the pod is stuck); ``command`` shows the evidence."""

    check: str
    status: str
    message: str
    command: str


@dataclass
class Diagnosis:
    """Everything found about one pod; the first problem is why it is stuck."""

    namespace: str
    name: str
    phase: str
    node: str | None
    steps: list[Step] = field(default_factory=list)

    @property
    def stuck(self) -> Step | None:
        """The first problem step, or None when dralint cannot name a cause."""
        return next((s for s in self.steps if s.status == PROBLEM), None)


def _waiting(pod: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(container, reason, message) of every container whose state is waiting."""
    status = as_mapping(pod.get("status"))
    out = []
    for key in ("initContainerStatuses", "containerStatuses"):
        for entry in as_list(status.get(key)):
            waiting = as_mapping(as_mapping(as_mapping(entry).get("state")).get("waiting"))
            if waiting.get("reason"):
                out.append(
                    (str(as_mapping(entry).get("name")), str(waiting["reason"]), str(waiting.get("message") or ""))
                )
    return out


def examined(pod: Mapping[str, Any]) -> bool:
    """Pending, Failed, or with a container waiting for a reason other than normal start-up."""
    phase = as_mapping(pod.get("status")).get("phase") or "Pending"
    return phase in ("Pending", "Failed") or any(reason not in TRANSIENT_WAITING for _, reason, _ in _waiting(pod))


def uses_devices(pod: KubeObject, ext: Mapping[str, str], unprovided: set[str]) -> bool:
    """The pod has claims, an extended-resource claim, or asks for a resource a class maps or
    nothing provides (``unprovided``: the migration's first pitfall, a class without
    ``extendedResourceName`` after the device plugin is gone)."""
    spec = as_mapping(pod.data.get("spec"))
    if as_list(spec.get("resourceClaims")) or as_mapping(pod.data.get("status")).get("extendedResourceClaimStatus"):
        return True
    return bool(_extended_wanted(spec) & (set(ext) | unprovided))


def _extended_wanted(spec: Mapping[str, Any]) -> set[str]:
    names: set[str] = set()
    for key in ("initContainers", "containers"):
        for container in as_list(spec.get(key)):
            resources = as_mapping(as_mapping(container).get("resources"))
            for part in ("limits", "requests"):
                names.update(str(n) for n in as_mapping(resources.get(part)))
    return names


def _device_text(device_id: DeviceId, inv: Inventory) -> str:
    dev = inv.devices.get(device_id)
    return (
        f"{device_id} ({device_kind(dev, inv).label()})"
        if dev is not None
        else f"{device_id} (not in any ResourceSlice)"
    )


class PodDoctor:
    """The shared state of one doctor run: the dump, its inventory and the simulator."""

    def __init__(self, dump: Dump) -> None:
        self.dump = dump
        self.inv = Inventory.build(dump.objects)
        classes = dump.classes()
        self.ext = extended_resource_classes(classes)
        self._views: dict[DeviceId, CelDevice] = {}
        self.sim = Simulator(self.inv, classes, cel_matcher(self._views), self.ext)
        self._matched: dict[str, list[Device]] = {}
        advertised = {str(r) for node in self.inv.nodes.values() for r, q in node.allocatable.items() if _positive(q)}
        self.unprovided = {
            name
            for pod in dump.of_kind("Pod")
            for name in _extended_wanted(as_mapping(pod.data.get("spec")))
            if is_extended_resource_name(name) and name not in self.ext and name not in advertised
        }

    # ------------------------------------------------------------------ helpers

    def _class_devices(self, class_name: str) -> list[Device]:
        """Devices of the whole dump that the class selectors match (once per class and run)."""
        found = self._matched.get(class_name)
        if found is None:
            selectors = self.sim.selection.class_selectors(class_name)
            found = self._matched[class_name] = [
                d for d in self.inv.all_devices() if self.sim.selection.evaluate(selectors, d) is True
            ]
        return found

    def claim_spec(self, pod: KubeObject, entry: Mapping[str, Any], claim: KubeObject | None) -> Mapping[str, Any]:
        if claim is not None:
            return as_mapping(claim.data.get("spec"))
        template = self.dump.get(
            "ResourceClaimTemplate", pod.namespace, str(entry.get("resourceClaimTemplateName") or "")
        )
        return as_mapping(as_mapping(template.data.get("spec")).get("spec")) if template is not None else {}

    def generated_claim(self, pod: KubeObject, annotation: str, value: str | None) -> KubeObject | None:
        """A claim owned by the pod that carries ``annotation`` (with ``value`` when given)."""
        uid = as_mapping(pod.data.get("metadata")).get("uid")
        for claim in self.dump.of_kind("ResourceClaim"):
            if claim.namespace != pod.namespace:
                continue
            meta = as_mapping(claim.data.get("metadata"))
            owners = [as_mapping(o) for o in as_list(meta.get("ownerReferences"))]
            owned = any(
                o.get("kind") == "Pod" and (o.get("uid") == uid if uid else o.get("name") == pod.name) for o in owners
            )
            note = as_mapping(meta.get("annotations")).get(annotation)
            if owned and note is not None and (value is None or note == value):
                return claim
        return None

    def candidate_nodes(self, pod: KubeObject) -> list[Node]:
        """The nodes the pod may run on: its node, or those its selector and affinity allow."""
        spec = as_mapping(pod.data.get("spec"))
        if spec.get("nodeName"):
            node = self.inv.nodes.get(str(spec["nodeName"]))
            return [node] if node is not None else []
        selector = {str(k): str(v) for k, v in as_mapping(spec.get("nodeSelector")).items()}
        required = as_mapping(
            as_mapping(as_mapping(spec.get("affinity")).get("nodeAffinity")).get(
                "requiredDuringSchedulingIgnoredDuringExecution"
            )
        )
        out = []
        for name in self.inv.node_names():
            node = self.inv.nodes[name]
            try:
                if labels_match(selector, node.labels) and (not required or node_matches(required, name, node.labels)):
                    out.append(node)
            except SelectorError:
                continue
        return out

    # ------------------------------------------------------------------ the run

    def run(self) -> list[Diagnosis]:
        """A diagnosis for every pod of the dump that uses devices and is Pending or failing."""
        return [
            self._guarded(pod)
            for pod in self.dump.of_kind("Pod")
            if uses_devices(pod, self.ext, self.unprovided) and examined(pod.data)
        ]

    def _guarded(self, pod: KubeObject) -> Diagnosis:
        """``diagnose``, or a diagnosis that names the bug it met: one pod's odd data must not
        cost the others theirs."""
        try:
            return self.diagnose(pod)
        except Exception as error:  # one broken diagnosis must not stop the others
            found = Diagnosis(pod.namespace or "default", pod.name, "Unknown", None)
            message = f"{internal_error('the diagnosis of this pod', error)}; the other pods were still diagnosed"
            found.steps.append(
                Step("dralint", WARNING, message, f"kubectl get pod -n {found.namespace} {pod.name} -o yaml")
            )
            return found

    def diagnose(self, pod: KubeObject) -> Diagnosis:
        """All steps for one pod."""
        spec = as_mapping(pod.data.get("spec"))
        status = as_mapping(pod.data.get("status"))
        node_name = str(spec["nodeName"]) if spec.get("nodeName") else None
        result = Diagnosis(pod.namespace or "default", pod.name, str(status.get("phase") or "Pending"), node_name)
        claims = ClaimFinder(self, pod)
        result.steps.extend(self._scheduler(pod, node_name))
        result.steps.extend(self._events(pod))
        result.steps.extend(self._unprovided(pod))
        result.steps.extend(self._drivers(pod, claims))
        result.steps.extend(claims.steps())
        result.steps.extend(claims.status_steps())
        if node_name is None:
            result.steps.extend(self._allocation(pod, claims))
        else:
            result.steps.extend(self._node(pod, node_name, claims))
        result.steps.extend(_containers(pod))
        return result

    def _scheduler(self, pod: KubeObject, node_name: str | None) -> Iterator[Step]:
        ref = f"-n {pod.namespace} {pod.name}"
        if node_name is not None:
            yield Step("scheduler", OK, f"scheduled to node {node_name}", f"kubectl get pod {ref} -o wide")
            return
        for cond in as_list(as_mapping(pod.data.get("status")).get("conditions")):
            cond = as_mapping(cond)
            if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
                said = f"{cond.get('reason') or 'not scheduled'}: {cond.get('message') or '(no message)'}"
                yield Step(
                    "scheduler", NOTE, f"not scheduled; the scheduler says {said}", f"kubectl describe pod {ref}"
                )
                return
        yield Step(
            "scheduler",
            NOTE,
            "not scheduled and no PodScheduled condition: the scheduler has not tried "
            "it yet (it holds back pods whose claims do not exist) or no scheduler serves schedulerName "
            f"{as_mapping(pod.data.get('spec')).get('schedulerName') or 'default-scheduler'}",
            f"kubectl get pod {ref} -o yaml",
        )

    def _events(self, pod: KubeObject) -> Iterator[Step]:
        """The pod's latest Warning events (a cluster read lists them; a dump may hold them)."""
        uid = as_mapping(pod.data.get("metadata")).get("uid")
        mine = []
        for event in self.dump.of_kind("Event"):
            involved = as_mapping(event.data.get("involvedObject"))
            same = involved.get("uid") == uid if uid else involved.get("name") == pod.name
            if (
                event.namespace == pod.namespace
                and involved.get("kind") == "Pod"
                and same
                and event.data.get("type") == "Warning"
            ):
                mine.append(event.data)
        if not mine:
            return
        mine.sort(key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
        shown = "; ".join(
            f"{e.get('reason')}"
            + (f" (x{e['count']})" if isinstance(e.get("count"), int) and e["count"] > 1 else "")
            + f": {str(e.get('message') or '').strip()}"
            for e in mine[-3:]
        )
        yield Step(
            "events",
            NOTE,
            f"latest warning event{'s' if len(mine) > 1 else ''}: {shown}",
            f"kubectl get events -n {pod.namespace} --field-selector involvedObject.name={pod.name}",
        )

    def _unprovided(self, pod: KubeObject) -> Iterator[Step]:
        """Extended resources that no DeviceClass maps and no node advertises (lint's EXT001),
        with the class that selects the same vendor's devices and could map the name."""
        for resource in sorted(_extended_wanted(as_mapping(pod.data.get("spec"))) & self.unprovided):
            candidates = sorted(
                name
                for name in self.inv.device_classes
                if any(same_vendor(resource, d.driver) for d in self._class_devices(name))
            )
            if candidates:
                advice = (
                    f"DeviceClass {candidates[0]} selects that vendor's devices: set its "
                    f"spec.extendedResourceName: {resource} to serve the pod through DRA"
                )
            else:
                advice = "map it with spec.extendedResourceName on the DeviceClass of these devices"
            yield Step(
                "extended resources",
                PROBLEM,
                f"{resource}: no DeviceClass maps it (spec.extendedResourceName) and no node advertises it "
                f"in status.allocatable (no device plugin), so the scheduler reports Insufficient {resource}; "
                + advice,
                "kubectl get deviceclasses -o custom-columns=NAME:.metadata.name,RESOURCE:.spec.extendedResourceName",
            )

    def _no_device_step(self, class_name: str, command: str) -> Step:
        """Why a class matches nothing: no device at all (the driver), or its selector (lint's CEL015)."""
        devices = list(self.inv.all_devices())
        selectors = self.sim.selection.class_selectors(class_name)
        if devices and selectors:
            selection = matching_devices(selectors, [cel_view(self._views, d) for d in devices])
            if not selection.unsupported and not selection.errors:
                drivers = ", ".join(f"{count} of {driver}" for driver, count in selection.drivers.most_common(4))
                culprit = (
                    f"`{selection.excluded_by[1].text}` in spec.selectors[{selection.excluded_by[0]}] is false"
                    if selection.excluded_by is not None
                    else "its selectors are false together"
                )
                return Step(
                    "drivers",
                    PROBLEM,
                    f"DeviceClass {class_name} matches none of the {selection.considered} published devices "
                    f"({drivers}): {culprit} for all of them; compare the selector with what the driver publishes",
                    f"kubectl get deviceclass {class_name} -o yaml",
                )
        return Step(
            "drivers",
            PROBLEM,
            f"no ResourceSlice publishes a device that DeviceClass {class_name} "
            "matches: is its driver installed and running?",
            command,
        )

    def _drivers(self, pod: KubeObject, claims: ClaimFinder) -> Iterator[Step]:
        """(a) devices of the classes the pod needs, on the nodes it may use."""
        command = (
            "kubectl get resourceslices -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,"
            "DRIVER:.spec.driver,POOL:.spec.pool.name,GENERATION:.spec.pool.generation,"
            "SLICES:.spec.pool.resourceSliceCount"
        )
        nodes = self.candidate_nodes(pod)
        if not nodes:
            yield Step(
                "drivers",
                PROBLEM,
                "no node in the dump matches the pod's node name, nodeSelector or required node affinity",
                "kubectl get nodes --show-labels",
            )
            return
        for class_name in claims.classes():
            if class_name not in self.inv.device_classes:
                yield Step("drivers", PROBLEM, f"DeviceClass {class_name} does not exist", "kubectl get deviceclasses")
                continue
            devices = self._class_devices(class_name)
            if not devices:
                yield self._no_device_step(class_name, command)
                continue
            drivers = sorted({d.driver for d in devices})
            wanted = {d.id for d in devices}
            missing: list[str] = []
            incomplete: set[str] = set()
            invalid: set[str] = set()
            for node in nodes:
                view = self.sim.view(node)
                if not any(d.id in wanted for d in view.candidates):
                    missing.append(node.name)
                incomplete.update(view.incomplete)
                invalid.update(f"{pool} ({why})" for pool, why in view.invalid)
            if incomplete:
                yield Step(
                    "drivers",
                    PROBLEM,
                    f"pool{'s' if len(incomplete) > 1 else ''} {', '.join(sorted(incomplete))} "
                    "incomplete: fewer slices of the newest generation than resourceSliceCount; the scheduler "
                    "ignores the pool until the driver finishes publishing",
                    command,
                )
            if invalid:
                yield Step("drivers", PROBLEM, f"invalid pool: {', '.join(sorted(invalid))}", command)
            if len(missing) == len(nodes):
                yield Step(
                    "drivers",
                    PROBLEM,
                    f"{', '.join(drivers)} publishes no usable device of class {class_name} for {_nodes_text(missing)}",
                    command,
                )
            elif missing:
                yield Step(
                    "drivers",
                    NOTE,
                    f"{', '.join(drivers)} publishes class {class_name} devices for "
                    f"{len(nodes) - len(missing)} of {len(nodes)} candidate nodes (none on {_nodes_text(missing)})",
                    command,
                )
            else:
                yield Step(
                    "drivers",
                    OK,
                    f"{', '.join(drivers)} publishes class {class_name} devices for "
                    + (f"all {len(nodes)} candidate nodes" if len(nodes) > 1 else f"node {nodes[0].name}"),
                    command,
                )
        drivers_used = {d.driver for c in claims.classes() for d in self._class_devices(c)}
        for pool in self.inv.pools.values():
            older = sorted({s.generation for s in pool.slices} - {pool.generation})
            if older and pool.driver in drivers_used:
                yield Step(
                    "drivers",
                    NOTE,
                    f"pool {pool.driver}/{pool.name} still has slices of generation "
                    f"{', '.join(map(str, older))} beside the current {pool.generation} (the driver is republishing)",
                    command,
                )

    def _allocation(self, pod: KubeObject, claims: ClaimFinder) -> Iterator[Step]:
        """(d) the allocator on the dump's free devices."""
        command = (
            "kubectl get resourceclaims -A -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,"
            "DEVICES:.status.allocation.devices.results[*].device,RESERVED:.status.reservedFor[*].name"
        )
        demand = pod_demand(
            f"Pod {pod.namespace}/{pod.name}",
            claims.resolved_spec(),
            pod.namespace or "default",
            self.dump.lookup,
            self.inv,
            self.ext,
        )
        if demand.unresolved:
            yield Step("allocation", NOTE, f"not simulated: {', '.join(demand.unresolved)} not in the dump", command)
            return
        outcome = self.sim.place(demand, 1, every_node=True)
        if outcome.schedulable:
            yield Step(
                "allocation",
                OK,
                f"fits now on {_nodes_text(outcome.feasible)}, e.g. {_first_devices(outcome, self.inv)}; "
                "the scheduler places it on its next attempt unless something outside devices blocks it",
                command,
            )
        else:
            yield Step("allocation", PROBLEM, f"does not fit on the free devices: {outcome.summary()}", command)

    def _node(self, pod: KubeObject, node_name: str, claims: ClaimFinder) -> Iterator[Step]:
        """The scheduled node's kubelet version and device plugin."""
        command = (
            f"kubectl get node {node_name} -o jsonpath='{{.status.nodeInfo.kubeletVersion}}"
            '{"\\n"}{.status.allocatable}\''
        )
        node = self.inv.nodes.get(node_name)
        if node is None:
            yield Step("node", NOTE, f"node {node_name} is not in the dump", f"kubectl get node {node_name}")
            return
        results = claims.allocated_results()
        old = too_old(node.kubelet, kubelet_features(results)) if results and node.kubelet else None
        if old is not None:
            yield Step("node", PROBLEM, f"node {node_name}: {describe(old, node.kubelet)}", command)
        wanted = _extended_wanted(as_mapping(pod.data.get("spec")))
        for resource in sorted(wanted & set(self.ext)):
            if not node.allocatable.get(resource) or str(node.allocatable.get(resource)) in ("0", ""):
                continue
            here = {c.id for c in self.sim.view(node).candidates}
            published = [d for d in self._class_devices(self.ext[resource]) if d.id in here]
            if published:
                yield Step(
                    "node",
                    WARNING,
                    f"node {node_name} advertises {resource}: {node.allocatable[resource]} in "
                    f"status.allocatable (a device plugin) while {published[0].driver} publishes "
                    f"{len(published)} device(s) of class {self.ext[resource]} for it: the two may hand out the "
                    "same hardware; remove the device plugin from DRA-managed nodes",
                    command,
                )


class ClaimFinder:
    """(b) and (c): the pod's claims, found by name, by pod status or by owner and annotation."""

    def __init__(self, doctor: PodDoctor, pod: KubeObject) -> None:
        self.doctor = doctor
        self.pod = pod
        self.spec = as_mapping(pod.data.get("spec"))
        self.status = as_mapping(pod.data.get("status"))
        self.recorded = {
            str(as_mapping(e).get("name")): as_mapping(e).get("resourceClaimName")
            for e in as_list(self.status.get("resourceClaimStatuses"))
        }
        self.entries: list[tuple[Mapping[str, Any], KubeObject | None, str | None]] = []
        for entry in as_list(self.spec.get("resourceClaims")):
            entry = as_mapping(entry)
            claim, name = self._find(entry)
            self.entries.append((entry, claim, name))
        ext_status = as_mapping(self.status.get("extendedResourceClaimStatus"))
        self.ext_name = str(ext_status["resourceClaimName"]) if ext_status.get("resourceClaimName") else None
        self.ext_claim = (
            doctor.dump.get("ResourceClaim", pod.namespace, self.ext_name)
            if self.ext_name
            else doctor.generated_claim(pod, EXTENDED_CLAIM, "true")
        )

    def _find(self, entry: Mapping[str, Any]) -> tuple[KubeObject | None, str | None]:
        dump, ns = self.doctor.dump, self.pod.namespace
        if entry.get("resourceClaimName"):
            name = str(entry["resourceClaimName"])
            return dump.get("ResourceClaim", ns, name), name
        recorded = self.recorded.get(str(entry.get("name")))
        if recorded:
            return dump.get("ResourceClaim", ns, str(recorded)), str(recorded)
        found = self.doctor.generated_claim(self.pod, POD_CLAIM_NAME, str(entry.get("name")))
        return found, found.name if found is not None else None

    def classes(self) -> list[str]:
        """DeviceClasses the pod's requests name, claims first, then the mapped extended resources."""
        names: dict[str, None] = {}
        for entry, claim, _ in self.entries:
            parsed = parse_claim("", self.doctor.claim_spec(self.pod, entry, claim))
            for request in parsed.requests:
                for alt in request.alternatives:
                    names[alt.class_name] = None
        for resource in sorted(_extended_wanted(self.spec) & set(self.doctor.ext)):
            names[self.doctor.ext[resource]] = None
        return list(names)

    def resolved_spec(self) -> dict[str, Any]:
        """The pod spec with template entries pointing at their generated claims when known."""
        entries = []
        for entry, claim, name in self.entries:
            if entry.get("resourceClaimTemplateName") and claim is not None and name:
                entries.append({"name": entry.get("name"), "resourceClaimName": name})
            else:
                entries.append(dict(entry))
        return {**self.spec, "resourceClaims": entries}

    def allocated_results(self) -> list[ClaimResult]:
        """The pod's allocated claims as allocator results (for the kubelet feature check)."""
        out = []
        claims = [c for _, c, _ in self.entries if c is not None] + (
            [self.ext_claim] if self.ext_claim is not None else []
        )
        for claim in claims:
            picks = []
            for result in _results(claim):
                dev = self.doctor.inv.devices.get(_device_id(result))
                if dev is not None:
                    picks.append(Pick(str(result.get("request")), dev, bool(result.get("shareID")), {}, False))
            if picks:
                parsed = replace(parse_claim(claim.name, {}), extended=claim is self.ext_claim)
                out.append(ClaimResult(parsed, tuple(picks)))
        return out

    def _claim_step(self, label: str, claim: KubeObject, name: str) -> Step:
        ref = f"kubectl get resourceclaim -n {self.pod.namespace} {name} -o yaml"
        meta = as_mapping(claim.data.get("metadata"))
        status = as_mapping(claim.data.get("status"))
        if meta.get("deletionTimestamp"):
            return Step("claims", PROBLEM, f"{label}: ResourceClaim {name} is being deleted", ref)
        results = _results(claim)
        if not status.get("allocation"):
            if self.spec.get("nodeName"):
                return Step(
                    "claims",
                    PROBLEM,
                    f"{label}: ResourceClaim {name} is not allocated although the pod is scheduled",
                    ref,
                )
            return Step(
                "claims",
                OK,
                f"{label}: ResourceClaim {name} exists, not allocated yet (the scheduler "
                "allocates it when it picks a node)",
                ref,
            )
        devices = ", ".join(_device_text(_device_id(r), self.doctor.inv) for r in results) or "no device"
        uid = as_mapping(self.pod.data.get("metadata")).get("uid")
        reserved = [as_mapping(r) for r in as_list(status.get("reservedFor"))]
        mine = any(
            r.get("resource") == "pods" and (r.get("uid") == uid if uid else r.get("name") == self.pod.name)
            for r in reserved
        )
        if mine:
            return Step(
                "claims", OK, f"{label}: ResourceClaim {name} allocated on {devices}, reserved for this pod", ref
            )
        if self.spec.get("nodeName"):
            return Step(
                "claims",
                PROBLEM,
                f"{label}: ResourceClaim {name} is allocated on {devices} but not reserved "
                "for this pod; the kubelet will not prepare it",
                ref,
            )
        users = ", ".join(str(r.get("name")) for r in reserved) or "nobody"
        return Step(
            "claims",
            NOTE,
            f"{label}: ResourceClaim {name} already allocated on {devices} (reserved for "
            f"{users}); the pod can only run where these devices are",
            ref,
        )

    def steps(self) -> Iterator[Step]:
        """(b) one step per claim entry, then the extended-resource claim."""
        ns = self.pod.namespace
        for entry, claim, name in self.entries:
            label = f"claim {entry.get('name')}"
            template = entry.get("resourceClaimTemplateName")
            if claim is not None and name:
                yield self._claim_step(label, claim, name)
            elif template:
                have = self.doctor.dump.get("ResourceClaimTemplate", ns, str(template)) is not None
                yield Step(
                    "claims",
                    PROBLEM,
                    f"{label}: no ResourceClaim was generated from template {template} "
                    + (
                        "(the template exists: check kube-controller-manager's resourceclaim controller)"
                        if have
                        else "(is the ResourceClaimTemplate there? the dump does not hold templates)"
                    ),
                    f"kubectl get resourceclaimtemplate -n {ns} {template} -o yaml",
                )
            elif name:
                yield Step(
                    "claims",
                    PROBLEM,
                    f"{label}: ResourceClaim {name} does not exist; the pod waits until it is created",
                    f"kubectl get resourceclaim -n {ns} {name}",
                )
        wanted = sorted(_extended_wanted(self.spec) & set(self.doctor.ext))
        if self.ext_claim is not None:
            yield self._claim_step(
                f"extended resources {', '.join(wanted) or '(none)'}", self.ext_claim, self.ext_claim.name
            )
        elif self.ext_name:
            yield Step(
                "claims",
                PROBLEM,
                f"the pod status names extended-resource claim {self.ext_name}, which does not exist",
                f"kubectl get resourceclaim -n {ns} {self.ext_name}",
            )
        elif wanted and self.spec.get("nodeName"):
            node = self.doctor.inv.nodes.get(str(self.spec["nodeName"]))
            plugin = [r for r in wanted if node is not None and node.allocatable.get(r) not in (None, "0")]
            if plugin:
                yield Step(
                    "claims",
                    NOTE,
                    f"{', '.join(plugin)} served by the device plugin on node "
                    f"{self.spec['nodeName']} (it advertises them in status.allocatable), not by DRA",
                    f"kubectl get node {self.spec['nodeName']} -o jsonpath='{{.status.allocatable}}'",
                )
            if len(plugin) < len(wanted):
                yield Step(
                    "claims",
                    PROBLEM,
                    "no extended-resource claim was generated although the pod is scheduled "
                    "to a node without a device plugin for " + ", ".join(r for r in wanted if r not in plugin),
                    f"kubectl get resourceclaims -n {ns}",
                )
        elif wanted:
            yield Step(
                "claims",
                OK,
                f"{', '.join(wanted)}: the scheduler generates the claim when it binds the pod",
                "kubectl get deviceclasses -o custom-columns=NAME:.metadata.name,RESOURCE:.spec.extendedResourceName",
            )

    def status_steps(self) -> Iterator[Step]:
        """(c) generated claims must be recorded in the pod status: that is how the kubelet finds them."""
        command = (
            f"kubectl get pod -n {self.pod.namespace} {self.pod.name} -o jsonpath="
            "'{.status.resourceClaimStatuses}{\"\\n\"}{.status.extendedResourceClaimStatus}'"
        )
        missing = [
            f"{entry.get('name')} -> {name}"
            for entry, claim, name in self.entries
            if entry.get("resourceClaimTemplateName")
            and claim is not None
            and str(entry.get("name")) not in self.recorded
        ]
        if self.ext_claim is not None and not self.ext_name:
            missing.append(f"extended resources -> {self.ext_claim.name}")
        if missing:
            yield Step(
                "pod status",
                PROBLEM,
                "the pod status does not record generated claim(s) "
                f"{'; '.join(missing)}: the scheduler and kubelet look claims up there",
                command,
            )
        elif any(entry.get("resourceClaimTemplateName") for entry, _, _ in self.entries) or self.ext_claim is not None:
            yield Step("pod status", OK, "the pod status records its generated claims", command)


def _positive(quantity: Any) -> bool:
    return str(quantity).strip() not in ("", "0", "None")


def _results(claim: KubeObject) -> list[Mapping[str, Any]]:
    allocation = as_mapping(as_mapping(claim.data.get("status")).get("allocation"))
    return [as_mapping(r) for r in as_list(as_mapping(allocation.get("devices")).get("results"))]


def _device_id(result: Mapping[str, Any]) -> DeviceId:
    return DeviceId(str(result.get("driver")), str(result.get("pool")), str(result.get("device")))


def _nodes_text(names: list[str]) -> str:
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"node{'s' if len(names) != 1 else ''} {shown}"


def _first_devices(outcome: Outcome, inv: Inventory) -> str:
    picks = [p for r in outcome.first or () for p in r.picks]
    if not picks:
        return "without devices"
    return f"{outcome.feasible[0]}: " + ", ".join(
        f"{p.device.id.name} ({device_kind(p.device, inv).label()})" for p in picks[:4]
    )


def _containers(pod: KubeObject) -> Iterator[Step]:
    """Waiting reasons of the containers; an unparsable image is explained at its characters."""
    spec = as_mapping(pod.data.get("spec"))
    images = {
        str(as_mapping(c).get("name")): as_mapping(c).get("image")
        for key in ("initContainers", "containers")
        for c in as_list(spec.get(key))
    }
    for name, reason, message in _waiting(pod.data):
        logs = f"kubectl logs -n {pod.namespace} {pod.name} -c {name} --previous"
        describe_cmd = f"kubectl describe pod -n {pod.namespace} {pod.name}"
        image = images.get(name)
        if reason == KUBELET_REASON and isinstance(image, str):
            problem = image_problem(image)
            detail = (
                f"{problem.message} (characters {problem.start + 1}-{problem.end})"
                if problem
                else message or "the kubelet could not parse it"
            )
            yield Step("containers", PROBLEM, f"container {name}: image {image!r} is invalid: {detail}", describe_cmd)
        elif reason in TRANSIENT_WAITING:
            yield Step(
                "containers", NOTE, f"container {name}: {reason}" + (f" ({message})" if message else ""), describe_cmd
            )
        else:
            yield Step(
                "containers",
                PROBLEM,
                f"container {name}: waiting, {reason}" + (f": {message}" if message else ""),
                logs if reason == "CrashLoopBackOff" else describe_cmd,
            )


def diagnose(dump: Dump) -> list[Diagnosis]:
    """Diagnoses of every Pending or failing device pod of the dump, in dump order."""
    return PodDoctor(dump).run()
