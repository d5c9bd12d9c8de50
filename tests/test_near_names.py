"""References with a near name are warnings in the default profile (issue 43); without one, infos."""

from __future__ import annotations

from dralint.diagnostics import Severity

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: ml}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - {name: server, image: registry.example/vllm:0.6.0}
---
"""
HPA = """apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: scaler, namespace: ml}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: {name}}}
  minReplicas: 2
  maxReplicas: 4
"""
SERVICE = """apiVersion: v1
kind: Service
metadata: {{name: web, namespace: ml}}
spec:
  selector: {{app: {app}}}
  ports: [{{port: 80}}]
"""


def reference_findings(result, rule_ids):
    return [(d.rule, d.severity) for d in result.diagnostics if d.rule in rule_ids]


def test_an_hpa_target_one_word_off_is_a_warning_in_recommended(lint_manifest):
    result = lint_manifest(DEPLOYMENT + HPA.format(name="vllm-inference"), profile="recommended")
    found = [d for d in result.diagnostics if d.rule in ("REF012", "REF017")]
    assert [(d.rule, d.severity) for d in found] == [("REF017", Severity.WARNING)]
    assert "did you mean 'vllm'?" in found[0].message


def test_an_hpa_target_with_no_near_name_stays_an_info(lint_manifest):
    result = lint_manifest(DEPLOYMENT + HPA.format(name="tokenizer"), profile="recommended")
    assert reference_findings(result, ("REF012", "REF017")) == []
    strict = lint_manifest(DEPLOYMENT + HPA.format(name="tokenizer"), profile="strict")
    assert reference_findings(strict, ("REF012", "REF017")) == [("REF012", Severity.INFO)]


def test_a_service_selector_one_word_off_the_only_pods_is_a_warning(lint_manifest):
    result = lint_manifest(DEPLOYMENT + SERVICE.format(app="vllm-server"), profile="recommended")
    found = [d for d in result.diagnostics if d.rule in ("REF012", "REF013")]
    assert [(d.rule, d.severity) for d in found] == [("REF013", Severity.WARNING)]
    assert "has app=vllm: did you mean that?" in found[0].message
    far = lint_manifest(DEPLOYMENT + SERVICE.format(app="database"), profile="recommended")
    assert reference_findings(far, ("REF012", "REF013")) == []


def test_a_claim_template_name_one_word_off_stays_a_not_in_scope_warning(lint_manifest):
    text = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: single-gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - {name: g, exactly: {deviceClassName: gpu.example.com}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  resourceClaims: [{name: g, resourceClaimTemplateName: single-gpu-v2}]
  containers:
  - name: c
    image: registry.example/app:1.0
    resources: {claims: [{name: g}]}
"""
    found = [d for d in lint_manifest(text, profile="recommended").diagnostics if "single-gpu-v2" in d.message]
    assert [(d.rule, d.severity) for d in found] == [("REF001", Severity.WARNING)]
    assert "did you mean 'single-gpu'?" in found[0].message
