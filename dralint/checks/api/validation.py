"""API001-API019: what a v1.37 API server (strict field validation, default feature gates)
would say about each scanned object, at the key or value it would complain about.

The work is done by :mod:`dralint.k8s.apivalidation`; this module only turns its data-path errors
into positioned findings and adds the pod rules for every pod template an object carries, and the
controller rules (selector, restart policy, strategy) of the built-in workload kinds.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.apivalidation import ApiError, check_pod_spec, validate_object
from dralint.k8s.apivalidation import errors as E
from dralint.k8s.controllers import controller_errors
from dralint.k8s.objects import KubeObject, pod_templates
from dralint.lint.context import Context
from dralint.lint.registry import object_check

API_RULES = (
    E.UNKNOWN_FIELD,
    E.WRONG_TYPE,
    E.REQUIRED,
    E.UNSUPPORTED_VALUE,
    E.TOO_MANY,
    E.TOO_LONG,
    E.INVALID_FORMAT,
    E.ONE_OF,
    E.INVALID_VALUE,
    E.DUPLICATE,
    E.VERSION_NOT_SERVED,
    E.VERSION_DEPRECATED,
    E.UNKNOWN_KIND,
    E.NOT_VALIDATED,
    E.FEATURE_GATED,
    E.SERVER_WRITTEN,
    E.UNDEFINED_REFERENCE,
    E.EXTENDED_RESOURCE,
    E.NAMESPACE_IGNORED,
)


def _first_of_kind(obj: KubeObject, ctx: Context) -> bool:
    """True for the run's first scanned object of a custom-resource kind: one "not validated"
    note per kind is enough. Decided from the run's object order, not from which object a
    check happened to see first, so the answer is the same however the work is split."""
    first = ctx.memo(
        ("dralint.checks.api", "first-custom", obj.group, obj.kind),
        lambda: next((o for o in ctx.by_kind(obj.kind) if o.group == obj.group and o.origin == "scan"), None),
    )
    return first is obj


@object_check(*API_RULES)
def check_api_validation(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Schema, overlay, version and pod findings for one object."""
    errors: list[ApiError] = validate_object(
        obj.data, ctx.options.feature_gates, finite=obj.doc.finite
    ) + controller_errors(obj.data)
    for template in pod_templates(obj):
        errors += check_pod_spec(template.spec, template.path)
    gates = ctx.options.feature_gates
    for error in dict.fromkeys(errors):
        if error.gate and gates.get(error.gate):
            continue
        if error.rule == E.NOT_VALIDATED and not _first_of_kind(obj, ctx):
            continue
        yield obj.finding(error.path, error.message, hint=error.hint, rule=error.rule, key=error.key)
