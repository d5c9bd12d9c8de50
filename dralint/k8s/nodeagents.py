"""Node agents: DaemonSets whose pods do the node's device work and are privileged by design.

The GPU stack runs a pod on every GPU node that must reach the node itself: the driver
container loads kernel modules from the host root, DCGM and dcgm-exporter read the kubelet's
pod-resources socket, GPU feature discovery and node labellers read ``/dev`` and the driver's
files, the DRA kubelet plugin registers under ``/var/lib/kubelet/plugins``. Reporting their
``privileged: true`` as an error gates every vendor render; not reporting it at all hides an
application Deployment that copies the pattern. So the notion is narrow (see
docs/node-agents.md): a DaemonSet is a node agent when

* it mounts a directory of the node's device work (``DEVICE_WORK_PATHS``), **and**
* it runs in a system namespace (``SYSTEM_NAMESPACES``, or a name ending in ``-system``) or
  its pods carry a label of the GPU stack (``STACK_LABELS``);

or when the team declares it: its namespace, one of its pod labels (``key: value``) or one of
its images (a glob) is listed in the config.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

from dralint.k8s.objects import PodTemplate

#: Host directories only the node's device agents have reason to mount: the kubelet's
#: device-plugin, plugin, plugin-registry and pod-resources directories, the device nodes,
#: the NVIDIA driver container's install root, and the host root a driver is found under.
DEVICE_WORK_PATHS = (
    "/var/lib/kubelet/device-plugins",
    "/var/lib/kubelet/plugins",
    "/var/lib/kubelet/plugins_registry",
    "/var/lib/kubelet/pod-resources",
    "/dev",
    "/run/nvidia",
)
HOST_ROOT = "/"
#: Namespaces the GPU stack and the cluster's own node agents run in.
SYSTEM_NAMESPACES = frozenset(
    {
        "kube-system",
        "gpu-operator",
        "gpu-operator-resources",
        "nvidia-gpu-operator",
        "nvidia-dra-driver-gpu",
        "nvidia-device-plugin",
        "kube-amd-gpu",
        "amd-gpu-operator",
    }
)
#: Pod labels the vendors' renders put on their node agents (GPU Operator assets, the NVIDIA
#: DRA driver and device plugin charts, the AMD GPU operator).
STACK_LABELS: Mapping[str, frozenset[str]] = {
    "app": frozenset(
        {
            "nvidia-driver-daemonset",
            "nvidia-dcgm",
            "nvidia-dcgm-exporter",
            "gpu-feature-discovery",
            "nvidia-device-plugin-daemonset",
            "nvidia-container-toolkit-daemonset",
            "nvidia-mig-manager",
            "nvidia-dra-driver-gpu",
        }
    ),
    "app.kubernetes.io/part-of": frozenset({"nvidia-gpu", "gpu-operator", "nvidia-dra-driver-gpu", "amd-gpu"}),
    "app.kubernetes.io/component": frozenset({"nvidia-driver", "kubelet-plugin", "dcgm-exporter"}),
    "app.kubernetes.io/name": frozenset(
        {
            "dcgm-exporter",
            "gpu-feature-discovery",
            "nvidia-dcgm-exporter",
            "nvidia-device-plugin",
            "nvidia-dra-driver-gpu",
            "amdgpu-node-labeller",
            "amd-gpu-node-labeller",
            "amdgpu-device-plugin",
        }
    ),
}


class Declared:
    """Node agents a team declares in the config, beside the ones recognised."""

    __slots__ = ("namespaces", "labels", "images")

    def __init__(
        self, namespaces: Iterable[str] = (), labels: Mapping[str, str] | None = None, images: Iterable[str] = ()
    ) -> None:
        self.namespaces = frozenset(namespaces)
        self.labels = dict(labels or {})
        self.images = tuple(images)


NONE_DECLARED = Declared()


def _device_mount(template: PodTemplate) -> str | None:
    volumes = template.spec.get("volumes")
    for volume in volumes if isinstance(volumes, list) else []:
        host = volume.get("hostPath") if isinstance(volume, dict) else None
        path = str(host.get("path", "")) if isinstance(host, dict) else ""
        clean = path.rstrip("/") or ("/" if path else "")
        if clean == HOST_ROOT:
            return "the host root"
        for directory in DEVICE_WORK_PATHS:
            if clean == directory or clean.startswith(directory + "/"):
                return directory
    return None


def _pod_labels(template: PodTemplate) -> dict[str, str]:
    labels = template.metadata.get("labels") if isinstance(template.metadata, dict) else None
    own = template.owner.labels
    merged = {**own, **labels} if isinstance(labels, dict) else dict(own)
    return {str(k): str(v) for k, v in merged.items()}


def _images(template: PodTemplate) -> Iterable[str]:
    for _, container in template.containers():
        image = container.get("image")
        if isinstance(image, str):
            yield image


def node_agent(template: PodTemplate, declared: Declared = NONE_DECLARED) -> str | None:
    """Why ``template``'s pods are a node agent, or None when they are not."""
    if template.owner.kind != "DaemonSet":
        return None
    namespace = template.owner.namespace or ""
    labels = _pod_labels(template)
    if namespace in declared.namespaces:
        return f"namespace {namespace} is in node-agent-namespaces"
    for key, value in declared.labels.items():
        if labels.get(key) == value:
            return f"label {key}={value} is in node-agent-labels"
    for image in _images(template):
        if any(fnmatch.fnmatchcase(image, pattern) for pattern in declared.images):
            return f"image {image} matches node-agent-images"
    mount = _device_mount(template)
    if mount is None:
        return None
    if namespace in SYSTEM_NAMESPACES or namespace.endswith("-system"):
        return f"a DaemonSet in namespace {namespace} that mounts {mount}"
    stack = next((f"{k}={v}" for k, v in labels.items() if v in STACK_LABELS.get(k, ())), None)
    if stack is not None:
        return f"a DaemonSet of the GPU stack, {stack}, that mounts {mount}"
    return None
