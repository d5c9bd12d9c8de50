"""Pods and workloads -> their claims: declared, used by containers, and resolvable.

Every pod template of every workload kind is checked the same way (``pod_templates``), so a
typo in a JobSet's worker template is caught exactly like one in a bare Pod.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from dralint.diagnostics import Finding, Related
from dralint.k8s.claims import class_drivers, device_requests, pod_claim_entries, request_names
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.lint.context import Context
from dralint.lint.refs import looks_like_typo, reference_finding, resolve_pod_claim
from dralint.lint.registry import object_check
from dralint.yaml.loader import DataPath
from dralint.yaml.plain import as_dict, as_list

NOT_IN_SCOPE = "REF001"
OTHER_FIELD = {"resourceClaimTemplateName": "resourceClaimName", "resourceClaimName": "resourceClaimTemplateName"}
#: DRA drivers whose devices serve the whole pod (network interfaces moved into the pod's
#: network namespace), so no container needs to list their claims.
POD_LEVEL_DRIVERS = frozenset({"dra.net", "sriovnetwork.k8snetworkplumbingwg.io", "ovsdpdk.k8snetworkplumbingwg.io"})


def _declared(template: PodTemplate) -> dict[str, int]:
    out: dict[str, int] = {}
    for index, entry in pod_claim_entries(template.spec):
        if isinstance(entry.get("name"), str):
            out.setdefault(entry["name"], index)
    return out


@object_check("REF001", "REF002", kinds=POD_TEMPLATE_KINDS | {"PodGroup"})
def check_pod_claim_targets(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Each ``spec.resourceClaims[]`` entry names a claim or template that exists in the pod's
    namespace (also for PodGroups, which declare claims for the whole group)."""
    entries: list[tuple[DataPath, dict]] = []
    for template in pod_templates(obj):
        entries += [(template.path + ("resourceClaims", i), e) for i, e in pod_claim_entries(template.spec)]
    if obj.kind == "PodGroup":
        entries += [
            (("spec", "resourceClaims", i), e)
            for i, e in enumerate(as_list(obj.get(("spec", "resourceClaims"))))
            if isinstance(e, dict)
        ]
    for path, entry in entries:
        resolved = resolve_pod_claim(ctx, obj, entry)
        if resolved is None:
            continue
        field_name, name, resolution = resolved
        finding = reference_finding(
            obj, path + (field_name,), resolution, field_name, missing_rule="REF002", scope_rule=NOT_IN_SCOPE
        )
        sibling = next((e.obj for e in resolution.evidence if e.reason == "other-kind"), None)
        if finding and sibling is not None:
            other = OTHER_FIELD[field_name]
            finding = replace(
                finding,
                hint=f"`{name}` is a {sibling.kind}: refer to it with `{other}: {name}` "
                f"instead of `{field_name}`, or create the {resolution.kind}",
            )
        if finding:
            yield finding


@object_check("REF003", "REF004", "REF005", kinds=POD_TEMPLATE_KINDS)
def check_container_claims(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Container ``resources.claims`` against the pod's declared claims and their requests."""
    for template in pod_templates(obj):
        declared = _declared(template)
        used: set[str] = set()
        undeclared: list[str] = []
        for container_path, container in template.containers():
            resources = as_dict(container.get("resources"))
            for index, claim in enumerate(as_list(resources.get("claims"))):
                if not isinstance(claim, dict) or not isinstance(claim.get("name"), str):
                    continue
                path = container_path + ("resources", "claims", index)
                name = claim["name"]
                if name not in declared:
                    undeclared.append(name)
                    yield _undeclared(obj, template, path, name, declared)
                    continue
                used.add(name)
                request = claim.get("request")
                if isinstance(request, str) and request:
                    finding = _unknown_request(obj, ctx, template, path, name, request, declared[name])
                    if finding:
                        yield finding
        if not any(True for _ in template.containers()):
            continue
        for name, index in declared.items():
            if name in used or any(looks_like_typo(u, name) for u in undeclared):
                continue
            if _pod_level(ctx, obj, template.spec["resourceClaims"][index]):
                continue
            yield obj.finding(
                template.path + ("resourceClaims", index, "name"),
                f"pod claim {name!r} of {template.label} is declared but no container lists it in resources.claims",
                hint=f"add `claims: [{{name: {name}}}]` under the resources of the container that needs the devices; "
                "devices that serve the whole pod (such as network interfaces) may not need it",
                rule="REF004",
            )


def _pod_level(ctx: Context, obj: KubeObject, entry: dict) -> bool:
    """Whether every device of the claim comes from a driver that serves the whole pod."""
    resolved = resolve_pod_claim(ctx, obj, entry)
    target = resolved[2].target if resolved else None
    classes = [r.device_class for r in device_requests(target)] if target is not None else []
    if not classes:
        return False
    for class_name in classes:
        device_class = ctx.find("DeviceClass", None, class_name) if class_name else None
        drivers = class_drivers(device_class) if device_class is not None else None
        if class_name not in POD_LEVEL_DRIVERS and not (drivers and drivers <= POD_LEVEL_DRIVERS):
            return False
    return True


def _undeclared(obj: KubeObject, template: PodTemplate, path: DataPath, name: str, declared: dict[str, int]) -> Finding:
    names = sorted(declared)
    near = [n for n in names if looks_like_typo(name, n)]
    if names:
        detail = f"it must be one of {', '.join(repr(n) for n in names)}" + (
            f"; did you mean {near[0]!r}?" if near else ""
        )
    else:
        detail = "the pod declares no spec.resourceClaims"
    related: tuple[Related, ...] = ()
    if declared:
        related = (obj.related(template.path + ("resourceClaims",), "the pod's claims are declared here", key=True),)
    hint = (
        f"rename it to {near[0]!r}"
        if near
        else f"declare it in spec.resourceClaims: `- name: {name}` with resourceClaimTemplateName or resourceClaimName"
    )
    return obj.finding(
        path + ("name",),
        f"container claim {name!r} of {template.label} is not declared in the pod's spec.resourceClaims; {detail}",
        hint=hint,
        rule="REF003",
        related=related,
    )


def _unknown_request(
    obj: KubeObject, ctx: Context, template: PodTemplate, path: DataPath, claim: str, request: str, index: int
) -> Finding | None:
    entry = template.spec["resourceClaims"][index]
    resolved = resolve_pod_claim(ctx, obj, entry)
    if resolved is None:
        return None
    target = resolved[2].target
    if target is None:  # created at run time by another object: its requests are unknown
        return None
    names = request_names(target)
    if not names or request in names:
        return None
    sub_parent = [n.split("/")[0] for n in _subrequests(target) if n.split("/")[1] == request]
    detail = f"its requests are {', '.join(repr(n) for n in names)}"
    if sub_parent:
        hint = (
            f"{request!r} is a subrequest of {sub_parent[0]!r}; a container names the request: `request: "
            f"{sub_parent[0]}`"
        )
    else:
        near = [n for n in names if looks_like_typo(request, n)]
        hint = (
            f"use one of the request names{f' (did you mean {near[0]!r}?)' if near else ''}, or drop `request` "
            "to get every device of the claim"
        )
    return obj.finding(
        path + ("request",),
        f"container claim {claim!r} of {template.label} asks for request {request!r}, which {target.display} "
        f"does not have, so the container gets none of its devices; {detail}",
        hint=hint,
        rule="REF005",
        related=(target.related(("spec",), f"the requests of {target.display}", key=True),),
    )


def _subrequests(target: KubeObject) -> list[str]:
    return [r.name for r in device_requests(target) if "/" in r.name]
