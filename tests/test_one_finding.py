"""One mistake, one finding (issue 20, item 16)."""

from __future__ import annotations

from conftest import rules_of

from dralint.diagnostics import Diagnostic, ObjectRef, Severity, Span
from dralint.lint.dedup import one_file

SUBREQUESTS = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: a}
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - name: big
        deviceClassName: missing-class
      - name: small
        deviceClassName: missing-class
"""
CEL_TYPO = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver = "x"'}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: p, namespace: a}
spec:
  resourceClaims:
  - name: gpus
    resourceClaimTemplateName: t
  containers:
  - name: c
    image: registry.example/app:1.0
    resources:
      claims:
      - name: gpus
        request: gpu/big
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t, namespace: a}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - {name: big, deviceClassName: gpu}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
"""


def test_a_missing_class_named_by_two_subrequests_is_one_finding(lint_manifest):
    result = lint_manifest(SUBREQUESTS, select=["REF"], closed_world={"DeviceClass"})
    (diag,) = result.diagnostics
    assert (diag.rule, diag.span.line, diag.span.column) == ("REF008", 10, 26)
    assert [(r.span.line, r.message) for r in diag.related] == [
        (12, "subrequest 'gpu/small' names the same DeviceClass")
    ]


def test_a_cel_typo_is_one_finding_at_the_first_error(lint_manifest):
    result = lint_manifest(CEL_TYPO, select=["CEL001"])
    (diag,) = result.diagnostics
    assert diag.rule == "CEL001" and diag.span.line == 6 and "Syntax error" in diag.message


def test_an_invalid_request_name_is_one_finding_with_the_reference_as_a_note(lint_manifest):
    result = lint_manifest(POD, select=["API007", "REF005"])
    assert rules_of(result) == ["API007"]
    (diag,) = result.diagnostics
    assert (diag.span.line, diag.span.column) == (14, 18)
    assert [r.message for r in diag.related if "[REF005]" in r.message]


def _diag(rule: str, message: str, line: int, column: int = 5, severity: Severity = Severity.ERROR) -> Diagnostic:
    return Diagnostic(
        rule,
        rule.lower(),
        severity,
        message,
        Span("f.yaml", line, column, line, column + 3),
        object=ObjectRef("v1", "Pod", "a", "p"),
    )


def test_judgement_rules_on_one_span_are_not_merged():
    stacked = [
        _diag("REL001", "no cpu request", 3),
        _diag("REL002", "no memory request", 3),
        _diag("SEC002", "escalation", 3),
    ]
    assert one_file(stacked) == sorted(stacked, key=lambda d: d.sort_key)


def test_one_rule_at_two_places_stays_two_findings():
    """Two duplicate keys are two mistakes, each suppressible on its own line."""
    assert len(one_file([_diag("YAML002", "same", 9), _diag("YAML002", "same", 4)])) == 2


def test_different_correctness_families_on_one_span_keep_the_worst_then_the_earliest_stage():
    merged = one_file(
        [
            _diag("REF005", "no such request", 7),
            _diag("API007", "bad name", 7),
            _diag("SCH001", "no node", 7, severity=Severity.WARNING),
        ]
    )
    assert [d.rule for d in merged] == ["API007"]
    assert sorted(r.message for r in merged[0].related) == ["also: no node [SCH001]", "also: no such request [REF005]"]


def test_an_exact_repeat_is_reported_once_and_near_repeats_are_kept():
    import dataclasses

    first = _diag("SEC002", "escalation", 3)
    other_hint = dataclasses.replace(first, hint="a different hint")
    longer = dataclasses.replace(first, span=Span("f.yaml", 3, 5, 3, 20))
    kept = one_file([first, dataclasses.replace(first), other_hint, longer, dataclasses.replace(longer)])
    assert kept == [first, other_hint, longer]
    assert kept[0] is first


def test_a_message_many_findings_share_keeps_each_place_once():
    import dataclasses
    import random

    from dralint.lint import dedup

    rng = random.Random(3)
    base = _diag("REL001", "no probe", 1)
    made = [
        dataclasses.replace(
            base,
            span=Span("f.yaml", rng.randint(1, 30), rng.randint(1, 4), 1, 9),
            message=rng.choice(["no probe", "no limits", f"x{rng.randint(0, 3)}"]),
        )
        for _ in range(400)
    ]
    assert sum(d.message == "no probe" for d in set(made)) > dedup._LISTED  # past the list, into the set
    assert dedup._each_once(made) == list(dict.fromkeys(made))
