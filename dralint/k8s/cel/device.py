"""The device view a DRA selector is evaluated on.

A :class:`Device` is what the scheduler hands to CEL for one device of a ResourceSlice:
the driver name, attributes and capacities grouped by domain, and allowMultipleAllocations.
Attribute and capacity names without a domain belong to the driver's domain, exactly as in
``k8s.io/dynamic-resource-allocation/cel``.  Attribute values are ``int``, ``bool``, ``str``,
:class:`~dralint.k8s.semver.Semver` or lists of those (the alpha list-typed attributes);
capacities are :class:`~dralint.k8s.quantity.Quantity`.

``Device.from_slice(driver, entry)`` builds one from a ResourceSlice ``spec.devices[i]`` mapping
(v1/v1beta2 shape or the v1beta1 ``basic:`` wrapper).  Values that Kubernetes would refuse to
load (an unparsable version or quantity, an attribute with no value) are kept in ``problems``;
the scheduler fails every selector on such a device with "attribute <name>: ...", and
:func:`dralint.k8s.cel.evaluate` does the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dralint.k8s.quantity import Quantity, QuantityError, parse_quantity
from dralint.k8s.semver import Semver, SemverError, parse_semver

__all__ = ["Device", "AttributeValue", "split_qualified_name"]

Scalar = int | bool | str | Semver
AttributeValue = Scalar | list[Scalar]

_SCALAR_KEYS = ("int", "bool", "string", "version")
_LIST_KEYS = {"ints": "int", "bools": "bool", "strings": "string", "versions": "version"}


def split_qualified_name(name: str, driver: str) -> tuple[str, str]:
    """``domain/id`` -> (domain, id); a bare id belongs to the driver's domain."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


class Device:
    """One device as CEL sees it; ``name``/``pool`` are only for messages."""

    __slots__ = (
        "driver",
        "attributes",
        "capacity",
        "allow_multiple_allocations",
        "name",
        "pool",
        "problems",
        "cel_data",
    )

    def __init__(
        self,
        driver: str,
        attributes: dict[str, dict[str, AttributeValue]] | None = None,
        capacity: dict[str, dict[str, Quantity]] | None = None,
        allow_multiple_allocations: bool = False,
        name: str = "",
        pool: str = "",
        problems: list[str] | None = None,
    ) -> None:
        self.driver = driver
        self.attributes = {} if attributes is None else attributes
        self.capacity = {} if capacity is None else capacity
        self.allow_multiple_allocations = allow_multiple_allocations
        self.name = name
        self.pool = pool
        self.problems = [] if problems is None else problems
        # The evaluation input built from the fields above on first use; a Device is treated as
        # immutable once evaluated.
        self.cel_data: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        """``driver/pool/device`` as the scheduler prints it."""
        return "/".join(part for part in (self.driver, self.pool, self.name) if part)

    @classmethod
    def from_slice(cls, driver: str, entry: Mapping[str, Any], pool: str = "") -> Device:
        """Build from a ResourceSlice ``spec.devices[i]`` mapping; bad values go to ``problems``."""
        basic = entry.get("basic")
        body = basic if isinstance(basic, Mapping) else entry
        device = cls(
            driver=driver,
            name=str(entry.get("name", "")),
            pool=pool,
            allow_multiple_allocations=body.get("allowMultipleAllocations") is True,
        )
        attributes = body.get("attributes")
        for qualified, raw in attributes.items() if isinstance(attributes, Mapping) else ():
            domain, ident = split_qualified_name(str(qualified), driver)
            try:
                value = _attribute_value(raw)
            except ValueError as exc:
                device.problems.append(f"attribute {qualified}: {exc}")
                continue
            device.attributes.setdefault(domain, {})[ident] = value
        capacity = body.get("capacity")
        for qualified, raw in capacity.items() if isinstance(capacity, Mapping) else ():
            domain, ident = split_qualified_name(str(qualified), driver)
            text = raw.get("value") if isinstance(raw, Mapping) else raw
            try:
                device.capacity.setdefault(domain, {})[ident] = parse_quantity(str(text))
            except QuantityError as exc:
                device.problems.append(f"capacity {qualified}: {exc}")
        return device


def _attribute_value(raw: Any) -> AttributeValue:
    if not isinstance(raw, Mapping):
        raise ValueError("unsupported attribute value")
    for key in _SCALAR_KEYS:
        if key in raw and raw[key] is not None:
            return _scalar(key, raw[key])
    for key, kind in _LIST_KEYS.items():
        if isinstance(raw.get(key), list):
            return [_scalar(kind, item) for item in raw[key]]
    raise ValueError("unsupported attribute value")


def _scalar(kind: str, value: Any) -> Scalar:
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"int attribute value {value!r} is not an integer")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"bool attribute value {value!r} is not a boolean")
        return value
    if kind == "string":
        return str(value)
    try:
        return parse_semver(str(value))
    except SemverError as exc:
        raise ValueError(f"parse semantic version: {exc}") from exc
