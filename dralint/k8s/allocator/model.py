"""Claims as the allocator consumes them, parsed once from ResourceClaim specs.

Both resource.k8s.io/v1 (``exactly`` / ``firstAvailable``) and the flat v1beta1 request shape are
read, so snapshots and manifests of either vintage simulate the same way. ``path`` fields keep the
data path inside the claim spec so findings can point at the request or selector.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dralint.k8s.inventory import Device, amount
from dralint.yaml.plain import as_list

Path = tuple[str | int, ...]

#: AllocationResultsMaxSize: devices one claim may get.
MAX_RESULTS = 32


@dataclass(frozen=True, slots=True)
class EvalError:
    """A selector that failed on a device (fatal for the pod, like the scheduler).

    ``kind`` is "runtime" (a CEL runtime error on this device), "compile" (the expression does
    not compile; reported by the CEL checks) or "unsupported" (dralint cannot evaluate it, so
    the simulation of that pod stops without a verdict).
    """

    index: int
    message: str
    kind: str = "runtime"


@dataclass(frozen=True, slots=True)
class Features:
    """The DRA feature gates that change allocation; all on at Kubernetes 1.37 defaults."""

    partitionable_devices: bool = True
    consumable_capacity: bool = True
    device_taints: bool = True
    prioritized_list: bool = True
    extended_resource: bool = True

    @classmethod
    def from_gates(cls, gates: Mapping[str, bool]) -> Features:
        """From ``--feature-gates`` (gate names as the scheduler spells them)."""
        return cls(
            partitionable_devices=gates.get("DRAPartitionableDevices", True),
            consumable_capacity=gates.get("DRAConsumableCapacity", True),
            device_taints=gates.get("DRADeviceTaints", True),
            prioritized_list=gates.get("DRAPrioritizedList", True),
            extended_resource=gates.get("DRAExtendedResource", True),
        )


#: ``matches(expressions, device)``: all expressions true (in order, stop at the first false).
Matcher = Callable[[Sequence[str], Device], "bool | EvalError"]


@dataclass(frozen=True, slots=True)
class Toleration:
    """DeviceToleration, or a pod's Toleration; matching follows dra-scheduling.md §1.7."""

    key: str
    operator: str
    value: str
    effect: str

    def tolerates(self, key: str, value: str, effect: str) -> bool:
        """Same rules as the scheduler: empty key/effect are wildcards, Exists ignores the value."""
        if self.effect and self.effect != effect:
            return False
        if self.key and self.key != key:
            return False
        if self.operator == "Exists":
            return True
        return self.operator in ("", "Equal") and self.value == value


@dataclass(frozen=True, slots=True)
class Alternative:
    """One way to satisfy a request: the request itself or one firstAvailable subrequest."""

    request: str
    sub: str | None
    class_name: str
    selectors: tuple[str, ...]
    all_mode: bool
    count: int
    admin: bool
    tolerations: tuple[Toleration, ...]
    capacity: Mapping[str, Fraction]
    path: Path

    @property
    def label(self) -> str:
        """``request`` or ``request/subrequest``, the name used in results and constraints."""
        return f"{self.request}/{self.sub}" if self.sub else self.request


@dataclass(frozen=True, slots=True)
class Request:
    """A claim request: one alternative, or firstAvailable alternatives in priority order."""

    name: str
    alternatives: tuple[Alternative, ...]
    prioritized: bool


@dataclass(frozen=True, slots=True)
class Constraint:
    """matchAttribute or distinctAttribute over some (or all) requests of a claim."""

    kind: str
    attribute: str
    requests: frozenset[str]
    index: int

    def applies(self, alt: Alternative) -> bool:
        """Empty request list covers all; ``r`` covers any subrequest of r; ``r/s`` only s."""
        return not self.requests or alt.request in self.requests or alt.label in self.requests


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim to allocate. ``label`` names it in messages (``ns/name`` or the template)."""

    label: str
    requests: tuple[Request, ...]
    constraints: tuple[Constraint, ...] = ()
    extended: bool = False
    source: Any = None
    base: Path = ()


def parse_tolerations(raw: object) -> tuple[Toleration, ...]:
    """Device tolerations, and a pod's: the two APIs match taints by the same rules."""
    out = []
    for t in raw if isinstance(raw, list) else ():
        if isinstance(t, Mapping):
            out.append(
                Toleration(
                    str(t.get("key") or ""),
                    str(t.get("operator") or "Equal"),
                    str(t.get("value") or ""),
                    str(t.get("effect") or ""),
                )
            )
    return tuple(out)


def _selectors(raw: object) -> tuple[str, ...]:
    out = []
    for s in raw if isinstance(raw, list) else ():
        cel = s.get("cel") if isinstance(s, Mapping) else None
        out.append(str(cel.get("expression") or "") if isinstance(cel, Mapping) else "")
    return tuple(out)


def _alternative(request: str, sub: str | None, body: Mapping[str, Any], path: Path) -> Alternative:
    mode = body.get("allocationMode") or "ExactCount"
    count = body.get("count")
    caps = body.get("capacity")
    raw_requests = caps.get("requests") if isinstance(caps, Mapping) else None
    if not isinstance(raw_requests, Mapping):
        raw_requests = {}
    return Alternative(
        request=request,
        sub=sub,
        class_name=str(body.get("deviceClassName") or ""),
        selectors=_selectors(body.get("selectors")),
        all_mode=mode == "All",
        count=count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1,
        admin=body.get("adminAccess") is True,
        tolerations=parse_tolerations(body.get("tolerations")),
        capacity={str(k): v for k, v in ((k, amount(v)) for k, v in raw_requests.items()) if v is not None},
        path=path,
    )


def parse_claim(label: str, spec: Mapping[str, Any], *, source: Any = None, base: Path = ()) -> Claim:
    """Build a Claim from a ResourceClaimSpec (``spec`` of a claim, ``spec.spec`` of a template)."""
    devices = spec.get("devices")
    if not isinstance(devices, Mapping):
        devices = {}
    requests = []
    for i, raw in enumerate(as_list(devices.get("requests"))):
        if not isinstance(raw, Mapping) or not raw.get("name"):
            continue
        name = str(raw["name"])
        rpath: Path = ("devices", "requests", i)
        subs = raw.get("firstAvailable")
        if isinstance(subs, list) and subs:
            alts = tuple(
                _alternative(name, str(s.get("name") or j), s, rpath + ("firstAvailable", j))
                for j, s in enumerate(subs)
                if isinstance(s, Mapping)
            )
            requests.append(Request(name, alts, True))
        else:
            exact = raw.get("exactly")
            body, bpath = (exact, rpath + ("exactly",)) if isinstance(exact, Mapping) else (raw, rpath)
            requests.append(Request(name, (_alternative(name, None, body, bpath),), False))
    constraints = []
    for i, raw in enumerate(as_list(devices.get("constraints"))):
        if not isinstance(raw, Mapping):
            continue
        kind = "matchAttribute" if raw.get("matchAttribute") else "distinctAttribute"
        attr = raw.get(kind)
        if attr:
            constraints.append(Constraint(kind, str(attr), frozenset(str(r) for r in as_list(raw.get("requests"))), i))
    return Claim(label, tuple(requests), tuple(constraints), source=source, base=base)


def extended_claim(requests: Sequence[tuple[str, str, int]]) -> Claim:
    """The scheduler's special claim for DRA-backed extended resources: (name, class, count)."""
    alts = tuple(
        Request(name, (Alternative(name, None, cls, (), False, count, False, (), {}, ()),), False)
        for name, cls, count in requests
    )
    return Claim("<extended-resources>", alts, extended=True)
