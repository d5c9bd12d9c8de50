"""Cluster snapshot model: ResourceSlices, DeviceClasses, Nodes, allocated claims, DeviceTaintRules.

The inventory is built once per run from plain objects (the output of ``kubectl get ... -o yaml``)
and is read-only afterwards. It mirrors what the scheduler's allocator sees (dra-scheduling.md
§1.2, §1.6, §1.7, §1.9): pools keyed by (driver, pool name) with generation and slice-count
completeness, node-local versus shared slices, devices with qualified attributes, capacity and
counter consumption, shared counter sets, taints (own and from DeviceTaintRules) and the devices
that allocated ResourceClaims already occupy. Problems of the snapshot itself are collected as
plain records so the lint layer can turn them into findings at the slice that causes them.
"""

from __future__ import annotations

import marshal
from collections import defaultdict
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from dralint.k8s.apivalidation import non_finite_numbers
from dralint.k8s.quantity import DECIMAL_SI, Quantity, QuantityError, parse_quantity
from dralint.yaml.plain import as_list, as_mapping

Path = tuple[str | int, ...]

#: The attribute value types the allocator compares in constraints (list types need an alpha gate).
SCALAR_ATTRIBUTE_TYPES = ("string", "int", "bool", "version")
LIST_ATTRIBUTE_TYPES = ("strings", "ints", "bools", "versions")
ATTRIBUTE_TYPES = SCALAR_ATTRIBUTE_TYPES + LIST_ATTRIBUTE_TYPES


def amount(raw: object) -> Fraction | None:
    """Exact numeric value of a Kubernetes quantity, or None when it does not parse.

    Fractions keep counter and capacity arithmetic exact (``0.5`` + ``0.5`` equals ``1``), which
    the scheduler gets from resource.Quantity.
    """
    if isinstance(raw, bool) or raw is None:
        return None
    try:
        return parse_quantity(str(raw)).value
    except (QuantityError, ValueError, ArithmeticError):
        return None


def format_amount(value: Fraction, like: str = "") -> str:
    """A quantity string for ``value`` in the format (binary/decimal SI) of the quantity ``like``."""
    try:
        fmt = parse_quantity(like).format if like else DECIMAL_SI
    except QuantityError:
        fmt = DECIMAL_SI
    return Quantity(value, fmt, None).canonical()


#: Counter consumption of a device: (counter set, ((counter, amount), ...)) per entry.
Consumes = tuple[tuple[str, tuple[tuple[str, Fraction], ...]], ...]


class DeviceId(NamedTuple):
    """The scheduler's device identity: driver, pool name and device name (hashed in C: hot)."""

    driver: str
    pool: str
    name: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.name}"


@dataclass(frozen=True, slots=True)
class Taint:
    """A device taint from the slice or from a DeviceTaintRule."""

    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True, slots=True)
class RequestPolicy:
    """requestPolicy of a consumable capacity (only meaningful with allowMultipleAllocations)."""

    default: Fraction | None = None
    valid_values: tuple[Fraction, ...] = ()
    min: Fraction | None = None
    max: Fraction | None = None
    step: Fraction | None = None


@dataclass(frozen=True, slots=True)
class Capacity:
    """One capacity entry of a device: its total value and optional request policy."""

    value: Fraction
    raw: str
    policy: RequestPolicy | None = None


@dataclass(frozen=True, slots=True)
class NodeSelection:
    """Where a slice (or a device of a perDeviceNodeSelection slice) is available."""

    node_name: str | None = None
    all_nodes: bool = False
    selector: Mapping[str, Any] | None = None
    per_device: bool = False


@dataclass(eq=False, slots=True)
class Slice:
    """One ResourceSlice as the allocator sees it."""

    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    selection: NodeSelection
    devices: list[Device]
    counter_sets: dict[str, dict[str, Fraction]]
    source: Any
    base: Path

    @property
    def shared(self) -> bool:
        """Slices without nodeName are visible to every node's allocation (then filtered)."""
        return self.selection.node_name is None


@dataclass(eq=False, slots=True)
class Device:
    """A device with everything selection, counters, capacity, taints and constraints need.

    The fields after ``selection`` are what the device's entry in its slice says, whatever
    slice lists it: ``Inventory._models`` derives them once per distinct device list, as an
    ``_Entry`` in this order."""

    id: DeviceId
    slice: Slice
    taints: tuple[Taint, ...]
    selection: NodeSelection | None
    index: int
    data: Mapping[str, Any]
    attributes: dict[str, tuple[str, Any]]
    capacity: dict[str, Capacity]
    consumes: Consumes
    allow_multiple: bool
    binding_conditions: bool
    binds_to_node: bool
    #: Everything a DeviceClass or request selector can read of the device: its driver,
    #: attributes, capacity and allowMultipleAllocations (never its name or pool). Devices with
    #: the same key get the same answer from every selector, so answers are kept per key.
    selector_key: Hashable

    @property
    def driver(self) -> str:
        """Driver name (what ``device.driver`` is in CEL)."""
        return self.id.driver

    def attribute(self, qualified: str) -> tuple[str, Any] | None:
        """(type, value) of a fully-qualified attribute; bare names were filed under the driver."""
        return self.attributes.get(qualified)


#: ``Device`` fields from ``index`` on, in their order.
_Entry = tuple[
    int, Mapping[str, Any], dict[str, tuple[str, Any]], dict[str, Capacity], Consumes, bool, bool, bool, Hashable
]


class _DeviceModel(NamedTuple):
    """What a device entry of a ResourceSlice says, apart from the slice, shared by the devices
    of slices that list equal entries (``Inventory._models``): its name, its own taints, its own
    node selection (used in perDeviceNodeSelection slices only) and the ``Device`` fields it
    alone decides."""

    name: str
    taints: tuple[Taint, ...]
    selection: NodeSelection | None
    entry: _Entry


@dataclass(eq=False, slots=True)
class Node:
    """A node: name, labels (for node selectors), allocatable (for device-plugin resources) and
    its kubelet version (``status.nodeInfo.kubeletVersion``; empty when unknown)."""

    name: str
    labels: Mapping[str, str]
    allocatable: Mapping[str, str]
    source: Any = None
    kubelet: str = ""
    #: (key, value, effect) of the taints that keep pods off (NoSchedule, NoExecute).
    taints: tuple[tuple[str, str, str], ...] = ()


def _node_taints(raw: Any) -> tuple[tuple[str, str, str], ...]:
    return tuple(
        (str(t.get("key") or ""), str(t.get("value") or ""), str(t["effect"]))
        for t in as_list(raw)
        if isinstance(t, Mapping) and t.get("effect") in ("NoSchedule", "NoExecute")
    )


@dataclass(eq=False, slots=True)
class Pool:
    """All slices of one (driver, pool) across the cluster, newest generation first-class."""

    driver: str
    name: str
    slices: list[Slice] = field(default_factory=list)

    @property
    def generation(self) -> int:
        """The newest generation published for the pool."""
        return max(s.generation for s in self.slices)

    def current(self) -> list[Slice]:
        """Slices of the newest generation, sorted by name like the allocator sorts them."""
        gen = self.generation
        return sorted((s for s in self.slices if s.generation == gen), key=lambda s: s.name)

    @property
    def slice_count(self) -> int:
        """resourceSliceCount promised by the newest generation (largest if slices disagree)."""
        return _promised(self.current())

    @property
    def complete(self) -> bool:
        """All slices of the newest generation are present (cluster-wide view)."""
        current = self.current()
        return len(current) == _promised(current)

    def counter_sets(self) -> dict[str, dict[str, Fraction]]:
        """The pool's shared counter sets, from every slice of the newest generation."""
        return _counter_sets(self.current())


def _promised(current: list[Slice]) -> int:
    """``Pool.slice_count`` from the pool's ``current()`` slices, for callers that hold them
    (indexing a fleet's pools sorted each pool's slices four times to ask three questions)."""
    return max(s.slice_count for s in current)


def _counter_sets(current: list[Slice]) -> dict[str, dict[str, Fraction]]:
    """``Pool.counter_sets`` from the pool's ``current()`` slices."""
    sets: dict[str, dict[str, Fraction]] = {}
    for sl in current:
        for name, counters in sl.counter_sets.items():
            sets.setdefault(name, counters)
    return sets


@dataclass(frozen=True, slots=True)
class SnapshotProblem:
    """Something wrong with the snapshot itself; ``source`` + ``path`` locate it."""

    code: str
    message: str
    source: Any
    path: Path


@dataclass(frozen=True, slots=True)
class AllocatedDevice:
    """Occupancy of one device by claims that already have status.allocation."""

    dedicated: bool
    consumed: Mapping[str, Fraction]
    claims: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AllocatedClaim:
    """A ResourceClaim of the snapshot that is already allocated."""

    namespace: str | None
    name: str
    devices: tuple[DeviceId, ...]
    node_selector: Mapping[str, Any] | None


def qualify(name: str, driver: str) -> str:
    """Fully-qualified attribute or capacity name: bare names belong to the driver's domain."""
    return name if "/" in name else f"{driver}/{name}"


def object_data(item: Any) -> Mapping[str, Any]:
    """The plain data of a dict or of an object with a ``data`` dict (the pipeline's KubeObject)."""
    if isinstance(item, Mapping):
        return item
    data = getattr(item, "data", None)
    return data if isinstance(data, Mapping) else {}


def _flatten(
    items: Iterable[Any], deferred: list[tuple[Mapping[str, Any] | None, Any, Path]]
) -> Iterator[tuple[Mapping[str, Any], Any, Path]]:
    """Yield (object, source, base path), opening ``kind: List`` documents.

    Objects that say they are ResourceSlices without being read (the pipeline's KubeObject
    knows its kind while its document is frozen) go to ``deferred`` unread instead: indexing
    them one at a time keeps one expanded document in memory instead of the whole fleet.
    """
    for item in items:
        if not isinstance(item, Mapping) and getattr(item, "kind", None) == "ResourceSlice":
            deferred.append((None, item, ()))
            continue
        data, source = object_data(item), item
        if isinstance(data.get("items"), list) and str(data.get("kind", "")).endswith("List"):
            for i, sub in enumerate(data["items"]):
                if isinstance(sub, Mapping):
                    yield sub, source, ("items", i)
        else:
            yield data, source, ()


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _attribute(raw: object) -> tuple[str, Any]:
    """(type, value) of a DeviceAttribute; type "" when no supported value is set."""
    if isinstance(raw, Mapping):
        for kind in ATTRIBUTE_TYPES:
            if kind in raw:
                value = raw[kind]
                return kind, tuple(value) if isinstance(value, list) else value
    return "", None


def _policy(raw: Mapping[str, Any]) -> RequestPolicy | None:
    if not raw:
        return None
    rng = as_mapping(raw.get("validRange"))
    values = raw.get("validValues")
    return RequestPolicy(
        default=amount(raw.get("default")),
        valid_values=tuple(v for v in (amount(x) for x in values) if v is not None) if isinstance(values, list) else (),
        min=amount(rng.get("min")),
        max=amount(rng.get("max")),
        step=amount(rng.get("step")),
    )


#: The fields of a device a selector reads besides its driver and allowMultipleAllocations
#: ("basic" holds the others in v1beta1).
_SELECTOR_READS = ("basic", "attributes", "capacity")


def _content_key(value: Any) -> bytes:
    """Equal for values equal in content and in type, where Python's ``==`` is looser than YAML
    (1, 1.0, True and "1" are four values to a selector): the value marshalled, in a third of
    the time ``repr`` takes for a device's attributes. Format 2, the last without
    back-references: later formats mark objects that happen to be referenced twice, so equal
    values could give different bytes."""
    return marshal.dumps(value, 2)


def _selector_key(driver: str, data: Mapping[str, Any], keys: Mapping[str, bytes]) -> Hashable:
    """``Device.selector_key`` from the device's fields and the ``_content_key`` of those that
    are collections, which sharing them already computed (``Inventory._model``). Two devices
    listing the same attributes in another order only miss a shared answer.
    """
    return (
        driver,
        *[keys.get(name) or _content_key(data.get(name)) for name in _SELECTOR_READS],
        data.get("allowMultipleAllocations") is True,
    )


def _capacity(raw: Mapping[str, Any]) -> dict[str, Capacity]:
    """A device's capacity entries that hold a quantity."""
    capacity: dict[str, Capacity] = {}
    for key, value in raw.items():
        entry = value if isinstance(value, Mapping) else {"value": value}
        total = amount(entry.get("value"))
        if total is not None:
            capacity[str(key)] = Capacity(
                total, str(entry.get("value")), _policy(as_mapping(entry.get("requestPolicy")))
            )
    return capacity


def _selection(spec: Mapping[str, Any]) -> NodeSelection | None:
    """Node selection fields of a slice spec or a device; None when none is set."""
    if spec.get("nodeName"):
        return NodeSelection(node_name=str(spec["nodeName"]))
    if spec.get("allNodes") is True:
        return NodeSelection(all_nodes=True)
    if isinstance(spec.get("nodeSelector"), Mapping):
        return NodeSelection(selector=spec["nodeSelector"])
    if spec.get("perDeviceNodeSelection") is True:
        return NodeSelection(per_device=True)
    return None


class Inventory:
    """The snapshot, indexed for per-node allocation. Build with :meth:`build`."""

    def __init__(self) -> None:
        self.pools: dict[tuple[str, str], Pool] = {}
        self.local_slices: dict[str, list[Slice]] = defaultdict(list)
        self.shared_slices: list[Slice] = []
        self.nodes: dict[str, Node] = {}
        self.device_classes: dict[str, Mapping[str, Any]] = {}
        self.allocated: dict[DeviceId, AllocatedDevice] = {}
        self.allocated_claims: dict[tuple[str | None, str], AllocatedClaim] = {}
        self.taint_rules: list[tuple[Mapping[str, Any], Taint]] = []
        self.problems: list[SnapshotProblem] = []
        self.devices: dict[DeviceId, Device] = {}
        self.class_sources: dict[str, Any] = {}
        #: One object per distinct device field and per distinct device list of a driver (its
        #: models), by ``_content_key`` (see ``_model`` and ``_models``).
        self._shared: dict[Hashable, Any] = {}

    # ------------------------------------------------------------------ building

    @classmethod
    def build(cls, items: Iterable[Any]) -> Inventory:
        """Index ResourceSlices, DeviceClasses, Nodes, ResourceClaims and DeviceTaintRules.

        Other kinds are ignored so a whole ``kubectl get`` dump can be passed in.
        """
        inv = cls()
        # (data, source, base); data None: read ``source``'s data when the slice is indexed.
        slices: list[tuple[Mapping[str, Any] | None, Any, Path]] = []
        claims: list[tuple[Mapping[str, Any], Any, Path]] = []
        for data, source, base in _flatten(items, slices):
            kind = data.get("kind")
            meta = as_mapping(data.get("metadata"))
            if kind == "ResourceSlice":
                slices.append((data, source, base))
            elif kind == "DeviceClass" and meta.get("name"):
                inv.device_classes[str(meta["name"])] = data
                inv.class_sources[str(meta["name"])] = (source, base)
            elif kind == "Node" and meta.get("name"):
                status = as_mapping(data.get("status"))
                inv.nodes[str(meta["name"])] = Node(
                    str(meta["name"]),
                    {str(k): str(v) for k, v in as_mapping(meta.get("labels")).items()},
                    {str(k): str(v) for k, v in as_mapping(status.get("allocatable")).items()},
                    source,
                    str(as_mapping(status.get("nodeInfo")).get("kubeletVersion") or ""),
                    _node_taints(as_mapping(data.get("spec")).get("taints")),
                )
            elif kind == "ResourceClaim":
                claims.append((data, source, base))
            elif kind == "DeviceTaintRule":
                inv._add_taint_rule(data)
        for maybe_data, source, base in slices:
            inv._add_slice(object_data(source) if maybe_data is None else maybe_data, source, base)
        inv._check_pools()
        for data, source, base in claims:
            inv._add_claim(data, source, base)
        inv._ensure_nodes()
        return inv

    def _add_taint_rule(self, data: Mapping[str, Any]) -> None:
        spec = as_mapping(data.get("spec"))
        taint = as_mapping(spec.get("taint"))
        if not taint.get("key") or not taint.get("effect"):
            return
        # At 1.37 an omitted deviceSelector matches every device (fixed to "none" in 1.38).
        self.taint_rules.append(
            (
                as_mapping(spec.get("deviceSelector")),
                Taint(str(taint["key"]), str(taint.get("value") or ""), str(taint["effect"])),
            )
        )

    def _rule_taints(self, driver: str, pool: str, name: str) -> tuple[Taint, ...]:
        found = []
        for selector, taint in self.taint_rules:
            wanted = (selector.get("driver"), selector.get("pool"), selector.get("device"))
            if all(w in (None, "", have) for w, have in zip(wanted, (driver, pool, name), strict=True)):
                found.append(taint)
        return tuple(found)

    def _add_slice(self, data: Mapping[str, Any], source: Any, base: Path) -> None:
        meta = as_mapping(data.get("metadata"))
        spec = as_mapping(data.get("spec"))
        pool = as_mapping(spec.get("pool"))
        driver = str(spec.get("driver") or "")
        pool_name = str(pool.get("name") or "")
        name = str(meta.get("name") or meta.get("generateName") or "")
        if not driver or not pool_name:
            self.problems.append(
                SnapshotProblem(
                    "slice-without-pool",
                    f"ResourceSlice {name!r} has no driver or pool name; the scheduler cannot use it",
                    source,
                    base + ("spec",),
                )
            )
            return
        # A document the reader found no such number in is not searched (``Document.finite``).
        known_in_range = getattr(getattr(source, "doc", None), "finite", False)
        unsendable = None if known_in_range else next(non_finite_numbers(data), None)
        if unsendable is not None:
            self.problems.append(
                SnapshotProblem(
                    "number-out-of-range",
                    f"ResourceSlice {name!r}: {unsendable.message}; the API server refuses such a slice, "
                    "so the scheduler never sees it",
                    source,
                    base + tuple(unsendable.path),
                )
            )
            return
        selection = _selection(spec)
        if selection is None:
            self.problems.append(
                SnapshotProblem(
                    "slice-without-node-selection",
                    f"ResourceSlice {name!r} sets none of nodeName, nodeSelector, allNodes and "
                    "perDeviceNodeSelection; the scheduler ignores it",
                    source,
                    base + ("spec",),
                )
            )
            return
        counter_sets: dict[str, dict[str, Fraction]] = {}
        for i, cs in enumerate(as_list(spec.get("sharedCounters"))):
            cs = as_mapping(cs)
            cs_name = str(cs.get("name") or "")
            if cs_name in counter_sets:
                self.problems.append(
                    SnapshotProblem(
                        "duplicate-counter-set",
                        f"counter set {cs_name!r} is defined twice in pool {driver}/{pool_name}",
                        source,
                        base + ("spec", "sharedCounters", i, "name"),
                    )
                )
                continue
            counter_sets[cs_name] = {
                str(k): amount(as_mapping(v).get("value")) or Fraction(0)
                for k, v in as_mapping(cs.get("counters")).items()
            }
        sl = Slice(
            name=name,
            driver=driver,
            pool=pool_name,
            generation=_int(pool.get("generation"), 0),
            slice_count=max(_int(pool.get("resourceSliceCount"), 1), 1),
            selection=selection,
            devices=[],
            counter_sets=counter_sets,
            source=source,
            base=base,
        )
        sl.devices.extend(self._device(sl, model) for model in self._models(driver, spec.get("devices")))
        self.pools.setdefault((driver, pool_name), Pool(driver, pool_name)).slices.append(sl)
        if selection.node_name is not None:
            self.local_slices[selection.node_name].append(sl)
        else:
            self.shared_slices.append(sl)

    def _models(self, driver: str, raw: object) -> list[_DeviceModel]:
        """The models of a slice's device list; the list of an earlier slice of the driver with
        equal content (``_content_key``) gives its models again.

        A fleet's node-local slices mostly list the same devices (names too: gpu-0 to gpu-7 on
        every node): deriving the devices' fields once per distinct list instead of once per
        device took indexing the 10,000-node benchmark fleet from 0.80 to 0.52 CPU seconds.
        """
        try:
            key: Hashable = ("devices", driver, _content_key(raw))
        except ValueError:  # not plain data: no sharing, and ``_model`` reads it as before
            key = None
        found = self._shared.get(key) if key is not None else None
        if found is None:
            found = [
                self._model(driver, i, dev)
                for i, dev in enumerate(as_list(raw))
                if isinstance(dev, Mapping) and dev.get("name")
            ]
            if key is not None:
                self._shared[key] = found
        return found

    def _model(self, driver: str, index: int, raw: Mapping[str, Any]) -> _DeviceModel:
        """What one device entry of a slice of ``driver`` says, whatever slice lists it.

        A fleet repeats a few device models thousands of times, and every device keeping its
        own copy of the same attributes and capacity was most of the memory of a large
        snapshot (a 10,000-node fleet held 80,000 copies of the same few mappings). So the
        device's fields, and what is derived from them, are shared between devices whose
        fields are equal in content and type (``_content_key``). The inventory is read-only, so
        sharing is safe.
        """
        # v1beta1 nests the device properties under "basic" (a v1 device is read as it is).
        basic = raw.get("basic")
        merged = {**raw, **basic} if isinstance(basic, Mapping) else raw
        data: dict[str, Any] = {}
        keys: dict[str, bytes] = {}
        for field_name, value in merged.items():
            if isinstance(value, (dict, list)):
                key = keys[field_name] = _content_key(value)
                value = self._shared.setdefault(("field", key), value)
            data[field_name] = value
        attributes = self._shared.get(("attributes", driver, keys.get("attributes")))
        if attributes is None:
            attributes = self._shared[("attributes", driver, keys.get("attributes"))] = {
                qualify(str(k), driver): _attribute(v) for k, v in as_mapping(merged.get("attributes")).items()
            }
        capacity = self._shared.get(("capacity", keys.get("capacity")))
        if capacity is None:
            capacity = self._shared[("capacity", keys.get("capacity"))] = _capacity(as_mapping(merged.get("capacity")))
        consumes = (
            tuple(
                (
                    str(as_mapping(c).get("counterSet") or ""),
                    tuple(
                        (str(k), amount(as_mapping(v).get("value")) or Fraction(0))
                        for k, v in as_mapping(as_mapping(c).get("counters")).items()
                    ),
                )
                for c in as_list(merged.get("consumesCounters"))
            )
            if "consumesCounters" in merged
            else ()
        )
        own_taints = (
            tuple(
                Taint(str(t.get("key") or ""), str(t.get("value") or ""), str(t.get("effect") or ""))
                for t in (as_mapping(t) for t in as_list(merged.get("taints")))
            )
            if "taints" in merged
            else ()
        )
        entry: _Entry = (
            index,
            data,
            attributes,
            capacity,
            consumes,
            merged.get("allowMultipleAllocations") is True,
            bool(merged.get("bindingConditions")),
            merged.get("bindsToNode") is True,
            _selector_key(driver, data, keys),
        )
        return _DeviceModel(str(merged["name"]), own_taints, _selection(merged), entry)

    def _device(self, sl: Slice, model: _DeviceModel) -> Device:
        """The device ``model`` describes in slice ``sl``: its identity, slice and the taints
        DeviceTaintRules give it are the slice's own."""
        name, taints, selection, entry = model
        if self.taint_rules:
            taints += self._rule_taints(sl.driver, sl.pool, name)
        return Device(
            DeviceId(sl.driver, sl.pool, name), sl, taints, selection if sl.selection.per_device else None, *entry
        )

    def _problem(self, code: str, message: str, sl: Slice, path: Path) -> None:
        self.problems.append(SnapshotProblem(code, message, sl.source, sl.base + path))

    def _check_pools(self) -> None:
        """Record pool-level problems and index the devices of the newest generation."""
        for pool in self.pools.values():
            label = f"{pool.driver}/{pool.name}"
            current = pool.current()
            gen = current[0].generation
            for sl in pool.slices:
                if sl.generation != gen:
                    self._problem(
                        "mixed-generations",
                        f"slice {sl.name!r} of pool {label} has generation {sl.generation} but the pool "
                        f"is at generation {gen}; the scheduler ignores the old slice",
                        sl,
                        ("spec", "pool", "generation"),
                    )
            promised = _promised(current)
            if len(current) != promised:
                self._problem(
                    "incomplete-pool",
                    f"pool {label} generation {gen} promises {promised} slice(s) "
                    f"(resourceSliceCount) but the snapshot has {len(current)}; ExactCount requests "
                    "skip it and allocationMode All fails on every node that sees it",
                    current[0],
                    ("spec", "pool", "resourceSliceCount"),
                )
            counter_sets = _counter_sets(current)
            seen_sets: dict[str, Slice] = {}
            seen: dict[str, Slice] = {}
            for sl in current:
                for cs_name in sl.counter_sets:
                    if cs_name in seen_sets and seen_sets[cs_name] is not sl:
                        self._problem(
                            "duplicate-counter-set",
                            f"counter set {cs_name!r} is defined in slices {seen_sets[cs_name].name!r} "
                            f"and {sl.name!r} of pool {label}; the pool is invalid",
                            sl,
                            ("spec", "sharedCounters"),
                        )
                    seen_sets.setdefault(cs_name, sl)
                for dev in sl.devices:
                    if dev.id.name in seen:
                        self._problem(
                            "duplicate-device",
                            f"device {dev.id.name!r} appears twice in pool {label} (also in slice "
                            f"{seen[dev.id.name].name!r}); the pool is invalid",
                            sl,
                            ("spec", "devices", dev.index, "name"),
                        )
                    else:
                        seen[dev.id.name] = sl
                        self.devices[dev.id] = dev
                    for ci, (cs_name, counters) in enumerate(dev.consumes):
                        problem = counter_problem(counter_sets, cs_name, counters)
                        if problem:
                            self._problem(
                                "unknown-counter",
                                f"device {dev.id.name!r} of pool {label} {problem}; the pool is invalid",
                                sl,
                                ("spec", "devices", dev.index, "consumesCounters", ci, "counterSet"),
                            )

    def _add_claim(self, data: Mapping[str, Any], source: Any, base: Path) -> None:
        meta = as_mapping(data.get("metadata"))
        allocation = as_mapping(as_mapping(data.get("status")).get("allocation"))
        if not allocation:
            return
        claim_name = f"{meta.get('namespace') or 'default'}/{meta.get('name') or '?'}"
        ids = []
        for result in as_list(as_mapping(allocation.get("devices")).get("results")):
            result = as_mapping(result)
            dev_id = DeviceId(str(result.get("driver")), str(result.get("pool")), str(result.get("device")))
            ids.append(dev_id)
            if result.get("adminAccess") is True:
                continue
            before = self.allocated.get(dev_id)
            consumed = dict(before.consumed) if before else {}
            shared = bool(result.get("shareID"))
            if shared:
                for key, value in as_mapping(result.get("consumedCapacity")).items():
                    consumed[str(key)] = consumed.get(str(key), Fraction(0)) + (amount(value) or Fraction(0))
            self.allocated[dev_id] = AllocatedDevice(
                dedicated=(before.dedicated if before else False) or not shared,
                consumed=consumed,
                claims=(before.claims if before else ()) + (claim_name,),
            )
        namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
        self.allocated_claims[(namespace or "default", str(meta.get("name") or ""))] = AllocatedClaim(
            namespace or "default",
            str(meta.get("name") or ""),
            tuple(ids),
            allocation.get("nodeSelector") if isinstance(allocation.get("nodeSelector"), Mapping) else None,
        )

    def _ensure_nodes(self) -> None:
        """Nodes named by node-local slices exist even when the snapshot has no Node objects."""
        names = set(self.local_slices)
        for sl in self.shared_slices:
            names.update(d.selection.node_name for d in sl.devices if d.selection and d.selection.node_name)
        for name in sorted(names - set(self.nodes)):
            self.nodes[name] = Node(name, {"kubernetes.io/hostname": name}, {})

    # ------------------------------------------------------------------ queries

    def node_names(self) -> list[str]:
        """All nodes, sorted, so placements are deterministic."""
        return sorted(self.nodes)

    def counters_in_use(self, pool: Pool) -> dict[tuple[str, str], Fraction]:
        """Counter consumption of the pool's devices that allocated claims already hold."""
        used: dict[tuple[str, str], Fraction] = defaultdict(Fraction)
        for sl in pool.current():
            for dev in sl.devices:
                if dev.id in self.allocated:
                    for cs_name, counters in dev.consumes:
                        for counter, value in counters:
                            used[(cs_name, counter)] += value
        return used

    def all_devices(self) -> Iterator[Device]:
        """Every device of the newest generation of every pool (the "any device" universe)."""
        return iter(self.devices.values())

    def source_of(self, dev: Device, path: Sequence[str | int] = ()) -> tuple[Any, Path]:
        """Where a device is written: (source object, data path) for related locations."""
        return dev.slice.source, dev.slice.base + ("spec", "devices", dev.index) + tuple(path)


def counter_problem(
    counter_sets: Mapping[str, Mapping[str, Fraction]], cs_name: str, counters: Sequence[tuple[str, Fraction]]
) -> str | None:
    """Why a device's counter consumption does not resolve inside its pool, or None."""
    if cs_name not in counter_sets:
        return f"consumes counter set {cs_name!r}, which the pool does not define"
    for counter, _value in counters:
        if counter not in counter_sets[cs_name]:
            return f"consumes counter {counter!r}, which counter set {cs_name!r} does not have"
    return None
