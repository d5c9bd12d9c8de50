"""Hostile surroundings of the command line (issue 47): closed or full standard streams, odd
files named as options, and dralint's own crashes, each a line on stderr and a documented exit
code (docs/cli-robustness.md), never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\nspec:\n  containers:\n  - {name: c, image: x}\n"


def _dralint(*args: str, cwd: Path, **streams) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dralint", *args],
        cwd=cwd,
        capture_output="stdout" not in streams,
        timeout=120,
        **streams,
    )


def _closed(fd: int):
    """A preexec_fn that starts the child with ``fd`` closed."""
    return lambda: os.close(fd)


@pytest.mark.parametrize("command", [["lint", "--no-config", "-"], ["doctor", "-"]])
def test_a_closed_stdin_is_a_finding_or_a_message_not_a_traceback(tmp_path, command):
    run = subprocess.run(
        [sys.executable, "-m", "dralint", *command],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_closed(0),
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "cannot read <stdin>: standard input is closed" in run.stdout + run.stderr


@pytest.mark.parametrize("command", [["lint", "--no-config", "pod.yaml"], ["rules"]])
def test_a_closed_stdout_ends_with_2_and_says_so(tmp_path, command):
    (tmp_path / "pod.yaml").write_text(POD)
    run = subprocess.run(
        [sys.executable, "-m", "dralint", *command],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=_closed(1),
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().splitlines()[-1] == "dralint: cannot write to standard output: it is closed"


@pytest.mark.parametrize("command", [["lint", "--no-config", "pod.yaml"], ["lint", "--format", "sarif", "pod.yaml"]])
def test_stdout_to_a_full_device_ends_with_2_and_says_so(tmp_path, command):
    (tmp_path / "pod.yaml").write_text(POD)
    with open("/dev/full", "w") as full:
        run = _dralint(*command, cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "dralint: cannot write to standard output: No space left on device" in run.stderr


def test_an_internal_error_has_its_own_exit_code_and_no_traceback(tmp_path):
    (tmp_path / "pod.yaml").write_text(POD)
    crash = (
        "import sys, dralint.lint.gate as gate, dralint.cli.main as cli\n"
        "def broken(*a, **k): raise RuntimeError('boom')\n"
        "cli.lint_with_config = broken\n"
        "sys.argv = ['dralint', 'lint', '--no-config', 'pod.yaml']\n"
        "cli.command_line()\n"
    )
    run = subprocess.run([sys.executable, "-c", crash], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 3
    assert run.stderr.strip() == "dralint: internal error, please report it: RuntimeError: boom"
    traced = subprocess.run(
        [sys.executable, "-c", crash],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DRALINT_TRACEBACK": "1"},
    )
    assert traced.returncode == 3 and "Traceback" in traced.stderr


def test_a_binary_baseline_is_a_usage_error(tmp_path):
    (tmp_path / "pod.yaml").write_text(POD)
    (tmp_path / "base.json").write_bytes(bytes(range(128, 256)))
    run = _dralint("lint", "--no-config", "--baseline", "base.json", "pod.yaml", cwd=tmp_path, text=True)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "base.json: not a dralint baseline: not UTF-8 text" in run.stderr


@pytest.mark.parametrize(
    "option,value,message",
    [
        ("--context", "nope.yaml", "Invalid value for --context: nope.yaml: no such file or directory"),
        ("--slices", "nope.yaml", "Invalid value for --slices: nope.yaml: no such file or directory"),
        ("--slices", "example:nope", "unknown example snapshot 'nope'"),
        ("--helm-values", "nope.yaml", "Invalid value for --helm-values: nope.yaml: no such file or directory"),
        ("--config", "/dev/zero", "Invalid value for --config: /dev/zero is not a regular file"),
        ("--config", "nope.yaml", "Invalid value for --config: no such file: nope.yaml"),
    ],
)
def test_a_named_input_that_cannot_be_used_is_a_usage_error(tmp_path, option, value, message):
    """`lint --slices nope.yaml` exits 2 as `simulate --slices nope.yaml` does."""
    (tmp_path / "pod.yaml").write_text(POD)
    run = _dralint("lint", option, value, "pod.yaml", cwd=tmp_path, text=True)
    assert run.returncode == 2 and message in run.stderr
    if option == "--slices":
        simulated = _dralint("simulate", option, value, "pod.yaml", cwd=tmp_path, text=True)
        assert simulated.returncode == 2
