"""Suppressions: comments (line and line above), ignore-file, annotations, per-path config,
unused and malformed suppressions, expiry."""

from __future__ import annotations

import datetime as dt

from conftest import lint_text, rules_of

from dralint.diagnostics import Severity
from dralint.lint.engine import lint
from dralint.lint.gate import finish
from dralint.lint.options import LintOptions

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"


def lint_yaml(tmp_path, text, **options):
    """Lint with only the YAML rules (duplicate keys are the findings these tests suppress), so
    rules added by other families cannot change the counts."""
    return lint_text(tmp_path, text, select=["YAML"], **options)


def where(result, rule):
    return [(d.span.line, d.span.column) for d in result.diagnostics if d.rule == rule]


def test_trailing_comment_suppresses_its_line_only(tmp_path):
    text = CM + "  name: again  # dralint: ignore[YAML002] generated\n---\n" + CM + "  name: again\n"
    result = lint_yaml(tmp_path, text)
    assert where(result, "YAML002") == [(11, 3)]
    (silenced,) = result.suppressed
    assert silenced.diagnostic.span.line == 5 and silenced.kind == "inSource" and silenced.justification == "generated"


def test_comment_on_the_line_above_skips_blank_and_comment_lines(tmp_path):
    text = CM + "  # dralint: ignore[duplicate-key] the rule's name works too\n\n  # another comment\n  name: again\n"
    result = lint_yaml(tmp_path, text)
    assert rules_of(result) == [] and len(result.suppressed) == 1


def test_comment_above_does_not_reach_two_code_lines_down(tmp_path):
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  # dralint: ignore[YAML002]\n  name: settings\n  name: again\n"
    result = lint_yaml(tmp_path, text)
    assert where(result, "YAML002") == [(6, 3)]
    assert where(result, "CFG003") == [(4, 3)]


def test_ignore_file_covers_every_document_of_the_file(tmp_path):
    text = "# dralint: ignore-file[YAML002] vendored from upstream\n" + CM + "  name: a\n---\n" + CM + "  name: b\n"
    result = lint_yaml(tmp_path, text)
    assert rules_of(result) == [] and len(result.suppressed) == 2
    assert result.suppressed[0].justification == "vendored from upstream"


def test_comment_in_another_file_does_not_apply(tmp_path):
    (tmp_path / "other.yaml").write_text("# dralint: ignore-file[YAML002]\n" + CM)
    target = tmp_path / "cm.yaml"
    target.write_text(CM + "  name: again\n")
    result = finish(lint(LintOptions(paths=[str(tmp_path)], select=["YAML"])), LintOptions(select=["YAML"]))
    assert [(d.rule, d.span.path.rsplit("/", 1)[-1]) for d in result.diagnostics] == [
        ("YAML002", "cm.yaml"),
        ("CFG003", "other.yaml"),
    ]


def test_pod_template_annotation_covers_the_template_not_the_object(tmp_path):
    text = """apiVersion: batch/v1
kind: Job
metadata:
  name: once
  name: twice
spec:
  template:
    metadata:
      annotations:
        dralint.io/ignore: YAML002
    spec:
      restartPolicy: Never
      restartPolicy: OnFailure
      containers: [{name: main, image: busybox}]
"""
    result = lint_yaml(tmp_path, text)
    assert where(result, "YAML002") == [(5, 3)]
    assert [s.diagnostic.span.line for s in result.suppressed] == [13]


def test_unused_suppression_of_a_rule_that_did_not_run_is_not_reported(tmp_path):
    result = lint_yaml(tmp_path, CM + "  namespace: a  # dralint: ignore[YAML002]\n", ignore=["YAML002"])
    assert rules_of(result) == []


def test_expired_suppression_brings_the_finding_back(tmp_path):
    text = CM + "  name: again  # dralint: ignore[YAML002] until=2026-06-30 waiting for v2\n"
    target = tmp_path / "cm.yaml"
    target.write_text(text)
    options = LintOptions(paths=[str(target)], select=["YAML"])
    before = finish(lint(options), options, today=dt.date(2026, 6, 30))
    assert rules_of(before) == [] and before.suppressed[0].justification == "waiting for v2 (until 2026-06-30)"
    after = finish(lint(options), options, today=dt.date(2026, 7, 1))
    assert rules_of(after) == ["YAML002", "CFG004"]
    expired = next(d for d in after.diagnostics if d.rule == "CFG004")
    assert (expired.span.line, expired.span.column) == (5, 16) and "2026-06-30" in expired.message


def test_malformed_suppressions_are_findings(tmp_path):
    text = CM + "  name: again  # dralint: ignore\n"
    result = lint_yaml(tmp_path, text)
    assert sorted(rules_of(result)) == ["CFG005", "YAML002"]


def test_hash_inside_a_value_is_not_a_comment(tmp_path):
    text = CM + (
        "data:\n"
        "  note: 'text # dralint: ignore[YAML002] inside quotes'\n"
        "  url: http://x/#dralint:ignore\n"
        "  script: |  # dralint: ignore[YAML003] a real comment on the indicator line\n"
        "    echo hi # dralint: ignore-file[YAML002] shell text\n"
        "    # dralint: ignore\n"
    )
    result = lint_yaml(tmp_path, text)
    assert rules_of(result) == ["CFG003"]
    assert where(result, "CFG003") == [(8, 14)]


def test_per_path_ignores_from_config_and_their_unused_warning(tmp_path):
    config = "per-path-ignores:\n  '*vendor*': [YAML002]\n  'nothing/*': [YAML002]\n"
    result = lint_yaml(tmp_path, CM + "  name: again\n", name="vendor.yaml", config=config)
    assert [s.kind for s in result.suppressed] == ["external"]
    unused = [d for d in result.diagnostics if d.rule == "CFG003"]
    assert [(d.span.path.rsplit("/", 1)[-1], d.span.line, d.span.column) for d in unused] == [(".dralint.yaml", 3, 3)]


TRAINER = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml
  annotations:
    dralint.io/ignore: "REL001,REL002"
    dralint.io/ignore-reason: "sized by the batch scheduler"
spec:
  replicas: 1  # dralint: ignore[single-replica] singleton by design
  selector:
    matchLabels: {app: trainer}
  template:
    metadata:
      labels: {app: trainer}
    spec:
      containers:
        - name: main
          image: registry.example.com/trainer:1.2.3
          securityContext:
            # dralint: ignore[SEC001] until=2027-01-31 driver validator
            privileged: true
"""


ANNOTATION = """  annotations:
    dralint.io/ignore: "REL001,REL002"
    dralint.io/ignore-reason: "sized by the batch scheduler"
"""


def lint_trainer(tmp_path, text, today=dt.date(2027, 1, 31)):
    """Lint with the reliability and security rules the TRAINER suppressions name."""
    target = tmp_path / "trainer.yaml"
    target.write_text(text)
    options = LintOptions(paths=[str(target)], select=["REL001", "REL002", "REL008", "REL009", "SEC001"])
    return finish(lint(options), options, today=today)


def test_the_readme_forms_silence_real_checks(tmp_path):
    """The three forms against the reliability and security checks, as docs/configuration.md shows them;
    the object's annotation reaches the container findings in its pod template."""
    result = lint_trainer(tmp_path, TRAINER)
    assert rules_of(result) == []
    assert sorted(s.diagnostic.rule for s in result.suppressed) == ["REL001", "REL002", "REL008", "SEC001"]
    assert {s.justification for s in result.suppressed if s.diagnostic.rule.startswith("REL00")} >= {
        "sized by the batch scheduler"
    }
    later = lint_trainer(tmp_path, TRAINER, today=dt.date(2027, 2, 1))
    assert sorted(rules_of(later)) == ["CFG004", "SEC001"]


def test_object_annotation_does_not_cover_the_next_object(tmp_path):
    other = TRAINER.replace(ANNOTATION, "").replace("name: trainer\n", "name: other\n", 1)
    result = lint_trainer(tmp_path, TRAINER + "---\n" + other)
    assert sorted((d.rule, d.object.name) for d in result.diagnostics if d.rule in ("REL001", "REL002")) == [
        ("REL001", "other"),
        ("REL002", "other"),
    ]


def test_unused_annotation_is_reported_at_the_annotation(tmp_path):
    result = lint_trainer(tmp_path, TRAINER.replace("REL001,REL002", "REL009"))
    assert where(result, "CFG003") == [(7, 24)]


def test_annotation_expiry(tmp_path):
    result = lint_trainer(
        tmp_path, TRAINER.replace(ANNOTATION, ANNOTATION + '    dralint.io/ignore-until: "2001-01-01"\n')
    )
    assert sorted(rules_of(result)) == ["CFG004", "REL001", "REL002"]


def test_annotation_with_a_bad_date_is_reported_and_ignored(tmp_path):
    result = lint_trainer(tmp_path, TRAINER.replace(ANNOTATION, ANNOTATION + "    dralint.io/ignore-until: someday\n"))
    assert sorted(rules_of(result)) == ["CFG005", "REL001", "REL002"]
    assert where(result, "CFG005") == [(9, 30)]


def _counted(result):
    """Each file's counts beside the ones its reported findings make."""
    from collections import Counter

    return [
        (
            dict((s, n) for s, n in f.counts.items() if n),
            dict(Counter(d.severity for d in result.diagnostics if d.span.path == f.path)),
        )
        for f in result.files
    ]


def test_per_file_counts_are_the_findings_still_reported(tmp_path):
    twice = CM + "  name: again\n  name: third\n"
    (tmp_path / "a.yaml").write_text(twice)
    (tmp_path / "b.yaml").write_text(twice)
    options = LintOptions(paths=[str(tmp_path)], select=["YAML"])
    untouched = finish(lint(options), options)
    assert len(untouched.diagnostics) == 4 and all(kept == made for kept, made in _counted(untouched))
    (tmp_path / "b.yaml").write_text(CM + "  name: again  # dralint: ignore[YAML002]\n  name: third\n")
    (tmp_path / "c.yaml").write_text(
        "# dralint: ignore-file[YAML002]\n" + CM
    )  # an unused suppression: a finding of the stage
    changed = finish(lint(options), options)
    assert len(changed.diagnostics) == 4 and len(changed.suppressed) == 1
    assert [kept for kept, _ in _counted(changed)] == [{Severity.ERROR: 2}, {Severity.ERROR: 1}, {Severity.WARNING: 1}]
    assert all(kept == made for kept, made in _counted(changed))
