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
    for role_kind, binding_kind in (("ClusterRole", "ClusterRoleBinding"), ("ClusterRole", "RoleBinding"), ("Role", "RoleBinding")):
        found = fired(lint_manifest(_rbac(role_kind, binding_kind, '"pods/*"')), "SEC019")
        on_binding = [f for f in found if f.span.line > 9]
        assert len(found) == 3 and len(on_binding) == 1, (role_kind, binding_kind)  # exec + attach on the role, one on the binding


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
