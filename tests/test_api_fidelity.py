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


# ValidateObjectMeta (apimachinery) with the per-kind name validators: TestValidateObjectMetaNamespaces,
# TestValidateObjectMetaOwnerReferences and the resource.k8s.io "missing name" cases of TestValidateClaim /
# TestValidateDeviceClass ("missing name": field.Required(metadata.name, "name or generateName is required")).
NAMELESS = """\
apiVersion: resource.k8s.io/v1
kind: {kind}
metadata:
  labels: {{app: gpu}}
spec: {spec}
"""


def test_every_dra_kind_needs_a_name_or_generate_name(tmp_path):
    specs = {
        "DeviceClass": "{}",
        "ResourceClaim": "{devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}",
        "ResourceClaimTemplate": "{spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}",
        "ResourceSlice": "{driver: gpu.example.com, pool: {name: p, resourceSliceCount: 1}, allNodes: true}",
    }
    for kind, spec in specs.items():
        manifest = NAMELESS.format(kind=kind, spec=spec)
        assert _at(tmp_path, manifest, *API_RULES) == [("API003", 3, 1)], kind
        generated = manifest.replace("metadata:\n", "metadata:\n  generateName: gpu-\n")
        assert _at(tmp_path, generated, *API_RULES) == [], kind


NAMES = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web.v1
  namespace: Team_A
  generateName: web.-
spec:
  selector: {matchLabels: {app: web}}
  serviceName: web
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:gpu-operator"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: "a/b", namespace: gpu}
---
apiVersion: v1
kind: Service
metadata: {name: 1-gpu, annotations: {Example.com/Owner: team}}
spec: {ports: [{port: 80}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly-gpu-burn-in-for-every-node-in-the-training-pool-x}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com, namespace: team-a}
"""


def test_name_formats_follow_the_kind(tmp_path):
    assert _at(tmp_path, NAMES, *API_RULES) == [
        ("API007", 4, 9),    # StatefulSet names are DNS labels (ValidateStatefulSetName)
        ("API007", 5, 14),   # namespaces are DNS labels
        ("API007", 6, 17),   # generateName: a name prefix, trailing '-' allowed, '.' not in a label
        ("API007", 20, 18),  # RBAC names are path segments: no '/'
        ("API007", 24, 18),  # Service names are DNS-1035 labels: start with a letter
        ("API007", 29, 18),  # CronJob names: at most 52 characters
        ("API019", 41, 35),  # DeviceClass is cluster-scoped: the namespace is dropped
    ]  # "system:gpu-operator" is a valid RBAC name, "Example.com/Owner" a valid annotation key


def test_annotation_size_finalizers_and_owner_references(tmp_path):
    manifest = f"""\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
  annotations: {{big: "{'x' * (256 * 1024)}"}}
  finalizers: [example.com/cleanup, a/b/c]
  ownerReferences:
  - {{apiVersion: batch/v1, kind: Job, name: '', uid: 5c6f, controller: true}}
  - {{apiVersion: batch/v1, kind: Job, name: b, uid: 5c70, controller: true}}
spec:
  devices:
    requests: [{{name: g, exactly: {{deviceClassName: gpu}}}}]
"""
    assert _at(tmp_path, manifest, *API_RULES) == [
        ("API006", 5, 3),    # keys and values add up to more than 256 KiB
        ("API007", 6, 37),   # a finalizer is a qualified name
        ("API009", 8, 45),   # ownerReferences[].name must not be empty
        ("API009", 9, 71),   # only one controller reference
    ]


CAPTURED = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
  uid: 9d1c5a42-6a5e-4a57-8f4e-0d7c1b9e1111
  resourceVersion: "48213"
  generation: 1
  creationTimestamp: "2026-01-05T10:00:00Z"
  managedFields:
  - {manager: kubectl, operation: Update}
spec: {}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  creationTimestamp: null
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, creationTimestamp: null}
    spec: {containers: [{name: c, image: busybox}]}
status:
  replicas: 1
---
apiVersion: v1
kind: ConfigMap
metadata: {name: empty-status}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: dry-run}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: busybox}]}
status: {}
"""


def test_server_populated_fields_are_warnings_and_null_ones_are_not(tmp_path):
    result = lint_text(tmp_path, CAPTURED)
    found = [(d.rule, d.span.line, d.span.column, d.severity.value) for d in result.diagnostics if d.rule in API_RULES]
    assert found == [("API016", line, col, "warning") for line, col in ((5, 3), (6, 3), (7, 3), (8, 3), (9, 3), (23, 1))]
    resource_version = next(d for d in result.diagnostics if d.field == "metadata.resourceVersion")
    assert "conflict" in resource_version.message
