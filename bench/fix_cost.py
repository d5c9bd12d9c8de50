"""What fixes cost beside a lint: `lint --format sarif` (each finding's fix made alone) and
`dralint fix` against `lint --format json`, on one file of N `resource.k8s.io/v1beta1`
ResourceClaimTemplates (one fixable API012 finding each), each step in a fresh process.

    python bench/fix_cost.py              # 1,500 documents
    python bench/fix_cost.py --sizes 200 1500

Both used to grow with the square of the findings (SARIF: 40 s at 200 documents; fix: 179 s
at 800, over ten minutes at 1,500), since each fix printed and matched the whole file; the
ratios to JSON printed here should stay flat as N grows. Made through ruamel.yaml each fix
cost 2.7 ms of CPU (its round-trip read and two printouts of the document: 14-19x JSON's
time at 1,500 documents); API012's migration is now made as line edits (0.15 ms), 2.4-2.6x.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TEMPLATE = """apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata:
  name: gpu-{i}
  namespace: default
spec:
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: gpu.example.com
        count: 1
"""

STEPS = {
    "json": ["lint", "--no-config", "--format", "json"],
    "sarif": ["lint", "--no-config", "--format", "sarif"],
    "fix": ["fix"],
}


def _seconds(step: str, path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one step: the CPU time of the process and its workers is the
    figure to compare on a machine shared with other work."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dralint", *STEPS[step], str(path)], capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1500])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            source = Path(tmp) / f"templates-{size}.yaml"
            source.write_text("---\n".join(TEMPLATE.format(i=i) for i in range(size)), encoding="utf-8")
            figures = {}
            for step in STEPS:
                target = Path(tmp) / f"{step}-{size}.yaml"
                shutil.copy(source, target)  # fix rewrites its file
                figures[step] = _seconds(step, target)
            json_wall, json_cpu = figures["json"]
            print(f"{size:>6} documents: json {json_wall:.2f} s ({json_cpu:.2f} s CPU)", end="")
            for step in ("sarif", "fix"):
                wall, cpu = figures[step]
                print(f", {step} {wall:.2f} s ({cpu:.2f} s CPU, {cpu / json_cpu:.1f}x json's)", end="")
            print()


if __name__ == "__main__":
    main()
