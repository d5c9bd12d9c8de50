"""``dralint doctor``: explain the Pending or failing device pods of a cluster or of a dump of one.

Exit 0 when no pod is stuck for a reason dralint can name, 1 when one is, 2 when the input
cannot be read or the cluster cannot be reached.
"""

from __future__ import annotations

import json
import sys
from typing import NoReturn

import click

from dralint.k8s.doctor import Dump, DumpError, diagnose, load_dump
from dralint.k8s.doctor.cluster import ClusterError, Target, read_cluster
from dralint.k8s.doctor.diagnose import examined
from dralint.k8s.doctor.report import as_data, as_text
from dralint.yaml.sources import FileIssue, read


@click.command("doctor")
@click.argument("dump", required=False, metavar="[DUMP]")
@click.option("--kubeconfig", metavar="FILE", help="Kubeconfig to read the cluster with (default: kubectl's).")
@click.option("--context", "context_name", metavar="NAME", help="Kubeconfig context (default: the current one).")
@click.option("--namespace", "-n", metavar="NS", help="Namespace of the pods (default: the context's).")
@click.option("--all-namespaces", "-A", is_flag=True, help="Pods of every namespace.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def doctor_command(
    dump: str | None,
    kubeconfig: str | None,
    context_name: str | None,
    namespace: str | None,
    all_namespaces: bool,
    fmt: str,
) -> None:
    """Explain why device pods are Pending or failing.

    Without DUMP, doctor reads the cluster of the current kubeconfig context (read-only: it lists
    pods, ResourceClaims and their templates, ResourceSlices, DeviceClasses, Nodes and the events
    of the pods it examines), through the kubernetes Python client (pip install
    'dralint[cluster]') or kubectl. DUMP is a file, or - for stdin, made with:

    \b
    kubectl get pods,resourceclaims,resourceclaimtemplates,resourceslices,deviceclasses,nodes -A -o yaml > dump.yaml
    """
    if dump is not None and (kubeconfig or context_name or namespace or all_namespaces):
        _fail("give either a DUMP or the cluster options (--kubeconfig, --context, --namespace, -A), not both")
    target = Target(kubeconfig, context_name, namespace, all_namespaces)
    try:
        loaded = _load(dump) if dump is not None else _read(target)
        diagnoses = diagnose(loaded)
    except (DumpError, ClusterError) as error:
        _fail(str(error))
    if fmt == "json":
        click.echo(json.dumps(as_data(diagnoses, loaded.skipped), indent=2))
    else:
        source = "the dump" if dump is not None else "the cluster"
        click.echo(as_text(diagnoses, loaded.skipped, source), nl=False)
    sys.exit(1 if any(d.stuck for d in diagnoses) else 0)


def _load(dump: str) -> Dump:
    source = read(dump)
    if isinstance(source, FileIssue):
        _fail(source.message)
    return load_dump(source.text, source.path)


def _read(target: Target) -> Dump:
    """The cluster's objects, read into a dump as if kubectl had written one."""
    objects = read_cluster(target, examined)
    where = f"context {target.context}" if target.context else "the current context"
    if not objects:
        raise ClusterError(f"{where}: no pod, claim, slice, class or node to examine")
    return load_dump(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}), f"<cluster: {where}>")


def _fail(message: str) -> NoReturn:
    click.echo(f"dralint: {message}", err=True)
    sys.exit(2)
