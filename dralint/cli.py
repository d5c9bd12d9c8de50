"""Command line: ``dralint lint``, ``dralint rules``, ``dralint explain``.

Exit codes: 0 when no finding reaches ``--fail-on``, 1 when one does, 2 for usage errors or
when nothing could be read.
"""

from __future__ import annotations

import os
import sys

import click

from dralint import __version__
from dralint.catalog import load_catalog
from dralint.diagnostics import Severity
from dralint.engine import RunResult, lint
from dralint.options import PROFILES, LintOptions
from dralint.reporters import FORMATS, reporter

FAIL_ON = ("error", "warning", "info", "never")


def use_color(choice: str, stream: object) -> bool:
    """Colour when asked, or when writing to a terminal that wants it (NO_COLOR wins)."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"


def parse_feature_gates(value: str | None) -> dict[str, bool]:
    """``Name=true,Other=false`` as Kubernetes components take it."""
    gates: dict[str, bool] = {}
    for item in filter(None, (part.strip() for part in (value or "").split(","))):
        name, sep, flag = item.partition("=")
        if not sep or flag.lower() not in ("true", "false"):
            raise click.BadParameter(f"{item!r} is not Name=true or Name=false", param_hint="--feature-gates")
        gates[name.strip()] = flag.lower() == "true"
    return gates


def fails(result: RunResult, fail_on: str) -> bool:
    """Whether any finding reaches the ``--fail-on`` threshold."""
    if fail_on == "never":
        return False
    threshold = Severity(fail_on).rank
    return any(d.severity.rank >= threshold for d in result.diagnostics)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dralint")
def main() -> None:
    """Lint Kubernetes manifests for Dynamic Resource Allocation, GPUs and production readiness."""


@main.command("lint")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Report format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write the report to this file.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True, help="Lowest severity that makes the exit code 1.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
@click.option("--context", "context_paths", multiple=True, type=click.Path(), metavar="PATH", help="Load PATH for cross-references without reporting on it (repeatable).")
@click.option("--slices", multiple=True, metavar="FILE", help="Cluster state: `kubectl get resourceslices,deviceclasses,... -o yaml` output (repeatable).")
@click.option("--feature-gates", metavar="GATES", help="Kubernetes feature gates as Name=true,Other=false.")
@click.option("--closed-world", multiple=True, metavar="KIND", help="Treat the run as holding every object of KIND (repeatable).")
@click.option("--profile", type=click.Choice(PROFILES), default="recommended", show_default=True, help="Which rules run.")
@click.option("--select", multiple=True, metavar="RULE", help="Only these rules (id, family prefix, name, category or tag).")
@click.option("--ignore", multiple=True, metavar="RULE", help="Skip these rules (id, family prefix, name, category or tag).")
@click.option("--stdin-filename", default="<stdin>", show_default=True, help="Name to report for input read from '-'.")
def lint_command(paths: tuple[str, ...], fmt: str, output: str | None, color: str, fail_on: str, exclude: tuple[str, ...],
                 context_paths: tuple[str, ...], slices: tuple[str, ...], feature_gates: str | None,
                 closed_world: tuple[str, ...], profile: str, select: tuple[str, ...], ignore: tuple[str, ...],
                 stdin_filename: str) -> None:
    """Lint manifests in PATHS (files, directories, or - for stdin; default: .)."""
    options = LintOptions(
        paths=list(paths) or ["."],
        exclude=list(exclude),
        context=list(context_paths),
        slices=list(slices),
        feature_gates=parse_feature_gates(feature_gates),
        closed_world=set(closed_world),
        profile=profile,
        select=list(select),
        ignore=list(ignore),
        stdin_name=stdin_filename,
    )
    result = lint(options)
    stream = open(output, "w", encoding="utf-8") if output else sys.stdout
    try:
        stream.write(reporter(fmt)(result, use_color(color, stream) if fmt == "text" else False))
    finally:
        if output:
            stream.close()
    if not result.sources:
        click.echo("dralint: nothing could be read from the given paths", err=True)
        sys.exit(2)
    sys.exit(1 if fails(result, fail_on) else 0)


@main.command("rules")
def rules_command() -> None:
    """List every rule: id, default severity, category, name and summary."""
    catalog = load_catalog()
    width = max(len(r.name) for r in catalog.values())
    for rule in sorted(catalog.values(), key=lambda r: r.id):
        click.echo(f"{rule.id:<8} {rule.severity.value:<8} {rule.category:<19} {rule.name:<{width}}  {rule.summary}")


@main.command("explain")
@click.argument("rule_id")
def explain_command(rule_id: str) -> None:
    """Show the full description of a rule, with examples."""
    catalog = load_catalog()
    rule = catalog.get(rule_id.upper()) or next((r for r in catalog.values() if r.name == rule_id), None)
    if rule is None:
        raise click.BadParameter(f"no rule {rule_id!r}; `dralint rules` lists them", param_hint="RULE_ID")
    from dralint.docs import explain

    click.echo(explain(rule))


from dralint.fix.command import fix_command  # noqa: E402  (commands register after main exists)

main.add_command(fix_command)
