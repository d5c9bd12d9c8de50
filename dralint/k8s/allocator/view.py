"""What one node's allocation may use: pools gathered per dra-scheduling.md §1.2, and occupancy.

``node_view`` repeats the scheduler's per-node pool gathering (relevant slices, generation
handling, completeness including the cluster-wide newer-generation check, pool validity) and
returns the candidate devices in search order. ``State`` is the occupancy the search starts from:
the snapshot's allocated claims, plus whatever earlier replicas of a simulation took.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from dralint.k8s.allocator.model import Features
from dralint.k8s.allocator.nodeselector import SelectorError, node_matches
from dralint.k8s.inventory import Device, DeviceId, Inventory, Node, NodeSelection, Slice, counter_problem

PoolKey = tuple[str, str]
CounterKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class NodeView:
    """Candidates in search order plus the pools the node sees but may not use."""

    node: Node
    candidates: tuple[Device, ...]
    counters: Mapping[PoolKey, Mapping[CounterKey, Fraction]]
    incomplete: tuple[str, ...]
    invalid: tuple[tuple[str, str], ...]


def _selected(selection: NodeSelection, node: Node) -> bool:
    if selection.node_name is not None:
        return selection.node_name == node.name
    if selection.all_nodes:
        return True
    if selection.selector is not None:
        if node.source is None:
            # A node known only from a nodeName: its labels are unknown, so assume the
            # selector picks it rather than invent "no device" failures.
            return True
        try:
            return node_matches(selection.selector, node.name, node.labels)
        except SelectorError:
            return False
    return False


def _device_on_node(dev: Device, node: Node) -> bool:
    return dev.selection is None or _selected(dev.selection, node)


def _relevant(sl: Slice, node: Node) -> bool:
    if sl.selection.per_device:
        return any(_selected(d.selection, node) for d in sl.devices if d.selection is not None)
    return _selected(sl.selection, node)


def _invalid_reason(device_slices: list[Slice], all_slices: list[Slice]) -> str | None:
    """Why the scheduler would call the pool invalid (duplicates, dangling counter references)."""
    names: set[str] = set()
    for sl in device_slices:
        for dev in sl.devices:
            if dev.id.name in names:
                return f"duplicate device name {dev.id.name}"
            names.add(dev.id.name)
    sets: dict[str, Mapping[str, Fraction]] = {}
    for sl in all_slices:
        for name, counters in sl.counter_sets.items():
            if name in sets:
                return f"duplicate counter set name {name}"
            sets[name] = counters
    for sl in all_slices:
        for dev in sl.devices:
            for cs_name, consumed in dev.consumes:
                problem = counter_problem(sets, cs_name, consumed)
                if problem:
                    return f"device {dev.id.name} {problem}"
    return None


def node_view(inv: Inventory, node: Node, features: Features = Features()) -> NodeView:
    """Gather the pools visible from ``node`` exactly like the allocator does before searching.

    With DRAPartitionableDevices off, slices with counter sets or per-device node selection are
    skipped and devices that consume counters are never candidates.
    """
    partitionable = features.partitionable_devices
    relevant: dict[PoolKey, list[Slice]] = defaultdict(list)
    for sl in [*inv.local_slices.get(node.name, ()), *inv.shared_slices]:
        if not partitionable and (sl.selection.per_device or sl.counter_sets):
            continue
        if not sl.shared or _relevant(sl, node):
            relevant[(sl.driver, sl.pool)].append(sl)
    usable: list[tuple[bool, PoolKey, list[Slice]]] = []
    counters: dict[PoolKey, dict[CounterKey, Fraction]] = {}
    incomplete: list[str] = []
    invalid: list[tuple[str, str]] = []
    for key in sorted(relevant):
        slices = relevant[key]
        label = f"{key[0]}/{key[1]}"
        gen = max(s.generation for s in slices)
        current = [s for s in slices if s.generation == gen]
        count = current[0].slice_count
        everything = current
        if len(current) != count:
            pool = inv.pools[key]
            if pool.generation > gen:
                continue  # obsolete: a newer generation is being published; ignored silently
            everything = [s for s in pool.slices if s.generation == gen]
            if len(everything) != count:
                incomplete.append(label)
                continue
        current.sort(key=lambda s: s.name)
        reason = _invalid_reason(current, everything)
        if reason:
            invalid.append((label, reason))
            continue
        counters[key] = {
            (cs, c): v for sl in everything for cs, values in sl.counter_sets.items() for c, v in values.items()
        }
        binding = any(d.binding_conditions for sl in current for d in sl.devices)
        usable.append((binding, key, current))
    usable.sort(key=lambda item: (item[0], item[1]))
    candidates = tuple(
        dev
        for _, _, slices in usable
        for sl in slices
        for dev in sl.devices
        if _device_on_node(dev, node) and (partitionable or not dev.consumes)
    )
    return NodeView(node, candidates, counters, tuple(incomplete), tuple(invalid))


def _layered(base: dict, own: Mapping | None) -> dict:
    """The parent's amounts plus this layer's (the parent's dict is never modified)."""
    if not own:
        return base
    merged = dict(base)
    for k, v in own.items():
        merged[k] = merged.get(k, Fraction(0)) + v
    return merged


@dataclass(slots=True)
class State:
    """Device occupancy: dedicated devices, shared capacity in use, counters in use per pool.

    ``fork`` gives a child whose changes do not leak into the parent, so greedy replica placement
    can take devices out of the pool without rebuilding the snapshot's state.
    """

    dedicated: set[DeviceId] = field(default_factory=set)
    consumed: dict[DeviceId, dict[str, Fraction]] = field(default_factory=dict)
    counters: dict[PoolKey, dict[CounterKey, Fraction]] = field(default_factory=dict)
    parent: State | None = None

    @classmethod
    def from_inventory(cls, inv: Inventory) -> State:
        """Occupancy from the snapshot's allocated ResourceClaims (dra-scheduling.md §1.9)."""
        state = cls()
        for dev_id, alloc in inv.allocated.items():
            if alloc.dedicated:
                state.dedicated.add(dev_id)
            if alloc.consumed:
                state.consumed[dev_id] = dict(alloc.consumed)
        for key, pool in inv.pools.items():
            used = inv.counters_in_use(pool)
            if used:
                state.counters[key] = dict(used)
        return state

    def fork(self) -> State:
        """A child state layered over this one."""
        return State(parent=self)

    def is_dedicated(self, dev_id: DeviceId) -> bool:
        """Allocated exclusively (not shareable) by some claim."""
        return dev_id in self.dedicated or (self.parent is not None and self.parent.is_dedicated(dev_id))

    def shared_use(self, dev_id: DeviceId) -> dict[str, Fraction]:
        """Capacity consumed on a shareable device, aggregated over all its allocations."""
        base = self.parent.shared_use(dev_id) if self.parent is not None else {}
        return _layered(base, self.consumed.get(dev_id))

    def is_allocated(self, dev_id: DeviceId) -> bool:
        """Dedicated or with any capacity share: such a device already charged its counters."""
        return self.is_dedicated(dev_id) or bool(self.shared_use(dev_id))

    def counters_used(self, key: PoolKey) -> dict[CounterKey, Fraction]:
        """Counter consumption of allocated devices in one pool."""
        base = self.parent.counters_used(key) if self.parent is not None else {}
        return _layered(base, self.counters.get(key))

    def take(self, picks: Iterable[tuple[Device, bool, Mapping[str, Fraction]]]) -> None:
        """Record an allocation: (device, shared?, consumed capacity) per picked device."""
        for dev, shared, consumed in picks:
            charged = self.is_allocated(dev.id)
            if shared:
                mine = self.consumed.setdefault(dev.id, {})
                for k, v in consumed.items():
                    mine[k] = mine.get(k, Fraction(0)) + v
            else:
                self.dedicated.add(dev.id)
            if not charged and dev.consumes:
                pool = self.counters.setdefault((dev.id.driver, dev.id.pool), {})
                for cs, values in dev.consumes:
                    for c, v in values:
                        pool[(cs, c)] = pool.get((cs, c), Fraction(0)) + v
