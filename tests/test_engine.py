"""Engine-level behaviour that no single rule owns."""

from __future__ import annotations

import gc

from dralint.lint.engine import run
from dralint.lint.options import LintOptions
from dralint.yaml.sources import SourceFile

MANIFEST = SourceFile("m.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: team}\n")


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
    dra, recommended, strict = (set(enabled_rules(LintOptions(profile=p), catalog)) for p in ("dra", "recommended", "strict"))
    assert dra < recommended < strict == set(catalog)
    assert all(catalog[r].category in ("yaml", "api", "cel", "reference", "extended-resources", "scheduling", "pod-security", "internal")
               for r in dra)
    assert not any(not catalog[r].recommended for r in recommended)
