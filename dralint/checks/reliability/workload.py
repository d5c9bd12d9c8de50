"""Images, probes, replicas and spreading of long-running workloads.

Probes and replica counts only make sense for pods that serve until stopped: Jobs, CronJobs,
batch CRDs (JobSet, MPIJob, ...), Argo workflows and bare Pods with ``restartPolicy: Never``
are skipped (``dralint.k8s.workloads``), and so are KubeRay kinds, whose operator injects its own
probes. A readiness probe is asked for only where traffic can arrive: a container that
declares ports, or pods a Service of the run selects.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.diagnostics import Finding
from dralint.k8s.autoscaling import autoscaler_of
from dralint.k8s.images import image_tag
from dralint.k8s.labels import map_selector_matches
from dralint.k8s.namespaces import by_namespace
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.k8s.workloads import OPERATOR_PROBED_KINDS, running_containers, runs_to_completion
from dralint.lint.context import Context
from dralint.lint.exemptions import enabled_rule_ids
from dralint.lint.registry import object_check
from dralint.yaml.plain import as_dict, as_list

REPLICATED_KINDS = frozenset({"Deployment", "StatefulSet", "Rollout"})


@object_check("REL005", kinds=POD_TEMPLATE_KINDS)
def check_image_tag(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Images without a tag or with ``latest``, which change under a running workload."""
    for template in pod_templates(obj):
        for path, container in template.containers():
            image = container.get("image")
            if not isinstance(image, str) or not image.strip():
                continue
            tag = image_tag(image.strip())
            if tag is None or tag == "latest":
                what = "has no tag, so it means :latest" if tag is None else "uses the :latest tag"
                yield obj.finding(
                    path + ("image",),
                    f"{template.label}: image {image} {what}; nodes may run different versions and rollbacks "
                    "cannot return to the old one",
                    hint="pin a version tag or a digest, e.g. `image: "
                    f"{image.split('@')[0].rsplit(':', 1)[0] if tag else image}:1.2.3` or "
                    "`...@sha256:<digest>`",
                )


def serving_services(ctx: Context, template: PodTemplate) -> list[KubeObject]:
    """Services of the run in the template's namespace whose selector picks its pods."""
    labels = template.metadata.get("labels")
    labels = labels if isinstance(labels, dict) else {}
    services = by_namespace(ctx, "Service").get(template.owner.namespace, [])
    return [svc for svc in services if map_selector_matches(svc.get(("spec", "selector")), labels)]


def _anchor(path: tuple, container: dict[str, Any]) -> tuple:
    return path + ("name",) if "name" in container else path


def _probes_apply(template: PodTemplate) -> bool:
    return not runs_to_completion(template) and template.owner.kind not in OPERATOR_PROBED_KINDS


@object_check("REL006", "REL007", kinds=POD_TEMPLATE_KINDS)
def check_probes(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Long-running containers without liveness probes, serving ones without readiness probes."""
    for template in pod_templates(obj):
        if not _probes_apply(template):
            continue
        selected = None
        for path, container in running_containers(template):
            name = container.get("name", path[-1])
            if "livenessProbe" not in container:
                yield obj.finding(
                    _anchor(path, container),
                    f"{template.label}: container '{name}' has no livenessProbe, so a hung process is never restarted",
                    hint="add a cheap local check, e.g. `livenessProbe: {httpGet: {path: /healthz, port: 8080}, "
                    "periodSeconds: 10}`",
                    rule="REL006",
                    key=True,
                )
            if "readinessProbe" in container:
                continue
            if selected is None:
                selected = serving_services(ctx, template)
            if container.get("ports") or selected:
                why = f"Service {selected[0].name} sends it traffic" if selected else "it declares ports"
                yield obj.finding(
                    _anchor(path, container),
                    f"{template.label}: container '{name}' has no readinessProbe although {why}; it gets "
                    "traffic before it is ready",
                    hint="add `readinessProbe: {httpGet: {path: /ready, port: 8080}, periodSeconds: 5}` that does "
                    "not depend on downstream services",
                    rule="REL007",
                    key=True,
                    related=(selected[0].related(("spec", "selector"), "this Service selects the pods", key=True),)
                    if selected
                    else (),
                )


def _replicas(obj: KubeObject) -> int:
    value = obj.get(("spec", "replicas"))
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


@object_check("REL008", "REL012", kinds=REPLICATED_KINDS)
def check_replicas(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Single-replica Deployments/StatefulSets, and replicas that may all share one node."""
    if obj.kind == "Rollout" and obj.group != "argoproj.io":
        return
    replicas = _replicas(obj)
    if replicas == 1 and autoscaler_of(ctx, obj) is None:
        where = ("spec", "replicas") if obj.get(("spec", "replicas")) is not None else ("spec",)
        yield obj.finding(
            where,
            f"{obj.display} runs a single replica: every rollout, eviction or node failure takes it down",
            hint="set `spec: {replicas: 2}` (or more), or let a HorizontalPodAutoscaler with `minReplicas: 2` "
            "manage it",
            rule="REL008",
            key=where == ("spec",),
        )
    templates = pod_templates(obj)
    spec = templates[0].spec if templates else {}
    if (
        replicas >= 2
        and "REL012" in enabled_rule_ids(ctx)
        and "podAntiAffinity" not in as_dict(spec.get("affinity"))
        and not spec.get("topologySpreadConstraints")
    ):
        yield obj.finding(
            templates[0].path if templates else ("spec",),
            f"{obj.display} has {replicas} replicas and nothing keeps them off the same node",
            hint="add `topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, "
            "whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: <app>}}}]` to the pod spec",
            rule="REL012",
            key=True,
        )


@object_check("REL011", kinds={"HorizontalPodAutoscaler"})
def check_hpa_minimum(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Autoscalers that may scale below ``hpa-min-replicas`` (2 unless configured)."""
    floor = ctx.options.hpa_min_replicas
    minimum = obj.get(("spec", "minReplicas"))
    if minimum is None or (isinstance(minimum, int) and not isinstance(minimum, bool) and minimum < floor):
        where = ("spec", "minReplicas") if minimum is not None else ("spec",)
        shown = minimum if minimum is not None else 1
        yield obj.finding(
            where,
            f"{obj.display} may scale down to {shown} replica{'s' if shown > 1 else ''} (minReplicas "
            f"{'is ' + str(minimum) if minimum is not None else 'defaults to 1'})"
            + (f"; the configured minimum is {floor}" if floor != 2 else ""),
            hint=f"set `spec: {{minReplicas: {floor}}}`",
            key=minimum is None,
        )


@object_check("REL022", kinds={"HorizontalPodAutoscaler"})
def check_hpa_range(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Autoscalers whose maxReplicas leaves no room above minReplicas, so they never scale."""
    minimum = obj.get(("spec", "minReplicas"), 1)
    maximum = obj.get(("spec", "maxReplicas"))
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (minimum, maximum)) or maximum != minimum:
        return
    yield obj.finding(
        ("spec", "maxReplicas"),
        f"{obj.display} has maxReplicas {maximum} and minReplicas {minimum}: it can never scale up, so it "
        "only pins the replica count",
        hint=f"raise maxReplicas above {minimum}, or drop the autoscaler and set the workload's replicas",
        rule="REL022",
    )


@object_check("REL010", "REL013", kinds=POD_TEMPLATE_KINDS)
def check_pod_spec_hygiene(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Duplicate env names (the last one silently wins) and the deprecated serviceAccount field."""
    for template in pod_templates(obj):
        if "serviceAccount" in template.spec and "serviceAccountName" not in template.spec:
            yield obj.finding(
                template.path + ("serviceAccount",),
                f"{template.label} uses the deprecated field serviceAccount",
                hint=f"rename it: `serviceAccountName: {template.spec.get('serviceAccount')}`",
                rule="REL013",
                key=True,
            )
        for path, container in template.containers():
            env = container.get("env")
            first: dict[str, int] = {}
            for index, var in enumerate(env if isinstance(env, list) else []):
                name = var.get("name") if isinstance(var, dict) else None
                if not isinstance(name, str):
                    continue
                if name in first:
                    yield obj.finding(
                        path + ("env", index, "name"),
                        f"{template.label}: container '{container.get('name', path[-1])}' sets env var "
                        f"{name} twice; only the last value takes effect",
                        hint="keep one entry",
                        rule="REL010",
                        related=(obj.related(path + ("env", first[name], "name"), "first definition"),),
                    )
                else:
                    first[name] = index


#: Pull policies that reuse an image already on the node.
_CACHED_PULL = frozenset({"IfNotPresent", "Never"})


@object_check("REL016", kinds=POD_TEMPLATE_KINDS)
def check_pull_policy(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A mutable image (``:latest`` or no tag) that the node is told not to pull again.

    The API server defaults such images to ``Always``; an explicit ``IfNotPresent`` or
    ``Never`` overrides that, so nodes keep whichever build they pulled first. Pinned images
    are not reported: pulling them again cannot change what runs (Polaris asks for ``Always``
    everywhere; dralint follows the server's default).
    """
    for template in pod_templates(obj):
        for path, container in template.containers():
            image, policy = container.get("image"), container.get("imagePullPolicy")
            if (
                not isinstance(image, str)
                or not image.strip()
                or not isinstance(policy, str)
                or policy not in _CACHED_PULL
            ):
                continue
            tag = image_tag(image.strip())
            if tag is None or tag == "latest":
                yield obj.finding(
                    path + ("imagePullPolicy",),
                    f"{template.label}: image {image} can change, but imagePullPolicy {policy} keeps "
                    "whichever build a node pulled first, "
                    "so nodes run different code",
                    hint="pin the image to a version tag or digest, or drop imagePullPolicy (it then defaults to "
                    "Always)",
                    rule="REL016",
                )


@object_check("REL021", kinds=POD_TEMPLATE_KINDS)
def check_identical_probes(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Liveness probes that are copies of the readiness probe, thresholds included.

    A readiness failure (a slow dependency, a full queue) should only take the pod out of its
    Services; an identical liveness probe fails at the same moment and restarts every replica,
    turning a brownout into an outage. A liveness probe with the same check but more patient
    thresholds is fine and not reported.
    """
    for template in pod_templates(obj):
        for path, container in running_containers(template):
            liveness, readiness = container.get("livenessProbe"), container.get("readinessProbe")
            if isinstance(liveness, dict) and liveness and liveness == readiness:
                yield obj.finding(
                    path + ("livenessProbe",),
                    f"{template.label}: container '{container.get('name', path[-1])}' has a livenessProbe "
                    "identical to its readinessProbe: "
                    "when it is not ready it is also restarted, on every replica at once",
                    hint="give the liveness probe a cheaper local check, or at least a higher failureThreshold "
                    "than the readiness probe",
                    rule="REL021",
                    key=True,
                    related=(obj.related(path + ("readinessProbe",), "the readiness probe", key=True),),
                )


@object_check("REL029", kinds=POD_TEMPLATE_KINDS)
def check_spread_selector(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Spread constraints without a labelSelector: they count no pods, so they spread nothing.

    The scheduler turns a missing selector into one that matches nothing, so every domain holds
    zero matching pods and the skew is always zero.
    """
    for template in pod_templates(obj):
        for i, constraint in enumerate(as_list(template.spec.get("topologySpreadConstraints"))):
            if isinstance(constraint, dict) and constraint.get("labelSelector") is None:
                yield obj.finding(
                    template.path + ("topologySpreadConstraints", i),
                    f"{template.label}: topology spread constraint {i} has no labelSelector, so it counts no "
                    "pods and spreads nothing",
                    hint="add `labelSelector: {matchLabels: {app: <app>}}` with the pod's own labels",
                    key=True,
                )
