"""The optional ``peers:`` mapping of catalog entries and the docs/peers.md table built from it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dralint.lint.catalog import CatalogError, load_catalog, parse_rule
from dralint.lint.ruledocs import peer_table

BASE = {
    "id": "SEC999",
    "name": "x-rule",
    "severity": "warning",
    "category": "security",
    "summary": "s",
    "rationale": "r",
    "fix": "f",
}


def test_peers_are_parsed_in_a_fixed_tool_order():
    rule = parse_rule({**BASE, "peers": {"checkov": ["CKV_K8S_1"], "kube-linter": "a-check"}}, "x.yaml")
    assert rule.peers == (("kube-linter", ("a-check",)), ("checkov", ("CKV_K8S_1",)))


def test_peers_default_to_none():
    assert parse_rule(BASE, "x.yaml").peers == ()


@pytest.mark.parametrize("peers", [["kube-linter"], {"kubeval": ["x"]}, {"polaris": []}, {"polaris": [1]}])
def test_malformed_peers_are_rejected(peers):
    with pytest.raises(CatalogError):
        parse_rule({**BASE, "peers": peers}, "x.yaml")


def test_every_security_and_reliability_rule_names_its_peers_or_says_why_not():
    missing = [r.id for r in load_catalog().values() if r.family in ("SEC", "REL") and not r.peers and r.id != "SEC030"]
    assert not missing


def test_peer_table_rows_come_from_the_catalog():
    rules = sorted(load_catalog().values(), key=lambda r: r.id)
    table = peer_table(rules)
    row = next(line for line in table.splitlines() if line.startswith("| [SEC001]"))
    assert "`privileged-container`" in row and "`CKV_K8S_16`" in row and "`runAsPrivileged`" in row


def test_peers_page_publishes_the_rule_table_with_working_links():
    docs = Path(__file__).resolve().parent.parent / "docs"
    page = (docs / "peers.md").read_text(encoding="utf-8")
    rules = sorted(load_catalog().values(), key=lambda r: r.id)
    elsewhere = yaml.safe_load((docs / "peer-coverage-elsewhere.yaml").read_text(encoding="utf-8"))
    assert peer_table(rules, elsewhere) in page, "docs/peers.md is stale: run `python tools/generate_docs.py`"
    row = next(line for line in page.splitlines() if line.startswith("| [SEC001]"))
    assert "](rules.md#sec001-privileged-container)" in row  # docs/peers.md links beside itself
    assert "\n## SEC001 privileged-container\n" in (docs / "rules.md").read_text(encoding="utf-8")


def test_severity_in_gives_a_profile_its_own_default():
    rule = parse_rule({**BASE, "severity": "info", "severity_in": {"strict": "warning"}}, "x.yaml")
    assert rule.severity_in("strict").value == "warning" and rule.severity_in("recommended").value == "info"


@pytest.mark.parametrize("raw", [{"pedantic": "warning"}, {"strict": "loud"}, ["strict"]])
def test_malformed_severity_in_is_rejected(raw):
    with pytest.raises(CatalogError):
        parse_rule({**BASE, "severity_in": raw}, "x.yaml")


def test_every_security_and_reliability_rule_explains_its_severity():
    assert not [r.id for r in load_catalog().values() if r.family in ("SEC", "REL") and "Severity: " not in r.rationale]


def test_explain_shows_the_profile_severity():
    from dralint.lint.ruledocs import explain

    assert "Severity: info (strict: warning)" in explain(load_catalog()["SEC014"])
