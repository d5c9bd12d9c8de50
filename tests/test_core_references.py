"""Core Kubernetes references: found, not in scope (REF012) or missing, never a false error."""

from __future__ import annotations

from podtext import fired

DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: shop}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - name: web
        image: registry.example/web:2.1
        ports: [{{name: http, containerPort: 8080}}]
---
"""


def deploy(replicas: int = 2) -> str:
    return DEPLOY.format(replicas=replicas)


def service(selector: str = "{app: web}", ports: str = "[{port: 80, targetPort: http}]", extra: str = "") -> str:
    return (
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec:\n"
        f"  selector: {selector}\n  ports: {ports}\n{extra}---\n"
    )


def pod(spec: str, container: str = "") -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: api, namespace: shop}\nspec:\n"
        + spec
        + "  containers:\n  - name: api\n    image: registry.example/api:1.4\n"
        + container
    )


def test_service_selecting_a_template_is_clean(lint_manifest):
    result = lint_manifest(deploy() + service())
    assert not fired(result, "REF012") and not fired(result, "REF013") and not fired(result, "REF014")


def test_service_without_pods_in_the_run_is_only_not_in_scope(lint_manifest):
    result = lint_manifest(service("{app: cache}"))
    assert [d.severity.value for d in fired(result, "REF012")] == ["info"]
    assert not fired(result, "REF013")


def test_service_selector_typo_is_a_warning_with_the_template_related(lint_manifest):
    result = lint_manifest(deploy() + service("{app: webb}"))
    (diag,) = fired(result, "REF013")
    assert "app=web" in diag.message and diag.span.line == deploy().count("\n") + 5
    assert diag.related and diag.related[0].span.line == 8


def test_closed_pod_world_makes_an_unselected_service_a_warning(lint_manifest):
    assert fired(lint_manifest(service("{app: cache}"), closed_world={"Pod"}), "REF013")


def test_labels_that_controllers_add_count_as_present(lint_manifest):
    result = lint_manifest(
        deploy() + service("{app: web, statefulset.kubernetes.io/pod-name: web-0}"), closed_world={"Pod"}
    )
    assert not fired(result, "REF013")


def test_services_without_selector_or_external_name_are_skipped(lint_manifest):
    text = (
        service("{}")
        + "apiVersion: v1\nkind: Service\nmetadata: {name: ext, namespace: shop}\nspec:\n  type: ExternalName\n"
        "  externalName: db.example.com\n  selector: {app: x}\n"
    )
    result = lint_manifest(text, closed_world={"Pod"})
    assert not fired(result, "REF013") and not fired(result, "REF012")


def test_selector_matching_pods_of_another_namespace_is_a_warning(lint_manifest):
    other = deploy().replace("namespace: shop", "namespace: store")
    (diag,) = fired(lint_manifest(other + service()), "REF013")
    assert "store" in diag.message


def test_named_target_port_missing_on_selected_pods_is_an_error(lint_manifest):
    (diag,) = fired(lint_manifest(deploy() + service(ports="[{port: 80, targetPort: web}]")), "REF014")
    assert diag.severity.value == "error" and "'http'" in diag.message


def test_numbered_target_port_is_a_warning_only_when_ports_are_declared(lint_manifest):
    (diag,) = fired(lint_manifest(deploy() + service(ports="[{port: 80}]")), "REF014")
    assert diag.severity.value == "warning"
    undeclared = deploy().replace("        ports: [{name: http, containerPort: 8080}]\n", "")
    assert not fired(lint_manifest(undeclared + service(ports="[{port: 80}]")), "REF014")


def test_pdb_and_network_policy_selectors(lint_manifest):
    pdb = (
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\nspec:\n"
        "  maxUnavailable: 1\n  selector: {matchLabels: {app: webb}}\n---\n"
    )
    policy = (
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: web, namespace: shop}\n"
        "spec:\n  podSelector: {}\n"
        "  ingress:\n  - from:\n    - podSelector: {matchLabels: {app: front}}\n    - namespaceSelector: {}\n"
        "      podSelector: {matchLabels: {app: x}}\n"
    )
    result = lint_manifest(deploy() + pdb + policy, closed_world={"Pod"})
    assert len(fired(result, "REF019")) == 1
    (peer,) = fired(result, "REF020")
    assert "app=front" in peer.message


def test_missing_service_account_needs_proof(lint_manifest):
    assert not fired(lint_manifest(pod("  serviceAccountName: runner\n")), "REF021")
    assert fired(lint_manifest(pod("  serviceAccountName: runner\n"), closed_world={"ServiceAccount"}), "REF021")
    assert not fired(lint_manifest(pod("  serviceAccountName: default\n"), closed_world={"ServiceAccount"}), "REF021")


def test_optional_and_auto_created_config_sources_are_skipped(lint_manifest):
    volumes = (
        "  volumes:\n  - name: a\n    configMap: {name: kube-root-ca.crt}\n"
        "  - name: b\n    secret: {secretName: tls, optional: true}\n"
    )
    result = lint_manifest(pod(volumes), closed_world={"ConfigMap", "Secret"})
    assert not fired(result, "REF022") and not fired(result, "REF012")


def test_projected_secret_missing_in_closed_world(lint_manifest):
    volumes = "  volumes:\n  - name: a\n    projected:\n      sources:\n      - secret: {name: creds}\n"
    (diag,) = fired(lint_manifest(pod(volumes), closed_world={"Secret"}), "REF022")
    assert diag.span.line == 9


def test_keys_are_checked_only_against_found_objects(lint_manifest):
    secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: shop}\nstringData: {password: x}\n---\n"
    env = (
        "    env:\n    - name: A\n      valueFrom: {secretKeyRef: {name: db, key: pasword}}\n"
        "    - name: B\n      valueFrom: {secretKeyRef: {name: db, key: user, optional: true}}\n"
        "    - name: C\n      valueFrom: {secretKeyRef: {name: other, key: user}}\n"
    )
    result = lint_manifest(secret + pod("", env))
    (diag,) = fired(result, "REF023")
    assert "'pasword'" in diag.message and "did you mean 'password'" in diag.hint
    token = secret.replace("stringData: {password: x}", "type: kubernetes.io/service-account-token")
    assert not fired(lint_manifest(token + pod("", env)), "REF023")


def test_pvc_typo_is_an_error(lint_manifest):
    pvc = (
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: model-cache, namespace: shop}\n"
        "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n---\n"
    )
    volumes = "  volumes:\n  - name: a\n    persistentVolumeClaim: {claimName: model-cahce}\n"
    assert fired(lint_manifest(pvc + pod(volumes)), "REF024")


def test_ingress_backend_service_port_and_class(lint_manifest):
    ingress = (
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: shop}\nspec:\n"
        "  ingressClassName: nginx\n"
        "  defaultBackend: {service: {name: web, port: {name: https}}}\n"
        "  rules:\n  - http:\n      paths:\n      - {path: /, pathType: Prefix, backend: {service: {name: "
        "api, port: {number: 80}}}}\n"
    )
    result = lint_manifest(service(ports="[{name: http, port: 80, targetPort: http}]") + ingress)
    (port,) = fired(result, "REF015")
    assert port.severity.value == "error" and "'https'" in port.message
    scoped = {
        d.message.split(" refers to ")[1].split(",")[0] for d in fired(result, "REF012") if " refers to " in d.message
    }
    assert scoped == {"Service 'api' in namespace 'shop'", "IngressClass 'nginx'"}
    closed = lint_manifest(
        service(ports="[{name: http, port: 80, targetPort: http}]") + ingress, closed_world={"Service", "IngressClass"}
    )
    assert len(fired(closed, "REF015")) == 2 and len(fired(closed, "REF016")) == 1


def test_ingress_port_against_a_service_with_mapping_ports(lint_manifest):
    """A Service whose port or port name is a mapping (a template gone wrong) is compared, not
    hashed: REF015 still decides, and no check fails with INT001."""
    ingress = (
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: shop}\nspec:\n"
        "  rules:\n  - http:\n      paths:\n      - {path: /, pathType: Prefix, backend: {service: {name: "
        "web, port: {number: 80}}}}\n"
        "      - {path: /a, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}\n"
    )
    result = lint_manifest(
        service(ports="[{name: {x: 1}, port: {y: 2}, targetPort: 8080}]") + ingress, closed_world={"Service"}
    )
    assert not fired(result, "INT001")
    assert sorted(d.span.line for d in fired(result, "REF015")) == [15, 16]


def test_hpa_target_and_pinned_replicas(lint_manifest):
    hpa = (
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\n"
        "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n"
        "  maxReplicas: 5\n"
    )
    result = lint_manifest(deploy() + hpa)
    (pinned,) = fired(result, "REF018")
    assert pinned.span.line == 5 and not fired(result, "REF017") and not fired(result, "REF012")
    assert [d.severity.value for d in fired(lint_manifest(hpa), "REF012")] == ["info"]


def test_pdb_min_available_against_hpa_min_replicas(lint_manifest):
    hpa = (
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\n"
        "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n"
        "  maxReplicas: 5\n---\n"
    )
    pdb = (
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\nspec:\n"
        "  minAvailable: 2\n  selector: {matchLabels: {app: web}}\n"
    )
    (diag,) = fired(lint_manifest(deploy(replicas=4) + hpa + pdb), "REL009")
    assert "scaled down to 2" in diag.message
    assert not fired(lint_manifest(deploy(replicas=4) + pdb), "REL009")


def test_statefulset_governing_service_must_be_headless(lint_manifest):
    sts = (
        deploy().replace("Deployment", "StatefulSet").replace("  replicas: 2\n", "  replicas: 2\n  serviceName: web\n")
    )
    (diag,) = fired(lint_manifest(sts + service()), "REF025")
    assert "not headless" in diag.message
    assert not fired(lint_manifest(sts + service(extra="  clusterIP: None\n")), "REF025")


def test_named_probe_ports_must_be_declared_numbers_need_not(lint_manifest):
    container = (
        "    ports: [{name: http, containerPort: 8080}]\n    livenessProbe: {httpGet: {path: /, port: htp}}\n"
        "    readinessProbe: {tcpSocket: {port: 9000}}\n    startupProbe: {httpGet: {path: /, port: http}}\n"
    )
    (diag,) = fired(lint_manifest(pod("", container)), "REF026")
    assert "livenessProbe" in diag.message and "did you mean 'http'" in diag.hint


def test_secrets_made_by_operators_are_found(lint_manifest):
    env = (
        "    envFrom:\n    - secretRef: {name: api-tls}\n    - secretRef: {name: db}\n    - secretRef: {name: sealed}\n"
    )
    makers = (
        "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: api, namespace: shop}\n"
        "spec: {secretName: api-tls, dnsNames: [a.example.com], issuerRef: {name: le}}\n---\n"
        "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: db, namespace: shop}\n"
        "spec: {secretStoreRef: {name: vault}}\n---\n"
        "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: sealed, namespace: shop}\n"
        "spec: {encryptedData: {}}\n---\n"
    )
    result = lint_manifest(makers + pod("", env), closed_world={"Secret"})
    assert not fired(result, "REF022") and not fired(result, "REF012")


def test_a_secret_or_config_map_of_the_same_name_elsewhere_is_no_proof(lint_manifest):
    other = "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: other}\nstringData: {password: x}\n---\n"
    result = lint_manifest(other + pod("", "    envFrom:\n    - secretRef: {name: db}\n"))
    assert not fired(result, "REF022") and len(fired(result, "REF012")) == 1
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: other}\ndata: {a: b}\n---\n"
    result = lint_manifest(config_map + pod("", "    envFrom:\n    - configMapRef: {name: settings}\n"))
    assert not fired(result, "REF022") and len(fired(result, "REF012")) == 1


def test_numbered_target_port_needs_every_selected_template_to_declare_ports(lint_manifest):
    bare = pod("").replace(
        "metadata: {name: api, namespace: shop}", "metadata: {name: api, namespace: shop, labels: {app: web}}"
    )
    assert not fired(lint_manifest(deploy() + service(ports="[{port: 80}]") + bare), "REF014")
