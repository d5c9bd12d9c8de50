"""The driver catalog: what real DRA drivers install and publish, release by release.

Each data file describes one project (a repository and its chart): its releases, the drivers
it runs (the ``spec.driver`` names of its ResourceSlices), their kinds of device, the attributes
and capacities each kind carries, and the DeviceClasses the chart installs. A fact holds for
the releases listed in its ``versions`` (every release without one) and names the file it was
read from; the repository and the release's tag complete its source.

The same reader takes a team's own catalog file from the config, so every problem of a file is
a :class:`CatalogProblem` at a line and column, never an exception.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import yaml

from dralint.diagnostics import Span
from dralint.k8s.quantity import Quantity, QuantityError, parse_quantity
from dralint.k8s.semver import Semver, SemverError, parse_semver
from dralint.yaml.loader import SourceText, load

if TYPE_CHECKING:  # the CEL package loads only when a device is built (refs import this module)
    from dralint.k8s.cel.device import AttributeValue, Device

_SAFE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

__all__ = [
    "ATTRIBUTE_TYPES",
    "AttributeInfo",
    "CapacityInfo",
    "Catalog",
    "CatalogProblem",
    "ClassInfo",
    "CounterSetInfo",
    "DeviceKind",
    "DriverRelease",
    "Project",
    "Source",
    "builtin_catalog",
    "load_catalog",
    "read_catalog",
    "typed_value",
    "version_key",
]

#: Attribute value types of ``resource.k8s.io/v1`` (the list types need DRAListTypeAttributes).
ATTRIBUTE_TYPES = ("string", "int", "bool", "version", "strings", "ints", "bools", "versions")

DATA_DIR = Path(__file__).with_name("data")

#: A capacity name with a numeric range, ``memorySlice{0-7}``: one capacity per number.
_RANGE = re.compile(r"^(?P<head>[^{}]*)\{(?P<low>\d+)-(?P<high>\d+)\}(?P<tail>[^{}]*)$")


class Source(NamedTuple):
    """Where a fact was read: a file of a repository at a release tag (or commit)."""

    repository: str
    path: str
    tag: str

    def __str__(self) -> str:
        return f"{self.repository}@{self.tag}:{self.path}"


class Project(NamedTuple):
    """A repository and the chart that installs its drivers."""

    name: str
    title: str
    repository: str
    chart: str | None
    origin: str  # the catalog file it was read from
    chart_source: str | None = None  # the chart's Chart.yaml in the repository
    options_source: str | None = None  # the chart's values.yaml, where the options below default


class DeviceKind(NamedTuple):
    """One kind of device a driver publishes (a whole GPU, a MIG device, a channel)."""

    name: str
    description: str
    device_name: str  # how the driver names such devices; ``{i}`` stands for a number
    option: str | None  # the chart value or gate that makes the driver publish it
    default: bool  # published with the chart's defaults
    source: Source


class AttributeInfo(NamedTuple):
    """An attribute some kinds of device carry, with its type and a value of that type."""

    domain: str
    ident: str
    type: str
    kinds: tuple[str, ...]
    example: Any  # for each kind ``values`` does not fix
    values: Mapping[str, Any]  # kind -> the value every device of that kind has
    optional: bool  # some devices of those kinds lack it
    source: Source
    option: str | None = None  # published only with this chart value or gate (off by default)

    @property
    def qualified(self) -> str:
        return f"{self.domain}/{self.ident}"

    def value_for(self, kind: str) -> Any:
        return self.values.get(kind, self.example)


class CapacityInfo(NamedTuple):
    """A capacity some kinds of device carry, with an example quantity."""

    domain: str
    ident: str
    kinds: tuple[str, ...]
    example: str
    optional: bool
    source: Source
    option: str | None = None  # published only with this chart value or gate (off by default)

    @property
    def qualified(self) -> str:
        return f"{self.domain}/{self.ident}"


class ClassInfo(NamedTuple):
    """A DeviceClass the chart installs."""

    name: str
    driver: str
    selectors: tuple[str, ...]
    extended_resource_name: str | None
    extended_option: str | None  # the chart value that adds extendedResourceName, when not always set
    extended_default: bool
    option: str | None  # the chart value that creates the class
    default: bool  # created with the chart's defaults
    source: Source


class DriverRelease(NamedTuple):
    """One driver at one release: everything the catalog knows to judge manifests against."""

    driver: str
    version: str
    tag: str
    project: Project
    kinds: tuple[DeviceKind, ...]
    attributes: tuple[AttributeInfo, ...]
    capacity: tuple[CapacityInfo, ...]
    classes: tuple[ClassInfo, ...]
    #: Where the driver adds attributes of its own domain that no catalog can list (plugins,
    #: cloud providers, webhooks); None when the catalog lists all it publishes.
    extensible: Source | None = None
    counters: tuple[CounterSetInfo, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.driver} {self.version}"

    def kind(self, name: str) -> DeviceKind | None:
        return next((k for k in self.kinds if k.name == name), None)

    def published(self, what: str, domain: str, ident: str) -> list[AttributeInfo | CapacityInfo]:
        """The entries for ``device.<what>["domain"].ident`` (``what``: attributes | capacity)."""
        entries: tuple[AttributeInfo | CapacityInfo, ...] = self.attributes if what == "attributes" else self.capacity
        return [e for e in entries if e.domain == domain and e.ident == ident]

    def names(self, what: str, domain: str) -> set[str]:
        entries = self.attributes if what == "attributes" else self.capacity
        return {e.ident for e in entries if e.domain == domain}

    def class_kinds(self, device_class: ClassInfo) -> tuple[str, ...]:
        """The kinds of device the class's selectors admit, judged on each kind's example device."""
        from dralint.k8s.cel import evaluate  # the CEL library loads only when a class is judged

        admitted = []
        for kind, device in zip(self.kinds, self.devices(), strict=True):
            if all(evaluate(s, device).value is True for s in device_class.selectors):
                admitted.append(kind.name)
        return tuple(admitted)

    def devices(self, index: int = 0, pool: str = "") -> list[Device]:
        """One device of each kind, with the example values, as CEL sees it: as the chart's
        defaults make it (what only an option publishes is left out)."""
        return [self.device(kind, index, pool) for kind in self.kinds]

    def device(self, kind: DeviceKind, index: int = 0, pool: str = "") -> Device:
        from dralint.k8s.cel.device import Device

        attributes: dict[str, dict[str, AttributeValue]] = {}
        for attribute in self.attributes:
            if kind.name in attribute.kinds and attribute.option is None:
                value = typed_value(attribute.type, attribute.value_for(kind.name))
                attributes.setdefault(attribute.domain, {})[attribute.ident] = value
        capacity: dict[str, dict[str, Quantity]] = {}
        for entry in self.capacity:
            if kind.name in entry.kinds and entry.option is None:
                capacity.setdefault(entry.domain, {})[entry.ident] = parse_quantity(entry.example)
        name = kind.device_name.replace("{i}", str(index))
        return Device(self.driver, attributes, capacity, name=name, pool=pool)


class CounterSetInfo(NamedTuple):
    """A shared counter set the driver publishes, and the devices that consume it (partitions)."""

    name: str  # ``{i}`` stands for a number
    counters: tuple[str, ...]
    option: str | None
    source: Source


class CatalogProblem(NamedTuple):
    """A problem of a catalog file, at the key or value that causes it."""

    span: Span
    message: str


class Catalog:
    """Driver releases by driver name, and the classes they install by class name."""

    __slots__ = ("releases", "problems", "_by_driver", "_by_class", "_by_domain")

    def __init__(self, releases: Iterable[DriverRelease], problems: Iterable[CatalogProblem] = ()) -> None:
        self.releases: tuple[DriverRelease, ...] = tuple(
            sorted(releases, key=lambda r: (r.driver, version_key(r.version)))
        )
        self.problems: tuple[CatalogProblem, ...] = tuple(problems)
        self._by_driver: dict[str, list[DriverRelease]] = {}
        self._by_class: dict[str, list[tuple[DriverRelease, ClassInfo]]] = {}
        #: ``domain_releases`` by domain, as asked: selectors read a few domains many times.
        self._by_domain: dict[str, list[DriverRelease]] = {}
        for release in self.releases:
            self._by_driver.setdefault(release.driver, []).append(release)
            for device_class in release.classes:
                self._by_class.setdefault(device_class.name, []).append((release, device_class))

    @property
    def drivers(self) -> list[str]:
        return sorted(self._by_driver)

    def releases_of(self, driver: str) -> list[DriverRelease]:
        """The releases of ``driver`` (its name as in ResourceSlices), oldest first."""
        return list(self._by_driver.get(driver.lower(), ()))

    def release(self, driver: str, version: str) -> DriverRelease | None:
        wanted = version.lstrip("v")
        return next((r for r in self.releases_of(driver) if r.version == wanted), None)

    def device_class(self, name: str) -> list[tuple[DriverRelease, ClassInfo]]:
        """The releases that install DeviceClass ``name``, with the class each installs."""
        return list(self._by_class.get(name, ()))

    @property
    def class_names(self) -> list[str]:
        return sorted(self._by_class)

    def domain_releases(self, domain: str) -> list[DriverRelease]:
        """Releases of drivers that publish anything in ``domain``, the driver's own or another."""
        domain = domain.lower()
        found = self._by_domain.get(domain)
        if found is None:
            found = self._by_domain[domain] = [
                r
                for r in self.releases
                if r.driver == domain
                or any(e.domain == domain for e in r.attributes)
                or any(e.domain == domain for e in r.capacity)
            ]
        return list(found)

    def select(self, versions: Mapping[str, str | Collection[str]]) -> Catalog:
        """Only the named release (or releases) of each driver in ``versions`` (other drivers
        keep every release)."""
        chosen = {
            d.lower(): {v.lstrip("v") for v in ([named] if isinstance(named, str) else named)}
            for d, named in versions.items()
        }
        kept = [r for r in self.releases if r.driver not in chosen or r.version in chosen[r.driver]]
        return Catalog(kept, self.problems)

    def merged(self, other: Catalog) -> Catalog:
        """This catalog with ``other``'s releases added; a release of the same driver and version
        in ``other`` replaces this one's (a team's own entry wins)."""
        theirs = {(r.driver, r.version) for r in other.releases}
        kept = [r for r in self.releases if (r.driver, r.version) not in theirs]
        return Catalog([*kept, *other.releases], (*self.problems, *other.problems))


def version_key(version: str) -> tuple:
    """Order releases by their numbers (``25.12.0`` after ``25.8.0``)."""
    try:
        parsed = parse_semver(version.lstrip("v"))
    except SemverError:
        return (1, version)
    return (0, parsed.major, parsed.minor, parsed.patch, version)


def typed_value(type_name: str, value: Any) -> AttributeValue:
    """A catalog value as CEL sees it (versions parsed); ValueError when it is not of the type."""
    if type_name.endswith("s"):
        if not isinstance(value, list):
            raise ValueError(f"a {type_name} value is a list, got {value!r}")
        return [_scalar(type_name[:-1], item) for item in value]
    return _scalar(type_name, value)


def _scalar(type_name: str, value: Any) -> int | bool | str | Semver:
    if type_name == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if type_name == "bool" and isinstance(value, bool):
        return value
    if type_name == "string" and isinstance(value, str):
        return value
    if type_name == "version" and isinstance(value, str):
        try:
            return parse_semver(value)
        except SemverError as error:
            raise ValueError(f"{value!r} is not a semantic version: {error}") from error
    raise ValueError(f"{value!r} is not a{'n' if type_name == 'int' else ''} {type_name}")


# --- reading catalog files --------------------------------------------------------------


#: A fact and the release versions it holds for (None: every release).
_Versioned = tuple[Any, tuple[str, ...] | None]


class _Bad(Exception):
    def __init__(self, path: tuple, message: str, key: bool = False) -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.key = key


class _Reader:
    """Reads one catalog document; problems are collected at their place and the entry dropped."""

    def __init__(self, data: Any, locate: Callable[[tuple, bool], Span], origin: str, compile_selectors: bool) -> None:
        self.data = data
        self.locate = locate
        self.origin = origin
        self.compile_selectors = compile_selectors
        self.problems: list[CatalogProblem] = []

    def problem(self, bad: _Bad) -> None:
        self.problems.append(CatalogProblem(self.locate(bad.path, bad.key), bad.message))

    def releases(self) -> list[DriverRelease]:
        data = self.data
        try:
            top = _mapping(data, ())
            _known_keys(
                top,
                (),
                {
                    "project",
                    "title",
                    "repository",
                    "chart",
                    "chart_source",
                    "options_source",
                    "releases",
                    "drivers",
                    "classes",
                },
            )
            project = Project(
                _text(top, (), "project"),
                str(top.get("title") or top.get("project")),
                _text(top, (), "repository"),
                _optional_text(top, (), "chart"),
                self.origin,
                _optional_text(top, (), "chart_source"),
                _optional_text(top, (), "options_source"),
            )
            tags = self._tags(top)
            drivers = _list(top, (), "drivers")
        except _Bad as bad:
            self.problem(bad)
            return []
        classes = self._entries(top, ("classes",), lambda e, p: self._class(e, p, project, tags))
        out: list[DriverRelease] = []
        for index, entry in enumerate(drivers):
            try:
                out += self._driver(entry, ("drivers", index), project, tags, classes)
            except _Bad as bad:
                self.problem(bad)
        return out

    def _driver(
        self, entry: Any, path: tuple, project: Project, tags: Mapping[str, str], classes: list[_Versioned]
    ) -> list[DriverRelease]:
        """One release of the driver at ``path`` per release of the project."""
        driver = _mapping(entry, path)
        _known_keys(driver, path, {"name", "kinds", "attributes", "capacity", "counters", "extensible", "versions"})
        held = self._versions(driver, path, tags)
        name = _text(driver, path, "name").lower()
        kinds = self._entries(driver, (*path, "kinds"), lambda e, p: self._kind(e, p, project, tags))
        known = {kind.name for kind, _v in kinds}
        attributes = self._entries(
            driver, (*path, "attributes"), lambda e, p: self._attribute(e, p, name, known, project, tags)
        )
        capacity = self._entries(
            driver, (*path, "capacity"), lambda e, p: self._capacity(e, p, name, known, project, tags)
        )
        counters = self._entries(driver, (*path, "counters"), lambda e, p: self._counters(e, p, project, tags))
        own = [(c, v) for c, v in classes if c.driver == name]
        extensible = _optional_text(driver, path, "extensible")
        return [
            DriverRelease(
                name,
                version,
                tag,
                project,
                _at(kinds, version, tag),
                _at(attributes, version, tag),
                _expanded(_at(capacity, version, tag)),
                _at(own, version, tag),
                Source(project.repository, extensible, tag) if extensible else None,
                _at(counters, version, tag),
            )
            for version, tag in tags.items()
            if held is None or version in held
        ]

    def _tags(self, top: dict) -> dict[str, str]:
        tags: dict[str, str] = {}
        for index, entry in enumerate(_list(top, (), "releases")):
            path = ("releases", index)
            release = _mapping(entry, path)
            version = str(_required(release, path, "version")).lstrip("v")
            try:
                parse_semver(version)
            except SemverError as error:
                raise _Bad(
                    (*path, "version"), f"release version {version!r} is not a semantic version: {error}"
                ) from None
            tags[version] = _text(release, path, "tag")
        if not tags:
            raise _Bad(("releases",), "a catalog entry needs at least one release (version and tag)")
        return tags

    def _entries(self, parent: dict, path: tuple, read: Callable[[dict, tuple], _Versioned]) -> list[_Versioned]:
        """Each entry of the list at ``path`` read on its own: a bad one is reported and dropped."""
        out = []
        try:
            entries = _list(parent, path[:-1], path[-1], required=False)
        except _Bad as bad:
            self.problem(bad)
            return []
        for index, entry in enumerate(entries):
            try:
                out.append(read(_mapping(entry, (*path, index)), (*path, index)))
            except _Bad as bad:
                self.problem(bad)
        return out

    def _versions(self, entry: dict, path: tuple, tags: Mapping[str, str]) -> tuple[str, ...] | None:
        raw = entry.get("versions")
        if raw is None:
            return None
        if not isinstance(raw, list) or not raw:
            raise _Bad((*path, "versions"), "versions is a list of the project's release versions")
        versions = tuple(str(v).lstrip("v") for v in raw)
        for index, version in enumerate(versions):
            if version not in tags:
                raise _Bad((*path, "versions", index), f"{version!r} is not one of the releases ({', '.join(tags)})")
        return versions

    def _source(self, entry: dict, path: tuple, project: Project) -> Source:
        return Source(project.repository, _text(entry, path, "source"), "")

    def _kind(self, entry: dict, path: tuple, project: Project, tags: Mapping[str, str]) -> tuple:
        _known_keys(entry, path, {"name", "description", "device_name", "option", "default", "versions", "source"})
        kind = DeviceKind(
            _text(entry, path, "name"),
            str(entry.get("description") or ""),
            str(entry.get("device_name") or f"{_text(entry, path, 'name')}-{{i}}"),
            _optional_text(entry, path, "option"),
            _flag(entry, path, "default", True),
            self._source(entry, path, project),
        )
        return kind, self._versions(entry, path, tags)

    def _kinds_of(self, entry: dict, path: tuple, known: set[str]) -> tuple[str, ...]:
        raw = _required(entry, path, "kinds")
        if not isinstance(raw, list) or not raw:
            raise _Bad((*path, "kinds"), "kinds is a list of the driver's kinds of device")
        for index, kind in enumerate(raw):
            if not isinstance(kind, str) or kind not in known:
                raise _Bad(
                    (*path, "kinds", index), f"{kind!r} is not a kind of this driver ({', '.join(sorted(known))})"
                )
        return tuple(str(k) for k in raw)

    def _qualified(self, entry: dict, path: tuple, driver: str) -> tuple[str, str]:
        name = _text(entry, path, "name")
        domain, sep, ident = name.partition("/")
        return (domain.lower(), ident) if sep else (driver, name)

    def _attribute(
        self, entry: dict, path: tuple, driver: str, known: set[str], project: Project, tags: Mapping[str, str]
    ) -> tuple:
        _known_keys(
            entry, path, {"name", "type", "kinds", "example", "values", "optional", "option", "versions", "source"}
        )
        domain, ident = self._qualified(entry, path, driver)
        type_name = _text(entry, path, "type")
        if type_name not in ATTRIBUTE_TYPES:
            raise _Bad((*path, "type"), f"unknown attribute type {type_name!r} (known: {', '.join(ATTRIBUTE_TYPES)})")
        kinds = self._kinds_of(entry, path, known)
        values = entry.get("values") or {}
        if not isinstance(values, dict):
            raise _Bad((*path, "values"), "values maps a kind of device to the value all its devices have")
        if "example" not in entry and set(kinds) - set(values):
            raise _Bad(path, "an attribute needs an example value (or a value for each of its kinds)")
        given: list[tuple[tuple, Any]] = [(("values", k), v) for k, v in values.items()]
        if "example" in entry:
            given.insert(0, (("example",), entry["example"]))
        for where, value in given:
            if where[0] == "values" and where[-1] not in kinds:
                raise _Bad((*path, *where), f"{where[-1]!r} is not among this attribute's kinds", key=True)
            try:
                typed_value(type_name, value)
            except ValueError as error:
                raise _Bad((*path, *where), f"the value is not of type {type_name}: {error}") from None
        attribute = AttributeInfo(
            domain,
            ident,
            type_name,
            kinds,
            entry.get("example"),
            values,
            _flag(entry, path, "optional", False),
            self._source(entry, path, project),
            _optional_text(entry, path, "option"),
        )
        return attribute, self._versions(entry, path, tags)

    def _capacity(
        self, entry: dict, path: tuple, driver: str, known: set[str], project: Project, tags: Mapping[str, str]
    ) -> tuple:
        _known_keys(entry, path, {"name", "kinds", "example", "optional", "option", "versions", "source"})
        domain, ident = self._qualified(entry, path, driver)
        example = _required(entry, path, "example")
        try:
            parse_quantity(str(example))
        except QuantityError as error:
            raise _Bad((*path, "example"), f"the example is not a quantity: {error}") from None
        capacity = CapacityInfo(
            domain,
            ident,
            self._kinds_of(entry, path, known),
            str(example),
            _flag(entry, path, "optional", False),
            self._source(entry, path, project),
            _optional_text(entry, path, "option"),
        )
        return capacity, self._versions(entry, path, tags)

    def _counters(self, entry: dict, path: tuple, project: Project, tags: Mapping[str, str]) -> _Versioned:
        _known_keys(entry, path, {"set", "counters", "option", "versions", "source"})
        names = _required(entry, path, "counters")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise _Bad((*path, "counters"), "counters is a list of counter names")
        counter_set = CounterSetInfo(
            _text(entry, path, "set"),
            tuple(names),
            _optional_text(entry, path, "option"),
            self._source(entry, path, project),
        )
        return counter_set, self._versions(entry, path, tags)

    def _class(self, entry: dict, path: tuple, project: Project, tags: Mapping[str, str]) -> tuple:
        _known_keys(
            entry,
            path,
            {
                "name",
                "driver",
                "selectors",
                "extendedResourceName",
                "extended_option",
                "extended_default",
                "option",
                "default",
                "versions",
                "source",
            },
        )
        selectors = _required(entry, path, "selectors")
        if not isinstance(selectors, list) or not all(isinstance(s, str) for s in selectors):
            raise _Bad((*path, "selectors"), "selectors is a list of CEL expressions (strings)")
        from dralint.k8s.cel import check  # the CEL library loads only for a catalog with classes

        for index, selector in enumerate(selectors if self.compile_selectors else ()):
            result = check(selector)
            if result.errors:
                raise _Bad((*path, "selectors", index), f"the selector does not compile: {result.errors[0].message}")
        device_class = ClassInfo(
            _text(entry, path, "name"),
            _text(entry, path, "driver").lower(),
            tuple(selectors),
            _optional_text(entry, path, "extendedResourceName"),
            _optional_text(entry, path, "extended_option"),
            _flag(entry, path, "extended_default", True),
            _optional_text(entry, path, "option"),
            _flag(entry, path, "default", True),
            self._source(entry, path, project),
        )
        return device_class, self._versions(entry, path, tags)


def _at(entries: list[_Versioned], version: str, tag: str) -> tuple:
    """The entries that hold at ``version``, their sources at its tag."""
    return tuple(e._replace(source=e.source._replace(tag=tag)) for e, v in entries if v is None or version in v)


def _expanded(capacity: tuple[CapacityInfo, ...]) -> tuple[CapacityInfo, ...]:
    out = []
    for entry in capacity:
        match = _RANGE.match(entry.ident)
        if match is None:
            out.append(entry)
            continue
        for number in range(int(match["low"]), int(match["high"]) + 1):
            out.append(entry._replace(ident=f"{match['head']}{number}{match['tail']}"))
    return tuple(out)


def _mapping(value: Any, path: tuple) -> dict:
    if not isinstance(value, dict):
        raise _Bad(path, "expected a mapping")
    return value


def _required(entry: dict, path: tuple, key: str) -> Any:
    if entry.get(key) is None:
        raise _Bad(path, f"missing {key!r}")
    return entry[key]


def _text(entry: dict, path: tuple, key: str) -> str:
    value = _required(entry, path, key)
    if not isinstance(value, str) or not value:
        raise _Bad((*path, key), f"{key} must be a non-empty string, got {value!r}")
    return value


def _optional_text(entry: dict, path: tuple, key: str) -> str | None:
    return None if entry.get(key) is None else _text(entry, path, key)


def _flag(entry: dict, path: tuple, key: str, default: bool) -> bool:
    value = entry.get(key, default)
    if not isinstance(value, bool):
        raise _Bad((*path, key), f"{key} must be true or false, got {value!r}")
    return value


def _list(parent: dict, path: tuple, key: str, required: bool = True) -> list:
    value = parent.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list):
        raise _Bad((*path, key) if key in parent else path, f"{key} must be a list")
    return value


def _known_keys(entry: dict, path: tuple, known: set[str]) -> None:
    for key in entry:
        if key not in known:
            raise _Bad((*path, key), f"unknown key {key!r} (known: {', '.join(sorted(known))})", key=True)


def read_catalog(path: str, text: str | None = None) -> tuple[list[DriverRelease], list[CatalogProblem]]:
    """The releases of one catalog file and its problems at their line and column (a file may
    hold several documents)."""
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            return [], [CatalogProblem(Span(path, 1, 1, 1, 2), f"cannot read the driver catalog: {error}")]
    result = load(SourceText(path, text))
    problems = [
        CatalogProblem(Span(path, p.line + 1, p.column + 1, p.end_line + 1, p.end_column + 2), p.message)
        for p in result.problems
    ]
    releases: list[DriverRelease] = []
    for document in result.documents:
        if document.data is None:
            continue
        reader = _Reader(document.data, document.locate, path, compile_selectors=True)
        releases += reader.releases()
        problems += reader.problems
    return releases, problems


#: The shipped files' data as JSON, written by tools/generate_docs.py: reading it takes a tenth
#: of the time of PyYAML's constructor, which was most of the catalog's cost in a one-file run.
COMPILED = DATA_DIR / "compiled.json"


def _digest(texts: Iterable[str]) -> int:
    digest = 0
    for text in texts:
        digest = zlib.crc32(text.encode("utf-8"), digest)
    return digest


def compiled_catalog(directory: str | os.PathLike = DATA_DIR) -> str:
    """The JSON of ``COMPILED``: each shipped file's data, and a checksum of their text."""
    files = {p.name: p.read_text(encoding="utf-8") for p in catalog_files(directory)}
    data = {name: yaml.load(text, Loader=_SAFE) for name, text in files.items()}
    return json.dumps({"digest": _digest(files.values()), "files": data}, indent=1, sort_keys=True) + "\n"


def _shipped_data() -> dict[str, Any]:
    """Each shipped file's data: from ``COMPILED`` when it describes the files on disk, else (a
    stale or missing copy, in a checkout) read from the files, so a stale copy costs time only."""
    files = {p.name: p.read_text(encoding="utf-8") for p in catalog_files()}
    try:
        compiled = json.loads(COMPILED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        compiled = None
    if isinstance(compiled, dict) and compiled.get("digest") == _digest(files.values()):
        return dict(compiled["files"])
    return {name: yaml.load(text, Loader=_SAFE) for name, text in files.items()}


def _read_shipped(name: str, data: Any) -> tuple[list[DriverRelease], list[CatalogProblem]]:
    """A file of the shipped catalog, read without positions and without compiling its
    selectors: tests/test_driver_catalog.py reads each file as a team's file is read and finds
    no problem."""
    path = str(DATA_DIR / name)
    whole = Span(path, 1, 1, 1, 2)
    reader = _Reader(data, lambda _p, _k: whole, path, compile_selectors=False)
    return reader.releases(), reader.problems


def catalog_files(directory: str | os.PathLike = DATA_DIR) -> Iterator[Path]:
    return iter(sorted(Path(directory).glob("*.yaml")))


_BUILTIN: list[Catalog] = []


def builtin_catalog() -> Catalog:
    """The catalog shipped with dralint, read once per process."""
    if not _BUILTIN:
        releases: list[DriverRelease] = []
        problems: list[CatalogProblem] = []
        for name, data in sorted(_shipped_data().items()):
            found, bad = _read_shipped(name, data)
            releases += found
            problems += bad
        _BUILTIN.append(Catalog(releases, problems))
    return _BUILTIN[0]


def load_catalog(extra: Sequence[str] = (), versions: Mapping[str, str | Collection[str]] | None = None) -> Catalog:
    """The built-in catalog with a team's catalog files added, narrowed to the chosen releases."""
    catalog = builtin_catalog()
    for path in extra:
        found, bad = read_catalog(path)
        catalog = catalog.merged(Catalog(found, bad))
    return catalog.select(versions) if versions else catalog
