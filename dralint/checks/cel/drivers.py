"""CEL010, CEL015, CEL017, CEL018 without --slices: selectors judged against the driver catalog.

With no cluster state, what a driver publishes comes from the catalog (``dralint/k8s/drivers``):
the attribute and capacity names of each release, their types, and which kinds of device carry
them. The catalog's example values are no fleet, so nothing here depends on them: a selector is
said to match no device only through conjuncts whose outcome every device of a kind shares
(a value the driver fixes per kind, such as ``type``, the driver name, or the absence of an
attribute the kind never carries). Every finding names the releases it was judged against.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from typing import NamedTuple

from dralint.checks.cel.sites import SELECTOR_KINDS, SelectorGroup, class_expressions, selector_groups
from dralint.checks.cel.snapshot import uses_snapshot
from dralint.diagnostics import Finding, Severity
from dralint.k8s.cel import check, conjuncts, evaluate
from dralint.k8s.cel.ast import Node
from dralint.k8s.cel.lints import STANDARD_DOMAINS, Lookup, lookups, pinned_drivers
from dralint.k8s.drivers import DeviceKind, DriverRelease
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.lint.drivers import installed_by, installed_classes, judged_releases, releases_label, run_catalog
from dralint.lint.registry import object_check

__all__ = ["Target", "always_carried", "targets"]

_COMPARISONS = {"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"}
_ORDERING = {"_<_", "_<=_", "_>_", "_>=_"}
_LITERAL_TYPES = {bool: "bool", int: "int", float: "double", str: "string", bytes: "bytes"}
#: The CEL type of an attribute value of each catalog type.
_CEL_TYPES = {"string": "string", "int": "int", "bool": "bool", "version": "version"}


class Target(NamedTuple):
    """A release of a driver a selector group can get devices from, and the kinds it can get."""

    release: DriverRelease
    kinds: tuple[str, ...]  # kinds the class's and the group's decidable conjuncts admit
    offered: tuple[str, ...]  # kinds the class's selectors admit
    where: str  # 'DeviceClass "gpu.nvidia.com"' or 'this DeviceClass'
    excluded_by: tuple[int, int, int] | None  # (selector, start, end) of a conjunct no kind passes


def _decidable(text: str, release: DriverRelease, kind: str) -> bool:
    """Whether every device of ``kind`` gives the conjunct ``text`` the same outcome: it reads
    only the driver name and attributes the driver fixes for that kind."""
    ast = check(text).ast
    if ast is None:
        return False
    for node in ast.walk():
        if node.kind == "comprehension":
            return False
        target = node.target
        on_device = node.kind == "select" and target is not None and target.kind == "ident" and target.value == "device"
        if on_device and node.value not in ("driver", "attributes", "capacity"):
            return False
    types = {}
    for lookup in lookups(ast):
        carried = [e for e in release.published(lookup.kind, lookup.domain, lookup.name) if kind in e.kinds]
        if lookup.kind != "attributes" or not carried or kind not in getattr(carried[0], "values", {}):
            return False
        types[lookup.node.id] = _CEL_TYPES.get(getattr(carried[0], "type", ""))
    # a comparison across types is CEL011's or CEL017's to report, not a device that is missing
    return not any(types.get(read.id) not in (None, _literal_type(literal)) for read, literal in _compared(ast))


def _compared(ast: Node) -> Iterator[tuple[Node, Node]]:
    """(operand, literal) of every comparison with a literal."""
    for node in ast.walk():
        if node.kind == "call" and node.value in _COMPARISONS and len(node.args) == 2:
            for read, literal in (node.args, node.args[::-1]):
                if _literal_type(literal) is not None:
                    yield read, literal


def _rules_out(text: str, release: DriverRelease, kind: DeviceKind, ctx: Context) -> bool:
    """Whether the conjunct ``text`` is false on every device of ``kind``: once per run, since
    the same conjuncts (the driver, a capacity floor) recur across a repository's selectors."""
    key = (__name__, "rules-out", text, release.driver, release.version, kind.name)
    return ctx.memo(
        key, lambda: _decidable(text, release, kind.name) and evaluate(text, release.device(kind)).value is False
    )


def _admitted(
    release: DriverRelease, expressions: tuple[str, ...], own_from: int, ctx: Context
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[int, int, int] | None]:
    """Kinds of ``release`` no decidable conjunct of ``expressions`` rules out, and the first
    conjunct of the group's own selectors (index ``own_from`` on) that rules out every kind the
    class's selectors (the ones before) leave: (selector index in the group, start, end)."""
    admitted: list[str] = []
    offered: list[str] = []  # kinds the class's selectors admit
    excluding: dict[tuple[int, int, int], int] = {}
    for kind in release.kinds:
        ruled_out = None
        for index, expression in enumerate(expressions):
            ruled_out = next(
                ((index, part) for part in conjuncts(expression) if _rules_out(part.text, release, kind, ctx)),
                None,
            )
            if ruled_out is not None:
                break
        if ruled_out is None or ruled_out[0] >= own_from:
            offered.append(kind.name)
        if ruled_out is None:
            admitted.append(kind.name)
        elif ruled_out[0] >= own_from:
            index, part = ruled_out
            key = (index - own_from, part.start, part.end)
            excluding[key] = excluding.get(key, 0) + 1
    everywhere = [k for k, n in excluding.items() if n == len(offered)]
    return tuple(admitted), tuple(offered), (everywhere[0] if everywhere and not admitted else None)


def targets(obj: KubeObject, group: SelectorGroup, ctx: Context) -> list[Target]:
    """The catalog releases a group's devices come from, once per run and class and selectors."""
    key = (__name__, "targets", obj.kind == "DeviceClass", group.class_name, group.expressions)
    return ctx.memo(key, lambda: _targets(obj, group, ctx))


def _targets(obj: KubeObject, group: SelectorGroup, ctx: Context) -> list[Target]:
    if obj.kind == "DeviceClass":
        return _pinned_targets(group.expressions, (), "this DeviceClass", ctx)
    name = str(group.class_name)
    if ctx.find("DeviceClass", None, name) is not None:
        inherited = class_expressions(obj, group, ctx)
        return _pinned_targets(inherited + group.expressions, inherited, f'DeviceClass "{name}"', ctx)
    installs = installed_classes(ctx, name)
    if installs:
        where = f'DeviceClass "{name}" ({installed_by(installs)})'
        out = []
        for release, device_class in installs:
            kinds, offered, excluded = _admitted(
                release, device_class.selectors + group.expressions, len(device_class.selectors), ctx
            )
            out.append(Target(release, kinds, offered, where, excluded))
        return out
    return _pinned_targets(group.expressions, (), "", ctx)


def _pinned_targets(expressions: tuple[str, ...], inherited: tuple[str, ...], where: str, ctx: Context) -> list[Target]:
    """Targets of the catalog drivers the selectors pin with ``device.driver == "..."``."""
    drivers: set[str] = set()
    for expression in expressions:
        ast = check(expression).ast
        drivers |= pinned_drivers(ast) if ast is not None else set()
    out = []
    for driver in sorted(drivers):
        for release in judged_releases(ctx, driver):
            kinds, offered, excluded = _admitted(release, expressions, len(inherited), ctx)
            out.append(Target(release, kinds, offered, where, excluded))
    return out


def always_carried(found: list[Target], lookup: Lookup) -> bool:
    """Whether every device the targets can offer has the attribute or capacity ``lookup`` reads,
    in every judged release (so reading it without a guard cannot fail)."""
    if not found:
        return False
    for target in found:
        kinds = target.kinds or target.offered
        entries = target.release.published(lookup.kind, lookup.domain, lookup.name)
        if (
            not kinds
            or any(e.optional or e.option for e in entries)
            or set(kinds) - {k for e in entries for k in e.kinds}
        ):
            return False
    return True


def uses_catalog(ctx: Context) -> bool:
    """Without cluster state the catalog speaks; with it, the snapshot does."""
    return not uses_snapshot(ctx)


@object_check("CEL010", "CEL015", "CEL017", "CEL018", kinds=SELECTOR_KINDS)
def check_selectors_on_catalog(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Names, types and kinds of device each selector reads, against the catalog's releases."""
    if not uses_catalog(ctx):
        return
    for group in selector_groups(obj):
        if not all(check(e).ok for e in group.expressions):
            continue  # CEL001-CEL006 speak for it
        found = targets(obj, group, ctx)
        for path, expression in zip(group.paths, group.expressions, strict=True):
            ast = check(expression).ast
            assert ast is not None
            for lookup in lookups(ast):
                yield from _name(obj, path, expression, lookup, ctx)
                yield from _kind(obj, path, expression, lookup, found)
            yield from _types(obj, path, expression, ast, ctx)
        yield from _no_device(obj, group, found)


def _name_span(obj: KubeObject, path: tuple, expression: str, offset: int, name: str) -> dict:
    start = expression.find(name, max(offset, 0))
    return {"span": obj.scalar_span(path, start, start + len(name))} if start >= 0 else {}


def _what(lookup: Lookup) -> str:
    return "attribute" if lookup.kind == "attributes" else "capacity"


def _name(obj: KubeObject, path: tuple, expression: str, lookup: Lookup, ctx: Context) -> Iterator[Finding]:
    """CEL010: a name no judged release publishes in the domain (or only some releases do)."""
    if lookup.domain in STANDARD_DOMAINS:
        return
    releases = run_catalog(ctx).domain_releases(lookup.domain)
    if not releases or any(r.extensible for r in releases):
        return  # no driver publishes in the domain, or one may publish names no catalog lists
    having = [r for r in releases if lookup.name in r.names(lookup.kind, lookup.domain)]
    if not having:
        names = sorted(set().union(*(r.names(lookup.kind, lookup.domain) for r in releases)))
        lowered = {n.lower(): n for n in names}
        close = lowered.get(lookup.name.lower()) or next(iter(difflib.get_close_matches(lookup.name, names, n=1)), None)
        yield obj.finding(
            path,
            f"no release of {releases_label(releases)} in dralint's driver catalog publishes "
            f'{_what(lookup)} "{lookup.name}" in domain "{lookup.domain}"'
            + (f"; did you mean '{close}'?" if close else ""),
            rule="CEL010",
            hint=f"names published there: {', '.join(names[:12])} (`dralint drivers {releases[0].driver}` lists them)",
            **_name_span(obj, path, expression, lookup.node.offset, lookup.name),
        )
        return
    drivers = {r.driver for r in having}
    missing = [r for r in releases if r.driver in drivers and r not in having]
    if not missing or any(ctx.options.drivers.get(d) for d in drivers):
        return
    yield obj.finding(
        path,
        f'{_what(lookup)} "{lookup.name}" of domain "{lookup.domain}" is published by {releases_label(having)} '
        f"but not by {releases_label(missing)}; dralint judged against every release in its driver catalog",
        rule="CEL010",
        severity=Severity.INFO,
        hint=f"say which release the cluster runs: --driver {having[0].driver}=VERSION, or `drivers:` in .dralint.yaml",
        **_name_span(obj, path, expression, lookup.node.offset, lookup.name),
    )


def _kind(obj: KubeObject, path: tuple, expression: str, lookup: Lookup, found: list[Target]) -> Iterator[Finding]:
    """CEL018: a name the driver publishes, but on no kind of device the class admits (with the
    chart's defaults: where only an option publishes it on those, the finding says so)."""
    judged: list[Target] = []
    gated: list[str] = []
    for target in found:
        entries = target.release.published(lookup.kind, lookup.domain, lookup.name)
        offered = set(target.kinds or target.offered)
        if not entries or not offered:
            continue
        if {k for e in entries if e.option is None for k in e.kinds} & offered:
            return
        judged.append(target)
        gated += [
            f"with {e.option} on, {target.release.driver} {target.release.version} also publishes it on "
            f"{'/'.join(sorted(set(e.kinds) & offered))} devices"
            for e in entries
            if e.option is not None and set(e.kinds) & offered
        ]
    if not judged:
        return
    first = judged[0]
    carried_by = "/".join(
        sorted(
            {
                kind
                for target in judged
                for entry in target.release.published(lookup.kind, lookup.domain, lookup.name)
                if entry.option is None
                for kind in entry.kinds
            }
        )
    )
    releases = releases_label([t.release for t in judged])
    kinds = "/".join(first.kinds or first.offered)
    outcome = (
        "it is false on each of them"
        if lookup.guarded
        else "unguarded, it fails on each of them, which aborts scheduling of the pod"
    )
    where = first.where or "the selectors"
    published = f"only on {carried_by} devices of {releases}" if carried_by else f"by {releases} only with an option"
    yield obj.finding(
        path,
        f'{_what(lookup)} "{lookup.name}" is published {published}, and the devices {where} can offer here are '
        f"{kinds} devices: this selector matches no device of this class ({outcome})"
        + "".join(f"; {g}" for g in gated),
        rule="CEL018",
        hint=f"use a class that selects {carried_by} devices, or drop the condition on {lookup.name!r}"
        if carried_by
        else f"turn on the option that publishes {lookup.name!r}, or drop the condition on it",
        **_name_span(obj, path, expression, lookup.node.offset, lookup.name),
    )


def _literal_type(node: Node) -> str | None:
    return _LITERAL_TYPES.get(type(node.value)) if node.kind == "const" and node.value is not None else None


def _types(obj: KubeObject, path: tuple, expression: str, ast: Node, ctx: Context) -> Iterator[Finding]:
    """CEL017: an attribute compared with a literal of another type (never equal, or an error)."""
    by_id = {lk.node.id: lk for lk in lookups(ast) if lk.kind == "attributes"}
    for node in ast.walk():
        if node.kind != "call" or node.value not in _COMPARISONS or len(node.args) != 2:
            continue
        for read, literal in (node.args, node.args[::-1]):
            lookup = by_id.get(read.id)
            literal_type = _literal_type(literal)
            if lookup is None or literal_type is None:
                continue
            releases, declared = _declared_type(lookup, ctx)
            if declared is None:
                continue
            if _CEL_TYPES[declared] == literal_type or (declared, literal_type) == ("version", "string"):
                continue  # the same type, or CEL011's case
            operator = str(node.value).strip("_")
            outcome = (
                "a runtime error on every device that has it (no ordering between them), which aborts scheduling"
                if node.value in _ORDERING
                else "never true (values of different types are never equal)"
            )
            if node.value == "_!=_":
                outcome = "always true (values of different types are never equal)"
            shown = json.dumps(literal.value) if not isinstance(literal.value, bytes) else repr(literal.value)
            yield obj.finding(
                path,
                f'{_what(lookup)} "{lookup.name}" is a {declared} in {releases_label(releases)} '
                f"(dralint's driver catalog); comparing it with the {literal_type} {shown} is {outcome}",
                rule="CEL017",
                hint=_type_hint(lookup, declared, literal.value),
                span=obj.scalar_span(path, node.offset, node.offset + len(operator)),
            )


def _declared_type(lookup: Lookup, ctx: Context) -> tuple[list[DriverRelease], str | None]:
    """The releases publishing in the lookup's domain, and the one scalar type they all give its
    attribute (None when they give none or disagree); once per run and attribute."""

    def declared() -> tuple[list[DriverRelease], str | None]:
        releases = run_catalog(ctx).domain_releases(lookup.domain)
        types = {
            a.type
            for r in releases
            for a in r.attributes
            if a.domain == lookup.domain and a.ident == lookup.name and not a.type.endswith("s")
        }
        return releases, (next(iter(types)) if len(types) == 1 else None)

    return ctx.memo((__name__, "declared-type", lookup.domain, lookup.name), declared)


def _type_hint(lookup: Lookup, declared: str, value: object) -> str:
    read = f'device.attributes["{lookup.domain}"].{lookup.name}'
    if declared == "string":
        return f"compare with a string: {read} == {json.dumps(str(value))}"
    if declared == "int" and isinstance(value, str) and value.lstrip("-").isdigit():
        return f"compare with a number: {read} == {value}"
    if declared == "version":
        return f'compare versions: {read}.compareTo(semver("{value}", true)) >= 0'
    return f"compare {read} with a {declared} value"


def _no_device(obj: KubeObject, group: SelectorGroup, found: list[Target]) -> Iterator[Finding]:
    """CEL015: a conjunct that rules out every kind of device of every judged release."""
    if not found or any(t.kinds for t in found):
        return
    excluded = [t.excluded_by for t in found]
    if any(e is None for e in excluded) or len(set(excluded)) != 1:
        return
    index, start, end = excluded[0]  # type: ignore[misc]
    first = found[0]
    path = group.paths[index]
    text = group.expressions[index][start:end]
    offered = sorted({k for t in found for k in t.offered})
    yield obj.finding(
        path,
        f"no device of {releases_label([t.release for t in found])} (dralint's driver catalog) can match "
        f"{group.label if group.label != 'class' else 'this DeviceClass'}: `{text}` is false on every device "
        f"{first.where or 'the driver'} can offer (kinds of device: {', '.join(offered)})",
        rule="CEL015",
        span=obj.scalar_span(path, start, end),
        hint=f"compare with what the driver publishes: `dralint drivers {first.release.driver}`",
    )
