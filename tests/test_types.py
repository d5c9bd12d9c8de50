"""The package type-checks clean with the mypy settings in pyproject.toml.

Run as a test so a new unnarrowed Optional or a wrong annotation fails the suite where it is
written, not in a later cleanup. mypy keeps its cache in the checkout's .mypy_cache, so reruns
take well under a second.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_package_type_checks() -> None:
    pytest.importorskip("mypy")
    done = subprocess.run([sys.executable, "-m", "mypy", "dralint"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
