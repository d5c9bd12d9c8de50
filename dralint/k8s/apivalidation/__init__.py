"""API-server validation for Kubernetes v1.37: "would ``kubectl apply`` accept this object?"

Pure functions over plain object data (no YAML, no positions): :func:`validate_object` returns
:class:`ApiError` records whose data paths the lint checks (``dralint/checks/api``) turn into
positioned diagnostics. Schemas and validators are loaded once per process.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dralint.k8s.apivalidation.errors import ApiError
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
    gates = feature_gates or {}
    return [e for e in found if not (e.gate and gates.get(e.gate))]
