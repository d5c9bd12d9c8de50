"""DeviceClasses that map the same extended resource name: only one of them is used."""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.migration import extended_resource_classes, winning_class
from dralint.lint.context import Context
from dralint.lint.registry import context_check


@context_check("EXT002")
def check_duplicate_extended_resource_name(ctx: Context) -> Iterator[Finding]:
    """Several classes with one ``extendedResourceName``: the scheduler picks the newest
    (creationTimestamp), then the smaller name; the others never serve that name."""
    for resource, classes in sorted(extended_resource_classes(ctx).items()):
        if len(classes) < 2 or not any(c.origin == "scan" for c in classes):
            continue
        winner, certain = winning_class(classes)
        distinct = sorted({c.name for c in classes})
        names = ", ".join(distinct)
        head = f"DeviceClasses {names} all map extended resource {resource}"
        if len(distinct) == 1:
            head = (
                f"DeviceClass {names} is defined {len(classes)} times, differently, and each maps extended resource "
                f"{resource}"
            )
            verdict = (
                "only the definition applied last exists, so what it does depends on the order they are applied in"
            )
        elif certain:
            verdict = f"the scheduler uses {winner.name!r} (newest creationTimestamp, then smallest name)"
        else:
            verdict = (
                "the scheduler uses the most recently created one (ties: the smallest name), so which one wins "
                "depends on creation order"
            )
        for device_class in classes:
            if device_class.origin != "scan" or (certain and device_class is winner):
                continue
            others = [c for c in classes if c is not device_class]
            yield device_class.finding(
                ("spec", "extendedResourceName"),
                f"{head}; {verdict}",
                hint="keep extendedResourceName on exactly one DeviceClass; pods that need the others can use "
                "`deviceclass.resource.kubernetes.io/<class>` or a ResourceClaim",
                related=tuple(
                    c.related(("spec", "extendedResourceName"), f"{c.display} also maps {resource}") for c in others
                ),
            )
