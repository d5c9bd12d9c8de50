"""CPU, memory and ephemeral-storage requests and limits of the containers that keep running.

Three things peers miss, each a false positive: Kubernetes copies a limit into a missing
request, pod-level ``spec.resources`` covers every container, and a LimitRange of the namespace
(scanned or given with --context) fills in defaults at admission. Plain init containers are
skipped (they finish before the app starts); native sidecars are checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.diagnostics import Finding
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.k8s.quantity import quantity_value
from dralint.k8s.workloads import running_containers
from dralint.lint.context import Context
from dralint.lint.exemptions import enabled_rule_ids
from dralint.lint.registry import object_check
from dralint.yaml.loader import DataPath

#: (rule, section, resource): what each rule wants set.
_WANTED = (
    ("REL001", "requests", "cpu"),
    ("REL002", "requests", "memory"),
    ("REL003", "limits", "memory"),
    ("REL004", "limits", "cpu"),
)
_WHY = {
    ("requests", "cpu"): "the scheduler treats it as needing no CPU and packs it onto busy nodes",
    ("requests", "memory"): "the scheduler treats it as needing no memory; it is evicted first under pressure",
    ("limits", "memory"): "it can use all of the node's memory and get its neighbours OOM-killed",
    ("limits", "cpu"): "it can take all idle CPU of the node (some teams want that: this rule is strict-only)",
}


def _section(resources: Any, section: str) -> dict[str, Any]:
    value = resources.get(section) if isinstance(resources, dict) else None
    return value if isinstance(value, dict) else {}


def limit_range_defaults(ctx: Context, namespace: str | None) -> set[tuple[str, str]]:
    """(section, resource) pairs a LimitRange of ``namespace`` fills in for containers."""

    def build() -> dict[str | None, set[tuple[str, str]]]:
        out: dict[str | None, set[tuple[str, str]]] = {}
        for limit_range in ctx.by_kind("LimitRange"):
            limits = limit_range.get(("spec", "limits"))
            for item in limits if isinstance(limits, list) else []:
                if not isinstance(item, dict) or item.get("type", "Container") != "Container":
                    continue
                found = out.setdefault(limit_range.namespace, set())
                for resource in _section(item, "default"):
                    found.update({("limits", resource), ("requests", resource)})
                for resource in _section(item, "defaultRequest"):
                    found.add(("requests", resource))
        return out

    return ctx.memo((__name__, "limitranges"), build).get(namespace, set())


def provided(resources: Any) -> set[tuple[str, str]]:
    """(section, resource) pairs ``resources`` sets; a limit also sets the request."""
    limits = _section(resources, "limits")
    return {("limits", name) for name in limits} | {
        ("requests", name) for name in (*_section(resources, "requests"), *limits)
    }


def is_set(resources: Any, section: str, resource: str) -> bool:
    """Whether ``resources`` sets ``section.resource``; a limit also sets the request."""
    return (section, resource) in provided(resources)


def _missing(template: PodTemplate, ctx: Context) -> Iterator[tuple[str, str, str, tuple, dict]]:
    # What the namespace's defaults and the pod level provide is found once per template, what
    # a container sets once per container, rather than once per wanted field.
    covered = limit_range_defaults(ctx, template.owner.namespace) | provided(template.spec.get("resources"))
    for path, container in running_containers(template):
        own = provided(container.get("resources"))
        for rule, section, resource in _WANTED:
            if (section, resource) in covered or (section, resource) in own:
                continue
            yield rule, section, resource, path, container


@object_check("REL001", "REL002", "REL003", "REL004", kinds=POD_TEMPLATE_KINDS)
def check_resources(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Containers without CPU/memory requests and limits, after defaults and pod-level resources."""
    wanted = enabled_rule_ids(ctx)
    for template in pod_templates(obj):
        for rule, section, resource, path, container in _missing(template, ctx):
            if rule not in wanted:
                continue  # REL004 is strict-only: no need to place a finding the run drops
            name = container.get("name", path[-1])
            where = (
                path + ("resources",)
                if "resources" in container
                else (path + ("name",) if "name" in container else path)
            )
            example = "500m" if resource == "cpu" else "512Mi"
            yield obj.finding(
                where,
                f"{template.label}: container '{name}' has no {resource} {section[:-1]}: {_WHY[(section, resource)]}",
                hint=f"add `resources: {{{section}: {{{resource}: {example}}}}}` sized from observed usage",
                rule=rule,
                key=True,
            )


def _request_unlike_limit(
    obj: KubeObject, resources: tuple[str, ...]
) -> Iterator[tuple[PodTemplate, DataPath, str, str, Any, Any]]:
    """(template, container path, container name, resource, request, limit) for each running
    container whose request of ``resources`` differs in value from its limit (both set)."""
    for template in pod_templates(obj):
        for path, container in running_containers(template):
            requests, limits = (
                _section(container.get("resources"), "requests"),
                _section(container.get("resources"), "limits"),
            )
            for resource in resources:
                wanted, cap = quantity_value(requests.get(resource)), quantity_value(limits.get(resource))
                if wanted is not None and cap is not None and wanted != cap:
                    yield (
                        template,
                        path,
                        str(container.get("name", path[-1])),
                        resource,
                        requests[resource],
                        limits[resource],
                    )


@object_check("REL017", kinds=POD_TEMPLATE_KINDS)
def check_guaranteed_qos(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Containers whose cpu or memory request differs from its limit (Burstable, not Guaranteed QoS)."""
    for template, path, name, resource, request, limit in _request_unlike_limit(obj, ("cpu", "memory")):
        yield obj.finding(
            path + ("resources", "requests", resource),
            f"{template.label}: container '{name}' requests {request} {resource} but is limited to {limit}, "
            "so the pod is not in the Guaranteed QoS class: it is evicted before Guaranteed pods and gets no "
            "exclusive CPUs",
            hint=f"set the {resource} request equal to the limit ({limit})",
            rule="REL017",
        )


@object_check("REL030", kinds=POD_TEMPLATE_KINDS)
def check_ephemeral_storage_reserved(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Containers that may write more scratch data than the scheduler reserved for them."""
    for template, path, name, resource, request, limit in _request_unlike_limit(obj, ("ephemeral-storage",)):
        yield obj.finding(
            path + ("resources", "requests", resource),
            f"{template.label}: container '{name}' requests {request} ephemeral-storage but may write up to {limit}: "
            "the scheduler reserves only the request, so nodes packed by requests can run out of disk",
            hint=f"set the ephemeral-storage request equal to the limit ({limit})",
        )


@object_check("REL018", kinds=POD_TEMPLATE_KINDS)
def check_ephemeral_storage(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Containers that may fill the node's disk: no ephemeral-storage request or limit."""
    for template in pod_templates(obj):
        defaults = limit_range_defaults(ctx, template.owner.namespace)
        for path, container in running_containers(template):
            resources = container.get("resources")
            missing = [
                section[:-1]
                for section in ("requests", "limits")
                if (section, "ephemeral-storage") not in defaults
                and not is_set(resources, section, "ephemeral-storage")
            ]
            if missing:
                where = (
                    path + ("resources",)
                    if "resources" in container
                    else (path + ("name",) if "name" in container else path)
                )
                yield obj.finding(
                    where,
                    f"{template.label}: container '{container.get('name', path[-1])}' has no "
                    f"ephemeral-storage {' or '.join(missing)}: "
                    "logs and scratch files can fill the node's disk, and the kubelet then evicts pods at random",
                    hint="add `resources: {requests: {ephemeral-storage: 1Gi}, limits: {ephemeral-storage: 2Gi}}` "
                    "sized from observed usage",
                    rule="REL018",
                    key=True,
                )
