"""``dralint doctor``: explain the Pending or failing device pods of a live cluster dump.

Exit 0 when no pod is stuck for a reason dralint can name, 1 when one is, 2 when the input
cannot be read.
"""

from __future__ import annotations

import json
import sys

import click

from dralint.k8s.doctor import DumpError, diagnose, load_dump
from dralint.k8s.doctor.report import as_data, as_text
from dralint.yaml.sources import FileIssue, read


@click.command("doctor")
@click.argument("dump", default="-", metavar="DUMP")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def doctor_command(dump: str, fmt: str) -> None:
    """Explain why device pods are Pending or failing, from DUMP (a file, or - for stdin) made with:

    \b
    kubectl get pods,resourceclaims,resourceslices,deviceclasses,nodes -A -o yaml > dump.yaml
    """
    source = read(dump)
    if isinstance(source, FileIssue):
        click.echo(f"dralint: {source.message}", err=True)
        sys.exit(2)
    try:
        loaded = load_dump(source.text, source.path)
        diagnoses = diagnose(loaded)
    except DumpError as error:
        click.echo(f"dralint: {error}", err=True)
        sys.exit(2)
    if fmt == "json":
        click.echo(json.dumps(as_data(diagnoses, loaded.skipped), indent=2))
    else:
        click.echo(as_text(diagnoses, loaded.skipped), nl=False)
    sys.exit(1 if any(d.stuck for d in diagnoses) else 0)
