#!/usr/bin/env python3
"""Build the control plane, run every scenario on it and rewrite conformance/scheduler/verdicts.json.

Usage: python conformance/record_scheduler.py

Needs Go (conformance/README.md). The Go-free tests read the committed file; the tests marked
``go`` run every scenario on the scheduler again (which of several equal nodes it picks is not
reproducible, so a rerun rewrites some nodes without changing any measure).
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
from schedcompare import VERDICTS  # noqa: E402


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    began = time.monotonic()
    binary = build()
    built = time.monotonic() - began
    verdicts = {}
    with ControlPlane(binary) as plane:
        for number, scenario in enumerate(scenarios(), 1):
            verdicts[scenario.id] = scheduler.run(plane.api, scenario)
            if number % 50 == 0:
                print(f"record_scheduler: {number} scenarios ({time.monotonic() - began:.0f} s)", flush=True)
        started = plane.started_in
    took = time.monotonic() - began
    print(
        f"record_scheduler: {len(verdicts)} scenarios in {took:.0f} s "
        f"(build {built:.0f} s, control plane ready in {started:.1f} s)"
    )
    VERDICTS.write_text(json.dumps(verdicts, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
