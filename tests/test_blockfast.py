"""The fast reader for block-style YAML (dralint.yaml.blockfast) against the libyaml events path.

For every input the loader must give the same documents (data, types, positions tree, index)
and the same problems whether or not the fast reader is tried first: the reader either takes a
document exactly as libyaml's events would build it, or declines it. Inputs: generated data
dumped by PyYAML's block dumpers, every file of the shared corpus, examples/ and tests/data, the
YAML test suite, and hand-written edge cases. Other tests check that the reader really takes
the YAML machines write (an equivalence test alone would pass if it declined everything).
"""

from __future__ import annotations

import math
import pickle
from pathlib import Path
from unittest import mock

import pytest
import yaml
from conftest import CORPUS, YAML_TEST_SUITE
from hypothesis import given, settings
from hypothesis import strategies as st

from dralint.yaml import blockfast, loader
from dralint.yaml.loader import MAX_DEPTH, LoadResult, SourceText, load
from dralint.yaml.sources import SourceFile, decode

ROOT = Path(__file__).resolve().parent.parent


def events_only(text: str, lists: bool = False) -> LoadResult:
    """The loader with the fast reader declining every file: libyaml's events path alone."""
    with mock.patch.object(blockfast, "read", return_value=(0, "off")):
        return load(SourceText("t.yaml", text), lists=lists)


def view(result: LoadResult) -> tuple[list, list]:
    """Everything a document and the problems carry, compared as text so that 1, 1.0 and True
    (equal in Python) differ, as they do for Kubernetes."""
    documents = [(d.index, repr(d.data), repr(d._walk(())[0])) for d in result.documents]
    return documents, result.problems


def assert_same(text: str) -> None:
    fast = load(SourceText("t.yaml", text))
    assert view(fast) == view(events_only(text))


def taken(text: str) -> tuple[int, str | None]:
    """(offset where libyaml takes over, why) for ``text``; (len(text), None): all taken."""
    return blockfast.read(text, lambda data, segment: None, max_depth=MAX_DEPTH)


def fully_taken(text: str) -> bool:
    return taken(text) == (len(text), None)


# --- generated documents, as PyYAML's block dumpers write them ------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(
        [
            "yes",
            "no",
            "on",
            "0755",
            "0x1F",
            "1e3",
            "1_000",
            "~",
            "null",
            ".inf",
            "12:30",
            "- a",
            "a: b",
            "#x",
            "a #b",
            "'q'",
            '"q"',
            "it's",
            "<<",
            "",
            " ",
            "---",
            "...",
            "x\ny",
            "|",
            "-1",
        ]
    ),
)
keys = st.one_of(st.text(max_size=8), st.sampled_from(["yes", "1", "null", "a b", "a: b", "-x", "<<", "k"]))
values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)),
    max_leaves=25,
)
documents = st.lists(
    st.one_of(st.dictionaries(keys, values, min_size=1, max_size=5), st.lists(values, min_size=1, max_size=4)),
    min_size=1,
    max_size=3,
)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_pyyaml_c_dumper_output_reads_the_same(docs):
    assert_same(yaml.dump_all(docs, Dumper=yaml.CSafeDumper))


@settings(max_examples=300, deadline=None)
@given(documents)
def test_pyyaml_safe_dump_output_reads_the_same(docs):
    assert_same(yaml.safe_dump_all(docs, default_flow_style=False, allow_unicode=True, explicit_start=True))


@settings(max_examples=100, deadline=None)
@given(documents, st.sampled_from(["\n", "\r\n"]), st.integers(min_value=1, max_value=4))
def test_indentation_and_line_breaks_read_the_same(docs, newline, indent):
    text = yaml.dump_all(docs, Dumper=yaml.CSafeDumper, indent=indent + 1, line_break=newline)
    assert_same(text)


sentences = st.lists(
    st.sampled_from(["gpu", "a", "device.driver", "==", "'x'", "&&", ">=", "0", "-", "true", "1"]),
    min_size=1,
    max_size=12,
).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            keys,
            st.recursive(
                st.one_of(scalars, sentences),
                lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(keys, c, max_size=3)),
                max_leaves=8,
            ),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=2,
    ),
    st.integers(min_value=8, max_value=40),
)
def test_strings_folded_over_lines_read_the_same(docs, width):
    """Dumpers fold long strings at a space (PyYAML like Go's encoder, at ``width``)."""
    assert_same(yaml.dump_all(docs, Dumper=yaml.CSafeDumper, width=width))


def test_the_readers_take_what_machines_write():
    manifest = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "node-1-gpus", "labels": {"a b": "yes", "port": "8080"}},
        "spec": {
            "driver": "gpu.example.com",
            "devices": [{"name": "gpu-0", "attributes": {"index": {"int": 0}}}, {"name": "gpu-1", "capacity": {}}],
            "allNodes": True,
        },
    }
    for text in (
        yaml.dump_all([manifest, manifest], Dumper=yaml.CSafeDumper),
        yaml.safe_dump(manifest, default_flow_style=False),
        yaml.safe_dump(manifest, default_flow_style=False, indent=4),
    ):
        assert fully_taken(text), taken(text)
        assert_same(text)


# --- real files -------------------------------------------------------------------------------


def _yaml_files(*folders: Path) -> list[Path]:
    return sorted(
        p for folder in folders if folder.is_dir() for p in folder.rglob("*") if p.suffix in (".yaml", ".yml", ".json")
    )


REAL_FILES = _yaml_files(CORPUS, ROOT / "examples", ROOT / "tests" / "data")
SUITE_FILES = sorted(YAML_TEST_SUITE.rglob("in.yaml")) if YAML_TEST_SUITE.is_dir() else []


def _text(path: Path) -> str | None:
    source = decode(str(path), path.read_bytes())
    return source.text if isinstance(source, SourceFile) else None


@pytest.mark.skipif(not REAL_FILES, reason="no corpus, examples or test data")
@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_real_files_read_the_same(path):
    text = _text(path)
    if text is not None:
        assert_same(text)


@pytest.mark.skipif(not SUITE_FILES, reason="the YAML test suite is absent")
@pytest.mark.parametrize("path", SUITE_FILES, ids=lambda p: str(p.parent.relative_to(YAML_TEST_SUITE)))
def test_yaml_test_suite_inputs_read_the_same(path):
    text = _text(path)
    if text is not None:
        assert_same(text)


@pytest.mark.skipif(not REAL_FILES, reason="no corpus, examples or test data")
def test_most_real_files_are_taken_whole():
    texts = [t for t in map(_text, REAL_FILES) if t is not None]
    assert sum(map(fully_taken, texts)) >= len(texts) // 4


# --- tricky scalars and shapes that the reader takes -------------------------------------------

TAKEN = {
    "booleans and nulls": "a: yes\nb: no\nc: on\nd: ~\ne: null\nf:\ng: Null\nh: y\n",
    "numbers": "a: 0755\nb: 1e3\nc: 0x1F\nd: -.5\ne: 1_000\nf: 12:30\ng: 08\nh: '.inf'\ni: 99999999999999999999\n",
    "keys that resolve": "yes: 1\n1: a\nnull: b\n1.0: c\n0755: d\n",
    "quoted": "a: \"quoted: x\"\nb: 'it''s'\nc: ''\nd: \"\"\ne: '#x'\nf: \"a # b\"\n",
    "keys with spaces": "a key: 1\n\"quoted key\": 2\n'single key': 3\nspaced  :  4\n",
    "nested sequences": "- - a\n  - b\n- - - c\n-\n  - d\n- e\n",
    "null values": "a:\nb:   \nc: # comment\nd:\n-\n- \n",
    "indentless sequences": "a:\n- x\n- y: 1\n  z: 2\n-\nb: 1\n",
    "trailing spaces": "a: b   \nc:    d  \ne: \n- \n",
    "CRLF": "a: 1\r\nb:\r\n- x\r\n- 'y'\r\nc: |\r\n  z\r\n",
    "comments": "# head\na: 1 # one\n  # deeper comment\nb: # none\n  c: 2\n# tail\n",
    "flow on one line": 'a: {x: 1, "y": \'z\'}\nb: [1, "two", three four]\nc: []\nd: { }\ne:\n- [ ]\n',
    "literal block scalars": "a: |\n  x\n\n  y\nb: |-\n  z\n   w\n# c\nc:\n- |\n  v\n",
    "documents": "---\na: 1\n--- # second\n- b\n---\nc: 2",
    "unicode": 'k: héllo\nb: 😀x\n"ü": 1\n',
    "indented root": "  a: 1\n  b:\n    - x\n",
    "plain scalars with indicators inside": "a: b:c\nd: e#f\ng: h - i\nj: k, l\nm: -n\no: '-'\n",
    "values on the next line": "a:\n  b\nc:\n  'd'\ne:\n  [1]\nf:\n  |\n    g\nh:\n-\n  i\n",
    "no final line break": "a: 1\nb: |\n  x",
    # Go's YAML encoder (kubectl -o yaml) folds strings longer than 80 columns at a space.
    "plain scalars over several lines": (
        "expression: device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].model\n"
        "  != 'none'\nb:\n  c: one two\n    three\n      four\n  d: 1\n"
    ),
    "plain scalars over lines in sequences": "- one two\n  three\n- - a\n    b\n---\nk:\n- x y\n  z\nz: 1\n",
    "plain scalars over lines that resolve": "a: 1\n  2\nb: true\n  false\nc: 1e99\n  9\nd: x\n  - y\n",
    "plain scalars over lines, then a comment": "a: b  \n   c  \n  # c\nd: e\r\nf: g\r\n  h\r\n",
    "plain scalars over lines after a key on its own": "a:\n  b:\n    x\n     y\n",
}


@pytest.mark.parametrize("text", TAKEN.values(), ids=TAKEN.keys())
def test_tricky_inputs_are_taken_and_read_the_same(text):
    assert fully_taken(text), taken(text)
    assert_same(text)


# --- what the reader declines, each for its reason ----------------------------------------------

DECLINED = {
    "anchor": ("a: &x 1\nb: *x\n", "outside the subset"),
    "tag": ("a: !!str 1\n", "outside the subset"),
    "folded block scalar": ("a: >\n  x\n", "outside the subset"),
    "keep chomping": ("a: |+\n  x\n", "outside the subset"),
    "indentation indicator": ("a: |2\n   x\n", "outside the subset"),
    "block scalar starting with an empty line": ("a: |\n\n  x\n", "starts with an empty line"),
    "line of spaces in a block scalar": ("a: |\n  x\n     \n  y\n", "line of spaces"),
    "empty block scalar": ("a: |\nb: 1\n", "empty block scalar"),
    "blank line in a plain scalar": ("a: b\n  c\n\n  d\n", "indentation"),
    "comment before a plain scalar goes on": ("a: b # c\n  d\n", "indentation"),
    "key in a line of a plain scalar": ("a: b\n  c: d\n", "plain scalar that libyaml may read otherwise"),
    "comment in a line of a plain scalar": ("a: b\n  c #d\n", "plain scalar that libyaml may read otherwise"),
    "plain scalar going on less indented than its mapping": ("- name: a b\n  c\n", "mapping line without a key"),
    "plain scalar going on after its mapping closed": ("a:\n  b:\n    x\n y\n", "indentation"),
    "quoted scalar going on": ("a: 'q'\n  b\n", "indentation"),
    "multi-line quoted scalar": ("a: 'b\n  c'\n", "outside the subset"),
    "escapes": ('a: "b\\n"\n', "outside the subset"),
    "nested flow": ("a: {b: [1]}\n", "outside the subset"),
    "flow spanning lines": ("a: [1,\n  2]\n", "outside the subset"),
    "colon in flow plain scalar": ("a: {b: c:d}\n", "outside the subset"),
    "tab": ("a:\tb\n", "a tab"),
    "odd line break": ("a: b\u2028c: d\n", "odd line break"),
    "BOM inside": ("a: \ufeffb\n", "character libyaml refuses"),
    "lone CR": ("a: 1\rb: 2\n", "lone CR"),
    "control character": ("a: \x01\n", "character libyaml refuses"),
    "duplicate key": ("a: 1\na: 2\n", "duplicate key"),
    "duplicate key after resolution": ("yes: 1\ntrue: 2\n", "duplicate key"),
    "duplicate key in flow": ("a: {b: 1, b: 2}\n", "duplicate key"),
    "merge key": ("a: 1\n<<: {b: 2}\n", "merge key"),
    "complex key": ("? a\n: b\n", "outside the subset"),
    "document end marker": ("a: 1\n...\n", "'...' line"),
    "content on the --- line": ("--- a\n", "content on the '---' line"),
    "empty document": ("---\n# nothing\n---\na: 1\n", "empty document"),
    "scalar root": ("just text\n", "scalar or flow root"),
    "flow root": ("{a: 1}\n", "scalar or flow root"),
    "mapping after a sequence": ("- a\nb: 1\n", "sequence line without '-'"),
    "content after the root": ("a: 1\n- b\n", "mapping line without a key"),
    "wrong indentation": ("a:\n    b: 1\n  c: 2\n", "indentation"),
    "long key": ("k" * 1100 + ": 1\n", "longer than libyaml's limit"),
    "deep nesting": ("".join(f"{' ' * i}k:\n" for i in range(MAX_DEPTH)) + f"{' ' * MAX_DEPTH}k: 1\n", "deep nesting"),
    "directive": ("%YAML 1.1\n---\na: 1\n", "outside the subset"),
    "infinity": ("a: -.Inf\n", "NaN, infinite or out-of-range"),
    "NaN": ("- .NaN\n", "NaN, infinite or out-of-range"),
    "overflowing number": ("a: 1e999\n", "NaN, infinite or out-of-range"),
    "overflowing digits": ("a: " + "9" * 400 + "\n", "NaN, infinite or out-of-range"),
    "infinity in flow": ("a: {b: 1, c: .inf}\n", "NaN, infinite or out-of-range"),
    "infinity as a key": (".inf: 1\n", "NaN, infinite or out-of-range"),
    "integer past int64": ("a: 9223372036854775808\n", "NaN, infinite or out-of-range"),
    "five thousand digits": ("a: " + "9" * 5000 + "\n", "NaN, infinite or out-of-range"),
}


@pytest.mark.parametrize("text, reason", DECLINED.values(), ids=DECLINED.keys())
def test_declined_inputs_say_why_and_read_the_same(text, reason):
    offset, why = taken(text)
    assert why is not None and reason in why, why
    assert offset <= len(text)
    assert_same(text)


def test_a_declined_document_hands_the_rest_of_the_file_to_libyaml():
    text = "a: 1\n---\nb: &x 2\n---\nc: 3\n"
    assert taken(text) == (text.index("---"), "a line outside the subset: 'b: &x 2'")
    result = load(SourceText("t.yaml", text))
    assert [d.data for d in result.documents] == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert [d.index for d in result.documents] == [0, 1, 2]
    assert_same(text)


def test_strictness_candidates_are_left_to_libyaml():
    """A file the YAML 1.2 pass must look at (here a glued comment) is read by libyaml whole,
    so the pass sees it exactly as before."""
    text = "a: 'x'#glued\nb: 1\n"
    with mock.patch.object(blockfast, "read", side_effect=AssertionError("tried")):
        result = load(SourceText("t.yaml", text))
    assert [p.kind for p in result.problems] == ["yaml-1.2"]


def test_a_document_of_more_nodes_than_aliases_may_add_is_read_here(monkeypatch):
    """The alias limit counts only nodes aliases add (this reader declines aliases), so a
    document written out in full, however large, stays with the fast reader."""
    monkeypatch.setattr(loader, "MAX_EXPANDED_NODES", 5)
    text = "items:\n" + "".join(f"- name: n{i}\n  size: {i}\n" for i in range(10))
    assert fully_taken(text)
    result = load(SourceText("t.yaml", text))
    assert not result.problems and result.documents[0].data["items"][9] == {"name": "n9", "size": 9}


def test_lines_repeated_across_a_large_run_stay_cached_while_lines_met_once_age_out(monkeypatch):
    """The cache of parsed lines turns over many times in a large run: a line in every
    document is parsed once all the same, and the cache never holds more than two
    generations."""
    monkeypatch.setattr(blockfast, "_CACHE_LIMIT", 8)
    monkeypatch.setattr(blockfast, "_LINES", {})
    monkeypatch.setattr(blockfast, "_OLDER", {})
    parsed: list[str] = []
    real = blockfast._parse_line
    monkeypatch.setattr(blockfast, "_parse_line", lambda text: parsed.append(text) or real(text))
    text = "---\n".join(f"kind: ConfigMap\nname: n{i}\nsize: {i}\n" for i in range(40))
    assert fully_taken(text)
    assert "kind: ConfigMap" in parsed and len(parsed) == len(set(parsed))  # each line parsed once
    assert len(blockfast._LINES) + len(blockfast._OLDER) <= 2 * 8


# --- NaN and infinity: Document.finite ----------------------------------------------------------

#: Every way a scalar can resolve to NaN or an infinity, in block and in flow context; the API
#: validation skips its search for them in a document whose ``finite`` says there are none.
NON_FINITE = [
    ".inf",
    "+.INF",
    "-.Inf",
    ".nan",
    ".NaN",
    ".NAN",
    "1e999",
    "-1e999",
    ".5e999",
    "1_0e999",
    "9" * 400,
    "!!float .nan",
    "!!float .inf",
    "!!float -1e999",
    "!!float 1e400",
    "!!float '.inf'",
]


def _holds_non_finite(value) -> bool:
    """The test's own oracle for ``Document.finite``: NaN, an infinity, or an integer past int64."""
    if isinstance(value, dict):
        return any(map(_holds_non_finite, value.values()))
    if isinstance(value, list):
        return any(map(_holds_non_finite, value))
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not -(2**63) <= value < 2**63
    return isinstance(value, float) and not math.isfinite(value)


@pytest.mark.parametrize("written", NON_FINITE)
@pytest.mark.parametrize(
    "shape",
    [
        "a: 1\nb: {w}\n",
        "a:\n- x\n- {w}\n",
        "a: [1, {w}]\n",
        "a: {{b: {w}}}\n",
        "a: &n {w}\nb: *n\n",
        "a: 1\n---\nb: {w}\n",
    ],
)
def test_a_document_with_nan_or_infinity_is_not_finite_through_both_readers(written, shape):
    text = shape.format(w=written)
    for result in (load(SourceText("t.yaml", text)), events_only(text)):
        *before, last = result.documents
        assert _holds_non_finite(last.data), last.data
        assert not last.finite
        assert all(d.finite for d in before)


@pytest.mark.parametrize(
    "written",
    ["1e3", ".5", "-1.5e308", "'.inf'", '".nan"', "inf", "nan", "!!float nan", "!!str .inf", "99999999999999999999"],
)
def test_a_document_with_finite_numbers_only_is_finite_through_both_readers(written):
    text = f"a: {written}\nb: [{written}]\n"
    for result in (load(SourceText("t.yaml", text)), events_only(text)):
        assert [d.finite for d in result.documents] == [True]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            keys,
            st.recursive(
                st.one_of(st.floats(), scalars),
                lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(keys, children, max_size=3)),
                max_leaves=10,
            ),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=3,
    )
)
def test_finite_never_hides_a_nan_or_infinity(docs):
    text = yaml.dump_all(docs, Dumper=yaml.CSafeDumper)
    for result in (load(SourceText("t.yaml", text)), events_only(text)):
        for document in result.documents:
            assert document.finite is not _holds_non_finite(document.data)


def test_finite_survives_freezing_and_workers():
    result = load(SourceText("t.yaml", "a: 1\n---\nb: .inf\n"))
    for document in result.documents:
        document.freeze()
    sent = [pickle.loads(pickle.dumps(d)) for d in result.documents]
    assert [d.finite for d in result.documents] == [d.finite for d in sent] == [True, False]


# --- positions read on demand --------------------------------------------------------------------


def test_positions_are_read_on_demand_and_survive_freezing_and_workers():
    text = "# head\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: |\n    v\n---\na: [1, 2]\n"
    source = SourceText("t.yaml", text)
    documents = load(source).documents
    expected = [d._walk(())[0] for d in events_only(text).documents]
    assert all(isinstance(d._root, blockfast.Segment) for d in documents)  # nothing built yet
    for document, tree in zip(documents, expected, strict=True):
        document.freeze()
        assert len(document._frozen) < len(pickle.dumps((document.data, tree), 5))
        assert document._walk(())[0] == tree
        sent = pickle.loads(pickle.dumps(document))  # a worker's copy comes without the text
        sent.attach(source)
        assert sent._walk(())[0] == tree
    first = documents[0]
    span = first.locate(("data", "k"))
    assert (span.line, span.column) == (8, text.splitlines()[7].index("|") + 1)


# --- a List read item by item ------------------------------------------------------------------


def cut_into_items(result: LoadResult) -> list:
    """``view`` of ``result`` with each List cut into its items by hand, from the whole tree:
    what ``load(lists=True)`` must give."""
    out = []
    for document in result.documents:
        data = document.data
        if (
            isinstance(data, dict)
            and str(data.get("kind")).endswith("List")
            and isinstance(data.get("items"), list)
            and data["items"]
        ):
            children = document._walk(("items",))[0][5]
            out.extend(
                (document.index, number, repr(item), repr(pos))
                for number, (item, pos) in enumerate(zip(data["items"], children, strict=True))
            )
        else:
            out.append((document.index, None, repr(data), repr(document._walk(())[0])))
    return out


def item_segments(text: str) -> list[blockfast.Segment]:
    """The segments of the items the fast reader takes one by one."""
    segments: list[blockfast.Segment] = []
    blockfast.read(
        text,
        lambda data, segment: None,
        max_depth=MAX_DEPTH,
        add_items=lambda items: segments.extend(s for _, s in items),
    )
    return segments


def assert_items_same(text: str) -> None:
    whole = events_only(text)
    expected = cut_into_items(whole)
    for result in (load(SourceText("t.yaml", text), lists=True), events_only(text, lists=True)):
        assert [(d.index, d.item, repr(d.data), repr(d._walk(())[0])) for d in result.documents] == expected
        assert result.problems == whole.problems


class IndentedSequences(yaml.SafeDumper):
    """Writes ``items:`` with its '-' indented under the key, as some tools do."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        return super().increase_indent(flow, False)


def a_list(items: list, kind: str = "List") -> dict:
    return {"apiVersion": "v1", "items": items, "kind": kind, "metadata": {"resourceVersion": ""}}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(values, min_size=1, max_size=5),
    st.sampled_from([yaml.SafeDumper, IndentedSequences]),
    st.integers(min_value=8, max_value=80),
    st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(["", "# c", "  # c", "    #"])), max_size=4),
)
def test_a_list_reads_item_by_item_the_same(items, dumper, width, inserted):
    """Items of any shape, indented or not, strings folded, blank and comment lines anywhere."""
    lines = yaml.dump(a_list(items), Dumper=dumper, width=width).split("\n")
    for at, extra in inserted:
        lines.insert(at % len(lines), extra)
    assert_items_same("\n".join(lines))


TAKEN_LISTS = {
    "kubectl": (
        "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
        '- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\nkind: List\nmetadata:\n  resourceVersion: ""\n'
    ),
    "indented items last": (
        "---\nkind: PodList\napiVersion: v1\nitems:\n  - kind: Pod\n    metadata: {name: a}\n  -\n    kind: Pod\n"
    ),
    "literal at an item's end": (
        "kind: List\nitems:\n  - data:\n      s: |\n        x\n  - data:\n      s: |-\n        y\n\nmetadata: {}\n"
    ),
    "folded at an item's end": "kind: List\nitems:\n- a: one two\n    three\n- b: four\nmetadata: {}\n",
    "comments between items": "kind: List\nitems:\n# first\n- a: 1\n# second\n\n- a: 2\n  # inside\n",
    "empty value at an item's end": "kind: List\nitems:\n- a:\n- b:\n  c:\nx: 1\n",
    "items of any type": "kind: List\nitems:\n- one\n- - two\n- {three: 3}\n- |\n  four\n",
    "a comment after items": "kind: List\nitems:  # all of them\r\n- a: 1\r\n- b: 2\r\n",
    "two Lists": "kind: List\nitems:\n- a: 1\n---\nkind: List\nitems:\n- b: 2\n- c: 3\n",
}


@pytest.mark.parametrize("text", TAKEN_LISTS.values(), ids=TAKEN_LISTS.keys())
def test_lists_are_taken_item_by_item_and_read_the_same(text):
    assert taken(text) == (len(text), None)
    assert item_segments(text)
    assert_items_same(text)


READ_WHOLE = {
    "not a List": "kind: Thing\nitems:\n- a: 1\n",
    "no kind": "items:\n- a: 1\n",
    "items empty": "kind: List\nitems: []\n",
    "items not a list": "kind: List\nitems:\n  a: 1\n",
    "items indented under a key that is not the root's": "spec:\n  kind: List\nitems:\n- a: 1\nkind: Thing\n",
    "an indented line after the items": "kind: List\nitems:\n  - a: 1\n  b: 2\n",
}


@pytest.mark.skipif(not REAL_FILES, reason="no corpus, examples or test data")
def test_the_lists_of_real_files_are_read_item_by_item():
    """Real Lists (kubectl output in the corpus) take the item-by-item path, and read the same."""
    lists = [t for t in map(_text, REAL_FILES) if t is not None and "\nkind: List" in t and "\nitems:" in t]
    assert lists
    for text in lists:
        assert item_segments(text), text[:200]
        assert_items_same(text)


@pytest.mark.parametrize("text", READ_WHOLE.values(), ids=READ_WHOLE.keys())
def test_other_documents_with_items_are_read_whole(text):
    assert item_segments(text) == []
    assert_items_same(text)


LIBYAML_LISTS = {
    "an anchor the reader declines": "kind: List\nitems:\n- a: 1\n- b: &x 2\n- c: 3\n",
    "an alias across items": "kind: List\nitems:\n- a: &x {k: [1, 2]}\n- b: *x\n  c: *x\n",
    "after a document the reader took": "a: 1\n---\nkind: List\nitems:\n- b: &x 1\n- c: *x\nmetadata: {}\n",
    "odd line breaks": "kind: List\nitems:\n- a: 1\n- b: x\x85  y\n- c: 3\n",
    "a key repeated": "kind: List\nitems:\n- a: 1\nitems:\n- b: &x 2\n",
    "an anchored items": "kind: List\nitems: &i\n- a: 1\nother: *i\n",
    "no List": "kind: Thing\nitems:\n- a: &x 1\n- b: *x\n",
    "in a flow": "kind: List\nitems: [{a: 1}, {b: &x 2}]\n",
}


@pytest.mark.parametrize("text", LIBYAML_LISTS.values(), ids=LIBYAML_LISTS.keys())
def test_lists_libyaml_reads_are_cut_the_same(text):
    assert taken(text)[0] < len(text)
    assert_items_same(text)


def test_a_list_libyaml_reads_comes_item_by_item_and_frozen():
    """libyaml's List is not held whole either: each item is pickled once it is built."""
    text = "kind: List\nitems:\n- a: 1\n- b: &x 2\n- c: *x\n"
    received = []
    load(
        SourceText("t.yaml", text),
        lambda d: received.append((d._frozen is not None, d.index, d.item, d.data)),
        lists=True,
    )
    assert received == [(True, 0, 0, {"a": 1}), (True, 0, 1, {"b": 2}), (True, 0, 2, {"c": 2})]


def test_the_items_of_a_list_come_frozen_and_keep_their_place():
    """Each item is frozen as soon as it is read: the List is never held whole."""
    text = TAKEN_LISTS["kubectl"] + "---\nkind: List\nitems:\n- x: 1\n"
    source = SourceText("t.yaml", text)
    received = []
    load(source, lambda d: received.append((d._frozen is not None, d.index, d.item)), lists=True)
    assert received == [(True, 0, 0), (True, 0, 1), (True, 1, 0)]
    documents = load(source, lists=True).documents
    sent = pickle.loads(pickle.dumps(documents[1]))  # as --jobs workers send it
    sent.attach(source)
    assert (sent.index, sent.item, sent.data["metadata"]) == (0, 1, {"name": "b"})
    span = sent.locate(("metadata", "name"))
    assert (span.line, span.column, span.end_column) == (10, 11, 12)


def _nested_item(depth: int) -> str:
    """A List whose second item nests mappings ``depth - 1`` levels deep (``depth + 1`` in the
    document)."""
    lines = ["kind: List", "items:", "- a: 1", "- k0:"]
    lines += [f"{'  ' * (level + 1)}k{level}:" for level in range(1, depth - 1)]
    lines.append(f"{'  ' * depth}end")
    return "\n".join(lines) + "\n"


def test_a_list_item_near_the_depth_limit_reads_as_in_the_whole_document():
    """An item is read as a sequence of one, a level deeper than in its document: the reader's
    limit for it is one level lower, so the loader still reports what is too deep."""
    taken_lists = reported = 0
    for depth in range(MAX_DEPTH - 12, MAX_DEPTH + 2):
        text = _nested_item(depth)
        assert_items_same(text)
        taken_lists += fully_taken(text)
        reported += any(p.kind == "depth" for p in events_only(text, lists=True).problems)
    assert taken_lists and reported and taken_lists + reported < 14  # some read here, some too deep, some by libyaml
