"""A large file read in pieces by several processes (``loader.pieces``, ``loader.load_piece``).

Read piece by piece, a file must give exactly the documents ``load(..., lists=True)`` gives it
whole (data, positions, numbers), or say that it cannot (a piece the fast reader declines, a
document numbered wrong), so that the engine reads it whole instead.
"""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dralint.lint import engine
from dralint.lint.gate import lint_with_config
from dralint.lint.options import LintOptions
from dralint.reporters import chunked_reporter
from dralint.yaml import blockfast, loader
from dralint.yaml.loader import Document, SourceText, load, load_piece, numbered_right, pieces
from dralint.yaml.strict import may_need_check


def whole(text: str) -> list[tuple]:
    return [_view(d) for d in load(SourceText("t.yaml", text), lists=True).documents]


def _view(document: Document) -> tuple:
    return document.index, document.item, repr(document.data), repr(document._walk(())[0])


def in_pieces(text: str, size: int) -> tuple[list[blockfast.DocumentRun | blockfast.ItemRun], list[tuple]] | None:
    """The pieces of ``text`` and what reading them gives; None when the file is read whole
    (no pieces, a piece declined, or misnumbered)."""
    source = SourceText("t.yaml", text)
    found = pieces(source, size)
    if found is None:
        return None
    documents: list[Document] = []
    counts = [load_piece(source, piece, documents.append) for piece in found]
    if None in counts or not numbered_right(found, counts):  # type: ignore[arg-type]
        return None
    return found, [_view(d) for d in documents]


def a_list(items: list) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}})


def config_map(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


#: Printable ASCII mostly: strings the fast reader takes, so that most files are cut (the
#: reader's own tests cover what it declines).
strings = st.one_of(
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=10),
    st.sampled_from(["a b c d e f g h i j", "|", "x: y", "- z", "# c", "yes", "0x1F", "é", ""]),
)
keys = st.text(st.characters(min_codepoint=48, max_codepoint=122), min_size=1, max_size=6)
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), strings),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(keys, children, max_size=3)),
    max_leaves=10,
)
#: One document's text: a mapping, or a List of items.
document_texts = st.one_of(
    st.dictionaries(keys, values, min_size=1, max_size=4).map(lambda d: yaml.safe_dump(d, width=30)),
    st.lists(values, min_size=1, max_size=6).map(a_list),
)
#: What may come before a file's first "---": nothing, comments, or a document of its own.
preludes = st.sampled_from(["", "# generated\n", "\n# a\n\n", "a: 1\n", "---\n"])


@settings(max_examples=300, deadline=None)
@given(preludes, st.lists(document_texts, min_size=1, max_size=5), st.integers(min_value=1, max_value=80))
def test_a_file_read_in_pieces_gives_what_it_gives_whole(prelude, documents, size):
    text = prelude + "".join(f"---\n{d}" for d in documents)
    read = in_pieces(text, size)
    if read is not None:
        assert read[1] == whole(text)


def test_a_kubectl_list_is_cut_into_runs_of_items():
    text = a_list([config_map(f"settings-{i}", mode="fast" * (i % 3)) for i in range(40)])
    found, documents = in_pieces(text, 200)
    assert len(found) > 5 and all(isinstance(p, blockfast.ItemRun) for p in found)
    assert [p.first for p in found] == sorted({p.first for p in found}) and found[0].first == 0
    assert documents == whole(text)
    assert [d[:2] for d in documents] == [(0, i) for i in range(40)]


def test_documents_and_lists_are_cut_at_their_boundaries():
    """A run of small documents, a List longer than a piece between them, and comments first."""
    small = "".join(f"---\n{yaml.safe_dump(config_map(f'c{i}'))}" for i in range(12))
    text = "# rendered\n" + small + "---\n" + a_list([config_map(f"item-{i}") for i in range(12)]) + small
    found, documents = in_pieces(text, 300)
    assert {type(p) for p in found} == {blockfast.DocumentRun, blockfast.ItemRun}
    assert documents == whole(text)
    assert [d[0] for d in documents] == [*range(12), *[12] * 12, *range(13, 25)]  # the comments are no document


@pytest.mark.parametrize(
    "text",
    [
        "# only comments\n---\na: 1\n---\nb: 2\n---\nc: 3\n",
        "a: 0\n---\na: 1\n---\nb: 2\n---\nc: 3\n",
        "---\na: 1\n---\nb: 2\n---\nc: 3\n",
        "---\na: 1\n---\nb: 2\n---\nc: 3",  # no line break at the end
    ],
    ids=["comments first", "a document first", "a marker first", "no final break"],
)
def test_documents_are_numbered_as_in_the_whole_file(text):
    found, documents = in_pieces(text, 8)
    assert len(found) > 1
    assert documents == whole(text)


def test_a_piece_the_fast_reader_declines_makes_the_file_read_whole():
    text = "---\na: 1\n---\nb: 2\n---\nc: &x 3\nd: *x\n"
    source = SourceText("t.yaml", text)
    found = pieces(source, 8)
    counts = [load_piece(source, piece, lambda d: None) for piece in found]
    assert counts[:2] == [1, 1] and counts[-1] is None


def test_a_misnumbered_piece_is_noticed():
    text = "---\na: 1\n---\nb: 2\n---\nc: 3\n"
    found = pieces(SourceText("t.yaml", text), 8)
    counts = [1] * len(found)
    assert numbered_right(found, counts)
    wrong = [found[0], found[1]._replace(document=found[1].document + 1), *found[2:]]
    assert not numbered_right(wrong, counts)
    assert not numbered_right(found, [0, *counts[1:]])  # the first read no document


def test_a_file_no_larger_than_a_piece_is_not_cut():
    assert pieces(SourceText("t.yaml", "---\na: 1\n---\nb: 2\n"), 100) is None


def test_a_file_with_a_document_too_large_to_read_is_not_cut(monkeypatch):
    """``load`` skips such a document unread (YAML008) and reads on with libyaml."""
    text = "---\na: 1\n---\nb: " + "x" * 300 + "\n---\nc: 3\n"
    assert pieces(SourceText("t.yaml", text), 8) is not None
    monkeypatch.setattr(loader, "MAX_DOCUMENT_CHARS", 200)
    assert pieces(SourceText("t.yaml", text), 8) is None


#: Every part of a file a piece may cover: documents, and a List's header, items and tail, the
#: List after documents or first in the file (as kubectl writes it).
COVERED = {
    "documents, then a List": "# rendered\n"
    + "".join(f"---\n{yaml.safe_dump(config_map(f'c{i}'))}" for i in range(3))
    + "---\n"
    + a_list([config_map(f"item-{i}") for i in range(6)]),
    "a List alone": a_list([config_map(f"item-{i}") for i in range(6)]),
}
ODD = {"tab": "\t", "lone CR": "\rx", "glued comment": " ,#", "directive": "\n%TAG ! x", "flow dash": " -{"}


@pytest.mark.parametrize("odd", ODD.values(), ids=ODD.keys())
@pytest.mark.parametrize("base", COVERED.values(), ids=COVERED.keys())
def test_text_that_sends_a_file_to_libyaml_makes_its_piece_decline_wherever_it_is(base, odd):
    """``load`` leaves such a file to libyaml (or to the YAML 1.2 pass) before reading it; read in
    pieces, the piece whose text holds it says so, wherever in the file it is."""
    lines = base.split("\n")
    assert in_pieces(base, 60) is not None
    for at in range(len(lines) - 1):
        text = "\n".join([*lines[:at], lines[at] + odd, *lines[at + 1 :]])
        assert in_pieces(text, 60) is None, (at, lines[at])


@pytest.mark.parametrize("odd", ODD.values(), ids=ODD.keys())
def test_the_checks_before_reading_give_for_stretches_what_they_give_for_the_whole(odd):
    text = "a: 1\n  - b\n" + odd.lstrip("\n") + "\nc: 2\n"
    for at in (i + 1 for i, char in enumerate(text) if char == "\n"):
        assert may_need_check(text) == (may_need_check(text, 0, at) or may_need_check(text, at))
        assert (blockfast.eligible(text) is None) == (
            blockfast.eligible(text, 0, at) is None and blockfast.eligible(text, at) is None
        )


def _report(paths: list[str], jobs: int) -> str:
    return "".join(
        chunked_reporter("json")(lint_with_config(LintOptions(paths=paths, profile="strict", jobs=jobs)), False)
    )


def test_a_large_file_read_in_pieces_reports_what_it_reports_read_whole(tmp_path, monkeypatch):
    """The engine cuts a file larger than a worker's share, and joins what the pieces read."""
    monkeypatch.setattr(engine, "_PARALLEL_BYTES", 500)
    monkeypatch.setattr(engine, "_PIECE_LINES", 100)
    listed = tmp_path / "dump.yaml"
    listed.write_text(
        a_list([{**config_map(f"c{i}", mode="fast"), "kind": "Pod" if i % 5 == 0 else "ConfigMap"} for i in range(60)])
    )
    documents = tmp_path / "rendered.yaml"
    documents.write_text(
        "".join(f"---\n{yaml.safe_dump(config_map(f'd{i}'))}" for i in range(40)) + "---\nx: &a 1\ny: *a\n"
    )
    # Shape problems, reported from the parent with positions read from the file's text.
    shapes = tmp_path / "shapes.yaml"
    shapes.write_text(
        "".join(f"---\n{yaml.safe_dump(config_map(f's{i}'))}" for i in range(20))
        + "---\napiVersion: v1\nmetadata: {name: no-kind}\n---\n- not a mapping\n"
    )
    paths = [str(listed), str(documents), str(shapes)]
    read: list[list[int | None]] = []  # per file cut: what each piece read (in the workers)
    real = engine._join_pieces
    monkeypatch.setattr(
        engine,
        "_join_pieces",
        lambda source, cut, parts, *rest: read.append([p.documents for p in parts]) or real(source, cut, parts, *rest),
    )
    assert _report(paths, jobs=2) == _report(paths, jobs=1)
    assert len(read) == 3 and len(read[0]) > 2 and None not in read[0]  # the List's items, read apart
    assert None in read[1]  # the anchor: that file was read whole
    assert len(read[2]) > 2 and None not in read[2]
    report = json.loads(_report(paths, jobs=2))
    assert report["summary"]["objects"] == 120
    shape_lines = {
        d["line"] for d in report["diagnostics"] if d["path"] == str(shapes) and d["rule"].startswith("YAML")
    }
    assert len(shape_lines) == 2 and min(shape_lines) > 100


def test_real_files_read_in_pieces_give_what_they_give_whole():
    """Every file of the corpus, examples and test data, cut as small as it goes: those whose
    pieces are all read give the same documents; the others are read whole."""
    from test_blockfast import REAL_FILES, _text

    cut = 0
    for path in REAL_FILES:
        text = _text(path)
        if text is None:
            continue
        read = in_pieces(text, 1)
        if read is not None:
            assert read[1] == whole(text), path
            cut += len(read[0]) > 1
    assert cut > len(REAL_FILES) // 4
