"""docs/peers.md: every kube-linter, Polaris and kube-score check and the dralint rule covering it."""

from __future__ import annotations

from pathlib import Path

import yaml

from dralint.lint.catalog import load_catalog, parse_rule
from dralint.lint.ruledocs import peer_parity, unlisted_peer_checks

DOCS = Path(__file__).resolve().parent.parent / "docs"
RULES = sorted(load_catalog().values(), key=lambda r: r.id)
CHECKS = yaml.safe_load((DOCS / "peer-checks.yaml").read_text(encoding="utf-8"))
ELSEWHERE = yaml.safe_load((DOCS / "peer-coverage-elsewhere.yaml").read_text(encoding="utf-8"))
BASE = {
    "id": "SEC999",
    "name": "x-rule",
    "severity": "warning",
    "category": "security",
    "summary": "s",
    "rationale": "r",
    "fix": "f",
}


def row(page: str, check: str) -> str:
    return next(line for line in page.splitlines() if line.startswith(f"| `{check}` |"))


def test_peers_page_is_up_to_date():
    on_disk = (DOCS / "peers.md").read_text(encoding="utf-8")
    assert on_disk == peer_parity(RULES, CHECKS, ELSEWHERE), (
        "docs/peers.md is stale: run `python tools/generate_docs.py`"
    )


def test_every_check_a_rule_names_is_in_the_peer_check_lists():
    assert unlisted_peer_checks(RULES, CHECKS) == [], (
        "add these checks to docs/peer-checks.yaml (or fix the rule's peers: spelling)"
    )


def test_rows_come_from_the_catalog_and_the_data():
    page = peer_parity(RULES, CHECKS, ELSEWHERE)
    assert "[SEC001](rules.md#sec001-privileged-container)" in row(page, "privileged-container")
    assert "API011, API012" in row(page, "stable-version")
    assert "none: key order means nothing" in row(page, "sorted-keys")


def test_a_new_rule_covers_a_check_without_touching_the_generator():
    check = str(CHECKS["kube-linter"][0]["id"])
    others = [r for r in RULES if check not in dict(r.peers).get("kube-linter", ())]  # leave the check uncovered
    assert "not covered yet" in row(peer_parity(others, CHECKS, ELSEWHERE), check)
    extra = parse_rule({**BASE, "peers": {"kube-linter": [check, "brand-new-check"]}}, "x.yaml")
    after = peer_parity([*others, extra], CHECKS, ELSEWHERE)
    assert "x-rule" in row(after, check) and "x-rule" in row(after, "brand-new-check")
    assert unlisted_peer_checks([*others, extra], CHECKS) == [("kube-linter", "brand-new-check")]


def test_every_listed_check_appears_once():
    page = (DOCS / "peers.md").read_text(encoding="utf-8")
    for tool, entries in CHECKS.items():
        ids = [str(e["id"]) for e in entries]
        assert len(ids) == len(set(ids)), tool
        for check in ids:
            assert page.count(f"| `{check}` |") >= 1, (tool, check)
