"""Pod Security Standards: the v1.37 controls, namespace labels, --pss-level and PodSecurity admission."""

from __future__ import annotations

import pytest
from conftest import rules_of
from podtext import fired
from test_sarif import github_problems, sarif, schema_errors

from dralint.diagnostics import Severity
from dralint.k8s.pod_security_standards import (
    LATEST,
    LevelVersion,
    Policy,
    allowed_selinux_types,
    allowed_sysctls,
    controls_for,
    parse_version,
    policy_from_labels,
)

NAMESPACE = """apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels:
{labels}---
"""
POD = """apiVersion: v1
kind: Pod
metadata:
  name: app
  namespace: team-a
spec:
{spec}  containers:
  - name: app
    image: registry.example.com/app:1.0
{container}"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team-a
spec:
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - name: web
        image: registry.example.com/app:1.0
{container}"""
PRIVILEGED = "    securityContext: {privileged: true}\n"
#: A pod that passes every restricted control.
HARDENED_SPEC = "  securityContext: {runAsNonRoot: true, runAsUser: 10001, seccompProfile: {type: RuntimeDefault}}\n"
HARDENED_CONTAINER = '    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: ["ALL"]}}\n'


def namespace(**labels: str) -> str:
    lines = "".join(f"    pod-security.kubernetes.io/{k.replace('_', '-')}: {v}\n" for k, v in labels.items())
    return NAMESPACE.format(labels=lines)


def pss(result) -> list[tuple[str, str]]:
    return sorted((d.rule, d.severity.value) for d in result.diagnostics if d.rule.startswith("PSS"))


# --- the model ------------------------------------------------------------------------------


def test_restricted_replaces_the_baseline_controls_it_tightens():
    ids = {c.check_id for c in controls_for("restricted", LATEST)}
    assert {"restrictedVolumes", "seccompProfile_restricted", "capabilities_restricted", "procMount_restricted"} <= ids
    assert not {"hostPathVolumes", "seccompProfile_baseline", "capabilities_baseline", "procMount"} & ids
    assert {"hostNamespaces", "privileged", "sysctls", "hostProbesAndHostLifecycle"} <= ids
    assert controls_for("privileged", LATEST) == []


def test_controls_follow_the_policy_version():
    old = {c.check_id for c in controls_for("restricted", (1, 22))}
    assert "runAsUser" not in old and "hostProbesAndHostLifecycle" not in old and "procMount" in old
    assert "hostProbesAndHostLifecycle" in {c.check_id for c in controls_for("baseline", (1, 34))}
    assert "procMount_restricted" not in {c.check_id for c in controls_for("restricted", (1, 34))}


def test_safe_sysctls_and_selinux_types_grow_with_the_version():
    assert "net.ipv4.ip_local_reserved_ports" not in allowed_sysctls((1, 26))
    assert "net.ipv4.tcp_rmem" in allowed_sysctls((1, 32)) and "net.ipv4.tcp_rmem" not in allowed_sysctls((1, 31))
    assert "net.ipv4.tcp_notsent_lowat" in allowed_sysctls(
        LATEST
    ) and "net.ipv4.tcp_notsent_lowat" not in allowed_sysctls((1, 36))
    assert "container_engine_t" in allowed_selinux_types((1, 31)) and "container_engine_t" not in allowed_selinux_types(
        (1, 30)
    )


@pytest.mark.parametrize(
    "text,expected",
    [
        ("latest", LATEST),
        ("v1.25", (1, 25)),
        ("v1.99", LATEST),
        ("v1.0", (1, 0)),
        ("1.25", None),
        ("v1.025", None),
        ("v2.1", None),
        (125, None),
    ],
)
def test_versions(text, expected):
    assert parse_version(text) == expected


def test_bad_labels_fail_closed_for_enforce_and_open_for_warn_and_audit():
    labels = {f"pod-security.kubernetes.io/{m}": "strict" for m in ("enforce", "warn", "audit")}
    labels["pod-security.kubernetes.io/enforce-version"] = "v1"
    policy, problems = policy_from_labels(labels)
    assert policy.enforce == LevelVersion("restricted") and policy.warn.level == policy.audit.level == "privileged"
    assert len(problems) == 4 and all(p.rejected for p in problems)


def test_labels_override_the_default_only_for_the_modes_they_name():
    policy, problems = policy_from_labels(
        {"pod-security.kubernetes.io/warn": "restricted"}, Policy(enforce=LevelVersion("baseline"))
    )
    assert (policy.enforce.level, policy.warn.level, policy.audit.level) == (
        "baseline",
        "restricted",
        "privileged",
    ) and not problems


# --- admission ------------------------------------------------------------------------------


def test_no_level_no_pss_findings_and_sec_rules_give_the_advice(lint_manifest):
    result = lint_manifest(POD.format(spec="", container=PRIVILEGED))
    assert pss(result) == [] and fired(result, "SEC001")


def test_enforce_rejects_the_pod_at_the_field_and_the_sec_rule_steps_back(lint_manifest):
    text = namespace(enforce="baseline") + POD.format(spec="", container=PRIVILEGED)
    result = lint_manifest(text)
    [found] = fired(result, "PSS002")
    assert found.severity is Severity.ERROR
    assert found.message.startswith(
        "rejected by PodSecurity admission (enforce=baseline:latest on namespace 'team-a'): Privileged Containers:"
    )
    assert (found.span.line, found.span.column) == (17, 35)  # the `true` of privileged
    assert not fired(result, "SEC001")


def test_enforce_on_a_workload_rejects_the_pods_its_controller_creates(lint_manifest):
    result = lint_manifest(
        namespace(enforce="baseline") + DEPLOYMENT.format(container="        securityContext: {privileged: true}\n")
    )
    [found] = fired(result, "PSS002")
    assert found.severity is Severity.ERROR and "when Deployment team-a/web creates its pods" in found.message


def test_warn_and_audit_are_warnings_with_the_mode_in_the_message(lint_manifest):
    warned = fired(
        lint_manifest(
            namespace(warn="baseline") + DEPLOYMENT.format(container="        securityContext: {privileged: true}\n")
        ),
        "PSS002",
    )
    audited = fired(lint_manifest(namespace(audit="baseline") + POD.format(spec="", container=PRIVILEGED)), "PSS002")
    assert [d.severity for d in warned + audited] == [Severity.WARNING, Severity.WARNING]
    assert "warns when Deployment team-a/web is applied (warn=baseline:latest" in warned[0].message
    assert "records an audit annotation about the pod (audit=baseline:latest" in audited[0].message


def test_one_finding_when_enforce_and_warn_both_object(lint_manifest):
    result = lint_manifest(namespace(enforce="baseline", warn="restricted") + POD.format(spec="", container=PRIVILEGED))
    assert [d.severity for d in fired(result, "PSS002")] == [Severity.ERROR]
    assert fired(result, "PSS015")[0].severity is Severity.WARNING  # restricted-only controls come from warn


def test_enforce_version_pins_the_policy(lint_manifest):
    probe = "    readinessProbe: {httpGet: {host: 10.0.0.1, path: /, port: 80}}\n"
    pinned = lint_manifest(
        namespace(enforce="baseline", enforce_version="v1.33") + POD.format(spec="", container=probe)
    )
    latest = lint_manifest(
        namespace(enforce="baseline", enforce_version="latest") + POD.format(spec="", container=probe)
    )
    assert pss(pinned) == [] and pss(latest) == [("PSS012", "error")]
    assert "enforce=baseline:v1.33" not in str([d.message for d in latest.diagnostics])


def test_pss_level_applies_to_every_namespace_unless_labels_say_otherwise(lint_manifest):
    text = POD.format(spec="", container=PRIVILEGED)
    assert pss(lint_manifest(text, pss_level="baseline")) == [("PSS002", "error")]
    assert (
        "enforce=baseline:latest from the run's pss-level setting (--pss-level or the config file)"
        in fired(lint_manifest(text, pss_level="baseline"), "PSS002")[0].message
    )
    assert pss(lint_manifest(namespace(enforce="privileged") + text, pss_level="restricted")) == []


def test_pss_level_from_the_config_file(lint_manifest):
    result = lint_manifest(POD.format(spec="", container=PRIVILEGED), config="pss-level: baseline\n")
    assert pss(result) == [("PSS002", "error")]


def test_a_pod_passing_restricted_gets_no_pss_finding(lint_manifest):
    text = namespace(enforce="restricted") + POD.format(spec=HARDENED_SPEC, container=HARDENED_CONTAINER)
    assert pss(lint_manifest(text)) == []


def test_restricted_missing_settings_are_one_finding_per_template(lint_manifest):
    text = (
        namespace(enforce="restricted")
        + POD.format(spec="", container="")
        + "  - name: sidecar\n    image: registry.example.com/s:1.0\n"
    )
    [found] = fired(lint_manifest(text), "PSS015")
    assert "containers 'app', 'sidecar'" in found.message
    assert not fired(lint_manifest(text), "SEC003")


def test_windows_pods_skip_the_linux_only_restricted_controls(lint_manifest):
    text = namespace(enforce="restricted") + POD.format(spec="  os: {name: windows}\n", container="")
    assert {rule for rule, _ in pss(lint_manifest(text))} == {"PSS015"}


def test_user_namespace_pods_skip_the_root_checks_from_v1_35(lint_manifest):
    spec = "  hostUsers: false\n  securityContext: {runAsUser: 0, seccompProfile: {type: RuntimeDefault}}\n"
    latest = lint_manifest(namespace(enforce="restricted") + POD.format(spec=spec, container=HARDENED_CONTAINER))
    old = lint_manifest(
        namespace(enforce="restricted", enforce_version="v1.34") + POD.format(spec=spec, container=HARDENED_CONTAINER)
    )
    assert pss(latest) == []
    assert {rule for rule, _ in pss(old)} == {"PSS015", "PSS016"}


def test_ephemeral_and_init_containers_are_checked(lint_manifest):
    spec = (
        "  initContainers:\n  - name: init\n    image: registry.example.com/i:1.0\n"
        "    securityContext: {privileged: true}\n"
    )
    spec += (
        "  ephemeralContainers:\n  - name: debug\n    image: registry.example.com/d:1.0\n"
        "    securityContext: {privileged: true}\n"
    )
    found = fired(lint_manifest(namespace(enforce="baseline") + POD.format(spec=spec, container="")), "PSS002")
    assert sorted(d.message.split("Privileged Containers: ")[1] for d in found) == [
        "ephemeral container 'debug' sets privileged: true",
        "init container 'init' sets privileged: true",
    ]


@pytest.mark.parametrize(
    "cap,rejected",
    [("CHOWN", False), ("NET_BIND_SERVICE", False), ("CAP_CHOWN", True), ("chown", True), ("NET_RAW", True)],
)
def test_baseline_capabilities_are_compared_exactly(lint_manifest, cap, rejected):
    text = namespace(enforce="baseline") + POD.format(
        spec="", container=f"    securityContext: {{capabilities: {{add: [{cap}]}}}}\n"
    )
    assert bool(fired(lint_manifest(text), "PSS003")) is rejected


@pytest.mark.parametrize(
    "volume,rejected",
    [
        ("image: {reference: registry.example.com/model:1}", False),
        ("csi: {driver: x}", False),
        ("nfs: {server: n, path: /}", True),
        ("gitRepo: {repository: r}", True),
    ],
)
def test_restricted_volume_types(lint_manifest, volume, rejected):
    spec = HARDENED_SPEC + f"  volumes:\n  - name: v\n    {volume}\n  - name: defaulted\n"
    text = namespace(enforce="restricted") + POD.format(spec=spec, container=HARDENED_CONTAINER)
    assert pss(lint_manifest(text)) == ([("PSS013", "error")] if rejected else [])


@pytest.mark.parametrize(
    "annotation,rejected", [("runtime/default", False), ("localhost/custom", False), ("unconfined", True)]
)
def test_apparmor_annotations(lint_manifest, annotation, rejected):
    text = namespace(enforce="baseline") + POD.format(spec="", container="").replace(
        "  namespace: team-a\n",
        f"  namespace: team-a\n  annotations:\n    container.apparmor.security.beta.kubernetes.io/app: {annotation}\n",
        1,
    )
    assert bool(fired(lint_manifest(text), "PSS006")) is rejected


def test_device_driver_exemption_does_not_reach_admission(lint_manifest):
    driver = """apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: gpu-driver
  namespace: team-a
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
      - name: plugin
        image: registry.example.com/driver:1.0
        securityContext: {privileged: true}
      volumes:
      - name: plugins
        hostPath: {path: /var/lib/kubelet/plugins}
"""
    exempt = lint_manifest(driver)
    assert fired(exempt, "SEC030") and not fired(exempt, "SEC001") and pss(exempt) == []
    enforced = lint_manifest(namespace(enforce="baseline") + driver)
    assert pss(enforced) == [("PSS002", "error"), ("PSS004", "error")]
    assert "device-driver exemption does not reach admission" in (fired(enforced, "PSS002")[0].hint or "")
    assert not fired(enforced, "SEC001") and not fired(enforced, "SEC008")
    assert fired(enforced, "SEC030")  # the other waived findings (root, escalation, ...) are still waived
    privileged_ns = lint_manifest(namespace(enforce="privileged") + driver, pss_level="baseline")
    assert pss(privileged_ns) == [] and fired(privileged_ns, "SEC030")


def test_select_pss_and_the_dra_profile(lint_manifest):
    text = namespace(enforce="baseline") + POD.format(spec="", container=PRIVILEGED)
    assert set(rules_of(lint_manifest(text, select=["PSS"]))) == {"PSS002"}
    assert set(rules_of(lint_manifest(text, profile="dra"))) == {"PSS002"}
    assert rules_of(lint_manifest(text, ignore=["pod-security"])).count("SEC001") == 1


def test_invalid_and_unknown_namespace_labels(lint_manifest):
    result = lint_manifest(namespace(enforce="strict", enforced="restricted", warn_version="1.30"))
    found = sorted((d.severity.value, d.span.line) for d in fired(result, "PSS020"))
    assert found == [("error", 6), ("error", 8), ("warning", 7)]


def test_bad_shapes_never_crash(lint_manifest):
    spec = "  securityContext: nope\n  volumes: [7, {name: x, hostPath: null}]\n  hostUsers: maybe\n"
    container = (
        "    securityContext: {capabilities: {add: [{a: 1}], drop: ALL}, seLinuxOptions: {type: [x]}, procMount: 3}\n"
    )
    container += "    ports: [{hostPort: [1]}]\n    livenessProbe: {httpGet: 5}\n"
    text = NAMESPACE.format(labels="    pod-security.kubernetes.io/enforce: {level: restricted}\n") + POD.format(
        spec=spec, container=container
    )
    result = lint_manifest(text)
    assert not fired(result, "INT001")
    assert fired(result, "PSS020") and fired(result, "PSS018")


def test_sarif_carries_the_pss_rules(in_tmp):
    (in_tmp / "ns.yaml").write_text(
        namespace(enforce="restricted") + POD.format(spec="", container=PRIVILEGED), encoding="utf-8"
    )
    log, code = sarif("--no-config", "ns.yaml")
    assert code == 1 and schema_errors(log) == [] and github_problems(log) == []
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert "PSS002" in rules and "pod-security" in rules["PSS002"]["properties"]["tags"]


def test_null_settings_count_as_unset(lint_manifest):
    spec = "  securityContext: {runAsNonRoot: null, seccompProfile: {type: RuntimeDefault}}\n"
    container = (
        "    securityContext: {runAsNonRoot: null, allowPrivilegeEscalation: null, capabilities: {drop: [ALL]}}\n"
    )
    result = lint_manifest(namespace(enforce="restricted") + POD.format(spec=spec, container=container))
    assert "neither the pod nor container 'app' set runAsNonRoot" in fired(result, "PSS015")[0].message
    assert "does not set allowPrivilegeEscalation: false" in fired(result, "PSS014")[0].message


def test_a_version_label_alone_pins_the_default_level(lint_manifest):
    probe = "    readinessProbe: {httpGet: {host: 10.0.0.1, path: /, port: 80}}\n"
    pinned = lint_manifest(
        namespace(enforce_version="v1.33") + POD.format(spec="", container=probe + PRIVILEGED), pss_level="baseline"
    )
    [found] = fired(pinned, "PSS002")
    assert (
        "enforce=baseline:v1.33: level from the run's pss-level setting, version from namespace 'team-a'"
        in found.message
    )
    assert not fired(pinned, "PSS012")


def test_namespace_labels_from_context_files_apply(tmp_path, lint_manifest):
    namespaces = tmp_path / "namespaces"
    namespaces.mkdir()
    (namespaces / "ns.yaml").write_text(namespace(enforce="baseline").rstrip("-\n") + "\n", encoding="utf-8")
    result = lint_manifest(POD.format(spec="", container=PRIVILEGED), context=[str(namespaces)])
    assert pss(result) == [("PSS002", "error")]


def test_objects_without_a_namespace_follow_only_pss_level(lint_manifest):
    text = namespace(enforce="restricted") + POD.format(spec="", container=PRIVILEGED).replace(
        "  namespace: team-a\n", ""
    )
    assert pss(lint_manifest(text)) == []
    assert pss(lint_manifest(text, pss_level="baseline")) == [("PSS002", "error")]
