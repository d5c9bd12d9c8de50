"""Prometheus Operator ServiceMonitors -> the Services they scrape.

A ServiceMonitor picks Services by label in the namespaces its ``namespaceSelector`` names
(``any: true``, a ``matchNames`` list, or by default its own namespace). As with pod selectors,
no match is not proof of a mistake: the Services may live in another repository. So the answer
follows the reference machinery: Services found, or not in scope (REF012, info), or a mistake
the run shows (matching Services in a namespace the monitor does not look at) or a run known to
hold every Service (``--closed-world Service``), which REF027 reports.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dralint.diagnostics import Finding
from dralint.k8s.objects import KubeObject
from dralint.k8s.selection import label_selector
from dralint.lint.context import Context
from dralint.lint.registry import object_check

NOT_IN_SCOPE = "REF012"


def watched_namespaces(monitor: KubeObject) -> set[str] | None:
    """The namespaces whose Services the monitor considers; None for every namespace."""
    chooser = monitor.get(("spec", "namespaceSelector"))
    if isinstance(chooser, dict) and chooser.get("any") is True:
        return None
    names = chooser.get("matchNames") if isinstance(chooser, dict) else None
    if isinstance(names, list) and names:
        return {str(name) for name in names}
    return {monitor.namespace or "default"}


def _labels(service: KubeObject) -> dict[str, Any]:
    labels = service.get(("metadata", "labels"))
    return labels if isinstance(labels, dict) else {}


@object_check("REF012", "REF027", kinds={"ServiceMonitor"})
def check_service_monitor(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A ServiceMonitor whose selector matches no Service of the namespaces it watches.

    An empty selector (every Service) and a monitor without one are skipped.
    """
    selector = obj.get(("spec", "selector"))
    if (
        obj.group != "monitoring.coreos.com"
        or not isinstance(selector, dict)
        or not (selector.get("matchLabels") or selector.get("matchExpressions"))
    ):
        return
    selects, namespaces = label_selector(selector), watched_namespaces(obj)
    matching = [s for s in ctx.objects if s.kind == "Service" and s.group == "" and selects(_labels(s))]
    if any(namespaces is None or s.namespace in namespaces for s in matching):
        return
    where = ", ".join(sorted(namespaces or ())) or "any namespace"
    if matching:
        elsewhere = ", ".join(f"{s.display}" for s in matching[:3])
        yield obj.finding(
            ("spec", "selector"),
            f"{obj.display} watches namespace {where}, but the Services its selector matches ({elsewhere}) "
            "are elsewhere: nothing is scraped",
            hint="add their namespace to `namespaceSelector.matchNames` (or move the ServiceMonitor)",
            rule="REF027",
            key=True,
            related=tuple(
                s.related(("metadata", "labels"), "a matching Service outside the watched namespaces", key=True)
                for s in matching[:3]
            ),
        )
    elif ctx.is_closed("Service"):
        yield obj.finding(
            ("spec", "selector"),
            f"{obj.display} selects no Service of namespace {where} (the run holds every Service: "
            "--closed-world Service): nothing is scraped",
            hint="correct the selector or the Service's labels",
            rule="REF027",
            key=True,
        )
    else:
        yield obj.finding(
            ("spec", "selector"),
            f"{obj.display} selects Services of namespace {where}; none among the scanned files matches, so "
            "the selection could not be checked",
            hint="add the Service's file to the run (or --context); if the run holds every Service, pass "
            "--closed-world Service",
            rule=NOT_IN_SCOPE,
            key=True,
        )
