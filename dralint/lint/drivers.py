"""The driver catalog a run judges against: which releases of which drivers the cluster runs.

The user says so with ``--driver NAME=VERSION`` or ``drivers:`` in the config; otherwise a
Flux HelmRelease or an Argo CD Application among the scanned files, or a Chart.yaml among the
linted paths that depends on a catalog chart, says so with a version or a range of them (the
catalog releases in it are judged); otherwise every release of the catalog is judged, and
findings name the releases they hold for. A team's own
catalog files (``driver-catalogs``) are added to the shipped one. Cluster state (``--slices``)
is the truth and replaces the catalog: the callers check that first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import yaml

from dralint.k8s.chartversions import matching
from dralint.k8s.drivers import Catalog, ClassInfo, DriverRelease, load_catalog
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.yaml.render import CHART_FILE
from dralint.yaml.sources import discover

_SAFE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MAX_CHART_BYTES = 1 << 20

__all__ = [
    "run_catalog",
    "catalog_versions",
    "releases_label",
    "installed_classes",
    "installed_by",
    "judged_releases",
    "release_problem",
]

#: Objects that install a Helm chart at a version: (kind, API group, path of the chart name,
#: path of its version).
CHART_INSTALLERS = (
    ("HelmRelease", "helm.toolkit.fluxcd.io", ("spec", "chart", "spec", "chart"), ("spec", "chart", "spec", "version")),
    ("Application", "argoproj.io", ("spec", "source", "chart"), ("spec", "source", "targetRevision")),
)


def run_catalog(ctx: Context) -> Catalog:
    """The catalog narrowed to the releases this run's cluster is known to run, once per run."""

    def build() -> Catalog:
        catalog = load_catalog(ctx.options.driver_catalogs)
        versions: dict[str, set[str]] = {}
        for driver, version in _installed_versions(ctx, catalog):
            versions.setdefault(driver, set()).add(version)
        versions.update({d.lower(): {v} for d, v in ctx.options.drivers.items()})
        return catalog.select(versions)

    return ctx.memo((__name__, "catalog"), build)


def _installed_versions(ctx: Context, catalog: Catalog) -> Iterable[tuple[str, str]]:
    """(driver, version) of each catalog release a scanned object installs: the one it names,
    or those in the range it names (none when the range holds no catalog release: the cluster
    runs one the catalog does not know, so every release is judged)."""
    by_chart: dict[str, set[str]] = {}
    for release in catalog.releases:
        if release.project.chart:
            by_chart.setdefault(release.project.chart, set()).add(release.driver)
    installed = [
        found
        for kind, group, chart_path, version_path in CHART_INSTALLERS
        for obj in ctx.by_kind(kind)
        if (found := _chart_version(obj, group, chart_path, version_path)) is not None
    ]
    installed += _chart_dependencies(ctx, set(by_chart))
    for chart, constraint in installed:
        for driver in by_chart.get(chart, ()):
            known = [release.version for release in catalog.releases_of(driver)]
            for version in matching(constraint, known) or ():
                yield driver, version


def _chart_dependencies(ctx: Context, charts: set[str]) -> Iterable[tuple[str, str]]:
    """(chart, version constraint) of each catalog chart a Chart.yaml of the linted paths depends
    on (an umbrella chart that installs the driver)."""
    for path in discover(ctx.options.paths, ctx.options.exclude):
        if not isinstance(path, str) or os.path.basename(path) != CHART_FILE:
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                chart = yaml.load(handle.read(_MAX_CHART_BYTES), Loader=_SAFE)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # the render stage reports an unreadable chart
        dependencies = chart.get("dependencies") if isinstance(chart, dict) else None
        for entry in dependencies if isinstance(dependencies, list) else ():
            name = entry.get("name") if isinstance(entry, dict) else None
            version = entry.get("version") if isinstance(entry, dict) else None
            if name in charts and isinstance(version, str):
                yield name, version


def _chart_version(obj: KubeObject, group: str, chart_path: tuple, version_path: tuple) -> tuple[str, str] | None:
    chart, version = obj.get(chart_path), obj.get(version_path)
    if obj.group != group or not isinstance(chart, str) or not isinstance(version, str):
        return None
    return chart, version


def releases_label(releases: Iterable[DriverRelease]) -> str:
    """``gpu.nvidia.com 25.3.2, 25.8.0`` for messages, each release once."""
    drivers: dict[str, list[str]] = {}
    for release in releases:
        versions = drivers.setdefault(release.driver, [])
        if release.version not in versions:
            versions.append(release.version)
    return "; ".join(f"{d} {', '.join(v)}" for d, v in drivers.items())


def catalog_versions(ctx: Context) -> tuple[dict[tuple[str, str], str], frozenset[str]]:
    """(domain, name) of every version attribute the judged releases publish, with the words
    of a message naming those releases, and the domains the catalog describes (where that list
    is the whole truth), once per run."""

    def build() -> tuple[dict[tuple[str, str], str], frozenset[str]]:
        releases = run_catalog(ctx).releases
        publishing: dict[tuple[str, str], list[DriverRelease]] = {}
        for release in releases:
            for attribute in release.attributes:
                if attribute.type in ("version", "versions"):
                    publishing.setdefault((attribute.domain, attribute.ident), []).append(release)
        versions = {
            key: f" in {releases_label(having)} (dralint's driver catalog)" for key, having in publishing.items()
        }
        return versions, frozenset(r.driver for r in releases)

    return ctx.memo((__name__, "versions"), build)


def release_problem(catalog: Catalog, driver: str, version: str) -> tuple[str, bool] | None:
    """Why ``driver`` at ``version`` is no release of the catalog, and whether the driver itself
    is unknown (a config finding then points at the name, not the version); None when it is one."""
    releases = catalog.releases_of(driver)
    if not releases:
        import difflib  # only for a name that is wrong

        close = difflib.get_close_matches(driver.lower(), catalog.drivers, n=1, cutoff=0.8)
        near = f" did you mean {close[0]!r}?" if close else ""
        return f"{driver!r} is not a driver of the catalog;{near} `dralint drivers` lists them", True
    if catalog.release(driver, version) is None:
        known = ", ".join(r.version for r in releases)
        return f"{version!r} is not a release of {driver} in the catalog (known: {known})", False
    return None


def judged_releases(ctx: Context, driver: str) -> list[DriverRelease]:
    """The releases of ``driver`` a run judges against (all, or the one the cluster runs)."""
    return run_catalog(ctx).releases_of(driver)


def installed_classes(ctx: Context, name: str) -> list[tuple[DriverRelease, ClassInfo]]:
    """The catalog releases whose chart installs DeviceClass ``name``."""
    return run_catalog(ctx).device_class(name)


def installed_by(installs: list[tuple[DriverRelease, ClassInfo]]) -> str:
    """Who installs a catalog class, for messages: driver, chart, releases and chart option."""
    release, device_class = installs[0]
    versions = ", ".join(r.version for r, _c in installs)
    made = f"the {release.project.chart} chart" if release.project.chart else "the manifests"
    option = ""
    if device_class.option:
        option = f", with {device_class.option}" + (" (on by default)" if device_class.default else " (off by default)")
    return f"installed by {made} {versions} of {release.project.repository}{option}"
