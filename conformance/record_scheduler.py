#!/usr/bin/env python3
"""Build the control plane, run every scenario on it and rewrite conformance/scheduler/verdicts.json.

Usage: python conformance/record_scheduler.py [--check]

Needs Go (conformance/README.md). With --check it exits 1 when the scheduler's verdicts differ
from the recorded ones, without rewriting them. The Go-free tests read the committed file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scheduler  # noqa: E402
from cluster import ControlPlane, build  # noqa: E402
from scenarios import scenarios  # noqa: E402
from schedcompare import VERDICTS, load_verdicts  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the recorded verdicts, write nothing")
    args = parser.parse_args()
    began = time.monotonic()
    binary = build()
    built = time.monotonic() - began
    verdicts = {}
    with ControlPlane(binary) as plane:
        for scenario in scenarios():
            verdicts[scenario.id] = scheduler.run(plane.api, scenario)
        started = plane.started_in
    took = time.monotonic() - began
    print(
        f"record_scheduler: {len(verdicts)} scenarios in {took:.0f} s "
        f"(build {built:.0f} s, control plane ready in {started:.1f} s)"
    )
    text = json.dumps(verdicts, indent=1, sort_keys=True) + "\n"
    if args.check:
        if verdicts != load_verdicts():
            print("record_scheduler: the scheduler's verdicts differ from conformance/scheduler/verdicts.json")
            return 1
        return 0
    VERDICTS.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
