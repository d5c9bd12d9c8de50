"""What a ResourceClaim or ResourceClaimTemplate asks for, in every API version's shape.

Cross-reference checks need the same few facts about a claim again and again: its request
names (for container ``claims[].request``), the DeviceClass of each request or subrequest, and
which drivers a DeviceClass can hand out. The shapes differ between versions (v1 ``exactly`` /
``firstAvailable`` vs the flat v1beta1 request), so the walking lives here once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from dralint.k8s.objects import KubeObject
from dralint.yaml.loader import DataPath
from dralint.yaml.plain import as_list

CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")
_DRIVER_EQUALS = re.compile(r"""device\.driver\s*==\s*(['"])([^'"]+)\1|(['"])([^'"]+)\3\s*==\s*device\.driver""")


def claim_spec_path(obj: KubeObject) -> DataPath | None:
    """Where the ResourceClaimSpec sits: ``spec`` in a claim, ``spec.spec`` in a template."""
    if obj.kind == "ResourceClaim":
        return ("spec",)
    if obj.kind == "ResourceClaimTemplate":
        return ("spec", "spec")
    return None


class DeviceRequest(NamedTuple):
    """One request (or ``request/subrequest``) and the DeviceClass it draws from."""

    name: str
    path: DataPath  # the mapping that holds deviceClassName
    device_class: str | None
    admin_access: bool = False


def device_requests(obj: KubeObject) -> Iterator[DeviceRequest]:
    """Every request and subrequest of a claim or template, v1 and v1beta1 shapes alike."""
    spec_path = claim_spec_path(obj)
    if spec_path is None:
        return
    requests_path = spec_path + ("devices", "requests")
    for index, request in enumerate(as_list(obj.get(requests_path))):
        if not isinstance(request, dict) or not isinstance(request.get("name"), str):
            continue
        path = requests_path + (index,)
        name = request["name"]
        if isinstance(request.get("firstAvailable"), list):
            for sub_index, sub in enumerate(request["firstAvailable"]):
                if isinstance(sub, dict) and isinstance(sub.get("name"), str):
                    yield DeviceRequest(
                        f"{name}/{sub['name']}", path + ("firstAvailable", sub_index), _str(sub.get("deviceClassName"))
                    )
        elif isinstance(request.get("exactly"), dict):
            exactly = request["exactly"]
            yield DeviceRequest(
                name, path + ("exactly",), _str(exactly.get("deviceClassName")), exactly.get("adminAccess") is True
            )
        elif "deviceClassName" in request:
            yield DeviceRequest(name, path, _str(request.get("deviceClassName")), request.get("adminAccess") is True)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def request_names(obj: KubeObject) -> list[str]:
    """Top-level request names, the only names a container's ``claims[].request`` may use."""
    spec_path = claim_spec_path(obj)
    if spec_path is None:
        return []
    return [
        r["name"]
        for r in as_list(obj.get(spec_path + ("devices", "requests")))
        if isinstance(r, dict) and isinstance(r.get("name"), str)
    ]


def requests_in_scope(obj: KubeObject, names: Any) -> list[DeviceRequest]:
    """The requests a constraint or config applies to: the listed ones, or all when empty."""
    wanted = {n for n in as_list(names) if isinstance(n, str)}
    every = list(device_requests(obj))
    if not wanted:
        return every
    return [r for r in every if r.name in wanted or r.name.split("/", 1)[0] in wanted]


def class_drivers(device_class: KubeObject) -> frozenset[str] | None:
    """Drivers a DeviceClass can select, read from ``device.driver == "..."`` selectors and
    from its opaque config; None when the class does not say (its selectors may still narrow
    devices in ways only CEL evaluation can tell)."""
    drivers: set[str] = set()
    for selector in as_list(device_class.get(("spec", "selectors"))):
        expression = (
            selector.get("cel", {}).get("expression")
            if isinstance(selector, dict) and isinstance(selector.get("cel"), dict)
            else None
        )
        if isinstance(expression, str):
            for match in _DRIVER_EQUALS.finditer(expression):
                drivers.add(match.group(2) or match.group(4))
    for config in as_list(device_class.get(("spec", "config"))):
        opaque = config.get("opaque") if isinstance(config, dict) else None
        if isinstance(opaque, dict) and isinstance(opaque.get("driver"), str):
            drivers.add(opaque["driver"])
    return frozenset(drivers) if drivers else None


def pod_claim_entries(spec: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The well-formed ``spec.resourceClaims[]`` entries of a pod spec, with their indexes."""
    for index, entry in enumerate(as_list(spec.get("resourceClaims"))):
        if isinstance(entry, dict):
            yield index, entry
