"""`kubectl get -o json` dumps are read like their YAML form (issue 47): a JSON List over the
document limit is read item by item, up to --max-file-size; a 31 MiB one got a single YAML008."""

from __future__ import annotations

import json

import pytest

from dralint.lint.engine import run
from dralint.lint.options import LintOptions
from dralint.yaml import loader
from dralint.yaml.loader import SourceText, load
from dralint.yaml.sources import SourceFile


def _pod(i: int) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"p-{i}", "namespace": "a", "uid": f"u-{i}"},
        "spec": {"containers": [{"name": "c", "image": "registry.example/app:1.0"}]},
    }


def _dump(items: list, kind: str = "List", indent: int | None = 4) -> str:
    return json.dumps(
        {"apiVersion": "v1", "items": items, "kind": kind, "metadata": {"resourceVersion": ""}}, indent=indent
    )


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(loader, "MAX_DOCUMENT_CHARS", 600)


@pytest.mark.parametrize("indent", [4, None])
def test_a_json_list_over_the_limit_is_read_item_by_item(small_limit, indent):
    text = _dump([_pod(i) for i in range(20)], indent=indent)
    assert len(text) > loader.MAX_DOCUMENT_CHARS
    result = load(SourceText("dump.json", text), lists=True)
    assert result.problems == []
    assert [d.data for d in result.documents] == [_pod(i) for i in range(20)]
    last = result.documents[-1]
    span = last.locate(("metadata", "uid"))
    line = text.split("\n")[span.line - 1]
    assert line[span.column - 1 :].startswith('"u-19"')


@pytest.mark.parametrize(
    "text",
    [
        _dump([_pod(0), {"big": "x" * 700}]),  # an item over the limit
        _dump([_pod(i) for i in range(20)], kind="PodList")[:-40],  # truncated
        json.dumps({"kind": "Pod", "metadata": {"name": "x" * 700}}),  # no List
        json.dumps({"items": [_pod(i) for i in range(20)], "kind": "Pod"}),  # items, but no List
        json.dumps({"kind": "List", "items": [_pod(i) for i in range(20)], "metadata": {"a": "x" * 700}}),  # rest
    ],
)
def test_a_large_json_document_that_is_no_readable_list_is_skipped_unread(small_limit, text):
    result = load(SourceText("dump.json", text), lists=True)
    assert [p.kind for p in result.problems][:1] == ["too-large"] and result.documents == []


def test_a_json_dump_gets_the_findings_of_its_yaml_form_at_its_own_lines(small_limit):
    text = _dump([_pod(i) for i in range(12)])
    result = run([SourceFile("dump.json", text)], LintOptions(profile="strict", jobs=1))
    uids = [d for d in result.diagnostics if d.rule == "API016" and d.field == "metadata.uid"]
    assert len(uids) == 12 and not [d for d in result.diagnostics if d.rule == "YAML008"]
    lines = text.split("\n")
    assert all(lines[d.span.line - 1].strip().startswith('"uid"') for d in uids)
