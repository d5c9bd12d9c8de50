"""Server-side rules of resource.k8s.io that JSON Schema keywords cannot express.

Each function receives one instance of the type the overlay attaches it to (``x-dralint-check``)
and returns :class:`Issue` values with paths relative to that instance; the schema layer adds the
absolute path. Constants are the server's (``pkg/apis/resource/validation``) and live only here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, NamedTuple

from dralint.k8s.apivalidation import errors as E
from dralint.k8s.apivalidation.formats import (
    dns_label,
    dns_subdomain,
    is_extended_resource,
    label_key,
    label_value,
    semver,
)
from dralint.k8s.quantity import quantity_value
from dralint.yaml.plain import as_dict

MAX_DEVICES_PER_SLICE = 128
MAX_DEVICES_WITH_ADVANCED_FEATURES = 64
MAX_ATTRIBUTES_AND_CAPACITIES = 32
MAX_ATTRIBUTE_VALUES = 48
MAX_ATTRIBUTE_STRING_LENGTH = 64
OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024
SCALAR_ATTRIBUTE_TYPES = ("int", "bool", "string", "version")
LIST_ATTRIBUTE_TYPES = ("ints", "bools", "strings", "versions")
NODE_SELECTION_FIELDS = ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")
DEVICE_NODE_FIELDS = ("nodeName", "nodeSelector", "allNodes")


class Issue(NamedTuple):
    """A finding relative to the checked instance.

    ``kind`` names a message builder in :mod:`dralint.k8s.apivalidation.errors` (``invalid``,
    ``required``, ...) and ``args`` its arguments after the path; ``kind == "text"`` means
    ``args[0]`` is a detail appended to the field path as is.
    """

    path: tuple[str | int, ...]
    rule: str
    kind: str
    args: tuple[Any, ...] = ()
    key: bool = False
    hint: str | None = None
    gate: str | None = None


def _list(value: Any) -> list[Any]:
    """``value`` if it is a list, else empty: a wrong type is reported by the schema, not here."""
    return value if isinstance(value, list) else []


def _selects_nodes(obj: dict[str, Any], name: str) -> bool:
    """Whether a node-selection field counts as set, as the server counts it: a non-empty
    ``nodeName``, any ``nodeSelector``, or a flag that is true (empty/false values are reported
    separately as invalid)."""
    value = obj.get(name)
    if name == "nodeSelector":
        return value is not None
    return value is True if name in ("allNodes", "perDeviceNodeSelection") else value not in (None, "")


def non_null_fields(obj: Any) -> list[Issue]:
    """A required field written with no value (``cel:`` followed by nothing) is still missing:
    JSON Schema's ``required`` only sees the key, the server sees a nil pointer."""
    if not isinstance(obj, dict):
        return []
    return [
        Issue((name,), E.REQUIRED, "required", (), key=True, hint=f"`{name}:` has no value; indent its fields under it")
        for name in ("cel", "opaque")
        if name in obj and obj[name] is None
    ]


def template_metadata(meta: Any) -> list[Issue]:
    """ResourceClaimTemplate ``spec.metadata`` may only carry labels and annotations."""
    if not isinstance(meta, dict):
        return []
    return [
        Issue(
            (key,),
            E.INVALID_VALUE,
            "forbidden",
            ("cannot be set",),
            key=True,
            hint="only `labels` and `annotations` are copied to generated ResourceClaims",
        )
        for key in meta
        if key not in ("labels", "annotations")
    ]


def _request_names(claim: dict[str, Any]) -> dict[str, set[str]]:
    names: dict[str, set[str]] = {}
    for request in _list(claim.get("requests")):
        if isinstance(request, dict) and isinstance(request.get("name"), str):
            subs = _list(request.get("firstAvailable"))
            names[request["name"]] = {s["name"] for s in subs if isinstance(s, dict) and isinstance(s.get("name"), str)}
    return names


def _reference_problem(ref: Any, names: dict[str, set[str]]) -> bool:
    if not isinstance(ref, str):
        return False
    parts = ref.split("/")
    if len(parts) > 2 or any(dns_label(p) for p in parts):
        return True
    if parts[0] not in names:
        return True
    return len(parts) == 2 and parts[1] not in names[parts[0]]


def _derived_owners(claim: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str, Any, list[Any]]]:
    """Yield (path to derivedAttributes list, request name, subrequest name or None, list)."""
    for i, request in enumerate(_list(claim.get("requests"))):
        if not isinstance(request, dict):
            continue
        name = request.get("name")
        if not isinstance(name, str):
            continue
        for holder_path, holder in ((("requests", i, "exactly"), request.get("exactly")), (("requests", i), request)):
            if isinstance(holder, dict) and isinstance(holder.get("derivedAttributes"), list):
                yield holder_path + ("derivedAttributes",), name, None, holder["derivedAttributes"]
        for j, sub in enumerate(_list(request.get("firstAvailable"))):
            if isinstance(sub, dict) and isinstance(sub.get("derivedAttributes"), list):
                yield (
                    ("requests", i, "firstAvailable", j, "derivedAttributes"),
                    name,
                    sub.get("name"),
                    sub["derivedAttributes"],
                )


def claim_references(claim: Any) -> list[Issue]:
    """Constraint/config ``requests`` must name requests (``req`` or ``req/sub``) of this claim,
    and every derived attribute must be used by a constraint that targets its request."""
    if not isinstance(claim, dict):
        return []
    names = _request_names(claim)
    issues: list[Issue] = []
    detail = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
    for section in ("constraints", "config"):
        for i, entry in enumerate(_list(claim.get(section))):
            refs = entry.get("requests") if isinstance(entry, dict) else None
            for j, ref in enumerate(refs if isinstance(refs, list) else []):
                if _reference_problem(ref, names):
                    known = ", ".join(sorted(names)) or "none"
                    issues.append(
                        Issue(
                            (section, i, "requests", j),
                            E.UNDEFINED_REFERENCE,
                            "invalid",
                            (ref, detail),
                            hint=f"requests in this claim: {known}",
                        )
                    )
    constraints = [c for c in _list(claim.get("constraints")) if isinstance(c, dict)]
    for path, request, sub, derived in _derived_owners(claim):
        targets = {request} if sub is None else {request, f"{request}/{sub}"}
        for k, attribute in enumerate(derived):
            name = attribute.get("name") if isinstance(attribute, dict) else None
            if not isinstance(name, str):
                continue
            used = any(
                name in (c.get("matchAttribute"), c.get("distinctAttribute"))
                and (not c.get("requests") or targets & {r for r in _list(c.get("requests")) if isinstance(r, str)})
                for c in constraints
            )
            if not used:
                issues.append(
                    Issue(
                        path + (k, "name"),
                        E.UNDEFINED_REFERENCE,
                        "invalid",
                        (
                            name,
                            "must be referenced by at least one matchAttribute or distinctAttribute "
                            "constraint targeting this request",
                        ),
                        hint=f"add a constraint with `matchAttribute: {name}` for request `{request}`",
                    )
                )
    return issues


def exact_request(request: Any) -> list[Issue]:
    """allocationMode/count rules of an exact request or subrequest (and of a v1beta1 request)."""
    if not isinstance(request, dict):
        return []
    mode = request.get("allocationMode") or "ExactCount"
    count = request.get("count")
    if not isinstance(count, int) or isinstance(count, bool):
        return []
    if mode == "All" and count != 0:
        return [
            Issue(
                ("count",),
                E.INVALID_VALUE,
                "invalid",
                (count, "must not be specified when allocationMode is 'All'"),
                hint="remove `count`, or use `allocationMode: ExactCount`",
            )
        ]
    if mode == "ExactCount" and count < 0:
        return [Issue(("count",), E.INVALID_VALUE, "invalid", (count, "must be greater than zero"))]
    return []


def toleration(tol: Any) -> list[Issue]:
    """A DeviceToleration's key is a label key unless empty (an empty key with ``Exists``
    tolerates every taint); with ``operator: Exists`` it must not have a value."""
    if not isinstance(tol, dict):
        return []
    key = tol.get("key")
    issues = [
        Issue(("key",), E.INVALID_FORMAT, "invalid", (key, detail))
        for detail in (label_key(key) if isinstance(key, str) and key else [])
    ]
    if tol.get("operator") == "Exists" and tol.get("value"):
        issues.append(
            Issue(
                ("value",),
                E.INVALID_VALUE,
                "invalid",
                (tol["value"], "must be empty for operator `Exists`"),
                hint="drop `value`, or use `operator: Equal`",
            )
        )
    return issues


POD_TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]


def pod_toleration(tol: Any) -> list[Issue]:
    """A pod's toleration as ``ValidateTolerations`` checks it: an empty key only with ``Exists``
    (it tolerates every taint), a value only with ``Equal`` and then a label value,
    ``tolerationSeconds`` only with ``NoExecute``. ``Lt``/``Gt`` (numeric taint comparison, a
    newer feature-gated addition) are left alone rather than guessed at."""
    if not isinstance(tol, dict):
        return []
    key, operator, value, effect = (
        tol.get("key") or "",
        tol.get("operator") or "Equal",
        tol.get("value") or "",
        tol.get("effect") or "",
    )
    issues = [
        Issue(("key",), E.INVALID_FORMAT, "invalid", (key, d))
        for d in (label_key(key) if isinstance(key, str) and key else [])
    ]
    if not key and operator != "Exists":
        issues.append(
            Issue(
                ("operator",) if "operator" in tol else (),
                E.INVALID_VALUE,
                "invalid",
                (operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'),
                key="operator" not in tol,
                hint="add `operator: Exists` to tolerate every taint, or name the taint's `key`",
            )
        )
    if tol.get("tolerationSeconds") is not None and effect != "NoExecute":
        issues.append(
            Issue(
                ("effect",) if effect else ("tolerationSeconds",),
                E.INVALID_VALUE,
                "invalid",
                (effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"),
                key=not effect,
            )
        )
    if operator == "Equal" and isinstance(value, str):
        issues += [Issue(("value",), E.INVALID_FORMAT, "invalid", (value, d)) for d in label_value(value)]
    elif operator == "Exists" and value:
        issues.append(
            Issue(
                ("value",),
                E.INVALID_VALUE,
                "invalid",
                (value, "value must be empty when `operator` is 'Exists'"),
                hint="drop `value`, or use `operator: Equal`",
            )
        )
    elif isinstance(operator, str) and operator not in ("Equal", "Exists", "Lt", "Gt"):
        issues.append(Issue(("operator",), E.UNSUPPORTED_VALUE, "not_supported", (operator, ["Equal", "Exists"])))
    if isinstance(effect, str) and effect and effect not in POD_TAINT_EFFECTS:
        issues.append(Issue(("effect",), E.UNSUPPORTED_VALUE, "not_supported", (effect, POD_TAINT_EFFECTS)))
    return issues


NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _expression_values(requirement: dict[str, Any]) -> list[Issue]:
    """How many values an operator takes (``ValidateNodeSelectorRequirement``), and each value a
    label value whatever the operator."""
    operator, values = requirement.get("operator"), requirement.get("values")
    count = len(values) if isinstance(values, list) else 0
    issues: list[Issue] = []
    if operator in ("In", "NotIn") and count == 0:
        issues.append(
            Issue(
                ("values",), E.REQUIRED, "required", ("must be specified when `operator` is 'In' or 'NotIn'",), key=True
            )
        )
    elif operator in ("Exists", "DoesNotExist") and count:
        issues.append(
            Issue(
                ("values",),
                E.INVALID_VALUE,
                "forbidden",
                ("may not be specified when `operator` is 'Exists' or 'DoesNotExist'",),
                key=True,
                hint="drop `values`, or use `operator: In`",
            )
        )
    elif operator in ("Gt", "Lt") and count != 1:
        issues.append(
            Issue(
                ("values",),
                E.REQUIRED,
                "required",
                ("must be specified single value when `operator` is 'Lt' or 'Gt'",),
                key=True,
            )
        )
    elif isinstance(operator, str) and operator not in NODE_SELECTOR_OPERATORS:
        issues.append(
            Issue(
                ("operator",),
                E.INVALID_VALUE,
                "invalid",
                (operator, "not a valid selector operator"),
                hint="operators: " + ", ".join(NODE_SELECTOR_OPERATORS),
            )
        )
    for k, value in enumerate(values if isinstance(values, list) else []):
        for detail in label_value(value) if isinstance(value, str) else []:
            issues.append(
                Issue(
                    ("values", k),
                    E.INVALID_FORMAT,
                    "invalid",
                    (value, detail),
                    hint="Gt/Lt compare integers written as label values: no sign, no spaces"
                    if operator in ("Gt", "Lt")
                    else None,
                )
            )
    return issues


def _field_values(requirement: dict[str, Any]) -> list[Issue]:
    """A ``matchFields`` requirement: key ``metadata.name``, In/NotIn with one node name."""
    operator, values, key = requirement.get("operator"), requirement.get("values"), requirement.get("key")
    issues: list[Issue] = []
    if operator in ("In", "NotIn"):
        if not isinstance(values, list) or len(values) != 1:
            issues.append(
                Issue(
                    ("values",),
                    E.REQUIRED,
                    "required",
                    ("must be only one value when `operator` is 'In' or 'NotIn' for node field selector",),
                    key=True,
                )
            )
    elif isinstance(operator, str):
        issues.append(
            Issue(
                ("operator",),
                E.INVALID_VALUE,
                "invalid",
                (operator, "not a valid selector operator"),
                hint="matchFields supports only In and NotIn",
            )
        )
    if isinstance(key, str) and key != "metadata.name":
        issues.append(
            Issue(
                ("key",),
                E.INVALID_VALUE,
                "invalid",
                (key, "not a valid field selector key"),
                hint="the only node field a selector can match is `metadata.name`",
            )
        )
        return issues
    for k, value in enumerate(values if isinstance(values, list) else []):
        for detail in dns_subdomain(value) if isinstance(value, str) else []:
            issues.append(Issue(("values", k), E.INVALID_FORMAT, "invalid", (value, detail)))
    return issues


def node_selector_term(term: Any) -> list[Issue]:
    """Every requirement of a NodeSelectorTerm as ``ValidateNodeSelectorTerm`` checks it on create:
    label-key keys and operator-specific values in ``matchExpressions``, node names in
    ``matchFields``."""
    if not isinstance(term, dict):
        return []
    issues: list[Issue] = []
    for i, requirement in enumerate(_list(term.get("matchExpressions"))):
        if not isinstance(requirement, dict):
            continue
        key = requirement.get("key")
        found = (
            [Issue(("key",), E.INVALID_FORMAT, "invalid", (key, d)) for d in label_key(key)]
            if isinstance(key, str)
            else []
        )
        found += _expression_values(requirement)
        issues += [_under(("matchExpressions", i), issue) for issue in found]
    for i, requirement in enumerate(_list(term.get("matchFields"))):
        if isinstance(requirement, dict):
            issues += [_under(("matchFields", i), issue) for issue in _field_values(requirement)]
    return issues


def _under(prefix: tuple[str | int, ...], issue: Issue) -> Issue:
    """``issue`` moved below ``prefix`` (a check on one list entry, reported from its parent)."""
    return Issue(prefix + issue.path, issue.rule, issue.kind, issue.args, issue.key, issue.hint, issue.gate)


def opaque_parameters(params: Any) -> list[Issue]:
    """Opaque driver parameters: a JSON object, at most 10 KiB once serialised."""
    if params is None:
        return [Issue((), E.REQUIRED, "required", (), key=True)]
    if isinstance(params, dict):
        size = len(json.dumps(params, separators=(",", ":"), ensure_ascii=False, default=str).encode("utf-8"))
        if size > OPAQUE_PARAMETERS_MAX_LENGTH:
            return [
                Issue(
                    (),
                    E.TOO_LONG,
                    "too_long",
                    (OPAQUE_PARAMETERS_MAX_LENGTH,),
                    key=True,
                    hint=f"the parameters serialise to {size:,} bytes of JSON",
                )
            ]
    return []


def _device_body(device: dict[str, Any]) -> dict[str, Any]:
    basic = device.get("basic")
    return basic if isinstance(basic, dict) else device


def _uses_advanced_features(device: dict[str, Any]) -> bool:
    body = _device_body(device)
    attributes = as_dict(body.get("attributes"))
    return bool(
        body.get("taints")
        or body.get("consumesCounters")
        or any(
            isinstance(a, dict) and any(a.get(t) is not None for t in LIST_ATTRIBUTE_TYPES) for a in attributes.values()
        )
    )


def _node_selection(spec: dict[str, Any]) -> list[Issue]:
    issues: list[Issue] = []
    chosen = [f for f in NODE_SELECTION_FIELDS if _selects_nodes(spec, f)]
    listing = ", ".join(f"`{f}`" for f in NODE_SELECTION_FIELDS)
    if not chosen:
        issues.append(Issue((), E.ONE_OF, "required", (f"exactly one of {listing} is required",), key=True))
    elif len(chosen) > 1:
        issues.append(
            Issue(
                (),
                E.ONE_OF,
                "invalid",
                (
                    "{" + ", ".join(f"`{f}`" for f in chosen) + "}",
                    f"exactly one of {listing} is required, but multiple fields are set",
                ),
                key=True,
            )
        )
    if spec.get("nodeName") == "":
        issues.append(
            Issue(("nodeName",), E.INVALID_VALUE, "invalid", ("", "must be either unset or set to a non-empty string"))
        )
    for flag in ("allNodes", "perDeviceNodeSelection"):
        if spec.get(flag) is False:
            issues.append(Issue((flag,), E.INVALID_VALUE, "invalid", (False, "must be either unset or set to true")))
    terms = (
        (spec.get("nodeSelector") or {}).get("nodeSelectorTerms")
        if isinstance(spec.get("nodeSelector"), dict)
        else None
    )
    if isinstance(terms, list) and len(terms) != 1:
        issues.append(
            Issue(
                ("nodeSelector", "nodeSelectorTerms"),
                E.INVALID_VALUE,
                "text",
                ("must have exactly one node selector term",),
                key=True,
            )
        )
    return issues


def _per_device_nodes(spec: dict[str, Any], devices: list[Any]) -> list[Issue]:
    issues: list[Issue] = []
    per_device = spec.get("perDeviceNodeSelection") is True
    for i, device in enumerate(devices):
        if not isinstance(device, dict):
            continue
        body = _device_body(device)
        base: tuple[str | int, ...] = ("devices", i) + (("basic",) if body is not device else ())
        chosen = [f for f in DEVICE_NODE_FIELDS if _selects_nodes(body, f)]
        if not per_device:
            present = [f for f in DEVICE_NODE_FIELDS if body.get(f) is not None]
            if present:
                issues.append(
                    Issue(
                        base + (present[0],),
                        E.INVALID_VALUE,
                        "text",
                        (
                            "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                            "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
                        ),
                        key=True,
                    )
                )
            continue
        detail = (
            "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` "
            "is set to true in the ResourceSlice spec"
        )
        if not chosen:
            issues.append(Issue(("devices", i), E.ONE_OF, "required", (detail,)))
        elif len(chosen) > 1:
            issues.append(
                Issue(("devices", i), E.ONE_OF, "invalid", ("{" + ", ".join(f"`{f}`" for f in chosen) + "}", detail))
            )
        if body.get("nodeName") == "":
            issues.append(Issue(base + ("nodeName",), E.INVALID_VALUE, "invalid", ("", "must not be empty")))
        if body.get("allNodes") is False:
            issues.append(
                Issue(base + ("allNodes",), E.INVALID_VALUE, "invalid", (False, "must be either unset or set to true"))
            )
    return issues


def _partition_type(spec: dict[str, Any], devices: list[Any]) -> list[Issue]:
    name = spec.get("partitionTypeAttribute")
    if not isinstance(name, str):
        return []
    consuming = [
        (i, _device_body(d))
        for i, d in enumerate(devices)
        if isinstance(d, dict) and _device_body(d).get("consumesCounters")
    ]
    if not consuming:
        return [
            Issue(
                ("partitionTypeAttribute",),
                E.INVALID_VALUE,
                "invalid",
                (name, "may only be set on a slice which declares devices that consume counters"),
            )
        ]
    domain, _, ident = name.rpartition("/")
    issues: list[Issue] = []
    for i, body in consuming:
        attributes = as_dict(body.get("attributes"))
        key = name if name in attributes else ident if domain == spec.get("driver") and ident in attributes else None
        if key is None:
            issues.append(
                Issue(
                    ("devices", i, "attributes"),
                    E.REQUIRED,
                    "required",
                    (f"attribute `{name}` named by `partitionTypeAttribute`",),
                    key=True,
                )
            )
        elif not isinstance(attributes[key], dict) or attributes[key].get("string") is None:
            issues.append(
                Issue(
                    ("devices", i, "attributes", key),
                    E.INVALID_VALUE,
                    "text",
                    ("must be a string value because `partitionTypeAttribute` names this attribute",),
                )
            )
    return issues


def slice_spec(spec: Any) -> list[Issue]:
    """ResourceSlice spec: node selection one-of, devices xor sharedCounters, device count limit,
    per-device node selection and partitionTypeAttribute."""
    if not isinstance(spec, dict):
        return []
    issues = _node_selection(spec)
    devices = _list(spec.get("devices"))
    if spec.get("devices") is not None and spec.get("sharedCounters") is not None:
        issues.append(
            Issue(
                (),
                E.ONE_OF,
                "text",
                ("only one of `sharedCounters` or `devices` is allowed",),
                key=True,
                hint="publish counter sets in their own ResourceSlice of the same pool",
            )
        )
    advanced = any(isinstance(d, dict) and _uses_advanced_features(d) for d in devices)
    limit = MAX_DEVICES_WITH_ADVANCED_FEATURES if advanced else MAX_DEVICES_PER_SLICE
    if len(devices) > limit:
        issues.append(
            Issue(
                ("devices",),
                E.TOO_MANY,
                "too_many",
                (len(devices), limit),
                key=True,
                hint="split the pool over more slices (raise `pool.resourceSliceCount`)"
                + ("; the limit is 64 because a device uses taints, counters or list attributes" if advanced else ""),
            )
        )
    return issues + _per_device_nodes(spec, devices) + _partition_type(spec, devices)


def skip_node_operations(operations: Any) -> list[Issue]:
    """NodePrepareResources may only be skipped together with NodeUnprepareResources (or '*')."""
    if (
        isinstance(operations, list)
        and "NodePrepareResources" in operations
        and not ({"NodeUnprepareResources", "*"} & set(o for o in operations if isinstance(o, str)))
    ):
        return [
            Issue(
                (),
                E.INVALID_VALUE,
                "text",
                ("NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped",),
                key=True,
            )
        ]
    return []


class _Policy(NamedTuple):
    """One capacity's request policy with its quantities parsed, and where it sits."""

    path: tuple[str | int, ...]
    raw: dict[str, Any]
    capacity: Fraction
    default: Fraction | None

    def bad(self, sub: tuple[str | int, ...], raw: Any, detail: str) -> Issue:
        return Issue(self.path + sub, E.INVALID_VALUE, "invalid", (raw, detail))

    def default_required(self, option: str) -> list[Issue]:
        if self.raw.get("default") is not None:
            return []
        return [
            Issue(self.path + ("default",), E.REQUIRED, "required", (f"required when {option} is defined",), key=True)
        ]


def _valid_values(policy: _Policy, options: list[Any]) -> list[Issue]:
    issues = policy.default_required("validValues")
    parsed = [quantity_value(o) for o in options]
    for k, (raw, q) in enumerate(zip(options, parsed, strict=True)):
        if q is None:
            continue
        if q > policy.capacity:
            issues.append(policy.bad(("validValues", k), raw, "option is larger than capacity value"))
        previous = parsed[k - 1] if k else None
        if previous is not None and q <= previous:
            issues.append(policy.bad(("validValues", k), raw, "values must be sorted in ascending order and unique"))
    if policy.default is not None and policy.default not in parsed:
        issues.append(
            policy.bad(
                ("default",), policy.raw.get("default"), "default value is not valid according to the requestPolicy"
            )
        )
    return issues


def _valid_range(policy: _Policy, valid_range: dict[str, Any]) -> list[Issue]:
    issues = policy.default_required("validRange")
    low, high, step = (quantity_value(valid_range.get(k)) for k in ("min", "max", "step"))
    default, raw_default = policy.default, policy.raw.get("default")
    checks = [
        (
            low is not None and low > policy.capacity,
            ("validRange", "min"),
            valid_range.get("min"),
            "min is larger than capacity value",
        ),
        (
            low is not None and default is not None and default < low,
            ("default",),
            raw_default,
            "default is less than min",
        ),
        (
            low is not None and high is not None and high < low,
            ("validRange", "max"),
            valid_range.get("max"),
            "max is less than min",
        ),
        (
            high is not None and high > policy.capacity,
            ("validRange", "max"),
            valid_range.get("max"),
            "max is larger than capacity value",
        ),
        (
            high is not None and default is not None and default > high,
            ("default",),
            raw_default,
            "default is larger than max",
        ),
        (step is not None and step <= 0, ("validRange", "step"), valid_range.get("step"), "must be greater than zero"),
    ]
    issues += [policy.bad(sub, raw, detail) for failed, sub, raw, detail in checks if failed]
    if step is None or step <= 0 or low is None:
        return issues
    if low + step > policy.capacity:
        issues.append(
            policy.bad(("validRange", "step"), valid_range.get("step"), "min plus step is larger than capacity value")
        )
    detail = f"value is not a multiple of a given step ({valid_range.get('step')}) from ({valid_range.get('min')})"
    for sub, raw, q in ((("default",), raw_default, default), (("validRange", "max"), valid_range.get("max"), high)):
        if q is not None and (q - low) % step:
            issues.append(policy.bad(sub, raw, detail))
    return issues


def _capacity_policy(path: tuple[str | int, ...], capacity: dict[str, Any]) -> list[Issue]:
    """``requestPolicy`` of a shareable capacity: validValues or validRange, consistent with the
    capacity value and the default."""
    raw, value = capacity.get("requestPolicy"), quantity_value(capacity.get("value"))
    if not isinstance(raw, dict) or value is None:
        return []
    policy = _Policy(path + ("requestPolicy",), raw, value, quantity_value(raw.get("default")))
    issues: list[Issue] = []
    if isinstance(raw.get("validValues"), list):
        issues += _valid_values(policy, raw["validValues"])
    if isinstance(raw.get("validRange"), dict):
        issues += _valid_range(policy, raw["validRange"])
    return issues


def _node_allocatable(body: dict[str, Any], capacity: dict[str, Any]) -> list[Issue]:
    """``nodeAllocatableResources`` (alpha): node resource names, a mapping to an existing capacity
    with both key and multiplier, positive multipliers, non-negative overheads."""
    resources = body.get("nodeAllocatableResources")
    issues: list[Issue] = []
    for name, entry in resources.items() if isinstance(resources, dict) else ():
        base = ("nodeAllocatableResources", name)
        if is_extended_resource(name):
            issues.append(
                Issue(
                    base,
                    E.INVALID_VALUE,
                    "invalid",
                    (name, "must be a node-allocatable resource name, not an extended resource"),
                    key=True,
                )
            )
        if not isinstance(entry, dict):
            continue
        mapping, overhead = entry.get("mapping"), entry.get("overhead")
        if mapping is None and overhead is None:
            issues.append(Issue(base, E.REQUIRED, "required", ("`mapping` or `overhead` is required",), key=True))
        if isinstance(mapping, dict):
            key = mapping.get("capacityKey")
            if (key is None) != (mapping.get("capacityMultiplier") is None):
                issues.append(
                    Issue(
                        base + ("mapping",),
                        E.REQUIRED,
                        "required",
                        ("`capacityKey` and `capacityMultiplier` must be set together",),
                        key=True,
                    )
                )
            if isinstance(key, str) and key not in capacity:
                issues.append(
                    Issue(
                        base + ("mapping", "capacityKey"),
                        E.UNDEFINED_REFERENCE,
                        "invalid",
                        (key, "must name an entry of the device's capacity"),
                    )
                )
            for field_name in ("capacityMultiplier", "deviceMultiplier"):
                value = quantity_value(mapping.get(field_name))
                if value is not None and value <= 0:
                    issues.append(
                        Issue(
                            base + ("mapping", field_name),
                            E.INVALID_VALUE,
                            "invalid",
                            (mapping[field_name], "must be positive"),
                        )
                    )
        if isinstance(overhead, dict):
            if overhead.get("perPod") is None and overhead.get("perContainer") is None:
                issues.append(
                    Issue(
                        base + ("overhead",),
                        E.REQUIRED,
                        "required",
                        ("`perPod` or `perContainer` is required",),
                        key=True,
                    )
                )
            for field_name in ("perPod", "perContainer"):
                value = quantity_value(overhead.get(field_name))
                if value is not None and value < 0:
                    issues.append(
                        Issue(
                            base + ("overhead", field_name),
                            E.INVALID_VALUE,
                            "invalid",
                            (overhead[field_name], "must be non-negative"),
                        )
                    )
    return issues


def device(body: Any) -> list[Issue]:
    """Per-device limits: attributes+capacity, attribute values, capacity request policies,
    node-allocatable resource mappings and binding conditions."""
    if not isinstance(body, dict):
        return []
    issues: list[Issue] = []
    attributes = as_dict(body.get("attributes"))
    capacity = as_dict(body.get("capacity"))
    if len(attributes) + len(capacity) > MAX_ATTRIBUTES_AND_CAPACITIES:
        issues.append(
            Issue(
                (),
                E.TOO_MANY,
                "text",
                (
                    "the total number of attributes and capacities must not exceed "
                    f"{MAX_ATTRIBUTES_AND_CAPACITIES} (has {len(attributes) + len(capacity)})",
                ),
            )
        )
    values = sum(
        sum(len(a[t]) if t in LIST_ATTRIBUTE_TYPES and isinstance(a[t], list) else 1 for t in a if a[t] is not None)
        for a in attributes.values()
        if isinstance(a, dict)
    )
    if values > MAX_ATTRIBUTE_VALUES:
        issues.append(
            Issue(
                (),
                E.TOO_MANY,
                "text",
                (f"the total number of attribute values must not exceed {MAX_ATTRIBUTE_VALUES} (has {values})",),
            )
        )
    for name, entry in capacity.items():
        if not isinstance(entry, dict) or entry.get("requestPolicy") is None:
            continue
        if body.get("allowMultipleAllocations") is not True:
            issues.append(
                Issue(
                    ("capacity", name, "requestPolicy"),
                    E.INVALID_VALUE,
                    "forbidden",
                    ("allowMultipleAllocations must be true",),
                    key=True,
                    hint="set `allowMultipleAllocations: true` on the device, or drop `requestPolicy`",
                )
            )
        else:
            issues += _capacity_policy(("capacity", name), entry)
    issues += _node_allocatable(body, capacity)
    conditions, failures = body.get("bindingConditions"), body.get("bindingFailureConditions")
    if isinstance(conditions, list) and isinstance(failures, list):
        overlap = sorted(set(map(str, conditions)) & set(map(str, failures)))
        if overlap:
            issues.append(
                Issue(
                    ("bindingFailureConditions",),
                    E.INVALID_VALUE,
                    "invalid",
                    (overlap, "bindingFailureConditions must not overlap with bindingConditions"),
                    key=True,
                )
            )
    if conditions and not failures:
        issues.append(
            Issue(
                ("bindingConditions",),
                E.REQUIRED,
                "text",
                ("bindingFailureConditions are required to use bindingConditions",),
                key=True,
            )
        )
    if failures and not conditions:
        issues.append(
            Issue(
                ("bindingFailureConditions",),
                E.REQUIRED,
                "text",
                ("bindingConditions are required to use bindingFailureConditions",),
                key=True,
            )
        )
    return issues


def device_attribute(attribute: Any) -> list[Issue]:
    """One attribute has exactly one value; lists are non-empty; strings and versions are at most
    64 bytes; versions are semver 2.0.0."""
    if not isinstance(attribute, dict):
        return []
    issues: list[Issue] = []
    kinds = [t for t in SCALAR_ATTRIBUTE_TYPES + LIST_ATTRIBUTE_TYPES if attribute.get(t) is not None]
    if len(kinds) != 1:
        issues.append(Issue((), E.ONE_OF, "invalid", (attribute, "exactly one value must be specified")))
    elif kinds[0] in LIST_ATTRIBUTE_TYPES:
        # The gate's field is dropped on create, which leaves the attribute without any value.
        issues.append(
            Issue(
                (),
                E.ONE_OF,
                "required",
                (
                    f"must specify one of: `int`, `bool`, `string`, `version` (the server drops `{kinds[0]}` "
                    "while DRAListTypeAttributes is off, the v1.37 default)",
                ),
                hint="use a single value, or enable DRAListTypeAttributes on the cluster and pass "
                "--feature-gates DRAListTypeAttributes=true",
                gate="DRAListTypeAttributes",
            )
        )
    items: list[tuple[tuple[str | int, ...], Any]]
    for kind in kinds:
        raw = attribute[kind]
        if kind in LIST_ATTRIBUTE_TYPES:
            if isinstance(raw, list) and not raw:
                issues.append(Issue((kind,), E.INVALID_VALUE, "invalid", (raw, "must not be empty if specified")))
            items = [((kind, k), v) for k, v in enumerate(raw)] if isinstance(raw, list) else []
        else:
            items = [((kind,), raw)]
        if kind not in ("strings", "string", "versions", "version"):
            continue
        for path, value in items:
            if not isinstance(value, str):
                continue
            if len(value.encode("utf-8")) > MAX_ATTRIBUTE_STRING_LENGTH:
                issues.append(Issue(path, E.TOO_LONG, "too_long", (MAX_ATTRIBUTE_STRING_LENGTH,)))
            elif kind.startswith("version") and semver(value):
                issues.append(
                    Issue(
                        path,
                        E.INVALID_VALUE,
                        "invalid",
                        (value, semver(value)[0]),
                        hint="use a full MAJOR.MINOR.PATCH version, e.g. 1.2.0",
                    )
                )
    return issues


CHECKS: dict[str, Callable[[Any], list[Issue]]] = {
    "non-null-fields": non_null_fields,
    "template-metadata": template_metadata,
    "claim-references": claim_references,
    "exact-request": exact_request,
    "toleration": toleration,
    "node-selector-term": node_selector_term,
    "pod-toleration": pod_toleration,
    "opaque-parameters": opaque_parameters,
    "slice-spec": slice_spec,
    "skip-node-operations": skip_node_operations,
    "device": device,
    "device-attribute": device_attribute,
}
"""Check name (``x-dralint-check`` in the overlay) -> function."""
