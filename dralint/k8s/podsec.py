"""The securityContext a container actually runs with, resolved from pod and container fields.

Peers' most reported false positives come from reading one level only: a pod-level
``runAsNonRoot: true`` protects every container, yet several tools still flag each container;
others accept ``allowPrivilegeEscalation: false`` at pod level, where the API has no such field.
This module is the single place that knows which fields a container inherits from
``spec.securityContext`` and which exist on the container only, so every security check asks
it instead of guessing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from dralint.k8s.objects import PodTemplate
from dralint.yaml.loader import DataPath

#: PodSecurityContext fields a container inherits unless its own securityContext sets them.
INHERITED_FIELDS = frozenset(
    {"runAsUser", "runAsGroup", "runAsNonRoot", "seccompProfile", "seLinuxOptions", "appArmorProfile", "windowsOptions"}
)
#: SecurityContext fields that exist on containers only; the pod-level struct has none of them.
CONTAINER_ONLY_FIELDS = frozenset(
    {"privileged", "allowPrivilegeEscalation", "readOnlyRootFilesystem", "capabilities", "procMount"}
)
#: Structs the kubelet merges field by field (the others are taken whole from one level).
_MERGED_STRUCTS = frozenset({"windowsOptions"})


class Setting(NamedTuple):
    """One effective value and the data path it came from (``None`` when nothing sets it)."""

    value: Any
    path: DataPath | None
    level: str | None = None  # "container" | "pod" | None

    @property
    def is_set(self) -> bool:
        return self.path is not None

    @property
    def inherited(self) -> bool:
        """True when the value comes from the pod's ``spec.securityContext``."""
        return self.level == "pod"


UNSET = Setting(None, None)


class ContainerSecurity:
    """A container of a pod template, with its effective security settings."""

    __slots__ = (
        "template",
        "path",
        "container",
        "name",
        "kind",
        "own",
        "pod",
        "own_path",
        "pod_path",
        "_settings",
        "__weakref__",
    )

    def __init__(self, template: PodTemplate, path: DataPath, container: dict[str, Any]) -> None:
        self.template = template
        self.path = path
        self.container = container
        # Read by every security rule for every container, so found once when the record is made.
        self.name = str(container.get("name") or path[-1])
        field_name = next((s for s in path if s in ("initContainers", "ephemeralContainers")), None)
        #: container, init container or ephemeral container, for messages
        self.kind = {"initContainers": "init container", "ephemeralContainers": "ephemeral container"}.get(
            field_name or "", "container"
        )
        own = container.get("securityContext")
        self.own: dict[str, Any] = own if isinstance(own, dict) else {}
        pod = template.spec.get("securityContext")
        self.pod: dict[str, Any] = pod if isinstance(pod, dict) else {}
        self.own_path = path + ("securityContext",)
        self.pod_path = template.path + ("securityContext",)
        self._settings: dict[tuple[str, str | None], Setting] = {}

    def get(self, name: str, sub: str | None = None) -> Setting:
        """The effective value of ``securityContext.<name>[.<sub>]`` for this container.

        Container-only fields are read from the container alone, even if someone wrote them at
        pod level (the API rejects that, and the kubelet would never apply it). Each answer is
        kept: the rules ask for the same fields (``privileged`` four times per container).
        """
        setting = self._settings.get((name, sub))
        if setting is None:
            setting = self._settings[(name, sub)] = self._resolve(name, sub) if self.own or self.pod else UNSET
        return setting

    def _resolve(self, name: str, sub: str | None) -> Setting:
        levels = [(self.own, self.own_path, "container")]
        if name in INHERITED_FIELDS:
            levels.append((self.pod, self.pod_path, "pod"))
        for context, base, level in levels:
            if name not in context:
                continue
            value = context[name]
            if sub is None:
                return Setting(value, base + (name,), level)
            if isinstance(value, dict) and sub in value:
                return Setting(value[sub], base + (name, sub), level)
            if name not in _MERGED_STRUCTS:
                return UNSET
        return UNSET

    def misplaced(self, name: str) -> DataPath | None:
        """The pod-level path of a container-only field written there by mistake, if any."""
        if name in CONTAINER_ONLY_FIELDS and name in self.pod:
            return self.pod_path + (name,)
        return None

    @property
    def anchor(self) -> DataPath:
        """Where a finding about a missing setting points: the container's ``name`` key."""
        return self.path + ("name",) if "name" in self.container else self.path

    def capabilities(self, which: str) -> tuple[list[str], DataPath | None]:
        """``capabilities.add`` or ``.drop`` as upper-case names without ``CAP_``, and its path."""
        caps = self.own.get("capabilities")
        values = caps.get(which) if isinstance(caps, dict) else None
        if not isinstance(values, list):
            return [], None
        names = [str(v).upper().removeprefix("CAP_") for v in values]
        return names, self.own_path + ("capabilities", which)


def is_windows(template: PodTemplate) -> bool:
    """A pod declared to run on Windows, where the Linux-only security fields do not apply."""
    os_spec = template.spec.get("os")
    return isinstance(os_spec, dict) and str(os_spec.get("name", "")).lower() == "windows"


def containers(template: PodTemplate) -> Iterator[ContainerSecurity]:
    """Every container of ``template`` (init and ephemeral included) with its settings.

    Built once per template: the SEC and PSS rules walk the containers a dozen times."""
    found = template.memo(
        __name__, lambda: [ContainerSecurity(template, path, container) for path, container in template.containers()]
    )
    return iter(found)


class RootVerdict(NamedTuple):
    """Whether a container may run as root, and the path of the setting that decides it."""

    may_run_as_root: bool
    path: DataPath | None
    reason: str


def run_as_root(sec: ContainerSecurity) -> RootVerdict:
    """Decide whether the container can start as UID 0, after inheritance.

    A non-zero ``runAsUser`` at either level is enough; ``runAsNonRoot: true`` is enough unless
    ``runAsUser: 0`` is in effect (then the kubelet refuses to start the container, still not
    root). An explicit ``runAsUser: 0`` or an override to ``runAsNonRoot: false`` is reported at
    the field that causes it.
    """
    user = sec.get("runAsUser")
    non_root = sec.get("runAsNonRoot")
    if user.is_set and isinstance(user.value, int) and not isinstance(user.value, bool):
        if user.value == 0:
            return RootVerdict(
                True, user.path, "runAsUser is 0 (root)" + (", inherited from the pod" if user.inherited else "")
            )
        return RootVerdict(False, user.path, f"runAsUser is {user.value}")
    if non_root.value is True:
        return RootVerdict(False, non_root.path, "runAsNonRoot is true")
    if non_root.is_set:
        return RootVerdict(True, non_root.path, "runAsNonRoot is false")
    return RootVerdict(True, None, "neither the pod nor the container sets runAsNonRoot: true or a non-zero runAsUser")
