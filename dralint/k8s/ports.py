"""Container ports and the fields that refer to them by name or number.

A Service ``targetPort``, an Ingress backend port and a probe port may name a port
(``http``) or give its number. A name must match a ``ports[].name`` of the container (for a
Service: of the selected pods); a number need not be declared at all, since a container may
listen on any port, so only names can be proved wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.yaml.loader import DataPath

PROBES = ("livenessProbe", "readinessProbe", "startupProbe")


def port_names(container: dict[str, Any]) -> dict[str, int | None]:
    """``ports[].name`` -> its containerPort, for one container."""
    ports = container.get("ports")
    out: dict[str, int | None] = {}
    for port in ports if isinstance(ports, list) else []:
        if isinstance(port, dict) and isinstance(port.get("name"), str):
            number = port.get("containerPort")
            out[port["name"]] = number if isinstance(number, int) and not isinstance(number, bool) else None
    return out


def port_numbers(container: dict[str, Any]) -> set[int]:
    """The declared ``containerPort`` numbers of one container."""
    ports = container.get("ports")
    return {
        p["containerPort"]
        for p in (ports if isinstance(ports, list) else [])
        if isinstance(p, dict)
        and isinstance(p.get("containerPort"), int)
        and not isinstance(p.get("containerPort"), bool)
    }


def probe_ports(container: dict[str, Any]) -> Iterator[tuple[str, DataPath, Any]]:
    """(probe, path inside the container, port value) of every probe handler's port."""
    for probe in PROBES:
        spec = container.get(probe)
        if not isinstance(spec, dict):
            continue
        for handler in ("httpGet", "tcpSocket", "grpc"):
            action = spec.get(handler)
            if isinstance(action, dict) and "port" in action:
                yield probe, (probe, handler, "port"), action["port"]


def service_ports(service_spec: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """(index, entry) of a Service's ``spec.ports`` (none when the spec is not a mapping)."""
    ports = service_spec.get("ports") if isinstance(service_spec, dict) else None
    for index, port in enumerate(ports if isinstance(ports, list) else []):
        if isinstance(port, dict):
            yield index, port
