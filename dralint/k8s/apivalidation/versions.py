"""Is an apiVersion/kind served by a v1.37 API server, and if not, where should it go?

Facts: dra-api.md §1.1 and §5 (resource.k8s.io lifecycle), the Kubernetes deprecated-API
migration guide for the other groups. The GVK index of the bundled schema is the authority for
"served at all"; this module adds the lifecycle (deprecated, disabled by default, removed).
"""

from __future__ import annotations

import difflib
from typing import NamedTuple

from dralint.k8s.apivalidation import errors as E
from dralint.k8s.apivalidation.errors import ApiError

RESOURCE_GROUP = "resource.k8s.io"

V1BETA1_HINT = (
    "migrate to resource.k8s.io/v1: in ResourceClaims and ResourceClaimTemplates move each request's "
    "deviceClassName, selectors, allocationMode, count, adminAccess, tolerations, capacity and derivedAttributes "
    "under `exactly:` (firstAvailable stays where it is); in ResourceSlices move the fields of `devices[].basic` "
    "up into the device entry; DeviceClass fields are unchanged"
)
V1BETA2_HINT = "migrate to resource.k8s.io/v1: the v1beta2 field layout is the same as v1, only apiVersion changes"

# (group, version) -> (message, hint) for DRA versions a 1.37 server still has but does not serve
# by default.
DRA_DEPRECATED: dict[tuple[str, str], tuple[str, str]] = {
    (RESOURCE_GROUP, "v1beta1"): ("deprecated since v1.35, disabled by default, removed in v1.38", V1BETA1_HINT),
    (RESOURCE_GROUP, "v1beta2"): ("deprecated since v1.36, disabled by default, removed in v1.39", V1BETA2_HINT),
    (RESOURCE_GROUP, "v1alpha3"): (
        "a deprecated alpha API (since v1.36), disabled by default, removed in v1.39",
        "use resource.k8s.io/v1 DeviceTaintRule (GA in v1.37); the fields are the same",
    ),
}
# Kinds that need an alpha feature gate in addition to the API version being enabled.
GATED_KINDS: dict[tuple[str, str], str] = {(RESOURCE_GROUP, "ResourcePoolStatusRequest"): "DRAResourcePoolStatus"}

# Kinds of removed API versions whose replacement is in another group or does not exist.
MOVED_KINDS: dict[tuple[str, str], str] = {
    (
        RESOURCE_GROUP,
        "ResourceClass",
    ): "DeviceClass (resource.k8s.io/v1) replaced ResourceClass with structured parameters: "
    "select devices with CEL `selectors` instead of a driver-side controller",
    (
        RESOURCE_GROUP,
        "PodSchedulingContext",
    ): "PodSchedulingContext was removed with classic DRA (v1.31); the scheduler "
    "allocates devices itself, so delete this object",
    (
        RESOURCE_GROUP,
        "ResourceClaimParameters",
    ): "ResourceClaimParameters was removed in v1.31; put vendor parameters in "
    "`spec.devices.config[].opaque.parameters` of the ResourceClaim(Template)",
    (
        RESOURCE_GROUP,
        "ResourceClassParameters",
    ): "ResourceClassParameters was removed in v1.31; put vendor parameters in "
    "`spec.config[].opaque.parameters` of a DeviceClass",
    ("extensions", "Deployment"): "use apps/v1 Deployment (extensions/v1beta1 was removed in v1.16)",
    ("extensions", "DaemonSet"): "use apps/v1 DaemonSet (extensions/v1beta1 was removed in v1.16)",
    ("extensions", "ReplicaSet"): "use apps/v1 ReplicaSet (extensions/v1beta1 was removed in v1.16)",
    ("extensions", "Ingress"): "use networking.k8s.io/v1 Ingress (extensions/v1beta1 was removed in v1.22)",
    ("extensions", "NetworkPolicy"): "use networking.k8s.io/v1 NetworkPolicy (extensions/v1beta1 was removed in v1.16)",
    (
        "extensions",
        "PodSecurityPolicy",
    ): "PodSecurityPolicy was removed in v1.25; use Pod Security Admission namespace labels",
    (
        "policy",
        "PodSecurityPolicy",
    ): "PodSecurityPolicy was removed in v1.25; use Pod Security Admission namespace labels",
}
DRA_REWRITE_HINT = {
    "v1alpha1": "classic DRA (v1.26) was replaced by structured parameters",
    "v1alpha2": "classic DRA (v1.27-v1.30) was removed in v1.31 and replaced by structured parameters",
    "v1alpha3": "v1alpha3 stopped serving this kind in v1.37",
}


class VersionVerdict(NamedTuple):
    """What dralint knows about an object's apiVersion/kind before validating its fields.

    ``definition`` is the schema definition to validate against (None: do not validate);
    ``errors`` are the version findings (path () means "at apiVersion").
    """

    definition: str | None
    errors: tuple[ApiError, ...]


def _split(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def _stability(version: str) -> int:
    """Sort key: GA first, then beta, then alpha, newest number first."""
    rank = 0 if "alpha" not in version and "beta" not in version else 1 if "beta" in version else 2
    return rank * 100 - int("".join(c for c in version.split("beta")[-1].split("alpha")[-1] if c.isdigit()) or 0)


def _served_versions(kinds: dict[str, str], group: str, kind: str) -> list[str]:
    found = []
    for key in kinds:
        api_version, _, k = key.rpartition("/")
        g, v = _split(api_version)
        if g == group and k == kind:
            found.append(api_version)
    return sorted(found, key=lambda av: _stability(_split(av)[1]))


def _at_api_version(rule: str, message: str, hint: str | None, gate: str | None = None) -> ApiError:
    return ApiError(("apiVersion",), rule, message, key=False, hint=hint, gate=gate)


def check_version(api_version: str, kind: str, index: dict[str, object]) -> VersionVerdict:
    """Decide whether ``api_version``/``kind`` is served by v1.37 and which definition applies."""
    kinds: dict[str, str] = index["kinds"]  # type: ignore[assignment]
    groups: list[str] = index["groups"]  # type: ignore[assignment]
    group, version = _split(api_version)
    definition = kinds.get(f"{api_version}/{kind}")
    if definition is not None:
        return VersionVerdict(definition, tuple(_served_findings(api_version, group, version, kind)))
    if group not in groups:
        return VersionVerdict(
            None,
            (
                _at_api_version(
                    E.NOT_VALIDATED,
                    f"{kind} ({api_version}) is not a built-in Kubernetes v1.37 kind; dralint does not "
                    "validate its fields against a schema",
                    "custom resources are checked only by the rules that know them",
                ),
            ),
        )
    served = _served_versions(kinds, group, kind)
    if served:
        why = DRA_REWRITE_HINT.get(version, "") if group == RESOURCE_GROUP else ""
        hint = f"use apiVersion {served[0]}" + (f" ({why})" if why else "")
        if (
            group == RESOURCE_GROUP
            and version in ("v1alpha1", "v1alpha2", "v1alpha3")
            and kind in ("ResourceClaim", "ResourceClaimTemplate")
        ):
            hint += "; request devices with `spec.devices.requests[].exactly.deviceClassName` and CEL selectors"
        return VersionVerdict(
            None,
            (_at_api_version(E.VERSION_NOT_SERVED, f"{kind} {api_version} is not served by a v1.37 API server", hint),),
        )
    moved = MOVED_KINDS.get((group, kind))
    if moved:
        return VersionVerdict(
            None,
            (
                _at_api_version(
                    E.VERSION_NOT_SERVED, f"{kind} {api_version} is not served by a v1.37 API server", moved
                ),
            ),
        )
    elsewhere = sorted(
        {key.rpartition("/")[0] for key in kinds if key.rpartition("/")[2] == kind},
        key=lambda av: _stability(_split(av)[1]),
    )
    group_kinds = sorted({key.rpartition("/")[2] for key in kinds if _split(key.rpartition("/")[0])[0] == group})
    close = difflib.get_close_matches(kind, group_kinds, n=1, cutoff=0.6)
    suggestion: str | None
    if elsewhere:
        suggestion = f"{kind} is served as apiVersion {elsewhere[0]}"
    elif close:
        suggestion = f"did you mean `{close[0]}`?"
    else:
        suggestion = (
            f"kinds of {group or 'the core group'}: {', '.join(group_kinds)}"
            if group_kinds and len(group_kinds) <= 15
            else None
        )
    return VersionVerdict(
        None,
        (
            ApiError(
                ("kind",),
                E.UNKNOWN_KIND,
                f"kind {kind!r} does not exist in {group or 'the core API group'} at v1.37",
                hint=suggestion,
            ),
        ),
    )


def _served_findings(api_version: str, group: str, version: str, kind: str) -> list[ApiError]:
    found: list[ApiError] = []
    gate = GATED_KINDS.get((group, kind))
    if gate:
        found.append(
            _at_api_version(
                E.FEATURE_GATED,
                f"{kind} needs the alpha feature gate {gate} (off by default in v1.37) and "
                f"--runtime-config={api_version}=true",
                f"enable {gate} on the cluster and pass --feature-gates {gate}=true",
                gate=gate,
            )
        )
    elif (group, version) in DRA_DEPRECATED:
        status, hint = DRA_DEPRECATED[(group, version)]
        found.append(_at_api_version(E.VERSION_DEPRECATED, f"{api_version} is {status}", hint))
    elif "alpha" in version or "beta" in version:
        stage = "an alpha" if "alpha" in version else "a beta"
        found.append(
            _at_api_version(
                E.VERSION_DEPRECATED,
                f"{api_version} is {stage} API; a v1.37 API server serves it only when enabled with "
                f"--runtime-config={api_version}=true",
                None,
            )
        )
    return found
