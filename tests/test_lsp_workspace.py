"""The language server's parts in-process: the workspace a document is linted against
(unchanged files are parsed once, a changed file alone again, skipped files get nothing), and
the cursor and actions on any YAML."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import YAML_TEST_SUITE, require
from test_lsp import CLASS, TEMPLATE

from dralint.diagnostics import Diagnostic, Severity, Span
from dralint.lint import engine
from dralint.lsp import cursor, features
from dralint.lsp.workspace import Workspace


def test_a_lint_parses_only_the_document_and_a_change_only_the_changed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the workspace works from its folder, as `dralint lint` would
    for number in range(5):
        (tmp_path / f"class-{number}.yaml").write_text(CLASS.replace("gpu.acme.internal", f"c{number}.acme.internal"))
    (tmp_path / "class.yaml").write_text(CLASS)
    (tmp_path / "claim.yaml").write_text(TEMPLATE)
    parsed: list[str] = []
    real_load = engine.load

    def counting(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        parsed.append(source.path)
        return real_load(source, *args, **kwargs)

    monkeypatch.setattr(engine, "load", counting)
    space = Workspace(str(tmp_path), lambda _: None)
    space.load()
    assert sorted(parsed) == sorted(p.name for p in tmp_path.glob("*.yaml"))
    parsed.clear()
    resolved = space.lint("claim.yaml", TEMPLATE)
    assert parsed == ["claim.yaml"]
    assert not [d for d in resolved.diagnostics if d.rule.startswith("REF")]
    parsed.clear()
    (tmp_path / "class.yaml").unlink()
    space.changed(str(tmp_path / "class.yaml"))
    assert parsed == []  # a deleted file is dropped, nothing read
    missing = space.lint("claim.yaml", TEMPLATE)
    assert parsed == ["claim.yaml"]
    assert [d for d in missing.diagnostics if d.rule.startswith("REF")]
    parsed.clear()
    (tmp_path / "class.yaml").write_text(CLASS)
    space.changed(str(tmp_path / "class.yaml"))
    assert parsed == ["class.yaml"]


def test_a_class_of_another_environment_does_not_resolve_a_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workspace is a repository of clusters as `dralint lint .` sees it (docs/environments.md)."""
    monkeypatch.chdir(tmp_path)
    for directory in ("clusters/prod", "clusters/staging"):
        (tmp_path / directory).mkdir(parents=True)
    (tmp_path / "clusters/staging/class.yaml").write_text(CLASS)
    (tmp_path / "clusters/prod/claim.yaml").write_text(TEMPLATE)
    space = Workspace(str(tmp_path), lambda _: None)
    space.load()
    found = [d for d in space.lint("clusters/prod/claim.yaml", TEMPLATE).diagnostics if d.rule.startswith("REF")]
    assert found and all("(environment prod)" in d.message for d in found)
    (tmp_path / "clusters/prod/class.yaml").write_text(CLASS)
    space.changed(str(tmp_path / "clusters/prod/class.yaml"))
    assert not [d for d in space.lint("clusters/prod/claim.yaml", TEMPLATE).diagnostics if d.rule.startswith("REF")]


def test_a_file_lint_skips_gets_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".dralint.yaml").write_text("exclude: [vendor]\n")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "claim.yaml").write_text(TEMPLATE)
    space = Workspace(str(tmp_path), lambda _: None)
    space.load()
    assert space.files == {}
    assert space.lint("vendor/claim.yaml", TEMPLATE).diagnostics == []
    assert space.lint(".dralint.yaml", "exclude: [vendor]\n").diagnostics == []
    (tmp_path / "claim.yaml").write_text(TEMPLATE)
    assert [d.rule for d in space.lint("claim.yaml", TEMPLATE).diagnostics if d.rule.startswith("REF")]


def test_no_yaml_test_suite_input_breaks_the_cursor_or_the_suppression_action() -> None:
    """Hover, completion and "suppress" read the editor's text as it is, half-typed or odd:
    every input of the YAML test suite, at the start and end of each line."""
    require(YAML_TEST_SUITE, "the YAML test suite")
    inputs = sorted(YAML_TEST_SUITE.rglob("in.yaml"))
    assert inputs
    for path in inputs:
        text = path.read_text(encoding="utf-8", errors="replace")
        docs = cursor.documents(str(path), text)
        for number, line in enumerate(text.split("\n")[:40]):
            cursor.completing_line(line)
            for column in (0, len(line)):
                at = cursor.string_at(docs, number, column)
                if at is not None and at.offset is not None:
                    cursor.completing_cel(at.value, at.offset)
                    cursor.field_at(at.value, at.offset)
        finding = Diagnostic("YAML001", "syntax", Severity.ERROR, "x", Span(str(path), 1, 1, 1, 2))
        features.suppress_action(finding, text)


@pytest.mark.parametrize(
    "value",
    [
        "expression: device.driver == 'a.b'",
        'expression: \'device.driver == "a.b" &&\n  device.attributes["a.b"].x\'',
        "expression: \"device.driver == 'a.b'\"",
        'expression: |\n  device.driver == "a.b" &&\n\n  device.attributes["a.b"].model == "m"\n',
        'expression: >-\n  device.driver == "a.b" &&\n  device.attributes["a.b"].x\n',
    ],
    ids=["plain", "single-quoted", "double-quoted", "literal", "folded"],
)
def test_cursor_offsets_in_a_cel_string_are_the_reverse_of_its_spans(value: str) -> None:
    """``scalar_offset_at`` undoes ``scalar_offset_span``, the map the CEL findings use."""
    text = f"apiVersion: v1\nkind: X\nmetadata: {{name: x}}\nspec:\n  {value.replace(chr(10), chr(10) + '  ')}\n"
    (doc,) = cursor.documents("x.yaml", text)
    path = ("spec", "expression")
    expression = doc.data["spec"]["expression"]
    for offset, char in enumerate(expression):
        if char == "\n":
            continue  # a line break maps to where it was read (for a folded one, a space of the file)
        span = doc.scalar_offset_span(path, offset)
        assert doc.scalar_offset_at(path, span.line - 1, span.column - 1) == offset
    end = doc.scalar_offset_span(path, len(expression.rstrip("\n")) - 1)
    after = doc.scalar_offset_at(path, end.line - 1, end.column)
    assert after is not None and expression[:after].rstrip("\n") == expression.rstrip("\n")
    assert doc.scalar_offset_at(path, 0, 0) is None  # apiVersion is not in the string


SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.nvidia.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      productName: {string: H100}
"""


def test_context_and_snapshot_outside_the_folder_follow_their_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, shared = tmp_path / "repo", tmp_path / "shared"
    root.mkdir(), shared.mkdir()
    monkeypatch.chdir(root)
    (root / ".dralint.yaml").write_text("context: [../shared]\nslices: [../cluster.yaml]\n")
    (shared / "class.yaml").write_text(CLASS)
    (tmp_path / "cluster.yaml").write_text(SLICE)
    space = Workspace(str(root), lambda _: None)
    space.load()
    assert [obj.kind for obj in space.cluster] == ["ResourceSlice"]
    assert not [d for d in space.lint("template.yaml", TEMPLATE).diagnostics if d.rule.startswith("REF")]
    (shared / "class.yaml").unlink()
    space.changed(str(shared / "class.yaml"))
    assert [d for d in space.lint("template.yaml", TEMPLATE).diagnostics if d.rule.startswith("REF")]
    (tmp_path / "cluster.yaml").write_text(SLICE + "---\n" + SLICE.replace("node-1", "node-2"))
    space.changed(str(tmp_path / "cluster.yaml"))
    assert [obj.name for obj in space.cluster] == ["node-1-gpus", "node-2-gpus"]
