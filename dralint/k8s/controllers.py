"""Create-time rules of ``pkg/apis/apps/validation`` and ``pkg/apis/batch/validation`` that a
manifest alone decides: the selector picks the template's pods, the template's restart policy
suits the controller, and the update strategy is consistent.

The OpenAPI schema knows none of these (they are Go validation), and each one makes
``kubectl apply`` fail, so they are reported with the API rules. Returns :class:`ApiError` records
like :mod:`dralint.k8s.apivalidation`; the lint check positions them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dralint.k8s.apivalidation import errors as E
from dralint.k8s.apivalidation.errors import ApiError, Path
from dralint.k8s.labels import map_selector_matches, selector_matches
from dralint.yaml.plain import as_dict

#: Kinds whose pods must restart forever, with the name the server uses in "empty selector" errors.
LONG_RUNNING = {
    "Deployment": "deployment",
    "ReplicaSet": "deployment",
    "StatefulSet": "statefulset",
    "DaemonSet": "daemonset",
    "ReplicationController": None,
}
RUN_TO_COMPLETION = ("OnFailure", "Never")
#: The built-in API version of each controller kind (a CRD of the same kind name is not these).
API_VERSIONS = {
    "Deployment": "apps/v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "ReplicationController": "v1",
    "Job": "batch/v1",
    "CronJob": "batch/v1",
}
TEMPLATE: Path = ("spec", "template")


def _restart_policy(kind: str, template: Mapping[str, Any], base: Path) -> list[ApiError]:
    """Always for long-running controllers; OnFailure or Never (and no default) for Jobs."""
    spec = template.get("spec")
    if not isinstance(spec, dict):
        return []
    policy = spec.get("restartPolicy")
    path = base + ("spec", "restartPolicy")
    if kind in LONG_RUNNING:
        if isinstance(policy, str) and policy != "Always":
            return [
                ApiError(
                    path,
                    E.UNSUPPORTED_VALUE,
                    E.not_supported(path, policy, ["Always"]),
                    hint=f"a {kind} restarts its pods forever; use a Job for pods that run to completion",
                )
            ]
        if spec.get("activeDeadlineSeconds") is not None:
            deadline = base + ("spec", "activeDeadlineSeconds")
            return [
                ApiError(
                    deadline,
                    E.INVALID_VALUE,
                    E.forbidden(deadline, f"activeDeadlineSeconds in {kind} is not Supported"),
                    key=True,
                )
            ]
        return []
    if policy in RUN_TO_COMPLETION:
        return []
    if policy is None:
        return [
            ApiError(
                base + ("spec",),
                E.UNSUPPORTED_VALUE,
                E.not_supported(path, "Always", list(RUN_TO_COMPLETION)),
                key=True,
                hint="a Job's pods need `restartPolicy: Never` or `OnFailure` (the pod default, Always, is rejected)",
            )
        ]
    return [ApiError(path, E.UNSUPPORTED_VALUE, E.not_supported(path, policy, list(RUN_TO_COMPLETION)))]


def _selector(kind: str, data: Mapping[str, Any]) -> list[ApiError]:
    """The selector is not empty and picks the template's labels (an RC's defaults to them)."""
    spec, template = as_dict(data.get("spec")), as_dict(as_dict(data.get("spec")).get("template"))
    selector = spec.get("selector")
    labels = as_dict(as_dict(template.get("metadata")).get("labels"))
    if kind == "ReplicationController":
        matches = not selector or map_selector_matches(selector, labels)
    elif isinstance(selector, dict):
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            path: Path = ("spec", "selector")
            return [
                ApiError(
                    path,
                    E.INVALID_VALUE,
                    E.invalid(path, selector, f"empty selector is invalid for {LONG_RUNNING[kind]}"),
                )
            ]
        matches = selector_matches(selector, labels)
    else:
        return []  # missing: the schema's required-field finding
    if matches:
        return []
    has_labels = "labels" in as_dict(template.get("metadata"))
    path = TEMPLATE + ("metadata", "labels") if has_labels else TEMPLATE
    return [
        ApiError(
            path,
            E.INVALID_VALUE,
            E.invalid(TEMPLATE + ("metadata", "labels"), labels, "`selector` does not match template `labels`"),
            key=True,
            hint="give the template every label the selector requires (the selector cannot change later)",
        )
    ]


def _is_zero(value: Any) -> bool:
    return value in (0, "0", "0%")


def _stalled_rollout(kind: str, base: Path, rolling: Any) -> list[ApiError]:
    """A rolling update that may neither add nor remove a pod never progresses; unset fields take
    their defaults (Deployment 25%/25%, DaemonSet maxSurge 0 and maxUnavailable 1)."""
    if not isinstance(rolling, dict) or kind == "StatefulSet":
        return []
    surge = rolling.get("maxSurge", "25%" if kind == "Deployment" else 0)
    unavailable = rolling.get("maxUnavailable", "25%" if kind == "Deployment" else 1)
    if not (_is_zero(surge) and _is_zero(unavailable)):
        return []
    path = base + ("rollingUpdate", "maxUnavailable")
    detail = "may not be 0 when `maxSurge` is 0" if kind == "Deployment" else "cannot be 0 when maxSurge is 0"
    return [
        ApiError(
            path if "maxUnavailable" in rolling else base + ("rollingUpdate",),
            E.INVALID_VALUE,
            E.invalid(path, unavailable, detail),
            key="maxUnavailable" not in rolling,
            hint="a rollout must be allowed to add or to remove at least one pod",
        )
    ]


def _strategy(kind: str, spec: Mapping[str, Any]) -> list[ApiError]:
    """Deployment ``strategy``, StatefulSet and DaemonSet ``updateStrategy``: known type,
    rollingUpdate only with RollingUpdate, and a rolling update that can make progress."""
    field_name, types = (
        ("strategy", ["Recreate", "RollingUpdate"])
        if kind == "Deployment"
        else ("updateStrategy", ["OnDelete", "RollingUpdate"])
    )
    strategy = spec.get(field_name)
    if not isinstance(strategy, dict):
        return []
    base: Path = ("spec", field_name)
    kind_of = strategy.get("type")
    if isinstance(kind_of, str) and kind_of not in types:
        return [ApiError(base + ("type",), E.UNSUPPORTED_VALUE, E.not_supported(base + ("type",), kind_of, types))]
    rolling = strategy.get("rollingUpdate")
    if kind_of in types and kind_of != "RollingUpdate" and rolling is not None and kind != "DaemonSet":
        detail = (
            "may not be specified when strategy `type` is 'Recreate'"
            if kind == "Deployment"
            else "only allowed for updateStrategy 'RollingUpdate'"
        )
        return [
            ApiError(
                base + ("rollingUpdate",),
                E.INVALID_VALUE,
                E.forbidden(base + ("rollingUpdate",), detail),
                key=True,
                hint="remove `rollingUpdate`, or set `type: RollingUpdate`",
            )
        ]
    return _stalled_rollout(kind, base, rolling) if kind_of in (None, "RollingUpdate") else []


def _indexed_completions(spec: Mapping[str, Any]) -> list[ApiError]:
    """An Indexed Job needs ``completions`` (the index range)."""
    if spec.get("completionMode") != "Indexed" or spec.get("completions") is not None:
        return []
    return [
        ApiError(
            ("spec",),
            E.REQUIRED,
            E.required(("spec", "completions"), "when completion mode is Indexed"),
            key=True,
            hint="set `completions:` to the number of indexes (often equal to `parallelism`)",
        )
    ]


def _pod_management(spec: Mapping[str, Any]) -> list[ApiError]:
    policy = spec.get("podManagementPolicy")
    path: Path = ("spec", "podManagementPolicy")
    if isinstance(policy, str) and policy not in ("OrderedReady", "Parallel"):
        return [ApiError(path, E.INVALID_VALUE, E.invalid(path, policy, "must be 'OrderedReady' or 'Parallel'"))]
    return []


def controller_errors(data: Mapping[str, Any]) -> list[ApiError]:
    """Every create-time problem of a built-in controller's spec (empty for other kinds)."""
    kind = data.get("kind")
    spec = as_dict(data.get("spec"))
    if not isinstance(kind, str) or API_VERSIONS.get(kind) != data.get("apiVersion"):
        return []
    if kind in LONG_RUNNING:
        found = _selector(kind, data) + _restart_policy(kind, as_dict(spec.get("template")), TEMPLATE)
        if kind in ("Deployment", "StatefulSet", "DaemonSet"):
            found += _strategy(kind, spec)
        return found + (_pod_management(spec) if kind == "StatefulSet" else [])
    if kind == "Job":
        return _restart_policy("Job", as_dict(spec.get("template")), TEMPLATE) + _indexed_completions(spec)
    if kind == "CronJob":
        base: Path = ("spec", "jobTemplate", "spec", "template")
        return _restart_policy(
            "CronJob", as_dict(as_dict(as_dict(spec.get("jobTemplate")).get("spec")).get("template")), base
        )
    return []
