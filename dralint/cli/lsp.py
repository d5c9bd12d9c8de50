"""``dralint lsp``: the language server, for editors (docs/editors.md)."""

from __future__ import annotations

import click


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Speak on standard input and output (the default; editors pass it).")
@click.option(
    "--tcp",
    "port",
    type=click.IntRange(1, 65535),
    metavar="PORT",
    help="Listen on 127.0.0.1:PORT instead, for debugging.",
)
def lsp_command(stdio: bool, port: int | None) -> None:
    """Run the language server: diagnostics, fixes, hover and CEL completion as you type."""
    if stdio and port is not None:
        raise click.UsageError("--stdio and --tcp are exclusive")
    from dralint.lsp.server import serve

    serve(port)
