"""General checks that let a team drop kube-linter, kube-score and Polaris: ports, exposure,
secrets, batch hygiene, images, QoS, disruption, scheduling policy and metadata."""

from __future__ import annotations

import copy
import random

import yaml
from conftest import lint_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from podtext import fired, pod

from dralint.lint.catalog import load_catalog

SERVICE = (
    "apiVersion: v1\nkind: Service\nmetadata: {{name: web, namespace: team-a}}\nspec:\n"
    "{spec}  ports: [{{port: {port}, targetPort: 8080}}]\n"
)
INGRESS = (
    "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: web, namespace: team-a}}\nspec:\n"
    "{tls}  rules:\n"
    "  - {host}http:\n      paths:\n      - {{path: /, pathType: Prefix, backend: {{service: {{name: web, "
    "port: {{number: 80}}}}}}}}\n"
)
DEPLOY = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: team-a\n{meta}spec:\n"
    "  replicas: {replicas}\n"
    "  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {labels}}}\n    spec:\n"
    "      containers:\n"
    "      - {{name: web, image: 'registry.example/web:2.1'}}\n"
)


def deploy(replicas: int = 3, meta: str = "", labels: str = "{app: web}") -> str:
    return DEPLOY.format(replicas=replicas, meta=meta, labels=labels)


def test_ssh_and_privileged_container_ports(lint_manifest):
    result = lint_manifest(
        pod(container="    ports: [{containerPort: 22}, {containerPort: 443}, {containerPort: 8443}]\n")
    )
    assert [d.span.line for d in fired(result, "SEC040")] == [11]
    (low,) = fired(result, "SEC041")
    assert "443" in low.message and low.severity.value == "info"


def test_service_forwarding_ssh_and_exposed_types(lint_manifest):
    result = lint_manifest(SERVICE.format(spec="  type: LoadBalancer\n", port=22))
    assert len(fired(result, "SEC040")) == 1
    (exposed,) = fired(result, "SEC042")
    assert "load balancer" in exposed.message and exposed.span.line == 5
    assert not fired(
        lint_manifest(SERVICE.format(spec="  type: LoadBalancer\n", port=80), exposed_service_types=["NodePort"]),
        "SEC042",
    )
    assert not fired(lint_manifest(SERVICE.format(spec="", port=80)), "SEC042")


def test_ingress_tls_per_host_and_any_host(lint_manifest):
    plain = lint_manifest(INGRESS.format(tls="", host="host: shop.example.com\n    "))
    assert [d.severity.value for d in fired(plain, "SEC043")] == ["warning"]
    listed = lint_manifest(
        INGRESS.format(tls="  tls: [{hosts: [shop.example.com], secretName: t}]\n", host="host: shop.example.com\n    ")
    )
    assert not fired(listed, "SEC043")
    other = lint_manifest(
        INGRESS.format(tls="  tls: [{hosts: [blog.example.com], secretName: t}]\n", host="host: shop.example.com\n    ")
    )
    assert len(fired(other, "SEC043")) == 1
    no_host = lint_manifest(INGRESS.format(tls="  tls: [{secretName: default-cert}]\n", host=""))
    assert [d.severity.value for d in fired(no_host, "SEC043")] == ["info"]


def test_secrets_read_into_env_and_secret_looking_configmaps(lint_manifest):
    container = (
        "    env:\n    - name: DB_PASSWORD\n      valueFrom: {secretKeyRef: {name: db, key: password}}\n"
        "    envFrom:\n    - secretRef: {name: api}\n    - configMapRef: {name: settings}\n"
    )
    assert len(fired(lint_manifest(pod(container=container)), "SEC045")) == 2
    config_map = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: team-a}\ndata:\n"
        "  API_TOKEN: abc123xyz\n  TOKEN_PATH: /var/run/token\n"
        "  app.properties: |\n    db.password=s3cret\n  template.properties: |\n    db.password=${DB_PASSWORD}\n"
        "  tls.key: |\n    -----BEGIN RSA PRIVATE KEY-----\n    abc\n"
    )
    found = {(d.span.line, d.severity.value) for d in fired(lint_manifest(config_map), "SEC046")}
    assert found == {(5, "warning"), (7, "warning"), (11, "error")}


def test_explicit_token_automount_is_reported_at_the_field(lint_manifest):
    (diag,) = fired(lint_manifest(pod(spec="  automountServiceAccountToken: true\n")), "SEC014")
    assert diag.span.line == 8 and "sets automountServiceAccountToken: true" in diag.message
    assert not fired(lint_manifest(pod(spec="  automountServiceAccountToken: false\n")), "SEC014")


def test_job_ttl_and_cronjob_deadline(lint_manifest):
    job = (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: team-a}\nspec:\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      containers: [{name: c, image: 'r.example/c:1'}]\n"
    )
    assert len(fired(lint_manifest(job), "REL014")) == 1
    assert not fired(
        lint_manifest(job.replace("spec:\n  template", "spec:\n  ttlSecondsAfterFinished: 60\n  template")), "REL014"
    )
    cron = (
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c, namespace: team-a}\nspec:\n"
        "  schedule: '@hourly'\n  jobTemplate:\n    spec:\n      template:\n"
        "        spec:\n          restartPolicy: Never\n          containers: [{name: c, image: 'r.example/c:1'}]\n"
    )
    result = lint_manifest(cron)
    assert len(fired(result, "REL015")) == 1 and not fired(result, "REL014")


def test_pull_policy_follows_the_api_default(lint_manifest):
    assert fired(lint_manifest(pod(container="    imagePullPolicy: Never\n").replace("app:1.0", "app")), "REL016")
    assert not fired(lint_manifest(pod(container="    imagePullPolicy: IfNotPresent\n")), "REL016")
    assert not fired(lint_manifest(pod().replace("app:1.0", "app:latest")), "REL016")
    # a policy that is not a string is the schema's finding (found by the fuzz test below)
    odd = lint_manifest(pod(container="    imagePullPolicy: [Never]\n").replace("app:1.0", "app"))
    assert not fired(odd, "REL016") and not fired(odd, "INT001") and fired(odd, "API002")


def test_guaranteed_qos_compares_quantities_by_value(lint_manifest):
    equal = "    resources:\n      requests: {cpu: 1000m, memory: 1Gi}\n      limits: {cpu: '1', memory: 1024Mi}\n"
    assert not fired(lint_manifest(pod(container=equal)), "REL017")
    burst = "    resources:\n      requests: {cpu: 500m, memory: 1Gi}\n      limits: {cpu: '1', memory: 1Gi}\n"
    (diag,) = fired(lint_manifest(pod(container=burst)), "REL017")
    assert "cpu" in diag.message


def test_ephemeral_storage_counts_limit_range_defaults(lint_manifest):
    assert len(fired(lint_manifest(pod()), "REL018")) == 1
    limit_range = (
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: d, namespace: team-a}\nspec:\n  limits:\n"
        "  - {type: Container, default: {ephemeral-storage: 2Gi}}\n---\n"
    )
    assert not fired(lint_manifest(limit_range + pod()), "REL018")


def test_priority_class_allow_list_is_opt_in(lint_manifest):
    assert not fired(lint_manifest(pod()), "REL019")
    result = lint_manifest(pod(), allowed_priority_classes=["production"])
    assert len(fired(result, "REL019")) == 1
    assert not fired(
        lint_manifest(pod(spec="  priorityClassName: production\n"), allowed_priority_classes=["production"]), "REL019"
    )


def test_node_affinity_skips_daemonsets_and_accepts_preferred_terms(lint_manifest):
    assert len(fired(lint_manifest(pod()), "REL020")) == 1
    preferred = (
        "  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n"
        "      - {weight: 1, preference: {matchExpressions: [{key: pool, operator: In, values: [a]}]}}\n"
    )
    assert not fired(lint_manifest(pod(spec=preferred)), "REL020")
    daemon = deploy().replace("Deployment", "DaemonSet").replace("  replicas: 3\n", "")
    assert not fired(lint_manifest(daemon), "REL020")


def test_identical_probes_only_when_thresholds_match_too(lint_manifest):
    same = (
        "    readinessProbe: {httpGet: {path: /h, port: 8080}}\n    livenessProbe: {httpGet: {path: /h, port: 8080}}\n"
    )
    assert len(fired(lint_manifest(pod(container=same)), "REL021")) == 1
    patient = same.replace(
        "livenessProbe: {httpGet: {path: /h, port: 8080}}",
        "livenessProbe: {httpGet: {path: /h, port: 8080}, failureThreshold: 10}",
    )
    assert not fired(lint_manifest(pod(container=patient)), "REL021")


def test_hpa_floor_is_configurable_and_min_equal_max_never_scales(lint_manifest):
    hpa = (
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: team-a}\n"
        "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n"
        "  maxReplicas: 2\n"
    )
    result = lint_manifest(hpa)
    assert not fired(result, "REL011") and len(fired(result, "REL022")) == 1
    (floor,) = fired(lint_manifest(hpa, hpa_min_replicas=3), "REL011")
    assert "configured minimum is 3" in floor.message


def test_pdb_eviction_policy_and_missing_budget(lint_manifest):
    pdb = (
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: team-a}\nspec:\n"
        "  maxUnavailable: 1\n  selector: {matchLabels: {app: web}}\n"
    )
    assert len(fired(lint_manifest(deploy() + "---\n" + pdb), "REL023")) == 1
    assert not fired(lint_manifest(deploy() + "---\n" + pdb), "REL024")
    assert len(fired(lint_manifest(deploy()), "REL024")) == 1
    assert not fired(lint_manifest(deploy(replicas=1)), "REL024")


def test_dns_ndots_is_opt_in_and_reads_dns_config(lint_manifest):
    assert not fired(lint_manifest(pod()), "REL026")
    (diag,) = fired(lint_manifest(pod(), max_dns_ndots=2), "REL026")
    assert "ndots 5" in diag.message
    tuned = pod(spec="  dnsConfig:\n    options: [{name: ndots, value: '2'}]\n")
    assert not fired(lint_manifest(tuned, max_dns_ndots=2), "REL026")
    host = pod(spec="  hostNetwork: true\n")
    assert not fired(lint_manifest(host, max_dns_ndots=2), "REL026")


def test_required_metadata_from_config_file(lint_manifest):
    result = lint_manifest(
        deploy(meta="  labels: {team: shop}\n"),
        config="required-labels: [team, owner]\nrequired-annotations: [contact]\n",
    )
    messages = sorted(d.message for d in fired(result, "REL025"))
    assert messages == [
        "Deployment team-a/web lacks the required annotation contact",
        "Deployment team-a/web lacks the required label owner",
    ]
    assert not fired(lint_manifest(deploy()), "REL025")


def test_instance_label_compares_workload_and_pods_not_the_name(lint_manifest):
    meta = "  labels: {app.kubernetes.io/instance: shop}\n"
    assert not fired(lint_manifest(deploy(meta=meta, labels="{app: web, app.kubernetes.io/instance: shop}")), "REL027")
    (diag,) = fired(lint_manifest(deploy(meta=meta, labels="{app: web, app.kubernetes.io/instance: blog}")), "REL027")
    assert "blog" in diag.message and diag.related


def test_pods_asking_for_devices_need_no_node_affinity(lint_manifest):
    gpu = pod(container="    resources:\n      limits: {nvidia.com/gpu: 1}\n")
    assert not fired(lint_manifest(gpu), "REL020")
    claim = pod(spec="  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: one-gpu}\n")
    assert not fired(lint_manifest(claim), "REL020")


NEW_RULES = (
    "REF012",
    "REF013",
    "REF014",
    "REF015",
    "REF016",
    "REF017",
    "REF018",
    "REF019",
    "REF020",
    "REF021",
    "REF022",
    "REF023",
    "REF024",
    "REF025",
    "REF026",
    "SEC040",
    "SEC041",
    "SEC042",
    "SEC043",
    "SEC045",
    "SEC046",
    "REL014",
    "REL015",
    "REL016",
    "REL017",
    "REL018",
    "REL019",
    "REL020",
    "REL021",
    "REL022",
    "REL023",
    "REL024",
    "REL025",
    "REL026",
    "REL027",
)
ODD_VALUES = [None, 0, -1, True, "x", "", [], {}, [1], {"a": 1}, "http", 22, "*", "*.a.b", 3.5]


def _example_documents() -> list[dict]:
    catalog = load_catalog()
    return [
        doc
        for rule in NEW_RULES
        for example in catalog[rule].bad + catalog[rule].good
        for doc in yaml.safe_load_all(example.manifest)
        if isinstance(doc, dict)
    ]


def _mutate(node: object, chance: random.Random) -> None:
    """Replace about one value in eight, anywhere in the tree, with a value of another shape."""
    items = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
    for key, value in items:
        if chance.random() < 0.12:
            node[key] = chance.choice(ODD_VALUES)  # type: ignore[index]
        else:
            _mutate(value, chance)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_odd_shapes_never_break_the_new_checks(tmp_path_factory, seed):
    chance = random.Random(seed)
    documents = _example_documents()
    sample = [copy.deepcopy(chance.choice(documents)) for _ in range(3)]
    for document in sample:
        _mutate(document, chance)
    result = lint_text(
        tmp_path_factory.mktemp("odd"),
        yaml.safe_dump_all(sample),
        allowed_priority_classes=["a"],
        required_labels=["team"],
        max_dns_ndots=2,
        closed_world={"Pod", "ConfigMap", "Secret", "Service", "ServiceAccount", "IngressClass", "Deployment"},
    )
    assert [d.message for d in result.diagnostics if d.rule == "INT001"] == []
