"""Input written to hurt: aliases that expand to gigabytes, numbers of thousands of digits,
values of the wrong type anywhere. Each is a finding at its place in every command, in bounded
memory, never a traceback (docs/robustness.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from click.testing import CliRunner

from dralint.cli.main import main

#: Peak resident memory a run on the worst alias shapes may reach (docs/robustness.md): one
#: 1 MB string aliased 2,000 times measured 30 MiB; without the character budget it took 5.9 GB.
ALIAS_RSS_BOUND_KIB = 150 * 1024


def peak_rss_kib(*args: str) -> tuple[int, subprocess.CompletedProcess]:
    """Run ``python -m dralint ARGS`` in a child of a child, and return the grandchild's peak RSS.

    The child's ``RUSAGE_CHILDREN`` covers only the one run it waited for, where this process's
    would hold the largest of every run the test session made."""
    probe = textwrap.dedent(
        """
        import json, resource, subprocess, sys
        done = subprocess.run([sys.executable, "-m", "dralint", *sys.argv[1:]], capture_output=True, text=True)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        print(json.dumps([peak, done.returncode, done.stdout, done.stderr]))
        """
    )
    out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True)
    peak, code, stdout, stderr = json.loads(out.stdout)
    return peak, subprocess.CompletedProcess(args, code, stdout, stderr)


def alias_file(tmp_path: Path, text: str = "a" * 1_000_000, aliases: int = 2_000) -> Path:
    path = tmp_path / "aliases.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
        f"  labels: &s {{k: {text}}}\ndata:\n  l: [{', '.join(['*s'] * aliases)}]\n"
    )
    return path


def test_one_long_string_aliased_two_thousand_times_is_one_yaml006_in_bounded_memory(tmp_path):
    path = alias_file(tmp_path)
    peak, done = peak_rss_kib("lint", "--no-config", "--format", "json", str(path))
    assert done.returncode == 1, done.stderr
    (diag,) = json.loads(done.stdout)["diagnostics"]
    assert diag["rule"] == "YAML006" and (diag["line"], diag["column"]) == (7, 6 + 4 * 4 + 1)
    assert "characters of text" in diag["message"] and "times the" in diag["message"]
    assert peak < ALIAS_RSS_BOUND_KIB, f"peak RSS {peak} KiB"


def test_the_same_text_aliased_within_the_budget_is_linted(tmp_path):
    path = alias_file(tmp_path, "a" * 1000, aliases=20)
    result = CliRunner().invoke(main, ["lint", "--no-config", "--format", "json", str(path)])
    report = json.loads(result.output)
    assert report["summary"]["objects"] == 1 and "YAML006" not in result.output
