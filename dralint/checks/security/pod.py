"""Pod and container hardening: privileges, host namespaces and paths, capabilities, seccomp.

Every rule reads effective settings through ``dralint.k8s.podsec`` (pod-level fields inherited,
container-only fields read from the container), so a pod-level ``runAsNonRoot: true`` satisfies
every container and a pod-level ``allowPrivilegeEscalation`` is recognised as a mistake rather
than as protection. Findings about a setting that no level makes are grouped per pod template,
because the fix (one pod-level field) is per template too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from dralint.checks.podsecurity.admission import replaced
from dralint.diagnostics import Finding, Severity
from dralint.k8s.nodeagents import Declared, node_agent
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, PodTemplate, pod_templates
from dralint.k8s.podsec import ContainerSecurity, containers, is_windows, run_as_root
from dralint.lint.context import Context
from dralint.lint.exemptions import EXEMPTION_RULE, WAIVED_RULES, device_driver, enabled_rule_ids, exemption_enabled
from dralint.lint.registry import object_check
from dralint.yaml.loader import DataPath

#: Added capabilities that amount to (near) root on the node.
DANGEROUS_CAPABILITIES = frozenset(
    {
        "ALL",
        "SYS_ADMIN",
        "NET_ADMIN",
        "SYS_MODULE",
        "SYS_PTRACE",
        "SYS_RAWIO",
        "SYS_BOOT",
        "BPF",
        "PERFMON",
        "DAC_READ_SEARCH",
        "SYS_CHROOT",
    }
)
#: Host paths of container-runtime sockets, with the runtime each belongs to: whoever can reach
#: one controls every container of the node.
RUNTIME_SOCKETS = {
    "/run/containerd/containerd.sock": "containerd",
    "/var/run/containerd/containerd.sock": "containerd",
    "/run/crio/crio.sock": "CRI-O",
    "/var/run/crio/crio.sock": "CRI-O",
    "/var/run/docker.sock": "Docker",
    "/run/docker.sock": "Docker",
    "/var/run/cri-dockerd.sock": "cri-dockerd",
    "/run/cri-dockerd.sock": "cri-dockerd",
}
#: Sysctls the kubelet allows without --allowed-unsafe-sysctls (Kubernetes v1.37).
SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
    }
)
_HOST_NAMESPACES = (
    (
        "SEC005",
        "hostNetwork",
        "shares the node's network namespace: it sees every interface and can bind any node port",
    ),
    ("SEC006", "hostPID", "shares the node's process namespace: it can see and signal every process on the node"),
    ("SEC007", "hostIPC", "shares the node's IPC namespace: it can read other processes' shared memory"),
)
POD_RULES = (
    "SEC001",
    "SEC002",
    "SEC003",
    "SEC004",
    "SEC005",
    "SEC006",
    "SEC007",
    "SEC008",
    "SEC009",
    "SEC010",
    "SEC011",
    "SEC012",
    "SEC013",
    "SEC023",
    "SEC028",
    "SEC024",
    "SEC025",
    "SEC026",
    EXEMPTION_RULE,
)


def _names(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _grouped(
    template: PodTemplate,
    rule: str,
    entries: Sequence[tuple[DataPath | None, ContainerSecurity, str]],
    hint: str,
    own_hint: str | None = None,
) -> Iterator[Finding]:
    """One finding per deciding field (or per template when no field decides), naming the
    containers. ``own_hint`` replaces a pod-level ``hint`` where the deciding field is the
    container's own: a pod-level setting would not win over it."""
    if not entries:
        return
    by_path: dict[DataPath | None, list[tuple[ContainerSecurity, str]]] = {}
    for path, sec, reason in entries:
        by_path.setdefault(path, []).append((sec, reason))
    for path, items in by_path.items():
        names = [sec.name for sec, _ in items]
        where = path if path is not None else template.path + ("securityContext",)
        noun = "container" if len(names) == 1 else "containers"
        own = path is not None and any(path[: len(sec.path)] == sec.path for sec, _ in items)
        yield template.owner.finding(
            where,
            f"{template.label}: {noun} {_names(names)} {items[0][1]}",
            hint=own_hint if own and own_hint else hint,
            rule=rule,
            key=path is None,
        )


# --- pod-level rules ----------------------------------------------------------------------


def _host_namespaces(template: PodTemplate) -> Iterator[Finding]:
    for rule, field_name, why in _HOST_NAMESPACES:
        if template.spec.get(field_name) is True:
            yield template.owner.finding(
                template.path + (field_name,),
                f"{template.label} {why}",
                hint=f"remove `{field_name}: true`; reach the pod through a Service instead",
                rule=rule,
            )


#: Socket file names of container runtimes, wherever a distribution puts them (k3s, microk8s).
_SOCKET_NAMES = {socket.rsplit("/", 1)[1]: runtime for socket, runtime in RUNTIME_SOCKETS.items()}


def _exposed(path: str) -> str | None:
    """What of the container runtimes a hostPath exposes, said as "which ...": the socket
    itself, or the sockets of the runtimes a directory holds (a node runs one of them)."""
    clean = path.rstrip("/") or "/"
    runtime = _SOCKET_NAMES.get(clean.rsplit("/", 1)[-1])
    if runtime is not None:
        return f"is the {runtime} socket"
    under = {s: r for s, r in RUNTIME_SOCKETS.items() if s.startswith(clean.rstrip("/") + "/")}
    if not under:
        return None
    runtimes = list(dict.fromkeys(under.values()))
    listed = ", ".join(runtimes[:-1]) + f" or {runtimes[-1]}" if len(runtimes) > 1 else runtimes[0]
    what = "is the node's root filesystem, so it holds" if clean == "/" else "holds"
    return f"{what} the container runtime's socket ({listed}, whichever the node runs)"


def host_path_volumes(template: PodTemplate) -> Iterator[tuple[int, str, dict]]:
    """``(index, host path, volume)`` for every hostPath volume of the template."""
    volumes = template.spec.get("volumes")
    for index, volume in enumerate(volumes if isinstance(volumes, list) else []):
        host = volume.get("hostPath") if isinstance(volume, dict) else None
        if isinstance(host, dict):
            yield index, str(host.get("path", "")), volume


def _host_paths(template: PodTemplate) -> Iterator[Finding]:
    for index, path, volume in host_path_volumes(template):
        where = template.path + ("volumes", index, "hostPath", "path")
        exposed = _exposed(path)
        if exposed:
            yield template.owner.finding(
                where,
                f"{template.label} mounts host path {path}, which {exposed}: "
                "it can start privileged containers on the node",
                hint=(
                    "remove the volume and its volumeMounts; build images with a rootless builder (kaniko, buildah)"
                    " instead"
                ),
                rule="SEC009",
            )
        else:
            yield template.owner.finding(
                where,
                f"{template.label} mounts host path {path} (volume '{volume.get('name', index)}')",
                hint="use a PersistentVolumeClaim, ConfigMap, emptyDir or CSI volume; if the host path is "
                "unavoidable, mount it with `readOnly: true`",
                rule="SEC008",
            )


def _writable_host_mounts(template: PodTemplate) -> Iterator[Finding]:
    host_volumes = {str(v.get("name")): path for _, path, v in host_path_volumes(template) if not _exposed(path)}
    if not host_volumes:
        return
    for sec in containers(template):
        mounts = sec.container.get("volumeMounts")
        for index, mount in enumerate(mounts if isinstance(mounts, list) else []):
            if isinstance(mount, dict) and str(mount.get("name")) in host_volumes and mount.get("readOnly") is not True:
                yield template.owner.finding(
                    sec.path + ("volumeMounts", index, "name"),
                    f"{template.label}: {sec.kind} '{sec.name}' mounts host path "
                    f"{host_volumes[str(mount['name'])]} writable",
                    hint="add `readOnly: true` to this volumeMount",
                    rule="SEC026",
                )


def _host_ports(template: PodTemplate) -> Iterator[Finding]:
    for sec in containers(template):
        ports = sec.container.get("ports")
        for index, port in enumerate(ports if isinstance(ports, list) else []):
            host_port = port.get("hostPort") if isinstance(port, dict) else None
            if (
                isinstance(host_port, int)
                and not isinstance(host_port, bool)
                and host_port != 0
                and template.spec.get("hostNetwork") is not True
            ):
                yield template.owner.finding(
                    sec.path + ("ports", index, "hostPort"),
                    f"{template.label}: {sec.kind} '{sec.name}' binds host port {host_port} on every node it runs on",
                    hint="remove `hostPort` and expose the port through a Service (ClusterIP, or "
                    "NodePort/LoadBalancer from outside)",
                    rule="SEC010",
                )


def _sysctls(template: PodTemplate) -> Iterator[Finding]:
    sysctls = (
        template.spec.get("securityContext", {}).get("sysctls")
        if isinstance(template.spec.get("securityContext"), dict)
        else None
    )
    for index, item in enumerate(sysctls if isinstance(sysctls, list) else []):
        name = str(item.get("name", "")) if isinstance(item, dict) else ""
        if name and name.replace("/", ".") not in SAFE_SYSCTLS:
            yield template.owner.finding(
                template.path + ("securityContext", "sysctls", index, "name"),
                f"{template.label} sets the unsafe sysctl {name}; the kubelet rejects the pod unless the "
                "node allows it with --allowed-unsafe-sysctls",
                hint="remove it, or use a safe sysctl such as net.ipv4.ip_local_port_range",
                rule="SEC025",
            )


# --- container-level rules ----------------------------------------------------------------


def _privileged(sec: ContainerSecurity) -> Iterator[Finding]:
    setting = sec.get("privileged")
    if setting.value is True and setting.path is not None:  # only UNSET has no path, and its value is None
        yield sec.template.owner.finding(
            setting.path,
            f"{sec.template.label}: {sec.kind} '{sec.name}' runs privileged: it has every capability and "
            "every host device",
            hint="remove `privileged: true`; add only the capability it needs (`capabilities: {add: "
            "[NET_BIND_SERVICE]}`) and request devices through a ResourceClaim",
            rule="SEC001",
        )


def _misplaced_note(sec: ContainerSecurity, name: str) -> tuple[str, tuple]:
    """Extra message text and a related location when a container-only field sits at pod level."""
    path = sec.misplaced(name)
    if path is None:
        return "", ()
    note = f"; spec.securityContext.{name} is not a pod-level field and protects nothing"
    return note, (
        sec.template.owner.related(path, f"{name} set at pod level, where the API has no such field", key=True),
    )


def _escalation(sec: ContainerSecurity) -> Iterator[Finding]:
    if sec.get("privileged").value is True:
        return
    setting = sec.get("allowPrivilegeEscalation")
    if setting.value is False:
        return
    note, related = _misplaced_note(sec, "allowPrivilegeEscalation")
    state = "sets allowPrivilegeEscalation: true" if setting.is_set else "does not set allowPrivilegeEscalation: false"
    yield sec.template.owner.finding(
        setting.path or sec.anchor,
        f"{sec.template.label}: {sec.kind} '{sec.name}' {state}, so setuid binaries can gain privileges{note}",
        hint="set `securityContext: {allowPrivilegeEscalation: false}` on the container (it is a container-only field)",
        rule="SEC002",
        related=related,
    )


def _read_only_root(sec: ContainerSecurity) -> Iterator[Finding]:
    setting = sec.get("readOnlyRootFilesystem")
    if setting.value is True:
        return
    note, related = _misplaced_note(sec, "readOnlyRootFilesystem")
    yield sec.template.owner.finding(
        setting.path or sec.anchor,
        f"{sec.template.label}: {sec.kind} '{sec.name}' has a writable root filesystem{note}",
        hint="set `securityContext: {readOnlyRootFilesystem: true}` on the container and mount an emptyDir where "
        "it must write (e.g. /tmp)",
        rule="SEC004",
        related=related,
    )


def _capabilities(sec: ContainerSecurity) -> Iterator[Finding]:
    added, add_path = sec.capabilities("add")
    for index, cap in enumerate(added):
        if cap in DANGEROUS_CAPABILITIES and add_path is not None:
            yield sec.template.owner.finding(
                add_path + (index,),
                f"{sec.template.label}: {sec.kind} '{sec.name}' adds the capability {cap}, which is close to "
                "root on the node",
                hint="remove it from `capabilities.add`; grant the one narrow capability the program needs",
                rule="SEC011",
            )
    if sec.get("privileged").value is True:
        return
    dropped, drop_path = sec.capabilities("drop")
    if "ALL" not in dropped:
        note, related = _misplaced_note(sec, "capabilities")
        yield sec.template.owner.finding(
            drop_path or sec.anchor,
            f"{sec.template.label}: {sec.kind} '{sec.name}' keeps the runtime's default capabilities "
            f"(NET_RAW among them){note}",
            hint='set `securityContext: {capabilities: {drop: ["ALL"]}}` and add back only what is needed',
            rule="SEC012",
            related=related,
        )


def _proc_mount(sec: ContainerSecurity) -> Iterator[Finding]:
    setting = sec.get("procMount")
    if sec.template.spec.get("hostUsers") is not False:
        return  # without a user namespace the server rejects Unmasked: API009's finding
    if setting.path is not None and setting.value != "Default":
        yield sec.template.owner.finding(
            setting.path,
            f"{sec.template.label}: {sec.kind} '{sec.name}' uses procMount {setting.value}, which unmasks "
            "host information in /proc",
            hint="remove `procMount` (or set `procMount: Default`)",
            rule="SEC024",
        )


_LINUX_CONTAINER_RULES: tuple[Callable[[ContainerSecurity], Iterator[Finding]], ...] = (
    _escalation,
    _read_only_root,
    _capabilities,
    _proc_mount,
)


# --- inherited settings, grouped per template ---------------------------------------------


def _root(template: PodTemplate, secs: list[ContainerSecurity]) -> Iterator[Finding]:
    entries = []
    for sec in secs:
        verdict = run_as_root(sec)
        if verdict.may_run_as_root:
            entries.append((verdict.path, sec, f"may run as root because {verdict.reason}"))
    yield from _grouped(
        template,
        "SEC003",
        entries,
        "set `securityContext: {runAsNonRoot: true, runAsUser: 10001}` at pod level (containers inherit it)",
        "set `securityContext: {runAsNonRoot: true, runAsUser: 10001}` on the container: its own setting wins over "
        "the pod's",
    )


def _low_ids(template: PodTemplate, secs: list[ContainerSecurity]) -> Iterator[Finding]:
    entries = []
    for sec in secs:
        for field_name in ("runAsUser", "runAsGroup"):
            setting = sec.get(field_name)
            if isinstance(setting.value, int) and not isinstance(setting.value, bool) and 0 < setting.value <= 10000:
                entries.append(
                    (
                        setting.path,
                        sec,
                        f"would act as ID {setting.value} of the node ({field_name}) after an escape; low "
                        "IDs often belong to node users",
                    )
                )
    yield from _grouped(
        template,
        "SEC028",
        entries,
        "use IDs above 10000, e.g. `securityContext: {runAsUser: 10001, runAsGroup: 10001}` at pod level",
    )


def _seccomp(template: PodTemplate, secs: list[ContainerSecurity]) -> Iterator[Finding]:
    unconfined, missing = [], []
    for sec in secs:
        if sec.get("privileged").value is True:
            continue  # the runtime applies no seccomp profile to privileged containers
        setting = sec.get("seccompProfile", "type")
        if setting.value == "Unconfined":
            unconfined.append((setting.path, sec, "can make every system call: seccomp is Unconfined"))
        elif not setting.is_set:
            missing.append(
                (None, sec, "can make every system call: no seccomp profile is set at pod or container level")
            )
    hint = "set `securityContext: {seccompProfile: {type: RuntimeDefault}}` at pod level (containers inherit it)"
    own = "set `securityContext: {seccompProfile: {type: RuntimeDefault}}` on the container: its own setting wins"
    yield from _grouped(template, "SEC013", unconfined, hint, own)
    yield from _grouped(template, "SEC013", missing, hint)


def _host_process(template: PodTemplate, secs: list[ContainerSecurity]) -> Iterator[Finding]:
    entries = []
    for sec in secs:
        setting = sec.get("windowsOptions", "hostProcess")
        if setting.value is True:
            entries.append((setting.path, sec, "can reach the whole Windows node: they run as HostProcess containers"))
    yield from _grouped(template, "SEC023", entries, "remove `windowsOptions: {hostProcess: true}`")


def _template_findings(template: PodTemplate, enabled: frozenset[str]) -> Iterator[Finding]:
    """Every hardening finding of ``template``. SEC026 and SEC028 are strict-only: when the run
    drops them, their containers are not walked for findings nobody reports."""
    secs = list(containers(template))
    windows = is_windows(template)
    yield from _host_namespaces(template)
    yield from _host_paths(template)
    if "SEC026" in enabled:
        yield from _writable_host_mounts(template)
    yield from _host_ports(template)
    yield from _sysctls(template)
    yield from _host_process(template, secs)
    for sec in secs:
        yield from _privileged(sec)
        if not windows:
            for rule in _LINUX_CONTAINER_RULES:
                yield from rule(sec)
    if not windows:
        yield from _root(template, secs)
        if "SEC028" in enabled:
            yield from _low_ids(template, secs)
        yield from _seccomp(template, secs)


#: What a node agent does by design (docs/node-agents.md): privileged, host paths, the node's
#: process and IPC namespaces, the host root. For node agents these are warnings that say why.
TOLERATED_RULES = frozenset({"SEC001", "SEC006", "SEC007", "SEC008", "SEC009", "SEC026"})


def _declared(ctx: Context) -> Declared:
    options = ctx.options
    return ctx.memo(
        (__name__, "declared-node-agents"),
        lambda: Declared(options.node_agent_namespaces, options.node_agent_labels, options.node_agent_images),
    )


def _tolerated(finding: Finding, reason: str) -> Finding:
    return replace(
        finding,
        severity=Severity.WARNING,
        message=f"{finding.message}; a warning only, as it is a node agent ({reason}), which needs this by design",
    )


@object_check(*POD_RULES, kinds=POD_TEMPLATE_KINDS)
def check_pod_security(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Hardening findings for every pod template, minus what the device-driver exemption waives
    and what a PSS rule already reports at the same field (one mistake, one finding)."""
    active = exemption_enabled(ctx)
    enabled = enabled_rule_ids(ctx)
    for template in pod_templates(obj):
        taken = replaced(template, ctx)
        findings = (
            [f for f in _template_findings(template, enabled) if (f.rule, f.span) not in taken]
            if taken
            else list(_template_findings(template, enabled))
        )
        agent = node_agent(template, _declared(ctx)) if template.owner.kind == "DaemonSet" else None
        if agent is not None:
            findings = [_tolerated(f, agent) if f.rule in TOLERATED_RULES else f for f in findings]
        exemption = device_driver(template) if active else None
        if exemption is None:
            yield from findings
            continue
        waived = [f for f in findings if f.rule in WAIVED_RULES and f.rule in enabled]
        yield from (f for f in findings if f.rule not in WAIVED_RULES)
        if waived:
            rules = sorted({f.rule or "" for f in waived})
            yield obj.finding(
                exemption.path,
                f"{template.label} is exempted from {', '.join(rules)} ({len(waived)} finding(s) waived) "
                f"because {exemption.reason}",
                hint="device drivers need privileges and host paths; to see the waived findings anyway, set the "
                "annotation "
                '`dralint.io/device-driver: "false"` on the workload or run with `--ignore device-driver-exemption`',
                rule=EXEMPTION_RULE,
            )
