"""The device-plugin-to-DRA migration model: extended resources, device plugins, DRA drivers.

During a migration the same GPUs can be reachable three ways: through a device plugin
(``nvidia.com/gpu`` in node allocatable), through a DeviceClass that maps that extended resource
name to DRA (``spec.extendedResourceName``, or the implicit
``deviceclass.resource.kubernetes.io/<class>``), and through ResourceClaims. The scheduler
decides per node (allocatable > 0 means the device plugin wins there). This module recognises
the pieces in a run; the checks in ``dralint.checks.extended`` judge how they fit together.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, NamedTuple

from dralint.k8s.claims import class_drivers
from dralint.k8s.labels import NodeSelection, node_selector_terms, pod_node_selection
from dralint.k8s.objects import KubeObject, ObjectIndex, PodTemplate, pod_templates
from dralint.yaml.loader import DataPath
from dralint.yaml.plain import as_dict, as_list

IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"
DEVICE_PLUGIN_DIR = "/var/lib/kubelet/device-plugins"
DRA_PLUGIN_DIRS = ("/var/lib/kubelet/plugins", "/var/lib/kubelet/plugins_registry")
_QUALIFIED_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_DRIVER_ARG = re.compile(r"--driver(?:-name)?[= ]([a-z0-9.-]+\.[a-z]+)\b")
_RESOURCE_IN_TEXT = re.compile(r"\b((?:[a-z0-9]([-a-z0-9]*[a-z0-9])?\.)+[a-z]{2,}/[A-Za-z0-9][-A-Za-z0-9_.]*)")

#: Device plugins recognised by image: image substring -> extended resources they advertise.
KNOWN_DEVICE_PLUGINS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("nvidia/k8s-device-plugin", ("nvidia.com/gpu",)),
    ("rocm/k8s-device-plugin", ("amd.com/gpu",)),
    ("intel-gpu-plugin", ("gpu.intel.com/i915", "gpu.intel.com/xe")),
    ("intel-qat-plugin", ("qat.intel.com/generic", "qat.intel.com/cy", "qat.intel.com/dc")),
    ("habanalabs/devices-plugin", ("habana.ai/gaudi",)),
)

#: DRA drivers recognised by image: image substring -> driver names.
KNOWN_DRA_DRIVERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("k8s-dra-driver-gpu", ("gpu.nvidia.com",)),
    ("dra-driver-nvidia-gpu", ("gpu.nvidia.com",)),
    ("k8s-gpu-dra-driver", ("gpu.amd.com",)),
    ("intel-gpu-resource-driver", ("gpu.intel.com",)),
    ("intel-gaudi-resource-driver", ("gaudi.intel.com",)),
    ("intel-qat-resource-driver", ("qat.intel.com",)),
    ("dra-example-driver", ("gpu.example.com",)),
)


def is_extended_resource_name(name: str) -> bool:
    """A device-plugin style extended resource: ``domain/name`` outside ``kubernetes.io``."""
    if "/" not in name or name.startswith("requests.") or name.startswith(IMPLICIT_PREFIX):
        return False
    domain, _, short = name.partition("/")
    if domain == "kubernetes.io" or domain.endswith(".kubernetes.io") or "/" in short:
        return False
    return bool(_QUALIFIED_NAME.match(short)) and "." in domain


def resource_domain(name: str) -> str:
    return name.partition("/")[0]


def same_vendor(resource: str, driver: str) -> bool:
    """Whether a DRA driver name plausibly serves the devices of an extended resource.

    ``gpu.intel.com/i915`` and driver ``gpu.intel.com`` share the whole domain;
    ``nvidia.com/gpu`` and ``gpu.nvidia.com`` share the vendor domain and the device kind.
    ``compute-domain.nvidia.com`` does not serve ``nvidia.com/gpu``.
    """
    domain = resource_domain(resource)
    if driver == domain:
        return True
    if not driver.endswith("." + domain):
        return False
    kind = driver[: -len(domain) - 1].split(".")[0]
    return kind == resource.partition("/")[2]


# --- extended resource -> DeviceClass mapping --------------------------------------------------


def _timestamp(obj: KubeObject) -> datetime | None:
    value = obj.get(("metadata", "creationTimestamp"))
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def winning_class(classes: list[KubeObject]) -> tuple[KubeObject, bool]:
    """The class the scheduler uses for a shared explicit name, and whether that is certain.

    The newest creationTimestamp wins, ties go to the smaller name. Without every timestamp
    the answer depends on creation order, so the second value is False.
    """
    dated = [(stamp, c) for c in classes if (stamp := _timestamp(c)) is not None]
    if len(dated) == len(classes):
        ranked = sorted(dated, key=lambda pair: (-pair[0].timestamp(), pair[1].name))
        return ranked[0][1], True
    return min(classes, key=lambda c: c.name), False


def extended_resource_classes(ctx: ObjectIndex) -> dict[str, list[KubeObject]]:
    """Explicit ``extendedResourceName`` -> DeviceClasses that declare it (every origin)."""

    def build() -> dict[str, list[KubeObject]]:
        out: dict[str, list[KubeObject]] = {}
        for device_class in ctx.by_kind("DeviceClass"):
            name = device_class.get(("spec", "extendedResourceName"))
            if isinstance(name, str) and name:
                out.setdefault(name, []).append(device_class)
        return out

    return ctx.memo(("migration", "extended-resource-classes"), build)


def mapped_class(ctx: ObjectIndex, resource: str) -> KubeObject | None:
    """The DeviceClass that serves ``resource`` through DRA, explicit or implicit."""
    if resource.startswith(IMPLICIT_PREFIX):
        return ctx.find("DeviceClass", None, resource[len(IMPLICIT_PREFIX) :])
    classes = extended_resource_classes(ctx).get(resource)
    return winning_class(classes)[0] if classes else None


class ExtendedRequest(NamedTuple):
    """One extended resource a container asks for, at its limits (or requests) entry."""

    resource: str
    path: DataPath
    quantity: Any


def extended_requests(
    container_path: DataPath, container: dict[str, Any], *, implicit: bool
) -> Iterator[ExtendedRequest]:
    """Extended resources in a container's limits and requests (limits first, one per name)."""
    resources = as_dict(container.get("resources"))
    seen: set[str] = set()
    for section in ("limits", "requests"):
        values = resources.get(section)
        for name, quantity in values.items() if isinstance(values, dict) else ():
            name = str(name)
            wanted = name.startswith(IMPLICIT_PREFIX) if implicit else is_extended_resource_name(name)
            if wanted and name not in seen:
                seen.add(name)
                yield ExtendedRequest(name, container_path + ("resources", section, name), quantity)


def template_extended_requests(template: PodTemplate, *, implicit: bool) -> dict[DataPath, list[ExtendedRequest]]:
    """``extended_requests`` of every container of ``template``, by container path (containers
    without any left out). Found once per template: four checks ask, for every pod template."""

    def build() -> dict[DataPath, list[ExtendedRequest]]:
        found = {
            path: list(extended_requests(path, container, implicit=implicit))
            for path, container in template.containers()
        }
        return {path: requests for path, requests in found.items() if requests}

    return template.memo((__name__, "extended-requests", implicit), build)


def positive(quantity: Any) -> bool:
    """Zero requests are ignored by the scheduler; anything unreadable counts as a request."""
    try:
        return float(str(quantity)) > 0
    except ValueError:
        return True


# --- device plugins and DRA drivers --------------------------------------------------------------


class NodeAgent(NamedTuple):
    """A DaemonSet that advertises devices: a device plugin or a DRA kubelet plugin."""

    obj: KubeObject
    template: PodTemplate
    names: frozenset[str]  # extended resources (device plugin) or driver names (DRA)

    @property
    def selection(self) -> NodeSelection:
        return pod_node_selection(self.template.spec)


def _strings(container: dict[str, Any]) -> Iterator[str]:
    """The command line and literal environment values, where drivers take their names."""
    for key in ("command", "args"):
        value = container.get(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                yield item
    for env in as_list(container.get("env")):
        if isinstance(env, dict) and isinstance(env.get("value"), str):
            yield env["value"]


def _host_paths(spec: dict[str, Any]) -> list[str]:
    return [
        v["hostPath"]["path"].rstrip("/")
        for v in as_list(spec.get("volumes"))
        if isinstance(v, dict) and isinstance(v.get("hostPath"), dict) and isinstance(v["hostPath"].get("path"), str)
    ]


def _images(template: PodTemplate) -> list[str]:
    return [c.get("image", "") for _, c in template.containers() if isinstance(c.get("image"), str)]


def _device_plugin(obj: KubeObject, template: PodTemplate) -> NodeAgent | None:
    """A device plugin registers with the kubelet through its socket directory: a known image
    without that mount is another tool shipped in the image (NVIDIA's GPU feature discovery
    runs from the device plugin's image)."""
    resources: set[str] = set()
    if DEVICE_PLUGIN_DIR not in _host_paths(template.spec) and _host_paths(template.spec):
        return None
    for image in _images(template):
        for marker, names in KNOWN_DEVICE_PLUGINS:
            if marker in image:
                resources.update(names)
    if not resources and DEVICE_PLUGIN_DIR in _host_paths(template.spec):
        for _, container in template.containers():
            for text in _strings(container):
                resources.update(
                    m.group(1) for m in _RESOURCE_IN_TEXT.finditer(text) if is_extended_resource_name(m.group(1))
                )
    return NodeAgent(obj, template, frozenset(resources)) if resources else None


def _dra_driver(obj: KubeObject, template: PodTemplate) -> NodeAgent | None:
    """A DRA kubelet plugin: a known driver image, or kubelet plugin directories plus a
    driver name (from a per-driver plugin directory or a ``--driver-name`` argument)."""
    paths = _host_paths(template.spec)
    by_image = {
        name for image in _images(template) for marker, names in KNOWN_DRA_DRIVERS if marker in image for name in names
    }
    drivers = set(by_image)
    for path in paths:
        base, _, leaf = path.rpartition("/")
        if base == DRA_PLUGIN_DIRS[0] and "." in leaf:
            drivers.add(leaf)
    for _, container in template.containers():
        for text in _strings(container):
            match = _DRIVER_ARG.search(text)
            if match:
                drivers.add(match.group(1))
    registers = any(p in DRA_PLUGIN_DIRS or p.startswith(DRA_PLUGIN_DIRS[0] + "/") for p in paths)
    return NodeAgent(obj, template, frozenset(drivers)) if drivers and (registers or by_image) else None


def device_plugins(ctx: ObjectIndex) -> list[NodeAgent]:
    """Device-plugin DaemonSets of the run (recognised by image, or by the socket directory)."""
    return ctx.memo(("migration", "device-plugins"), lambda: _agents(ctx, _device_plugin))


def dra_drivers(ctx: ObjectIndex) -> list[NodeAgent]:
    """DRA kubelet-plugin DaemonSets of the run, with the driver names they register."""
    return ctx.memo(("migration", "dra-drivers"), lambda: _agents(ctx, _dra_driver))


def _agents(ctx: ObjectIndex, recognise: Callable[[KubeObject, PodTemplate], NodeAgent | None]) -> list[NodeAgent]:
    out = []
    for obj in ctx.by_kind("DaemonSet"):
        for template in pod_templates(obj):
            agent = recognise(obj, template)
            if agent:
                out.append(agent)
    return out


def slice_selection(resource_slice: KubeObject) -> NodeSelection | None:
    """Which nodes a ResourceSlice's devices are on; None for all nodes."""
    node_name = resource_slice.get(("spec", "nodeName"))
    if isinstance(node_name, str) and node_name:
        return NodeSelection(node_name=node_name)
    selector = resource_slice.get(("spec", "nodeSelector"))
    if isinstance(selector, dict):
        return NodeSelection(terms=tuple(node_selector_terms(selector)))
    return None


def provides(ctx: ObjectIndex, resource: str, driver: str) -> bool:
    """Whether DRA driver ``driver`` serves the devices behind extended resource ``resource``:
    a DeviceClass maps the name to that driver, or the names share vendor and device kind."""
    for device_class in extended_resource_classes(ctx).get(resource, []):
        if driver in (class_drivers(device_class) or ()):
            return True
    return same_vendor(resource, driver)


def node_allocatable(node: KubeObject, resource: str) -> bool:
    """Whether a Node advertises ``resource`` (a device plugin runs there for it)."""
    value = node.get(("status", "allocatable", resource))
    if value is None:
        value = node.get(("status", "capacity", resource))
    return value is not None and positive(value)
