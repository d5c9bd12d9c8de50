"""ResourceQuota during a migration: claim-based devices are counted under another key.

A quota on ``requests.nvidia.com/gpu`` counts pods that ask for the extended resource. Pods that
get the same GPUs through ResourceClaims are counted per DeviceClass under
``<class>.deviceclass.resource.k8s.io/devices`` instead, so the old quota silently stops
limiting them.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.claims import class_drivers, device_requests, pod_claim_entries
from dralint.k8s.migration import extended_resource_classes, is_extended_resource_name, same_vendor
from dralint.k8s.objects import KubeObject, pod_templates
from dralint.lint.context import Context
from dralint.lint.refs import resolve_pod_claim
from dralint.lint.registry import context_check

QUOTA_SUFFIX = ".deviceclass.resource.k8s.io/devices"


def claim_users(ctx: Context, namespace: str | None) -> dict[str, KubeObject]:
    """DeviceClass name -> first scanned workload in ``namespace`` that claims its devices."""

    def build() -> dict[str, KubeObject]:
        out: dict[str, KubeObject] = {}
        for obj in ctx.scanned:
            if obj.namespace != namespace:
                continue
            for template in pod_templates(obj):
                for _, entry in pod_claim_entries(template.spec):
                    resolved = resolve_pod_claim(ctx, obj, entry)
                    if resolved and resolved[2].target is not None:
                        for request in device_requests(resolved[2].target):
                            if request.device_class:
                                out.setdefault(request.device_class, obj)
        return out

    return ctx.memo(("quota", "claim-users", namespace), build)


def serves(ctx: Context, resource: str, class_name: str) -> bool:
    """Whether claims of this DeviceClass get the devices ``resource`` used to stand for."""
    if any(c.name == class_name for c in extended_resource_classes(ctx).get(resource, [])):
        return True
    device_class = ctx.find("DeviceClass", None, class_name)
    drivers = (class_drivers(device_class) if device_class else None) or frozenset()
    return any(same_vendor(resource, d) for d in drivers | {class_name})


@context_check("EXT006")
def check_quota_misses_claims(ctx: Context) -> Iterator[Finding]:
    """Quotas, scanned or in the cluster state, against the scanned workloads' claims."""
    for quota in ctx.by_kind("ResourceQuota"):
        if quota.origin != "context":
            yield from _quota_findings(quota, ctx)


def _quota_findings(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A quota on an extended resource in a namespace whose pods now claim those devices."""
    hard = obj.get(("spec", "hard"))
    if not isinstance(hard, dict):
        return
    users = claim_users(ctx, obj.namespace)
    for key, value in hard.items():
        key = str(key)
        resource = key[len("requests.") :] if key.startswith("requests.") else ""
        if not is_extended_resource_name(resource):
            continue
        for class_name, user in sorted(users.items()):
            quota_key = class_name + QUOTA_SUFFIX
            if quota_key in hard or not serves(ctx, resource, class_name):
                continue
            yield obj.finding(
                ("spec", "hard", key),
                f"quota {key} does not count devices that pods in namespace {obj.namespace!r} get through "
                "ResourceClaims "
                f"of DeviceClass {class_name!r}; those are counted under {quota_key}",
                hint=f'add the claim-based limit next to it in spec.hard: `{quota_key}: "{value}"`',
                key=True,
                related=(user.related(("metadata", "name"), f"{user.display} claims devices of {class_name}"),),
            )
