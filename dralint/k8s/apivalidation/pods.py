"""DRA rules of core pod validation (``pkg/apis/core/validation``), on any pod spec.

The value rules of ``topologySpreadConstraints`` are here too: the bundled schema only knows
which of their keys are required, not which values the server refuses.

These run on plain pod-spec dicts rather than through the schema because pod templates also live
inside custom resources (JobSet, MPIJob, ...), which have no bundled schema but are still turned
into Pods that the API server validates. Facts: dra-api.md §2.7 and §4.
"""

from __future__ import annotations

import re
from typing import Any

from dralint.k8s.apivalidation import errors as E
from dralint.k8s.apivalidation.errors import ApiError, Path
from dralint.k8s.apivalidation.formats import dns_label, dns_subdomain, is_extended_resource
from dralint.k8s.objects import CONTAINER_LISTS
from dralint.k8s.quantity import quantity_value
from dralint.yaml.plain import as_dict, as_list

CLAIM_SOURCES = ("resourceClaimName", "resourceClaimTemplateName")


def _pod_claims(spec: dict[str, Any], base: Path) -> list[ApiError]:
    found: list[ApiError] = []
    names: list[str] = []
    for i, claim in enumerate(as_list(spec.get("resourceClaims"))):
        if not isinstance(claim, dict):
            continue
        path: Path = base + ("resourceClaims", i)
        name = claim.get("name")
        if not name:
            found.append(ApiError(path, E.REQUIRED, E.required(path + ("name",)), key=True))
        elif isinstance(name, str):
            for detail in dns_label(name):
                found.append(ApiError(path + ("name",), E.INVALID_FORMAT, E.invalid(path + ("name",), name, detail)))
            if name in names:
                found.append(ApiError(path + ("name",), E.DUPLICATE, E.duplicate(path + ("name",), name)))
            names.append(name)
        sources = [s for s in CLAIM_SOURCES if claim.get(s)]
        if len(sources) > 1:
            found.append(
                ApiError(
                    path,
                    E.ONE_OF,
                    E.invalid(
                        path,
                        {s: claim[s] for s in sources},
                        "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
                    ),
                    hint="a pod claim either names an existing ResourceClaim or a template to stamp one from",
                )
            )
        elif not sources:
            found.append(
                ApiError(
                    path,
                    E.ONE_OF,
                    E.required(path, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"),
                    key=True,
                    hint="`source:` was the v1.30 shape; v1.31+ puts the two fields directly on the entry"
                    if "source" in claim
                    else None,
                )
            )
        for source in sources:
            value = claim[source]
            for detail in dns_subdomain(value) if isinstance(value, str) else []:
                found.append(ApiError(path + (source,), E.INVALID_FORMAT, E.invalid(path + (source,), value, detail)))
    return found


def _container_claims(path: Path, claims: list[Any]) -> list[ApiError]:
    """Container claim references: name given, request a DNS label, no reference twice.

    Whether the name is one of the pod's claims is REF003's finding (the reference checks own
    name resolution and point at the pod's declarations), so it is not repeated here.
    """
    found: list[ApiError] = []
    seen: dict[str, set[str]] = {}
    for j, ref in enumerate(claims):
        if not isinstance(ref, dict):
            continue
        here = path + (j,)
        name, request = ref.get("name"), ref.get("request") or ""
        if not isinstance(request, str):
            request = str(request)
        if not name:
            found.append(ApiError(here, E.REQUIRED, E.required(here + ("name",)), key=True))
            continue
        if request:
            for detail in dns_label(request):
                found.append(
                    ApiError(here + ("request",), E.INVALID_FORMAT, E.invalid(here + ("request",), request, detail))
                )
        previous = seen.setdefault(str(name), set())
        if request in previous or ("" in previous) or (not request and previous):
            found.append(
                ApiError(
                    here,
                    E.DUPLICATE,
                    E.duplicate(here, f"{name}/{request}" if request else name),
                    hint="reference a claim once, either as a whole or by its requests",
                )
            )
        previous.add(request)
    return found


def _extended_resources(path: Path, resources: dict[str, Any]) -> list[ApiError]:
    found: list[ApiError] = []
    requests, limits = as_dict(resources.get("requests")), as_dict(resources.get("limits"))
    for section, values in (("limits", limits), ("requests", requests)):
        for name, raw in values.items():
            if not is_extended_resource(name):
                continue
            here = path + (section, name)
            quantity = quantity_value(raw)
            if quantity is not None and quantity.denominator != 1:
                found.append(
                    ApiError(
                        here,
                        E.EXTENDED_RESOURCE,
                        E.invalid(here, raw, "must be an integer"),
                        hint="extended resources are counted in whole devices",
                    )
                )
            if section != "requests":
                continue
            if name not in limits:
                message = E.required(path + ("limits", name), "Limit must be set for non overcommitable resources")
                found.append(
                    ApiError(
                        here,
                        E.EXTENDED_RESOURCE,
                        message,
                        key=True,
                        hint=f"add `limits: {{{name}: {raw}}}` (or only set the limit)",
                    )
                )
            elif quantity is not None and quantity_value(limits[name]) != quantity:
                found.append(
                    ApiError(
                        here,
                        E.EXTENDED_RESOURCE,
                        E.invalid(here, raw, f"must be equal to {name} limit of {limits[name]}"),
                        hint="extended resources cannot be overcommitted: requests must equal limits",
                    )
                )
    return found


def check_pod_spec(spec: Any, base: Path = ()) -> list[ApiError]:
    """All DRA pod rules for one pod spec found at data path ``base`` of its object."""
    if not isinstance(spec, dict):
        return []
    found = _pod_claims(spec, base)
    if as_dict(spec.get("resources")).get("claims") is not None:
        path = base + ("resources", "claims")
        found.append(
            ApiError(
                path,
                E.INVALID_VALUE,
                E.forbidden(path, "claims cannot be set for Resources at pod-level"),
                key=True,
                hint="list claims under each container's `resources.claims` instead",
            )
        )
    for list_name in CONTAINER_LISTS:
        for i, container in enumerate(as_list(spec.get(list_name))):
            # Each rule runs only when its field is there (paths are built only then): a pod spec
            # is checked for every object, and most containers set few of these fields.
            container = as_dict(container)
            resources = as_dict(container.get("resources"))
            if resources:
                where: Path = base + (list_name, i, "resources")
                claims = as_list(resources.get("claims"))
                if claims:
                    found += _container_claims(where + ("claims",), claims)
                found += _extended_resources(where, resources)
            if "securityContext" in container:
                found += _unmasked_proc_mount(base + (list_name, i), container, spec)
            ports = as_list(container.get("ports"))
            if ports:
                found += _container_ports(base + (list_name, i, "ports"), ports)
    constraints = as_list(spec.get("topologySpreadConstraints"))
    if constraints:
        found += _spread_constraints(base + ("topologySpreadConstraints",), constraints)
    return found


SPREAD_ACTIONS = ["DoNotSchedule", "ScheduleAnyway"]


def _positive(value: Any) -> bool | None:
    """Whether an integer field is above zero; None when it is no integer (the schema says so)."""
    return value > 0 if isinstance(value, int) and not isinstance(value, bool) else None


def _spread_constraints(base: Path, constraints: list[Any]) -> list[ApiError]:
    """maxSkew and minDomains above zero, a non-empty topologyKey, a known whenUnsatisfiable,
    minDomains only with DoNotSchedule, and each {topologyKey, whenUnsatisfiable} pair once, reported
    on its first use as the server does (validateTopologySpreadConstraints in v1.37). Absent
    required keys are the schema's."""
    found: list[ApiError] = []
    pairs = [(as_dict(item).get("topologyKey"), as_dict(item).get("whenUnsatisfiable")) for item in constraints]
    for i, item in enumerate(constraints):
        if not isinstance(item, dict):
            continue
        path: Path = base + (i,)
        key, action = item.get("topologyKey"), item.get("whenUnsatisfiable")
        if _positive(item.get("maxSkew")) is False:
            found.append(
                ApiError(
                    path + ("maxSkew",),
                    E.INVALID_VALUE,
                    E.invalid(path + ("maxSkew",), item["maxSkew"], "must be greater than zero"),
                )
            )
        if key == "":
            found.append(
                ApiError(
                    path + ("topologyKey",),
                    E.REQUIRED,
                    E.required(path + ("topologyKey",), "can not be empty"),
                    hint="name a node label, e.g. `topologyKey: kubernetes.io/hostname`",
                )
            )
        if isinstance(action, str) and action not in SPREAD_ACTIONS:
            found.append(
                ApiError(
                    path + ("whenUnsatisfiable",),
                    E.UNSUPPORTED_VALUE,
                    E.not_supported(path + ("whenUnsatisfiable",), action, SPREAD_ACTIONS),
                )
            )
        if _positive(item.get("minDomains")) is False:
            found.append(
                ApiError(
                    path + ("minDomains",),
                    E.INVALID_VALUE,
                    E.invalid(path + ("minDomains",), item["minDomains"], "must be greater than zero"),
                )
            )
        elif item.get("minDomains") is not None and action in SPREAD_ACTIONS and action != "DoNotSchedule":
            found.append(
                ApiError(
                    path + ("minDomains",),
                    E.INVALID_VALUE,
                    E.invalid(
                        path + ("minDomains",),
                        item["minDomains"],
                        f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}",
                    ),
                )
            )
        if (key, action) in pairs[i + 1 :] and isinstance(key, str) and isinstance(action, str):
            found.append(
                ApiError(
                    path,
                    E.DUPLICATE,
                    E.duplicate(path, f"{{{key}, {action}}}"),
                    key=True,
                    hint="merge the constraints: each topologyKey may appear once per whenUnsatisfiable",
                )
            )
    return found


def port_name(value: str) -> list[str]:
    """Why ``value`` is not an IANA service name (IsValidPortName), one reason per broken rule."""
    reasons = ["must be no more than 15 characters"] if len(value) > 15 else []
    if not re.fullmatch(r"[-a-z0-9]+", value):
        reasons.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", value):
        reasons.append("must contain at least one letter (a-z)")
    if "--" in value:
        reasons.append("must not contain consecutive hyphens (-)")
    if value.startswith("-") or value.endswith("-"):
        reasons.append("must not begin or end with a hyphen (-)")
    return reasons


def _container_ports(base: Path, ports: list[Any]) -> list[ApiError]:
    """Port names valid and unique within the container, port numbers in 1..65535
    (validateContainerPorts in v1.37; an absent containerPort is the schema's finding)."""
    found: list[ApiError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        path: Path = base + (i,)
        name = port.get("name")
        reasons = port_name(name) if isinstance(name, str) and name else []
        for reason in reasons:
            found.append(ApiError(path + ("name",), E.INVALID_FORMAT, E.invalid(path + ("name",), name, reason)))
        if isinstance(name, str) and name and not reasons:
            if name in names:
                found.append(
                    ApiError(
                        path + ("name",),
                        E.DUPLICATE,
                        E.duplicate(path + ("name",), name),
                        hint="give each port of the container its own name",
                    )
                )
            names.add(name)
        for field_name in ("containerPort", "hostPort"):
            number = port.get(field_name)
            if field_name == "containerPort" and number == 0 and not isinstance(number, bool):
                found.append(ApiError(path + (field_name,), E.REQUIRED, E.required(path + (field_name,))))
            elif isinstance(number, int) and not isinstance(number, bool) and number != 0 and not 1 <= number <= 65535:
                found.append(
                    ApiError(
                        path + (field_name,),
                        E.INVALID_VALUE,
                        E.invalid(path + (field_name,), number, "must be between 1 and 65535, inclusive"),
                    )
                )
    return found


def _unmasked_proc_mount(path: Path, container: dict[str, Any], spec: dict[str, Any]) -> list[ApiError]:
    """``procMount: Unmasked`` needs a user namespace: the server rejects it unless ``hostUsers``
    is false (ValidateSecurityContext in v1.37)."""
    here = path + ("securityContext", "procMount")
    if as_dict(container.get("securityContext")).get("procMount") != "Unmasked" or spec.get("hostUsers") is False:
        return []
    return [
        ApiError(
            here,
            E.INVALID_VALUE,
            E.invalid(here, "Unmasked", "`hostUsers` must be false to use `Unmasked`"),
            hint="set `hostUsers: false` in the pod spec (a user namespace), or remove `procMount: Unmasked`",
        )
    ]
