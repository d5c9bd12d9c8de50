"""CI cannot pass by skipping (issue 20): what it installs, and what fails when input is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pytest(*args: str, **env: str) -> subprocess.CompletedProcess:
    """pytest in a child process, with ``CI`` only when given here."""
    base = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_ci_script_installs_the_schemas_extra_and_sets_ci():
    script = (ROOT / ".ci" / "run").read_text()
    assert '".[test,schemas]"' in script
    assert 'CI="${CI:-true}"' in script


def test_shared_tests_fail_in_ci_when_shared_is_missing(tmp_path):
    missing = _pytest("tests/test_corpus.py", "tests/test_yaml_test_suite.py", CI="true", DRALINT_SHARED=str(tmp_path))
    assert missing.returncode != 0
    assert "the shared corpus not found" in missing.stdout
    assert "the YAML test suite not found" in missing.stdout


def test_shared_tests_skip_locally_when_shared_is_missing(tmp_path):
    result = _pytest("tests/test_corpus.py", DRALINT_SHARED=str(tmp_path))
    assert result.returncode == 5  # pytest's "no tests ran": the module skipped itself
    assert "1 skipped" in result.stdout


def test_ci_hypothesis_profile_is_derandomized_and_keeps_no_database():
    from hypothesis import settings

    profile = settings.get_profile("ci")
    assert profile.derandomize is True
    assert profile.database is None
