"""Probe ports -> the container's own ports.

A probe that names a port (``port: http``) the container does not declare never succeeds: the
kubelet cannot resolve the name, so a liveness probe restarts the container forever and a
readiness probe keeps it out of every Service. Numbers are not checked, because a container
may listen on ports it does not declare (kube-linter reports those too; dralint does not).
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, pod_templates
from dralint.k8s.ports import port_names, probe_ports
from dralint.lint.context import Context
from dralint.lint.refs import looks_like_typo
from dralint.lint.registry import object_check


@object_check("REF026", kinds=POD_TEMPLATE_KINDS)
def check_probe_ports(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Named probe ports that the probed container does not declare."""
    for template in pod_templates(obj):
        for path, container in template.containers():
            names = port_names(container)
            for probe, probe_path, port in probe_ports(container):
                if not isinstance(port, str) or port in names or port.isdigit():
                    continue
                near = [n for n in names if looks_like_typo(port, n)]
                listed = ", ".join(repr(n) for n in names) if names else "no named ports"
                hint = (
                    f"did you mean {near[0]!r}?"
                    if near
                    else f"name a declared port, give the number, or add `ports: [{{name: {port}, containerPort: "
                    "<n>}]`"
                )
                yield obj.finding(
                    path + probe_path,
                    f"the {probe} of container {container.get('name', '?')!r} in {template.label} uses port {port!r}, "
                    f"which the container does not declare ({listed}); the probe can never succeed",
                    hint=hint,
                    rule="REF026",
                )
