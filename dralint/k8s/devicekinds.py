"""What kind of device a ResourceSlice entry is: whole or a partition, which model, how much memory.

A DeviceClass written for the device-plugin migration (``device.driver == "gpu.nvidia.com"``)
often matches whole GPUs and MIG partitions alike, so a pod asking ``nvidia.com/gpu: 1`` may get
a slice of a GPU. This module reads the kind of each device from the snapshot (no vendor table):

* a device that consumes shared counters is a *partition* unless it consumes every counter of its
  set in full (then it is the whole device that the partitions carve up);
* its model is the first of the attributes ``productName``, ``model``, ``product``;
* its size is its ``memory`` capacity; a partition's profile is its ``profile`` attribute, else
  its size.

:func:`narrowing_attribute` finds an attribute that is constant inside each kind and differs
between kinds: the one to add to the class selector.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # read from an inventory built elsewhere, never built here
    from dralint.k8s.inventory import Device, Inventory

MODEL_ATTRIBUTES = ("productName", "model", "product")


class DeviceKind(NamedTuple):
    """The grouping key: partition flag, model and (for whole devices) memory."""

    partition: bool
    model: str
    memory: str

    def label(self) -> str:
        """``whole NVIDIA H100 80GB HBM3 (memory 80Gi)`` or ``partition of NVIDIA H100 ...``."""
        what = "partition of" if self.partition else "whole"
        model = self.model or "device of unnamed model"
        return f"{what} {model}" + (f" (memory {self.memory})" if self.memory else "")


def _unqualified(device: Device, name: str) -> Any:
    for qualified, (_kind, value) in device.attributes.items():
        if qualified.rsplit("/", 1)[-1] == name:
            return value
    return None


def is_partition(device: Device, inv: Inventory) -> bool:
    """Consumes shared counters, but not all of its counter set (the whole device does)."""
    if not device.consumes:
        return False
    pool = inv.pools.get((device.id.driver, device.id.pool))
    sets = pool.counter_sets() if pool is not None else {}
    for set_name, counters in device.consumes:
        totals = sets.get(set_name, {})
        if any(totals.get(counter) != value for counter, value in counters):
            return True
    return False


def device_kind(device: Device, inv: Inventory) -> DeviceKind:
    """The kind of one device, read from its attributes, capacity and counter consumption."""
    model = next((str(v) for v in (_unqualified(device, a) for a in MODEL_ATTRIBUTES) if v is not None), "")
    memory = device.capacity.get("memory")
    return DeviceKind(is_partition(device, inv), model, memory.raw if memory is not None else "")


def profile(device: Device) -> str:
    """A partition's profile name, or its memory size when it has no ``profile`` attribute."""
    value = _unqualified(device, "profile")
    if value is not None:
        return str(value)
    memory = device.capacity.get("memory")
    return memory.raw if memory is not None else "?"


class KindSummary(NamedTuple):
    """Devices a class matches, grouped by kind (partitions of a model grouped together)."""

    groups: Mapping[DeviceKind, Sequence[Device]]

    @property
    def mixed(self) -> bool:
        """More than one kind: whole and partitions, or several models or memory sizes."""
        return len(self.groups) > 1

    def describe(self) -> str:
        """``4 whole ... (memory 80Gi), 28 partitions of ... in 3 profiles``."""
        parts = []
        for kind in sorted(self.groups, key=lambda k: (k.partition, k.model, k.memory)):
            devices = self.groups[kind]
            if kind.partition:
                profiles = len({profile(d) for d in devices})
                model = kind.model or "a device of unnamed model"
                parts.append(
                    f"{len(devices)} partition{'s' if len(devices) != 1 else ''} of {model} "
                    f"in {profiles} profile{'s' if profiles != 1 else ''}"
                )
            else:
                parts.append(f"{len(devices)} {kind.label()}")
        return ", ".join(parts)


def summarize(devices: Iterable[Device], inv: Inventory) -> KindSummary:
    """Group devices by kind; partitions of one model form one group whatever their size."""
    groups: dict[DeviceKind, list[Device]] = defaultdict(list)
    for device in devices:
        kind = device_kind(device, inv)
        if kind.partition:
            kind = DeviceKind(True, kind.model, "")
        groups[kind].append(device)
    return KindSummary(dict(groups))


def narrowing_attribute(summary: KindSummary, keep: DeviceKind) -> tuple[str, str, Any] | None:
    """(qualified attribute, type, value) that every device of ``keep`` has and no other kind
    shares, preferring string attributes; None when no single attribute separates them."""
    mine = summary.groups.get(keep, ())
    others = [d for kind, devices in summary.groups.items() if kind != keep for d in devices]
    if not mine or not others:
        return None
    candidates = []
    for qualified, (kind, value) in mine[0].attributes.items():
        if kind not in ("string", "int", "bool", "version"):
            continue
        if any(d.attributes.get(qualified) != (kind, value) for d in mine):
            continue
        if any(d.attributes.get(qualified) == (kind, value) for d in others):
            continue
        candidates.append((kind != "string", qualified, kind, value))
    if not candidates:
        return None
    _, qualified, kind, value = min(candidates, key=lambda c: (c[0], c[1]))
    return qualified, kind, value


def cel_condition(driver: str, qualified: str, kind: str, value: Any) -> str:
    """A CEL comparison for a narrowing attribute, in the form the DeviceClass selectors use."""
    domain, _, name = qualified.rpartition("/")
    literal = (
        f"'{value}'" if kind == "string" else ("true" if value is True else "false" if value is False else str(value))
    )
    if kind == "version":
        return f"device.attributes['{domain or driver}'].{name}.compareTo(semver('{value}')) == 0"
    return f"device.attributes['{domain or driver}'].{name} == {literal}"
