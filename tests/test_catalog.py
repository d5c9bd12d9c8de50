"""The catalog is the contract: every rule documented, every example honest."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lint_text

from dralint.lint.catalog import COMPILED_NAME, _raw_rules, compile_catalog, load_catalog, rules_dir
from dralint.lint.engine import ENGINE_RULES
from dralint.lint.gate import STAGE_RULES
from dralint.lint.registry import check_index, implemented_rules, object_check
from dralint.lint.ruledocs import rules_markdown

CATALOG = load_catalog()


@object_check("INT001")
def _broken_check(obj, ctx):
    """A deliberately failing check, so INT001's examples show the real behaviour."""
    if obj.name == "trigger-internal-error":
        raise RuntimeError("this check is broken on purpose")
    return ()


def _cases(kind: str) -> list:
    return [
        pytest.param(rule.id, example, id=f"{rule.id}-{kind}{index}")
        for rule in sorted(CATALOG.values(), key=lambda r: r.id)
        for index, example in enumerate(getattr(rule, kind))
    ]


def test_every_implemented_rule_has_a_catalog_entry():
    missing = implemented_rules() - set(CATALOG)
    assert not missing, f"checks report rules with no rules/*.yaml entry: {sorted(missing)}"


def test_every_catalog_entry_is_implemented():
    unimplemented = set(CATALOG) - implemented_rules() - set(ENGINE_RULES.values()) - STAGE_RULES
    assert not unimplemented, f"catalog entries no check reports: {sorted(unimplemented)}"


@pytest.mark.parametrize("rule_id", sorted(CATALOG))
def test_every_rule_has_bad_and_good_examples(rule_id):
    rule = CATALOG[rule_id]
    assert rule.bad, f"{rule_id} has no bad example"
    assert rule.good, f"{rule_id} has no good example"


def _lint_example(tmp_path: Path, example):
    name = example.options.get("filename", "example.yaml")
    options = {k: v for k, v in example.options.items() if k != "filename"}
    return lint_text(tmp_path, example.manifest, slices=example.slices, name=name, **options)


@pytest.mark.parametrize("rule_id,example", _cases("bad"))
def test_bad_example_fires(tmp_path, rule_id, example):
    result = _lint_example(tmp_path, example)
    fired = [d for d in result.diagnostics if d.rule == rule_id]
    assert fired, f"{rule_id} did not fire on its bad example; got {[(d.rule, d.message) for d in result.diagnostics]}"
    for diag in fired:
        assert diag.span.line >= 1 and diag.span.column >= 1


@pytest.mark.parametrize("rule_id,example", _cases("good"))
def test_good_example_is_clean(tmp_path, rule_id, example):
    result = _lint_example(tmp_path, example)
    fired = [(d.span.line, d.message) for d in result.diagnostics if d.rule == rule_id]
    assert not fired, f"{rule_id} fired on its good example: {fired}"


def test_rule_reference_is_up_to_date():
    generated = rules_markdown(sorted(CATALOG.values(), key=lambda r: r.id))
    on_disk = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    assert on_disk == generated, "docs/rules.md is stale: run `python tools/generate_docs.py`"


def test_compiled_catalog_is_up_to_date():
    on_disk = (rules_dir() / COMPILED_NAME).read_text(encoding="utf-8")
    assert on_disk == compile_catalog(rules_dir()), "rules/catalog.json is stale: run `python tools/generate_docs.py`"


def test_compiled_catalog_is_read_only_while_it_matches_the_files(tmp_path):
    rule = tmp_path / "ZZZ001.yaml"
    rule.write_text("id: ZZZ001\nname: first\n", encoding="utf-8")
    compiled = compile_catalog(tmp_path)
    # Marked so the test can tell which copy was read; the checksum still matches the file.
    (tmp_path / COMPILED_NAME).write_text(compiled.replace('"first"', '"from-compiled"'), encoding="utf-8")
    assert _raw_rules(tmp_path) == [("ZZZ001.yaml", {"id": "ZZZ001", "name": "from-compiled"})]
    rule.write_text("id: ZZZ001\nname: edited\n", encoding="utf-8")
    assert _raw_rules(tmp_path) == [("ZZZ001.yaml", {"id": "ZZZ001", "name": "edited"})]


def test_check_index_is_up_to_date():
    on_disk = (Path(__file__).resolve().parent.parent / "dralint" / "lint" / "check_index.py").read_text(
        encoding="utf-8"
    )
    assert on_disk == check_index(), "dralint/lint/check_index.py is stale: run `python tools/generate_docs.py`"
