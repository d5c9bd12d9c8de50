"""Pods -> the ServiceAccount, ConfigMaps, Secrets (and their keys) and PVCs they need to start.

A missing ServiceAccount makes the API server reject the pod; a missing ConfigMap, Secret or
key leaves the container in ``CreateContainerConfigError``; a missing claim keeps the pod
Pending. All are resolved through ``dralint.lint.refs``: found, not in scope (REF012, info),
or missing when the run proves it (``--closed-world KIND``, the name in another namespace, a
near-identical name). References marked ``optional: true`` are skipped, as the kubelet does.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, pod_templates
from dralint.k8s.podrefs import PodReference, object_keys, pod_references
from dralint.k8s.selection import AUTO_CREATED
from dralint.lint.context import Context
from dralint.lint.refs import Resolution, looks_like_typo, reference_finding, resolve
from dralint.lint.registry import object_check

NOT_IN_SCOPE = "REF012"
#: The rule that reports a missing target, per kind.
MISSING_RULE = {
    "ServiceAccount": "REF021",
    "ConfigMap": "REF022",
    "Secret": "REF022",
    "PersistentVolumeClaim": "REF024",
}


@object_check("REF012", "REF021", "REF022", "REF023", "REF024", kinds=POD_TEMPLATE_KINDS)
def check_pod_dependencies(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Each named dependency of each pod template exists in the pod's namespace, with its keys."""
    for template in pod_templates(obj):
        for ref in pod_references(template):
            if ref.optional or (ref.kind, ref.name) in AUTO_CREATED:
                continue
            resolution = _weigh(resolve(ctx, ref.kind, obj.namespace, ref.name, referrer=obj))
            if ref.key is None:
                finding = reference_finding(
                    obj, ref.path, resolution, _field(ref), missing_rule=MISSING_RULE[ref.kind], scope_rule=NOT_IN_SCOPE
                )
            else:
                finding = _key_finding(obj, ref, resolution) if resolution.found else None
            if finding:
                yield finding


def _field(ref: PodReference) -> str:
    """How a message names the referring field: ``configMapKeyRef``, ``secretName``, ``claimName``."""
    last = ref.path[-1]
    return str(ref.path[-2]) if last == "name" and len(ref.path) > 1 else str(last)


#: Kinds often made per namespace outside manifest files (secret managers, ``kubectl create
#: secret``, kustomize's configMapGenerator), so a copy in another namespace proves nothing.
OUT_OF_BAND_KINDS = frozenset({"Secret", "ConfigMap"})


def _weigh(resolution: Resolution) -> Resolution:
    """Drop "same name in another namespace" as evidence for kinds made out of band."""
    if resolution.kind not in OUT_OF_BAND_KINDS or not any(e.reason == "other-namespace" for e in resolution.evidence):
        return resolution
    return resolution._replace(evidence=tuple(e for e in resolution.evidence if e.reason != "other-namespace"))


def _key_finding(obj: KubeObject, ref: PodReference, resolution: Resolution) -> Finding | None:
    """REF023 when the found ConfigMap or Secret lacks the key the pod reads."""
    target = resolution.target
    if target is None or ref.key is None or ref.key_path is None:
        return None
    keys = object_keys(target.data)
    if keys is None or ref.key in keys:
        return None
    near = [k for k in sorted(keys) if looks_like_typo(ref.key, k)]
    listed = ", ".join(repr(k) for k in sorted(keys)) or "none"
    hint = (
        f"did you mean {near[0]!r}?"
        if near
        else f"add the key to {target.display}, or mark the reference `optional: true`"
    )
    return obj.finding(
        ref.key_path,
        f"{obj.display} reads key {ref.key!r} of {target.display}, which does not have it (its keys: {listed}); "
        "the container cannot start",
        hint=hint,
        rule="REF023",
        related=(target.related(("metadata", "name"), f"{target.display} is defined here"),),
    )
