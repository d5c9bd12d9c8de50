"""Label selectors -> pods: Services, PodDisruptionBudgets and NetworkPolicies that select nothing.

A selector that matches no pod template of the run is not proof of a mistake: the pods may be
made by a workload in another repository or by an operator. So the answer follows the
reference machinery (``dralint.lint.refs``): pods found, or not in scope (REF012, info), or a
mistake the run shows (the same labels on pods of another namespace, or a label value one
typo away) or a run known to hold every workload (``--closed-world Pod``), which the
selector's own rule reports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dralint.diagnostics import Finding, Related
from dralint.k8s.labels import label_text
from dralint.k8s.objects import KubeObject, PodTemplate, pod_templates
from dralint.k8s.selection import (
    controller_label,
    equality_selector,
    label_selector,
    namespace_templates,
    selected_templates,
    template_labels,
)
from dralint.lint.context import Context
from dralint.lint.refs import looks_alike, looks_like_typo
from dralint.lint.registry import object_check
from dralint.yaml.loader import DataPath

NOT_IN_SCOPE = "REF012"
#: ``--closed-world Pod`` says the run holds every workload, so pods no template makes do not exist.
POD_WORLD = "Pod"

Predicate = Callable[[Mapping[str, Any]], bool]


def _wanted(selector: Any) -> dict[str, str]:
    """The equality part of a selector (a Service map, or a LabelSelector's matchLabels)."""
    if not isinstance(selector, dict):
        return {}
    equalities = (
        selector.get("matchLabels") if "matchLabels" in selector or "matchExpressions" in selector else selector
    )
    return {str(k): label_text(v) for k, v in equalities.items()} if isinstance(equalities, dict) else {}


def _near_miss(wanted: dict[str, str], templates: list[PodTemplate]) -> tuple[PodTemplate, str, str] | None:
    """A template whose labels match all but one wanted pair, that one a typo: (template, key, its value)."""
    for template in templates:
        labels = {str(k): label_text(v) for k, v in template_labels(template).items()}
        differing = [k for k, v in wanted.items() if not controller_label(k) and labels.get(k) != v]
        if len(differing) != 1:
            continue
        key = differing[0]
        if key in labels and looks_alike(wanted[key], labels[key]):
            return template, key, labels[key]
        typo_key = next(
            (k for k in labels if k not in wanted and looks_like_typo(key, k) and labels[k] == wanted[key]), None
        )
        if typo_key is not None:
            return template, key, f"{typo_key}={labels[typo_key]}"
    return None


def _elsewhere(ctx: Context, obj: KubeObject, selects: Predicate) -> list[PodTemplate]:
    """Selected templates in other namespaces, when the selector's object pins its namespace."""
    if not isinstance(obj.get(("metadata", "namespace")), str):
        return []
    out = [
        t
        for other in ctx.objects
        if other.namespace not in (obj.namespace, None)
        for t in pod_templates(other)
        if selects(template_labels(t))
    ]
    return out[:3]


def unselected(
    ctx: Context, obj: KubeObject, path: DataPath, selector: Any, selects: Predicate, *, what: str, rule: str
) -> Finding | None:
    """The finding for a selector at ``path`` of ``obj`` that picks no pod template of the run."""
    if selected_templates(ctx, obj.namespace, selects):
        return None
    shown = ", ".join(f"{k}={v}" for k, v in _wanted(selector).items()) or "its selector"
    where = f"namespace {obj.namespace!r}" if obj.namespace else "its namespace"
    head = (
        f"{obj.display} {what} pods labelled {shown}, but no pod template of {where} among the run's objects has "
        "these labels"
    )
    near = _near_miss(_wanted(selector), namespace_templates(ctx, obj.namespace))
    others = _elsewhere(ctx, obj, selects)
    related: tuple[Related, ...] = ()
    if near is not None:
        template, key, theirs = near
        head += (
            f"; {template.label} has {key}={theirs}: did you mean that?"
            if "=" not in theirs
            else f"; {template.label} has {theirs}: did you mean that key?"
        )
        related = (_labels_at(template, "these are the pod template's labels"),)
        hint = f"correct the selector (or the template's labels) so that {key} matches"
    elif others:
        listed = ", ".join(sorted({t.owner.namespace or "" for t in others}))
        head += (
            f"; pods of {', '.join(t.label for t in others)} in namespace {listed} match, but selectors do not "
            "cross namespaces"
        )
        related = tuple(_labels_at(t, "matching pods in another namespace") for t in others)
        hint = f"move {obj.display} to the pods' namespace or the workload to {where}"
    elif ctx.is_closed(POD_WORLD):
        head += " (the run holds every workload: --closed-world Pod)"
        hint = "correct the selector or the pod template's labels"
    else:
        return obj.finding(
            path,
            f"{obj.display} {what} pods labelled {shown}; no pod template of {where} among the scanned files has them, "
            "so the selection could not be checked",
            hint="add the workload's file to the run (or --context); if the run holds every workload, pass "
            "--closed-world Pod",
            rule=NOT_IN_SCOPE,
            key=True,
        )
    return obj.finding(path, head, hint=hint, rule=rule, related=related, key=True)


def _labels_at(template: PodTemplate, message: str) -> Related:
    labels_path = (
        template.metadata_path + ("labels",) if template.metadata_path and template_labels(template) else template.path
    )
    return template.owner.related(labels_path, message, key=True)


@object_check("REF012", "REF013", kinds={"Service"})
def check_service_selector(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A Service with a selector sends traffic to the pods it selects; none means no endpoints.

    Services without a selector (backed by EndpointSlices written by hand) and ExternalName
    Services select nothing on purpose and are skipped.
    """
    selector = obj.get(("spec", "selector"))
    if not isinstance(selector, dict) or not selector or obj.get(("spec", "type")) == "ExternalName":
        return
    finding = unselected(
        ctx, obj, ("spec", "selector"), selector, equality_selector(selector), what="sends traffic to", rule="REF013"
    )
    if finding:
        yield finding


@object_check("REF012", "REF019", kinds={"PodDisruptionBudget"})
def check_budget_selector(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A budget that selects no pod protects nothing; ``{}`` (every pod) and no selector are skipped."""
    selector = obj.get(("spec", "selector"))
    if not isinstance(selector, dict) or not _wanted(selector) and not selector.get("matchExpressions"):
        return
    finding = unselected(
        ctx, obj, ("spec", "selector"), selector, label_selector(selector), what="protects", rule="REF019"
    )
    if finding:
        yield finding


def _peer_selectors(obj: KubeObject) -> Iterator[tuple[DataPath, dict]]:
    """``podSelector``s of ingress/egress peers that pick pods of the policy's own namespace."""
    for direction, side in (("ingress", "from"), ("egress", "to")):
        rules = obj.get(("spec", direction))
        for r_index, rule in enumerate(rules if isinstance(rules, list) else []):
            peers = rule.get(side) if isinstance(rule, dict) else None
            for p_index, peer in enumerate(peers if isinstance(peers, list) else []):
                if (
                    isinstance(peer, dict)
                    and "namespaceSelector" not in peer
                    and isinstance(peer.get("podSelector"), dict)
                ):
                    yield ("spec", direction, r_index, side, p_index, "podSelector"), peer["podSelector"]


@object_check("REF012", "REF020", kinds={"NetworkPolicy"})
def check_policy_selectors(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """The policy's ``podSelector`` and its same-namespace peers' ``podSelector``s select pods.

    An empty selector selects every pod of the namespace and is skipped; a peer with a
    ``namespaceSelector`` picks pods of other namespaces, which the run rarely holds.
    """
    targets: list[tuple[DataPath, Any, str]] = []
    own = obj.get(("spec", "podSelector"))
    if isinstance(own, dict) and own:
        targets.append((("spec", "podSelector"), own, "applies to"))
    targets += [(path, sel, "allows traffic with") for path, sel in _peer_selectors(obj) if sel]
    for path, selector, what in targets:
        finding = unselected(ctx, obj, path, selector, label_selector(selector), what=what, rule="REF020")
        if finding:
            yield finding
