"""RBAC: wildcards, cluster-admin bindings, secret reading, exec into pods, escalation paths.

Findings sit on the rule (or the list item) that grants the access. Secret and exec checks look
at explicitly named resources only; a ``*`` resource is already reported by the wildcard rule,
so one grant never yields a pile of findings.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding, Related
from dralint.k8s.objects import KubeObject
from dralint.k8s.rbac import BINDING_KINDS, ROLE_KINDS, PolicyRule, is_full_admin, policy_rules
from dralint.lint.context import Context
from dralint.lint.registry import object_check

_READ = ("get", "list", "watch")
#: (verbs, resource, group, why) grants that let a subject raise its own privileges.
_ESCALATIONS = (
    (("create",), "pods", "", "create pods (and so run any image with any service account of the namespace)"),
    (("bind", "escalate"), "roles", "rbac.authorization.k8s.io", "bind or escalate roles beyond its own rights"),
    (
        ("bind", "escalate"),
        "clusterroles",
        "rbac.authorization.k8s.io",
        "bind or escalate cluster roles beyond its own rights",
    ),
    (("impersonate",), "users", "", "impersonate users"),
    (("impersonate",), "groups", "", "impersonate groups"),
    (("impersonate",), "serviceaccounts", "", "impersonate service accounts"),
    (("create",), "serviceaccounts/token", "", "mint tokens for any service account of the namespace"),
    (("get", "create"), "nodes/proxy", "", "reach the kubelet API of nodes (exec into any pod)"),
    (("update", "patch"), "certificatesigningrequests/approval", "certificates.k8s.io", "approve certificate requests"),
    (
        ("create", "update", "patch"),
        "mutatingwebhookconfigurations",
        "admissionregistration.k8s.io",
        "install admission webhooks that rewrite every object",
    ),
)


def _wildcards(role: KubeObject, rule: PolicyRule) -> Iterator[Finding]:
    for field_name, values in (("apiGroups", rule.api_groups), ("resources", rule.resources), ("verbs", rule.verbs)):
        if "*" in values:
            yield role.finding(
                rule.item_path(field_name, "*"),
                f"{role.display} grants `*` in {field_name}: it covers every current and future "
                f"{field_name[:-1].lower()}",
                hint=f"list the {field_name} the subject needs, e.g. `{field_name}: {_example(field_name)}`",
                rule="SEC016",
            )


def _example(field_name: str) -> str:
    return {"apiGroups": '["apps"]', "resources": '["deployments"]', "verbs": '["get", "list", "watch"]'}[field_name]


def _secrets(role: KubeObject, rule: PolicyRule) -> Iterator[Finding]:
    if "secrets" not in rule.resources or rule.resource_names:
        return
    verbs = rule.grants_any(_READ, "secrets")
    if verbs:
        yield role.finding(
            rule.item_path("resources", "secrets"),
            f"{role.display} can {'/'.join(verbs)} every "
            f"Secret{' in the cluster' if role.kind == 'ClusterRole' else ' of its namespace'}",
            hint='limit the rule to the Secrets it needs with `resourceNames: ["my-secret"]` and the verb `get`',
            rule="SEC018",
        )


def _exec_grants(rule: PolicyRule) -> Iterator[tuple[str, str]]:
    """(subresource, item of ``resources`` that grants it) for each of exec and attach the rule allows."""
    for resource in ("pods/exec", "pods/attach"):
        named = resource in rule.resources or "pods/*" in rule.resources
        if named and rule.grants_any(("create", "get"), resource):
            yield resource, resource if resource in rule.resources else "pods/*"


def _exec(role: KubeObject, rule: PolicyRule) -> Iterator[Finding]:
    for resource, target in _exec_grants(rule):
        yield role.finding(
            rule.item_path("resources", target),
            f"{role.display} allows {resource}: a subject can run commands inside pods and read their secrets",
            hint=f"remove `{resource}` from the rule; give interactive access through a separate, audited role",
            rule="SEC019",
        )


def _escalation(role: KubeObject, rule: PolicyRule) -> Iterator[Finding]:
    for verbs, resource, group, why in _ESCALATIONS:
        if "*" in rule.resources or "*" in rule.verbs:
            return  # already a wildcard finding
        granted = rule.grants_any(verbs, resource, group)
        if granted:
            yield role.finding(
                rule.item_path("resources", resource) if resource in rule.resources else rule.path,
                f"{role.display} lets a subject {why} ({'/'.join(granted)} {resource})",
                hint="remove the grant, or move it to a role bound only to the controller that needs it",
                rule="SEC027",
            )


@object_check("SEC016", "SEC018", "SEC019", "SEC027", kinds=ROLE_KINDS)
def check_role(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Broad or dangerous grants in one Role or ClusterRole."""
    for rule in policy_rules(obj):
        yield from _wildcards(obj, rule)
        yield from _secrets(obj, rule)
        yield from _exec(obj, rule)
        yield from _escalation(obj, rule)


def _bound_role(binding: KubeObject, ctx: Context) -> KubeObject | None:
    """The Role or ClusterRole of the run that ``roleRef`` names, if the run holds it."""
    ref = binding.get(("roleRef",))
    if not isinstance(ref, dict):
        return None
    kind, name = str(ref.get("kind", "")), str(ref.get("name", ""))
    return ctx.find(kind, None if kind == "ClusterRole" else binding.namespace, name) if kind in ROLE_KINDS else None


@object_check("SEC017", kinds=BINDING_KINDS)
def check_admin_binding(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A binding to cluster-admin, or to a scanned role that grants everything."""
    ref = obj.get(("roleRef",))
    if not isinstance(ref, dict):
        return
    kind, name = str(ref.get("kind", "")), str(ref.get("name", ""))
    related: tuple[Related, ...] = ()
    if kind == "ClusterRole" and name == "cluster-admin":
        what = "the built-in cluster-admin ClusterRole"
    else:
        role = _bound_role(obj, ctx)
        if role is None or not is_full_admin(role):
            return
        what = f"{role.display}, which grants every verb on every resource"
        related = (role.related(("rules",), "the role grants `*` on everything", key=True),)
    scope = "the whole cluster" if obj.kind == "ClusterRoleBinding" else f"namespace {obj.namespace}"
    yield obj.finding(
        ("roleRef", "name"),
        f"{obj.display} gives its subjects {what}: full control of {scope}",
        hint="bind a role that lists only the resources and verbs the subject needs",
        related=related,
    )


@object_check("SEC019", kinds=BINDING_KINDS)
def check_exec_binding(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A binding that hands a scanned role's exec or attach grant to its subjects.

    The role is reported on its own too; the binding is where the grant reaches people, so a
    reviewer of the binding alone sees it (Polaris reports both sides as well).
    """
    role = _bound_role(obj, ctx)
    if role is None:
        return
    for rule in policy_rules(role):
        for resource, target in _exec_grants(rule):
            yield obj.finding(
                ("roleRef", "name"),
                f"{obj.display} gives its subjects {role.display}, which allows {resource}: they can run "
                "commands inside pods",
                hint="bind a role without exec/attach; give interactive access through a separate, audited binding",
                related=(role.related(rule.item_path("resources", target), f"the role grants {resource} here"),),
            )
            return
