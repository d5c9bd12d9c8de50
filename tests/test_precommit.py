"""The pre-commit hook, for real: pre-commit installs it from this repository and runs it.

Offline by construction: pip gets no index (``PIP_NO_INDEX``), builds dralint with the
hatchling already installed here (no build isolation), and the hook's environment sees this
interpreter's site-packages through ``PYTHONPATH`` for click and PyYAML. Nothing is fetched.
"""

from __future__ import annotations

import importlib.util
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team-a\n"
BAD = GOOD + "  name: again\n"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed (pip install '.[test]')"
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("hatchling") is None,
        reason="hatchling (the build backend) is needed to install the hook offline",
    ),
]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUALENV_", "PRE_COMMIT"))}
    env.update(
        PRE_COMMIT_HOME=str(home),
        PIP_NO_INDEX="1",
        PIP_NO_BUILD_ISOLATION="0",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PYTHONPATH=os.pathsep.join(site.getsitepackages()),
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    return env


def _try_repo(work: Path, home: Path) -> subprocess.CompletedProcess:
    """``pre-commit try-repo`` on the staged files, as ``git commit`` would run the hook."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "dralint"],
        cwd=work,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_hook_fails_a_bad_manifest_and_passes_a_good_one(tmp_path):
    work, home = tmp_path / "work", tmp_path / "pre-commit-home"
    (work / "deploy").mkdir(parents=True)
    _git(work, "init", "-q")
    # Already committed and broken: the config loads deploy/ as context, which is never reported.
    (work / "deploy" / "legacy.yaml").write_text(BAD.replace("settings", "legacy"))
    (work / ".dralint.yaml").write_text("context: [deploy]\n")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "existing manifests")

    (work / "deploy" / "settings.yaml").write_text(BAD)
    (work / "README.md").write_text("not yaml, the hook must not see it\n")
    _git(work, "add", "-A")
    failed = _try_repo(work, home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "deploy/settings.yaml:6:3: error: duplicate key 'name'" in failed.stdout
    assert "legacy.yaml" not in failed.stdout
    assert "1 file, 1 object" in failed.stdout  # only the staged YAML file, not README.md
    assert "FAILED --fail-on error" in failed.stdout

    (work / "deploy" / "settings.yaml").write_text(GOOD)
    _git(work, "add", "-A")
    passed = _try_repo(work, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


def _readme_block(heading: str) -> str:
    """The first fenced YAML block after ``heading`` in the README."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    after = text[text.index(heading) :]
    return after.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_readme_precommit_snippet_works_as_written(tmp_path):
    """The README's pre-commit configuration, unchanged, with dralint installed (issue 20)."""
    work, home = tmp_path / "work", tmp_path / "pre-commit-home"
    work.mkdir()
    _git(work, "init", "-q")
    snippet = _readme_block("### pre-commit")
    assert "<org>" not in snippet and "<" not in snippet
    (work / ".pre-commit-config.yaml").write_text(snippet)
    (work / "settings.yaml").write_text(BAD)
    (work / ".github").mkdir()
    (work / ".github" / "ci.yaml").write_text("on: [push]\n")
    _git(work, "add", "-A")
    env = _env(home)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    failed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "settings.yaml:6:3: error: duplicate key 'name'" in failed.stdout
    assert "ci.yaml" not in failed.stdout and "pre-commit-config" not in failed.stdout


def test_readme_install_commands_name_no_package_index_release():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert "pip install dralint" not in text
    assert "<org>" not in text
