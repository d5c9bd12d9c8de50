"""Peer checks that had no dralint counterpart: binding-side RBAC, Deployment strategy, and more."""

from __future__ import annotations

from podtext import fired

_ROLE = """apiVersion: rbac.authorization.k8s.io/v1
kind: {kind}
metadata:
  name: debugger
  namespace: ml
rules:
- apiGroups: [""]
  resources: [{resources}]
  verbs: ["create"]
"""
_BINDING = """---
apiVersion: rbac.authorization.k8s.io/v1
kind: {kind}
metadata:
  name: debuggers
  namespace: ml
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: {role_kind}
  name: debugger
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
"""


def _rbac(role_kind: str, binding_kind: str, resources: str = '"pods/exec"') -> str:
    return _ROLE.format(kind=role_kind, resources=resources) + _BINDING.format(kind=binding_kind, role_kind=role_kind)


def test_binding_to_an_exec_role_is_reported_on_its_role_ref_with_the_grant_as_related(lint_manifest):
    found = [f for f in fired(lint_manifest(_rbac("Role", "RoleBinding")), "SEC019") if "RoleBinding" in f.message]
    assert len(found) == 1
    assert (found[0].span.line, found[0].span.column) == (19, 9)  # roleRef.name of the binding
    assert "pods/exec" in found[0].message
    assert [r.span.line for r in found[0].related] == [8]  # the "pods/exec" item of the role


def test_every_binding_shape_polaris_names_is_covered(lint_manifest):
    for role_kind, binding_kind in (
        ("ClusterRole", "ClusterRoleBinding"),
        ("ClusterRole", "RoleBinding"),
        ("Role", "RoleBinding"),
    ):
        found = fired(lint_manifest(_rbac(role_kind, binding_kind, '"pods/*"')), "SEC019")
        on_binding = [f for f in found if f.span.line > 9]
        assert len(found) == 3 and len(on_binding) == 1, (
            role_kind,
            binding_kind,
        )  # exec + attach on the role, one on the binding


def test_binding_to_a_harmless_or_unknown_role_is_clean(lint_manifest):
    assert not fired(lint_manifest(_rbac("Role", "RoleBinding", '"pods/log"')), "SEC019")
    assert not fired(lint_manifest(_BINDING.format(kind="RoleBinding", role_kind="Role")), "SEC019")


def test_role_binding_to_a_role_of_another_namespace_is_not_matched(lint_manifest):
    text = _rbac("Role", "RoleBinding").replace("namespace: ml\nroleRef", "namespace: other\nroleRef")
    assert [f.span.line for f in fired(lint_manifest(text), "SEC019")] == [8]


_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml
spec:
{strategy}  selector:
    matchLabels: {{app: trainer}}
  template:
    metadata:
      labels: {{app: trainer}}
    spec:
      containers:
      - name: trainer
        image: registry.example.com/trainer:2.0
"""


def test_recreate_strategy_is_reported_at_its_type_in_strict_only(lint_manifest):
    text = _DEPLOYMENT.format(strategy="  strategy:\n    type: Recreate\n")
    found = fired(lint_manifest(text, profile="strict"), "REL028")
    assert [(f.span.line, f.span.column) for f in found] == [(8, 11)]
    assert "Recreate" in found[0].message
    assert not fired(lint_manifest(text, profile="recommended"), "REL028")


def test_rolling_update_explicit_or_by_default_is_clean(lint_manifest):
    for strategy in ("", "  strategy:\n    type: RollingUpdate\n", "  strategy: {}\n"):
        assert not fired(lint_manifest(_DEPLOYMENT.format(strategy=strategy), profile="strict"), "REL028")


_SPREAD_POD = """apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
  labels: {{app: web}}
spec:
  topologySpreadConstraints:
{constraints}  containers:
  - name: web
    image: registry.example.com/web:1.4.2
"""


def _spread(lint_manifest, constraints: str, rule: str) -> list[tuple[int, int, str]]:
    found = fired(lint_manifest(_SPREAD_POD.format(constraints=constraints)), rule)
    return [(f.span.line, f.span.column, f.message) for f in found]


def test_spread_values_the_server_refuses_are_api_errors_at_the_value(lint_manifest):
    bad = (
        '  - maxSkew: 0\n    topologyKey: ""\n    whenUnsatisfiable: Sometimes\n    minDomains: 0\n'
        "    labelSelector: {matchLabels: {app: web}}\n"
    )
    assert [(line, col) for line, col, _ in _spread(lint_manifest, bad, "API009")] == [(9, 14), (12, 17)]
    assert [(line, col) for line, col, _ in _spread(lint_manifest, bad, "API003")] == [(10, 18)]
    assert [(line, col) for line, col, _ in _spread(lint_manifest, bad, "API004")] == [(11, 24)]


def test_min_domains_needs_do_not_schedule_and_pairs_may_not_repeat(lint_manifest):
    one = (
        "  - maxSkew: 1\n    topologyKey: zone\n    whenUnsatisfiable: ScheduleAnyway\n    minDomains: 2\n"
        "    labelSelector: {matchLabels: {app: web}}\n"
    )
    messages = [m for _, _, m in _spread(lint_manifest, one + one.replace("    minDomains: 2\n", ""), "API009")]
    assert len(messages) == 1 and "only use minDomains if whenUnsatisfiable=DoNotSchedule" in messages[0]
    twice = one.replace("    minDomains: 2\n", "")
    assert [line for line, _, _ in _spread(lint_manifest, twice + twice, "API010")] == [
        9
    ]  # the first use, as the server reports it


def test_valid_constraints_are_clean(lint_manifest):
    good = (
        "  - maxSkew: 1\n    topologyKey: zone\n    whenUnsatisfiable: DoNotSchedule\n    minDomains: 3\n"
        "    labelSelector: {matchLabels: {app: web}}\n"
    )
    result = lint_manifest(_SPREAD_POD.format(constraints=good + good.replace("zone", "kubernetes.io/hostname")))
    assert not [d for d in result.diagnostics if d.rule.startswith("API") or d.rule == "REL029"]


def test_constraint_without_selector_spreads_nothing(lint_manifest):
    no_selector = "  - maxSkew: 1\n    topologyKey: zone\n    whenUnsatisfiable: ScheduleAnyway\n"
    assert [(line, col) for line, col, _ in _spread(lint_manifest, no_selector, "REL029")] == [(9, 5)]


_PORTS_POD = """apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
spec:
  containers:
  - name: web
    image: registry.example.com/web:1.4.2
    ports:
{ports}"""


def _port_errors(lint_manifest, ports: str) -> list[tuple[str, int, int]]:
    result = lint_manifest(_PORTS_POD.format(ports=ports))
    return [(d.rule, d.span.line, d.span.column) for d in result.diagnostics if d.rule.startswith("API")]


def test_duplicate_and_malformed_port_names_are_refused_as_the_server_does(lint_manifest):
    ports = (
        "    - {name: http, containerPort: 8080}\n    - {name: http, containerPort: 8081}\n"
        "    - {name: metrics-endpoint-v2, containerPort: 9090}\n"
    )
    assert _port_errors(lint_manifest, ports) == [("API010", 12, 14), ("API007", 13, 14)]


def test_port_numbers_out_of_range_are_invalid(lint_manifest):
    ports = "    - {containerPort: 70000, hostPort: -1}\n"
    assert _port_errors(lint_manifest, ports) == [("API009", 11, 23), ("API009", 11, 40)]


def test_valid_ports_are_clean(lint_manifest):
    ports = "    - {name: http, containerPort: 8080}\n    - {name: metrics, containerPort: 9090, hostPort: 9090}\n"
    assert _port_errors(lint_manifest, ports) == []


def _storage_pod(requests: str, limits: str) -> str:
    return _PORTS_POD.replace(
        "    ports:\n{ports}", f"    resources:\n      requests: {{{requests}}}\n      limits: {{{limits}}}\n"
    )


def test_ephemeral_storage_request_below_limit_is_reported_at_the_request_in_strict_only(lint_manifest):
    text = _storage_pod("ephemeral-storage: 1Gi", "ephemeral-storage: 4Gi")
    found = fired(lint_manifest(text), "REL030")
    assert [(f.span.line, f.span.column) for f in found] == [(11, 37)]  # the request value
    assert "1Gi" in found[0].message and "4Gi" in found[0].message
    assert not fired(lint_manifest(text, profile="recommended"), "REL030")


def test_equal_by_value_or_request_left_to_default_is_clean(lint_manifest):
    assert not fired(lint_manifest(_storage_pod("ephemeral-storage: 1Gi", "ephemeral-storage: 1024Mi")), "REL030")
    assert not fired(lint_manifest(_storage_pod("cpu: 100m", "ephemeral-storage: 1Gi")), "REL030")


_MONITOR = """apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: gpu-metrics
  namespace: monitoring
spec:
  selector:
    matchLabels: {{app: dcgm-exporter}}
{namespaces}  endpoints:
  - port: metrics
---
apiVersion: v1
kind: Service
metadata:
  name: dcgm-exporter
  namespace: {service_namespace}
  labels: {{app: {label}}}
spec:
  selector: {{app: dcgm-exporter}}
  ports:
  - {{name: metrics, port: 9400}}
"""


def _monitor(
    lint_manifest,
    namespaces: str = "",
    service_namespace: str = "gpu-operator",
    label: str = "dcgm-exporter",
    **options,
) -> list[tuple[str, int]]:
    text = _MONITOR.format(namespaces=namespaces, service_namespace=service_namespace, label=label)
    return [
        (d.rule, d.span.line)
        for d in lint_manifest(text, **options).diagnostics
        if d.rule in ("REF012", "REF027") and d.message.startswith("ServiceMonitor")
    ]


def test_monitor_whose_services_sit_in_an_unwatched_namespace_is_reported_with_them_related(lint_manifest):
    found = fired(
        lint_manifest(_MONITOR.format(namespaces="", service_namespace="gpu-operator", label="dcgm-exporter")), "REF027"
    )
    assert [(f.span.line, f.span.column) for f in found] == [(7, 3)]
    assert [r.span.line for r in found[0].related] == [17]


def test_namespace_selector_is_honoured(lint_manifest):
    assert _monitor(lint_manifest, namespaces="  namespaceSelector: {matchNames: [gpu-operator]}\n") == []
    assert _monitor(lint_manifest, namespaces="  namespaceSelector: {any: true}\n") == []
    assert _monitor(lint_manifest, service_namespace="monitoring") == []


def test_no_matching_service_anywhere_is_out_of_scope_unless_the_world_is_closed(lint_manifest):
    assert _monitor(lint_manifest, label="node-exporter") == [("REF012", 7)]
    assert _monitor(lint_manifest, label="node-exporter", closed_world={"Service"}) == [("REF027", 7)]
