"""The stages after the engine: run -> suppress -> baseline -> score -> gates.

Data flows one way: this module takes a finished ``RunResult`` and returns a new one; nothing
here feeds back into the checks, and reporters only format what it returns. The CLI and the
test helpers both call ``lint_with_config`` so a test sees exactly what a user sees.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import BinaryIO

from dralint.diagnostics import Diagnostic, Severity, in_report_order
from dralint.lint import suppress
from dralint.lint.baseline import read_baseline, split_known
from dralint.lint.config import BAD_CONFIG, UNKNOWN_RULE, LoadedConfig
from dralint.lint.engine import FileResult, Progress, RunResult, count_per_file, lint, to_diagnostics
from dralint.lint.fingerprint import fingerprints
from dralint.lint.options import LintOptions

#: Rules reported by these stages rather than by checks or the engine.
STAGE_RULES = frozenset({BAD_CONFIG, UNKNOWN_RULE, suppress.UNUSED, suppress.EXPIRED, suppress.MALFORMED})


def today_utc() -> dt.date:
    """The date expiry dates are compared with; UTC so CI and laptops agree."""
    return dt.datetime.now(dt.UTC).date()


def failed_gates(result: RunResult, options: LintOptions) -> list[str]:
    """Which exit-code gates the run fails, each said the way the user set it."""
    out = []
    if options.fail_on != "never":
        threshold = Severity(options.fail_on).rank
        reached = sum(n for s, n in result.tally().items() if s.rank >= threshold)
        if reached:
            level = options.fail_on if options.fail_on == "error" else f"{options.fail_on} or worse"
            out.append(f"--fail-on {options.fail_on} ({reached} finding{'s' if reached != 1 else ''} at {level})")
    if options.min_score is not None and result.score < options.min_score:
        out.append(f"--min-score {options.min_score} (score {result.score})")
    return out


def _files(
    result: RunResult, diagnostics: list[Diagnostic], extra_paths: list[str], unchanged: bool
) -> list[FileResult]:
    """Per-file counts for the diagnostics that are still reported: the run's own when
    ``unchanged`` (they are the run's diagnostics: most runs), else counted again (0.01 s per
    70,000 findings)."""
    files = [
        FileResult(f.path, f.objects, dict(f.counts)) if unchanged else FileResult(f.path, f.objects)
        for f in result.files
    ]
    known = {f.path for f in files}
    files += [FileResult(p) for p in extra_paths if p not in known and any(d.span.path == p for d in diagnostics)]
    if not unchanged:
        count_per_file(files, diagnostics)
    return files


def finish(
    result: RunResult, options: LintOptions, config: LoadedConfig | None = None, today: dt.date | None = None
) -> RunResult:
    """Apply suppressions, config findings, the baseline and the gates to a run.

    Raises ``BaselineError`` when ``options.baseline`` cannot be read.
    """
    locate = config.locate_per_path if config is not None else (lambda _: None)
    outcome = suppress.apply(result, options, today or today_utc(), locate)
    own = outcome.findings + (config.findings if config is not None else [])
    # A broken config or suppression must not go unnoticed because of the profile or --select
    # (both choose manifest checks); only --ignore and severity overrides apply to these rules.
    stage_options = dataclasses.replace(options, profile="strict", select=[])
    staged = to_diagnostics(own, stage_options)
    # The run's diagnostics are already unique and in report order (dedup.one_file), and
    # suppression keeps that order: only findings of these stages need merging in.
    diagnostics = in_report_order(dict.fromkeys(outcome.active + staged)) if staged else outcome.active
    sources = dict(result.sources)
    if config is not None and config.source is not None:
        sources.setdefault(config.source.path, config.source)
    prints = None
    known: list[Diagnostic] = []
    if options.baseline:
        prints = fingerprints(diagnostics + [s.diagnostic for s in outcome.suppressed], sources)
        diagnostics, known = split_known(diagnostics, prints, read_baseline(options.baseline))
    extra = [config.source.path] if config is not None and config.source is not None else []
    finished = dataclasses.replace(
        result,
        diagnostics=diagnostics,
        # Suppressions and the baseline only remove: with nothing added, the same number is the same list.
        files=_files(result, diagnostics, extra, unchanged=not staged and len(diagnostics) == len(result.diagnostics)),
        sources=sources,
        suppressed=outcome.suppressed,
        known=known,
        computed_fingerprints=prints,
        fail_on=options.fail_on,
    )
    finished.failed_gates = failed_gates(finished, options)
    return finished


def lint_with_config(
    options: LintOptions,
    config: LoadedConfig | None = None,
    stdin: BinaryIO | None = None,
    today: dt.date | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Lint from disk and run every stage after the engine."""
    return finish(lint(without_own_files(options, config), stdin, progress), options, config, today)


def without_own_files(options: LintOptions, config: LoadedConfig | None) -> LintOptions:
    """``options`` with dralint's own files (the config file and the baseline in use) excluded:
    they are not manifests, so a directory walk skips them instead of reporting each as "not a
    Kubernetes manifest"."""
    own = [
        p
        for p in (config.path if config is not None else None, options.baseline)
        if p and p.endswith((".yaml", ".yml", ".json"))
    ]
    return dataclasses.replace(options, exclude=options.exclude + own) if own else options
