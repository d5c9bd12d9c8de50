"""What a Role or ClusterRole grants, with RBAC's own matching rules.

RBAC matches a request when the rule's apiGroups, resources (``resource/subresource``) and
verbs each contain the request's value or ``*``; ``resourceNames`` narrows get/update/delete to
named objects. Checks ask "does this rule grant verb V on resource R of group G?" here instead
of comparing strings themselves, so ``*`` and subresources are handled the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from dralint.k8s.objects import KubeObject
from dralint.yaml.loader import DataPath

ROLE_KINDS = frozenset({"Role", "ClusterRole"})
BINDING_KINDS = frozenset({"RoleBinding", "ClusterRoleBinding"})


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


class PolicyRule(NamedTuple):
    """One entry of a role's ``rules`` list, with its data path."""

    path: DataPath
    api_groups: tuple[str, ...]
    resources: tuple[str, ...]
    verbs: tuple[str, ...]
    resource_names: tuple[str, ...]

    def grants(self, verb: str, resource: str, group: str = "") -> bool:
        """Whether a request for ``verb`` on ``resource`` (``pods/exec`` style) is allowed."""
        return (
            ("*" in self.api_groups or group in self.api_groups)
            and ("*" in self.verbs or verb in self.verbs)
            and _resource_matches(self.resources, resource)
        )

    def grants_any(self, verbs: tuple[str, ...], resource: str, group: str = "") -> list[str]:
        """The verbs of ``verbs`` this rule grants on ``resource``."""
        return [verb for verb in verbs if self.grants(verb, resource, group)]

    def item_path(self, field_name: str, value: str) -> DataPath:
        """Path of the first list item equal to ``value`` in ``field_name`` (the field if absent)."""
        values = {"apiGroups": self.api_groups, "resources": self.resources, "verbs": self.verbs}[field_name]
        return self.path + ((field_name, values.index(value)) if value in values else (field_name,))


def _resource_matches(granted: tuple[str, ...], resource: str) -> bool:
    """RBAC resource matching: exact, ``*``, or ``<resource>/*`` for any subresource."""
    if "*" in granted or resource in granted:
        return True
    base, _, sub = resource.partition("/")
    return bool(sub) and f"{base}/*" in granted


def policy_rules(role: KubeObject) -> Iterator[PolicyRule]:
    """Every rule of a Role or ClusterRole (aggregated ClusterRoles have none of their own)."""
    rules = role.get(("rules",))
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        if isinstance(rule, dict):
            yield PolicyRule(
                ("rules", index),
                _strings(rule.get("apiGroups")),
                _strings(rule.get("resources")),
                _strings(rule.get("verbs")),
                _strings(rule.get("resourceNames")),
            )


def is_full_admin(role: KubeObject) -> bool:
    """A role that grants every verb on every resource of every group, like cluster-admin."""
    return any("*" in rule.api_groups and "*" in rule.resources and "*" in rule.verbs for rule in policy_rules(role))
