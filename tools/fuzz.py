"""Fuzz dralint with mutated manifests, snapshots and dumps (docs/robustness.md).

    python tools/fuzz.py --cases 5000 --seed 1

Each case is a seed file of the project (examples/, the rule examples, the built-in snapshots)
mutated by one family (tests/fuzzing.py), run through lint, lint --slices, simulate, doctor,
lint --format sarif and fix in this process. A failure prints its case number: ``--seed N --only CASE`` replays it, and
its text (``--show CASE``) becomes a regression test in tests/test_fuzz.py. Exits 1 on any
failure.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzzing import FAMILIES, case, failures  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=1000, help="how many cases (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument("--first", type=int, default=0, help="the first case's number (default 0)")
    parser.add_argument("--only", type=int, help="run this one case")
    parser.add_argument("--show", type=int, help="print this case's text and stop")
    parser.add_argument("--family", choices=sorted(FAMILIES), help="only cases of this family")
    args = parser.parse_args()
    if args.show is not None:
        sys.stdout.write(case(args.seed, args.show).text)
        return 0
    numbers = [args.only] if args.only is not None else range(args.first, args.first + args.cases)
    began, failed, ran = time.perf_counter(), 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for number in numbers:
            one = case(args.seed, number)
            if args.family and one.family != args.family:
                continue
            ran += 1
            for problem in failures(Path(tmp) / "case.yaml", one.text):
                failed += 1
                print(f"case {number} ({one.family} of {one.seed}): {problem}", flush=True)
    print(f"{ran} cases, {failed} failures, {time.perf_counter() - began:.0f} s", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
