"""Agreement with the v1.37 API server on cases taken from upstream validation tests (issue 18).

Each fixture names the upstream test or validator it comes from; every assertion checks the rule
and the exact 1-based line:column of the key or value the server would complain about.
"""

from __future__ import annotations

from conftest import lint_text


def _at(tmp_path, manifest: str, *rules: str) -> list[tuple[str, int, int]]:
    result = lint_text(tmp_path, manifest)
    return sorted((d.rule, d.span.line, d.span.column) for d in result.diagnostics if d.rule in rules)


API_RULES = tuple(f"API{n:03d}" for n in range(1, 40))

# pkg/apis/resource declarative validation tests, cases "valid Exactly.Tolerations.Key empty" and
# "invalid Exactly.Tolerations.Key" (ResourceClaim and ResourceClaimTemplate).
TOLERATIONS = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: any-taint}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          tolerations:
          - {key: '', operator: Exists, effect: NoSchedule}
          - {operator: Exists}
          - {key: 'bad key', operator: Exists}
"""


def test_empty_toleration_key_with_exists_is_valid_and_a_bad_key_is_not(tmp_path):
    assert _at(tmp_path, TOLERATIONS, *API_RULES) == [("API007", 14, 19)]


# ValidateNodeSelectorRequirement / ValidateNodeFieldSelectorRequirement
# (pkg/apis/core/validation), as ResourceSlice validation calls them for spec.nodeSelector.
SLICE_SELECTOR = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  pool: {name: node-1, resourceSliceCount: 1}
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions:
      - {key: rank, operator: Gt, values: ['-1']}
      - {key: rank, operator: Lt, values: ['1', '2']}
      - {key: zone, operator: In, values: []}
      - {key: 'bad key', operator: Exists, values: [a]}
      - {key: zone, operator: Near}
      - {key: zone, operator: NotIn, values: [a, b]}
      matchFields:
      - {key: metadata.name, operator: In, values: [Node_1]}
      - {key: metadata.labels, operator: Exists}
      - {key: metadata.name, operator: In, values: [node-1]}
  devices: []
"""


def test_every_node_selector_requirement_is_validated_like_the_server(tmp_path):
    assert _at(tmp_path, SLICE_SELECTOR, *API_RULES) == [
        ("API003", 11, 35),  # Lt with two values
        ("API003", 12, 35),  # In without values
        ("API007", 10, 44),  # '-1' is not a label value
        ("API007", 13, 15),  # key is not a qualified name
        ("API007", 17, 53),  # node name is not a DNS subdomain
        ("API009", 13, 44),  # Exists with values
        ("API009", 14, 31),  # unknown operator
        ("API009", 18, 15),  # only metadata.name in matchFields
        ("API009", 18, 42),  # matchFields takes In/NotIn only
    ]


def test_node_affinity_in_a_pod_template_is_validated_too(tmp_path):
    manifest = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: gpu.example.com/count, operator: Gt, values: ['3']}
              - {key: zone, operator: In, values: [' a']}
      containers: [{name: c, image: busybox}]
"""
    assert _at(tmp_path, manifest, *API_RULES) == [("API007", 15, 52)]
