"""What a workload exposes: SSH and privileged ports, Services outside the cluster, Ingress hosts and TLS.

Ports are read from ``containers[].ports[].containerPort`` (and a Service's ``port`` and
``targetPort`` for SSH). An Ingress is judged per host rule: TLS is missing for a host that no
``spec.tls[].hosts`` entry lists (an entry without hosts covers the default certificate's
hosts, so it counts for every rule), and a rule without a host, or with a ``*.`` host, answers
for every name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.diagnostics import Finding, Severity
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, pod_templates
from dralint.k8s.ports import service_ports
from dralint.lint.context import Context
from dralint.lint.registry import object_check

SSH_PORT = 22
#: Ports below this need root or CAP_NET_BIND_SERVICE to bind (Linux's default).
FIRST_UNPRIVILEGED_PORT = 1024


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@object_check("SEC040", "SEC041", kinds=POD_TEMPLATE_KINDS)
def check_container_ports(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Containers that listen on 22 (SSH) or another privileged port."""
    for template in pod_templates(obj):
        for path, container in template.containers():
            ports = container.get("ports")
            for index, port in enumerate(ports if isinstance(ports, list) else []):
                number = _number(port.get("containerPort")) if isinstance(port, dict) else None
                where = path + ("ports", index, "containerPort")
                name = container.get("name", "?")
                if number == SSH_PORT:
                    yield obj.finding(
                        where,
                        f"container {name!r} of {template.label} exposes port 22 (SSH): a shell server in a "
                        "container is a way in that bypasses RBAC and audit",
                        hint="remove the SSH server and the port; use `kubectl exec` or `kubectl debug`, which "
                        "RBAC controls",
                        rule="SEC040",
                    )
                elif number is not None and 0 < number < FIRST_UNPRIVILEGED_PORT:
                    yield obj.finding(
                        where,
                        f"container {name!r} of {template.label} listens on privileged port {number}, which "
                        "needs root or NET_BIND_SERVICE",
                        hint="listen on a port of 1024 or above and map it with the Service's `port`",
                        rule="SEC041",
                    )


@object_check("SEC040", "SEC042", kinds={"Service"})
def check_service_exposure(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Services reachable from outside the cluster, and Services that forward SSH."""
    kind = obj.get(("spec", "type"))
    if isinstance(kind, str) and kind in ctx.options.exposed_service_types:
        yield obj.finding(
            ("spec", "type"),
            f"{obj.display} is of type {kind}: it is reachable from outside the cluster on every node"
            + (" and through a cloud load balancer" if kind == "LoadBalancer" else ""),
            hint="use a ClusterIP Service behind an Ingress or Gateway; if the exposure is intended, suppress "
            "with a reason",
            rule="SEC042",
        )
    for index, port in service_ports(obj.get(("spec",))):
        for field_name in ("port", "targetPort"):
            if _number(port.get(field_name)) == SSH_PORT:
                yield obj.finding(
                    ("spec", "ports", index, field_name),
                    f"{obj.display} forwards port 22 (SSH)",
                    hint="remove the SSH port; use `kubectl exec` or `kubectl debug`",
                    rule="SEC040",
                )
                break


def _tls_hosts(obj: KubeObject) -> tuple[set[str], bool]:
    """Hosts listed under ``spec.tls``, and whether an entry without hosts covers all of them."""
    hosts: set[str] = set()
    covers_all = False
    entries = obj.get(("spec", "tls"))
    for entry in entries if isinstance(entries, list) else []:
        listed = entry.get("hosts") if isinstance(entry, dict) else None
        if isinstance(listed, list) and listed:
            hosts |= {h for h in listed if isinstance(h, str)}
        elif isinstance(entry, dict):
            covers_all = True
    return hosts, covers_all


@object_check("SEC043", kinds={"Ingress"})
def check_ingress_exposure(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Ingress host rules served without TLS (a warning), and rules that answer for any host name
    (info: often intended for a single-tenant controller)."""
    rules = obj.get(("spec", "rules"))
    tls, covers_all = _tls_hosts(obj)
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        if not isinstance(rule, dict):
            continue
        host = rule.get("host")
        at = ("spec", "rules", index, "host") if isinstance(host, str) else ("spec", "rules", index)
        if not isinstance(host, str) or not host:
            yield obj.finding(
                at,
                f"rule {index} of {obj.display} has no host, so it answers for every name that reaches the "
                "load balancer",
                hint="set `host:` to the name the service is published under",
                rule="SEC043",
                key=True,
                severity=Severity.INFO,
            )
        elif "*" in host:
            yield obj.finding(
                at,
                f"{obj.display} answers for any name matching {host}",
                hint="list the host names the service is published under",
                rule="SEC043",
                severity=Severity.INFO,
            )
        if isinstance(host, str) and host and host not in tls and not covers_all:
            yield obj.finding(
                at,
                f"{obj.display} serves {host} without TLS: no spec.tls entry lists the host, so traffic and "
                "credentials travel in clear text",
                hint=f"add `tls: [{{hosts: [{host}], secretName: <certificate-secret>}}]` (cert-manager can issue it)",
                rule="SEC043",
            )
