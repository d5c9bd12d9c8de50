"""Targets, suggestions, the re-lint guard and the SARIF replacement regions."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lint_text
from positions import line_lengths, outside

import dralint.fix.fixers as fix_registry
import dralint.fix.runner as runner
from dralint.diagnostics import Diagnostic, ObjectRef, Severity, Span
from dralint.fix.document import EditableFile
from dralint.fix.fixers import fixers, known_fields, single_suggestion
from dralint.fix.runner import (
    FixRecord,
    _Regions,
    apply_fixes,
    fix_bytes,
    fix_replacements,
    fixable_rules,
    new_errors,
    path_at,
)
from dralint.lint.catalog import load_catalog
from dralint.lint.engine import run
from dralint.lint.options import LintOptions
from dralint.yaml.loader import SourceText, load
from dralint.yaml.sources import SourceFile

MANIFEST = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: one-gpu
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
"""


def test_every_fix_has_a_fixable_catalog_entry_and_back() -> None:
    catalog = load_catalog()
    assert set(fixers()) == {rule.id for rule in catalog.values() if rule.fixable}
    assert fixable_rules() == set(fixers())


def test_path_at_prefers_the_key_and_the_deepest_path() -> None:
    document = load(SourceText("m.yaml", MANIFEST)).documents[0]
    assert path_at(document, Span("m.yaml", 1, 13, 1, 36)) == ("apiVersion",)
    assert path_at(document, Span("m.yaml", 8, 7, 8, 11)) == ("spec", "devices", "requests", 0, "name")
    assert path_at(document, Span("m.yaml", 9, 7, 9, 22)) == ("spec", "devices", "requests", 0, "deviceClassName")
    assert path_at(document, Span("m.yaml", 2, 2, 2, 3)) is None


def test_single_suggestion_refuses_ambiguity() -> None:
    assert single_suggestion("DeviceClassName", ["count", "deviceClassName"]) == "deviceClassName"
    assert single_suggestion("cuont", ["count", "selectors"]) == "count"
    assert single_suggestion("nodeNames", ["nodeName", "nodeNamed"]) is None
    assert single_suggestion("frobnicate", ["count"]) is None


def test_known_fields_follow_the_schema_down_the_path() -> None:
    fields = known_fields("resource.k8s.io/v1", "ResourceClaim", ("spec", "devices", "requests", 0, "exactly"))
    assert {"deviceClassName", "count", "selectors", "allocationMode"} <= set(fields)
    assert "exactly" in known_fields("resource.k8s.io/v1", "ResourceClaim", ("spec", "devices", "requests", 0))
    assert known_fields("example.com/v1", "Widget", ("spec",)) is None


def _diag(rule: str, name: str, severity: Severity = Severity.ERROR, line: int = 1) -> Diagnostic:
    return Diagnostic(
        rule, "n", severity, "m", Span("f", line, 1, line, 2), object=ObjectRef("v1", "Pod", "default", name)
    )


def test_new_errors_count_per_rule_and_object_not_position(tmp_path: Path) -> None:
    before = lint_text(tmp_path, MANIFEST)
    after = lint_text(tmp_path, MANIFEST)
    assert new_errors(before, after) == []
    before.diagnostics[:] = [_diag("API002", "a", line=3)]
    after.diagnostics[:] = [
        _diag("API002", "a", line=9),
        _diag("API002", "b"),
        _diag("API003", "a"),
        _diag("API009", "a", Severity.WARNING),
    ]
    assert [(d.rule, d.object.name) for d in new_errors(before, after)] == [("API002", "b"), ("API003", "a")]
    resolved = [_diag("API002", "a", line=3)]
    assert [(d.rule, d.object.name, d.span.line) for d in new_errors(before, after, resolved)] == [
        ("API002", "a", 9),
        ("API002", "b", 1),
        ("API003", "a", 1),
    ]


def test_rule_filter_limits_the_fixes() -> None:
    text = MANIFEST.replace("  name: one-gpu\n", "  name: one-gpu\n  labbels: {a: b}\n")
    only_typos = fix_bytes("m.yaml", text.encode(), LintOptions(profile="strict"), {"API001"})
    assert only_typos.fixed.decode() == text.replace("labbels", "labels")
    both = fix_bytes("m.yaml", text.encode(), LintOptions(profile="strict"))
    assert [r.rule for r in both.applied] == ["API001", "API012"]
    assert b"apiVersion: resource.k8s.io/v1\n" in both.fixed and b"exactly:" in both.fixed


def test_typo_inside_v1beta1_basic_is_fixed_before_the_lift() -> None:
    text = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: d0
    basic:
      attribtues:
        model: {string: a100}
"""
    outcome = fix_bytes("m.yaml", text.encode(), LintOptions(profile="strict"))
    assert outcome.fixed.decode().endswith("  - name: d0\n    attributes:\n      model: {string: a100}\n")
    assert {r.rule for r in outcome.applied} == {"API001", "API012"}


REGION_TEXTS = {
    "no final line end": MANIFEST + "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: g}\n"
    "spec:\n  extendedResouceName: example.com/gpu",
    "a final line end": MANIFEST + "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: g}\n"
    "spec:\n  extendedResouceName: example.com/gpu\n",
    "the last line removed": "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: g\n  uid: u\n",
    "the last line moved": MANIFEST,
}


@pytest.mark.parametrize("text", REGION_TEXTS.values(), ids=REGION_TEXTS.keys())
def test_replacements_reproduce_the_fix_region_by_region(text) -> None:
    """Each fix's regions give what `fix` writes, and lie inside the file: a region that
    reaches the end ended one line past the last (8 lines of 9, the end at 10:1)."""
    result = run([SourceFile("m.yaml", text)], LintOptions(profile="strict"))
    regions = fix_replacements(result)
    assert regions
    lines = text.split("\n")
    lengths = line_lengths(text)
    for diag, replacements in regions.items():
        fixed = fix_bytes("m.yaml", text.encode(), LintOptions(profile="strict"), {diag.rule}).fixed.decode()
        assert _apply(lines, replacements) == fixed
        for replacement in replacements:
            region = replacement.region
            assert outside(lengths, region.line, region.column, region.end_line, region.end_column) is None


def _each_read_afresh(result) -> dict:
    """``fix_replacements`` by its definition: each fix made alone on the file read again."""
    out = {}
    for diag in result.diagnostics:
        if diag.rule in fixable_rules():
            single = apply_fixes(diag.span.path, result.sources[diag.span.path].text.encode(), [diag])
            if single.applied and single.edits:
                out[diag] = _Regions(result.sources[diag.span.path].text).of(diag.span.path, single.edits)
    return out


def _claims(count: int, version: str, comment: str, prefix: str) -> list[str]:
    """ResourceClaims with a server-written uid (API016), each as a list of lines."""
    return [
        [
            f"apiVersion: resource.k8s.io/{version}",
            "kind: ResourceClaim",
            f"metadata: {{name: {prefix}{i}, uid: u{i}}}",
            "spec:",
            *([comment] if comment else []),
            "  devices: {}",
        ]
        for i in range(count)
    ]


def _written(form: str, comment: str, prefix: str) -> str:
    if form == "documents":
        return "---\n".join("".join(line + "\n" for line in claim) for claim in _claims(9, "v1", comment, prefix))
    version = "v1beta1" if form == "list of old versions" else "v1"
    items = "".join("- " + "\n  ".join(claim) + "\n" for claim in _claims(9, version, comment, prefix))
    return f"apiVersion: v1\nkind: List\nitems:\n{items}"


@pytest.mark.parametrize("form", ["list", "list of old versions", "documents"])
@pytest.mark.parametrize("comment", ["", "  # above the first key"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_each_fix_is_made_alone_on_one_read_of_the_file(form, comment, jobs, monkeypatch) -> None:
    """A fix inside a List item is made on the item alone, unless it edits the item's first
    line; a fix in a file of several documents on its document alone; any other on a copy of
    one read of the file, or on a fresh read when a copy would lose a comment; fixes are
    shared among the workers. Each gives what it gives on the file
    read for it alone."""
    made: set[tuple[str, int]] = set()  # (rule, column of the part it was made on: 0 for a document)
    part_fixed = runner._part_fixed
    monkeypatch.setattr(
        runner,
        "_part_fixed",
        lambda file, start, stop, column, diagnostics: (
            made.update((d.rule, column) for d in diagnostics) or part_fixed(file, start, stop, column, diagnostics)
        ),
    )
    sources = [
        SourceFile("dump.yaml", _written(form, comment, "c")),
        SourceFile("other.yaml", _written(form, comment, "d")),
    ]
    result = run(sources, LintOptions(profile="strict", jobs=jobs))
    regions = fix_replacements(result)
    assert regions == _each_read_afresh(result)
    assert len({d.rule for d in regions}) == (2 if form == "list of old versions" else 1) and len(regions) >= 18
    if jobs == 1:  # API012 rewrites apiVersion, on the item's first line: it is made on the whole file
        assert (
            made
            == {
                "list": {("API016", 2)},
                "list of old versions": {("API016", 2), ("API012", 2)},
                "documents": {("API016", 0)},
            }[form]
        )


def _apply(lines: list[str], replacements) -> str:
    """Apply line/column regions (1-based, end exclusive) to text, last region first."""
    text = "\n".join(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    for replacement in sorted(replacements, key=lambda r: (r.region.line, r.region.column), reverse=True):
        region = replacement.region
        start = starts[region.line - 1] + region.column - 1
        end = starts[region.end_line - 1] + region.end_column - 1
        text = text[:start] + replacement.text + text[end:]
    return text


def test_fix_records_carry_the_diagnostic_position() -> None:
    outcome = fix_bytes("m.yaml", MANIFEST.encode(), LintOptions(profile="strict"))
    assert outcome.applied == [
        FixRecord(
            "API012",
            1,
            13,
            "apiVersion resource.k8s.io/v1beta1 -> resource.k8s.io/v1; request 0: deviceClassName moved under exactly",
        )
    ]


@pytest.mark.parametrize("where", ["registered fix", "line edits"])
def test_a_crashing_fix_leaves_the_file_alone(where, monkeypatch) -> None:
    """Either way of making the fix (``line_migration`` first, the registered fix on ruamel.yaml's
    tree when that declines) turns a bug into the file's problem, not a traceback."""

    def crash(*args):
        raise RuntimeError("boom")

    if where == "line edits":
        monkeypatch.setattr(runner, "migration", crash)
    else:
        monkeypatch.setattr(runner, "migration", lambda *args: None)
        monkeypatch.setitem(fix_registry._FIXERS, "API012", crash)
    outcome = fix_bytes("m.yaml", MANIFEST.encode(), LintOptions(profile="strict"))
    assert not outcome.changed and not outcome.applied
    assert outcome.problem == "internal error in the API012 fix, please report it: RuntimeError: boom"


def test_a_fix_that_trades_its_error_for_another_on_the_same_object_is_rejected() -> None:
    text = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: g}
spec:
  Selectors:
  - cell: {expression: "true"}
"""
    outcome = fix_bytes("m.yaml", text.encode(), LintOptions(profile="strict"))
    assert not outcome.changed
    assert [(r.rule, r.description) for r in outcome.rejected] == [("API001", "Selectors renamed to selectors")]
    assert 'unknown field "spec.selectors[0].cell"' in outcome.rejected[0].reason


def test_a_finding_uncovered_by_a_fix_is_fixed_in_the_next_pass() -> None:
    text = MANIFEST.replace("v1beta1", "v1").replace(
        "      deviceClassName: gpu.example.com\n", "      exactly: {deviceClassName: gpu.example.com}\n"
    )
    text += "Status:\n  reservedFor:\n  - {resource: pods, name: trainer, uid: 5c6f7a1e-0b7e-4d4e-9a53-2f0d7c1b9e11}\n"
    outcome = fix_bytes("m.yaml", text.encode(), LintOptions(profile="strict"))
    assert [(r.rule, r.description) for r in outcome.applied] == [
        ("API001", "Status renamed to status"),
        ("API016", "status removed"),
    ]
    assert outcome.fixed.decode() == text[: text.index("Status:")]


def test_a_basic_that_is_not_a_mapping_is_reported_and_other_fixes_still_apply() -> None:
    # lift_keys used to index a list or string `basic` as a mapping: the IndexError/TypeError
    # became an internal error and no fix in the file was applied.
    for value in ("[1]", "gpu", "[a, b]"):
        text = f"""\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: s}}
spec:
  driver: d.example.com
  pool: {{name: p, generation: 1, resourceSliceCount: 1}}
  allNodes: true
  devices:
  - name: d0
    basic: {value}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: g}}
spec:
  extendedResouceName: example.com/gpu
"""
        outcome = fix_bytes("m.yaml", text.encode(), LintOptions(profile="strict"))
        assert outcome.problem is None, value
        assert [(r.rule, r.description) for r in outcome.applied] == [
            ("API001", "extendedResouceName renamed to extendedResourceName")
        ]
        assert [(r.rule, r.line, r.reason) for r in outcome.rejected] == [
            ("API001", 10, "`basic` is not a mapping, so there are no device fields to lift out of it; fix it by hand")
        ]
        assert f"    basic: {value}\n" in outcome.fixed.decode()


SLICE = """apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata:
  name: s-{i}
spec:
  driver: gpu.example.com
  pool: {{name: p, resourceSliceCount: 1}}
  nodeName: n
  devices:
  - name: d
    basic:
      attributes:
        model: {{string: a}}
"""


@pytest.mark.parametrize("sarif", [False, True])
@pytest.mark.parametrize("kind", ["DeviceClass", "ResourceSlice"])
def test_fixes_in_a_file_of_many_documents_print_one_document_at_a_time(kind, sarif, monkeypatch) -> None:
    """The cost of `fix` and of SARIF fixes grows with the file, not with its findings squared:
    no printout (ruamel.yaml's, and the line matching over it) is ever of more than one
    document (200 v1beta1 templates took 40 s in SARIF, 1,500 over ten minutes in `fix`); a
    migration that moves lines (a DeviceClass's apiVersion) has none at all."""
    template = "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata:\n  name: gpu-{i}\n"
    text = "---\n".join((template if kind == "DeviceClass" else SLICE).format(i=i) for i in range(30))
    printed: list[int] = []
    printout = EditableFile._printout
    monkeypatch.setattr(
        EditableFile, "_printout", lambda self, documents: printed.append(len(documents)) or printout(self, documents)
    )
    if sarif:
        result = run([SourceFile("m.yaml", text)], LintOptions(profile="strict", jobs=1))
        assert len(fix_replacements(result)) == 30
    else:
        outcome = fix_bytes("m.yaml", text.encode(), LintOptions(profile="strict"))
        assert len(outcome.applied) == 30
        expected = text.replace("v1beta1", "v1")
        if kind == "ResourceSlice":
            expected = expected.replace("    basic:\n      attributes:\n        model", "    attributes:\n      model")
        assert outcome.fixed.decode() == expected
    assert printed == [] if kind == "DeviceClass" else printed and set(printed) == {1}


COMMENTED = """# header comment
apiVersion: resource.k8s.io/v1beta1   # old version
kind: ResourceClaim
metadata:
  name: c   # the name
  uid: abc
spec:
  # devices below
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com  # class
"""


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r", "\r\r\n"])
def test_every_line_ending_keeps_its_comments_and_its_line_ends(ending) -> None:
    """A lone CR and CR CR LF files lost their comments: their lines matched no printout line."""
    expected = fix_bytes("m.yaml", COMMENTED.encode(), LintOptions(profile="strict")).fixed.decode()
    assert expected.count("#") == 5 and "exactly:" in expected and "uid" not in expected
    outcome = fix_bytes("m.yaml", COMMENTED.replace("\n", ending).encode(), LintOptions(profile="strict"))
    assert outcome.fixed.decode() == expected.replace("\n", ending)


def test_a_document_with_a_duplicate_key_is_left_to_its_author_in_one_pass() -> None:
    """dralint reads the last of two equal keys, ruamel.yaml edits the first: the fix of the uid
    dralint reports (line 8) removed the one on line 5, said so, and left a finding that a
    second run could not fix either."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  uid: a\nmetadata:\n  name: c\n  uid: b\n"
    options = LintOptions(profile="strict")
    outcome = fix_bytes("m.yaml", text.encode(), options)
    assert not outcome.changed and outcome.applied == []
    assert [(r.rule, r.line, r.reason) for r in outcome.rejected] == [
        ("API016", 8, "its document has a duplicate key (YAML002 at line 6, column 1); remove it first")
    ]
    assert fix_bytes("m.yaml", outcome.fixed, options).fixed == outcome.fixed
    # the documents around it are fixed as before
    other = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  uid: x\n"
    mixed = fix_bytes("m.yaml", (other + "---\n" + text).encode(), options)
    assert [(r.rule, r.line) for r in mixed.applied] == [("API016", 5)] and len(mixed.rejected) == 1
