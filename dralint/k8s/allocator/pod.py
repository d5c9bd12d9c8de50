"""What a pod asks the allocator for: its claims in pod order and the extended-resource claim.

Template-based claims are per pod; a claim referenced by name is one object shared by every
replica, and when the snapshot already has it allocated it is not allocated again (its node
selector then restricts the nodes). DRA-backed extended resources follow dra-scheduling.md §3:
a node that advertises the resource in allocatable serves it through its device plugin,
otherwise a mapped DeviceClass turns it into requests of the special claim, allocated last.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dralint.k8s.allocator.model import Claim, extended_claim, parse_claim
from dralint.k8s.inventory import AllocatedClaim, Inventory, Node, amount, object_data
from dralint.yaml.plain import as_list, as_mapping

IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"
#: The scheduler's reason for an extended resource neither DRA nor a device plugin serves.
CANNOT_FIT = "cannot fit resource"

#: ``lookup(kind, namespace, name)`` returns the object (a dict, or anything with ``data``) or None.
Lookup = Callable[[str, str, str], Any]


@dataclass(frozen=True, slots=True)
class ContainerDemand:
    """Extended resources of one container (index over initContainers then containers)."""

    index: int
    path: tuple[str | int, ...]
    long_lived: bool
    names: tuple[str, ...]
    wanted: Mapping[str, int]
    unmapped: tuple[str, ...] = ()
    #: The container's own name, for messages (the scheduler's request names use the index).
    name: str = ""


@dataclass(frozen=True, slots=True)
class PodDemand:
    """Everything placement needs about one pod template."""

    label: str
    claims: tuple[Claim, ...]
    shared: frozenset[int] = frozenset()
    allocated: tuple[AllocatedClaim, ...] = ()
    containers: tuple[ContainerDemand, ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: Mapping[str, Any] | None = None
    unresolved: tuple[str, ...] = ()


def extended_resource_classes(classes: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Extended resource name -> DeviceClass; explicit name clashes go to the newest class.

    Equal creation timestamps (or none) fall back to the lexicographically smaller class name.
    """
    mapping: dict[str, str] = {}
    best: dict[str, tuple[str, str]] = {}
    for name in sorted(classes):
        mapping[IMPLICIT_PREFIX + name] = name
        data = classes[name]
        spec = as_mapping(data.get("spec"))
        explicit = spec.get("extendedResourceName")
        if not isinstance(explicit, str) or not explicit:
            continue  # the API server only takes a string; a list here is not even hashable
        meta = as_mapping(data.get("metadata"))
        stamp = str(meta.get("creationTimestamp") or "")
        if explicit not in best or stamp > best[explicit][0]:
            best[explicit] = (stamp, name)
    for resource, (_, name) in best.items():
        mapping[resource] = name
    return mapping


def _containers(spec: Mapping[str, Any], ext: Mapping[str, str]) -> tuple[ContainerDemand, ...]:
    out = []
    inits = [
        (c, c.get("restartPolicy") == "Always", ("initContainers", i))
        for i, c in enumerate(as_list(spec.get("initContainers")))
        if isinstance(c, Mapping)
    ]
    mains = [
        (c, True, ("containers", i)) for i, c in enumerate(as_list(spec.get("containers"))) if isinstance(c, Mapping)
    ]
    for index, (container, long_lived, path) in enumerate(inits + mains):
        resources = as_mapping(container.get("resources"))
        limits = as_mapping(resources.get("limits"))
        requests = as_mapping(resources.get("requests"))
        merged = {**limits, **requests}  # the API server defaults requests from limits
        wanted = {}
        unmapped = []
        for name, raw in merged.items():
            value = amount(raw)
            if value is None or value <= 0:
                continue
            if name in ext:
                wanted[str(name)] = int(value)
            elif _extended_name(str(name)):
                unmapped.append(str(name))
        if wanted or unmapped:
            names = tuple(sorted(str(n) for n in merged))
            label = str(container.get("name") or f"#{index}")
            out.append(ContainerDemand(index, path, long_lived, names, wanted, tuple(unmapped), label))
    return tuple(out)


def _extended_name(name: str) -> bool:
    """Names the scheduler may map to a DeviceClass: domain-prefixed outside kubernetes.io, or
    the implicit ``deviceclass.resource.kubernetes.io/`` names."""
    if name.startswith(IMPLICIT_PREFIX):
        return True
    domain, slash, _ = name.partition("/")
    return (
        bool(slash)
        and not name.startswith("requests.")
        and not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))
    )


def pod_demand(
    label: str,
    spec: Mapping[str, Any],
    namespace: str,
    lookup: Lookup,
    inv: Inventory,
    ext: Mapping[str, str],
) -> PodDemand:
    """Resolve a pod spec's claims (templates, named claims) and extended resources."""
    claims: list[Claim] = []
    shared: set[int] = set()
    allocated: list[AllocatedClaim] = []
    unresolved: list[str] = []
    for entry in as_list(spec.get("resourceClaims")):
        if not isinstance(entry, Mapping):
            continue
        tmpl = entry.get("resourceClaimTemplateName")
        named = entry.get("resourceClaimName")
        if tmpl:
            found = lookup("ResourceClaimTemplate", namespace, str(tmpl))
            inner = object_data(found).get("spec")
            if found is None or not isinstance(inner, Mapping):
                unresolved.append(f"ResourceClaimTemplate {namespace}/{tmpl}")
                continue
            claims.append(
                parse_claim(
                    f"{entry.get('name')} (template {tmpl})",
                    as_mapping(inner.get("spec")),
                    source=found,
                    base=("spec", "spec"),
                )
            )
        elif named:
            done = inv.allocated_claims.get((namespace, str(named)))
            if done is not None:
                allocated.append(done)
                continue
            found = lookup("ResourceClaim", namespace, str(named))
            body = object_data(found).get("spec")
            if found is None or not isinstance(body, Mapping):
                unresolved.append(f"ResourceClaim {namespace}/{named}")
                continue
            shared.add(len(claims))
            claims.append(parse_claim(f"{namespace}/{named}", body, source=found, base=("spec",)))
    affinity = None
    node_affinity = as_mapping(spec.get("affinity")).get("nodeAffinity") or {}
    if isinstance(node_affinity, Mapping):
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        affinity = required if isinstance(required, Mapping) else None
    selector = as_mapping(spec.get("nodeSelector"))
    return PodDemand(
        label=label,
        claims=tuple(claims),
        shared=frozenset(shared),
        allocated=tuple(allocated),
        containers=_containers(spec, ext),
        node_selector={str(k): str(v) for k, v in selector.items()},
        affinity=affinity,
        unresolved=tuple(unresolved),
    )


def _allocatable(node: Node, resource: str) -> int:
    value = amount(node.allocatable.get(resource))
    return int(value) if value is not None else 0


def _pod_total(containers: Sequence[ContainerDemand], resource: str) -> int:
    """Effective pod request: long-lived containers add up, an init container needs its own peak."""
    running = sum(c.wanted.get(resource, 0) for c in containers if c.long_lived)
    peaks = [c.wanted.get(resource, 0) for c in containers if not c.long_lived]
    return max([running, *peaks])


def request_name(container: ContainerDemand, resource: str) -> str:
    """The scheduler's name for a container's extended-resource request in its special claim."""
    return f"container-{container.index}-request-{container.names.index(resource)}"


#: How messages name the scheduler's special claim for extended resources.
EXTENDED_CLAIM_LABEL = "extended resources"


def request_label(demand: PodDemand, request: str) -> str:
    """A request of the special claim in the user's terms: ``nvidia.com/gpu of container 'train'``
    rather than the scheduler's ``container-0-request-2``."""
    for container in demand.containers:
        for resource in container.wanted:
            if request_name(container, resource) == request:
                return f"{resource} of container {container.name!r}"
    return request


def extended_requests(
    containers: Sequence[ContainerDemand], node: Node, ext: Mapping[str, str]
) -> tuple[Claim | None, str | None]:
    """The special claim for this node (None when nothing goes through DRA), or a reason.

    A resource the node advertises goes to the device plugin; the reason then says when the
    node's allocatable is smaller than the pod's effective request (NodeResourcesFit's check,
    without other pods' usage). An extended resource no class maps and the node does not
    advertise makes the node unusable ("cannot fit resource") once the pod uses DRA for any.
    """
    requests: list[tuple[str, str, int]] = []
    short: dict[str, tuple[str, int]] = {}
    if any(c.wanted for c in containers):
        for c in containers:
            if any(_allocatable(node, r) <= 0 for r in c.unmapped):
                return None, CANNOT_FIT
    for resource in sorted({r for c in containers for r in c.wanted}):
        have = _allocatable(node, resource)
        if have > 0 and _pod_total(containers, resource) > have:
            return None, f"Insufficient {resource}"
    for c in containers:
        for resource, qty in sorted(c.wanted.items()):
            if _allocatable(node, resource) > 0:
                continue  # the device plugin serves it on this node
            name = request_name(c, resource)
            if c.long_lived:
                requests.append((name, ext[resource], qty))
                continue
            later = sum(o.wanted.get(resource, 0) for o in containers if o.long_lived and o.index > c.index)
            missing = qty - later
            if missing > 0 and (resource not in short or short[resource][1] < missing):
                short[resource] = (name, missing)
    for resource, (name, missing) in short.items():
        requests.append((name, ext[resource], missing))
    if not requests:
        return None, None
    return extended_claim(sorted(requests)), None
