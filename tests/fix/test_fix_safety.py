"""`dralint fix` rewrites only what it may, keeps what it rewrites, and leaves no litter (issue 47)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from dralint.cli.main import main
from dralint.fix import runner

OLD = "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata:\n  name: gpu\n"
NEW = OLD.replace("v1beta1", "v1")


def _fix(*args: str):
    return CliRunner().invoke(main, ["fix", *args])


def _litter(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".dralint-fix-")]


def test_a_rewritten_file_keeps_its_mode_owner_and_group(tmp_path: Path) -> None:
    target = tmp_path / "class.yaml"
    target.write_text(OLD)
    target.chmod(0o640)
    owner = (4242, 4343) if os.geteuid() == 0 else (os.getuid(), os.getgid())
    os.chown(target, *owner)
    result = _fix(str(target))
    assert result.exit_code == 0, result.output
    info = os.stat(target)
    assert target.read_text() == NEW
    assert (info.st_mode & 0o777, info.st_uid, info.st_gid) == (0o640, *owner)
    assert _litter(tmp_path) == []


def test_a_file_with_hard_links_is_refused_with_the_reason(tmp_path: Path) -> None:
    target = tmp_path / "class.yaml"
    target.write_text(OLD)
    os.link(target, tmp_path / "twin.yaml")
    result = _fix(str(target))
    assert result.exit_code == 1
    assert f"{target}: cannot be fixed: it has 2 hard links, which a rewrite would break" in result.output
    assert "fixed API012" not in result.output
    assert target.read_text() == OLD and os.stat(target).st_nlink == 2


def test_someone_elses_file_is_refused_where_its_owner_cannot_be_kept(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "class.yaml"
    target.write_text(OLD)
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(target).st_uid + 1)  # not root, not the owner
    result = _fix(str(target))
    assert result.exit_code == 1
    assert f"it belongs to user {os.stat(target).st_uid}, who would lose it to a rewrite" in result.output
    assert target.read_text() == OLD


def test_a_named_symlink_out_of_the_tree_is_not_followed(tmp_path: Path, monkeypatch) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (outside / "class.yaml").write_text(OLD)
    (tree / "class.yaml").symlink_to(outside / "class.yaml")
    (tree / "inside.yaml").write_text(OLD)
    (tree / "near.yaml").symlink_to(tree / "inside.yaml")
    monkeypatch.chdir(tree)
    result = _fix("class.yaml", "near.yaml")
    assert result.exit_code == 1
    assert f"class.yaml: cannot be fixed: it is a symbolic link to {outside / 'class.yaml'}, outside the tree" in (
        result.output
    )
    assert (outside / "class.yaml").read_text() == OLD
    # a link inside the tree is followed, and stays a link
    assert (tree / "inside.yaml").read_text() == NEW and (tree / "near.yaml").is_symlink()


def test_a_named_fifo_is_refused_unread(tmp_path: Path) -> None:
    fifo = tmp_path / "p.yaml"
    os.mkfifo(fifo)
    result = _fix(str(fifo))
    assert result.exit_code == 1 and f"{fifo}: cannot be fixed: it is not a regular file" in result.output


def test_fixed_is_printed_only_for_files_written(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "class.yaml"
    target.write_text(OLD)

    def full(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runner.os, "replace", full)
    result = _fix(str(target))
    assert result.exit_code == 1
    assert f"{target}: cannot write the fixes: No space left on device" in result.output
    assert "fixed API012" not in result.output and "0 file(s) changed" in result.output
    assert target.read_text() == OLD and _litter(tmp_path) == []


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, SystemExit])
def test_an_interrupted_write_leaves_the_file_whole_and_no_temporary_file(tmp_path, monkeypatch, interruption):
    target = tmp_path / "class.yaml"
    target.write_text(OLD)

    def interrupted(*_args):
        raise interruption()

    monkeypatch.setattr(runner.os, "fsync", interrupted)
    with pytest.raises(interruption):
        runner.write_atomically(str(target), NEW.encode())
    assert target.read_text() == OLD and _litter(tmp_path) == []


def test_sigterm_during_a_fix_leaves_no_temporary_file(tmp_path: Path) -> None:
    """Killed at any moment (the signal lands wherever it lands), the file is the old or the new
    one, whole, and no temporary file is left."""
    docs = "---\n".join(OLD.replace("name: gpu", f"name: gpu-{i}") for i in range(300))
    target = tmp_path / "classes.yaml"
    target.write_text(docs)
    for delay in (1.0, 2.0, 3.0):
        process = subprocess.Popen(
            [sys.executable, "-m", "dralint", "fix", str(target)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        time.sleep(delay)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=120)
        assert b"Traceback" not in err
        assert process.returncode in (0, 128 + signal.SIGTERM, -signal.SIGTERM)  # -15: before dralint set its handler
        assert target.read_text() in (docs, docs.replace("v1beta1", "v1"))
        assert _litter(tmp_path) == []


def test_a_link_found_in_a_named_directory_may_lead_anywhere_within_it(tmp_path: Path, monkeypatch) -> None:
    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    (repo / "base").mkdir(parents=True)
    (repo / "a-overlay").mkdir()
    elsewhere.mkdir()
    (repo / "base" / "class.yaml").write_text(OLD)
    (repo / "a-overlay" / "class.yml").symlink_to(repo / "base" / "class.yaml")  # found first
    monkeypatch.chdir(elsewhere)
    result = _fix(str(repo))
    assert result.exit_code == 0, result.output
    assert f"{repo / 'a-overlay' / 'class.yml'}:1:13: fixed API012" in result.output
    assert (repo / "base" / "class.yaml").read_text() == NEW and (repo / "a-overlay" / "class.yml").is_symlink()


def _long_list(items: int) -> str:
    """A ConfigMap with two fixable typos (API001) and a one-line list of ``items`` numbers."""
    numbers = ", ".join(["1"] * items)
    return (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  Labels: {{}}\n  Annotations: {{}}\nx: [{numbers}]\n"
    )


def test_a_long_list_is_copied_once_not_once_per_item(monkeypatch) -> None:
    """ruamel.yaml's copy of a sequence copies its attributes again after each item: each fix
    of a file with an 8,000-item list (made on a copy) took 100 s, SARIF 215 s in all."""
    from ruamel.yaml.comments import CommentedBase

    from dralint.fix.document import EditableFile, tree_copy
    from dralint.lint.engine import run
    from dralint.lint.options import LintOptions
    from dralint.yaml.sources import SourceFile

    copied: list[int] = []
    attributes = CommentedBase.copy_attributes
    monkeypatch.setattr(
        CommentedBase, "copy_attributes", lambda self, t, memo=None: copied.append(1) or attributes(self, t, memo)
    )
    text = _long_list(8000)
    file = EditableFile("m.yaml", text.encode())
    twin = tree_copy(file.documents)
    assert len(copied) == 5  # one per container (root, metadata, two labels maps, the list), not per item
    assert twin[0]["x"] == file.documents[0]["x"] and twin[0]["x"] is not file.documents[0]["x"]
    assert file.copies_faithfully()
    result = run([SourceFile("m.yaml", text)], LintOptions(profile="strict", jobs=1))
    assert sorted(d.rule for d in runner.fix_replacements(result)) == ["API001", "API001"]


def test_a_document_past_the_node_budget_is_refused_unread_by_ruamel(monkeypatch) -> None:
    """ruamel.yaml takes some 25 µs a node: a fix in a one-line list of 100,000 numbers took 8 s
    of `fix` and 12 s of SARIF, and --max-file-size lets a file hold millions."""
    from ruamel.yaml import YAML

    from dralint.fix.document import MAX_EDITED_NODES
    from dralint.lint.engine import run
    from dralint.lint.options import LintOptions
    from dralint.yaml.sources import SourceFile

    def unread(*args, **kwargs):
        raise AssertionError("ruamel.yaml read a file past the budget")

    monkeypatch.setattr(YAML, "load_all", unread)
    text = _long_list(MAX_EDITED_NODES)
    outcome = runner.fix_bytes("m.yaml", text.encode(), LintOptions(profile="strict"))
    assert not outcome.changed and outcome.problem == (
        "it holds more than 50,000 YAML nodes, more than a fix edits in bounded time; fix it by hand"
    )
    result = run([SourceFile("m.yaml", text)], LintOptions(profile="strict", jobs=1))
    assert {d.rule for d in result.diagnostics} >= {"API001"} and runner.fix_replacements(result) == {}
