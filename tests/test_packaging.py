"""The built wheel carries the rule catalog and schemas, and runs without the source tree."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_installs_and_lists_rules(tmp_path):
    pytest.importorskip("hatchling")
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = dist.glob("dralint-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("dralint/_data/rules/") and n.endswith(".yaml") for n in names)
    assert "dralint/_data/rules/catalog.json" in names
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
        check=True,
    )
    # Run from an empty directory with the installed copy first on the path, so neither the
    # checkout's dralint package nor its rules/ directory can be picked up.
    script = (
        "import dralint, sys; from dralint.cli.main import main; print(dralint.__file__, file=sys.stderr); "
        "main(['rules'])"
    )
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert str(target) in done.stderr
    assert "YAML001" in done.stdout and "duplicate-key" in done.stdout
