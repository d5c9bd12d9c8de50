"""Run options: everything a lint run is parameterised by, gathered from CLI and config."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralint.yaml.sources import MAX_FILE_BYTES

PROFILES = ("dra", "recommended", "strict")
#: ``--fail-on`` levels: the lowest severity that fails the run, or never.
FAIL_ON = ("error", "warning", "info", "never")


@dataclass
class LintOptions:
    """What to lint and how; the CLI and the config file both fill this one object."""

    paths: list[str] = field(default_factory=lambda: ["."])
    exclude: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    slices: list[str] = field(default_factory=list)
    feature_gates: dict[str, bool] = field(default_factory=dict)
    closed_world: set[str] = field(default_factory=set)
    profile: str = "recommended"
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    severity_overrides: dict[str, str] = field(default_factory=dict)
    stdin_name: str = "<stdin>"
    max_file_bytes: int = MAX_FILE_BYTES
    # Stages after the engine run (suppression, baseline, gates, SARIF) read these.
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)
    baseline: str | None = None
    fail_on: str = "error"
    min_score: int | None = None
    sarif_root: str = "."
