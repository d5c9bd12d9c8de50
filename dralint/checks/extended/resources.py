"""Pods asking for extended resources: is anything there to provide them, and twice?

A pod that asks for ``nvidia.com/gpu`` is served by a device plugin on nodes that advertise it,
or through DRA when a DeviceClass maps the name (``spec.extendedResourceName``); a pod that asks
for ``deviceclass.resource.kubernetes.io/<class>`` is served by that class. With neither, the
scheduler reports ``cannot fit resource`` / ``Insufficient`` and the pod stays Pending.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.diagnostics import Finding, Severity
from dralint.k8s.claims import class_drivers, device_requests, pod_claim_entries
from dralint.k8s.labels import NodeSelection, pod_node_selection
from dralint.k8s.migration import (
    IMPLICIT_PREFIX,
    ExtendedRequest,
    NodeAgent,
    device_plugins,
    dra_drivers,
    extended_resource_classes,
    mapped_class,
    node_allocatable,
    positive,
    provides,
    same_vendor,
    template_extended_requests,
)
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.lint.context import Context
from dralint.lint.refs import looks_like_typo, reference_finding, resolve, resolve_pod_claim
from dralint.lint.registry import object_check
from dralint.yaml.loader import DataPath
from dralint.yaml.plain import as_dict


def _plugin_coverage(ctx: Context, resource: str, selection: NodeSelection) -> tuple[bool, list[NodeAgent]]:
    """Whether a device plugin serves ``resource`` on a node the pod can use, and the plugins
    that would, but only on nodes a DRA driver for the same devices also serves.

    Such nodes do not count: the device plugin must leave them (device-plugin-and-dra-driver-
    overlap), after which the pod has nothing there. Cached per run: replicas of many
    workloads share the same node selection.
    """
    return ctx.memo(("extended", "plugin-coverage", resource, selection), lambda: _coverage(ctx, resource, selection))


def _coverage(ctx: Context, resource: str, selection: NodeSelection) -> tuple[bool, list[NodeAgent]]:
    nodes = ctx.by_kind("Node")
    if any(node_allocatable(n, resource) and selection.matches(n.labels, n.name) for n in nodes):
        return True, []
    blocked: list[NodeAgent] = []
    for plugin in device_plugins(ctx):
        if resource not in plugin.names:
            continue
        drivers = [
            a.selection
            for a in dra_drivers(ctx)
            if a.obj is not plugin.obj and any(provides(ctx, resource, d) for d in a.names)
        ]
        if nodes:
            if any(
                selection.matches(n.labels, n.name)
                and plugin.selection.matches(n.labels, n.name)
                and not any(d.matches(n.labels, n.name) for d in drivers)
                for n in nodes
            ):
                return True, []
        elif selection.may_overlap(plugin.selection, excluding=drivers):
            return True, []
        if selection.may_overlap(plugin.selection):
            blocked.append(plugin)
    return False, blocked


def _requests(template: PodTemplate, implicit: bool) -> Iterator[tuple[str, ExtendedRequest]]:
    found = template_extended_requests(template, implicit=implicit)
    for path, container in template.containers():
        for request in found.get(path, ()):
            if positive(request.quantity):
                yield str(container.get("name", "?")), request


def _dra_in_play(ctx: Context) -> bool:
    """Whether the run holds any DRA object or cluster state to judge extended resources by.

    A repository of plain device-plugin workloads, linted on its own, says nothing about who
    provides ``nvidia.com/gpu``; warning on every GPU pod there would be noise.
    """
    return ctx.memo(
        ("extended", "dra-in-play"),
        lambda: any(o.group == "resource.k8s.io" or o.origin == "cluster" for o in ctx.objects),
    )


def _asked_for(ctx: Context) -> set[str]:
    """Every extended resource name some container of the run asks for."""
    return ctx.memo(
        ("extended", "asked-for"),
        lambda: {
            request.resource
            for obj in ctx.objects
            for template in pod_templates(obj)
            for _, request in _requests(template, implicit=False)
        },
    )


def _misspelled_mapping(ctx: Context, resource: str) -> tuple[str, KubeObject] | None:
    """A DeviceClass mapping a name one typo away from ``resource`` that no pod asks for: one of
    the two spellings is wrong (``nvidia.com/gpus`` mapped, ``nvidia.com/gpu`` requested).

    Answered once per resource name: every container asking for an unprovided resource asks."""
    return ctx.memo(("extended", "misspelled", resource), lambda: _find_misspelled_mapping(ctx, resource))


def _find_misspelled_mapping(ctx: Context, resource: str) -> tuple[str, KubeObject] | None:
    for name, classes in sorted(extended_resource_classes(ctx).items()):
        # The run-wide scan behind _asked_for is made only once a spelling is in doubt.
        if classes and looks_like_typo(resource, name) and name not in _asked_for(ctx):
            return name, classes[0]
    return None


@object_check("EXT001", kinds=POD_TEMPLATE_KINDS)
def check_unprovided_extended_resource(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """An extended resource no DeviceClass maps and no device plugin provides."""
    if not _dra_in_play(ctx):
        return
    for template in pod_templates(obj):
        selection: NodeSelection | None = None  # found only for a request no DeviceClass maps
        for container, request in _requests(template, implicit=False):
            if extended_resource_classes(ctx).get(request.resource):
                continue
            if selection is None:
                selection = pod_node_selection(template.spec)
            served, blocked = _plugin_coverage(ctx, request.resource, selection)
            if served:
                continue
            closed = ctx.is_closed("DeviceClass") and (ctx.is_closed("Node") or bool(blocked))
            if blocked:
                detail = (
                    f"no DeviceClass maps it, and device plugin {blocked[0].obj.display} serves it only on nodes where "
                    "a DRA driver publishes the same devices, which the device plugin has to leave"
                )
            elif closed:
                detail = "no DeviceClass maps it and no Node advertises it in status.allocatable"
            else:
                detail = (
                    "no DeviceClass among the scanned files maps it and no device plugin for it was found "
                    "(pass the cluster state with --slices, including DeviceClasses and Nodes, to decide)"
                )
            hint = (
                f"map it to DRA by adding `extendedResourceName: {request.resource}` to the spec of the DeviceClass "
                "that selects these devices, or run the device plugin that advertises it"
            )
            related = tuple(
                p.obj.related(("metadata", "name"), f"{p.obj.display} advertises {request.resource}")
                for p in blocked[:1]
            )
            misspelled = _misspelled_mapping(ctx, request.resource)
            if misspelled is not None:
                name, device_class = misspelled
                detail += (
                    f"; {device_class.display} maps the close name {name!r}, which no pod asks for: did you mean it?"
                )
                hint = (
                    f"make the two names agree: change the pod's resource to {name!r} or the DeviceClass's "
                    f"extendedResourceName to {request.resource!r}"
                )
                related += (
                    device_class.related(("spec", "extendedResourceName"), f"{device_class.display} maps {name}"),
                )
            yield obj.finding(
                request.path,
                f"container {container!r} of {template.label} requests {request.resource}, but {detail}: "
                "unless something provides it, the pod stays Pending",
                hint=hint,
                key=True,
                severity=None if closed else Severity.WARNING,
                related=related,
            )


@object_check("REF001", "EXT004", kinds=POD_TEMPLATE_KINDS)
def check_implicit_class_resource(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """``deviceclass.resource.kubernetes.io/<class>`` for a class that does not exist."""
    for template in pod_templates(obj):
        for container, request in _requests(template, implicit=True):
            class_name = request.resource[len(IMPLICIT_PREFIX) :]
            resolution = resolve(ctx, "DeviceClass", None, class_name)
            finding = reference_finding(
                obj,
                request.path,
                resolution,
                f"container {container!r} resource {request.resource}",
                missing_rule="EXT004",
                scope_rule="REF001",
                key=True,
            )
            if finding:
                yield finding


def _claim_classes(
    ctx: Context, obj: KubeObject, template: PodTemplate, claims: Any
) -> tuple[list[KubeObject], list[str]]:
    """Claims/templates a container uses and the DeviceClass names their requests draw from."""
    entries = {e["name"]: e for _, e in pod_claim_entries(template.spec) if isinstance(e.get("name"), str)}
    targets: list[KubeObject] = []
    classes: list[str] = []
    for claim in claims if isinstance(claims, list) else []:
        name = claim.get("name") if isinstance(claim, dict) else None
        entry = entries.get(name) if isinstance(name, str) else None
        resolved = resolve_pod_claim(ctx, obj, entry) if entry else None
        if resolved is None or resolved[2].target is None:
            continue
        target = resolved[2].target
        wanted = claim.get("request")
        picked = [
            r.device_class
            for r in device_requests(target)
            if r.device_class and (not wanted or r.name.split("/")[0] == wanted)
        ]
        if picked:
            targets.append(target)
            classes += picked
    return targets, classes


def same_devices(ctx: Context, resource: str, class_names: list[str]) -> bool:
    """Whether an extended resource and claims of these DeviceClasses reach the same devices."""
    mapped = mapped_class(ctx, resource)
    if mapped is not None and mapped.name in class_names:
        return True
    mapped_drivers = (class_drivers(mapped) or frozenset()) if mapped is not None else frozenset()
    for name in class_names:
        device_class = ctx.find("DeviceClass", None, name)
        drivers = (class_drivers(device_class) if device_class else None) or frozenset()
        if drivers & mapped_drivers:
            return True
        if not resource.startswith(IMPLICIT_PREFIX) and any(same_vendor(resource, d) for d in drivers | {name}):
            return True
    return False


@object_check("EXT003", kinds=POD_TEMPLATE_KINDS)
def check_device_requested_twice(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A container that asks for the same kind of device through an extended resource and a claim."""
    for template in pod_templates(obj):
        for path, container in template.containers():
            resources = as_dict(container.get("resources"))
            if not resources.get("claims"):
                continue
            requests = [
                request
                for implicit in (False, True)
                for request in template_extended_requests(template, implicit=implicit).get(path, ())
                if positive(request.quantity)
            ]
            if not requests:
                continue  # most containers with claims ask for no extended resource: skip resolving the claims
            targets, classes = _claim_classes(ctx, obj, template, resources.get("claims"))
            for request in requests:
                if classes and same_devices(ctx, request.resource, classes):
                    yield _twice(obj, template, container, request, classes, targets)


def _twice(
    obj: KubeObject,
    template: PodTemplate,
    container: dict,
    request: ExtendedRequest,
    classes: list[str],
    targets: list[KubeObject],
) -> Finding:
    where: DataPath = request.path
    return obj.finding(
        where,
        f"container {container.get('name', '?')!r} of {template.label} asks for {request.resource} and also "
        "claims devices of "
        f"DeviceClass {', '.join(sorted(set(classes)))}: the same kind of device through two paths, which "
        "can double the "
        "devices it holds or fail when one path has none left",
        hint="request the devices one way (the claim, during a migration), and test the exact combination on a "
        "node before rollout",
        key=True,
        related=tuple(t.related(("metadata", "name"), f"{t.display} claims the devices") for t in targets),
    )
