"""Hostile and odd input through the command line: each file gets one clear finding at the
right place, in bounded time, and the files after it are still linted. Plus a fuzz test of the
loader that accepts no exception at all."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import dralint.yaml.sources
from dralint.cli.main import main
from dralint.yaml.loader import MAX_DEPTH, MAX_DOCUMENT_CHARS, SourceText, load
from dralint.yaml.sources import MAX_FILE_BYTES, SourceFile, decode
from dralint.yaml.strict import strict_problems

GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team-a\n"
#: Generous bound for one small hostile file; a hang or an exponential blow-up is far beyond it.
SECONDS = 10.0


def lint_json(*paths: Path | str) -> tuple[dict, float]:
    """Run ``dralint lint --format json`` and return the report and the wall time."""
    began = time.perf_counter()
    result = CliRunner().invoke(main, ["lint", "--format", "json", "--profile", "strict", *map(str, paths)])
    elapsed = time.perf_counter() - began
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return json.loads(result.output), elapsed


def findings(report: dict, path: Path) -> list[dict]:
    return [d for d in report["diagnostics"] if d["path"] == str(path)]


def only(report: dict, path: Path) -> dict:
    (diag,) = findings(report, path)
    return diag


def where(diag: dict) -> tuple[int, int]:
    return diag["line"], diag["column"]


def at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line and column of the ``nth`` occurrence of ``needle`` in ``text``."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "zz-good.yaml"
    path.write_text(GOOD)
    return path


def assert_rest_linted(report: dict, good: Path) -> None:
    assert findings(report, good) == []
    (entry,) = [f for f in report["files"] if f["path"] == str(good)]
    assert entry["objects"] == 1 and entry["score"] == 100


def test_binary_file(tmp_path, good):
    bad = tmp_path / "image.yaml"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    report, elapsed = lint_json(bad, good)
    diag = only(report, bad)
    assert diag["rule"] == "YAML009" and "binary" in diag["message"] and where(diag) == (1, 1)
    assert_rest_linted(report, good)
    assert elapsed < SECONDS


def test_non_utf8_file_is_located_at_the_bad_byte(tmp_path, good):
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(GOOD.encode() + "  labels:\n    owner: Zoë\n".encode("latin-1"))
    report, _ = lint_json(bad, good)
    diag = only(report, bad)
    assert diag["rule"] == "YAML009" and "UTF-8" in diag["message"]
    assert where(diag) == (7, 14)
    assert_rest_linted(report, good)


def test_file_over_the_size_limit(tmp_path, good):
    bad = tmp_path / "huge.yaml"
    with bad.open("wb") as handle:
        handle.write(GOOD.encode())
        handle.write(b"# " + b"x" * 1022 + b"\n")
        handle.seek(MAX_FILE_BYTES + 10)
        handle.write(b"\n")
    report, elapsed = lint_json(bad, good)
    diag = only(report, bad)
    assert diag["rule"] == "YAML008" and "limit" in diag["message"]
    assert_rest_linted(report, good)
    assert elapsed < SECONDS


def test_document_over_the_size_limit(tmp_path, good):
    """A document no Kubernetes object could be (17 MiB of one ConfigMap) is skipped unread;
    the documents around it are linted."""
    bad = tmp_path / "dump.yaml"
    large = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: huge, namespace: team-a}\ndata:\n  blob: "
        + "x" * MAX_DOCUMENT_CHARS
        + "\n"
    )
    text = GOOD + "---\n" + large + "---\n" + GOOD.replace("settings", "other")
    bad.write_text(text)
    report, elapsed = lint_json(bad, good)
    diag = only(report, bad)
    assert diag["rule"] == "YAML008" and "skipped unread" in diag["message"]
    assert where(diag) == at(text, "---")
    (entry,) = [f for f in report["files"] if f["path"] == str(bad)]
    assert entry["objects"] == 2
    assert_rest_linted(report, good)
    assert elapsed < SECONDS


def test_deeply_nested_document(tmp_path, good):
    bad = tmp_path / "deep.yaml"
    depth = MAX_DEPTH * 20
    bad.write_text(GOOD + "data:\n  x: " + "[" * depth + "]" * depth + "\n")
    report, elapsed = lint_json(bad, good)
    diag = only(report, bad)
    assert diag["rule"] == "YAML007" and where(diag)[0] == 7
    assert_rest_linted(report, good)
    assert elapsed < SECONDS


def test_deep_block_nesting(tmp_path):
    bad = tmp_path / "deep-block.yaml"
    bad.write_text(
        GOOD + "".join("  " * i + f"k{i}:\n" for i in range(MAX_DEPTH + 10)) + "  " * (MAX_DEPTH + 10) + "x: 1\n"
    )
    report, elapsed = lint_json(bad)
    assert [d["rule"] for d in findings(report, bad)] == ["YAML007"]
    assert elapsed < SECONDS


@pytest.mark.parametrize("as_list", [False, True], ids=["document", "List item"])
def test_nesting_just_under_the_limit_is_read(tmp_path, good, as_list):
    """A document the loader accepts is frozen whatever its depth (the pickler recurses once
    per container), and read by libyaml, since the fast reader declines it first."""
    nested = (
        "data:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, MAX_DEPTH - 8)) + "  " * (MAX_DEPTH - 8) + "x: 1\n"
    )
    bad = tmp_path / "deep.yaml"
    document = GOOD + nested
    bad.write_text(
        "apiVersion: v1\nkind: List\nitems:\n- " + document.replace("\n", "\n  ").rstrip() + "\n"
        if as_list
        else document
    )
    report, elapsed = lint_json(bad, good)
    assert not [d for d in findings(report, bad) if d["rule"].startswith("YAML")]
    (entry,) = [f for f in report["files"] if f["path"] == str(bad)]
    assert entry["objects"] == 1
    assert_rest_linted(report, good)
    assert elapsed < SECONDS


def test_alias_bomb(tmp_path, good):
    bad = tmp_path / "bomb.yaml"
    lines = [GOOD.rstrip("\n"), "data:", '  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        previous, name = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"  {name}: &{name} [{', '.join(['*' + previous] * 9)}]")
    text = "\n".join(lines) + "\n"
    bad.write_text(text)
    report, elapsed = lint_json(bad, good)
    diag = only(report, bad)
    assert diag["rule"] == "YAML006" and "aliases" in diag["message"]
    # Long before the 1,000,000 bound: the share of nodes from aliases passes the 99% the API
    # server's decoder (go-yaml) accepts at the sixth *c in d's list: 5,829 of 5,883 nodes.
    assert where(diag) == at(text, "*c", 5) and "excessive aliasing" in diag["message"]
    assert_rest_linted(report, good)
    assert elapsed < SECONDS


def test_symlink_loop(tmp_path, good):
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "cm.yaml").write_text(GOOD)
    os.symlink(folder, folder / "again")
    report, elapsed = lint_json(tmp_path)
    loops = [d for d in report["diagnostics"] if d["rule"] == "YAML008"]
    assert len(loops) == 1 and loops[0]["path"].endswith("again") and "link" in loops[0]["message"]
    assert report["summary"]["objects"] == 2
    assert elapsed < SECONDS


def test_unreadable_file(tmp_path, good):
    bad = tmp_path / "secret.yaml"
    bad.write_text(GOOD)
    bad.chmod(0)
    try:
        if os.access(bad, os.R_OK):
            pytest.skip("running as a user (root) who can read a chmod 000 file")
        report, _ = lint_json(bad, good)
    finally:
        bad.chmod(0o644)
    diag = only(report, bad)
    assert diag["rule"] == "YAML008" and "cannot read" in diag["message"]
    assert_rest_linted(report, good)


def test_read_error_is_reported_even_when_root_could_read_the_file(tmp_path, good, monkeypatch):
    """The same path as chmod 000, for runs as root: opening the file fails with EACCES."""
    bad = tmp_path / "secret.yaml"
    bad.write_text(GOOD)
    real_open = open

    def deny(path, *args, **kwargs):
        if str(path) == str(bad):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(dralint.yaml.sources, "open", deny, raising=False)
    report, _ = lint_json(bad, good)
    diag = only(report, bad)
    assert diag["rule"] == "YAML008" and diag["message"] == f"cannot read {bad}: Permission denied"
    assert_rest_linted(report, good)


@pytest.mark.parametrize("content", ["", "\n\n", "# nothing here\n#   kind: Pod\n", "---\n# only a comment\n"])
def test_empty_and_comment_only_files_are_skipped_quietly(tmp_path, good, content):
    """No Kubernetes document, nothing to report (issue 20); --verbose counts the file."""
    bad = tmp_path / "empty.yaml"
    bad.write_text(content)
    report, _ = lint_json(bad, good)
    assert findings(report, bad) == []
    assert [f["path"] for f in report["files"]] == [str(good)]
    assert_rest_linted(report, good)
    verbose = CliRunner().invoke(main, ["lint", "--verbose", str(bad), str(good)])
    assert "dralint: skipped 1 file with no Kubernetes document" in verbose.output


LIST = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: first
- kind: ConfigMap
  metadata:
    name: second
- apiVersion: v1
  kind: Secret
  metadata:
    name: third
    name: again
"""


JSON = """{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},
    {
      "apiVersion": "v1",
      "kind": "ConfigMap",
      "metadata": {"name": "b", "name": "c"}
    },
    {"kind": "Secret", "metadata": {"name": "d"}}
  ]
}
"""


@pytest.mark.parametrize(
    ("name", "text", "duplicate", "first", "no_api_version"),
    [
        ("list.yaml", LIST, ("name: again",), ("name: third",), ("kind: ConfigMap", 1)),
        ("objects.json", JSON, ('"name"', 2), ('"name"', 1), ('{"kind": "Secret"',)),
    ],
    ids=["yaml-list", "json-list"],
)
def test_list_items_become_objects_with_their_own_positions(tmp_path, name, text, duplicate, first, no_api_version):
    path = tmp_path / name
    path.write_text(text)
    report, _ = lint_json(path)
    assert report["summary"]["objects"] == 2
    by_rule = {d["rule"]: d for d in report["diagnostics"]}
    assert set(by_rule) == {"YAML002", "YAML005"}
    assert where(by_rule["YAML002"]) == at(text, *duplicate)
    assert where(by_rule["YAML002"]["related"][0]) == at(text, *first)
    assert where(by_rule["YAML005"]) == at(text, *no_api_version)


def test_broken_json_is_a_located_syntax_error(tmp_path, good):
    bad = tmp_path / "broken.json"
    bad.write_text('{\n  "apiVersion": "v1",\n  "kind": "ConfigMap"\n  "metadata": {}\n}\n')
    report, _ = lint_json(bad, good)
    diag = only(report, bad)
    assert diag["rule"] == "YAML001" and where(diag) == (4, 3)
    assert_rest_linted(report, good)


def test_many_hostile_files_in_one_run(tmp_path, good):
    """All at once: one finding per bad file and the good file still linted."""
    (tmp_path / "bin.yaml").write_bytes(b"\x00\x01\x02")
    (tmp_path / "enc.yaml").write_bytes(b"a: \xff\n")
    (tmp_path / "deep.yaml").write_text("a: " + "{x: " * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1) + "\n")
    (tmp_path / "broken.yaml").write_text(GOOD + "  labels: [a\n")
    (tmp_path / "empty.yaml").write_text("")
    report, elapsed = lint_json(tmp_path)
    rules = {Path(d["path"]).name: d["rule"] for d in report["diagnostics"]}
    # empty.yaml holds no Kubernetes document: skipped quietly, not counted as a linted file.
    assert rules == {"bin.yaml": "YAML009", "enc.yaml": "YAML009", "deep.yaml": "YAML007", "broken.yaml": "YAML001"}
    assert report["summary"]["files"] == 5
    assert_rest_linted(report, good)
    assert elapsed < SECONDS


# --- fuzz: the loader never raises ------------------------------------------------------------

YAMLISH = st.text(
    alphabet=st.sampled_from(list("ab-:?,[]{}#&*!|>'\"%@`\\ \t\n\r.~0\ufeff\x85\u2028\x00\x07é")), max_size=80
)


def _load_any(raw: bytes) -> None:
    source = decode("fuzz.yaml", raw)
    if isinstance(source, SourceFile):
        result = load(SourceText(source.path, source.text))
        lines = source.text.count("\n") + 1
        for problem in result.problems:
            assert 0 <= problem.line <= lines, problem
        for document in result.documents:
            document.locate(("a", 0, "b"))
            document.scalar_offset_span(("a",), 0, 3)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_random_bytes(raw):
    _load_any(raw)


@settings(max_examples=1500, deadline=None)
@given(YAMLISH)
def test_fuzz_yaml_like_text(text):
    _load_any(text.encode("utf-8", "surrogatepass"))
    strict_problems(text)
