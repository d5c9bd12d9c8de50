"""The editable file: untouched lines keep their bytes whatever the serializer prints."""

from __future__ import annotations

import json

from dralint.fix.convert import delete_key
from dralint.fix.document import EditableFile, LineEdit, merge_edits


def test_merge_keeps_noise_outside_changed_lines() -> None:
    original = ["# lost by the printer", "---", "a: ~", "b: 1", "c:    2"]
    before = ["a:", "b: 1", "c: 2"]
    after = ["a:", "b: 3", "c: 2"]
    assert merge_edits(original, before, after) == [LineEdit(3, 4, ("b: 3",))]


def test_merge_inserts_after_the_line_it_follows() -> None:
    original = ["x:", "  y: 1   # kept", "z: 2"]
    before = ["x:", "  y: 1 # kept", "z: 2"]
    after = ["x:", "  y: 1 # kept", "  w: 0", "z: 2"]
    assert merge_edits(original, before, after) == [LineEdit(2, 2, ("  w: 0",))]


def test_merge_widens_a_change_that_touches_noise() -> None:
    original = ["k:", "  - a", "  - b", "end: 1"]
    before = ["k:", "- a", "- b", "end: 1"]
    after = ["k:", "- a", "- c", "end: 1"]
    assert merge_edits(original, before, after) == [LineEdit(1, 3, ("- a", "- c"))]


def test_unchanged_file_gives_back_the_same_bytes() -> None:
    raw = b"# c\n---\napiVersion: v1\nkind: ConfigMap\ndata: {a: ~}\n...\n"
    file = EditableFile("x.yaml", raw)
    assert file.edits() == [] and file.result() is raw


def test_mixed_line_endings_and_missing_final_newline_are_kept() -> None:
    raw = b"a: 1\r\nb: 2\nc: 3"
    file = EditableFile("x.yaml", raw)
    file.documents[0]["c"] = 4
    assert file.result() == b"a: 1\r\nb: 2\nc: 4"


def test_json_stays_json_with_its_indentation() -> None:
    raw = b'{\n    "a": {"keep":   1},\n    "b": 2\n}\n'
    file = EditableFile("x.json", raw)
    assert file.is_json
    file.documents[0]["b"] = 3
    out = file.result()
    assert out == b'{\n    "a": {"keep":   1},\n    "b": 3\n}\n'
    assert json.loads(out) == {"a": {"keep": 1}, "b": 3}


def test_one_line_json_stays_one_valid_line() -> None:
    file = EditableFile("x.json", b'{"a":1,"b":[1,2]}')
    file.documents[0]["a"] = 2
    out = file.result()
    assert out == b'{"a":2,"b":[1,2]}'
    spaced = EditableFile("x.json", b'{"a": 1, "b": [1, 2]}\n')
    spaced.documents[0]["a"] = 2
    assert spaced.result() == b'{"a": 2, "b": [1, 2]}\n'


def test_indentation_is_detected() -> None:
    file = EditableFile("x.yaml", b"a:\n    b:\n        -   c: 1\n            d: 2\n")
    assert (file.indent, file.dash_offset, file.dash_gap) == (4, 4, 3)
    file = EditableFile("x.yaml", b"a:\n  b:\n  - c: 1\n")
    assert (file.indent, file.dash_offset, file.dash_gap) == (2, 0, 1)


def test_deleting_a_key_keeps_the_comment_lines_after_it() -> None:
    file = EditableFile("x.yaml", b"a: 1\nb: 2   # goes with b\n# about c\nc: 3\n")
    delete_key(file.documents[0], "b")
    assert file.result() == b"a: 1\n# about c\nc: 3\n"


def test_a_copy_edits_apart_and_says_when_it_would_lose_a_comment() -> None:
    plain = EditableFile("x.yaml", b"a: 1  # one\nb:\n  c: 2\n")
    twin = plain.copy()
    delete_key(twin.documents[0], "a")
    assert plain.copies_faithfully() and plain.edits() == [] and twin.edits() == [LineEdit(0, 1, ())]
    commented = EditableFile("x.yaml", b"a:\n  # above the first key\n  b: 1\n")
    assert not commented.copies_faithfully()


def test_an_item_of_a_list_reads_as_a_file_of_its_own_or_not_at_all() -> None:
    file = EditableFile("x.yaml", b"items:\n- a: 1\n  b: [2]\n# between\n- c: 3\n  d: 4\nkind: List\n")
    part = file.part(4, 6, 2)
    assert part is not None and part.text == "  c: 3\n  d: 4\n" and part.documents == [{"c": 3, "d": 4}]
    delete_key(part.documents[0], "d")
    assert part.edits() == [LineEdit(1, 2, ())]
    assert file.part(1, 4, 2) is None  # the comment at column 0 is outside the item's block
    assert file.part(2, 3, 2) is None  # not where an item starts
    assert EditableFile("x.json", b'{"items": [{"a": 1}]}').part(0, 1, 2) is None


def test_a_file_splits_into_its_documents_at_the_marker_lines_or_not_at_all() -> None:
    file = EditableFile("x.yaml", b"# head\n---\na: 1\n--- # two\nb: |\n  ---x\n---\n")
    assert file.document_lines() == [(0, 1), (2, 3), (4, 6), (7, 7)]
    part = file.part(4, 6)
    assert part is not None and part.documents == [{"b": "---x\n"}]
    for unsafe in (b"%YAML 1.2\n---\na: 1\n", b"a: 1\n...\n---\nb: 2\n", b"a: 1\n--- {b: 2}\n"):
        assert EditableFile("x.yaml", unsafe).document_lines() is None
    assert EditableFile("x.json", b'{"a": 1}').document_lines() is None
