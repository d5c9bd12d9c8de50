"""Regenerate rules/catalog.json, dralint/lint/check_index.py, docs/rules.md, docs/peers.md and the
driver catalog's compiled.json from the rule catalog, the check modules and dralint/k8s/drivers/data
(tests fail when any is stale)."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dralint.k8s.drivers.catalog import COMPILED as DRIVERS_COMPILED  # noqa: E402
from dralint.k8s.drivers.catalog import compiled_catalog  # noqa: E402
from dralint.lint.catalog import COMPILED_NAME, compile_catalog, load_catalog, rules_dir  # noqa: E402
from dralint.lint.registry import check_index  # noqa: E402
from dralint.lint.ruledocs import peer_parity, rules_markdown  # noqa: E402

TARGET = ROOT / "docs" / "rules.md"
CHECK_INDEX = ROOT / "dralint" / "lint" / "check_index.py"
ELSEWHERE = ROOT / "docs" / "peer-coverage-elsewhere.yaml"
PEER_CHECKS = ROOT / "docs" / "peer-checks.yaml"
PARITY = ROOT / "docs" / "peers.md"


def elsewhere_rows() -> list[dict]:
    """Peer-table rows for rules whose catalog entries have no ``peers:`` yet."""
    if not ELSEWHERE.exists():
        return []
    return yaml.safe_load(ELSEWHERE.read_text(encoding="utf-8")) or []


def peer_checks() -> dict[str, list[dict]]:
    """The peers' check lists (docs/peer-checks.yaml), per tool."""
    return yaml.safe_load(PEER_CHECKS.read_text(encoding="utf-8")) or {}


def main() -> None:
    compiled = rules_dir() / COMPILED_NAME
    compiled.write_text(compile_catalog(rules_dir()), encoding="utf-8")
    print(f"wrote {compiled}")
    CHECK_INDEX.write_text(check_index(), encoding="utf-8")
    print(f"wrote {CHECK_INDEX}")
    load_catalog.cache_clear()
    rules = sorted(load_catalog().values(), key=lambda r: r.id)
    TARGET.write_text(rules_markdown(rules), encoding="utf-8")
    print(f"wrote {TARGET} ({len(rules)} rules)")
    PARITY.write_text(peer_parity(rules, peer_checks(), elsewhere_rows()), encoding="utf-8")
    print(f"wrote {PARITY}")
    DRIVERS_COMPILED.write_text(compiled_catalog(), encoding="utf-8")
    print(f"wrote {DRIVERS_COMPILED}")


if __name__ == "__main__":
    main()
