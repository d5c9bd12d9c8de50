"""String formats the API server checks and OpenAPI does not describe.

Each format is one function returning the server's complaint(s), worded like the apimachinery
validators (`IsDNS1123Label`, `IsQualifiedName`, ...), so a message reads like `kubectl apply`'s.
The same functions back the ``format`` keyword of the schema overlay (through
:data:`FORMAT_CHECKS`) and the Python checks, so every format and its length limit lives here once.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dralint.k8s.quantity import quantity_errors
from dralint.k8s.semver import is_semver

DNS_LABEL_MAX = 63
DNS_SUBDOMAIN_MAX = 253
DRIVER_NAME_MAX = 63
POOL_NAME_MAX = 253
C_IDENTIFIER_MAX = 32
LABEL_VALUE_MAX = 63
QUALIFIED_NAME_MAX = 63

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_QUALIFIED_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\Z")


def _too_long(value: str, limit: int) -> list[str]:
    return [f"must be no more than {limit} characters"] if len(value) > limit else []


def _matching(value: str, limit: int, pattern: re.Pattern[str], message: str) -> list[str]:
    """The length complaint (if any) plus ``message`` when ``value`` does not match ``pattern``."""
    if len(value) <= limit and pattern.match(value):
        return []  # nearly every value: every object's name and namespace come here
    return _too_long(value, limit) + ([] if pattern.match(value) else [message])


def dns_label(value: str) -> list[str]:
    """RFC 1123 label: request, device, counter and pod-claim names."""
    return _matching(
        value,
        DNS_LABEL_MAX,
        _DNS_LABEL,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')",
    )


def dns_subdomain(value: str) -> list[str]:
    """RFC 1123 subdomain: object names, deviceClassName, claim names in pods."""
    return _matching(
        value,
        DNS_SUBDOMAIN_MAX,
        _DNS_SUBDOMAIN,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'example.com')",
    )


def driver_name(value: str) -> list[str]:
    """A DRA driver name: a DNS subdomain of at most 63 characters, checked after lower-casing."""
    return _too_long(value, DRIVER_NAME_MAX) + [
        e for e in dns_subdomain(value.lower()) if not e.startswith("must be no more")
    ]


def pool_name(value: str) -> list[str]:
    """A pool name: one or more DNS subdomains joined by '/', at most 253 characters in total."""
    errors = _too_long(value, POOL_NAME_MAX)
    for part in value.split("/"):
        if not part or dns_subdomain(part):
            errors.append("each part of a pool name separated by '/' must be a DNS subdomain")
            break
    return errors


def c_identifier(value: str) -> list[str]:
    """A C identifier of at most 32 characters (the name part of a device attribute or capacity)."""
    return _matching(
        value,
        C_IDENTIFIER_MAX,
        _C_IDENTIFIER,
        "a valid C identifier must start with alphabetic character or '_', followed by a string "
        "of alphanumeric characters or '_' (e.g. 'my_name')",
    )


def _domain_and_id(value: str, *, require_domain: bool) -> list[str]:
    if value.count("/") > 1:
        return ["a qualified name must be a C identifier with an optional domain prefix separated by a single '/'"]
    domain, _, ident = value.rpartition("/")
    errors: list[str] = []
    if "/" in value or require_domain:
        if not domain:
            return ["a fully qualified name must be a domain and a name separated by a slash"]
        errors += [f"domain: {e}" for e in driver_name(domain)]
    if not ident:
        errors.append("the name part must not be empty")
    else:
        errors += c_identifier(ident)
    return errors


def qualified_name(value: str) -> list[str]:
    """DRA QualifiedName (attribute/capacity key): ``cIdentifier`` or ``domain/cIdentifier``."""
    return _domain_and_id(value, require_domain=False)


def fully_qualified_name(value: str) -> list[str]:
    """DRA FullyQualifiedName (matchAttribute, distinctAttribute, ...): the domain is required."""
    return _domain_and_id(value, require_domain=True)


def label_key(value: str) -> list[str]:
    """A Kubernetes qualified name (label key, taint key): optional DNS-subdomain prefix + name."""
    prefix, _, name = value.rpartition("/")
    errors: list[str] = []
    if value.count("/") > 1:
        return [
            "a qualified name must consist of alphanumeric characters, '-', '_' or '.' with an optional DNS "
            "subdomain prefix and '/'"
        ]
    if "/" in value:
        errors += [f"prefix part {e}" for e in dns_subdomain(prefix)] if prefix else ["prefix part must be non-empty"]
    return errors + _matching(
        name,
        QUALIFIED_NAME_MAX,
        _QUALIFIED_NAME_PART,
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc')",
    )


def annotation_key(value: str) -> list[str]:
    """An annotation key: a qualified name once lower-cased (``ValidateAnnotations``)."""
    return label_key(value.lower())


def label_value(value: str) -> list[str]:
    """A label value (taint/toleration value): empty, or up to 63 alphanumerics plus '-_.'."""
    return _matching(
        value,
        LABEL_VALUE_MAX,
        _LABEL_VALUE,
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
        "'.', and must start and end with an alphanumeric character",
    )


def semver(value: str) -> list[str]:
    """A version attribute value: semver.org 2.0.0."""
    return [] if is_semver(value) else ["must be a string compatible with semver.org spec 2.0.0"]


def is_extended_resource(name: object) -> bool:
    """``IsExtendedResourceName``'s test of a resource name in pod resources: a domain outside
    kubernetes.io, and not a quota name (``requests.*``)."""
    if not isinstance(name, str) or "/" not in name or name.startswith("requests."):
        return False
    domain = name.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))


def extended_resource_name(value: str) -> list[str]:
    """DeviceClass ``extendedResourceName``, as ``v1helper.IsExtendedResourceName`` decides.

    It must have a domain, must not be in the ``kubernetes.io`` namespace, must not start with
    ``requests.``, and ``requests.<name>`` must be a qualified name (that is what quota uses).
    """
    message = "must be a valid extended resource name"
    if "/" not in value:
        return [f"{message}: it needs a domain prefix (e.g. 'example.com/gpu')"]
    prefix = value.split("/", 1)[0]
    if prefix == "kubernetes.io" or prefix.endswith(".kubernetes.io"):
        return [f"{message}: names in the kubernetes.io namespace are reserved"]
    if value.startswith("requests."):
        return [f"{message}: it must not start with 'requests.'"]
    if label_key("requests." + value):
        return [f"{message}: 'requests.{value}' must be a qualified name"]
    return []


FORMAT_CHECKS: dict[str, Callable[[str], list[str]]] = {
    "dns-label": dns_label,
    "dns-subdomain": dns_subdomain,
    "driver-name": driver_name,
    "pool-name": pool_name,
    "c-identifier": c_identifier,
    "qualified-name": qualified_name,
    "fully-qualified-name": fully_qualified_name,
    "label-key": label_key,
    "label-value": label_value,
    "annotation-key": annotation_key,
    "semver": semver,
    "extended-resource-name": extended_resource_name,
    "quantity": quantity_errors,
}
"""Format name (as used in ``schemas/dra-overlay.yaml``) -> checker."""
