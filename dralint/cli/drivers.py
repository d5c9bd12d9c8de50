"""``dralint drivers [NAME]``: what the driver catalog knows, and where each fact was read."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from dralint.k8s.drivers import AttributeInfo, CapacityInfo, Catalog, DriverRelease, load_catalog
from dralint.lint.config import find_config, load_config
from dralint.reporters.terminal import printable


def _catalog(no_config: bool) -> Catalog:
    """The shipped catalog with the team's catalog files of the config found from here."""
    found = None if no_config else find_config(".")
    config = load_config(found) if found else None
    return load_catalog(config.values.get("driver_catalogs", []) if config is not None else [])


def _overview(catalog: Catalog) -> str:
    rows = [("DRIVER", "RELEASES", "CLASSES (chart)", "SOURCE")]
    for driver in catalog.drivers:
        releases = catalog.releases_of(driver)
        classes = sorted({c.name for r in releases for c in r.classes})
        rows.append(
            (
                driver,
                ", ".join(r.version for r in releases),
                ", ".join(classes) or "-",
                releases[-1].project.repository,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(f"{cell:<{w}}" for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3] for row in rows]
    return "\n".join(lines) + "\n\n`dralint drivers NAME` shows a driver's kinds of device, classes and attributes.\n"


def _matching(catalog: Catalog, name: str) -> list[DriverRelease]:
    """Releases of the driver NAME, of the project NAME, or of the driver installing class NAME."""
    wanted = name.lower()
    found = catalog.releases_of(wanted) or [r for r in catalog.releases if r.project.name == name]
    return found or [r for r, _c in catalog.device_class(name)]


def _versions(facts: list[tuple[str, Any]], releases: list[str]) -> str:
    held = [v for v, _f in facts]
    return "every release" if held == releases else ", ".join(held)


def _grouped(releases: list[DriverRelease], pick: Any) -> list[tuple[Any, list[tuple[str, Any]]]]:
    """Facts that are equal (their source aside) across releases, with the releases holding each."""
    groups: dict[str, tuple[Any, list[tuple[str, Any]]]] = {}
    for release in releases:
        for fact in pick(release):
            key = repr(fact._replace(source=fact.source._replace(tag="")))
            groups.setdefault(key, (fact, []))[1].append((release.version, fact))
    return list(groups.values())


def _sourced(text: str, facts: list[tuple[str, Any]], versions: list[str]) -> str:
    """A line of the detail with the releases the fact holds for and the file it was read from."""
    return f"{text}  [{_versions(facts, versions)}; {facts[0][1].source.path}]"


def _detail(releases: list[DriverRelease]) -> str:
    first = releases[0]
    versions = [r.version for r in releases]
    out = [
        f"{first.driver}: {first.project.title}",
        f"  repository {first.project.repository}"
        + (f", chart {first.project.chart}" if first.project.chart else "")
        + f"; releases {', '.join(f'{r.version} ({r.tag})' for r in releases)}",
        "  facts were read from the repository at each release's tag, in the file named after each"
        + (f"; chart options default in {first.project.options_source}" if first.project.options_source else ""),
    ]
    if first.extensible:
        out.append(f"  it may also publish attributes of its own that no catalog lists: {first.extensible.path}")
    out += ["", "kinds of device:"]
    for kind, facts in _grouped(releases, lambda r: r.kinds):
        option = f"; only with {kind.option}" if kind.option and not kind.default else ""
        out.append(_sourced(f"  {kind.name:<18} {kind.description}{option}", facts, versions))
    out += ["", "DeviceClasses the chart installs:"]
    for device_class, facts in _grouped(releases, lambda r: r.classes):
        state = "on by default" if device_class.default else "off by default"
        option = f" ({device_class.option}, {state})" if device_class.option else f" ({state})"
        out.append(_sourced(f"  {device_class.name}{option}", facts, versions))
        out += [f"      selector: {s}" for s in device_class.selectors]
        if device_class.extended_resource_name:
            extra = f" when {device_class.extended_option} is set" if device_class.extended_option else ""
            out.append(f"      extendedResourceName: {device_class.extended_resource_name}{extra}")
    counters = _grouped(releases, lambda r: r.counters)
    if counters:
        out += ["", "shared counters (partitionable devices):"]
    for counter_set, facts in counters:
        option = f", with {counter_set.option}" if counter_set.option else ""
        out.append(_sourced(f"  {counter_set.name}: {', '.join(counter_set.counters)}{option}", facts, versions))
    out += ["", "attributes (name, type, kinds of device, example):"]
    for attribute, facts in _grouped(releases, lambda r: r.attributes):
        values = attribute.values or {}
        example = ", ".join(f"{k}: {v!r}" for k, v in values.items()) if values else repr(attribute.example)
        text = f"{_shown(attribute, first.driver):<32} {attribute.type:<8} {'/'.join(attribute.kinds):<20} {example}"
        out.append(_sourced(f"  {text}{_when(attribute)}", facts, versions))
    out += ["", "capacities (name, kinds of device, example):"]
    for capacity, facts in _grouped(releases, lambda r: r.capacity):
        text = f"{_shown(capacity, first.driver):<32} {'/'.join(capacity.kinds):<20} {capacity.example}"
        out.append(_sourced(f"  {text}{_when(capacity)}", facts, versions))
    return "\n".join(out) + "\n"


def _when(entry: AttributeInfo | CapacityInfo) -> str:
    """Which devices of its kinds carry an attribute or capacity, when not all of them do."""
    return "".join(
        (", on some devices" if entry.optional else "", f", only with {entry.option}" if entry.option else "")
    )


def _shown(entry: AttributeInfo | CapacityInfo, driver: str) -> str:
    """The name as a selector reads it under the driver's domain, or qualified."""
    return entry.ident if entry.domain == driver else entry.qualified


def _as_data(value: Any) -> Any:
    if hasattr(value, "_asdict"):
        return {k: _as_data(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_as_data(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _as_data(v) for k, v in value.items()}
    return value


@click.command("drivers")
@click.argument("name", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--no-config", is_flag=True, help="Leave out the driver catalog files of the config.")
def drivers_command(name: str | None, fmt: str, no_config: bool) -> None:
    """List the driver catalog, or show driver NAME (a driver, a chart's project or a DeviceClass)."""
    catalog = _catalog(no_config)
    for problem in catalog.problems:
        span = problem.span
        click.echo(f"{span.path}:{span.line}:{span.column}: driver catalog: {problem.message}", err=True)
    releases = list(catalog.releases) if name is None else _matching(catalog, name)
    if name is not None and not releases:
        click.echo(f"dralint: {name!r} is not a driver, project or DeviceClass of the catalog", err=True)
        sys.exit(2)
    if fmt == "json":
        click.echo(json.dumps([_as_data(r) for r in releases], indent=2))
        return
    if name is None:
        click.echo(printable(_overview(catalog)), nl=False)
        return
    by_driver: dict[str, list[DriverRelease]] = {}
    for release in releases:
        by_driver.setdefault(release.driver, []).append(release)
    click.echo(printable("\n".join(_detail(group) for group in by_driver.values())), nl=False)
