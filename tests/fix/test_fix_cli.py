"""`dralint fix` on disk: in place, --diff, --rule, exit codes, files left alone."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from dralint.cli.main import main

OLD = """\
# keep me
apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  extendedResouceName: example.com/gpu
"""
NEW = OLD.replace("v1beta2", "v1").replace("extendedResouceName", "extendedResourceName")
CLEAN = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:   {a: ~}\n"


def _invoke(*args: str):
    return CliRunner().invoke(main, ["fix", *args])


def test_fix_in_place_then_nothing_left(tmp_path: Path) -> None:
    target = tmp_path / "class.yaml"
    target.write_text(OLD)
    result = _invoke(str(target))
    assert result.exit_code == 0, result.stderr
    assert target.read_text() == NEW
    assert f"{target}:2:13: fixed API012: apiVersion resource.k8s.io/v1beta2 -> resource.k8s.io/v1" in result.stdout
    assert f"{target}:7:3: fixed API001: extendedResouceName renamed to extendedResourceName" in result.stdout
    assert "1 file(s) changed" in result.stderr
    again = _invoke(str(tmp_path))
    assert again.exit_code == 0 and "0 file(s) changed" in again.stderr


def test_diff_prints_and_changes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "class.yaml"
    target.write_text(OLD)
    result = _invoke("--diff", str(target))
    assert result.exit_code == 1
    assert target.read_text() == OLD
    assert "-apiVersion: resource.k8s.io/v1beta2\n+apiVersion: resource.k8s.io/v1\n" in result.stdout
    assert "+  extendedResourceName: example.com/gpu\n" in result.stdout


def test_rule_limits_fixes_and_unknown_rule_is_a_usage_error(tmp_path: Path) -> None:
    target = tmp_path / "class.yaml"
    target.write_text(OLD)
    assert _invoke("--rule", "unknown-field", str(target)).exit_code == 0
    assert "v1beta2" in target.read_text() and "extendedResourceName" in target.read_text()
    bad = _invoke("--rule", "YAML001", str(target))
    assert bad.exit_code == 2 and "has no automatic fix" in bad.stderr


def test_unchanged_file_is_not_rewritten(tmp_path: Path) -> None:
    target = tmp_path / "clean.yaml"
    target.write_text(CLEAN)
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    before = target.stat()
    assert _invoke(str(target)).exit_code == 0
    after = target.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_rejected_fix_exits_1_and_says_why(tmp_path: Path) -> None:
    target = tmp_path / "claim.yaml"
    target.write_bytes((Path(__file__).parent / "golden" / "rejected-typo" / "input.yaml").read_bytes())
    result = _invoke(str(target))
    assert result.exit_code == 1
    assert "API001 not fixed (cuont renamed to count): it would introduce an error: API002" in result.stderr


def test_stdin_is_refused(tmp_path: Path) -> None:
    result = _invoke("-")
    assert result.exit_code == 2 and "stdin" in result.stderr


def test_file_mode_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "class.yaml"
    target.write_text(OLD)
    target.chmod(0o640)
    assert _invoke(str(target)).exit_code == 0
    assert target.stat().st_mode & 0o777 == 0o640


def test_write_failure_is_reported_without_traceback(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "class.yaml"
    target.write_text(OLD)

    def refuse(source: str, destination: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("dralint.fix.runner.os.replace", refuse)
    result = _invoke(str(target))
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"{target}: cannot write the fixes: Permission denied" in result.stderr
    assert target.read_text() == OLD and [p.name for p in tmp_path.iterdir()] == ["class.yaml"]
