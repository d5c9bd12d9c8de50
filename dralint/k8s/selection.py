"""Which pod templates of the run a label selector picks, and what the pods will carry.

Services, PodDisruptionBudgets and NetworkPolicies find their pods by labels, in their own
namespace. Peers compare those selectors with the template labels as written and so report a
Service that selects ``statefulset.kubernetes.io/pod-name`` as dangling, although the
StatefulSet controller adds that label to every pod. Labels that controllers add are therefore
not held against a selector here: a selector term on such a key is treated as satisfiable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dralint.k8s.labels import map_selector_matches, selector_matches
from dralint.k8s.objects import ObjectIndex, PodTemplate, pod_templates

#: Label keys (exact) and key prefixes that controllers and operators add to the pods they
#: create, so they never appear in a template but selectors legitimately use them.
CONTROLLER_LABELS = frozenset(
    {
        "pod-template-hash",
        "controller-revision-hash",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "job-name",
        "controller-uid",
        "pod-template-generation",
    }
)
CONTROLLER_LABEL_PREFIXES = (
    "batch.kubernetes.io/",
    "jobset.sigs.k8s.io/",
    "training.kubeflow.org/",
    "ray.io/",
    "leaderworkerset.sigs.k8s.io/",
    "workflows.argoproj.io/",
    "rollouts-pod-template-hash",
)
#: Objects every namespace holds without anyone writing them: (kind, name).
AUTO_CREATED = frozenset({("ServiceAccount", "default"), ("ConfigMap", "kube-root-ca.crt")})


def controller_label(key: str) -> bool:
    """Whether a controller, not the template's author, sets label ``key`` on pods."""
    return key in CONTROLLER_LABELS or key.startswith(CONTROLLER_LABEL_PREFIXES)


def template_labels(template: PodTemplate) -> dict[str, Any]:
    """The labels written on a pod template (empty when it has none)."""
    labels = template.metadata.get("labels")
    return labels if isinstance(labels, dict) else {}


def namespace_templates(ctx: ObjectIndex, namespace: str | None) -> list[PodTemplate]:
    """Every pod template of the run's objects in ``namespace`` (scanned, context, cluster)."""

    def build() -> dict[str | None, list[PodTemplate]]:
        out: dict[str | None, list[PodTemplate]] = {}
        for obj in ctx.objects:
            for template in pod_templates(obj):
                out.setdefault(obj.namespace, []).append(template)
        return out

    return ctx.memo((__name__, "templates"), build).get(namespace, [])


def selected_templates(
    ctx: ObjectIndex, namespace: str | None, selects: Callable[[Mapping[str, Any]], bool]
) -> list[PodTemplate]:
    """The templates of ``namespace`` whose labels ``selects`` accepts."""
    return [t for t in namespace_templates(ctx, namespace) if selects(template_labels(t))]


def equality_selector(selector: Any) -> Callable[[Mapping[str, Any]], bool]:
    """A Service-style ``{key: value}`` selector as a predicate; controller-set keys always hold."""
    return lambda labels: map_selector_matches(selector, labels, controller_label)


def label_selector(selector: Any) -> Callable[[Mapping[str, Any]], bool]:
    """A metav1.LabelSelector as a predicate; terms on controller-set keys always hold.

    ``None`` selects nothing and ``{}`` everything, as in the API.
    """
    return lambda labels: selector_matches(selector, labels, controller_label)
