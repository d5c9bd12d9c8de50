"""Pod settings a platform team sets policy on: priority classes, node affinity, DNS ``ndots``.

Each is opt-in because the right answer depends on the cluster: REL019 runs only with an
``allowed-priority-classes`` list, REL026 only with ``max-dns-ndots``, and REL020 (pods that
may land on any node) is in the ``strict`` profile only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.diagnostics import Finding
from dralint.k8s.migration import positive, template_extended_requests
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.lint.context import Context
from dralint.lint.registry import object_check
from dralint.yaml.plain import as_dict

#: The resolver's ``ndots`` for ClusterFirst pods unless dnsConfig overrides it (kubelet).
CLUSTER_FIRST_NDOTS = 5


@object_check("REL019", kinds=POD_TEMPLATE_KINDS)
def check_priority_class(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Pods without a priorityClassName from the configured allow-list."""
    allowed = ctx.options.allowed_priority_classes
    if not allowed:
        return
    for template in pod_templates(obj):
        name = template.spec.get("priorityClassName")
        listed = ", ".join(allowed)
        if name is None:
            yield obj.finding(
                template.path,
                f"{template.label} sets no priorityClassName, so it runs at the cluster's default priority "
                f"(allowed: {listed})",
                hint=f"set `priorityClassName: {allowed[0]}` (or another allowed class)",
                rule="REL019",
                key=True,
            )
        elif name not in allowed:
            yield obj.finding(
                template.path + ("priorityClassName",),
                f"{template.label} uses priorityClassName {name!r}, which is not among the allowed classes ({listed})",
                hint="use an allowed class, or add this one to `allowed-priority-classes` in .dralint.yaml",
                rule="REL019",
            )


def _node_constrained(spec: dict[str, Any]) -> bool:
    affinity = as_dict(as_dict(spec.get("affinity")).get("nodeAffinity"))
    return bool(
        spec.get("nodeSelector")
        or spec.get("nodeName")
        or affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        or affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
    )


def _asks_for_devices(template: PodTemplate) -> bool:
    if template.spec.get("resourceClaims"):
        return True
    return any(
        positive(r.quantity)
        for implicit in (False, True)
        for requests in template_extended_requests(template, implicit=implicit).values()
        for r in requests
    )


@object_check("REL020", kinds=POD_TEMPLATE_KINDS)
def check_node_affinity(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Pods with no node selector or node affinity. DaemonSets run on every node by design, and
    pods that ask for devices (ResourceClaims or extended resources) only land on nodes that
    have them."""
    if obj.kind == "DaemonSet":
        return
    for template in pod_templates(obj):
        if not _node_constrained(template.spec) and not _asks_for_devices(template):
            yield obj.finding(
                template.path,
                f"{template.label} has no nodeSelector or node affinity: it may be scheduled onto any node pool",
                hint="add `affinity: {nodeAffinity: ...}` or a `nodeSelector` for the node pool it belongs on",
                rule="REL020",
                key=True,
            )


def _ndots(template: PodTemplate) -> tuple[int, tuple] | None:
    """The resolver ``ndots`` of ClusterFirst pods and where it is set (the spec when defaulted)."""
    policy = template.spec.get("dnsPolicy", "ClusterFirst")
    if policy not in ("ClusterFirst", "ClusterFirstWithHostNet") or (
        policy == "ClusterFirst" and template.spec.get("hostNetwork") is True
    ):
        return None
    options = as_dict(template.spec.get("dnsConfig")).get("options")
    for index, option in enumerate(options if isinstance(options, list) else []):
        if (
            isinstance(option, dict)
            and option.get("name") == "ndots"
            and isinstance(option.get("value"), str)
            and option["value"].isdigit()
        ):
            return int(option["value"]), template.path + ("dnsConfig", "options", index, "value")
    return CLUSTER_FIRST_NDOTS, template.path


@object_check("REL026", kinds=POD_TEMPLATE_KINDS)
def check_dns_ndots(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """ClusterFirst pods whose ``ndots`` exceeds ``max-dns-ndots``."""
    limit = ctx.options.max_dns_ndots
    if limit is None:
        return
    for template in pod_templates(obj):
        found = _ndots(template)
        if found is None or found[0] <= limit:
            continue
        ndots, path = found
        source = "set in dnsConfig" if path != template.path else "the ClusterFirst default"
        yield obj.finding(
            path,
            f"{template.label} resolves with ndots {ndots} ({source}): every external name with fewer dots "
            "is first tried "
            f"against each cluster search domain, multiplying DNS queries (configured maximum: {limit})",
            hint=f'add `dnsConfig: {{options: [{{name: ndots, value: "{limit}"}}]}}` to the pod spec',
            rule="REL026",
            key=path == template.path,
        )
