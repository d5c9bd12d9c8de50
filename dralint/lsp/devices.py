"""What is known of DeviceClasses and of the attributes and capacities devices publish.

Hover and completion ask one ``Knowledge``, which asks its sources in order. A source is
anything with ``label``, ``classes()`` and ``fields()``: the snapshot (``--slices``), a
driver catalog, the ResourceSlices and DeviceClasses among the workspace's manifests. Which
comes first depends on the question: a class is the one the workspace defines (what ``lint``
resolves), else the snapshot's, else a catalog's; a driver's attributes come from the
snapshot (what the cluster publishes), else a catalog, else the workspace's slices.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol

from dralint.k8s.cel import Device as CelDevice
from dralint.k8s.cel.selection import matching_devices
from dralint.k8s.celmatch import cel_view
from dralint.k8s.drivers import Catalog
from dralint.k8s.inventory import DeviceId, Inventory, qualify
from dralint.k8s.objects import KubeObject

#: ``device.attributes`` or ``device.capacity``: the two maps a selector reads by domain.
ATTRIBUTES, CAPACITY = "attributes", "capacity"


class Field(NamedTuple):
    """One attribute or capacity a driver's devices publish."""

    #: ``attributes`` or ``capacity``.
    map: str
    domain: str
    name: str
    #: The attribute's type (string, int, bool, version), or ``quantity`` for a capacity.
    type: str
    #: Who publishes it, for a reader: devices and the slices or drivers they are in.
    publishers: str


class ClassInfo(NamedTuple):
    """A DeviceClass: its selectors and where it is defined."""

    name: str
    selectors: tuple[str, ...]
    where: str


class Source(Protocol):
    """One place classes and devices are known from."""

    label: str

    def classes(self) -> Iterable[ClassInfo]:
        """The DeviceClasses this source knows."""

    def fields(self) -> Iterable[Field]:
        """The attributes and capacities this source's devices publish."""

    def selects(self, selectors: Sequence[str]) -> str | None:
        """What ``selectors`` select among this source's devices, said for a reader (None
        when it holds no devices to try them on)."""


def class_selectors(data: object) -> tuple[str, ...]:
    """The CEL expressions of a DeviceClass's ``spec.selectors``."""
    spec = data.get("spec") if isinstance(data, dict) else None
    selectors = spec.get("selectors") if isinstance(spec, dict) else None
    out = []
    for selector in selectors if isinstance(selectors, list) else ():
        cel = selector.get("cel") if isinstance(selector, dict) else None
        expression = cel.get("expression") if isinstance(cel, dict) else None
        if isinstance(expression, str):
            out.append(expression)
    return tuple(out)


class ObjectSource:
    """The DeviceClasses and ResourceSlices among some objects (the workspace's or the snapshot's)."""

    def __init__(self, label: str, objects: Iterable[KubeObject]) -> None:
        self.label = label
        wanted = [obj for obj in objects if obj.kind in ("DeviceClass", "ResourceSlice")]
        self._classes = [obj for obj in wanted if obj.kind == "DeviceClass"]
        self._slices = [obj for obj in wanted if obj.kind == "ResourceSlice"]
        self._inventory: Inventory | None = None
        self._views: dict[DeviceId, CelDevice] = {}

    def _devices(self) -> Inventory:
        if self._inventory is None:
            self._inventory = Inventory.build(self._slices)
        return self._inventory

    def classes(self) -> Iterable[ClassInfo]:
        for obj in self._classes:
            yield ClassInfo(obj.name, class_selectors(obj.data), f"{self.label}: {obj.path}:{obj.span(()).line}")

    def fields(self) -> Iterable[Field]:
        if not self._slices:
            return
        counts: dict[tuple[str, str, str, str], int] = defaultdict(int)
        for device in self._devices().all_devices():
            for qualified, (kind, _) in device.attributes.items():
                domain, _, name = qualified.rpartition("/")
                counts[(ATTRIBUTES, domain, name, kind or "unknown")] += 1
            for raw in device.capacity:
                domain, _, name = qualify(raw, device.driver).rpartition("/")
                counts[(CAPACITY, domain, name, "quantity")] += 1
        for (map_name, domain, name, kind), count in counts.items():
            yield Field(map_name, domain, name, kind, f"{count} device{'s' if count != 1 else ''} ({self.label})")

    def selects(self, selectors: Sequence[str]) -> str | None:
        devices = [cel_view(self._views, device) for device in self._devices().all_devices()] if self._slices else []
        if not devices:
            return None
        selection = matching_devices(selectors, devices)
        if selection.unsupported:
            return f"cannot be evaluated here ({selection.unsupported})"
        drivers = sorted({device.driver for device in selection.matched})
        return f"{len(selection.matched)} of {selection.considered} devices in the {self.label}" + (
            f" (drivers: {', '.join(drivers)})" if drivers else ""
        )


class CatalogSource:
    """The driver catalog (``dralint.k8s.drivers``): the classes the drivers' charts install and
    what each kind of device of each release publishes."""

    label = "driver catalog"

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog

    def classes(self) -> Iterable[ClassInfo]:
        for release in self._catalog.releases:
            for info in release.classes:
                yield ClassInfo(info.name, info.selectors, f"{self.label}: {release.label}, {info.source}")

    def fields(self) -> Iterable[Field]:
        publishers: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
        for release in self._catalog.releases:
            for attribute in release.attributes:
                key = (ATTRIBUTES, attribute.domain, attribute.ident, attribute.type)
                publishers[key].append(f"{release.label} ({', '.join(attribute.kinds)})")
            for capacity in release.capacity:
                key = (CAPACITY, capacity.domain, capacity.ident, "quantity")
                publishers[key].append(f"{release.label} ({', '.join(capacity.kinds)})")
        for (map_name, domain, name, kind), who in publishers.items():
            yield Field(map_name, domain, name, kind, f"{'; '.join(who)} ({self.label})")

    def selects(self, selectors: Sequence[str]) -> str | None:
        if not self._catalog.releases:
            return None
        admitted: list[str] = []
        for release in self._catalog.releases:
            devices = release.devices()
            chosen = {id(device) for device in matching_devices(selectors, devices).matched}
            admitted.extend(
                f"{release.label} {kind.name}"
                for kind, device in zip(release.kinds, devices, strict=True)
                if id(device) in chosen
            )
        return f"the {self.label}'s kinds of device: {', '.join(admitted) or 'none'}"


class Knowledge:
    """Every source, asked in the order each question wants (see the module's docstring)."""

    def __init__(self, workspace: Source, snapshot: Source, catalogs: Sequence[Source] = ()) -> None:
        self._class_order = [workspace, snapshot, *catalogs]
        self._field_order = [snapshot, *catalogs, workspace]
        self._classes: dict[str, ClassInfo] | None = None
        self._fields: dict[tuple[str, str], tuple[str, list[Field]]] | None = None

    def classes(self) -> dict[str, ClassInfo]:
        """Every known class by name, the first source's where several define one."""
        if self._classes is None:
            self._classes = {}
            for source in self._class_order:
                for info in source.classes():
                    self._classes.setdefault(info.name, info)
        return self._classes

    def _by_domain(self) -> dict[tuple[str, str], tuple[str, list[Field]]]:
        """Fields by (map, domain), from the first source that knows the domain at all, with
        that source's label."""
        if self._fields is None:
            self._fields = {}
            for source in self._field_order:
                found: dict[tuple[str, str], list[Field]] = defaultdict(list)
                for item in source.fields():
                    found[(item.map, item.domain)].append(item)
                for key, items in found.items():
                    self._fields.setdefault(key, (source.label, sorted(items, key=lambda f: f.name)))
        return self._fields

    def domains(self, map_name: str) -> list[tuple[str, str]]:
        """(domain, the label of the source its names come from), by domain."""
        return sorted((domain, label) for (kind, domain), (label, _) in self._by_domain().items() if kind == map_name)

    def fields(self, map_name: str, domain: str) -> list[Field]:
        return self._by_domain().get((map_name, domain), ("", []))[1]

    def field(self, map_name: str, domain: str, name: str) -> Field | None:
        return next((f for f in self.fields(map_name, domain) if f.name == name), None)

    def selects(self, selectors: Sequence[str]) -> list[str]:
        """What ``selectors`` select in each source with devices to try them on."""
        out = []
        for source in self._field_order:
            said = source.selects(selectors)
            if said is not None:
                out.append(said)
        return out
