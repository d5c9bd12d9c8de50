"""Benchmark dralint against the floor: a bare libyaml parse of the same input, same run.

Prints docs/s and peak memory for each step and the ratio of ``dralint lint`` to the bare
parse. Each measurement runs in a fresh subprocess so peak memory is per step. Figures are
ratios because these machines are noisy; absolute times are printed for context only.

    python bench/run.py              # 1,000 and 10,000 documents
    python bench/run.py --sizes 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.generate import generate  # noqa: E402

STEPS = {
    "parse": "import yaml; list(yaml.load_all(open(PATH, encoding='utf-8'), Loader=yaml.CSafeLoader))",
    "load": "from dralint.yaml.loader import load, SourceText; load(SourceText(PATH, open(PATH, "
    "encoding='utf-8').read()))",
    "lint": "from dralint.lint.engine import lint; from dralint.lint.options import LintOptions; "
    "lint(LintOptions(paths=[PATH], profile=PROFILE, jobs=1))",
}
RUNNER = """
import resource, sys, time
sys.path.insert(0, {root!r})
PATH, PROFILE = {path!r}, {profile!r}
{setup}
start = time.perf_counter()
{code}
elapsed = time.perf_counter() - start
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
SETUP = {
    "parse": "import yaml",
    "load": "import dralint.yaml.loader",
    "lint": "import dralint.lint.engine, dralint.lint.registry; dralint.lint.registry.all_checks(); import "
    "dralint.lint.catalog; dralint.lint.catalog.load_catalog()",
}


def measure(step: str, path: str, profile: str) -> tuple[float, float]:
    """(seconds, peak MiB) of one step in a fresh interpreter; imports are not timed."""
    script = RUNNER.format(root=str(ROOT), path=path, profile=profile, setup=SETUP[step], code=STEPS[step])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", default="strict")
    parser.add_argument("--json", action="store_true", help="print machine-readable figures")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = str(Path(tmp) / f"bench-{size}.yaml")
            Path(path).write_text(generate(size), encoding="utf-8")
            row = {"documents": size}
            for step in STEPS:
                runs = [measure(step, path, args.profile) for _ in range(args.repeat)]
                seconds = statistics.median(r[0] for r in runs)
                row[step] = {
                    "seconds": round(seconds, 3),
                    "docs_per_s": round(size / seconds),
                    "peak_mib": round(max(r[1] for r in runs), 1),
                }
            row["lint_to_parse"] = round(row["lint"]["seconds"] / row["parse"]["seconds"], 2)
            row["load_to_parse"] = round(row["load"]["seconds"] / row["parse"]["seconds"], 2)
            results.append(row)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for row in results:
        print(f"{row['documents']:>6} documents (profile {args.profile})")
        for step in STEPS:
            figures = row[step]
            print(
                f"  {step:<6} {figures['seconds']:>7.3f} s  {figures['docs_per_s']:>8} docs/s  peak "
                f"{figures['peak_mib']:>6.1f} MiB"
            )
        print(f"  dralint lint / bare parse = {row['lint_to_parse']}x   (loader alone: {row['load_to_parse']}x)")


if __name__ == "__main__":
    main()
