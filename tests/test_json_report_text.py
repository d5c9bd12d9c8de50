"""The JSON report's templated diagnostics write exactly what ``json.dumps(indent=2)`` writes."""

from __future__ import annotations

import json

from conftest import lint_text

from dralint.reporters import RepeatedTexts
from dralint.reporters.json_report import document, render

# Findings with and without an object, hint, field and related locations, and non-ASCII text.
MANIFEST = """apiVersion: v1
kind: ConfigMap
metadata:
  name: café
  namespace: default
  name: again
data:
  a: b
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: nginx
    resources:
      claims:
      - name: missing
---
kind: Pod
"""


def test_same_text_as_the_standard_library(tmp_path) -> None:
    result = lint_text(tmp_path, MANIFEST)
    records = document(result)["diagnostics"]
    assert any(r["related"] for r in records) and any(r["object"] is None for r in records)
    assert any(r["field"] is None for r in records) and any(r["field"] for r in records)
    assert render(result) == json.dumps(document(result), indent=2) + "\n"


def test_same_text_when_the_table_of_repeated_texts_starts_over(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(RepeatedTexts, "LIMIT", 1)
    result = lint_text(tmp_path, MANIFEST)
    assert render(result) == json.dumps(document(result), indent=2) + "\n"


def test_a_clean_run_has_an_empty_list(tmp_path) -> None:
    result = lint_text(tmp_path, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: quiet\n")
    result.diagnostics.clear()
    assert render(result) == json.dumps(document(result), indent=2) + "\n"
