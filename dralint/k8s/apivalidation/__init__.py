"""API-server validation for Kubernetes v1.37: "would ``kubectl apply`` accept this object?"

Pure functions over plain object data (no YAML, no positions): :func:`validate_object` returns
:class:`ApiError` records whose data paths the lint checks (``dralint/checks/api``) turn into
positioned diagnostics. Schemas and validators are loaded once per process.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping
from typing import Any

from dralint.k8s import objects
from dralint.k8s.apivalidation import errors as E
from dralint.k8s.apivalidation.errors import ApiError, field_path
from dralint.k8s.apivalidation.meta import check_object_meta, status_written
from dralint.k8s.apivalidation.pods import check_pod_spec
from dralint.k8s.apivalidation.schema import schema_set
from dralint.k8s.apivalidation.versions import VersionVerdict, check_version
from dralint.yaml.scalars import INT64_MAX, INT64_MIN, out_of_range

__all__ = ["ApiError", "check_pod_spec", "validate_object", "version_verdict"]


@functools.lru_cache(maxsize=1024)
def version_verdict(api_version: str, kind: str) -> VersionVerdict:
    """Whether v1.37 serves ``api_version``/``kind`` and which schema definition applies.

    Kept per pair (the verdict is immutable): a run asks once per object, about a handful of
    kinds."""
    return check_version(api_version, kind, schema_set().index)


def validate_object(
    data: Mapping[str, Any], feature_gates: Mapping[str, bool] | None = None, *, finite: bool = False
) -> list[ApiError]:
    """Version findings plus every schema/overlay error of one object (pod rules excluded).

    Errors about fields whose feature gate is enabled in ``feature_gates`` are dropped, since
    the user's cluster then accepts them. ``finite``: the caller knows no number in ``data`` is
    NaN or infinite (the YAML reader saw none, see ``Document.finite``), so the object is not
    searched for one.
    """
    verdict = version_verdict(str(data.get("apiVersion")), str(data.get("kind")))
    found = list(verdict.errors)
    if verdict.definition is not None:
        found += schema_set().validate(verdict.definition, data)
        found += _metadata(data, verdict.definition, found)
    non_finite = list(non_finite_numbers(data)) if not finite and _has_non_finite_number(data) else []
    if non_finite:
        # The schema validator sees NaN and infinity as null; say what the value really is.
        paths = {error.path for error in non_finite}
        found = [e for e in found if e.key or tuple(e.path) not in paths] + non_finite
    gates = feature_gates or {}
    return [e for e in found if not (e.gate and gates.get(e.gate)) and not _discarded_status(e)]


#: Errors the JSON decoder raises, which reach ``status`` too; every other check is validation,
#: which the server never runs on a status it discards.
_DECODE_ERRORS = frozenset({E.UNKNOWN_FIELD, E.WRONG_TYPE, E.SERVER_WRITTEN})


def _discarded_status(error: ApiError) -> bool:
    """A validation error inside ``status`` of an object whose create resets its status.

    On create the server decodes ``status`` (an unknown field or a wrong type still fails the
    request) and then replaces it, so a missing or malformed status field rejects nothing; the
    status as a whole is reported once as server-written (API016). (A Node keeps the status its
    kubelet creates it with, but the schema's required status fields are not what the server
    validates there either.)
    """
    return error.path[:1] == ("status",) and error.rule not in _DECODE_ERRORS


def _metadata(data: Mapping[str, Any], definition: str, found: list[ApiError]) -> list[ApiError]:
    """ObjectMeta and server-written ``status`` findings of a built-in kind; a ``status`` whose
    fields the overlay already reported one by one is not reported again as a whole."""
    kind = str(data.get("kind"))
    has_status = _has_status(definition)
    reported = any(e.rule == E.SERVER_WRITTEN and e.path[:1] == ("status",) for e in found)
    return check_object_meta(data, kind, kind in objects.CLUSTER_SCOPED_KINDS) + (
        [] if reported else status_written(data, has_status)
    )


@functools.lru_cache(maxsize=1024)
def _has_status(definition: str) -> bool:
    """Whether the kind of ``definition`` has a ``status`` (asked once per object, answered per kind)."""
    return "status" in schema_set().definitions.get(definition, {}).get("properties", {})


def _has_non_finite_number(value: Any) -> bool:
    """Whether ``non_finite_numbers`` would find anything: the same walk without building a
    path for every value, because almost no object holds such a number and every object is
    walked."""
    stack = [value]
    pop = stack.pop
    while stack:
        item = pop()
        kind = type(item)  # exact types first: they are nearly every value
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is str:
            continue
        elif kind is int or kind is float:
            if out_of_range(item):
                return True
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def non_finite_numbers(value: Any, path: tuple = ()) -> Iterator[ApiError]:
    """``.nan``, ``.inf``, ``-.inf``, overflowing numbers (``1e999``, a 5,000-digit integer) and
    integers past int64 anywhere in an object.

    JSON has no NaN or infinity, so kubectl cannot even send the object; the API server decodes
    every integer field as int32 or int64 and refuses a larger number; every other check would
    see a number no quantity or integer field can hold.
    """
    if type(value) is int and out_of_range(value):
        yield ApiError(
            path,
            E.WRONG_TYPE,
            f"{field_path(path)}: Invalid value: {value}: must fit in a 64-bit integer "
            f"({INT64_MIN} to {INT64_MAX}); the API server cannot decode a larger number",
            hint='write a smaller number, or a quoted quantity such as "100Gi" where the field takes one',
        )
    elif isinstance(value, float) and not math.isfinite(value):
        shown = ".nan" if math.isnan(value) else ".inf" if value > 0 else "-.inf"
        yield ApiError(
            path,
            E.WRONG_TYPE,
            f"{field_path(path)}: Invalid value: {shown}: must be a finite number (a number past "
            "1.8e308, such as an integer of hundreds of digits, is infinite too); JSON has no NaN or "
            "infinity, so kubectl cannot send the object",
            hint='write the number itself, or as a quoted quantity such as "100Gi"',
        )
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from non_finite_numbers(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from non_finite_numbers(item, path + (index,))
