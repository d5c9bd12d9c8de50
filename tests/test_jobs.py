"""Large runs: frozen documents, work in forked processes (--jobs), reports in pieces.

Whatever the number of jobs, and whether documents were frozen in between, a run must say
exactly the same thing: these tests compare whole reports.
"""

from __future__ import annotations

import json
import os
import pickle
import platform
import signal
import sys
import time
from pathlib import Path

import pytest

from dralint import reporters
from dralint.lint import engine, parallel
from dralint.lint.engine import lint
from dralint.lint.options import LintOptions
from dralint.reporters import chunked_reporter, reporter
from dralint.yaml.loader import THAWED, SourceText, load

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.generate import generate  # noqa: E402

BROKEN_CHECK_RULE = "REL006"


def _repository(tmp_path: Path, files: int = 6, per_file: int = 45) -> list[str]:
    paths = []
    for index in range(files):
        path = tmp_path / f"team-{index}.yaml"
        path.write_text(generate(per_file, start=index * per_file), encoding="utf-8")
        paths.append(str(path))
    # A file with a syntax error, a plain YAML file, a List, a binary file, one in Latin-1 and a
    # Helm template, so every path through the engine's file handling is taken in the workers too.
    (tmp_path / "broken.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n---\n"
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: team-0}\n"
    )
    (tmp_path / "workflow.yaml").write_text("on: push\njobs: {build: {runs-on: ubuntu-latest}}\n")
    (tmp_path / "list.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
        "  metadata: {name: a, namespace: team-1}\n- {apiVersion: v1, kind: Pod, metadata: {name: p}}\n"
    )
    (tmp_path / "binary.yaml").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    (tmp_path / "latin1.yaml").write_bytes(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caf\u00e9}\n".encode("latin-1")
    )
    (tmp_path / "template.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n")
    extra = ("broken.yaml", "workflow.yaml", "list.yaml", "binary.yaml", "latin1.yaml", "template.yaml")
    return paths + [str(tmp_path / n) for n in extra]


def _report(paths: list[str], jobs: int, fmt: str = "json") -> str:
    from dralint.lint.gate import lint_with_config

    result = lint_with_config(LintOptions(paths=paths, profile="strict", jobs=jobs))
    return "".join(chunked_reporter(fmt)(result, False))


@pytest.fixture(params=["cut", "whole"])
def parallel_everything(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make even a small run use workers for both stages, with many small slices; either every
    file is read here and cut into pieces ("cut"), or the small files are each read and parsed
    by the process that takes them and the larger ones read here and parsed whole ("whole")."""
    if request.param == "cut":
        monkeypatch.setattr(engine, "_PARALLEL_BYTES", 0)
        monkeypatch.setattr(engine, "_PIECE_LINES", 0)
    else:
        monkeypatch.setattr(engine, "_PARALLEL_BYTES", 4096)
    monkeypatch.setattr(engine, "_SLICE", 7)


@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
def test_the_report_is_byte_identical_for_any_number_of_jobs(tmp_path, parallel_everything, fmt):
    paths = _repository(tmp_path)
    one = _report(paths, jobs=1, fmt=fmt)
    assert one == _report(paths, jobs=2, fmt=fmt) == _report(paths, jobs=3, fmt=fmt)
    if fmt == "json":
        report = json.loads(one)
        assert report["summary"]["objects"] > 250
        assert {"YAML001", "SEC003", "REF007"} <= {d["rule"] for d in report["diagnostics"]}
        issues = {(Path(d["path"]).name, d["rule"]) for d in report["diagnostics"] if d["rule"].startswith("YAML")}
        assert {("binary.yaml", "YAML009"), ("latin1.yaml", "YAML009"), ("template.yaml", "YAML010")} <= issues


def test_a_check_that_fails_in_a_worker_is_reported_like_one_that_fails_here(
    tmp_path, parallel_everything, monkeypatch
):
    from dralint.lint.registry import all_checks

    check = next(c for c in all_checks() if BROKEN_CHECK_RULE in c.rules)

    def broken(obj, ctx):
        raise RuntimeError("boom")

    index = engine.all_checks().index(check)
    patched = [*engine.all_checks()]
    patched[index] = type(check)(broken, check.rules, check.kinds, check.per_object)
    monkeypatch.setattr(engine, "all_checks", lambda kinds=None: patched)
    paths = _repository(tmp_path, files=2, per_file=20)
    serial, forked = (json.loads(_report(paths, jobs=j)) for j in (1, 2))
    assert serial == forked
    internal = [d for d in serial["diagnostics"] if d["rule"] == "INT001"]
    assert internal and all("RuntimeError: boom" in d["message"] for d in internal)


def test_with_workers_every_check_sees_the_whole_run(tmp_path, parallel_everything, monkeypatch):
    """Checks run once every file is parsed, in parent and workers alike: no object is checked in
    a context that lacks some of the run's objects, as without workers."""
    from dralint.lint.registry import Check, all_checks

    seen: list[tuple[str, int]] = []  # (name, objects in the context)

    def spy(obj, ctx):
        seen.append((obj.name, len(ctx.objects)))
        return ()

    checks = [Check(spy, ("REL006",), None, True), *all_checks()]
    monkeypatch.setattr(engine, "all_checks", lambda kinds=None: checks)
    paths = _repository(tmp_path, files=3, per_file=20)
    for jobs in (2, 1):
        seen.clear()
        run = lint(LintOptions(paths=paths, jobs=jobs))
        # (with workers, this process sees its own share of the checks, the rest run in workers)
        assert {size for _, size in seen} == {len(run.context.objects)}


def test_slices_of_objects_shrink_towards_the_end_and_cover_every_object_once():
    objects = list(range(10_000))
    slices = engine._slices(objects, jobs=2)  # type: ignore[arg-type]
    assert [obj for piece in slices for obj in piece] == objects
    sizes = [len(piece) for piece in slices]
    assert sizes[0] == engine._SLICE and max(sizes) == engine._SLICE
    assert sizes == sorted(sizes, reverse=True)
    assert engine._LAST_SLICE in sizes and min(sizes) > 0
    assert [len(piece) for piece in engine._slices(objects[:30], jobs=4)] == [25, 5]
    assert {len(piece) for piece in engine._slices(objects, jobs=1)} == {engine._SLICE}  # nobody to wait for


def test_checks_run_one_at_a_time_over_a_group_and_report_object_by_object(monkeypatch):
    from dralint.k8s.manifests import objects_from
    from dralint.lint.catalog import load_catalog
    from dralint.lint.context import Context
    from dralint.lint.registry import Check

    calls = []

    def first(obj, ctx):
        calls.append(("first", obj.name))
        yield obj.finding(("metadata", "name"), f"first {obj.name}", rule="REL006")

    def second(obj, ctx):
        calls.append(("second", obj.name))
        yield obj.finding(("metadata",), f"second {obj.name}", rule="REL006", key=True)
        if obj.name == "cm-2":
            raise RuntimeError("boom")

    text = "---\n".join(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: a\n" for i in range(6)
    )
    documents = []
    load(SourceText("m.yaml", text), documents.append)
    objects = [obj for document in documents for obj in objects_from(document, "scan")[0]]
    options = LintOptions(profile="strict")
    collect = engine._Collector(options, load_catalog())
    monkeypatch.setattr(engine, "_GROUP", 4)
    kept = engine._run_object_checks(
        [Check(first, ("REL006",), None, True), Check(second, ("REL006",), None, True)],
        objects,
        Context(objects, options),
        collect,
        1,
        None,
    )

    assert calls == [
        (check, f"cm-{i}") for group in (range(4), range(4, 6)) for check in ("first", "second") for i in group
    ]
    # As if each object had met every check in turn: the failure follows what its check found first.
    reported = [
        f"INT001 {d.object.name}" if d.rule == "INT001" and "RuntimeError: boom" in d.message else d.message
        for d in kept
    ]
    expected = [message for i in range(6) for message in (f"first cm-{i}", f"second cm-{i}")]
    expected.insert(expected.index("second cm-2") + 1, "INT001 cm-2")
    assert reported == expected


def test_ordered_map_keeps_the_order_of_the_work():
    assert list(parallel.ordered_map(lambda i: i * i, 40, jobs=3)) == [i * i for i in range(40)]
    assert list(parallel.ordered_map(lambda i: -i, 5, jobs=1)) == [0, -1, -2, -3, -4]
    assert list(parallel.ordered_map(lambda i: i, 0, jobs=2)) == []


def test_a_large_run_keeps_only_a_few_documents_expanded(tmp_path):
    path = tmp_path / "many.yaml"
    path.write_text(generate(600), encoding="utf-8")
    result = lint(LintOptions(paths=[str(path)], jobs=1))
    expanded = {id(o.doc) for o in result.context.objects if o.doc._expanded}
    assert len(result.context.objects) == 600
    assert len(expanded) <= THAWED.capacity


def test_a_frozen_document_answers_every_question_as_before():
    text = (
        "base: &base {cpu: '1', memory: 1Gi}\nitems:\n- name: a\n  limits: *base\n- name: b\n  limits:\n"
        "    <<: *base\n    memory: 2Gi\nscript: |\n  echo one\n  echo two\n"
    )
    fresh, frozen = (load(SourceText("d.yaml", text)).documents[0] for _ in range(2))
    frozen.freeze()
    assert not frozen._expanded
    paths = [
        (),
        ("base",),
        ("items", 0, "limits", "cpu"),
        ("items", 1, "limits", "memory"),
        ("items", 1, "limits", "cpu"),
        ("script",),
        ("items", 5),
        ("nope", "deeper"),
    ]
    for path in paths:
        for key in (False, True):
            assert frozen.locate(path, key=key) == fresh.locate(path, key=key), path
        assert frozen.value_style(path) == fresh.value_style(path)
    assert frozen.scalar_offset_span(("script",), 9, 12) == fresh.scalar_offset_span(("script",), 9, 12)
    assert frozen.data == fresh.data
    # An alias still names one shared mapping after the round trip.
    assert frozen.data["items"][0]["limits"] is frozen.data["base"]


def test_documents_after_a_syntax_error_keep_their_positions_when_frozen():
    text = "a: [\n---\nkind: ConfigMap\nmetadata:\n  name: x\n"
    fresh, frozen = (load(SourceText("e.yaml", text)).documents[-1] for _ in range(2))
    frozen.freeze()
    assert frozen.locate(("metadata", "name")) == fresh.locate(("metadata", "name"))
    assert frozen.locate(("metadata", "name")).line == 5


def test_a_document_travels_between_processes_without_its_file_text():
    source = SourceText("p.yaml", "kind: ConfigMap\nmetadata: {name: x}\n" + "# padding\n" * 1000)
    document = load(source).documents[0]
    blob = pickle.dumps(document)
    assert len(blob) < 500
    copy = pickle.loads(blob)
    copy.attach(source)
    assert copy.locate(("metadata", "name")) == document.locate(("metadata", "name"))


def test_load_hands_each_document_over_as_soon_as_it_is_built():
    seen: list[int] = []
    result = load(SourceText("s.yaml", "a: 1\n---\nb: 2\n---\nc: 3\n"), lambda doc: seen.append(doc.index))
    assert seen == [0, 1, 2]
    assert result.documents == []


def test_the_json_report_in_pieces_is_the_report(tmp_path, monkeypatch):
    paths = _repository(tmp_path, files=1, per_file=30)
    result = lint(LintOptions(paths=paths, jobs=1))
    monkeypatch.setattr(reporters, "BATCH", 50)
    pieces = list(chunked_reporter("json")(result, False))
    assert len(pieces) > 2 * (len(result.diagnostics) // 50)
    assert "".join(pieces) == reporter("json")(result, False)
    assert "".join(chunked_reporter("text")(result, False)) == reporter("text")(result, False)


def test_jobs_in_the_config_file_must_not_be_negative(tmp_path):
    from dralint.lint.config import load_config

    path = tmp_path / ".dralint.yaml"
    path.write_text("jobs: -1\n")
    config = load_config(str(path))
    assert [f.rule for f in config.findings] == ["CFG001"] and "jobs" not in config.values
    assert config.findings[0].span.line == 1
    path.write_text("jobs: 2\n")
    assert load_config(str(path)).values["jobs"] == 2


def test_report_order_file_by_file_is_the_sort_by_sort_key():
    import random

    from dralint.diagnostics import Diagnostic, Severity, Span, in_report_order

    rng = random.Random(7)
    diagnostics = [
        Diagnostic(
            rng.choice(["SEC003", "REL001", "API003"]),
            "n",
            Severity.WARNING,
            f"m{rng.randint(0, 3)}",
            Span(rng.choice(["b.yaml", "a.yaml", "c/d.yaml"]), rng.randint(1, 40), rng.randint(1, 9), 1, 1),
            hint=str(i),
        )
        for i in range(500)
    ]
    assert in_report_order(diagnostics) == sorted(diagnostics, key=lambda d: d.sort_key)
    assert in_report_order(iter(diagnostics)) == in_report_order(diagnostics)


def test_by_file_keeps_each_files_order_however_the_files_interleave():
    from dralint.diagnostics import Diagnostic, Severity, Span, by_file

    paths = ["b.yaml", "b.yaml", "a.yaml", "b.yaml", "c.yaml", "a.yaml", "a.yaml", "b.yaml"]
    diagnostics = [
        Diagnostic("SEC003", "n", Severity.WARNING, f"m{i}", Span(path, 1, 1, 1, 2)) for i, path in enumerate(paths)
    ]
    groups = list(by_file(diagnostics))
    assert [[d.message for d in group] for group in groups] == [["m2", "m5", "m6"], ["m0", "m1", "m3", "m7"], ["m4"]]
    assert list(by_file([])) == []


@pytest.mark.skipif(sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="a glibc setting")
def test_results_from_workers_are_returned_to_the_system_once_freed():
    assert parallel.return_large_buffers() and parallel.return_large_buffers()


def test_diagnostics_travel_as_rows_and_come_back_equal_with_shared_spans():
    from dralint.diagnostics import Diagnostic, ObjectRef, Related, Severity, Span, from_rows, to_rows

    key, other = Span("a.yaml", 300, 5, 300, 9), Span("a.yaml", 301, 5, 302, 1)
    ref = ObjectRef("v1", "Pod", "ns", "p")
    sent = [
        Diagnostic("SEC001", "one", Severity.ERROR, "m1", key, "h", ref, "spec"),
        Diagnostic("REL002", "two", Severity.WARNING, "m2", other, None, ref, None, (Related(key, "note"),)),
        Diagnostic("SEC002", "three", Severity.INFO, "m3", key, rendered=Span("<render>", 3, 1, 3, 2)),
    ]
    received = from_rows(pickle.loads(pickle.dumps(to_rows(sent), 5)))
    assert received == sent
    assert received[0].span is received[2].span and received[0].span is not received[1].span
    assert received[0].object is received[1].object and received[0].object is not ref
    assert received[0].span.end_line is received[0].span.line  # one int for a one-line span
    # An object both sides hold travels as its index and comes back as the receiver's own.
    rows = to_rows(sent, [ObjectRef("v1", "Pod", "ns", "other"), ref])
    assert rows[0][6] == 1 and rows[2][6] is None
    mine = ObjectRef("v1", "Pod", "ns", "p")
    assert [d.object for d in from_rows(pickle.loads(pickle.dumps(rows, 5)), [ref, mine])][:2] == [mine, mine]
    assert from_rows(pickle.loads(pickle.dumps(rows, 5)), [ref, mine])[0].object is mine


def test_run_wide_checks_leave_their_indexes_to_the_run(tmp_path, parallel_everything):
    """The snapshot's inventory, built by the run-wide SCH check, serves `dralint simulate`
    afterwards; built in a worker it would be built a second time in the parent."""
    from dralint.checks.scheduling.simulation import MEMO

    config_maps = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: a}}\n" for i in range(30)
    )
    (tmp_path / "a.yaml").write_text(config_maps, encoding="utf-8")  # the first slices reach no snapshot index
    (tmp_path / "b.yaml").write_text(generate(20), encoding="utf-8")
    result = lint(
        LintOptions(paths=[str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")], slices=["example:mixed"], jobs=2)
    )
    assert (MEMO, "inventory") in result.context._memo


def _tagged(index: int) -> tuple[int, int]:
    time.sleep(0.01)  # long enough that the worker and this process both take some
    return index, os.getpid()


def test_this_process_shares_the_work_and_only_a_workers_results_are_sent():
    here = os.getpid()
    out = list(
        parallel.ordered_map(
            _tagged, 30, jobs=2, send=lambda i, r: ("sent", i, r[1]), receive=lambda i, s: ("received", *s)
        )
    )
    mine = [r for r in out if r[0] != "received"]
    theirs = [r for r in out if r[0] == "received"]
    assert mine and theirs
    assert all(pid == here for _, pid in mine) and all(r[1] == "sent" and r[3] != here for r in theirs)
    assert [r[0] if r[0] != "received" else r[2] for r in out] == list(range(30))


def _fails_in_a_worker(index: int, here: int = os.getpid()) -> int:
    time.sleep(0.01)
    if os.getpid() != here:
        raise ValueError(f"task {index} failed")
    return index


def test_a_task_that_fails_in_a_worker_raises_here_with_the_workers_traceback():
    with pytest.raises(ValueError, match="failed") as raised:
        list(parallel.ordered_map(_fails_in_a_worker, 30, jobs=2))
    assert any("raised in a worker process" in note and "_fails_in_a_worker" in note for note in raised.value.__notes__)


def test_an_error_that_cannot_travel_is_told_by_its_text(monkeypatch):
    here = os.getpid()

    class Unpicklable(Exception):
        def __reduce__(self):
            raise TypeError("no")

    def task(index: int) -> int:
        time.sleep(0.01)
        if os.getpid() != here:
            raise Unpicklable("local class")
        return index

    with pytest.raises(RuntimeError, match="a worker process failed:(.|\n)*Unpicklable: local class"):
        list(parallel.ordered_map(task, 30, jobs=2))


def test_a_worker_that_dies_is_an_error_not_a_hang():
    here = os.getpid()

    def task(index: int) -> int:
        time.sleep(0.01)
        if os.getpid() != here:
            os.kill(os.getpid(), signal.SIGKILL)
        return index

    with pytest.raises(RuntimeError, match="ended without sending its results"):
        list(parallel.ordered_map(task, 30, jobs=2))


def test_stopping_early_leaves_no_worker_behind():
    import multiprocessing

    results = parallel.ordered_map(_tagged, 60, jobs=3)
    assert [next(results)[0] for _ in range(3)] == [0, 1, 2]
    results.close()
    assert multiprocessing.active_children() == []


@pytest.mark.skipif(sys.platform != "linux", reason="a Linux pipe setting")
def test_a_workers_pipe_holds_a_slice_of_findings():
    import fcntl
    import multiprocessing

    if int(Path("/proc/sys/fs/pipe-max-size").read_text()) < parallel._PIPE_BYTES:
        pytest.skip("this system lets a process ask for less")
    reader, writer = multiprocessing.Pipe(duplex=False)
    with reader, writer:
        assert fcntl.fcntl(writer.fileno(), fcntl.F_GETPIPE_SZ) < parallel._PIPE_BYTES
        parallel._widen(writer)
        assert fcntl.fcntl(writer.fileno(), fcntl.F_GETPIPE_SZ) == parallel._PIPE_BYTES
