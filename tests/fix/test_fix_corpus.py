"""Every v1beta1 DRA manifest of the shared corpus converts to v1 without new API errors.

Skipped when /work/shared/corpus is absent. Files the YAML loader already rejects (markdown
extracts with `...` placeholders) are not manifests and are only counted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CORPUS

from dralint.fix.convert import KINDS
from dralint.fix.runner import fix_bytes, new_errors
from dralint.k8s.manifests import objects_from
from dralint.lint.engine import run
from dralint.lint.options import LintOptions
from dralint.yaml.loader import SourceText, load
from dralint.yaml.sources import SourceFile, decode

OPTIONS = LintOptions(profile="strict")
#: Findings that mean "not (yet) in v1 shape"; none may survive the fix.
SHAPE_RULES = {"API001", "API011", "API012", "API013"}


def _v1beta1_files() -> list[Path]:
    found = []
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
            continue
        source = decode(str(path), path.read_bytes())
        if not isinstance(source, SourceFile) or "resource.k8s.io/v1beta1" not in source.text:
            continue
        documents = load(SourceText(source.path, source.text)).documents
        objects = [o for d in documents for o in objects_from(d, "scan")[0]]
        if any(o.api_version == "resource.k8s.io/v1beta1" and o.kind in KINDS for o in objects):
            found.append(path)
    return found


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not available")
def test_corpus_v1beta1_manifests_convert_to_v1() -> None:
    converted, not_manifests = [], []
    for path in _v1beta1_files():
        raw = path.read_bytes()
        before = run([decode(str(path), raw)], OPTIONS)
        if any(d.rule.startswith("YAML") and d.severity.value == "error" for d in before.diagnostics):
            not_manifests.append(path)
            continue
        outcome = fix_bytes(str(path), raw, OPTIONS)
        assert outcome.problem is None and not outcome.rejected, (path, outcome.problem, outcome.rejected)
        after = run([decode(str(path), outcome.fixed)], OPTIONS)
        assert not [
            o for o in after.context.objects if o.group == "resource.k8s.io" and o.version != "v1" and o.kind in KINDS
        ], path
        left = [d for d in after.diagnostics if d.rule in SHAPE_RULES and d.object and d.object.kind in KINDS]
        assert not left, (path, [(d.rule, d.message) for d in left])
        assert not new_errors(before, after), path
        converted.append(path)
    print(f"corpus: {len(converted)} v1beta1 files converted, {len(not_manifests)} skipped as not well-formed YAML")
    assert len(converted) >= 10
