"""Which files a run reads, and what it says about the ones it cannot lint."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading

from dralint.yaml.sources import FileIssue, SourceFile, UnreadFile, decode, discover, not_a_manifest, read


def _paths(items):
    return [os.path.basename(i) for i in items if isinstance(i, str)]


def test_directories_are_walked_for_manifest_suffixes_in_stable_order(tmp_path):
    for name in ("b.yaml", "a.yml", "c.json", "notes.txt", "sub/d.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x: 1\n")
    assert _paths(discover([str(tmp_path)], [])) == ["a.yml", "b.yaml", "c.json", "d.yaml"]


def test_named_files_are_taken_whatever_their_suffix(tmp_path):
    target = tmp_path / "manifest.txt"
    target.write_text("x: 1\n")
    assert list(discover([str(target)], [])) == [str(target)]


def test_builtin_skips_and_excludes(tmp_path):
    for name in (".git/x.yaml", "node_modules/y.yaml", "env/z.yaml", "keep/k.yaml", "gen/g.yaml", "keep/skip-me.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x: 1\n")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    found = _paths(discover([str(tmp_path)], ["*/gen", "skip-*.yaml"]))
    assert found == ["k.yaml"]


def test_symlink_loop_is_reported_not_followed(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "m.yaml").write_text("x: 1\n")
    os.symlink(tmp_path / "d", tmp_path / "d" / "loop")
    items = list(discover([str(tmp_path)], []))
    assert _paths(items) == ["m.yaml"]
    (issue,) = [i for i in items if isinstance(i, FileIssue)]
    assert issue.kind == "symlink-loop" and issue.path.endswith("loop")


def test_missing_path_is_an_issue(tmp_path):
    (issue,) = discover([str(tmp_path / "nope.yaml")], [])
    assert isinstance(issue, FileIssue) and issue.kind == "unreadable"


def test_decode_handles_bom_crlf_binary_and_latin1():
    source = decode("f", b"\xef\xbb\xbfa: 1\r\nb: 2\r\n")
    assert isinstance(source, SourceFile) and (source.path, source.text) == ("f", "a: 1\nb: 2\n")
    assert decode("f", b"\x00\x01\x02").kind == "binary"
    issue = decode("f", b"a: 1\nname: caf\xe9\n")
    assert (issue.kind, issue.line, issue.column) == ("encoding", 2, 10)


def test_non_manifest_files_are_recognised():
    kinds = {
        "kustomization.yaml": "x: 1\n",
        "Chart.yaml": "name: c\n",
        "values-prod.yaml": "replicas: 2\n",
        "deploy.yaml": "metadata:\n  name: {{ .Release.Name }}\n",
    }
    found = {name: not_a_manifest(SourceFile(name, text)) for name, text in kinds.items()}
    assert {n: i.kind for n, i in found.items()} == {
        "kustomization.yaml": "kustomization",
        "Chart.yaml": "chart",
        "values-prod.yaml": "values",
        "deploy.yaml": "helm",
    }
    assert (found["deploy.yaml"].line, found["deploy.yaml"].column) == (2, 9)
    assert not_a_manifest(SourceFile("deploy.yaml", "apiVersion: v1\nkind: Pod\n")) is None


def test_files_are_read_when_they_are_parsed_not_when_found(tmp_path):
    """With --jobs, the process that parses a file reads it (see engine._load_sources): the run
    is handed files to read, with their size, and a file gone by then is reported, not a crash."""
    from dralint.lint.engine import find_sources, run
    from dralint.lint.options import LintOptions

    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\n"
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text.replace("name: a", "name: c"))
    items = find_sources([str(tmp_path)], LintOptions())
    assert [(type(item), item.size) for item in items] == [(UnreadFile, len(text))] * 2
    (tmp_path / "a.yaml").unlink()
    result = run(items, LintOptions())
    assert [(d.rule, d.span.path) for d in result.diagnostics] == [("YAML008", str(tmp_path / "a.yaml"))]
    assert "cannot read" in result.diagnostics[0].message
    assert [obj.name for obj in result.context.objects] == ["c"]


def test_a_file_whose_size_the_system_does_not_know_is_read_whole_and_bounded(tmp_path):
    # A pipe reports size 0: read() asks for the size it reports and then for the rest, up to the limit.
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: piped}\n" * 50
    pipe = tmp_path / "pipe.yaml"

    def write() -> None:
        with contextlib.suppress(BrokenPipeError):  # the reader stopped at its limit
            pipe.write_text(text)

    for limit in (1 << 20, 100):
        os.mkfifo(pipe)
        writer = threading.Thread(target=write)
        writer.start()
        source = read(str(pipe), max_bytes=limit)
        writer.join()
        pipe.unlink()
        if limit > len(text):
            assert isinstance(source, SourceFile) and source.text == text
        else:
            assert isinstance(source, FileIssue) and source.kind == "too-large"


def test_a_fifo_or_socket_found_in_a_directory_is_skipped_with_a_finding_at_the_file(tmp_path):
    """Opening a FIFO waits for a writer: `mkfifo d/p.yaml; dralint lint d` waited forever."""
    (tmp_path / "m.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    os.mkfifo(tmp_path / "p.yaml")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "s.yaml"))
        items = list(discover([str(tmp_path)], []))
        assert _paths(items) == ["m.yaml"]
        assert [(i.kind, i.message) for i in items if isinstance(i, FileIssue)] == [
            ("not-a-file", f"{tmp_path / 'p.yaml'} is a named pipe (FIFO), not a regular file; skipped"),
            ("not-a-file", f"{tmp_path / 's.yaml'} is a socket, not a regular file; skipped"),
        ]
        run = subprocess.run(
            [sys.executable, "-m", "dralint", "lint", "--no-config", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 1
    assert f"{tmp_path / 'p.yaml'}:1:1: error: " in run.stdout and "[YAML008]" in run.stdout


def test_a_fifo_named_on_the_command_line_is_read(tmp_path):
    fifo = tmp_path / "p.yaml"
    os.mkfifo(fifo)
    assert list(discover([str(fifo)], [])) == [str(fifo)]
    writer = threading.Thread(target=lambda: fifo.write_text("x: 1\n"))
    writer.start()
    source = read(str(fifo))
    writer.join()
    assert isinstance(source, SourceFile) and source.text == "x: 1\n"
