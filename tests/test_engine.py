"""Engine-level behaviour that no single rule owns."""

from __future__ import annotations

import gc

from dralint.lint.engine import run
from dralint.lint.options import LintOptions
from dralint.yaml.sources import SourceFile

MANIFEST = SourceFile("m.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: team}\n")
#: A Deployment with an error (replicas) and warnings (no resources, no probes, a floating image).
BROKEN = SourceFile(
    "d.yaml",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: two\n"
    "  template:\n    spec:\n      containers:\n      - name: app\n        image: nginx\n",
)


def test_a_run_restores_the_garbage_collector_state():
    assert gc.isenabled()
    run([MANIFEST], LintOptions())
    assert gc.isenabled(), "the cyclic collector must be back on after a run"
    gc.disable()
    try:
        run([MANIFEST], LintOptions())
        assert not gc.isenabled(), "a caller that had it off keeps it off"
    finally:
        gc.enable()


def test_profiles_nest_dra_within_recommended_within_strict():
    from dralint.lint.catalog import load_catalog
    from dralint.lint.engine import enabled_rules

    catalog = load_catalog()
    dra, recommended, strict = (
        set(enabled_rules(LintOptions(profile=p), catalog)) for p in ("dra", "recommended", "strict")
    )
    assert dra < recommended < strict == set(catalog)
    assert all(
        catalog[r].category
        in ("yaml", "api", "cel", "reference", "extended-resources", "scheduling", "pod-security", "internal")
        for r in dra
    )
    assert not any(not catalog[r].recommended for r in recommended)


def test_the_tally_counts_each_severity_and_feeds_the_score():
    from dralint.diagnostics import Severity
    from dralint.lint.score import score

    result = run([BROKEN, MANIFEST], LintOptions(profile="strict"))
    tally = result.tally()
    assert list(tally) == list(Severity)
    assert tally == {s: sum(1 for d in result.diagnostics if d.severity is s) for s in Severity}
    assert tally[Severity.ERROR] and tally[Severity.WARNING], (
        "the fixture must produce both for the test to mean anything"
    )
    assert result.score == score(result.objects, tally[Severity.ERROR], tally[Severity.WARNING])


def test_the_tally_follows_the_diagnostics_it_counts():
    """Counted once per list, yet never stale: not after a diagnostic is added or removed, not
    in a result made from another by ``dataclasses.replace``, not when a caller changes its copy."""
    import dataclasses

    from dralint.diagnostics import Severity

    result = run([BROKEN], LintOptions(profile="strict"))
    first = result.tally()
    first[Severity.ERROR] += 100
    assert result.tally() != first
    extra = dataclasses.replace(result.diagnostics[0], severity=Severity.ERROR)
    result.diagnostics.append(extra)
    assert result.tally()[Severity.ERROR] == sum(1 for d in result.diagnostics if d.severity is Severity.ERROR)
    only_errors = dataclasses.replace(result, diagnostics=[extra])
    assert only_errors.tally() == {Severity.ERROR: 1, Severity.WARNING: 0, Severity.INFO: 0}
    result.diagnostics.pop()
    assert result.tally() == {s: sum(1 for d in result.diagnostics if d.severity is s) for s in Severity}
