"""Ready to publish: ``python -m build`` makes an sdist and a wheel that ``twine check`` accepts, and
the wheel, installed in a fresh virtual environment, lints the examples without the source tree."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

import dralint

ROOT = Path(__file__).resolve().parent.parent


def _run(*command: str | Path, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=600, **options)


@pytest.mark.slow
def test_the_sdist_and_wheel_pass_twine_and_the_wheel_lints_the_examples_in_a_fresh_venv(tmp_path):
    for tool in ("build", "twine", "hatchling"):
        pytest.importorskip(tool)
    dist = tmp_path / "dist"
    # No isolation: the build backend comes from the test extra, so the test needs no network.
    # `build` makes the sdist and then the wheel from the sdist, so the sdist is complete.
    built = _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, ROOT)
    assert built.returncode == 0, built.stdout + built.stderr
    (sdist,) = dist.glob("dralint-*.tar.gz")
    (wheel,) = dist.glob("dralint-*.whl")
    assert sdist.name == f"dralint-{dralint.__version__}.tar.gz"
    checked = _run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr

    names = zipfile.ZipFile(wheel).namelist()
    assert "dralint/_data/rules/catalog.json" in names
    assert any(n.startswith("dralint/_data/rules/") and n.endswith(".yaml") for n in names)
    assert any(n.startswith("dralint/_data/schemas/") for n in names)
    with tarfile.open(sdist) as archive:
        top = {Path(n).parts[1] for n in archive.getnames() if len(Path(n).parts) > 1}
    assert {"dralint", "rules", "schemas", "README.md", "pyproject.toml"} <= top

    # A fresh environment with only the wheel installed; its dependencies are the ones this test
    # runs with, seen through a .pth file (a path line adds the directory without running the
    # .pth files inside it, so an editable install of the checkout there stays invisible).
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", "--without-pip", venv).returncode == 0
    python = venv / "bin" / "python"
    installed = _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    dependencies = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site) / "test-dependencies.pth").write_text("\n".join(sorted(dependencies)) + "\n")

    # From an empty directory, with neither helm nor kustomize on PATH.
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
    where = _run(python, "-c", "import dralint; print(dralint.__file__)", cwd=tmp_path, env=env)
    assert where.stdout.startswith(site), where.stdout + where.stderr
    lint = _run(venv / "bin" / "dralint", "lint", "--no-config", ROOT / "examples", cwd=tmp_path, env=env)
    assert lint.returncode == 1, lint.stdout + lint.stderr  # the examples hold deliberate mistakes
    assert "training.yaml:60:36: error: resourceClaimTemplateName refers to ResourceClaimTemplate" in lint.stdout
    assert "[REF002]" in lint.stdout and "Traceback" not in lint.stderr
    version = _run(venv / "bin" / "dralint", "--version", cwd=tmp_path, env=env)
    assert dralint.__version__ in version.stdout
