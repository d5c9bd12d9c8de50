"""dralint simulate against the real v1.37 scheduler, through the verdicts recorded in
conformance/scheduler/verdicts.json (conformance/README.md, "The real scheduler"). No Go is
needed: the scenarios are generated again from their seed and dralint judges them here.

Every disagreement must be explained by an entry of conformance/scheduler/allowlist.yaml, and
every entry must still explain one.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "conformance"))

from scenarios import scenarios  # noqa: E402
from schedcompare import MEASURES, figures, load_allowlist, load_verdicts, measure_all, table  # noqa: E402


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, str]]:
    return measure_all()


def test_every_scenario_has_its_recorded_verdict():
    recorded = load_verdicts()
    generated = scenarios()
    assert len(generated) >= 300
    missing = [s.id for s in generated if s.id not in recorded]
    stale = [s.id for s in generated if s.id in recorded and recorded[s.id]["digest"] != s.digest]
    assert not missing and not stale, (
        f"run python conformance/record_scheduler.py (needs Go): missing {missing[:5]}, changed {stale[:5]}"
    )


def test_the_scenarios_cover_what_the_scheduler_must_be_checked_on():
    seen = Counter(f for s in scenarios() for f in s.features)
    wanted = [
        "mig",
        "node-taint",
        "device-taint",
        "device-toleration",
        "device-plugin",
        "allocated-claim",
        "allocation-all",
        "admin-access",
        "first-available",
        "match-attribute",
        "request-selector",
        "node-selector",
        "node-affinity",
        "shared-claim",
        "extended-mapped",
        "extended-unmapped",
        "replicas",
        "old-kubelet",
    ]
    assert {f: seen[f] for f in wanted if seen[f] < 5} == {}


def test_the_verdicts_hold_both_outcomes():
    recorded = load_verdicts().values()
    bound = sum(1 for v in recorded if v["replicas"][0]["node"])
    pending = sum(1 for v in recorded if not v["replicas"][0]["node"])
    partly = sum(1 for v in recorded if 0 < sum(1 for r in v["replicas"] if r["node"]) < len(v["replicas"]))
    assert bound > 80 and pending > 80 and partly > 5
    assert not [v["id"] for v in recorded for r in v["replicas"] if r.get("message", "").startswith("timeout")]


def test_every_disagreement_is_explained(results):
    allow = load_allowlist()
    unexplained = {
        sid: {m: detail for m, detail in found.items() if detail != "agree" and m not in allow.get(sid, {})}
        for sid, found in results.items()
    }
    unexplained = {sid: found for sid, found in unexplained.items() if found}
    assert unexplained == {}


def test_every_allowlist_entry_still_explains_a_disagreement(results):
    stale = [
        f"{sid}.{measure}"
        for sid, entries in load_allowlist().items()
        for measure in entries
        if results.get(sid, {}).get(measure, "agree") == "agree"
    ]
    assert stale == []


def test_published_figures_are_the_measured_ones(results):
    readme = (ROOT / "conformance" / "README.md").read_text(encoding="utf-8")
    assert table(figures(results)) in readme, "conformance/README.md is stale: print schedcompare's table"


def test_the_measures_are_all_exercised(results):
    found = figures(results)
    assert set(found) == set(MEASURES) and all(total >= 20 for _, total in found.values()), found
