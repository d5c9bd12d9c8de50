"""Workload metadata: labels and annotations a team requires, and instance labels that disagree.

Required keys are configured (``required-labels``, ``required-annotations``); nothing is
required by default. The ``app.kubernetes.io/instance`` check compares a workload's own label
with its pod template's: Polaris compares the label with ``metadata.name`` instead, which every
Helm chart contradicts (the instance is the release name, shared by all of a release's
objects), so dralint reports only labels that disagree with each other.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.labels import label_text
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, pod_templates
from dralint.k8s.selection import template_labels
from dralint.lint.context import Context
from dralint.lint.registry import object_check

INSTANCE_LABEL = "app.kubernetes.io/instance"


@object_check("REL025", kinds=POD_TEMPLATE_KINDS)
def check_required_metadata(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Workloads (objects with pod templates) without a configured label or annotation."""
    options = ctx.options
    if not (options.required_labels or options.required_annotations) or not pod_templates(obj):
        return
    for field_name, keys, present in (
        ("labels", options.required_labels, obj.labels),
        ("annotations", options.required_annotations, obj.annotations),
    ):
        missing = [k for k in keys if not label_text(present.get(k, "")).strip()]
        if not missing:
            continue
        where = ("metadata", field_name) if isinstance(obj.get(("metadata", field_name)), dict) else ("metadata",)
        yield obj.finding(
            where,
            f"{obj.display} lacks the required {field_name[:-1]}{'s' if len(missing) > 1 else ''} {', '.join(missing)}",
            hint=f"add `{field_name}: {{{', '.join(f'{k}: <value>' for k in missing)}}}` under metadata",
            rule="REL025",
            key=True,
        )


@object_check("REL027", kinds=POD_TEMPLATE_KINDS)
def check_instance_label(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A workload whose pods carry another ``app.kubernetes.io/instance`` than the workload."""
    own = obj.labels.get(INSTANCE_LABEL)
    if own is None:
        return
    for template in pod_templates(obj):
        theirs = template_labels(template).get(INSTANCE_LABEL)
        if theirs is not None and label_text(theirs) != label_text(own) and template.metadata_path is not None:
            yield obj.finding(
                template.metadata_path + ("labels", INSTANCE_LABEL),
                f"{template.label}: its pods are labelled {INSTANCE_LABEL}={label_text(theirs)} but the "
                f"workload itself {label_text(own)}; "
                "tools that group a release's objects by this label split it in two",
                hint=f"use one value for both (`{INSTANCE_LABEL}: {label_text(own)}`)",
                rule="REL027",
                related=(obj.related(("metadata", "labels", INSTANCE_LABEL), "the workload's own label"),),
            )
