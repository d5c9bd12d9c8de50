"""Claims and templates -> DeviceClasses, drivers, published attributes and namespaces."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from dralint.diagnostics import Finding, Related
from dralint.k8s.claims import (
    CLAIM_KINDS,
    DeviceRequest,
    claim_spec_path,
    class_drivers,
    device_requests,
    requests_in_scope,
)
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.lint.refs import reference_finding, resolve
from dralint.lint.registry import object_check
from dralint.yaml.plain import as_list

NOT_IN_SCOPE = "REF001"
ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


@object_check("REF001", "REF008", kinds=CLAIM_KINDS)
def check_device_class_references(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Every request's and subrequest's deviceClassName names an existing DeviceClass.

    Subrequests of one request that name the same class are one mistake: one finding at the
    first, the others as notes.
    """
    found: dict[tuple[str, str], Finding | None] = {}
    for request in device_requests(obj):
        if request.device_class is None:
            continue
        key = (request.name.split("/")[0], request.device_class)
        if key in found:
            first = found[key]
            if first is not None:
                note = Related(
                    obj.span(request.path + ("deviceClassName",)),
                    f"subrequest {request.name!r} names the same DeviceClass",
                )
                found[key] = dataclasses.replace(first, related=first.related + (note,))
            continue
        resolution = resolve(ctx, "DeviceClass", None, request.device_class)
        found[key] = reference_finding(
            obj,
            request.path + ("deviceClassName",),
            resolution,
            f"request {request.name!r}",
            missing_rule="REF008",
            scope_rule=NOT_IN_SCOPE,
        )
    yield from (finding for finding in found.values() if finding is not None)


def _drivers_of(ctx: Context, requests: list[DeviceRequest]) -> tuple[set[str], list[KubeObject]] | None:
    """Drivers the requests can get devices from, or None when any class leaves it open."""
    drivers: set[str] = set()
    classes: list[KubeObject] = []
    for request in requests:
        device_class = ctx.find("DeviceClass", None, request.device_class) if request.device_class else None
        known = class_drivers(device_class) if device_class is not None else None
        if device_class is None or known is None:
            return None
        drivers |= known
        classes.append(device_class)
    return drivers, classes


@object_check("REF009", kinds=CLAIM_KINDS)
def check_config_driver(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """An opaque config is handed only to its driver; one no selected class uses is ignored."""
    spec_path = claim_spec_path(obj)
    assert spec_path is not None
    for index, config in enumerate(as_list(obj.get(spec_path + ("devices", "config")))):
        opaque = config.get("opaque") if isinstance(config, dict) else None
        driver = opaque.get("driver") if isinstance(opaque, dict) else None
        if not isinstance(driver, str) or not driver:
            continue
        requests = requests_in_scope(obj, config.get("requests"))
        known = _drivers_of(ctx, requests) if requests else None
        if known is None or driver.lower() in known[0]:
            continue
        drivers, classes = known
        yield obj.finding(
            spec_path + ("devices", "config", index, "opaque", "driver"),
            f"opaque config for driver {driver!r} applies to requests whose DeviceClasses only select devices of "
            f"{', '.join(sorted(drivers))}: no driver will receive these parameters",
            hint=f"set `driver:` to {sorted(drivers)[0]!r} or point `requests:` at the requests of {driver!r}",
            related=tuple(
                c.related(
                    ("spec", "selectors"),
                    f"{c.display} selects driver(s) {', '.join(sorted(class_drivers(c) or ()))}",
                    key=True,
                )
                for c in classes
            ),
        )


def _published(ctx: Context, drivers: set[str]) -> tuple[int, set[str], list[KubeObject]]:
    """Devices of these drivers in the cluster state and the attribute names they publish.

    ResourceSlices among the scanned manifests are examples (a demo's captured output), not the
    fleet the claim will meet, so only ``--slices`` state counts, as for the allocator.
    """
    count, names, slices = 0, set(), []
    for resource_slice in ctx.by_kind("ResourceSlice"):
        driver = resource_slice.get(("spec", "driver"))
        if resource_slice.origin != "cluster" or not isinstance(driver, str) or driver not in drivers:
            continue
        slices.append(resource_slice)
        for device in as_list(resource_slice.get(("spec", "devices"))):
            if not isinstance(device, dict):
                continue
            count += 1
            attributes = device.get("attributes")
            if not isinstance(attributes, dict) and isinstance(device.get("basic"), dict):
                attributes = device["basic"].get("attributes")
            for name in attributes if isinstance(attributes, dict) else ():
                names.add(str(name) if "/" in str(name) else f"{driver}/{name}")
    return count, names, slices


@object_check("REF010", kinds=CLAIM_KINDS)
def check_match_attribute_published(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """matchAttribute needs every chosen device to carry the attribute; with a snapshot we can
    tell when none of the candidate devices publishes it at all."""
    spec_path = claim_spec_path(obj)
    assert spec_path is not None
    for index, constraint in enumerate(as_list(obj.get(spec_path + ("devices", "constraints")))):
        attribute = constraint.get("matchAttribute") if isinstance(constraint, dict) else None
        if not isinstance(attribute, str) or "/" not in attribute:
            continue
        requests = requests_in_scope(obj, constraint.get("requests"))
        known = _drivers_of(ctx, requests) if requests else None
        if known is None:
            continue
        count, names, slices = _published(ctx, known[0])
        if count == 0 or attribute in names:
            continue
        similar = sorted(n for n in names if n.rpartition("/")[2].lower() == attribute.rpartition("/")[2].lower())
        yield obj.finding(
            spec_path + ("devices", "constraints", index, "matchAttribute"),
            f"matchAttribute {attribute!r}: none of the {count} devices of {', '.join(sorted(known[0]))} in "
            "the cluster state "
            "publishes this attribute, so the constraint can never be met and the claim cannot be allocated",
            hint=(
                f"use {similar[0]!r}" if similar else "use an attribute the driver publishes (see the ResourceSlices)"
            ),
            related=(
                slices[0].related(
                    ("spec", "devices"), f"devices of {slices[0].get(('spec', 'driver'))} published here", key=True
                ),
            ),
        )


@object_check("REF011", kinds=CLAIM_KINDS)
def check_admin_access_namespace(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """adminAccess is only admitted in namespaces labelled for it."""
    namespace = ctx.find("Namespace", None, obj.namespace or "default")
    if namespace is None or str(namespace.labels.get(ADMIN_ACCESS_LABEL, "")).lower() == "true":
        return
    for request in device_requests(obj):
        if request.admin_access:
            yield obj.finding(
                request.path + ("adminAccess",),
                f"request {request.name!r} uses adminAccess, but Namespace {namespace.name!r} lacks the label "
                f'{ADMIN_ACCESS_LABEL}: "true"; the API server rejects the object',
                hint=f"label the namespace: `kubectl label namespace {namespace.name} {ADMIN_ACCESS_LABEL}=true` "
                "(only for namespaces trusted with privileged device access)",
                related=(namespace.related(("metadata",), f"Namespace {namespace.name} is defined here", key=True),),
            )
