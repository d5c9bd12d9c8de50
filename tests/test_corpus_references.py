"""Real repositories, one run per repository directory: no reference is called broken when
its target is right there (skipped without the shared corpus)."""

from __future__ import annotations

import pytest
from conftest import CORPUS, require

from dralint.lint.engine import lint
from dralint.lint.options import LintOptions

require(CORPUS / "INDEX.md", "the shared corpus")

#: Rule -> the kind its finding says is missing (by the field the finding points at).
TARGET_KINDS = {
    ("REF002", "resourceClaimTemplateName"): "ResourceClaimTemplate",
    ("REF002", "resourceClaimName"): "ResourceClaim",
    ("REF008", "deviceClassName"): "DeviceClass",
}


def _repositories() -> list:
    return sorted(p for p in CORPUS.iterdir() if p.is_dir() and not p.name.startswith("_"))


def _target_kind(diag) -> str | None:
    leaf = (diag.field or "").rsplit(".", 1)[-1]
    return TARGET_KINDS.get((diag.rule, leaf))


@pytest.mark.parametrize("repository", _repositories(), ids=lambda p: p.name)
def test_no_missing_reference_whose_target_is_in_the_directory(repository):
    result = lint(LintOptions(paths=[str(repository)], profile="dra"))
    present = {(o.kind, o.namespace, o.name) for o in result.context.objects}
    false_alarms = []
    for diag in result.diagnostics:
        kind = _target_kind(diag)
        if kind is None or diag.severity.value != "error":
            continue
        line = result.sources[diag.span.path].line_text(diag.span.line)
        name = line[diag.span.column - 1 : diag.span.end_column - 1].strip("'\" ")
        namespace = None if kind == "DeviceClass" else diag.object.namespace
        if (kind, namespace, name) in present:
            false_alarms.append(f"{diag.span.path}:{diag.span.line}: {diag.message}")
    assert not false_alarms
