"""What real DRA drivers install and publish: the catalog dralint judges manifests against
when no cluster state is given.

The public API (stable; the language server uses it for completion and hover):

* ``builtin_catalog() -> Catalog``: the catalog shipped in ``dralint/k8s/drivers/data``.
* ``load_catalog(extra_files, versions) -> Catalog``: with a team's catalog files added and
  narrowed to the releases a cluster runs (``{"gpu.nvidia.com": "25.8.0"}``, or a set of
  versions for each driver).
* ``Catalog``: ``drivers``, ``releases_of(driver)``, ``release(driver, version)``,
  ``device_class(name)`` (the releases installing a DeviceClass, with its ``ClassInfo``),
  ``class_names``, ``domain_releases(domain)``, ``problems`` (of the files read).
* ``DriverRelease``: ``driver``, ``version``, ``tag``, ``project``; ``kinds``
  (:class:`DeviceKind`), ``attributes`` (:class:`AttributeInfo`: domain, ident, type, kinds,
  example, values per kind, optional, source), ``capacity`` (:class:`CapacityInfo`),
  ``classes`` (:class:`ClassInfo`: name, selectors, extendedResourceName, the chart option that
  creates it and whether it is on by default, source); ``class_kinds(cls)`` (the kinds a class
  admits), ``names(what, domain)``, ``published(what, domain, ident)``, ``devices()`` (one
  example device per kind, as CEL sees it), ``counters`` (:class:`CounterSetInfo`, shared
  counters of partitionable devices) and ``extensible`` (set when the driver may publish
  attributes of its domain no catalog lists).
* Every fact has a ``source``: :class:`Source` (repository, path, tag).
"""

from dralint.k8s.drivers import catalog as _catalog
from dralint.k8s.drivers.catalog import *  # noqa: F403 (the names of catalog.__all__, listed there once)

__all__ = _catalog.__all__
