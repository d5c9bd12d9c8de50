"""API012's migration made as line edits (``line_migration``) against the same fix made on
ruamel.yaml's tree: byte for byte where both keep the file's lines, the data always."""

from __future__ import annotations

import itertools

import pytest

import dralint.fix.runner as runner
from dralint.fix.convert import to_v1
from dralint.fix.document import LineEdit
from dralint.fix.line_migration import _reads_as, migration
from dralint.fix.runner import FileFix, fix_bytes
from dralint.lint.options import LintOptions
from dralint.yaml.loader import SourceText, load

HEAD = (
    "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata:\n  name: c\nspec:\n  devices:\n    requests:\n"
)


def _fixed_both_ways(text: str, monkeypatch) -> tuple[FileFix, FileFix, list[bool]]:
    """(by line edits where they apply, by ruamel.yaml alone, whether each document took the
    line edits); one process, so every document's choice is seen."""
    taken: list[bool] = []

    def spy(*args):
        found = migration(*args)
        taken.append(found is not None)
        return found

    options = LintOptions(profile="strict", jobs=1)
    with monkeypatch.context() as patch:
        patch.setattr(runner, "migration", spy)
        lines = fix_bytes("m.yaml", text.encode(), options)
    with monkeypatch.context() as patch:
        patch.setattr(runner, "migration", lambda *args: None)
        tree = fix_bytes("m.yaml", text.encode(), options)
    return lines, tree, taken


def _claim(indent: int, dash: str, order: tuple[str, ...], comments: bool, quoted: bool, template: bool) -> str:
    """A v1beta1 claim (or template) laid out with ``indent`` spaces a level and ``dash`` before
    each item's first key, its first request's keys in ``order``."""
    step = " " * indent
    inner = " " * len(dash)
    entries = {
        "name": ["name: gpu"],
        "deviceClassName": ["deviceClassName: gpu.example.com" + ("  # the class" if comments else "")],
        "count": (["# how many"] if comments else []) + ["count: 2"],
        "allocationMode": ["allocationMode: ExactCount"],
        "selectors": [
            "selectors:",
            dash + "cel:",
            inner + step + "expression: |",
            inner + step * 2 + "device.driver == 'gpu.example.com' &&",
            inner + step * 2 + "device.attributes['gpu.example.com'].model == 'LATEST'",
        ],
    }
    first = [line for key in order for line in entries[key]]
    requests = [dash + first[0], *(inner + line for line in first[1:]), dash + "name: b", inner + "deviceClassName: x"]
    api = '"resource.k8s.io/v1beta1"' if quoted else "resource.k8s.io/v1beta1"
    kind = "ResourceClaimTemplate" if template else "ResourceClaim"
    spec = ["spec:", step + "spec:"] if template else ["spec:"]
    depth = step * len(spec)
    body = [*spec, depth + "devices:", depth + step + "requests:", *(depth + step + line for line in requests)]
    return "\n".join([f"apiVersion: {api}  # old", f"kind: {kind}", "metadata:", step + "name: t", *body]) + "\n"


LAYOUTS = [(2, "- "), (4, "- "), (2, "  - "), (4, "-   ")]
ORDERS = [
    ("name", "deviceClassName", "count"),
    ("deviceClassName", "name", "count"),
    ("name", "selectors", "allocationMode", "deviceClassName"),
    ("deviceClassName", "count", "name", "selectors"),
]


@pytest.mark.parametrize(("indent", "dash"), LAYOUTS)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(("comments", "quoted", "template"), list(itertools.product([False, True], repeat=3)))
def test_line_edits_print_what_ruamel_prints(indent, dash, order, comments, quoted, template, monkeypatch) -> None:
    text = _claim(indent, dash, order, comments, quoted, template)
    lines, tree, taken = _fixed_both_ways(text, monkeypatch)
    assert taken == [True]
    assert lines.fixed == tree.fixed != text.encode()
    assert [r.description for r in lines.applied] == [r.description for r in tree.applied]


SAME = {
    "blank lines between keys": HEAD + "    - name: gpu\n\n      deviceClassName: x\n\n      count: 2\n",
    "a comment after the document": HEAD + "    - name: gpu\n      deviceClassName: x\n# end\n",
    "an item's dash alone on its line": HEAD + "    -\n      name: gpu\n      deviceClassName: x\n",
    "firstAvailable stays": HEAD
    + "    - name: gpu\n      firstAvailable:\n      - name: a\n        deviceClassName: x\n",
    "an unset field dropped": HEAD + "    - name: gpu\n      count: 0\n",
    "CR LF line ends": (HEAD + "    - name: gpu\n      deviceClassName: x  # c\n").replace("\n", "\r\n"),
    "an anchored value": HEAD
    + "    - name: a\n      deviceClassName: &c x\n    - name: b\n      deviceClassName: *c\n",
    "quoted keys": HEAD + "    - \"name\": gpu\n      'deviceClassName': x\n",
    "no final line end": HEAD + "    - name: gpu\n      deviceClassName: x",
    "a literal with a blank line": HEAD
    + "    - name: gpu\n      deviceClassName: x\n      selectors:\n      - cel:\n          expression: |\n"
    "            device.driver == 'x'\n\n            && true\n",
    "two documents": "---\n"
    + HEAD
    + "    - name: a\n      deviceClassName: x\n---\n"
    + HEAD
    + "    - name: b\n      deviceClassName: y\n",
    "a v1beta2 DeviceClass": "apiVersion: resource.k8s.io/v1beta2 # old\nkind: DeviceClass\nmetadata:\n  name: c\n",
}


@pytest.mark.parametrize("text", SAME.values(), ids=SAME.keys())
def test_unusual_block_shapes_too(text, monkeypatch) -> None:
    lines, tree, taken = _fixed_both_ways(text, monkeypatch)
    assert taken and all(taken)
    assert lines.fixed == tree.fixed != text.encode() and len(lines.applied) == len(tree.applied) >= 1
    assert not lines.rejected


KEPT = {
    # ruamel.yaml prints a flow list of one mapping as `[cel: {...}]`
    "a flow value": (
        "      selectors: [{cel: {expression: 'true'}}]\n",
        "      exactly:\n        deviceClassName: x\n        selectors: [{cel: {expression: 'true'}}]\n",
    ),
    # ruamel.yaml joins a plain scalar's lines
    "a plain scalar over two lines": (
        "      count:\n        2\n",
        "      exactly:\n        deviceClassName: x\n        count:\n          2\n",
    ),
    # ruamel.yaml moves a comment under the last key into the new mapping; here it stays put
    "a comment after the last key": (
        "      # trailing\n",
        "      exactly:\n        deviceClassName: x\n      # trailing\n",
    ),
    # ruamel.yaml cannot read a tab after a colon at all
    "a tab after a colon": ("      count:\t2\n", "      exactly:\n        deviceClassName: x\n        count:\t2\n"),
}


@pytest.mark.parametrize(("tail", "expected"), KEPT.values(), ids=KEPT.keys())
def test_line_edits_keep_lines_the_printer_would_rewrite(tail, expected, monkeypatch) -> None:
    text = HEAD + "    - name: gpu\n      deviceClassName: x\n" + tail
    lines, _, taken = _fixed_both_ways(text, monkeypatch)
    assert taken == [True]
    assert lines.fixed.decode() == HEAD.replace("v1beta1", "v1") + "    - name: gpu\n" + expected


DECLINED = {
    "a document indented as a whole": "".join(
        f"  {line}\n" for line in (HEAD + "    - name: gpu\n      deviceClassName: x\n").splitlines()
    ),
    "an aliased request": HEAD + "    - &r\n      name: gpu\n      deviceClassName: x\n    - *r\n",
    "a flow request": HEAD + "    - {name: gpu, deviceClassName: x}\n",
    "a v1beta1 slice's basic": "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata:\n  name: s\n"
    "spec:\n  driver: d\n  pool: {name: p, resourceSliceCount: 1}\n  nodeName: n\n  devices:\n"
    "  - name: d\n    basic:\n      attributes:\n        model: {string: a}\n",
}


@pytest.mark.parametrize("text", DECLINED.values(), ids=DECLINED.keys())
def test_what_is_not_a_matter_of_moving_lines_is_left_to_ruamel(text, monkeypatch) -> None:
    lines, tree, taken = _fixed_both_ways(text, monkeypatch)
    assert taken == [False]
    assert lines.fixed == tree.fixed != text.encode() and len(lines.applied) == 1


def test_edits_are_kept_only_when_they_read_as_the_conversion() -> None:
    """The read-back is what makes a line edit safe: an edit whose lines read as other data
    than ``convert`` gives is refused."""
    text = HEAD + "    - name: gpu\n      count: 2\n"
    document = load(SourceText("m.yaml", text)).documents[0]
    lines = text.split("\n")
    expected = to_v1(document.data)
    found = migration(lines, document, 2)
    assert found is not None and _reads_as(lines, document, found.edits, expected)
    wrong = [
        *found.edits[:-1],
        LineEdit(found.edits[-1].start, found.edits[-1].end, ("    - name: gpu", "      count: 2")),
    ]
    assert not _reads_as(lines, document, wrong, expected)
