"""What real DRA drivers install and publish: the catalog dralint judges manifests against
when no cluster state is given.

The public API (stable; the language server uses it for completion and hover):

* ``builtin_catalog() -> Catalog``: the catalog shipped in ``dralint/k8s/drivers/data``.
* ``load_catalog(extra_files, versions) -> Catalog``: with a team's catalog files added and
  narrowed to the releases a cluster runs (``{"gpu.nvidia.com": "25.8.0"}``).
* ``Catalog``: ``drivers``, ``releases_of(driver)``, ``release(driver, version)``,
  ``device_class(name)`` (the releases installing a DeviceClass, with its ``ClassInfo``),
  ``class_names``, ``domain_releases(domain)``, ``problems`` (of the files read).
* ``DriverRelease``: ``driver``, ``version``, ``tag``, ``project``; ``kinds``
  (:class:`DeviceKind`), ``attributes`` (:class:`AttributeInfo`: domain, ident, type, kinds,
  example, values per kind, optional, source), ``capacity`` (:class:`CapacityInfo`),
  ``classes`` (:class:`ClassInfo`: name, selectors, extendedResourceName, the chart option that
  creates it and whether it is on by default, source); ``class_kinds(cls)`` (the kinds a class
  admits), ``names(what, domain)``, ``published(what, domain, ident)``, ``devices()`` (one
  example device per kind, as CEL sees it).
* Every fact has a ``source``: :class:`Source` (repository, path, tag).
"""

from dralint.k8s.drivers.catalog import (
    ATTRIBUTE_TYPES,
    AttributeInfo,
    CapacityInfo,
    Catalog,
    CatalogProblem,
    ClassInfo,
    DeviceKind,
    DriverRelease,
    Project,
    Source,
    builtin_catalog,
    load_catalog,
    read_catalog,
    typed_value,
    version_key,
)

__all__ = [
    "ATTRIBUTE_TYPES",
    "AttributeInfo",
    "CapacityInfo",
    "Catalog",
    "CatalogProblem",
    "ClassInfo",
    "DeviceKind",
    "DriverRelease",
    "Project",
    "Source",
    "builtin_catalog",
    "load_catalog",
    "read_catalog",
    "typed_value",
    "version_key",
]
