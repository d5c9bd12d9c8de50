"""``dralint simulate``: where each pod template would land on a snapshot, or why it cannot.

It loads the manifests and the snapshot through the lint pipeline (same loader, same
inventory, same outcomes as the SCH rules) and prints one block per pod template: replicas
placed, feasible nodes, the devices chosen per request on the first feasible node, or the
per-node reasons. Exit code 1 when some (resolved) template fits nowhere, 2 when there is no snapshot.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

import click

from dralint.checks.scheduling.simulation import Simulation, simulation
from dralint.cli.progress import ProgressLine
from dralint.cli.progress import wanted as progress_wanted
from dralint.diagnostics import internal_error
from dralint.k8s.allocator import Outcome, Pick, PodDemand
from dralint.k8s.allocator.examples import EXAMPLES
from dralint.k8s.allocator.pod import EXTENDED_CLAIM_LABEL, request_label
from dralint.k8s.devicekinds import device_kind
from dralint.k8s.inventory import Inventory, format_amount
from dralint.k8s.objects import pod_templates
from dralint.lint.engine import lint, without_cyclic_gc
from dralint.lint.options import LintOptions
from dralint.reporters.terminal import printable


def placements(
    sim: Simulation, progress: ProgressLine | None = None
) -> Iterator[tuple[PodDemand, Outcome, int | None]]:
    """(demand, outcome, replicas) for every pod template of the scanned objects that uses devices."""
    templates = [(obj, tpl) for obj in sim.ctx.scanned for tpl in pod_templates(obj)]
    for done, (obj, tpl) in enumerate(templates, 1):
        try:
            demand, outcome = sim.run(obj, tpl, every_node=True)
        except Exception as error:  # one broken simulation must not stop the others
            message = internal_error(f"the simulation of {obj.display}", error)
            click.echo(f"dralint: {obj.path}: {message}; the other templates were still simulated", err=True)
            continue
        if progress is not None:
            progress.simulating(done, len(templates))
        if demand.unresolved or sim.relevant(demand):
            yield demand, outcome, tpl.replicas


def _consumed(pick: Pick) -> dict[str, str]:
    caps = pick.device.capacity
    return {k: format_amount(v, caps[k].raw if k in caps else "") for k, v in pick.consumed.items()}


def as_json(demand: PodDemand, outcome: Outcome, replicas: int | None, inv: Inventory | None = None) -> dict[str, Any]:
    """One template's result as plain data; with ``inv``, devices of legacy (extended-resource)
    requests carry their kind, since the pod's author never chose one."""
    claims = [
        {
            "claim": EXTENDED_CLAIM_LABEL if result.claim.extended else result.claim.label,
            "devices": [
                {
                    "request": request_label(demand, p.request) if result.claim.extended else p.request,
                    "device": str(p.device.id),
                    **({"consumedCapacity": _consumed(p)} if p.shared else {}),
                    **({"adminAccess": True} if p.admin else {}),
                    **(
                        {"kind": device_kind(p.device, inv).label()}
                        if inv is not None and result.claim.extended
                        else {}
                    ),
                }
                for p in result.picks
            ],
        }
        for result in outcome.first or ()
    ]
    return {
        "template": demand.label,
        "replicas": replicas,
        "placed": outcome.placed,
        "nodes": outcome.nodes,
        "feasibleNodes": outcome.feasible,
        "node": outcome.feasible[0] if outcome.feasible else None,
        "claims": claims,
        "replicaNodes": outcome.packing,
        "reasons": {reason: nodes for reason, nodes in sorted(outcome.reasons.items())},
        "unplacedReasons": {reason: nodes for reason, nodes in sorted(outcome.unplaced.items())},
        "error": outcome.fatal.message if outcome.fatal else None,
        "unresolved": list(demand.unresolved),
    }


def _compact(devices: list[str]) -> str:
    """``driver/pool/a, driver/pool/b`` -> ``driver/pool/{a, b}`` when they share the pool."""
    prefixes = {d.rsplit("/", 1)[0] for d in devices}
    if len(devices) == 1 or len(prefixes) != 1:
        return ", ".join(devices)
    return f"{prefixes.pop()}/{{{', '.join(d.rsplit('/', 1)[1] for d in devices)}}}"


def as_text(rows: list[dict[str, Any]]) -> str:
    """The human table: a header line per template, then devices or reasons indented."""
    if not rows:
        return "no pod template in the given paths asks for devices\n"
    width = max(len(_label(r)) for r in rows)
    lines = [f"{'TEMPLATE':<{width}}  {'REPLICAS':>8}  {'NODES':>7}  PLACEMENT"]
    for r in rows:
        wanted = r["replicas"] if r["replicas"] is not None else 1
        fits = f"{r['placed']}/{wanted}" if not r["unresolved"] else "-"
        nodes = f"{len(r['feasibleNodes'])}/{r['nodes']}" if not r["unresolved"] else "-"
        if r["unresolved"]:
            head = "not simulated: " + ", ".join(r["unresolved"]) + " not found"
        elif r["error"]:
            head = "ERROR on every node"
        elif r["node"]:
            counts = Counter(r["replicaNodes"])
            head = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in counts.items()) or r["node"]
        else:
            head = "does not fit"
        lines.append(f"{_label(r):<{width}}  {fits:>8}  {nodes:>7}  {head}")
        for claim in r["claims"]:
            by_request: dict[str, list[str]] = {}
            for dev in claim["devices"]:
                used = dev.get("consumedCapacity")
                extra = f" ({', '.join(f'{k}={v}' for k, v in used.items())})" if used else ""
                kind = f" [{dev['kind']}]" if "kind" in dev else ""
                by_request.setdefault(dev["request"], []).append(dev["device"] + extra + kind)
            for request, devices in by_request.items():
                lines.append(f"    {claim['claim']} / {request}: {_compact(devices)}")
        if r["error"]:
            lines.append(f"    {r['error']}")
        elif not r["node"]:
            lines += _reason_lines(r["reasons"])
        elif r["unplacedReasons"]:
            lines.append(
                f"    replica {r['placed'] + 1} of {wanted} does not fit once {r['placed']} hold their devices:"
            )
            lines += _reason_lines(r["unplacedReasons"], "  ")
    if len(rows) > 1:
        lines.append(ALONE_NOTE)
    return "\n".join(lines) + "\n"


#: Said under a table of several templates: each was placed alone, so two may show one device.
ALONE_NOTE = (
    "each template is placed on its own on the snapshot as it is: the templates do not take devices "
    "from each other, so two of them may be shown on the same device"
)


def _label(row: dict[str, Any]) -> str:
    """A template as the table names it, with its environment when the run holds several."""
    return row["template"] + (f" ({row['environment']})" if "environment" in row else "")


def _reason_lines(reasons: dict[str, list[str]], indent: str = "") -> list[str]:
    """One line per reason, the most common first, naming up to three nodes."""
    lines = []
    for reason, names in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        lines.append(f"    {indent}{len(names)} node(s) ({shown}): {reason}")
    return lines


def _simulated(options: LintOptions, progress: ProgressLine | None) -> tuple[int, list[dict[str, Any]]] | None:
    """The snapshot's node count and each template's placement (``as_json``); None when the
    snapshot holds no ResourceSlice. A usage error when the snapshot cannot be read."""
    result = lint(options, progress=progress)
    # YAML008/YAML009 say why a --slices input could not be read, as `dralint lint` says it.
    unreadable = [
        d.message for d in result.diagnostics if d.rule in ("YAML008", "YAML009") and d.span.path in options.slices
    ]
    if unreadable:
        raise click.BadParameter("; ".join(unreadable), param_hint="--slices")
    # SCH005: a pool, slice or device the scheduler cannot use is left out of the simulation; say where.
    for d in result.diagnostics:
        if d.rule == "SCH005":
            click.echo(f"dralint: {d.span.path}:{d.span.line}:{d.span.column}: {d.message} [SCH005]", err=True)
    ctx = result.context
    # Several environments (docs/environments.md): each is placed on the snapshot on its own.
    names = ctx.environments.names if ctx.environments.several else ("",)
    rows: list[dict[str, Any]] = []
    nodes = 0
    for name in names:
        sim = simulation(ctx.within(frozenset({name})) if name else ctx)
        if sim is None:
            return None
        nodes = len(sim.inv.nodes)
        with without_cyclic_gc():  # placements allocate many small records and no cycles
            rows += [
                {**as_json(d, o, r, sim.inv), **({"environment": name} if name else {})}
                for d, o, r in placements(sim, progress)
            ]
    return nodes, rows


@click.command("simulate")
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option(
    "--slices",
    multiple=True,
    metavar="FILE",
    help=f"Cluster snapshot file, or example:NAME ({', '.join(sorted(EXAMPLES))}), or example:DRIVER[@VERSION] for "
    "a small fleet of a catalog driver's devices (`dralint drivers`); repeatable.",
)
@click.option(
    "--context",
    "context_paths",
    multiple=True,
    type=click.Path(readable=False),
    metavar="PATH",
    help="Load PATH for references (claim templates, classes) without simulating its pods.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=0),
    metavar="N",
    help="Read the snapshot and manifests in N processes; the output is the same for any N.  [default: one per CPU]",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress line on a terminal.")
def simulate_command(
    paths: tuple[str, ...],
    slices: tuple[str, ...],
    context_paths: tuple[str, ...],
    fmt: str,
    jobs: int | None,
    quiet: bool,
) -> None:
    """Show where the pod templates in PATHS would be allocated on the --slices snapshot."""
    if not slices:
        raise click.UsageError("give a snapshot with --slices FILE (or --slices example:NAME)")
    options = LintOptions(
        paths=list(paths) or ["."],
        slices=list(slices),
        context=list(context_paths),
        profile="strict",
        select=["SCH005", "YAML008", "YAML009"],
        jobs=jobs or 0,
    )
    progress = ProgressLine(sys.stderr) if progress_wanted(sys.stderr, quiet) else None
    try:
        simulated = _simulated(options, progress)
    finally:
        if progress is not None:
            progress.close()
    if simulated is None:
        click.echo("dralint: the --slices input holds no ResourceSlice", err=True)
        sys.exit(2)
    nodes, rows = simulated
    if fmt == "json":
        click.echo(json.dumps({"nodes": nodes, "templates": rows}, indent=2))
    else:
        click.echo(printable(as_text(rows)), nl=False)
    sys.exit(1 if any(not r["feasibleNodes"] and not r["unresolved"] for r in rows) else 0)
