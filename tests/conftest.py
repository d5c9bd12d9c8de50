"""Shared test helpers: lint a manifest string the way a user's file would be linted."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from dralint.lint.config import load_config
from dralint.lint.engine import RunResult
from dralint.lint.gate import lint_with_config
from dralint.lint.options import LintOptions


def shared_dir(name: str) -> Path:
    """A folder of the team's shared material (``corpus``, ``yaml-test-suite``).

    CI lays ``shared/`` beside the checkout; ``DRALINT_SHARED`` replaces that search, and the team's
    workspace copy is the last resort. Tests that need it call ``require`` on it.
    """
    if os.environ.get("DRALINT_SHARED"):
        return Path(os.environ["DRALINT_SHARED"]) / name
    candidates = [Path(__file__).resolve().parents[2] / "shared", Path("/work/shared")]
    return next((c / name for c in candidates if (c / name).is_dir()), candidates[0] / name)


CORPUS = shared_dir("corpus")
YAML_TEST_SUITE = shared_dir("yaml-test-suite")


def require(path: Path, what: str) -> None:
    """Skip a module whose input ``path`` is absent on a developer's machine; in CI (``CI`` set)
    fail instead, so a missing checkout of ``shared/`` cannot turn the suite green by skipping."""
    if path.exists():
        return
    message = f"{what} not found at {path}"
    if os.environ.get("CI"):
        pytest.fail(f"{message}; CI must provide it (or set DRALINT_SHARED)", pytrace=False)
    pytest.skip(message, allow_module_level=True)


def go_tests_requested() -> bool:
    """Whether this run builds Go programs from the upstream modules (the oracle, the control plane).

    Building them takes tens of minutes on two cores, so a plain ``python -m pytest`` never does, Go
    or not; ``DRALINT_GO_TESTS=1`` asks for them (``.ci/run`` does when Go is on PATH), and a run that
    asks without Go fails rather than passing on a skip.
    """
    if os.environ.get("DRALINT_GO_TESTS", "") in ("", "0"):
        return False
    if shutil.which("go") is None:
        pytest.fail("DRALINT_GO_TESTS is set but go is not on PATH", pytrace=False)
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if go_tests_requested():
        return
    skip = pytest.mark.skip(reason="builds Go programs from the upstream modules: set DRALINT_GO_TESTS=1 (needs Go)")
    for item in items:
        if "go" in item.keywords:
            item.add_marker(skip)


# CI explores the same examples on every run and keeps no example database, so a red build is
# reproducible and never caused by a new random example or a failure replayed from an earlier
# run; local runs keep exploring new ones (and store failures in .hypothesis/ for replay).
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def lint_text(
    tmp_path: Path,
    manifest: str | bytes,
    *,
    slices: str | None = None,
    name: str = "manifest.yaml",
    config: str | None = None,
    **options: Any,
) -> RunResult:
    """Write ``manifest`` (and a snapshot, and a ``.dralint.yaml``) under ``tmp_path`` and lint
    it from disk the way ``dralint lint`` does, suppressions and config included.

    Options given here win over the config file, as command-line options do.
    """
    target = tmp_path / name
    target.write_bytes(manifest if isinstance(manifest, bytes) else manifest.encode("utf-8"))
    loaded = None
    if config is not None:
        (tmp_path / ".dralint.yaml").write_text(config, encoding="utf-8")
        loaded = load_config(str(tmp_path / ".dralint.yaml"))
    opts = loaded.apply(LintOptions()) if loaded else LintOptions()
    opts.paths = [str(target)]
    opts.profile = options.pop("profile", "strict")
    if slices is not None:
        snapshot = tmp_path / "slices.yaml"
        snapshot.write_text(slices, encoding="utf-8")
        opts.slices = [str(snapshot)]
    for key, value in options.items():
        if not hasattr(opts, key):
            raise AttributeError(f"LintOptions has no field {key!r}")
        setattr(opts, key, set(value) if isinstance(getattr(opts, key), set) else value)
    return lint_with_config(opts, loaded)


@pytest.fixture
def lint_manifest(tmp_path: Path):
    """``lint_manifest(text, **options) -> RunResult`` in a fresh directory."""

    def run(manifest: str | bytes, **options: Any) -> RunResult:
        return lint_text(tmp_path, manifest, **options)

    return run


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh directory as the current directory, for CLI runs that find files relative to it."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def rules_of(result: RunResult) -> list[str]:
    return [d.rule for d in result.diagnostics]
