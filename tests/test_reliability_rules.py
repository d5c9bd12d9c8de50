"""Reliability rules end to end: what counts as set, and which pods probes apply to."""

from __future__ import annotations

import pytest
from conftest import rules_of
from podtext import pod

from dralint.k8s.images import image_tag

SIZING = {"REL001", "REL002", "REL003", "REL004"}


def sizing(result) -> set[str]:
    return set(rules_of(result)) & SIZING


def test_limits_stand_in_for_missing_requests(lint_manifest):
    result = lint_manifest(pod(container="    resources:\n      limits: {cpu: 500m, memory: 256Mi}\n"))
    assert sizing(result) == set()


def test_requests_do_not_stand_in_for_limits(lint_manifest):
    result = lint_manifest(pod(container="    resources:\n      requests: {cpu: 500m, memory: 256Mi}\n"))
    assert sizing(result) == {"REL003", "REL004"}


def test_pod_level_resources_cover_containers(lint_manifest):
    result = lint_manifest(pod(spec="  resources:\n    requests: {cpu: '1', memory: 1Gi}\n    limits: {memory: 1Gi}\n"))
    assert sizing(result) == {"REL004"}


def test_limit_range_of_another_namespace_does_not_count(lint_manifest):
    limit_range = (
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: d, namespace: other}\nspec:\n  limits:\n"
        "  - {type: Container, default: {cpu: '1', memory: 1Gi}}\n---\n"
    )
    assert sizing(lint_manifest(limit_range + pod())) == SIZING


def test_plain_init_containers_are_not_sized_but_sidecars_are(lint_manifest):
    sized = "    resources:\n      limits: {cpu: 500m, memory: 256Mi}\n"
    init = pod(container=sized) + "  initContainers:\n  - name: setup\n    image: registry.example.com/setup:1.0\n"
    assert sizing(lint_manifest(init)) == set()
    sidecar = init + "    restartPolicy: Always\n"
    assert sizing(lint_manifest(sidecar)) == SIZING


@pytest.mark.parametrize(
    "image,tag",
    [
        ("nginx", None),
        ("nginx:1.27", "1.27"),
        ("localhost:5000/app", None),
        ("localhost:5000/app:2", "2"),
        ("registry.io/a/b@sha256:abc", "sha256:abc"),
        ("nginx:latest", "latest"),
    ],
)
def test_image_tag_parsing(image, tag):
    assert image_tag(image) == tag


JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: team-a}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: registry.example.com/c:1.0, ports: [{containerPort: 80}]}
"""


def test_probes_do_not_apply_to_batch_pods(lint_manifest):
    assert not {"REL006", "REL007"} & set(rules_of(lint_manifest(JOB)))
    assert not {"REL006", "REL007"} & set(rules_of(lint_manifest(pod(spec="  restartPolicy: Never\n"))))


def test_sidecar_needs_liveness_but_plain_init_container_does_not(lint_manifest):
    probed = "    livenessProbe: {tcpSocket: {port: 80}}\n"
    base = pod(container=probed) + "  initContainers:\n  - name: proxy\n    image: registry.example.com/proxy:1.0\n"
    assert "REL006" not in rules_of(lint_manifest(base))
    found = [d for d in lint_manifest(base + "    restartPolicy: Always\n").diagnostics if d.rule == "REL006"]
    assert len(found) == 1 and "'proxy'" in found[0].message


def test_readiness_only_where_traffic_arrives(lint_manifest):
    assert "REL007" not in rules_of(lint_manifest(pod()))
    service = (
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: team-a}\nspec:\n  selector: {app: web}\n"
        "  ports: [{port: 80}]\n---\n"
    )
    found = [d for d in lint_manifest(service + pod()).diagnostics if d.rule == "REL007"]
    assert len(found) == 1 and "Service web" in found[0].message and found[0].related
    selectorless = (
        "apiVersion: v1\nkind: Service\nmetadata: {name: ext, namespace: team-a}\nspec:\n  ports: [{port: 80}]\n---\n"
    )
    assert "REL007" not in rules_of(lint_manifest(selectorless + pod()))


DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: team-a}}
spec:
{replicas}  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - {{name: c, image: registry.example.com/c:1.0}}
"""


def test_single_replica_unless_autoscaled_or_scaled_to_zero(lint_manifest):
    assert "REL008" in rules_of(lint_manifest(DEPLOY.format(replicas="")))
    assert "REL008" not in rules_of(lint_manifest(DEPLOY.format(replicas="  replicas: 0\n")))
    hpa = (
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: team-a}\n"
        "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n"
        "  maxReplicas: 5\n---\n"
    )
    assert "REL008" not in rules_of(lint_manifest(hpa + DEPLOY.format(replicas="")))


def test_recommended_profile_leaves_out_strict_only_rules(lint_manifest):
    result = lint_manifest(DEPLOY.format(replicas="  replicas: 3\n"), profile="recommended")
    rules = set(rules_of(result))
    assert "REL004" not in rules and "REL012" not in rules and "REL001" in rules
    assert not {
        r for r in rules_of(lint_manifest(DEPLOY.format(replicas=""), profile="dra")) if r[:3] in ("SEC", "REL")
    }


PDB = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: b, namespace: team-a}}
spec:
{budget}  selector:
    matchExpressions: [{{key: app, operator: In, values: [web, api]}}]
---
"""


@pytest.mark.parametrize(
    "budget,replicas,blocked",
    [
        ("  maxUnavailable: 0\n", 3, True),
        ("  maxUnavailable: '0%'\n", 3, True),
        ("  minAvailable: '100%'\n", 3, True),
        ("  minAvailable: 3\n", 3, True),
        ("  minAvailable: 2\n", 3, False),
        ("  maxUnavailable: 1\n", 1, False),
    ],
)
def test_budgets_that_block_every_eviction(lint_manifest, budget, replicas, blocked):
    result = lint_manifest(PDB.format(budget=budget) + DEPLOY.format(replicas=f"  replicas: {replicas}\n"))
    assert ("REL009" in rules_of(result)) is blocked


def test_min_available_without_a_selected_workload_is_not_judged(lint_manifest):
    other = DEPLOY.format(replicas="  replicas: 1\n").replace("app: web", "app: db")
    assert "REL009" not in rules_of(lint_manifest(PDB.format(budget="  minAvailable: 1\n") + other))
