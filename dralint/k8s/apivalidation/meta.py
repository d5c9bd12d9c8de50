"""``metadata`` as the API server checks it on create, for every built-in kind.

``ValidateObjectMeta`` (apimachinery) runs for every object with a per-kind name validator; the
schema overlay already covers label keys/values and annotation keys wherever an ObjectMeta occurs.
This module adds what needs the kind or the whole mapping: a name or generateName, the name and
generateName formats per kind, the namespace, the total annotation size, finalizer names,
ownerReferences, and the fields the server writes itself (which a manifest should not carry).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from dralint.k8s.apivalidation import errors as E
from dralint.k8s.apivalidation.errors import ApiError, Path
from dralint.k8s.apivalidation.formats import dns_label, dns_subdomain, label_key
from dralint.yaml.plain import as_dict, as_list

TOTAL_ANNOTATION_SIZE = 256 * 1024
CRONJOB_NAME_MAX = 52  # a Job created from it appends an 11-character suffix to a 63-character label
META: Path = ("metadata",)

#: Kinds whose names are DNS-1123 labels rather than subdomains (``NameIsDNSLabel``).
DNS_LABEL_NAMES = frozenset({"Namespace", "StatefulSet"})
#: Kinds whose names become URL path segments only (``ValidateRBACName``: path.IsValidPathSegmentName).
PATH_SEGMENT_NAMES = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})

#: Fields of ObjectMeta the server sets itself, and what it does with a value written in a manifest.
SERVER_SET_FIELDS = {
    "uid": "is assigned by the server on create (a value here is ignored); applying it to an object "
    "with another uid fails because uid is immutable",
    "resourceVersion": 'is assigned by the server: create rejects an object that carries one ("resourceVersion '
    'should not be set on objects to be created") and apply with a stale value fails with a conflict',
    "creationTimestamp": "is set by the server on create; a value here is ignored",
    "generation": "is set and incremented by the server; a value here is ignored",
    "managedFields": "is written by the server's field manager; server-side apply rejects a request that sets it",
    "selfLink": "is no longer set or read by the server (since v1.20); a value here is dropped",
    "deletionTimestamp": "is set by the server when deletion starts; a value here is ignored on create",
    "deletionGracePeriodSeconds": "is set by the server when deletion starts; a value here is ignored on create",
}
SERVER_SET_HINT = "remove it (the manifest looks like `kubectl get -o yaml` output); `dralint fix` does this"

_DNS_1035_LABEL = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123')"
)


def _dns_1035_label(value: str) -> list[str]:
    """``IsDNS1035Label``: a DNS label that starts with a letter (Service names)."""
    errors = dns_label(value)
    if not errors and not value[:1].isalpha():
        errors = [_DNS_1035_LABEL]
    return [_DNS_1035_LABEL if "RFC 1123 label" in e else e for e in errors]


def _path_segment(value: str) -> list[str]:
    """``IsValidPathSegmentName``: not '.' or '..', and no '/' or '%'."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in value]


def _cronjob_name(value: str) -> list[str]:
    """A DNS subdomain of at most 52 characters (``ValidateCronJob``)."""
    long = [f"must be no more than {CRONJOB_NAME_MAX} characters"] if len(value) > CRONJOB_NAME_MAX else []
    return long + [e for e in dns_subdomain(value) if not e.startswith("must be no more")]


def name_check(kind: str) -> Callable[[str], list[str]]:
    """The name validator the server uses for ``kind`` (DNS subdomain unless listed otherwise)."""
    if kind in DNS_LABEL_NAMES:
        return dns_label
    if kind in PATH_SEGMENT_NAMES:
        return _path_segment
    if kind == "Service":
        return _dns_1035_label
    if kind == "CronJob":
        return _cronjob_name
    return dns_subdomain


def _prefix_errors(check: Callable[[str], list[str]], kind: str, prefix: str) -> list[str]:
    """A generateName is checked as a name whose trailing '-' is allowed (``maskTrailingDash``);
    RBAC prefixes only may not contain '/' or '%'."""
    if kind in PATH_SEGMENT_NAMES:
        return [f"may not contain '{c}'" for c in "/%" if c in prefix]
    masked = prefix[:-1] + "a" if len(prefix) > 1 and prefix.endswith("-") else prefix
    return check(masked)


def _names(meta: dict[str, Any], kind: str, base: Path) -> list[ApiError]:
    found: list[ApiError] = []
    check = name_check(kind)
    name, prefix = meta.get("name"), meta.get("generateName")
    if isinstance(prefix, str) and prefix:
        found += [
            ApiError(META + ("generateName",), E.INVALID_FORMAT, E.invalid(META + ("generateName",), prefix, d))
            for d in _prefix_errors(check, kind, prefix)
        ]
    if not name and not prefix:
        found.append(
            ApiError(
                base,
                E.REQUIRED,
                E.required(META + ("name",), "name or generateName is required"),
                key=True,
                hint="add `name:` under metadata (or `generateName:` for `kubectl create`)",
            )
        )
    elif isinstance(name, str) and name:
        found += [
            ApiError(META + ("name",), E.INVALID_FORMAT, E.invalid(META + ("name",), name, d)) for d in check(name)
        ]
    return found


def _namespace(meta: dict[str, Any], kind: str, cluster_scoped: bool) -> list[ApiError]:
    namespace = meta.get("namespace")
    if not isinstance(namespace, str) or not namespace or (not cluster_scoped and _valid_namespace(namespace)):
        return []  # nearly every object
    path = META + ("namespace",)
    if cluster_scoped:
        return [
            ApiError(
                path,
                E.NAMESPACE_IGNORED,
                f"{E.field_path(path)}: {kind} is cluster-scoped; the server drops the namespace",
                key=True,
                hint="remove `namespace:`: references to this object do not use a namespace",
            )
        ]
    return [ApiError(path, E.INVALID_FORMAT, E.invalid(path, namespace, d)) for d in dns_label(namespace)]


@functools.lru_cache(maxsize=1024)
def _valid_namespace(namespace: str) -> bool:
    """Whether a namespace is a DNS label, decided once per text: the objects of a run share a
    few namespaces, and every namespaced object asks."""
    return not dns_label(namespace)


def _annotation_size(meta: dict[str, Any]) -> list[ApiError]:
    annotations = meta.get("annotations")
    if not isinstance(annotations, dict):
        return []
    size = sum(
        len(str(k).encode("utf-8")) + len(v.encode("utf-8")) for k, v in annotations.items() if isinstance(v, str)
    )
    if size <= TOTAL_ANNOTATION_SIZE:
        return []
    path = META + ("annotations",)
    return [
        ApiError(
            path,
            E.TOO_LONG,
            f"{E.field_path(path)}: Too long: may not be more than {TOTAL_ANNOTATION_SIZE} bytes",
            key=True,
            hint=f"keys and values add up to {size:,} bytes; move large data into a ConfigMap",
        )
    ]


def _finalizers(meta: dict[str, Any]) -> list[ApiError]:
    found: list[ApiError] = []
    for i, name in enumerate(as_list(meta.get("finalizers"))):
        path = META + ("finalizers", i)
        if isinstance(name, str):
            found += [ApiError(path, E.INVALID_FORMAT, E.invalid(path, name, d)) for d in label_key(name)]
    return found


def _owner_references(meta: dict[str, Any]) -> list[ApiError]:
    """Non-empty apiVersion/kind/name/uid (missing keys are the schema's ``required``), and at
    most one controller."""
    found: list[ApiError] = []
    controllers = 0
    for i, ref in enumerate(as_list(meta.get("ownerReferences"))):
        if not isinstance(ref, dict):
            continue
        base = META + ("ownerReferences", i)
        for field_name, what in (("apiVersion", "version"), ("kind", "kind"), ("name", "name"), ("uid", "uid")):
            if ref.get(field_name) == "":
                found.append(
                    ApiError(
                        base + (field_name,),
                        E.INVALID_VALUE,
                        E.invalid(base + (field_name,), "", f"{what} must not be empty"),
                    )
                )
        if ref.get("controller") is True:
            controllers += 1
            if controllers > 1:
                found.append(
                    ApiError(
                        base + ("controller",),
                        E.INVALID_VALUE,
                        E.invalid(
                            META + ("ownerReferences",),
                            meta["ownerReferences"],
                            "Only one reference can have Controller set to true",
                        ),
                    )
                )
    return found


def _server_set(meta: dict[str, Any]) -> list[ApiError]:
    return [
        ApiError(
            META + (name,), E.SERVER_WRITTEN, f"{E.field_path(META + (name,))} {detail}", key=True, hint=SERVER_SET_HINT
        )
        for name, detail in SERVER_SET_FIELDS.items()
        if meta.get(name) not in (None, "", [], {})
    ]


def check_object_meta(data: Mapping[str, Any], kind: str, cluster_scoped: bool) -> list[ApiError]:
    """Every create-time metadata problem of one built-in object of ``kind``."""
    raw = data.get("metadata")
    if raw is not None and not isinstance(raw, dict):
        return []  # a wrong type is the schema's finding
    meta = as_dict(raw)
    found = _names(meta, kind, META if "metadata" in data else ())
    found += _namespace(meta, kind, cluster_scoped)
    if not meta.keys().isdisjoint(_CHECKED_FIELDS):  # most manifests have only names and labels
        found += _annotation_size(meta) + _finalizers(meta) + _owner_references(meta) + _server_set(meta)
    return found


#: The fields the last four checks of ``check_object_meta`` read: without any of them, they find nothing.
_CHECKED_FIELDS = frozenset({"annotations", "finalizers", "ownerReferences", *SERVER_SET_FIELDS})


def status_written(data: Mapping[str, Any], has_status: bool) -> list[ApiError]:
    """A non-empty top-level ``status`` on a kind that has one: the server resets it on create and
    the main endpoint ignores it on update (only the status subresource writes it)."""
    status = data.get("status")
    if not has_status or status in (None, {}, []):
        return []
    return [
        ApiError(
            ("status",),
            E.SERVER_WRITTEN,
            "status is written by the server and controllers (status subresource); "
            "it is reset on create and ignored on apply",
            key=True,
            hint=SERVER_SET_HINT,
        )
    ]
