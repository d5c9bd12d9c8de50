"""Which kubelet release a pod's device features need, from the feature-gate history.

A kubelet may lag the control plane by up to three minor releases, so a pool upgraded node by
node runs kubelets that do not know a feature the scheduler already uses. The versions below are
the first releases in which each gate that the kubelet takes part in is on by default
(``pkg/features/versioned_kube_features.go``); an older kubelet either lacks the code or has the
gate off unless the operator turned it on. Only gates whose KEP lists the kubelet among the
components count: partitionable devices (KEP-4815: API server and scheduler) and the prioritized
list (``firstAvailable``) are resolved before the kubelet sees the chosen devices.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class KubeletFeature(NamedTuple):
    """A pod-visible DRA feature the kubelet must support."""

    key: str
    gate: str
    minimum: tuple[int, int]
    what: str


FEATURES = {
    f.key: f
    for f in (
        KubeletFeature("dra", "DynamicResourceAllocation", (1, 34), "ResourceClaims"),
        KubeletFeature("extended-resource", "DRAExtendedResource", (1, 36), "extended resources backed by DRA"),
        KubeletFeature("consumable-capacity", "DRAConsumableCapacity", (1, 36), "consumable capacity (shared devices)"),
    )
}

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?")


def minor_version(text: str) -> tuple[int, int] | None:
    """(major, minor) of a ``kubeletVersion`` such as ``v1.35.2-eks-1234``, or None."""
    match = _VERSION.match(text.strip()) if isinstance(text, str) else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def too_old(kubelet: str, keys: tuple[str, ...] | list[str] | set[str]) -> KubeletFeature | None:
    """The first feature of ``keys`` this kubelet version predates (None when all are fine or
    the version is unknown: no evidence is not a finding)."""
    have = minor_version(kubelet)
    if have is None:
        return None
    for key in sorted(keys, key=lambda k: FEATURES[k].minimum, reverse=True):
        if have < FEATURES[key].minimum:
            return FEATURES[key]
    return None


#: The words that mark a node reason as a kubelet-version reason (see :func:`describe`).
_REASON_MARK = ", the first release with "


def describe(feature: KubeletFeature, kubelet: str) -> str:
    """The reason a node is ruled out, in the scheduler's style of short node reasons."""
    major, minor = feature.minimum
    return f"kubelet {kubelet} is older than {major}.{minor}{_REASON_MARK}{feature.gate} on by default ({feature.what})"


def is_version_reason(reason: str) -> bool:
    """True for a node reason made by :func:`describe`."""
    return reason.startswith("kubelet ") and _REASON_MARK in reason
