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
        ("API007", 4, 9),  # StatefulSet names are DNS labels (ValidateStatefulSetName)
        ("API007", 5, 14),  # namespaces are DNS labels
        ("API007", 6, 17),  # generateName: a name prefix, trailing '-' allowed, '.' not in a label
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
  annotations: {{big: "{"x" * (256 * 1024)}"}}
  finalizers: [example.com/cleanup, a/b/c]
  ownerReferences:
  - {{apiVersion: batch/v1, kind: Job, name: '', uid: 5c6f, controller: true}}
  - {{apiVersion: batch/v1, kind: Job, name: b, uid: 5c70, controller: true}}
spec:
  devices:
    requests: [{{name: g, exactly: {{deviceClassName: gpu}}}}]
"""
    assert _at(tmp_path, manifest, *API_RULES) == [
        ("API006", 5, 3),  # keys and values add up to more than 256 KiB
        ("API007", 6, 37),  # a finalizer is a qualified name
        ("API009", 8, 45),  # ownerReferences[].name must not be empty
        ("API009", 9, 71),  # only one controller reference
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
    assert found == [
        ("API016", line, col, "warning") for line, col in ((5, 3), (6, 3), (7, 3), (8, 3), (9, 3), (23, 1))
    ]
    resource_version = next(d for d in result.diagnostics if d.field == "metadata.resourceVersion")
    assert "conflict" in resource_version.message


# References across namespaces and near names (issue 18, item 6).
JOB_WITHOUT_NAMESPACE = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: eight-gpus, namespace: training}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 8}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: single-gpu, namespace: training}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{name: gpus, resourceClaimTemplateName: eight-gpus}]
      containers: [{name: c, image: busybox, resources: {claims: [{name: gpus}]}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: finetune, namespace: training}
spec:
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{name: gpu, resourceClaimTemplateName: single-gpu-v2}]
      containers: [{name: c, image: busybox, resources: {claims: [{name: gpu}]}}]
"""


def _refs(tmp_path, manifest: str):
    result = lint_text(tmp_path, manifest)
    return [d for d in result.diagnostics if d.rule in ("REF001", "REF002")]


def test_a_template_one_namespace_over_is_named_with_the_fix(tmp_path):
    first, second = _refs(tmp_path, JOB_WITHOUT_NAMESPACE)
    assert (first.rule, first.span.line, first.span.column) == ("REF001", 28, 64)
    assert "exists in namespace 'training'" in first.message and "sets no metadata.namespace" in first.message
    assert (
        first.hint
        == "set `metadata.namespace: training` on the referring object, or apply it with `kubectl apply -n training`"
    )
    # a similar name that is no one-letter typo: a "did you mean", still only not-in-scope
    assert (second.rule, second.span.line, second.span.column) == ("REF001", 38, 63)
    assert second.message.endswith("did you mean 'single-gpu'?")
    assert "'single-gpu'" in (second.hint or "")


def test_a_pinned_namespace_mismatch_stays_an_error_and_says_what_to_change(tmp_path):
    pinned = JOB_WITHOUT_NAMESPACE.replace("metadata: {name: train}", "metadata: {name: train, namespace: research}")
    first = _refs(tmp_path, pinned)[0]
    assert first.rule == "REF002" and "exists in namespace 'training'" in first.message
    assert "set `metadata.namespace: training`" in (first.hint or "")


def test_missing_device_class_gets_a_did_you_mean(tmp_path):
    manifest = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests: [{name: g, exactly: {deviceClassName: gpu.example.com-large}}]
"""
    found = [d for d in lint_text(tmp_path, manifest).diagnostics if d.rule in ("REF001", "REF008")]
    assert [(d.rule, d.span.line, d.span.column) for d in found] == [("REF001", 10, 53)]
    assert found[0].message.endswith("did you mean 'gpu.example.com'?")


def test_extended_resource_name_one_typo_from_what_pods_ask_for(tmp_path):
    manifest = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {extendedResourceName: nvidia.com/gpus}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: busybox
    resources: {limits: {nvidia.com/gpu: 1}}
"""
    found = [d for d in lint_text(tmp_path, manifest).diagnostics if d.rule == "EXT001"]
    assert [(d.span.line, d.span.column) for d in found] == [(13, 26)]
    assert "maps the close name 'nvidia.com/gpus', which no pod asks for" in found[0].message
    assert found[0].related[-1].span.line == 4
    asked = manifest + "  - {name: d, image: busybox, resources: {limits: {nvidia.com/gpus: 1}}}\n"
    assert ["close name" in d.message for d in lint_text(tmp_path, asked).diagnostics if d.rule == "EXT001"] == [False]


# CEL over attribute values (issue 18, item 5). The DRA CEL environment types attributes as dyn, so the
# API server accepts these; the scheduler's evaluation fails on scalar values (cel-go comprehension over
# a non-list). Upstream: pkg/apis/resource/structured cel tests of list-type attributes behind the gate.
COMPREHENSIONS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: numa0.gpu.example.com}
spec:
  selectors:
  - cel:
      expression: >-
        device.driver == "gpu.example.com" &&
        device.attributes["gpu.example.com"].numa.exists(n, n == 0)
  - cel:
      expression: 'device.attributes["gpu.example.com"].all(k, k != "x")'
  - cel:
      expression: 'device.attributes["gpu.example.com"].?cores.orValue([]).filter(c, c > 1).size() > 0'
"""


def test_comprehension_over_an_attribute_value_is_an_error_at_the_macro(tmp_path):
    """The v1.37 compiler rejects it at create (conformance/golden/rules/CEL016/bad-0.json)."""
    result = lint_text(tmp_path, COMPREHENSIONS)
    found = [
        (d.span.line, d.span.column, d.span.end_column, d.severity.value)
        for d in result.diagnostics
        if d.rule == "CEL016"
    ]
    # folded scalar: line 9 holds `exists`; iterating over the domain map (`all`) is valid;
    # an optional read with a default is still the attribute's (scalar) value
    assert found == [(9, 51, 57, "error"), (13, 76, 82, "error")]


def test_with_list_attributes_on_comprehensions_are_valid(tmp_path):
    result = lint_text(tmp_path, COMPREHENSIONS, feature_gates={"DRAListTypeAttributes": True})
    assert not [d for d in result.diagnostics if d.rule in ("CEL016", "CEL001")]


# Workload specs (issue 18, item 4): pkg/apis/apps/validation (ValidateDeploymentSpec, ValidateStatefulSetSpec:
# "`selector` does not match template `labels`", "empty selector is invalid for statefulset",
# "may not be specified when strategy `type` is 'Recreate'", restartPolicy NotSupported ["Always"]) and
# pkg/apis/batch/validation (ValidateJobSpec: restartPolicy NotSupported ["OnFailure", "Never"]).
WORKLOADS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  strategy:
    type: Recreate
    rollingUpdate: {maxSurge: 1}
  template:
    metadata: {labels: {app: webb}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  selector: {}
  serviceName: db
  podManagementPolicy: Random
  updateStrategy: {type: OnDelete, rollingUpdate: {partition: 1}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Always
          containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  template:
    metadata: {labels: {app: rc}}
    spec: {containers: [{name: c, image: busybox}]}
"""


def test_workload_specs_the_server_rejects(tmp_path):
    assert _at(tmp_path, WORKLOADS, *API_RULES) == [
        ("API004", 12, 22),  # Deployment pods restart Always
        ("API004", 20, 5),  # a Job template without restartPolicy defaults to Always: rejected
        ("API004", 44, 26),  # CronJob's job template: Always rejected
        ("API009", 8, 5),  # rollingUpdate with Recreate
        ("API009", 10, 16),  # selector does not match the template labels
        ("API009", 27, 13),  # empty selector
        ("API009", 29, 24),  # podManagementPolicy
        ("API009", 30, 36),  # rollingUpdate with OnDelete
    ]  # the ReplicationController's selector defaults to its template labels: valid


def test_a_valid_deployment_and_job_have_no_controller_findings(tmp_path):
    manifest = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: NotIn, values: [db]}]
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      restartPolicy: OnFailure
      containers: [{name: c, image: busybox}]
"""
    assert _at(tmp_path, manifest, *API_RULES) == []
    both_zero = manifest.replace("maxUnavailable: 1", "maxUnavailable: 0%")
    assert _at(tmp_path, both_zero, *API_RULES) == [("API009", 8, 80)]


def test_daemonset_update_strategy_and_indexed_job(tmp_path):
    manifest = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 0}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent-2}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: Rolling}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: indexed}
spec:
  completionMode: Indexed
  parallelism: 4
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""
    assert _at(tmp_path, manifest, *API_RULES) == [
        ("API003", 24, 1),  # Indexed without completions
        ("API004", 16, 26),  # DaemonSet strategy type
        ("API009", 6, 73),  # maxUnavailable 0 with the default maxSurge 0
    ]


ODD_SHAPES = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: 5
  generateName: [a]
  namespace: {a: b}
  annotations: [x]
  finalizers: {a: b}
  ownerReferences: [1, {controller: true}, {controller: true, name: ''}]
  uid: {}
status: [1]
---
apiVersion: apps/v1
kind: Deployment
metadata: []
spec:
  selector: [1]
  strategy: {type: 5, rollingUpdate: 3}
  template: {metadata: {labels: [1]}, spec: {restartPolicy: 7}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s}
spec: 5
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec: {jobTemplate: {spec: {template: 3}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: x}
spec:
  nodeSelector:
    nodeSelectorTerms: [{matchExpressions: [1, {key: 3, operator: [], values: 5}], matchFields: [{values: [3]}]}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: why}
spec:
  selectors:
  - cel:
      expression: >-
        device.attributes["a.com"]["x"].exists(v, v) && [1].all(x, x > 0)
        && device.attributes["a.com"].exists(k, true)
"""


def test_wrong_types_in_metadata_controllers_and_selectors_never_crash(tmp_path):
    result = lint_text(tmp_path, ODD_SHAPES)
    assert not [d for d in result.diagnostics if d.rule == "INT001"]
    # a non-string strategy type is a type error, not a "Recreate" strategy
    assert not [d for d in result.diagnostics if "may not be specified when strategy" in d.message]
    assert [d.rule for d in result.diagnostics if d.field == "metadata.ownerReferences[2].name"] == ["API009"]


# ValidateTolerations (pkg/apis/core/validation) on pod specs: an empty key is valid only with Exists.
POD_TOLERATIONS = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations:
  - {operator: Exists}
  - {key: '', operator: Equal, value: x}
  - {key: a, operator: Exists, value: x}
  - {key: a, value: 'bad value', effect: NoSchedule}
  - {key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}
  - {key: a, operator: Lt, value: '5', effect: Sometimes}
  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
  - {effect: NoExecute}
  containers: [{name: c, image: busybox}]
"""


def test_pod_tolerations_follow_validate_tolerations(tmp_path):
    assert _at(tmp_path, POD_TOLERATIONS, *API_RULES) == [
        ("API004", 11, 48),  # unknown effect
        ("API007", 9, 21),  # Equal takes a label value
        ("API009", 7, 25),  # empty key needs Exists
        ("API009", 8, 39),  # Exists takes no value
        ("API009", 10, 40),  # tolerationSeconds only with NoExecute
        ("API009", 13, 5),  # empty key, default operator Equal
    ]  # {operator: Exists} with no key tolerates everything: valid
