"""The Pod Security Standards (baseline and restricted, policy v1.37) and how a namespace picks one.

PodSecurity admission checks every pod against the level its namespace names in the labels
``pod-security.kubernetes.io/<mode>`` (``enforce``, ``audit``, ``warn``) and
``<mode>-version``. The standard is a set of controls, each introduced at some policy version
and each reading fixed fields of the pod spec; the restricted level is every baseline control,
minus the ones a stricter restricted control replaces, plus the restricted controls. This module
holds those facts as data and plain functions: which fields each control reads, which values
it accepts at which policy version, and how namespace labels resolve to a level and version.
Which rule reports a control, and at what severity, is the checks' business.

The values follow the upstream policy code (``k8s.io/pod-security-admission/policy``) at
v1.37, not the documentation page, which lags it (image volumes, the newer sysctls).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from dralint.k8s.objects import PodTemplate
from dralint.k8s.podsec import ContainerSecurity, containers, is_windows
from dralint.yaml.loader import DataPath

Version = tuple[int, int]

LEVELS = ("privileged", "baseline", "restricted")
MODES = ("enforce", "warn", "audit")
LABEL_PREFIX = "pod-security.kubernetes.io/"
#: The newest policy version; ``latest`` and any later ``v1.x`` resolve to it.
LATEST: Version = (1, 37)
_VERSION_RE = re.compile(r"^v1\.(0|[1-9][0-9]*)$")

#: Capabilities a baseline container may add: the container runtimes' default set, NET_RAW excluded.
BASELINE_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
#: Sysctls the baseline level allows, by the policy version that added them.
SAFE_SYSCTLS_SINCE: dict[Version, frozenset[str]] = {
    (1, 0): frozenset(
        {
            "kernel.shm_rmid_forced",
            "net.ipv4.ip_local_port_range",
            "net.ipv4.tcp_syncookies",
            "net.ipv4.ping_group_range",
            "net.ipv4.ip_unprivileged_port_start",
        }
    ),
    (1, 27): frozenset({"net.ipv4.ip_local_reserved_ports"}),
    (1, 29): frozenset(
        {
            "net.ipv4.tcp_keepalive_time",
            "net.ipv4.tcp_fin_timeout",
            "net.ipv4.tcp_keepalive_intvl",
            "net.ipv4.tcp_keepalive_probes",
        }
    ),
    (1, 32): frozenset({"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}),
    (1, 37): frozenset({"net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"}),
}
#: SELinux types a baseline pod may set, by the policy version that added them ("" is unset).
SELINUX_TYPES_SINCE: dict[Version, frozenset[str]] = {
    (1, 0): frozenset({"", "container_t", "container_init_t", "container_kvm_t"}),
    (1, 31): frozenset({"container_engine_t"}),
}
#: Volume sources the restricted level allows (a volume with no source is defaulted to emptyDir).
RESTRICTED_VOLUME_SOURCES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "image",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)
ALLOWED_PROFILE_TYPES = frozenset({"RuntimeDefault", "Localhost"})
APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
#: From this policy version on, Windows pods skip the Linux-only restricted controls.
WINDOWS_EXEMPT_SINCE: Version = (1, 25)
#: From this policy version on, pods in a user namespace (``hostUsers: false``) skip the root checks.
USER_NAMESPACE_RELAXED_SINCE: Version = (1, 35)


def allowed_sysctls(version: Version) -> frozenset[str]:
    """The baseline sysctl allow-list at policy ``version``."""
    return frozenset().union(*(names for since, names in SAFE_SYSCTLS_SINCE.items() if since <= version))


def allowed_selinux_types(version: Version) -> frozenset[str]:
    """The SELinux types baseline accepts at policy ``version``."""
    return frozenset().union(*(names for since, names in SELINUX_TYPES_SINCE.items() if since <= version))


# --- levels, versions and namespace labels ------------------------------------------------


class LevelVersion(NamedTuple):
    """One mode's policy: a level and the policy version it is evaluated at."""

    level: str
    version: Version = LATEST
    written: str = "latest"

    def __str__(self) -> str:
        return f"{self.level}:{self.written}"


PRIVILEGED = LevelVersion("privileged")


class Policy(NamedTuple):
    """What a namespace enforces, warns about and audits."""

    enforce: LevelVersion = PRIVILEGED
    warn: LevelVersion = PRIVILEGED
    audit: LevelVersion = PRIVILEGED

    def mode(self, name: str) -> LevelVersion:
        return {"enforce": self.enforce, "warn": self.warn, "audit": self.audit}[name]


class LabelProblem(NamedTuple):
    """A pod-security label the admission plugin cannot read, and what it uses instead."""

    label: str
    value: Any
    message: str
    rejected: bool  # True: the API server refuses to create a Namespace with it


def parse_version(value: Any) -> Version | None:
    """``latest`` or ``v1.<minor>`` as a policy version (later ones clamp to LATEST); None if invalid."""
    if value == "latest":
        return LATEST
    match = _VERSION_RE.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    return min((1, int(match.group(1))), LATEST)


def policy_from_labels(labels: dict[str, Any], defaults: Policy = Policy()) -> tuple[Policy, list[LabelProblem]]:
    """The namespace's policy: each label present overrides the cluster default for its mode.

    A level the plugin cannot parse falls back to ``restricted`` for enforce (fail closed) and to
    ``privileged`` for warn and audit (fail open); a bad version falls back to ``latest``.
    """
    problems: list[LabelProblem] = []
    resolved = {}
    for mode in MODES:
        current = defaults.mode(mode)
        level, version, written = current.level, current.version, current.written
        level_label, version_label = LABEL_PREFIX + mode, LABEL_PREFIX + mode + "-version"
        if level_label in labels:
            level = labels[level_label]
            if level not in LEVELS:
                fallback = "restricted" if mode == "enforce" else "privileged"
                problems.append(
                    LabelProblem(
                        level_label, level, f"is not one of {', '.join(LEVELS)}; admission uses {fallback}", True
                    )
                )
                level = fallback
        if version_label in labels:
            raw = labels[version_label]
            parsed = parse_version(raw)
            if parsed is None:
                problems.append(
                    LabelProblem(version_label, raw, 'is not "latest" or "v1.<minor>"; admission uses latest', True)
                )
                version, written = LATEST, "latest"
            else:
                version, written = parsed, str(raw)
        resolved[mode] = LevelVersion(level, version, written)
    for name in labels:
        if isinstance(name, str) and name.startswith(LABEL_PREFIX):
            suffix = name[len(LABEL_PREFIX) :]
            if suffix not in MODES and suffix.removesuffix("-version") not in MODES:
                problems.append(
                    LabelProblem(name, labels[name], "is no PodSecurity admission label; admission ignores it", False)
                )
    return Policy(**resolved), problems


# --- controls -----------------------------------------------------------------------------


class Violation(NamedTuple):
    """One field that breaks a control, with a short statement of what it sets."""

    path: DataPath
    detail: str
    key: bool = False


Finder = Callable[[PodTemplate, Version], Iterator[Violation]]


class Control(NamedTuple):
    """A control of the standard, named by its upstream check id and its published title."""

    check_id: str
    title: str
    level: str
    find: Finder
    since: Version = (1, 0)
    replaces: tuple[str, ...] = ()


def _member(value: Any, allowed: frozenset[str]) -> bool:
    """``value in allowed`` for any YAML value (lists and mappings are never members)."""
    return isinstance(value, str) and value in allowed


def _is_zero(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value == 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _who(sec: ContainerSecurity) -> str:
    return f"{sec.kind} '{sec.name}'"


def _names(secs: list[ContainerSecurity]) -> str:
    noun = "container" if len(secs) == 1 else "containers"
    return f"{noun} " + ", ".join(f"'{sec.name}'" for sec in secs)


def _pod_context(template: PodTemplate) -> dict[str, Any]:
    return _dict(template.spec.get("securityContext"))


def _pod_context_path(template: PodTemplate) -> DataPath:
    return template.path + ("securityContext",)


def _user_namespace(template: PodTemplate, version: Version) -> bool:
    return version >= USER_NAMESPACE_RELAXED_SINCE and template.spec.get("hostUsers") is False


def _windows_exempt(template: PodTemplate, version: Version) -> bool:
    return version >= WINDOWS_EXEMPT_SINCE and is_windows(template)


def _host_namespaces(template: PodTemplate, version: Version) -> Iterator[Violation]:
    for name in ("hostNetwork", "hostPID", "hostIPC"):
        if template.spec.get(name) is True:
            yield Violation(template.path + (name,), f"{name}=true")


def _privileged(template: PodTemplate, version: Version) -> Iterator[Violation]:
    for sec in containers(template):
        if sec.own.get("privileged") is True:
            yield Violation(sec.own_path + ("privileged",), f"{_who(sec)} sets privileged: true")


def _added(sec: ContainerSecurity) -> Iterator[tuple[DataPath, Any]]:
    added = _dict(sec.own.get("capabilities")).get("add")
    for index, cap in enumerate(_list(added)):
        yield sec.own_path + ("capabilities", "add", index), cap


def _capabilities_baseline(template: PodTemplate, version: Version) -> Iterator[Violation]:
    for sec in containers(template):
        for path, cap in _added(sec):
            if not _member(cap, BASELINE_CAPABILITIES):
                yield Violation(path, f"{_who(sec)} adds {cap}, which is outside the runtime's default set")


def host_path_anchor(template: PodTemplate, index: int, volume: dict[str, Any]) -> DataPath:
    """Where a finding about hostPath volume ``index`` points: its ``path`` value if written."""
    base = template.path + ("volumes", index, "hostPath")
    return base + ("path",) if "path" in _dict(volume.get("hostPath")) else base


def _volumes(template: PodTemplate) -> Iterator[tuple[int, dict[str, Any]]]:
    for index, volume in enumerate(_list(template.spec.get("volumes"))):
        if isinstance(volume, dict):
            yield index, volume


def _host_path_volumes(template: PodTemplate, version: Version) -> Iterator[Violation]:
    for index, volume in _volumes(template):
        if volume.get("hostPath") is not None:
            yield Violation(
                host_path_anchor(template, index, volume), f"volume '{volume.get('name', index)}' is a hostPath volume"
            )


def _host_ports(template: PodTemplate, version: Version) -> Iterator[Violation]:
    for sec in containers(template):
        for index, port in enumerate(_list(sec.container.get("ports"))):
            host_port = _dict(port).get("hostPort")
            if host_port not in (None, 0):
                yield Violation(sec.path + ("ports", index, "hostPort"), f"{_who(sec)} uses hostPort {host_port}")


def _profile_types(template: PodTemplate, name: str) -> Iterator[tuple[DataPath, Any, str]]:
    """``(path, type, who)`` for ``<name>.type`` at pod level and in every container."""
    pod_value = _dict(_pod_context(template).get(name))
    if "type" in pod_value:
        yield _pod_context_path(template) + (name, "type"), pod_value["type"], "the pod"
    for sec in containers(template):
        own = _dict(sec.own.get(name))
        if "type" in own:
            yield sec.own_path + (name, "type"), own["type"], _who(sec)


def _app_armor(template: PodTemplate, version: Version) -> Iterator[Violation]:
    for path, value, who in _profile_types(template, "appArmorProfile"):
        if not _member(value, ALLOWED_PROFILE_TYPES):
            yield Violation(path, f"{who} sets appArmorProfile type {value}")
    annotations = _dict(template.metadata.get("annotations"))
    for name, value in annotations.items():
        if isinstance(name, str) and name.startswith(APPARMOR_ANNOTATION_PREFIX) and template.metadata_path is not None:
            text = value if isinstance(value, str) else str(value)
            if text not in ("", "runtime/default") and not text.startswith("localhost/"):
                yield Violation(template.metadata_path + ("annotations", name), f"annotation {name} is {text}")


def _selinux_settings(template: PodTemplate) -> Iterator[tuple[DataPath, dict[str, Any], str]]:
    pod_value = _pod_context(template).get("seLinuxOptions")
    if isinstance(pod_value, dict):
        yield _pod_context_path(template) + ("seLinuxOptions",), pod_value, "the pod"
    for sec in containers(template):
        own = sec.own.get("seLinuxOptions")
        if isinstance(own, dict):
            yield sec.own_path + ("seLinuxOptions",), own, _who(sec)


def _selinux(template: PodTemplate, version: Version) -> Iterator[Violation]:
    types = allowed_selinux_types(version)
    for path, options, who in _selinux_settings(template):
        value = options.get("type") or ""
        if not _member(value, types):
            yield Violation(path + ("type",), f"{who} sets seLinuxOptions type {value}")
        for name in ("user", "role"):
            if options.get(name) not in (None, ""):
                yield Violation(path + (name,), f"{who} sets seLinuxOptions {name} {options[name]}")


def _unmasked_proc(template: PodTemplate) -> Iterator[Violation]:
    for sec in containers(template):
        if "procMount" in sec.own and sec.own["procMount"] not in (None, "Default"):
            yield Violation(sec.own_path + ("procMount",), f"{_who(sec)} sets procMount {sec.own['procMount']}")


def _proc_mount_baseline(template: PodTemplate, version: Version) -> Iterator[Violation]:
    if not _user_namespace(template, version):
        yield from _unmasked_proc(template)


def _proc_mount_restricted(template: PodTemplate, version: Version) -> Iterator[Violation]:
    yield from _unmasked_proc(template)


def _seccomp_baseline(template: PodTemplate, version: Version) -> Iterator[Violation]:
    for path, value, who in _profile_types(template, "seccompProfile"):
        if value == "Unconfined":
            yield Violation(path, f"{who} sets seccompProfile type Unconfined")


def _sysctls(template: PodTemplate, version: Version) -> Iterator[Violation]:
    allowed = allowed_sysctls(version)
    for index, item in enumerate(_list(_pod_context(template).get("sysctls"))):
        name = _dict(item).get("name")
        if name is not None and not _member(name, allowed):
            yield Violation(_pod_context_path(template) + ("sysctls", index, "name"), f"the pod sets sysctl {name}")


def _host_process(template: PodTemplate, version: Version) -> Iterator[Violation]:
    if _dict(_pod_context(template).get("windowsOptions")).get("hostProcess") is True:
        yield Violation(
            _pod_context_path(template) + ("windowsOptions", "hostProcess"),
            "the pod sets windowsOptions.hostProcess: true",
        )
    for sec in containers(template):
        if _dict(sec.own.get("windowsOptions")).get("hostProcess") is True:
            yield Violation(
                sec.own_path + ("windowsOptions", "hostProcess"), f"{_who(sec)} sets windowsOptions.hostProcess: true"
            )


_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_HOOKS = ("postStart", "preStop")


def _handler_hosts(sec: ContainerSecurity) -> Iterator[tuple[DataPath, Any]]:
    handlers: list[tuple[DataPath, Any]] = [((probe,), sec.container.get(probe)) for probe in _PROBES]
    lifecycle = _dict(sec.container.get("lifecycle"))
    handlers += [(("lifecycle", hook), lifecycle.get(hook)) for hook in _HOOKS]
    for where, handler in handlers:
        for action in ("httpGet", "tcpSocket"):
            host = _dict(_dict(handler).get(action)).get("host")
            if host not in (None, ""):
                yield sec.path + where + (action, "host"), host


def _probe_hosts(template: PodTemplate, version: Version) -> Iterator[Violation]:
    for sec in containers(template):
        for path, host in _handler_hosts(sec):
            yield Violation(path, f"{_who(sec)} probes or hooks host {host}")


def _volume_sources(volume: dict[str, Any]) -> list[str]:
    """The volume's source fields; none for a volume the API defaults to emptyDir."""
    return [name for name, value in volume.items() if name != "name" and value is not None and isinstance(name, str)]


def _restricted_volumes(template: PodTemplate, version: Version) -> Iterator[Violation]:
    for index, volume in _volumes(template):
        sources = _volume_sources(volume)
        if not sources or RESTRICTED_VOLUME_SOURCES.intersection(sources):
            continue
        source = sources[0]
        path = (
            host_path_anchor(template, index, volume)
            if source == "hostPath"
            else template.path + ("volumes", index, source)
        )
        yield Violation(
            path, f"volume '{volume.get('name', index)}' uses the volume type {source}", key=source != "hostPath"
        )


def _escalation(template: PodTemplate, version: Version) -> Iterator[Violation]:
    if _windows_exempt(template, version):
        return
    for sec in containers(template):
        value = sec.own.get("allowPrivilegeEscalation")
        if value is False:
            continue
        if value is not None:
            yield Violation(
                sec.own_path + ("allowPrivilegeEscalation",), f"{_who(sec)} sets allowPrivilegeEscalation: {value}"
            )
        else:
            yield Violation(sec.anchor, f"{_who(sec)} does not set allowPrivilegeEscalation: false")


def _missing(template: PodTemplate, secs: list[ContainerSecurity], field_name: str, wanted: str) -> Iterator[Violation]:
    """One violation for the containers a required pod-level setting would have covered."""
    if secs:
        yield Violation(
            _pod_context_path(template), f"neither the pod nor {_names(secs)} set {field_name}: {wanted}", key=True
        )


def _run_as_non_root(template: PodTemplate, version: Version) -> Iterator[Violation]:
    if _user_namespace(template, version):
        return
    pod_value = _pod_context(template).get("runAsNonRoot")
    if pod_value is not None and pod_value is not True:
        yield Violation(_pod_context_path(template) + ("runAsNonRoot",), f"the pod sets runAsNonRoot: {pod_value}")
    unset = []
    for sec in containers(template):
        if sec.own.get("runAsNonRoot") is None:
            if pod_value is not True:
                unset.append(sec)
        elif sec.own["runAsNonRoot"] is not True:
            yield Violation(
                sec.own_path + ("runAsNonRoot",), f"{_who(sec)} sets runAsNonRoot: {sec.own['runAsNonRoot']}"
            )
    yield from _missing(template, unset, "runAsNonRoot", "true")


def _run_as_user(template: PodTemplate, version: Version) -> Iterator[Violation]:
    if _user_namespace(template, version):
        return
    if _is_zero(_pod_context(template).get("runAsUser")):
        yield Violation(_pod_context_path(template) + ("runAsUser",), "the pod sets runAsUser: 0")
    for sec in containers(template):
        if _is_zero(sec.own.get("runAsUser")):
            yield Violation(sec.own_path + ("runAsUser",), f"{_who(sec)} sets runAsUser: 0")


def _seccomp_restricted(template: PodTemplate, version: Version) -> Iterator[Violation]:
    if _windows_exempt(template, version):
        return
    pod_type = _dict(_pod_context(template).get("seccompProfile")).get("type")
    for path, value, who in _profile_types(template, "seccompProfile"):
        if not _member(value, ALLOWED_PROFILE_TYPES):
            yield Violation(path, f"{who} sets seccompProfile type {value}")
    unset = [sec for sec in containers(template) if "type" not in _dict(sec.own.get("seccompProfile"))]
    if not _member(pod_type, ALLOWED_PROFILE_TYPES):
        yield from _missing(template, unset, "seccompProfile.type", "RuntimeDefault or Localhost")


def _capabilities_restricted(template: PodTemplate, version: Version) -> Iterator[Violation]:
    if _windows_exempt(template, version):
        return
    for sec in containers(template):
        drop = _dict(sec.own.get("capabilities")).get("drop")
        if "ALL" not in _list(drop):  # exact: admission does not accept "all" or CAP_ALL
            path = sec.own_path + ("capabilities", "drop") if isinstance(drop, list) else sec.anchor
            yield Violation(path, f"{_who(sec)} does not drop ALL capabilities")
        for path, cap in _added(sec):
            if cap != "NET_BIND_SERVICE":  # an exact string match, as admission compares
                yield Violation(path, f"{_who(sec)} adds {cap}; only NET_BIND_SERVICE may be added")


CONTROLS: tuple[Control, ...] = (
    Control("hostNamespaces", "Host Namespaces", "baseline", _host_namespaces),
    Control("privileged", "Privileged Containers", "baseline", _privileged),
    Control("capabilities_baseline", "Capabilities", "baseline", _capabilities_baseline),
    Control("hostPathVolumes", "HostPath Volumes", "baseline", _host_path_volumes),
    Control("hostPorts", "Host Ports", "baseline", _host_ports),
    Control("appArmorProfile", "AppArmor", "baseline", _app_armor),
    Control("seLinuxOptions", "SELinux", "baseline", _selinux),
    Control("procMount", "/proc Mount Type", "baseline", _proc_mount_baseline),
    Control("seccompProfile_baseline", "Seccomp", "baseline", _seccomp_baseline),
    Control("sysctls", "Sysctls", "baseline", _sysctls),
    Control("windowsHostProcess", "HostProcess", "baseline", _host_process),
    Control("hostProbesAndHostLifecycle", "Host Probes / Lifecycle Hooks", "baseline", _probe_hosts, since=(1, 34)),
    Control("restrictedVolumes", "Volume Types", "restricted", _restricted_volumes, replaces=("hostPathVolumes",)),
    Control("allowPrivilegeEscalation", "Privilege Escalation", "restricted", _escalation, since=(1, 8)),
    Control("runAsNonRoot", "Running as Non-root", "restricted", _run_as_non_root),
    Control("runAsUser", "Running as Non-root user", "restricted", _run_as_user, since=(1, 23)),
    Control(
        "seccompProfile_restricted",
        "Seccomp",
        "restricted",
        _seccomp_restricted,
        since=(1, 19),
        replaces=("seccompProfile_baseline",),
    ),
    Control(
        "capabilities_restricted",
        "Capabilities",
        "restricted",
        _capabilities_restricted,
        since=(1, 22),
        replaces=("capabilities_baseline",),
    ),
    Control(
        "procMount_restricted",
        "/proc Mount Type",
        "restricted",
        _proc_mount_restricted,
        since=(1, 35),
        replaces=("procMount",),
    ),
)


def controls_for(level: str, version: Version) -> list[Control]:
    """The controls a pod must pass at ``level`` and policy ``version`` (privileged: none)."""
    if level not in ("baseline", "restricted"):
        return []
    chosen = [c for c in CONTROLS if c.since <= version and (c.level == "baseline" or level == "restricted")]
    replaced = {name for c in chosen for name in c.replaces}
    return [c for c in chosen if c.check_id not in replaced]


def violations(template: PodTemplate, level: str, version: Version) -> Iterator[tuple[Control, Violation]]:
    """Every field of ``template`` that PodSecurity admission at ``level:version`` objects to."""
    for control in controls_for(level, version):
        for violation in control.find(template, version):
            yield control, violation
