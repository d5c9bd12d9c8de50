"""PodSecurity admission: the namespace's level applied to every pod template (rules PSS001-PSS019).

A namespace's policy comes from its ``pod-security.kubernetes.io/*`` labels when the Namespace
is among the run's objects, on top of ``--pss-level`` (the cluster-wide default the user
declares); with neither, every namespace is ``privileged`` and these rules stay silent, so
the SEC rules remain the generic hardening advice.

The server's rules decide the severity: ``enforce`` rejects pods, so a violating Pod, or a
workload whose controller will have every pod rejected, is an error; ``warn`` and ``audit``
let the pod in with a warning or an audit annotation, so they are warnings. One mistake gives
one finding: when a PSS rule reports a field, the SEC rule that checks that same field for the
same reason steps back (``replaced``), and the device-driver exemption never waives a PSS
finding, because the admission plugin knows nothing of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from dralint.diagnostics import Finding, Severity, Span
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.k8s.pod_security_standards import (
    LABEL_PREFIX,
    MODES,
    Control,
    LevelVersion,
    Policy,
    Violation,
    policy_from_labels,
    violations,
)
from dralint.lint.context import Context
from dralint.lint.exemptions import device_driver, enabled_rule_ids
from dralint.lint.registry import object_check

#: Rule id of each control, and the SEC rules that check the same field for the same reason.
CONTROL_RULES: dict[str, tuple[str, frozenset[str]]] = {
    "hostNamespaces": ("PSS001", frozenset({"SEC005", "SEC006", "SEC007"})),
    "privileged": ("PSS002", frozenset({"SEC001"})),
    "capabilities_baseline": ("PSS003", frozenset({"SEC011"})),
    "hostPathVolumes": ("PSS004", frozenset({"SEC008"})),
    "hostPorts": ("PSS005", frozenset({"SEC010"})),
    "appArmorProfile": ("PSS006", frozenset()),
    "seLinuxOptions": ("PSS007", frozenset()),
    "procMount": ("PSS008", frozenset({"SEC024"})),
    "seccompProfile_baseline": ("PSS009", frozenset({"SEC013"})),
    "sysctls": ("PSS010", frozenset({"SEC025"})),
    "windowsHostProcess": ("PSS011", frozenset({"SEC023"})),
    "hostProbesAndHostLifecycle": ("PSS012", frozenset()),
    "restrictedVolumes": ("PSS013", frozenset({"SEC008"})),
    "allowPrivilegeEscalation": ("PSS014", frozenset({"SEC002"})),
    "runAsNonRoot": ("PSS015", frozenset({"SEC003"})),
    "runAsUser": ("PSS016", frozenset({"SEC003"})),
    "seccompProfile_restricted": ("PSS017", frozenset({"SEC013"})),
    "capabilities_restricted": ("PSS018", frozenset({"SEC011", "SEC012"})),
    "procMount_restricted": ("PSS019", frozenset({"SEC024"})),
}
LABEL_RULE = "PSS020"
#: What to change for each control; the namespace label is the other way out.
_FIXES: dict[str, str] = {
    "hostNamespaces": "remove `hostNetwork`, `hostPID` and `hostIPC` (they default to false)",
    "privileged": "remove `privileged: true`; add the one capability the program needs",
    "capabilities_baseline": "add only capabilities of the runtime's default set (NET_RAW is not one)",
    "hostPathVolumes": "replace the hostPath volume with a PersistentVolumeClaim, ConfigMap, emptyDir or CSI volume",
    "hostPorts": "remove `hostPort` and expose the port through a Service",
    "appArmorProfile": "use `appArmorProfile: {type: RuntimeDefault}` (or a Localhost profile)",
    "seLinuxOptions": "remove the SELinux user and role, and use type container_t (or leave seLinuxOptions out)",
    "procMount": "remove `procMount` (or set `procMount: Default`)",
    "seccompProfile_baseline": "use `seccompProfile: {type: RuntimeDefault}` instead of Unconfined",
    "sysctls": "remove the sysctl, or use one of the safe sysctls",
    "windowsHostProcess": "remove `windowsOptions.hostProcess: true`",
    "hostProbesAndHostLifecycle": "remove `host` from the probe or hook; it then targets the pod's own IP",
    "restrictedVolumes": (
        "use configMap, secret, projected, downwardAPI, emptyDir, ephemeral, image, csi or "
        "persistentVolumeClaim volumes"
    ),
    "allowPrivilegeEscalation": "set `securityContext: {allowPrivilegeEscalation: false}` on every container",
    "runAsNonRoot": "set `securityContext: {runAsNonRoot: true}` at pod level (containers inherit it)",
    "runAsUser": "set a non-zero `runAsUser`, e.g. 10001",
    "seccompProfile_restricted": "set `securityContext: {seccompProfile: {type: RuntimeDefault}}` at pod level",
    "capabilities_restricted": 'set `capabilities: {drop: ["ALL"]}` and add back at most NET_BIND_SERVICE',
    "procMount_restricted": "remove `procMount` (or set `procMount: Default`)",
}
#: Kinds whose pod templates the admission plugin itself checks in warn and audit mode.
TEMPLATE_KINDS = frozenset(
    {"PodTemplate", "ReplicationController", "ReplicaSet", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"}
)


class NamespacePolicy(NamedTuple):
    """A namespace's policy and where it came from, for messages."""

    policy: Policy
    namespace: KubeObject | None

    def source(self, mode: str, level: LevelVersion) -> str:
        name = self.namespace.name if self.namespace is not None else ""
        labels = self.namespace.labels if self.namespace is not None else {}
        if LABEL_PREFIX + mode in labels:
            return f"{mode}={level} on namespace '{name}'"
        if LABEL_PREFIX + mode + "-version" in labels:
            return f"{mode}={level}: level from the run's pss-level setting, version from namespace '{name}'"
        return f"{mode}={level} from the run's pss-level setting (--pss-level or the config file)"


class Verdict(NamedTuple):
    """One PSS finding and the SEC rules it speaks for at the same field."""

    finding: Finding
    replaces: frozenset[str]


def _defaults(ctx: Context) -> Policy:
    level = ctx.options.pss_level
    return Policy(enforce=LevelVersion(level)) if level else Policy()


def namespace_policy(ctx: Context, namespace: str | None) -> NamespacePolicy:
    """The policy of ``namespace``: its labels over the run's ``--pss-level`` default."""
    found = ctx.find("Namespace", None, namespace) if namespace else None
    if found is None:
        return NamespacePolicy(_defaults(ctx), None)
    policy, _ = policy_from_labels(found.labels, _defaults(ctx))
    return NamespacePolicy(policy, found)


def _message(template: PodTemplate, mode: str, source: str, control: Control, violation: Violation) -> str:
    what = f"{control.title}: {violation.detail}"
    if mode == "enforce":
        if template.owner.kind == "Pod":
            return f"rejected by PodSecurity admission ({source}): {what}"
        return f"rejected by PodSecurity admission ({source}) when {template.label} creates its pods: {what}"
    verb = "warns" if mode == "warn" else "records an audit annotation"
    target = (
        "about the pod"
        if template.owner.kind == "Pod"
        else (
            f"when {template.label} is applied"
            if template.owner.kind in TEMPLATE_KINDS
            else f"about every pod {template.label} creates"
        )
    )
    return f"PodSecurity admission {verb} {target} ({source}): {what}"


def _hint(template: PodTemplate, control: Control) -> str:
    hint = f"{_FIXES[control.check_id]}; or label the namespace for a lower level if this workload must keep it"
    if device_driver(template) is not None:
        hint += (
            ". dralint's device-driver exemption does not reach admission: run drivers in a namespace labelled "
            "`pod-security.kubernetes.io/enforce: privileged`"
        )
    return hint


def _template_verdicts(template: PodTemplate, ctx: Context) -> list[Verdict]:
    where = namespace_policy(ctx, template.owner.namespace)
    enabled = enabled_rule_ids(ctx)
    seen: set[tuple[str, Span]] = set()
    out = []
    for mode in MODES:
        level = where.policy.mode(mode)
        for control, violation in violations(template, level.level, level.version):
            rule, replaces = CONTROL_RULES[control.check_id]
            span = template.owner.span(violation.path, key=violation.key)
            if rule not in enabled or (rule, span) in seen:
                continue
            seen.add((rule, span))
            finding = template.owner.finding(
                violation.path,
                _message(template, mode, where.source(mode, level), control, violation),
                hint=_hint(template, control),
                rule=rule,
                key=violation.key,
                severity=Severity.ERROR if mode == "enforce" else Severity.WARNING,
            )
            out.append(Verdict(finding, replaces))
    return out


def template_verdicts(template: PodTemplate, ctx: Context) -> list[Verdict]:
    """The PSS findings for ``template``; the SEC check asks for them too, right after.

    Kept with the document (``derived``), not for the whole run: they are needed only while
    the object is being checked, and go when its document is frozen again.
    """
    owner = template.owner
    derived = owner.doc.derived
    key = (__name__, owner.base, template.path)
    if key not in derived:
        derived[key] = _template_verdicts(template, ctx)
    verdicts: list[Verdict] = derived[key]
    return verdicts


def replaced(template: PodTemplate, ctx: Context) -> set[tuple[str, Span]]:
    """``(SEC rule, span)`` pairs a PSS finding already reports for ``template``."""
    return {(rule, verdict.finding.span) for verdict in template_verdicts(template, ctx) for rule in verdict.replaces}


@object_check(*(rule for rule, _ in CONTROL_RULES.values()), kinds=POD_TEMPLATE_KINDS)
def check_admission(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Every control the namespace's enforce, warn or audit level finds broken in a pod template."""
    for template in pod_templates(obj):
        yield from (verdict.finding for verdict in template_verdicts(template, ctx))


@object_check(LABEL_RULE, kinds=("Namespace",))
def check_namespace_labels(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Pod-security labels the admission plugin cannot read: rejected values and unknown modes."""
    _, problems = policy_from_labels(obj.labels)
    for problem in problems:
        path = ("metadata", "labels", problem.label)
        yield obj.finding(
            path,
            f"label {problem.label}: {problem.value!r} {problem.message}"
            + ("; the API server refuses to create the Namespace with it" if problem.rejected else ""),
            hint='levels are privileged, baseline and restricted; versions are "latest" or "v1.<minor>"; modes '
            "are enforce, warn and audit",
            rule=LABEL_RULE,
            key=not problem.rejected,
            severity=Severity.ERROR if problem.rejected else Severity.WARNING,
        )
