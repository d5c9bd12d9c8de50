"""The YAML 1.2 strictness pass: each class of error libyaml accepts, located exactly, and the
valid neighbours of each class left alone."""

from __future__ import annotations

import pytest
import yaml
from conftest import lint_text
from hypothesis import given, settings
from hypothesis import strategies as st

from dralint.yaml.loader import SourceText, load
from dralint.yaml.strict import may_need_check, strict_problems


def syntax(text: str) -> list[tuple[int, int]]:
    """1-based (line, column) of the syntax findings of ``text``."""
    return sorted(
        (p.line + 1, p.column + 1)
        for p in load(SourceText("t.yaml", text)).problems
        if p.kind in ("syntax", "yaml-1.2")
    )


def case(name: str, text: str, *where: tuple[int, int]):
    return pytest.param(text, list(where), id=name)


#: Each class of error, with the exact 1-based positions it must be reported at.
ERRORS = [
    case("comment-after-double-quote", 'name: "gpu"# the model\n', (1, 12)),
    case("comment-after-single-quote", "name: 'gpu'# the model\n", (1, 12)),
    case("comment-after-flow-sequence", "args: [a, b]#list\n", (1, 13)),
    case("comment-after-flow-mapping", "labels: {app: x}#map\n", (1, 17)),
    case("comment-after-comma", "args: [a,#first\n  b]\n", (1, 10)),
    case("comment-after-bracket", "args: [#first\n  b]\n", (1, 8)),
    case("comment-after-literal-header", "script: |#shell\n  echo hi\n", (1, 10)),
    case("comment-after-folded-header", "script: >-#folded\n  echo hi\n", (1, 11)),
    case("comment-after-directive", "%YAML 1.2#version\n---\na: 1\n", (1, 10)),
    case("directive-after-bare-document", "a: 1\n%YAML 1.2\n---\nb: 2\n", (2, 1)),
    case("directive-after-explicit-document", "%YAML 1.2\n---\na: 1\n%YAML 1.2\n---\nb: 2\n", (4, 1)),
    case("directive-after-empty-document", "---\n%TAG ! tag:example.com,2000:\n---\na: 1\n", (2, 1)),
    case("dash-alone-in-flow", "items: [-]\n", (1, 9)),
    case("dashes-in-flow", "- [-, -]\n", (1, 4), (1, 7)),
    case("dash-as-flow-value", "m: {a: -}\n", (1, 8)),
    case("flow-line-at-column-one", "args: [a,\nb,\n  c]\n", (2, 1)),
    case("flow-line-at-parent-column", "spec:\n  args: [a,\n  b]\n", (3, 3)),
    case("flow-line-in-compact-sequence", "- - [a,\n  b,\n   c]\n", (2, 3)),
    case("flow-line-indented-by-tab", "- [\n\tfoo,\n foo\n ]\n", (2, 1)),
    case("quoted-line-at-column-one", 'msg: "one\ntwo"\n', (2, 1)),
    case("quoted-line-at-parent-column", "spec:\n  msg: 'one\n  two'\n", (3, 3)),
    case("quoted-line-indented-by-tab", 'msg: "one\n\ttwo"\n', (2, 1)),
    case("block-scalar-wide-empty-line", "s: >\n \n  \n   \n # content\n", (4, 2)),
    # libyaml takes the 5 spaces as the indentation and then fails on line 4: both are reported
    case("block-scalar-wide-empty-line-then-text", "s: |\n\n     \n   text\n", (3, 4), (4, 4)),
]

#: The valid neighbours of each class: nothing to report.
FINE = [
    'name: "gpu" # the model\n',
    "url: http://example.com/#anchor\n",
    "color: '#ff0000'\n",
    'tag: "a#b"\n',
    "args: [a, b] # list\n",
    "args: [a, b#c]\n",
    "script: | # shell\n  echo '#'\n",
    "key: value\n  %not a directive, a continuation line\n",
    "a: 1\n...\n%YAML 1.2\n---\nb: 2\n",
    "%YAML 1.2\n%TAG !e! tag:example.com,2000:\n---\na: 1\n",
    "items: [-1, -a, \"-\", '-']\n",
    "- -1\n- a-]\n",
    "args: [a,\n b,\n   c]\n",
    "spec:\n  args: [a,\n   b\n   ]\n",
    "args: [a,\n\n# a comment at column one\n  b]\n",
    '{"a": [1,\n2],\n"b": {"c":\n3}}\n',
    "[a,\n\tb]\n",
    'msg: "one\n two\n\n  three"\n',
    "- 'one\n  two'\n",
    '"top level\nscalar"\n',
    "s: |\n\n  \n   text\n",
    "s: |2\n\n     \n  text\n",
    "s: |\n    \nt: 1\n",
]


@pytest.mark.parametrize(("text", "where"), ERRORS)
def test_error_is_reported_at_its_position(text, where):
    assert syntax(text) == where


@pytest.mark.parametrize("text", FINE)
def test_valid_neighbour_is_left_alone(text):
    assert syntax(text) == []


def test_strict_finding_is_reported_as_yaml012_warning(tmp_path):
    manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "1"#one\n'
    result = lint_text(tmp_path, manifest)
    (diag,) = [d for d in result.diagnostics if d.rule == "YAML012"]
    assert diag.severity.value == "warning"
    assert not [d for d in result.diagnostics if d.rule == "YAML001"]
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


_SCALARS = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab -#:'\"\\[]{},|>%&*!?\n\té")), max_size=25),
    st.integers(),
    st.booleans(),
    st.none(),
)
_TREES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(alphabet="abc-#%", min_size=1, max_size=6), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    data=_TREES,
    flow=st.sampled_from([None, True, False]),
    style=st.sampled_from([None, '"', "'", "|", ">"]),
    width=st.integers(5, 40),
    indent=st.integers(2, 5),
    explicit_end=st.booleans(),
)
def test_emitted_yaml_in_every_style_has_no_strict_finding(data, flow, style, width, indent, explicit_end):
    """A serializer's output (narrow widths force multi-line quoted and flow nodes) is valid."""
    text = yaml.dump_all(
        [data, data],
        Dumper=yaml.SafeDumper,
        default_flow_style=flow,
        default_style=style,
        width=width,
        indent=indent,
        allow_unicode=True,
        explicit_end=explicit_end,
    )
    assert strict_problems(text) == []
