"""The YAML 1.2 strictness pass: each class of error libyaml accepts, located exactly, and the
valid neighbours of each class left alone."""

from __future__ import annotations

import pytest

from conftest import lint_text
from dralint.yamlload import SourceText, load
from dralint.yamlstrict import may_need_check, strict_problems


def syntax(text: str) -> list[tuple[int, int]]:
    """1-based (line, column) of the syntax findings of ``text``."""
    return sorted((p.line + 1, p.column + 1) for p in load(SourceText("t.yaml", text)).problems if p.kind == "syntax")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('name: "gpu"# the model\n', [(1, 12)]),
        ("name: 'gpu'# the model\n", [(1, 12)]),
        ("args: [a, b]#list\n", [(1, 13)]),
        ("labels: {app: x}#map\n", [(1, 17)]),
        ("args: [a,#first\n  b]\n", [(1, 10)]),
        ("args: [#first\n  b]\n", [(1, 8)]),
        ("script: |#shell\n  echo hi\n", [(1, 10)]),
        ("script: >-#folded\n  echo hi\n", [(1, 11)]),
        ("%YAML 1.2#version\n---\na: 1\n", [(1, 10)]),
    ],
)
def test_comment_glued_to_a_token(text, where):
    assert syntax(text) == where


@pytest.mark.parametrize(
    "text",
    [
        'name: "gpu" # the model\n',
        "url: http://example.com/#anchor\n",
        "color: '#ff0000'\n",
        'tag: "a#b"\n',
        "args: [a, b] # list\n",
        "args: [a, b#c]\n",
        "script: | # shell\n  echo '#'\n",
        "key: value\n  %not a directive, a continuation line\n",
    ],
)
def test_comment_with_whitespace_or_hash_inside_a_scalar_is_fine(text):
    assert syntax(text) == []


def test_directive_in_an_open_document():
    assert syntax("a: 1\n%YAML 1.2\n---\nb: 2\n") == [(2, 1)]
    assert syntax("%YAML 1.2\n---\na: 1\n%YAML 1.2\n---\nb: 2\n") == [(4, 1)]
    assert syntax("---\n%TAG ! tag:example.com,2000:\n---\na: 1\n") == [(2, 1)]


def test_directive_after_document_end_marker_is_fine():
    assert syntax("a: 1\n...\n%YAML 1.2\n---\nb: 2\n") == []
    assert syntax("%YAML 1.2\n%TAG !e! tag:example.com,2000:\n---\na: 1\n") == []


def test_plain_dash_before_a_flow_indicator():
    assert syntax("items: [-]\n") == [(1, 9)]
    assert syntax("- [-, -]\n") == [(1, 4), (1, 7)]
    assert syntax("m: {a: -}\n") == [(1, 8)]


def test_dash_that_starts_a_word_or_is_quoted_is_fine():
    assert syntax('items: [-1, -a, "-", \'-\']\n') == []
    assert syntax("- -1\n- a-]\n") == []


def test_under_indented_flow_collection_lines():
    assert syntax("args: [a,\nb,\n  c]\n") == [(2, 1)]
    assert syntax("spec:\n  args: [a,\n  b]\n") == [(3, 3)]
    assert syntax("- - [a,\n  b,\n   c]\n") == [(2, 3)]
    assert syntax("- [\n\tfoo,\n foo\n ]\n") == [(2, 1)]


def test_flow_collection_lines_indented_past_the_parent_are_fine():
    assert syntax("args: [a,\n b,\n   c]\n") == []
    assert syntax("spec:\n  args: [a,\n   b\n   ]\n") == []
    assert syntax("args: [a,\n\n# a comment at column one\n  b]\n") == []
    assert syntax('{"a": [1,\n2],\n"b": {"c":\n3}}\n') == []
    assert syntax("[a,\n\tb]\n") == []


def test_under_indented_multi_line_quoted_scalar():
    assert syntax('msg: "one\ntwo"\n') == [(2, 1)]
    assert syntax("spec:\n  msg: 'one\n  two'\n") == [(3, 3)]
    assert syntax('msg: "one\n\ttwo"\n') == [(2, 1)]


def test_multi_line_quoted_scalar_indented_past_the_parent_is_fine():
    assert syntax('msg: "one\n two\n\n  three"\n') == []
    assert syntax("- 'one\n  two'\n") == []
    assert syntax('"top level\nscalar"\n') == []


def test_block_scalar_with_over_indented_leading_empty_line():
    assert syntax("s: >\n \n  \n   \n # content\n") == [(4, 2)]
    # libyaml takes the 5 spaces as the indentation and then fails on line 4: both are reported
    assert syntax("s: |\n\n     \n   text\n") == [(3, 4), (4, 4)]


def test_block_scalar_leading_empty_lines_within_the_indentation_are_fine():
    assert syntax("s: |\n\n  \n   text\n") == []
    assert syntax("s: |2\n\n     \n  text\n") == []
    assert syntax("s: |\n    \nt: 1\n") == []


def test_strict_finding_is_reported_as_yaml001(tmp_path):
    manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "1"#one\n'
    result = lint_text(tmp_path, manifest)
    (diag,) = [d for d in result.diagnostics if d.rule == "YAML001"]
    assert (diag.span.line, diag.span.column, diag.span.end_line, diag.span.end_column) == (6, 9, 6, 10)
    assert "whitespace before '#'" in diag.message


def test_problems_after_a_libyaml_error_are_not_double_reported():
    text = "a: [1,\n2]\nb: : c\n---\nd: [3,\n4]\n"
    assert syntax(text) == [(2, 1), (3, 4), (6, 1)]
    assert len(load(SourceText("t.yaml", text)).problems) == 3


def test_scanner_error_ends_the_pass_quietly():
    """Findings before a scanner error are kept; the error itself is the loader's to report."""
    assert [offset for offset, _ in strict_problems('a: "x"#c\nb: @x\nc: "y"#d\n')] == [6]
    assert strict_problems("a: [1, 2\n") == []


def test_precondition_is_false_for_an_ordinary_manifest():
    manifest = (
        "# A comment\napiVersion: v1\nkind: Pod\nmetadata:\n  name: x  # trailing\n"
        "  labels: {app: x}\nspec:\n  containers:\n  - name: c\n    args: [\"--a\", '-b']\n"
        "    command:\n    - sh\n    - -c\n    - |\n      echo hi # not a comment\n"
    )
    assert not may_need_check(manifest)
