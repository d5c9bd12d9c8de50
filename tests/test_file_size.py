"""``--max-file-size``: files above the limit are one YAML008 finding, the rest are linted."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from dralint.cli.main import main, parse_size
from dralint.lint.options import LintOptions

MANIFEST = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: default\ndata:\n  a: b\n"


@pytest.mark.parametrize(
    "text,expected",
    [("1000", 1000), ("2K", 2048), ("64m", 64 << 20), ("256MiB", 256 << 20), ("1 GB", 1 << 30), ("10b", 10)],
)
def test_sizes_in_bytes_or_binary_units(text: str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "0", "-5", "12 parsecs", "1.5G"])
def test_nonsense_sizes_are_usage_errors(text: str) -> None:
    with pytest.raises(click.BadParameter):
        parse_size(text)


def test_default_limit_is_256_mib() -> None:
    assert LintOptions().max_file_bytes == 256 * 1024 * 1024


def _rules(tmp_path, *extra: str) -> list[str]:
    """Rules reported on a 3 KiB file, linted beside a small one (a run that reads nothing exits 2)."""
    big, small = tmp_path / "big.yaml", tmp_path / "small.yaml"
    big.write_text(MANIFEST + "# " + "x" * 3000 + "\n", encoding="utf-8")
    small.write_text(MANIFEST, encoding="utf-8")
    done = CliRunner().invoke(main, ["lint", "--no-config", "--format", "json", *extra, str(big), str(small)])
    assert done.exit_code in (0, 1), done.output
    return [d["rule"] for d in json.loads(done.output)["diagnostics"] if d["path"] == str(big)]


def test_a_file_over_the_given_size_is_skipped(tmp_path) -> None:
    assert _rules(tmp_path, "--max-file-size", "2K") == ["YAML008"]


def test_a_file_under_the_given_size_is_linted(tmp_path) -> None:
    assert "YAML008" not in _rules(tmp_path, "--max-file-size", "4K")
