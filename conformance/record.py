#!/usr/bin/env python3
"""Rebuild the conformance oracle if needed and rewrite conformance/golden/ from its verdicts.

Usage: python conformance/record.py [--check]

Needs Go (see conformance/README.md). With --check it exits 1 when the recorded verdicts differ
from what the oracle says now, without rewriting them. The Python tests never run this: they
read the committed goldens.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gobuild import go_build  # noqa: E402
from inputs import GOLDEN, ROOT, Input, all_inputs  # noqa: E402

ORACLE_DIR = ROOT / "conformance" / "oracle"


def build_oracle() -> Path:
    """`go build` the oracle."""
    return go_build(ORACLE_DIR)


def run_oracle(binary: Path, inputs: list[Input]) -> dict[str, dict]:
    """Judge every input; one oracle process per (snapshot, feature gates) group."""
    groups: dict[tuple[str | None, str], list[Input]] = defaultdict(list)
    for item in inputs:
        groups[(item.slices, item.gates_flag())].append(item)
    verdicts: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="dralint-oracle-") as tmp:
        for number, ((slices, gates), members) in enumerate(groups.items()):
            folder = Path(tmp) / str(number)
            by_path: dict[str, Input] = {}
            for index, item in enumerate(members):
                target = folder / str(index) / item.name
                target.parent.mkdir(parents=True)
                target.write_bytes(item.text)
                by_path[str(target)] = item
            command = [str(binary)]
            if gates:
                command.append(f"--feature-gates={gates}")
            if slices is not None:
                snapshot = folder / "slices.yaml"
                snapshot.write_text(slices, encoding="utf-8")
                command.append(f"--slices={snapshot}")
            lines = subprocess.run(command + list(by_path), check=True, capture_output=True, text=True).stdout
            for line in lines.splitlines():
                result = json.loads(line)
                item = by_path[result.pop("path")]
                result.pop("error", None)
                verdicts[item.id] = {
                    "input": item.id,
                    "featureGates": item.feature_gates,
                    "snapshot": slices is not None,
                    **result,
                }
    return verdicts


def golden_text(verdict: dict) -> str:
    return json.dumps(verdict, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report drift instead of rewriting")
    args = parser.parse_args()
    inputs = all_inputs()
    verdicts = run_oracle(build_oracle(), inputs)
    wanted = {item.golden: golden_text(verdicts[item.id]) for item in inputs}
    stale = [p for p in GOLDEN.rglob("*.json") if p not in wanted] if GOLDEN.exists() else []
    changed = [p for p, text in wanted.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for path in changed + stale:
            print(f"drift: {path.relative_to(ROOT)}")
        return 1 if changed or stale else 0
    for path in stale:
        path.unlink()
    for path in changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wanted[path], encoding="utf-8")
    print(f"record.py: {len(inputs)} inputs, {len(changed)} goldens written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
