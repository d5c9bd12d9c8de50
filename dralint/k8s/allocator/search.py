"""Depth-first allocation of a pod's claims on one node (dra-scheduling.md §1.3-§1.11).

Claims in order, requests in order, the devices of a request as combinations over the node's
candidates; firstAvailable alternatives are tried in order and an alternative is kept only when
the entire remaining search succeeds. The first complete solution wins. The search is bounded by
a step budget, the offline counterpart of the scheduler's filter timeout.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil
from typing import Any

from dralint.k8s.allocator.model import MAX_RESULTS, Alternative, Claim, EvalError, Features, Matcher
from dralint.k8s.allocator.view import NodeView, State
from dralint.k8s.inventory import SCALAR_ATTRIBUTE_TYPES, Device, DeviceId

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")
DEFAULT_BUDGET = 200_000


class Fatal(Exception):
    """An error that aborts the pod's scheduling attempt on every node (not "unschedulable")."""

    def __init__(self, message: str, *, cel: CelFailure | None = None, missing_class: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.cel = cel
        self.missing_class = missing_class


class BudgetExceeded(Exception):
    """The step budget ran out; the scheduler would report a filter timeout."""


@dataclass(frozen=True, slots=True)
class CelFailure:
    """Where a selector failed: a class or a claim request, which selector, on which device."""

    class_name: str | None
    claim: Claim | None
    alternative: Alternative | None
    index: int
    device: Device
    error: str
    kind: str = "runtime"


@dataclass(frozen=True, slots=True)
class Pick:
    """One allocated device: the request (or request/subrequest) it serves."""

    request: str
    device: Device
    shared: bool
    consumed: Mapping[str, Fraction]
    admin: bool


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """The devices one claim got."""

    claim: Claim
    picks: tuple[Pick, ...]


class Selection:
    """Class-then-request selector evaluation with a per-run cache (results never change)."""

    def __init__(
        self, classes: Mapping[str, Mapping[str, Any]], matcher: Matcher, features: Features = Features()
    ) -> None:
        self.classes = classes
        self.matcher = matcher
        self.features = features
        self._cache: dict[tuple[str, ...], dict[DeviceId, bool | EvalError]] = {}
        # The same answers per selector_key: a fleet repeats a few device models many times.
        self._by_content: dict[tuple[str, ...], dict[Hashable, bool | EvalError]] = {}
        self._class_cache: dict[str, tuple[str, ...]] = {}

    def class_selectors(self, name: str) -> tuple[str, ...]:
        """Selectors of a DeviceClass, or () when it has none (parsed once per class)."""
        found = self._class_cache.get(name)
        if found is None:
            spec = self.classes.get(name, {}).get("spec")
            raw = spec.get("selectors") if isinstance(spec, dict) else None
            found = tuple(
                str(s["cel"].get("expression") or "") if isinstance(s, dict) and isinstance(s.get("cel"), dict) else ""
                for s in (raw if isinstance(raw, list) else ())
            )
            self._class_cache[name] = found
        return found

    def evaluate(self, exprs: tuple[str, ...], dev: Device) -> bool | EvalError:
        """All expressions true on the device; cached per expression tuple and device, and per
        expression tuple and device content (what selectors can see)."""
        if not exprs:
            return True
        bucket = self._cache.setdefault(exprs, {})
        result = bucket.get(dev.id)
        if result is None:
            same = self._by_content.setdefault(exprs, {})
            result = same.get(dev.selector_key)
            if result is None:
                result = same[dev.selector_key] = self.matcher(exprs, dev)
            bucket[dev.id] = result
        return result

    def selectable(self, claim: Claim, alt: Alternative, dev: Device) -> bool:
        """DeviceClass selectors AND request selectors; a CEL runtime error is Fatal."""
        got = self.evaluate(self.class_selectors(alt.class_name), dev)
        if isinstance(got, EvalError):
            raise Fatal(
                f"class {alt.class_name}: selector #{got.index} on device {dev.id}: {_described(got)}",
                cel=CelFailure(alt.class_name, None, None, got.index, dev, got.message, got.kind),
            )
        if not got:
            return False
        got = self.evaluate(alt.selectors, dev)
        if isinstance(got, EvalError):
            raise Fatal(
                f"claim {claim.label}: selector #{got.index} on device {dev.id}: {_described(got)}",
                cel=CelFailure(None, claim, alt, got.index, dev, got.message, got.kind),
            )
        return bool(got)


def _what(error: EvalError) -> str:
    return {"runtime": "CEL runtime error", "compile": "CEL compile error"}.get(error.kind, "not evaluated")


def _described(error: EvalError) -> str:
    """The error with its kind said once (a compile error's message already starts with it)."""
    what = _what(error)
    return error.message if error.message.startswith(what) else f"{what}: {error.message}"


def _up(value: Fraction) -> int:
    """Quantity.Value(): integer, rounded up (range arithmetic without DRAFractionalCapacityRange)."""
    return ceil(value)


def consumption(dev: Device, alt: Alternative) -> dict[str, Fraction] | None:
    """Capacity a request would consume on a device after requestPolicy rounding, or None.

    None means the device cannot serve the request: a requested capacity name is missing or the
    rounded amount violates the policy (dra-scheduling.md §1.8).
    """
    if any(name not in dev.capacity for name in alt.capacity):
        return None
    out: dict[str, Fraction] = {}
    for name, cap in dev.capacity.items():
        pol = cap.policy
        req = alt.capacity.get(name)
        if req is None:
            value = pol.default if pol is not None and pol.default is not None else cap.value
        elif pol is None:
            value = req
        elif pol.valid_values:
            value = next((v for v in pol.valid_values if v >= req), req)
        elif pol.min is not None:
            low, want = _up(pol.min), _up(req)
            if want < low:
                value = Fraction(low)
            elif pol.step:
                step = _up(pol.step)
                value = Fraction(low + ceil((want - low) / step) * step)
            else:
                value = req
        else:
            value = req
        if pol is not None and not (pol.default is not None and value == pol.default):
            if pol.valid_values and value not in pol.valid_values:
                return None
            if not pol.valid_values and pol.min is not None:
                if pol.max is not None and _up(value) > _up(pol.max):
                    return None
                if pol.step and (_up(value) - _up(pol.min)) % _up(pol.step):
                    return None
        out[name] = value
    return out


def blocking_taint(dev: Device, alt: Alternative, features: Features = Features()) -> str | None:
    """The first NoSchedule/NoExecute taint the request does not tolerate, as ``key:Effect``
    (none at all with DRADeviceTaints off)."""
    if not features.device_taints:
        return None
    for taint in dev.taints:
        if taint.effect in BLOCKING_EFFECTS and not any(
            t.tolerates(taint.key, taint.value, taint.effect) for t in alt.tolerations
        ):
            return str(taint)
    return None


@dataclass(slots=True)
class _ClaimState:
    """Per-claim bookkeeping: picks, devices used by this claim, constraint values."""

    claim: Claim
    picks: list[Pick] = field(default_factory=list)
    used: set[DeviceId] = field(default_factory=set)
    values: list[list[tuple[str, Any]]] = field(default_factory=list)


class Search:
    """One Allocate(node, claims) call. ``run`` returns results, or None when nothing fits."""

    def __init__(
        self,
        view: NodeView,
        claims: Sequence[Claim],
        selection: Selection,
        state: State,
        budget: int = DEFAULT_BUDGET,
    ) -> None:
        self.view = view
        self.claims = claims
        self.sel = selection
        self.state = state
        self.budget = budget
        self.steps = 0
        self.picked: set[DeviceId] = set()
        self.capacity: dict[DeviceId, dict[str, Fraction]] = {}
        self.counters: dict[tuple[str, str], dict[tuple[str, str], Fraction]] = {}
        self.all_devices: dict[tuple[int, str], list[Device]] = {}
        self.cs: list[_ClaimState] = []
        self._undo: list[tuple[int, list[int], bool, dict[str, Fraction] | None]] = []

    # ----------------------------------------------------------------- validation

    def _validate(self) -> None:
        """Up-front checks of §1.3: class existence, All-mode device sets, the 32-device limit."""
        features = self.sel.features
        for ci, claim in enumerate(self.claims):
            minimum = 0
            for req in claim.requests:
                counts = []
                if req.prioritized and not features.prioritized_list:
                    raise Fatal(
                        f"claim {claim.label}, request {req.name}: has subrequests, but the "
                        "DRAPrioritizedList feature is disabled"
                    )
                for alt in req.alternatives:
                    if alt.capacity and not features.consumable_capacity:
                        raise Fatal(
                            f"claim {claim.label}, request {alt.label}: has capacity requests, "
                            "but the DRAConsumableCapacity feature is disabled"
                        )
                    if alt.class_name not in self.sel.classes:
                        raise Fatal(
                            f"request {alt.label}: device class {alt.class_name} does not exist",
                            missing_class=alt.class_name,
                        )
                    if alt.all_mode:
                        counts.append(len(self._all_mode_devices(ci, claim, alt)))
                    else:
                        counts.append(alt.count)
                minimum += min(counts)
            if minimum > MAX_RESULTS:
                raise Fatal(
                    f"claim {claim.label}: number of requested devices {minimum} exceeds the claim limit of "
                    f"{MAX_RESULTS}"
                )

    def _all_mode_devices(self, ci: int, claim: Claim, alt: Alternative) -> list[Device]:
        if self.view.incomplete or self.view.invalid:
            pool, state = (
                (self.view.incomplete[0], "currently being updated")
                if self.view.incomplete
                else (self.view.invalid[0][0], "currently invalid")
            )
            raise Fatal(
                f"claim {claim.label}, request {alt.label}: asks for all devices, but resource pool {pool} is {state}"
            )
        found = [
            d
            for d in self.view.candidates
            if self.sel.selectable(claim, alt, d) and self.capacity_fit(d, alt) is not None
        ]
        self.all_devices[(ci, alt.label)] = found
        return found

    # ----------------------------------------------------------------- search

    def run(self) -> list[ClaimResult] | None:
        """Allocate every claim or return None; raises Fatal or BudgetExceeded."""
        self._validate()
        self.cs = [_ClaimState(c, values=[[] for _ in c.constraints]) for c in self.claims]
        if not self._claim(0):
            return None
        return [ClaimResult(s.claim, tuple(s.picks)) for s in self.cs]

    def _claim(self, ci: int) -> bool:
        if ci == len(self.claims):
            return True
        return self._request(ci, 0)

    def _request(self, ci: int, ri: int) -> bool:
        claim = self.claims[ci]
        if ri == len(claim.requests):
            return self._claim(ci + 1)
        for alt in claim.requests[ri].alternatives:
            if len(self.cs[ci].picks) + (0 if alt.all_mode else alt.count) > MAX_RESULTS:
                continue
            ok = self._all(ci, ri, alt) if alt.all_mode else self._pick(ci, ri, alt, 0, 0)
            if ok:
                return True
        return False

    def _all(self, ci: int, ri: int, alt: Alternative) -> bool:
        devices = self.all_devices[(ci, alt.label)]
        if not devices:
            return False
        added = 0
        for dev in devices:
            self._step()
            if not self._free(ci, alt, dev) or not self._add(ci, alt, dev, fatal_constraints=True):
                break
            added += 1
        else:
            if self._request(ci, ri + 1):
                return True
        for _ in range(added):
            self._remove(ci)
        return False

    def _pick(self, ci: int, ri: int, alt: Alternative, slot: int, start: int) -> bool:
        if slot == alt.count:
            return self._request(ci, ri + 1)
        claim = self.claims[ci]
        candidates = self.view.candidates
        for idx in range(start, len(candidates) - (alt.count - slot - 1)):
            self._step()
            dev = candidates[idx]
            if not self._free(ci, alt, dev) or not self.sel.selectable(claim, alt, dev):
                continue
            if not self._add(ci, alt, dev):
                continue
            if self._pick(ci, ri, alt, slot + 1, idx + 1):
                return True
            self._remove(ci)
        return False

    def _step(self) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise BudgetExceeded()

    # ----------------------------------------------------------------- device checks

    def shareable(self, dev: Device) -> bool:
        """allowMultipleAllocations counts only with DRAConsumableCapacity."""
        return dev.allow_multiple and self.sel.features.consumable_capacity

    def _free(self, ci: int, alt: Alternative, dev: Device) -> bool:
        """In-use rules of §1.5: admin access only avoids devices of the same claim; a shareable
        device is never marked in use by a pick, so later requests (even of the same claim) may
        share it while its capacity lasts."""
        if alt.admin:
            return dev.id not in self.cs[ci].used
        if dev.id in self.picked and not self.shareable(dev):
            return False
        return not self.state.is_dedicated(dev.id)

    def capacity_fit(self, dev: Device, alt: Alternative) -> dict[str, Fraction] | None:
        """Consumption if it fits next to earlier allocations and earlier picks, else None."""
        if not self.shareable(dev):
            # A dedicated device is never shared, so only the request itself must fit.
            caps = dev.capacity
            if any(name not in caps or value > caps[name].value for name, value in alt.capacity.items()):
                return None
            return {}
        want = consumption(dev, alt)
        if want is None or not dev.capacity:
            return want
        before = self.state.shared_use(dev.id)
        mine = self.capacity.get(dev.id, {})
        for name, value in want.items():
            if before.get(name, 0) + mine.get(name, 0) + value > dev.capacity[name].value:
                return None
        return want

    def counters_fit(self, dev: Device) -> bool:
        """Every counter of the pool stays non-negative with this device added (§1.6)."""
        if not dev.consumes:
            return True
        if self.shareable(dev) and (self.state.shared_use(dev.id) or self.capacity.get(dev.id)):
            return True
        key = (dev.id.driver, dev.id.pool)
        declared = self.view.counters.get(key, {})
        used = self.state.counters_used(key)
        mine = self.counters.get(key, {})
        new = {(cs, c): v for cs, values in dev.consumes for c, v in values}
        return all(total - used.get(k, 0) - mine.get(k, 0) - new.get(k, 0) >= 0 for k, total in declared.items())

    def _add(self, ci: int, alt: Alternative, dev: Device, *, fatal_constraints: bool = False) -> bool:
        want = self.capacity_fit(dev, alt)
        if want is None or not self.counters_fit(dev) or blocking_taint(dev, alt, self.sel.features):
            return False
        state = self.cs[ci]
        pushed: list[int] = []
        for k, con in enumerate(state.claim.constraints):
            if not con.applies(alt):
                continue
            value = dev.attribute(con.attribute)
            values = state.values[k]
            if (
                value is None
                or value[0] not in SCALAR_ATTRIBUTE_TYPES
                or (con.kind == "matchAttribute" and values and values[0] != value)
                or (con.kind == "distinctAttribute" and value in values)
            ):
                for j in pushed:
                    state.values[j].pop()
                if fatal_constraints:
                    raise Fatal(
                        f"claim {state.claim.label}, request {alt.label}: cannot add device {dev.id} "
                        "because a claim constraint would not be satisfied"
                    )
                return False
            values.append(value)
            pushed.append(k)
        shared = self.shareable(dev)
        if dev.consumes and not (shared and (self.state.shared_use(dev.id) or self.capacity.get(dev.id))):
            pool = self.counters.setdefault((dev.id.driver, dev.id.pool), {})
            for cs, consumed in dev.consumes:
                for c, v in consumed:
                    pool[(cs, c)] = pool.get((cs, c), Fraction(0)) + v
            charged = True
        else:
            charged = False
        if shared:
            mine = self.capacity.setdefault(dev.id, {})
            for name, amount in want.items():
                mine[name] = mine.get(name, Fraction(0)) + amount
        if not alt.admin:
            self.picked.add(dev.id)
        state.used.add(dev.id)
        state.picks.append(Pick(alt.label, dev, shared, want if shared else {}, alt.admin))
        self._undo.append((ci, pushed, charged, want if shared else None))
        return True

    def _remove(self, ci: int) -> None:
        state = self.cs[ci]
        pick = state.picks.pop()
        _, pushed, charged, want = self._undo.pop()
        dev = pick.device
        for k in pushed:
            state.values[k].pop()
        if charged:
            pool = self.counters[(dev.id.driver, dev.id.pool)]
            for cs, values in dev.consumes:
                for c, v in values:
                    pool[(cs, c)] -= v
        if want is not None:
            mine = self.capacity[dev.id]
            for name, value in want.items():
                mine[name] -= value
            if not any(mine.values()):
                del self.capacity[dev.id]
        if not any(p.device.id == dev.id for p in state.picks):
            state.used.discard(dev.id)
        if not pick.admin and not any(p.device.id == dev.id and not p.admin for s in self.cs for p in s.picks):
            self.picked.discard(dev.id)
