"""The named objects a pod needs before its containers can start, and where it names them.

A pod names its ServiceAccount, the ConfigMaps and Secrets its environment and volumes read
(and the keys it reads from them), and the PersistentVolumeClaims it mounts. Every such
reference is listed here once, with the pod spec path of the name, so reference checks and
fixes agree on what a pod depends on. A reference marked ``optional: true`` lets the pod start
without its target, so it is listed as optional.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from dralint.k8s.objects import PodTemplate
from dralint.yaml.loader import DataPath


class PodReference(NamedTuple):
    """``kind name`` named at ``path`` (the name's value) of a pod template; a reference to one
    ``key`` of a ConfigMap or Secret comes after the reference to the object itself."""

    kind: str
    name: str
    path: DataPath
    key: str | None = None
    key_path: DataPath | None = None
    optional: bool = False


def _named(kind: str, holder: Any, name_field: str, path: DataPath) -> PodReference | None:
    if not isinstance(holder, dict):
        return None
    name = holder.get(name_field)
    if not isinstance(name, str) or not name:
        return None
    return PodReference(kind, name, path + (name_field,), optional=holder.get("optional") is True)


def _with_keys(ref: PodReference | None, holder: dict, path: DataPath) -> Iterator[PodReference]:
    """``ref`` itself, then one reference per ``items[].key`` of a volume source."""
    if ref is None:
        return
    yield ref
    items = holder.get("items")
    for index, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            yield PodReference(ref.kind, ref.name, ref.path, item["key"], path + ("items", index, "key"), ref.optional)


def _container_refs(path: DataPath, container: dict[str, Any]) -> Iterator[PodReference]:
    env = container.get("env")
    for index, var in enumerate(env if isinstance(env, list) else []):
        source = var.get("valueFrom") if isinstance(var, dict) else None
        if not isinstance(source, dict):
            continue
        for field_name, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
            holder = source.get(field_name)
            where = path + ("env", index, "valueFrom", field_name)
            ref = _named(kind, holder, "name", where)
            if ref is not None and isinstance(holder, dict):
                yield ref
                if isinstance(holder.get("key"), str):
                    yield PodReference(kind, ref.name, ref.path, holder["key"], where + ("key",), ref.optional)
    env_from = container.get("envFrom")
    for index, source in enumerate(env_from if isinstance(env_from, list) else []):
        for field_name, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
            if isinstance(source, dict):
                ref = _named(kind, source.get(field_name), "name", path + ("envFrom", index, field_name))
                if ref is not None:
                    yield ref


def _volume_refs(template: PodTemplate) -> Iterator[PodReference]:
    volumes = template.spec.get("volumes")
    for index, volume in enumerate(volumes if isinstance(volumes, list) else []):
        if not isinstance(volume, dict):
            continue
        base = template.path + ("volumes", index)
        for field_name, kind, name_field in (
            ("configMap", "ConfigMap", "name"),
            ("secret", "Secret", "secretName"),
            ("persistentVolumeClaim", "PersistentVolumeClaim", "claimName"),
        ):
            holder = volume.get(field_name)
            if isinstance(holder, dict):
                yield from _with_keys(
                    _named(kind, holder, name_field, base + (field_name,)), holder, base + (field_name,)
                )
        projected = volume.get("projected")
        sources = projected.get("sources") if isinstance(projected, dict) else None
        for s_index, source in enumerate(sources if isinstance(sources, list) else []):
            for field_name, kind in (("configMap", "ConfigMap"), ("secret", "Secret")):
                holder = source.get(field_name) if isinstance(source, dict) else None
                if isinstance(holder, dict):
                    where = base + ("projected", "sources", s_index, field_name)
                    yield from _with_keys(_named(kind, holder, "name", where), holder, where)


def pod_references(template: PodTemplate) -> Iterator[PodReference]:
    """Every ServiceAccount, ConfigMap, Secret (and key) and PVC the template's pods name."""
    account = template.spec.get("serviceAccountName")
    if isinstance(account, str) and account:
        yield PodReference("ServiceAccount", account, template.path + ("serviceAccountName",))
    for path, container in template.containers():
        yield from _container_refs(path, container)
    yield from _volume_refs(template)


def object_keys(obj_data: dict[str, Any]) -> set[str] | None:
    """The keys a ConfigMap or Secret holds (``data``, ``binaryData``, ``stringData``), or None
    when a controller fills them (service-account token Secrets)."""
    if obj_data.get("type") == "kubernetes.io/service-account-token":
        return None
    keys: set[str] = set()
    for field_name in ("data", "binaryData", "stringData"):
        section = obj_data.get(field_name)
        if isinstance(section, dict):
            keys |= {str(k) for k in section}
    return keys
