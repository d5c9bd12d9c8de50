"""``dralint fix``: apply the safe fixes in place, or show them as a diff.

Exit codes: 0 when every fix was applied (or, with ``--diff``, when nothing would change), 1
when a fix was held back because it would introduce an error, a file could not be edited, or
(with ``--diff``) when there are changes to apply; 2 for usage errors.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import signal
import sys
from collections.abc import Iterator

import click

from dralint.fix.runner import FileFix, fix_bytes, fixable_rules, refusal, write_atomically
from dralint.lint.catalog import load_catalog
from dralint.lint.options import PROFILES, LintOptions
from dralint.lint.selectors import did_you_mean, split_names
from dralint.reporters.terminal import printable
from dralint.yaml.sources import FileIssue, discover


def _rules(selected: tuple[str, ...]) -> set[str] | None:
    """The ``--rule`` ids (or names), checked against the fixable rules."""
    if not selected:
        return None
    available = fixable_rules()
    catalog = load_catalog()
    by_name = {rule.name: rule.id for rule in catalog.values()}
    chosen = set()
    for item in split_names(selected):
        rule = by_name.get(item, item.upper())
        if rule not in available:
            problem = (
                "has no automatic fix"
                if rule in catalog
                else "is not a dralint rule"
                + (
                    f";{near}"
                    if (near := did_you_mean(item, [*available, *(catalog[r].name for r in available)]))
                    else ""
                )
            )
            raise click.BadParameter(
                f"{item!r} {problem}; fixable rules: {', '.join(sorted(available))}", param_hint="--rule"
            )
        chosen.add(rule)
    return chosen


def unified_diff(outcome: FileFix) -> str:
    """A unified diff of one file's fix (text as decoded, line endings shown as LF)."""
    before = outcome.original.decode("utf-8-sig").replace("\r\n", "\n").splitlines(keepends=True)
    after = outcome.fixed.decode("utf-8-sig").replace("\r\n", "\n").splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, f"a/{outcome.path}", f"b/{outcome.path}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _report(outcome: FileFix, diff: bool) -> None:
    """What was fixed (printed only for a file that changed), held back, or not fixable."""
    verb = "would fix" if diff else "fixed"
    for record in outcome.applied if outcome.changed else ():
        click.echo(
            printable(f"{outcome.path}:{record.line}:{record.column}: {verb} {record.rule}: {record.description}"),
            err=diff,
        )
    for record in outcome.rejected:
        click.echo(
            printable(
                f"{outcome.path}:{record.line}:{record.column}: {record.rule} not fixed "
                f"({record.description}): {record.reason}"
            ),
            err=True,
        )
    if outcome.problem:
        click.echo(printable(f"{outcome.path}: cannot be fixed automatically: {outcome.problem}"), err=True)


@click.command("fix")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, readable=False, allow_dash=True))
@click.option("--diff", is_flag=True, help="Print a unified diff of the fixes and change nothing.")
@click.option(
    "--rule", "rules", multiple=True, metavar="RULE", help="Only apply the fixes of RULE (id or name; repeatable)."
)
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (repeatable).")
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default="strict",
    show_default=True,
    help="Rules the re-lint after a fix compares.",
)
def fix_command(
    paths: tuple[str, ...], diff: bool, rules: tuple[str, ...], exclude: tuple[str, ...], profile: str
) -> None:
    """Apply safe automatic fixes to manifests in PATHS (default: .), keeping comments and formatting.

    Each file is re-linted after fixing; a fix that would introduce a new error is not applied
    and is reported.
    """
    chosen = _rules(rules)
    if "-" in paths:
        raise click.BadParameter("fix edits files in place; it cannot read stdin", param_hint="PATHS")
    options = LintOptions(paths=list(paths) or ["."], exclude=list(exclude), profile=profile)
    troubled = changed = 0
    trees = [path for path in options.paths if os.path.isdir(path)]
    with _interruptions_end_in_python():
        for item in discover(options.paths, options.exclude):
            if isinstance(item, FileIssue):
                click.echo(printable(item.message), err=True)
                troubled += 1
                continue
            fixed, trouble = _fix_file(item, options, chosen, diff, trees)
            changed += fixed
            troubled += trouble
    click.echo(f"dralint fix: {changed} file(s) {'would change' if diff else 'changed'}", err=True)
    sys.exit(1 if troubled or (diff and changed) else 0)


def _fix_file(
    path: str, options: LintOptions, rules: set[str] | None, diff: bool, trees: list[str]
) -> tuple[bool, bool]:
    """Fix (or, with ``diff``, show the fixes of) one file: (it changed, something went wrong).
    A file that must not be rewritten is refused before it is read (``trees``: the directories
    named, which a symbolic link found in them may lead anywhere within), and ``fixed`` is
    printed only once the new content is in place."""
    refused = None if diff else refusal(path, trees)
    if refused is not None:
        click.echo(printable(f"{path}: cannot be fixed: {refused}"), err=True)
        return False, True
    try:
        with open(path, "rb") as handle:
            raw = handle.read(options.max_file_bytes + 1)
    except OSError as error:
        click.echo(printable(f"{path}: cannot read: {error.strerror or error}"), err=True)
        return False, True
    if len(raw) > options.max_file_bytes:
        return False, False
    outcome = fix_bytes(path, raw, options, rules)
    if outcome.changed and not diff:
        try:
            write_atomically(path, outcome.fixed, trees)
        except OSError as error:
            click.echo(printable(f"{path}: cannot write the fixes: {error.strerror or error}"), err=True)
            return False, True
    _report(outcome, diff)
    if outcome.changed and diff:
        click.echo(unified_diff(outcome), nl=False)
    return outcome.changed, bool(outcome.rejected or outcome.problem)


@contextlib.contextmanager
def _interruptions_end_in_python() -> Iterator[None]:
    """SIGTERM and SIGHUP (a CI job cancelled, a terminal closed) end the run as Ctrl-C does,
    through Python, so a fix being written removes its temporary file."""

    def interrupted(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = {signum: signal.signal(signum, interrupted) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
