"""Service ports -> pod ports; Ingress -> Service, port and IngressClass; StatefulSet -> headless Service.

Targets are resolved through ``dralint.lint.refs`` (found / not in scope / missing when the
run proves it). Ports are compared only once the target is found: a port name that the target
does not have is certain, a number only suspicious (containers may listen on undeclared ports).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.diagnostics import Finding, Severity
from dralint.k8s.objects import KubeObject, PodTemplate
from dralint.k8s.ports import port_names, port_numbers, service_ports
from dralint.k8s.selection import equality_selector, selected_templates
from dralint.lint.context import Context
from dralint.lint.refs import reference_finding, resolve
from dralint.lint.registry import object_check
from dralint.yaml.loader import DataPath

NOT_IN_SCOPE = "REF012"


def _is_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _declared(templates: list[PodTemplate]) -> tuple[set[str], set[int] | None]:
    """Port names and numbers the templates' containers declare; numbers are None when some
    template declares none (its containers may listen anywhere, so numbers prove nothing)."""
    names: set[str] = set()
    numbers: set[int] | None = set()
    for template in templates:
        declared = {n for _, container in template.containers() for n in port_numbers(container)}
        names |= {n for _, container in template.containers() for n in port_names(container)}
        numbers = numbers | declared if numbers is not None and declared else None
    return names, numbers


@object_check("REF014", kinds={"Service"})
def check_target_ports(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Each ``targetPort`` (``port`` when unset) of a Service exists on the pods it selects."""
    spec = obj.get(("spec",))
    selector = obj.get(("spec", "selector"))
    if not isinstance(spec, dict) or not isinstance(selector, dict) or not selector:
        return
    templates = selected_templates(ctx, obj.namespace, equality_selector(selector))
    if not templates:
        return
    names, numbers = _declared(templates)
    shown = ", ".join(t.label for t in templates[:3])
    for index, port in service_ports(spec):
        target = port.get("targetPort", port.get("port"))
        path: DataPath = ("spec", "ports", index, "targetPort" if "targetPort" in port else "port")
        if isinstance(target, str) and not target.isdigit() and target not in names:
            listed = ", ".join(repr(n) for n in sorted(names)) or "none"
            yield obj.finding(
                path,
                f"{obj.display} forwards to port {target!r}, but no container of the pods it selects "
                f"({shown}) has a port of that name "
                f"(named ports: {listed}); the Service has no endpoints for it",
                hint="use a port name the containers declare, or the container port number",
                rule="REF014",
            )
        elif _is_number(target) and numbers is not None and target not in numbers:
            listed = ", ".join(str(n) for n in sorted(numbers))
            yield obj.finding(
                path,
                f"{obj.display} forwards to port {target}, which no container of the pods it selects "
                f"({shown}) declares "
                f"(declared: {listed}); unless the container listens there undeclared, connections are refused",
                hint="set targetPort to the port the container listens on",
                rule="REF014",
                severity=Severity.WARNING,
            )


def _backends(obj: KubeObject) -> Iterator[DataPath]:
    """Paths of every ``backend.service`` of an Ingress (default backend and rule paths)."""
    if isinstance(obj.get(("spec", "defaultBackend", "service")), dict):
        yield ("spec", "defaultBackend", "service")
    rules = obj.get(("spec", "rules"))
    for r_index, rule in enumerate(rules if isinstance(rules, list) else []):
        paths = (
            rule.get("http", {}).get("paths") if isinstance(rule, dict) and isinstance(rule.get("http"), dict) else None
        )
        for p_index, entry in enumerate(paths if isinstance(paths, list) else []):
            if (
                isinstance(entry, dict)
                and isinstance(entry.get("backend"), dict)
                and isinstance(entry["backend"].get("service"), dict)
            ):
                yield ("spec", "rules", r_index, "http", "paths", p_index, "backend", "service")


def _backend_port(obj: KubeObject, path: DataPath, service: KubeObject) -> Finding | None:
    """REF015 when the found Service has no port of the backend's name or number."""
    port = obj.get(path + ("port",))
    if not isinstance(port, dict):
        return None
    entries = [p for _, p in service_ports(service.get(("spec",)))]
    related = (service.related(("spec", "ports"), f"the ports of {service.display}", key=True),)
    # Lists, not sets: a malformed Service may hold a mapping where a port or its name belongs.
    if isinstance(port.get("name"), str) and port["name"] not in [p.get("name") for p in entries]:
        listed = ", ".join(repr(p["name"]) for p in entries if isinstance(p.get("name"), str)) or "none"
        return obj.finding(
            path + ("port", "name"),
            f"{obj.display} routes to port {port['name']!r} of {service.display}, which has no port of that name "
            f"(named ports: {listed})",
            hint="use a port name or number the Service declares",
            rule="REF015",
            related=related,
            severity=Severity.ERROR,
        )
    if _is_number(port.get("number")) and port["number"] not in [p.get("port") for p in entries]:
        listed = ", ".join(str(p.get("port")) for p in entries) or "none"
        return obj.finding(
            path + ("port", "number"),
            f"{obj.display} routes to port {port['number']} of {service.display}, which does not expose it "
            f"(ports: {listed})",
            hint="use a port the Service declares under spec.ports[].port",
            rule="REF015",
            related=related,
            severity=Severity.ERROR,
        )
    return None


@object_check("REF012", "REF015", "REF016", kinds={"Ingress"})
def check_ingress(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Ingress backends name existing Services and ports; ``ingressClassName`` an IngressClass."""
    if obj.group != "networking.k8s.io":
        return
    for path in _backends(obj):
        name = obj.get(path + ("name",))
        if not isinstance(name, str) or not name:
            continue
        resolution = resolve(ctx, "Service", obj.namespace, name, referrer=obj)
        if resolution.target is not None:
            finding = _backend_port(obj, path, resolution.target)
        else:
            finding = reference_finding(
                obj, path + ("name",), resolution, "the Ingress backend", missing_rule="REF015", scope_rule=NOT_IN_SCOPE
            )
        if finding:
            yield finding
    class_name = obj.get(("spec", "ingressClassName"))
    if isinstance(class_name, str) and class_name:
        resolution = resolve(ctx, "IngressClass", None, class_name, referrer=obj)
        finding = reference_finding(
            obj,
            ("spec", "ingressClassName"),
            resolution,
            "ingressClassName",
            missing_rule="REF016",
            scope_rule=NOT_IN_SCOPE,
        )
        if finding:
            yield finding


@object_check("REF012", "REF025", kinds={"StatefulSet"})
def check_governing_service(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """``serviceName`` names a headless Service, which gives each pod its stable DNS name."""
    name = obj.get(("spec", "serviceName"))
    if not isinstance(name, str) or not name:
        return
    resolution = resolve(ctx, "Service", obj.namespace, name, referrer=obj)
    service = resolution.target
    if service is None:
        finding = reference_finding(
            obj, ("spec", "serviceName"), resolution, "serviceName", missing_rule="REF025", scope_rule=NOT_IN_SCOPE
        )
        if finding:
            yield finding
    elif service.get(("spec", "clusterIP")) != "None":
        yield obj.finding(
            ("spec", "serviceName"),
            f"{obj.display} is governed by {service.display}, which is not headless (clusterIP is not None), "
            "so its pods get no stable per-pod DNS names",
            hint="set `clusterIP: None` on the Service (a separate Service can still load-balance)",
            rule="REF025",
            related=(service.related(("spec",), f"{service.display} is defined here", key=True),),
        )
