"""Command line: ``dralint lint``, ``dralint rules``, ``dralint explain``.

Exit codes (docs/cli-robustness.md): 0 when every gate passes (``--fail-on``, ``--min-score``),
1 when one fails, 2 for usage errors, when nothing could be read, or when the report cannot be
written; 3 when dralint itself fails (an internal error, a bug to report).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import re
import sys
import traceback
from collections.abc import Iterable
from typing import Any, NoReturn, TextIO

import click

from dralint import __version__
from dralint.cli.progress import ProgressLine
from dralint.cli.progress import wanted as progress_wanted
from dralint.diagnostics import in_report_order
from dralint.k8s.allocator.examples import EXAMPLES
from dralint.k8s.allocator.examples import PREFIX as EXAMPLE_PREFIX
from dralint.k8s.features import DRA_GATES
from dralint.lint.baseline import BaselineError, baseline_texts
from dralint.lint.catalog import load_catalog
from dralint.lint.config import LoadedConfig, find_config, load_config
from dralint.lint.context import CLOSABLE_KINDS
from dralint.lint.engine import UnknownEnvironment
from dralint.lint.gate import lint_with_config
from dralint.lint.options import FAIL_ON, PROFILES, PSS_LEVELS, LintOptions
from dralint.lint.selectors import did_you_mean, selector_words, split_names, unknown_selectors
from dralint.reporters import FORMATS, chunked_reporter, joined
from dralint.reporters.terminal import printable
from dralint.reporters.text import summary


def use_color(choice: str, stream: object) -> bool:
    """Colour when asked, or when writing to a terminal that wants it (NO_COLOR wins)."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"


_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(value: str) -> int:
    """``268435456``, ``256M``, ``256MiB`` or ``1G`` as bytes (units are powers of 1024)."""
    match = re.fullmatch(r"\s*(\d+)\s*(?:([kmg])(?:i?b)?|b)?\s*", value, re.IGNORECASE)
    if match is None or int(match.group(1)) <= 0:
        raise click.BadParameter(
            f"{value!r} is not a positive size such as 256M, 1G or a number of bytes", param_hint="--max-file-size"
        )
    return int(match.group(1)) * _SIZE_UNITS[(match.group(2) or "").lower()]


def parse_feature_gates(value: str | None) -> dict[str, bool]:
    """``Name=true,Other=false`` as Kubernetes components take it; names dralint models only."""
    gates: dict[str, bool] = {}
    for item in split_names([value or ""]):
        name, sep, flag = item.partition("=")
        if not sep or flag.lower() not in ("true", "false"):
            raise click.BadParameter(f"{item!r} is not Name=true or Name=false", param_hint="--feature-gates")
        name = name.strip()
        if name not in DRA_GATES:
            raise click.BadParameter(
                f"{name!r} is not a Kubernetes v1.37 feature gate that dralint models;{did_you_mean(name, DRA_GATES)} "
                f"known: {', '.join(sorted(DRA_GATES))}",
                param_hint="--feature-gates",
            )
        gates[name] = flag.lower() == "true"
    return gates


def rule_selectors(values: tuple[str, ...], param: str) -> list[str]:
    """``--select``/``--ignore`` values split at commas; a name that selects no rule is a usage error."""
    names = split_names(values)
    catalog = load_catalog().values()
    for name in unknown_selectors(names, catalog):
        raise click.BadParameter(
            f"{name!r} matches no dralint rule (by id, family, name, category or tag);"
            f"{did_you_mean(name, selector_words(catalog))} `dralint rules` lists them",
            param_hint=param,
        )
    return names


def closed_kinds(values: tuple[str, ...]) -> set[str]:
    """``--closed-world`` kinds split at commas; only kinds whose completeness matters."""
    kinds = set(split_names(values))
    for kind in sorted(kinds - set(CLOSABLE_KINDS)):
        raise click.BadParameter(
            f"{kind!r} is not a kind dralint resolves references to;{did_you_mean(kind, CLOSABLE_KINDS)} "
            f"known: {', '.join(CLOSABLE_KINDS)}",
            param_hint="--closed-world",
        )
    return kinds


def driver_versions(values: tuple[str, ...], config: LoadedConfig | None) -> dict[str, str] | None:
    """``--driver NAME=VERSION`` as a mapping, over the config's ``drivers`` (a driver named on
    the command line takes its version from there, the others keep the config's): trying one
    driver's new release must not unpin the rest. Each must name a release of the driver
    catalog (with the config's own catalog files)."""
    if not values:
        return None
    from dralint.k8s.drivers import load_catalog as load_drivers
    from dralint.lint.drivers import release_problem

    catalog = load_drivers(config.values.get("driver_catalogs", []) if config is not None else [])
    chosen: dict[str, str] = dict(config.values.get("drivers", {})) if config is not None else {}
    for value in values:
        driver, sep, version = (part.strip() for part in value.partition("="))
        problem = release_problem(catalog, driver, version) if driver and version else None
        if not sep or not driver or not version:
            problem = (f"{value!r} is not NAME=VERSION, e.g. gpu.nvidia.com=25.8.0", False)
        if problem is not None:
            raise click.BadParameter(problem[0], param_hint="--driver")
        chosen[driver.lower()] = version.lstrip("v")
    return chosen


class _LazyGroup(click.Group):
    """Imports a subcommand's module only when that command runs (or help lists it): ``fix``
    and ``simulate`` pull in ruamel.yaml, the allocator and CEL, which ``lint`` seldom needs."""

    LAZY = {
        "drivers": "dralint.cli.drivers:drivers_command",
        "fix": "dralint.cli.fix:fix_command",
        "config": "dralint.cli.config:config_command",
        "simulate": "dralint.cli.simulate:simulate_command",
        "doctor": "dralint.cli.doctor:doctor_command",
        "lsp": "dralint.cli.lsp:lsp_command",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.LAZY and cmd_name not in self.commands:
            module, _, name = self.LAZY[cmd_name].partition(":")
            self.add_command(getattr(importlib.import_module(module), name))
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dralint")
def main() -> None:
    """Lint Kubernetes manifests for Dynamic Resource Allocation, GPUs and production readiness."""


#: The exit code of an internal error: distinct from a failed gate (1) and a usage error (2), so
#: that a CI job can tell a crash of dralint from findings.
INTERNAL_ERROR = 3


class OutputError(Exception):
    """Standard output cannot take the report (closed, full, a reader gone)."""


class _Output:
    """``sys.stdout``, whose failures to write are ``OutputError``s: an ``OSError`` from
    anywhere else is an internal error."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream

    def _failed(self, error: OSError | None) -> OutputError:
        why = "it is closed" if error is None else (error.strerror or str(error))
        return OutputError(f"cannot write to standard output: {why}")

    def write(self, text: str) -> int:
        if self._stream is None:
            raise self._failed(None)
        try:
            return self._stream.write(text)
        except OSError as error:
            raise self._failed(error) from error

    def writelines(self, pieces: Iterable[str]) -> None:
        for piece in pieces:
            self.write(piece)

    def flush(self) -> None:
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except OSError as error:
            raise self._failed(error) from error

    def __getattr__(self, name: str) -> Any:
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def command_line() -> NoReturn:
    """The ``dralint`` program: ``main`` run as a command, then the process ended at once.

    By then every report is written and every file closed (each by its ``with`` block), yet
    Python's shutdown would still free, one by one, everything the run made and clear every
    module: some 30 ms after a run of 10,000 documents, 7 ms of the 0.15 s that linting one
    small file takes (pre-commit and editors start dralint once per file), for nothing
    anyone sees. Only the standard streams are left to flush.

    A report that cannot be written ends with exit code 2 and a line on stderr; any other
    uncaught error is an internal one: a line naming it on stderr (the traceback with
    ``DRALINT_TRACEBACK=1``) and exit code 3, never the 1 of a failed gate.
    """
    sys.stdout = _Output(sys.stdout)
    try:
        main()
    except SystemExit as done:
        # Ended here, while the exception's traceback still holds the command's frames: leaving
        # this block would free the run's data first.
        _end(_exit_status(done.code))
    except (OutputError, BrokenPipeError) as error:
        _say(
            f"dralint: {error}"
            if isinstance(error, OutputError)
            else "dralint: cannot write to standard output: the reader has gone"
        )
        _end(2)
    except Exception as error:  # noqa: BLE001 -- the one place every other failure ends
        if os.environ.get("DRALINT_TRACEBACK"):
            traceback.print_exc()
        _say(f"dralint: internal error, please report it: {type(error).__name__}: {error}")
        _end(INTERNAL_ERROR)
    _end(0)


def _say(line: str) -> None:
    """A last line on stderr, if it can take one."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(line, file=sys.stderr, flush=True)


def _end(status: int) -> NoReturn:
    """End the process with ``status`` once the standard streams are flushed; a report that
    cannot be flushed to stdout ends with 2."""
    try:
        sys.stdout.flush()
    except OutputError as error:
        _say(f"dralint: {error}")
        status = status or 2
    except (OSError, ValueError, AttributeError):
        status = status or 2
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    os._exit(status)


def _exit_status(code: object) -> int:
    """The status ``SystemExit(code)`` ends Python with: None is 0, a number itself, anything
    else is printed to stderr and ends with 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


class _LintCommand(click.Command):
    """Keeps the raw arguments, because pairing ``--format`` with ``--output`` needs their order."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["dralint.raw_args"] = list(args)
        return super().parse_args(ctx, args)


def _occurrences(raw: list[str]) -> list[tuple[str, str]]:
    """(``format``|``output``, value) in command-line order."""
    out: list[tuple[str, str]] = []
    tokens = iter(raw)
    for token in tokens:
        if token == "--":
            break
        if token in ("--format", "--output", "-o"):
            out.append(("format" if token == "--format" else "output", next(tokens, "")))
        elif token.startswith(("--format=", "--output=")):
            flag, _, value = token.partition("=")
            out.append((flag[2:], value))
        elif token.startswith("-o") and len(token) > 2:
            out.append(("output", token[2:]))
    return out


def report_targets(raw: list[str]) -> list[tuple[str, str | None]]:
    """Which format goes where: an ``--output`` belongs to the ``--format`` before it.

    ``--output FORMAT=FILE`` names its format (an unknown FORMAT is a usage error); an
    ``--output`` given before any ``--format`` goes to the first format still without a file
    (text when no format is given). At most one report may go to standard output.
    """
    targets: list[list] = []
    pending: list[str] = []
    for kind, value in _occurrences(raw):
        name, sep, path = value.partition("=")
        if kind == "format":
            targets.append([value, None])
        elif sep and name.isalnum() and name not in FORMATS:
            raise click.BadParameter(
                f"unknown format {name!r} in {value!r};{did_you_mean(name, FORMATS)} formats: {', '.join(FORMATS)} "
                f"(write ./{value} for a file of that name)",
                param_hint="--output",
            )
        elif sep and name in FORMATS:
            match = next((t for t in targets if t[0] == name and t[1] is None), None)
            if match is None:
                targets.append([name, path])
            else:
                match[1] = path
        elif targets and targets[-1][1] is None:
            targets[-1][1] = value
        else:
            pending.append(value)
    if not targets or (pending and all(t[1] is not None for t in targets)):
        targets.append(["text", None])
    for path in pending:
        free = next((t for t in targets if t[1] is None), None)
        if free is None:
            raise click.UsageError(f"--output {path} has no --format left to write; say which as FORMAT={path}")
        free[1] = path
    if sum(1 for t in targets if t[1] is None) > 1:
        raise click.UsageError(
            "only one report can go to standard output; give --output FILE (or FORMAT=FILE) for the others"
        )
    return [(fmt, out) for fmt, out in targets]


def _load_config(config_path: str | None, no_config: bool) -> LoadedConfig | None:
    if no_config:
        return None
    if config_path is not None:
        if not os.path.exists(config_path):
            raise click.BadParameter(f"no such file: {config_path}", param_hint="--config")
        if not os.path.isfile(config_path):  # /dev/zero would be read for ever
            raise click.BadParameter(f"{config_path} is not a regular file", param_hint="--config")
        return load_config(config_path)
    found = find_config(".")
    return load_config(found) if found else None


def _options(config: LoadedConfig | None, given: dict[str, object]) -> LintOptions:
    """Config values first, then every option given on the command line over them."""
    options = LintOptions()
    if config is not None:
        config.apply(options, keep=set(given))
    for name, value in given.items():
        setattr(options, name, value)
    return options


def _colored(fmt: str, target: str | None, color: str) -> bool:
    """Whether the report in ``fmt`` to ``target`` (None: stdout) is painted."""
    return fmt == "text" and (use_color(color, sys.stdout) if target is None else color == "always")


def _write(text: str | Iterable[str], target: str | None) -> None:
    pieces = (text,) if isinstance(text, str) else text
    if target is None:
        sys.stdout.writelines(pieces)
        sys.stdout.flush()
        return
    try:
        with open(target, "w", encoding="utf-8") as handle:
            handle.writelines(pieces)
    except OSError as error:
        click.echo(f"dralint: cannot write {target}: {error.strerror or error}", err=True)
        sys.exit(2)


def _named_inputs_exist(paths: Iterable[str], param: str) -> None:
    """A ``--context``, ``--slices`` or ``--helm-values`` path that does not exist is a usage error, as
    ``simulate --slices`` has it: a run with part of the cluster missing proves nothing."""
    for path in paths:
        if path.startswith(EXAMPLE_PREFIX):
            name = path[len(EXAMPLE_PREFIX) :]
            if name not in EXAMPLES:
                raise click.BadParameter(
                    f"unknown example snapshot {name!r}; known: {', '.join(sorted(EXAMPLES))}", param_hint=param
                )
        elif path != "-" and not os.path.lexists(path):
            raise click.BadParameter(f"{path}: no such file or directory", param_hint=param)


@main.command("lint", cls=_LintCommand)
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option(
    "--format", "formats", type=click.Choice(FORMATS), multiple=True, help="Report format (repeatable; default text)."
)
@click.option(
    "--output",
    "-o",
    "outputs",
    multiple=True,
    metavar="[FORMAT=]FILE",
    help="Write the preceding --format's report to FILE (repeatable).",
)
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option(
    "--fail-on", type=click.Choice(FAIL_ON), help="Lowest severity that makes the exit code 1.  [default: error]"
)
@click.option("--min-score", type=click.IntRange(0, 100), help="Exit 1 when the run's score is below N.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="Config file (default: nearest .dralint.yaml, or pyproject.toml with [tool.dralint]).",
)
@click.option("--no-config", is_flag=True, help="Ignore config files.")
@click.option(
    "--baseline", type=click.Path(dir_okay=False), help="Report only findings not recorded in this baseline file."
)
@click.option(
    "--write-baseline", type=click.Path(dir_okay=False), help="Record today's findings in this file (and exit 0)."
)
@click.option(
    "--sarif-root", type=click.Path(file_okay=False), help="Directory SARIF URIs are relative to.  [default: .]"
)
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
@click.option(
    "--context",
    "context_paths",
    multiple=True,
    type=click.Path(readable=False),
    metavar="PATH",
    help="Load PATH for cross-references without reporting on it (repeatable).",
)
@click.option(
    "--slices",
    multiple=True,
    metavar="FILE",
    help="Cluster state: `kubectl get resourceslices,deviceclasses,nodes,resourceclaims -o yaml` output, "
    f"or example:NAME for a bundled snapshot ({', '.join(sorted(EXAMPLES))}) or example:DRIVER[@VERSION] for a "
    "catalog driver's fleet (`dralint drivers`); repeatable.",
)
@click.option(
    "--driver",
    "drivers",
    multiple=True,
    metavar="NAME=VERSION",
    help="The release of a DRA driver the cluster runs, e.g. gpu.nvidia.com=25.8.0 (repeatable); "
    "without it selectors are judged against every release in the driver catalog.",
)
@click.option("--feature-gates", metavar="GATES", help="Kubernetes feature gates as Name=true,Other=false.")
@click.option(
    "--closed-world", multiple=True, metavar="KIND", help="Treat the run as holding every object of KIND (repeatable)."
)
@click.option("--profile", type=click.Choice(PROFILES), help="Which rules run.  [default: recommended]")
@click.option(
    "--pss-level",
    type=click.Choice(PSS_LEVELS),
    help="Pod Security Standards level every namespace enforces unless a scanned Namespace's labels say otherwise.",
)
@click.option(
    "--select",
    multiple=True,
    metavar="RULE",
    help="Only these rules (id, family prefix, name, category or tag; repeatable or comma-separated).",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="RULE",
    help="Skip these rules (id, family prefix, name, category or tag; repeatable or comma-separated).",
)
@click.option("--stdin-filename", help="Name to report for input read from '-'.  [default: <stdin>]")
@click.option(
    "--environment",
    metavar="NAME",
    help="Lint one environment (cluster) of the repository: its files and the shared ones (docs/environments.md).",
)
@click.option(
    "--helm-values",
    multiple=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Values file for every chart rendered (repeatable).",
)
@click.option(
    "--helm-set",
    multiple=True,
    metavar="KEY=VALUE",
    help="`helm template --set` for every chart rendered (repeatable).",
)
@click.option("--helm-release", metavar="NAME", help="Release name charts are rendered with.  [default: release-name]")
@click.option("--helm-namespace", metavar="NAMESPACE", help="Namespace charts are rendered into.")
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Also say how many files were skipped because they hold no Kubernetes document.",
)
@click.option(
    "--max-file-size", metavar="SIZE", help="Skip (YAML008) files larger than SIZE, e.g. 64M or 1G.  [default: 256M]"
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=0),
    metavar="N",
    help="Parse and check in N processes; the output is the same for any N.  [default: one per CPU]",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress line on a terminal.")
@click.pass_context
def lint_command(
    ctx: click.Context,
    paths: tuple[str, ...],
    formats: tuple[str, ...],
    outputs: tuple[str, ...],
    color: str,
    fail_on: str | None,
    min_score: int | None,
    config_path: str | None,
    no_config: bool,
    baseline: str | None,
    write_baseline: str | None,
    sarif_root: str | None,
    exclude: tuple[str, ...],
    context_paths: tuple[str, ...],
    slices: tuple[str, ...],
    drivers: tuple[str, ...],
    feature_gates: str | None,
    closed_world: tuple[str, ...],
    profile: str | None,
    pss_level: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    stdin_filename: str | None,
    environment: str | None,
    helm_values: tuple[str, ...],
    helm_set: tuple[str, ...],
    helm_release: str | None,
    helm_namespace: str | None,
    verbose: bool,
    max_file_size: str | None,
    jobs: int | None,
    quiet: bool,
) -> None:
    """Lint manifests in PATHS (files, directories, or - for stdin; default: .)."""
    # click has validated FORMATS and OUTPUTS; pairing them needs their order on the command line.
    targets = report_targets(ctx.meta["dralint.raw_args"])
    _named_inputs_exist(context_paths, "--context")
    _named_inputs_exist(slices, "--slices")
    _named_inputs_exist(helm_values, "--helm-values")
    config = _load_config(config_path, no_config)
    given: dict[str, object] = {
        "paths": list(paths),
        "exclude": list(exclude),
        "context": list(context_paths),
        "slices": list(slices),
        "drivers": driver_versions(drivers, config),
        "closed_world": closed_kinds(closed_world),
        "select": rule_selectors(select, "--select"),
        "ignore": rule_selectors(ignore, "--ignore"),
        "feature_gates": parse_feature_gates(feature_gates) if feature_gates is not None else None,
        "profile": profile,
        "stdin_name": stdin_filename,
        "fail_on": fail_on,
        "min_score": min_score,
        "baseline": baseline,
        "sarif_root": sarif_root,
        "pss_level": pss_level,
        "environment": environment,
        "helm_values": list(helm_values),
        "helm_set": list(helm_set),
        "helm_release": helm_release,
        "helm_namespace": helm_namespace,
        "max_file_bytes": parse_size(max_file_size) if max_file_size is not None else None,
        "jobs": jobs,
    }
    options = _options(config, {k: v for k, v in given.items() if v is not None and v != [] and v != set()})
    progress = ProgressLine(sys.stderr) if progress_wanted(sys.stderr, quiet) else None
    try:
        result = lint_with_config(options, config, progress=progress)
    except BaselineError as error:
        raise click.BadParameter(str(error), param_hint="--baseline") from error
    except UnknownEnvironment as error:
        raise click.BadParameter(str(error), param_hint="--environment") from error
    finally:
        if progress is not None:
            progress.close()
    if write_baseline:
        # Recording a baseline is not a gate: the findings go into the file, and no report of
        # this run may say FAILED while the exit code says 0.
        recorded = in_report_order(result.diagnostics + result.known)
        _write(joined(baseline_texts(recorded, result.fingerprints)), write_baseline)
        result = dataclasses.replace(result, failed_gates=[])
        if not any(target is None and fmt not in ("text", "github") for fmt, target in targets):
            click.echo(
                f"dralint: wrote baseline {write_baseline} with {len(recorded)} "
                f"finding{'s' if len(recorded) != 1 else ''}",
                err=True,
            )
    if any(fmt == "sarif" for fmt, _ in targets):
        from dralint.fix.runner import fix_replacements

        result = dataclasses.replace(result, fixes=fix_replacements(result))
    for fmt, target in targets:
        _write(chunked_reporter(fmt)(result, _colored(fmt, target, color)), target)
    if all(target is not None for _, target in targets):
        # Every report went to a file: the summary line is the job log. When a machine report
        # holds stdout nothing else is printed, not even on stderr, so `2>&1` cannot corrupt it.
        click.echo(summary(result))
    if verbose:
        count = len(result.skipped)
        click.echo(
            f"dralint: skipped {count} file{'s' if count != 1 else ''} with no Kubernetes document (plain "
            "YAML or JSON, or empty)",
            err=True,
        )
    if not result.sources:
        click.echo("dralint: nothing could be read from the given paths", err=True)
        sys.exit(2)
    sys.exit(0 if write_baseline or not result.failed_gates else 1)


@main.command("rules")
def rules_command() -> None:
    """List every rule: id, default severity, category, name and summary."""
    catalog = load_catalog()
    width = max(len(r.name) for r in catalog.values())
    for rule in sorted(catalog.values(), key=lambda r: r.id):
        click.echo(
            printable(f"{rule.id:<8} {rule.severity.value:<8} {rule.category:<19} {rule.name:<{width}}  {rule.summary}")
        )


@main.command("explain")
@click.argument("rule_id")
def explain_command(rule_id: str) -> None:
    """Show the full description of a rule, with examples."""
    catalog = load_catalog()
    rule = catalog.get(rule_id.upper()) or next((r for r in catalog.values() if r.name == rule_id), None)
    if rule is None:
        raise click.BadParameter(f"no rule {rule_id!r}; `dralint rules` lists them", param_hint="RULE_ID")
    from dralint.lint.ruledocs import explain

    click.echo(printable(explain(rule)))
