"""``dralint config --show``: the effective configuration, and where it came from.

Config problems are printed with their positions (as ``lint`` reports them) and make the exit
code 1, so a CI step can check a config change on its own.
"""

from __future__ import annotations

import sys

import click
import yaml

from dralint.lint.config import LoadedConfig, find_config, load_config
from dralint.lint.engine import to_diagnostics
from dralint.lint.options import LintOptions


@click.command("config")
@click.option("--show", is_flag=True, help="Print the effective configuration as YAML.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False),
    help="Config file (default: the nearest one).",
)
@click.pass_context
def config_command(ctx: click.Context, show: bool, config_path: str | None) -> None:
    """Show the configuration dralint would use in this directory."""
    if not show:
        click.echo(ctx.get_help())
        return
    path = config_path or find_config(".")
    config = load_config(path) if path else None
    origin = config.path if config is not None else "no config file found; defaults"
    click.echo(f"# effective dralint configuration ({origin})")
    shown = (config or LoadedConfig()).shown()
    click.echo(yaml.safe_dump(shown, sort_keys=False, default_flow_style=False, allow_unicode=True), nl=False)
    problems = to_diagnostics(config.findings, LintOptions(profile="strict")) if config is not None else []
    for diag in problems:
        click.echo(
            f"{diag.span.path}:{diag.span.line}:{diag.span.column}: {diag.severity.value}: {diag.message} "
            f"[{diag.rule}]",
            err=True,
        )
    if any(d.severity.value == "error" for d in problems):
        sys.exit(1)
