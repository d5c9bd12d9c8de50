"""Network isolation and namespaces: pods no NetworkPolicy selects, objects in ``default``.

NetworkPolicy selection follows the API: a policy applies to pods of its own namespace only, a
missing or empty ``podSelector`` selects every pod there, and ``matchExpressions`` count
(``dralint.k8s.labels``). Host-network pods are skipped because policies do not apply to them.
Policies may live outside the linted files, so the finding says where dralint looked.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.labels import selector_matches
from dralint.k8s.namespaces import by_namespace
from dralint.k8s.objects import CLUSTER_SCOPED_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.lint.context import Context
from dralint.lint.registry import context_check, object_check


def policy_types(policy: KubeObject) -> set[str]:
    """The directions a policy isolates: ``policyTypes``, or by default Ingress plus Egress if it has egress rules."""
    declared = policy.get(("spec", "policyTypes"))
    if isinstance(declared, list) and declared:
        return {str(t) for t in declared}
    return {"Ingress"} | ({"Egress"} if policy.get(("spec", "egress")) is not None else set())


def isolating_policy(template: PodTemplate, ctx: Context) -> KubeObject | None:
    """The first NetworkPolicy that selects the template's pods and isolates their ingress."""
    labels = template.metadata.get("labels")
    labels = labels if isinstance(labels, dict) else {}
    for policy in by_namespace(ctx, "NetworkPolicy").get(template.owner.namespace, []):
        selector = policy.get(("spec", "podSelector"))
        if "Ingress" in policy_types(policy) and selector_matches({} if selector is None else selector, labels):
            return policy
    return None


@context_check("SEC021")
def check_network_policy(ctx: Context) -> Iterator[Finding]:
    """Pods whose ingress no NetworkPolicy in the run isolates."""
    for obj in ctx.scanned:
        for template in pod_templates(obj):
            if template.spec.get("hostNetwork") is True or isolating_policy(template, ctx) is not None:
                continue
            count = len(by_namespace(ctx, "NetworkPolicy").get(obj.namespace, []))
            seen = (
                f"none of the {count} NetworkPolicies of namespace {obj.namespace} selects its labels for Ingress"
                if count
                else f"the linted files hold no NetworkPolicy for namespace {obj.namespace}"
            )
            where = (
                template.metadata_path + ("labels",)
                if template.metadata_path and "labels" in template.metadata
                else template.path
            )
            yield obj.finding(
                where,
                f"{template.label} accepts traffic from any pod: {seen}",
                hint="add a default-deny policy (`kind: NetworkPolicy`, `spec: {podSelector: {}, policyTypes: "
                "[Ingress, Egress]}`) plus allow rules; "
                "if policies are applied from elsewhere, pass them with --context",
                key=True,
            )


@object_check("SEC020")
def check_default_namespace(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Objects written into the ``default`` namespace explicitly."""
    if obj.kind not in CLUSTER_SCOPED_KINDS and obj.get(("metadata", "namespace")) == "default":
        yield obj.finding(
            ("metadata", "namespace"),
            f"{obj.display} is placed in the default namespace, which every user and tool shares",
            hint="set `metadata: {namespace: <team-or-app>}`, or drop the field and choose the namespace at "
            "deploy time (kubectl -n, kustomize, Helm)",
        )
