"""API-server validation for Kubernetes v1.37: "would ``kubectl apply`` accept this object?"

Pure functions over plain object data (no YAML, no positions): :func:`validate_object` returns
:class:`ApiError` records whose data paths the lint checks (``dralint/checks/api``) turn into
positioned diagnostics. Schemas and validators are loaded once per process.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from dralint.k8s.apivalidation.errors import WRONG_TYPE, ApiError, field_path
from dralint.k8s.apivalidation.pods import check_pod_spec
from dralint.k8s.apivalidation.schema import schema_set
from dralint.k8s.apivalidation.versions import VersionVerdict, check_version

__all__ = ["ApiError", "check_pod_spec", "validate_object", "version_verdict"]


def version_verdict(api_version: str, kind: str) -> VersionVerdict:
    """Whether v1.37 serves ``api_version``/``kind`` and which schema definition applies."""
    return check_version(api_version, kind, schema_set().index)


def validate_object(data: Mapping[str, Any], feature_gates: Mapping[str, bool] | None = None) -> list[ApiError]:
    """Version findings plus every schema/overlay error of one object (pod rules excluded).

    Errors about fields whose feature gate is enabled in ``feature_gates`` are dropped, since
    the user's cluster then accepts them.
    """
    verdict = version_verdict(str(data.get("apiVersion")), str(data.get("kind")))
    found = list(verdict.errors)
    if verdict.definition is not None:
        found += schema_set().validate(verdict.definition, data)
    non_finite = list(non_finite_numbers(data))
    if non_finite:
        # The schema validator sees NaN and infinity as null; say what the value really is.
        paths = {error.path for error in non_finite}
        found = [e for e in found if e.key or tuple(e.path) not in paths] + non_finite
    gates = feature_gates or {}
    return [e for e in found if not (e.gate and gates.get(e.gate))]


def non_finite_numbers(value: Any, path: tuple = ()) -> Iterator[ApiError]:
    """``.nan``, ``.inf``, ``-.inf`` and overflowing numbers (``1e999``) anywhere in an object.

    JSON has no such numbers, so kubectl cannot even send the object; every other check would
    see a number no quantity or integer field can hold.
    """
    if isinstance(value, float) and not math.isfinite(value):
        shown = ".nan" if math.isnan(value) else ".inf" if value > 0 else "-.inf"
        yield ApiError(path, WRONG_TYPE, f"{field_path(path)}: Invalid value: {shown}: must be a finite number; "
                                         "JSON has no NaN or infinity, so kubectl cannot send the object",
                       hint="write the number itself, or as a quoted quantity such as \"100Gi\"")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from non_finite_numbers(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from non_finite_numbers(item, path + (index,))
