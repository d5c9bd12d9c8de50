"""The device-driver exemption: node agents that must be privileged to do their job.

A DRA kubelet plugin or a device-plugin DaemonSet registers with the kubelet through a socket
under ``/var/lib/kubelet/plugins_registry`` (DRA) or ``/var/lib/kubelet/device-plugins``
(device plugins), and it has to see ``/dev``, CDI directories and often run privileged. Peers
handle this by switching every check off for named GPU DaemonSets. dralint waives only the
checks such a driver cannot pass, reports that it did (rule SEC030, info), and lets users
control it:

* automatically, for a DaemonSet that mounts one of the kubelet plugin directories;
* per workload, with the annotation ``dralint.io/device-driver`` on the object or its pod
  template: ``"true"`` (or a free-text reason) opts in, ``"false"`` opts out;
* per run, by turning rule SEC030 (``device-driver-exemption``) off: with
  ``--ignore device-driver-exemption`` nothing is waived and every finding is reported.
"""

from __future__ import annotations

from typing import NamedTuple

from dralint.k8s.migration import DEVICE_PLUGIN_DIR, DRA_PLUGIN_DIRS
from dralint.k8s.objects import PodTemplate
from dralint.lint.catalog import load_catalog
from dralint.lint.context import Context
from dralint.lint.engine import enabled_rules
from dralint.yaml.loader import DataPath

ANNOTATION = "dralint.io/device-driver"
EXEMPTION_RULE = "SEC030"
#: Host directories only a kubelet plugin (DRA driver or device plugin) has reason to mount.
KUBELET_PLUGIN_DIRS = (*DRA_PLUGIN_DIRS, DEVICE_PLUGIN_DIR)
#: Rules a device driver is expected to fail; everything else is still reported.
WAIVED_RULES = frozenset({"SEC001", "SEC002", "SEC003", "SEC008", "SEC011", "SEC012", "SEC026"})


class DriverExemption(NamedTuple):
    """Why a pod template counts as a device driver, and the data path that shows it."""

    reason: str
    path: DataPath


def _annotation(template: PodTemplate) -> tuple[str, DataPath] | None:
    """The opt-in/opt-out annotation, pod template first, then the owning object."""
    places = []
    if template.metadata_path is not None:
        places.append((template.metadata, template.metadata_path))
    places.append((template.owner.get(("metadata",)) or {}, ("metadata",)))
    for meta, path in places:
        annotations = meta.get("annotations") if isinstance(meta, dict) else None
        if isinstance(annotations, dict) and ANNOTATION in annotations:
            return str(annotations[ANNOTATION]).strip(), path + ("annotations", ANNOTATION)
    return None


def _plugin_dir(path: str) -> str | None:
    clean = path.rstrip("/")
    for directory in KUBELET_PLUGIN_DIRS:
        if clean == directory or clean.startswith(directory + "/"):
            return directory
    return None


def device_driver(template: PodTemplate) -> DriverExemption | None:
    """The exemption for ``template``, or None when it is an ordinary workload."""
    annotated = _annotation(template)
    if annotated is not None:
        value, path = annotated
        if value.lower() == "false":
            return None
        reason = (
            "it is annotated as a device driver"
            if value.lower() == "true"
            else f"it is annotated as a device driver ({value})"
        )
        return DriverExemption(f"{reason} with {ANNOTATION}", path)
    if template.owner.kind != "DaemonSet":
        return None
    volumes = template.spec.get("volumes")
    for index, volume in enumerate(volumes if isinstance(volumes, list) else []):
        host = volume.get("hostPath") if isinstance(volume, dict) else None
        directory = _plugin_dir(str(host.get("path", ""))) if isinstance(host, dict) else None
        if directory:
            kind = "device plugin" if directory.endswith("device-plugins") else "DRA kubelet plugin"
            return DriverExemption(
                f"it is a DaemonSet that mounts the kubelet's {directory}, so it is a {kind}",
                template.path + ("volumes", index, "hostPath", "path"),
            )
    return None


def enabled_rule_ids(ctx: Context) -> frozenset[str]:
    """Rule ids this run reports (profile, select and ignore applied), computed once."""
    return ctx.memo((__name__, "enabled"), lambda: frozenset(enabled_rules(ctx.options, load_catalog())))


def exemption_enabled(ctx: Context) -> bool:
    """Whether this run applies the exemption: rule SEC030 is enabled by profile and filters."""
    return EXEMPTION_RULE in enabled_rule_ids(ctx)
