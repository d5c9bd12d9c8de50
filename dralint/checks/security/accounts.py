"""Service-account tokens in pods: mounted where the API is never used, and the default account.

A pod whose service account has RBAC bindings evidently talks to the API, so it is not asked to
drop its token; that keeps controllers and DRA drivers (which must watch ResourceClaims and
publish ResourceSlices) free of a finding they cannot act on.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.k8s.rbac import BINDING_KINDS
from dralint.lint.context import Context
from dralint.lint.exemptions import enabled_rule_ids
from dralint.lint.registry import object_check


def service_account_name(template: PodTemplate) -> str:
    """The account the pod runs as: serviceAccountName, the deprecated serviceAccount, or default."""
    for field_name in ("serviceAccountName", "serviceAccount"):
        value = template.spec.get(field_name)
        if isinstance(value, str) and value:
            return value
    return "default"


def bound_accounts(ctx: Context) -> set[tuple[str | None, str]]:
    """(namespace, name) of every ServiceAccount that some binding in the run grants a role."""

    def build() -> set[tuple[str | None, str]]:
        out: set[tuple[str | None, str]] = set()
        for kind in BINDING_KINDS:
            for binding in ctx.by_kind(kind):
                subjects = binding.get(("subjects",))
                for subject in subjects if isinstance(subjects, list) else []:
                    if not isinstance(subject, dict) or subject.get("kind") != "ServiceAccount":
                        continue
                    namespace = subject.get("namespace") or binding.namespace
                    if namespace is None or isinstance(namespace, str):  # a mapping there binds no account
                        out.add((namespace, str(subject.get("name"))))
        return out

    return ctx.memo((__name__, "bound"), build)


def _token_disabled(template: PodTemplate, ctx: Context, account: str) -> bool:
    setting = template.spec.get("automountServiceAccountToken")
    if setting is not None:
        return setting is False
    sa = ctx.find("ServiceAccount", template.owner.namespace, account)
    return sa is not None and sa.get(("automountServiceAccountToken",)) is False


@object_check("SEC014", "SEC022", kinds=POD_TEMPLATE_KINDS)
def check_service_account(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Token automount where nothing shows the pod uses the API; pods on the default account."""
    for template in pod_templates(obj):
        account = service_account_name(template)
        disabled = _token_disabled(template, ctx, account)
        explicit = template.spec.get("automountServiceAccountToken") is True
        if (
            (explicit or template.spec.get("automountServiceAccountToken") is None)
            and not disabled
            and (obj.namespace, account) not in bound_accounts(ctx)
        ):
            how = "sets automountServiceAccountToken: true" if explicit else "mounts a token"
            yield obj.finding(
                template.path + ("automountServiceAccountToken",) if explicit else template.path,
                f"{template.label} {how} for service account '{account}', and no RoleBinding or "
                "ClusterRoleBinding in the linted files gives that account any role",
                hint="if the pod does not call the Kubernetes API, set `automountServiceAccountToken: false` in "
                "the pod spec (or on the ServiceAccount)",
                rule="SEC014",
                key=True,
            )
        if account == "default" and not disabled and "SEC022" in enabled_rule_ids(ctx):
            where = template.path + ("serviceAccountName",) if "serviceAccountName" in template.spec else template.path
            yield obj.finding(
                where,
                f"{template.label} runs as the namespace's default service account, shared with every other "
                "pod that names none",
                hint="create a ServiceAccount for this workload and set `serviceAccountName: <name>` in the pod spec",
                rule="SEC022",
                key=True,
            )
