"""Security rules end to end: inheritance traps, the device-driver exemption, RBAC, policies."""

from __future__ import annotations

import pytest
from conftest import rules_of
from podtext import fired, pod

from dralint.checks.security.secrets import secret_like
from dralint.diagnostics import Severity


def test_pod_level_hardening_satisfies_every_container(lint_manifest):
    text = pod(
        spec="  securityContext:\n    runAsNonRoot: true\n    runAsUser: 10001\n"
        "    seccompProfile: {type: RuntimeDefault}\n"
    )
    text += "  - name: second\n    image: registry.example.com/b:1.0\n"
    result = lint_manifest(text)
    assert not fired(result, "SEC003") and not fired(result, "SEC013")


def test_one_finding_per_template_names_all_unprotected_containers(lint_manifest):
    text = pod() + "  - name: second\n    image: registry.example.com/b:1.0\n"
    found = fired(lint_manifest(text), "SEC003")
    assert len(found) == 1
    assert "'app', 'second'" in found[0].message
    assert (found[0].span.line, found[0].span.column) == (7, 1)  # the spec key: where pod-level fields go


def test_container_override_to_root_is_reported_at_the_override(lint_manifest):
    text = pod(spec="  securityContext: {runAsNonRoot: true}\n", container="    securityContext:\n      runAsUser: 0\n")
    found = fired(lint_manifest(text), "SEC003")
    assert len(found) == 1 and found[0].span.line == 13 and "runAsUser is 0" in found[0].message


def test_pod_level_allow_privilege_escalation_is_called_out(lint_manifest):
    text = pod(spec="  securityContext: {allowPrivilegeEscalation: false}\n")
    found = fired(lint_manifest(text), "SEC002")
    assert len(found) == 1
    assert "not a pod-level field" in found[0].message
    assert found[0].related and found[0].related[0].span.line == 8


def test_unconfined_and_missing_seccomp_are_warnings(lint_manifest):
    unconfined = fired(
        lint_manifest(pod(spec="  securityContext:\n    seccompProfile: {type: Unconfined}\n")), "SEC013"
    )
    missing = fired(lint_manifest(pod()), "SEC013")
    assert [d.severity for d in unconfined] == [Severity.WARNING]
    assert [d.severity for d in missing] == [Severity.WARNING]


def test_privileged_container_is_not_also_reported_for_escalation_or_seccomp(lint_manifest):
    result = lint_manifest(pod(container="    securityContext: {privileged: true}\n"))
    assert fired(result, "SEC001")
    assert not fired(result, "SEC002") and not fired(result, "SEC012") and not fired(result, "SEC013")


def test_windows_pods_skip_linux_only_rules(lint_manifest):
    result = lint_manifest(pod(spec="  os: {name: windows}\n"))
    assert not {"SEC002", "SEC003", "SEC004", "SEC012", "SEC013"} & set(rules_of(result))


@pytest.mark.parametrize(
    "path,rule",
    [
        ("/var/run/docker.sock", "SEC009"),
        ("/run/containerd", "SEC009"),
        ("/var/run", "SEC009"),
        ("/run/k3s/containerd/containerd.sock", "SEC009"),
        ("/var/run/cdi", "SEC008"),
        ("/data", "SEC008"),
    ],
)
def test_runtime_socket_or_plain_host_path(lint_manifest, path, rule):
    text = pod(spec=f"  volumes:\n  - name: v\n    hostPath: {{path: {path}}}\n")
    rules = set(rules_of(lint_manifest(text)))
    assert rule in rules and ({"SEC008", "SEC009"} - {rule}).isdisjoint(rules)


DRIVER = """apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: plugin
  namespace: driver
{annotations}spec:
  selector: {{matchLabels: {{app: p}}}}
  template:
    metadata: {{labels: {{app: p}}}}
    spec:
      hostNetwork: true
      containers:
      - name: plugin
        image: registry.example.com/plugin:1.0
        securityContext: {{privileged: true}}
      volumes:
      - name: reg
        hostPath: {{path: {path}}}
"""


def test_dra_kubelet_plugin_is_exempted_with_an_info(lint_manifest):
    result = lint_manifest(DRIVER.format(annotations="", path="/var/lib/kubelet/plugins_registry"))
    rules = rules_of(result)
    assert "SEC001" not in rules and "SEC008" not in rules
    assert "SEC005" in rules  # host namespaces are not part of the exemption
    info = fired(result, "SEC030")
    assert len(info) == 1 and info[0].severity is Severity.INFO
    assert "SEC001" in info[0].message and "plugins_registry" in info[0].message and info[0].span.line == 18


def test_ordinary_daemonset_is_not_exempted(lint_manifest):
    result = lint_manifest(DRIVER.format(annotations="", path="/var/log"))
    assert "SEC001" in rules_of(result) and "SEC030" not in rules_of(result)


def test_annotation_opts_in_and_out(lint_manifest):
    opted_out = lint_manifest(
        DRIVER.format(
            annotations='  annotations: {dralint.io/device-driver: "false"}\n', path="/var/lib/kubelet/plugins"
        )
    )
    assert "SEC001" in rules_of(opted_out) and "SEC030" not in rules_of(opted_out)
    opted_in = lint_manifest(
        DRIVER.format(annotations='  annotations: {dralint.io/device-driver: "NIC firmware agent"}\n', path="/opt")
    )
    info = fired(opted_in, "SEC030")
    assert "SEC001" not in rules_of(opted_in) and info and "NIC firmware agent" in info[0].message


def test_ignoring_the_exemption_rule_reports_everything(lint_manifest):
    result = lint_manifest(
        DRIVER.format(annotations="", path="/var/lib/kubelet/plugins"), ignore=["device-driver-exemption"]
    )
    assert "SEC001" in rules_of(result) and "SEC008" in rules_of(result) and "SEC030" not in rules_of(result)


NETPOL = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: np
  namespace: {namespace}
spec:
{selector}---
"""


@pytest.mark.parametrize(
    "namespace,selector,covered",
    [
        ("team-a", "  podSelector: {}\n", True),
        ("team-a", "", True),  # a missing podSelector is the empty selector
        ("team-b", "  podSelector: {}\n", False),  # other namespace
        ("team-a", "  podSelector: {matchExpressions: [{key: tier, operator: In, values: [front]}]}\n", True),
        ("team-a", "  podSelector: {matchExpressions: [{key: tier, operator: NotIn, values: [front]}]}\n", False),
        ("team-a", "  podSelector: {matchLabels: {app: db}}\n", False),
        ("team-a", "  podSelector: {}\n  egress: []\n  policyTypes: [Egress]\n", False),  # egress-only: ingress open
    ],
)
def test_network_policy_selection(lint_manifest, namespace, selector, covered):
    if "policyTypes" not in selector:
        selector += "  policyTypes: [Ingress]\n"
    result = lint_manifest(NETPOL.format(namespace=namespace, selector=selector) + pod())
    assert bool(fired(result, "SEC021")) is not covered


def test_network_policy_skips_host_network_pods(lint_manifest):
    assert not fired(lint_manifest(pod(spec="  hostNetwork: true\n")), "SEC021")


ROLE = """apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: r, namespace: team-a}}
rules:
- apiGroups: {groups}
  resources: {resources}
  verbs: {verbs}
{extra}"""


@pytest.mark.parametrize(
    "groups,resources,verbs,extra,expected",
    [
        ('[""]', "[secrets]", "[get]", "", {"SEC018"}),
        ('[""]', "[secrets]", "[get]", "  resourceNames: [one]\n", set()),
        ('[""]', "[secrets]", "[create]", "", set()),
        ('[""]', "[pods/exec]", "[create]", "", {"SEC019"}),
        ('[""]', '["pods/*"]', "[get]", "", {"SEC019"}),
        ('["*"]', '["*"]', '["*"]', "", {"SEC016"}),
        ('[""]', "[pods]", "[create]", "", {"SEC027"}),
        ('["rbac.authorization.k8s.io"]', "[clusterroles]", "[bind]", "", {"SEC027"}),
        ('["apps"]', "[deployments]", "[get, list]", "", set()),
    ],
)
def test_role_grants(lint_manifest, groups, resources, verbs, extra, expected):
    result = lint_manifest(ROLE.format(groups=groups, resources=resources, verbs=verbs, extra=extra))
    assert {r for r in rules_of(result) if r in {"SEC016", "SEC018", "SEC019", "SEC027"}} == expected


def test_binding_to_a_scanned_full_admin_role_points_at_the_role(lint_manifest):
    text = (
        ROLE.format(groups='["*"]', resources='["*"]', verbs='["*"]', extra="")
        + """---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: b, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
subjects: [{kind: ServiceAccount, name: x, namespace: team-a}]
"""
    )
    found = fired(lint_manifest(text), "SEC017")
    assert len(found) == 1 and found[0].related[0].span.line == 4


@pytest.mark.parametrize(
    "name,expected",
    [
        ("DB_PASSWORD", True),
        ("apiKey", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("GITHUB_TOKEN", True),
        ("TOKEN_PATH", False),
        ("PASSWORD_FILE", False),
        ("SECRET_NAME", False),
        ("KEYBOARD", False),
        ("PWD", False),
    ],
)
def test_secret_like_names(name, expected):
    assert secret_like(name) is expected


def test_private_key_in_env_is_an_error(lint_manifest):
    text = pod(container='    env:\n    - name: CERT\n      value: "-----BEGIN RSA PRIVATE KEY-----\\nabc"\n')
    assert [d.severity for d in fired(lint_manifest(text), "SEC015")] == [Severity.ERROR]


def test_service_account_bound_by_a_role_keeps_its_token(lint_manifest):
    binding = """apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: ctl, namespace: team-a}]
---
"""
    assert not fired(lint_manifest(binding + pod(spec="  serviceAccountName: ctl\n")), "SEC014")
    assert fired(lint_manifest(pod(spec="  serviceAccountName: ctl\n")), "SEC014")


def test_a_binding_subject_with_a_mapping_namespace_binds_nothing(lint_manifest):
    # `namespace: {a: 1}` used to go into a set of (namespace, name): TypeError, unhashable dict.
    binding = """apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: ctl, namespace: {a: 1}}]
---
"""
    result = lint_manifest(binding + pod(spec="  serviceAccountName: ctl\n"))
    assert not fired(result, "INT001")
    assert fired(result, "SEC014")


def test_service_account_that_disables_automount_covers_the_pod(lint_manifest):
    sa = (
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: ctl, namespace: team-a}\n"
        "automountServiceAccountToken: false\n---\n"
    )
    result = lint_manifest(sa + pod(spec="  serviceAccountName: ctl\n"))
    assert not fired(result, "SEC014")


def test_low_ids_are_judged_after_inheritance(lint_manifest):
    inherited = [
        d for d in lint_manifest(pod(spec="  securityContext: {runAsUser: 1000}\n")).diagnostics if d.rule == "SEC028"
    ]
    assert len(inherited) == 1 and inherited[0].span.line == 8
    overridden = pod(
        spec="  securityContext: {runAsUser: 1000}\n", container="    securityContext: {runAsUser: 20000}\n"
    )
    assert not fired(lint_manifest(overridden), "SEC028")
    assert not fired(
        lint_manifest(pod(spec="  securityContext: {runAsUser: 0}\n")), "SEC028"
    )  # root: SEC003's business


def test_selecting_rules_without_the_exemption_never_waives_silently(lint_manifest):
    text = DRIVER.format(annotations="", path="/var/lib/kubelet/plugins")
    assert rules_of(lint_manifest(text, select=["SEC001"])) == ["SEC001"]
    assert sorted(rules_of(lint_manifest(text, select=["SEC001", "SEC030"]))) == ["SEC030"]


def test_strict_raises_advice_that_recommended_keeps_as_info(lint_manifest):
    recommended = fired(lint_manifest(pod(), profile="recommended"), "SEC014")
    strict = fired(lint_manifest(pod(), profile="strict"), "SEC014")
    assert [d.severity for d in recommended] == [Severity.INFO] and [d.severity for d in strict] == [Severity.WARNING]
