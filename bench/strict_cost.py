"""Cost of the YAML 1.2 strictness pass (dralint.yaml.strict) next to the loader alone.

Figures on the same generated stream, best CPU time of ``--repeat`` runs each (CPU time,
not wall time, because these machines are shared and noisy):

* ``load``: ``dralint.yaml.loader.load`` as dralint runs it (prefilter + builder hint; the pass runs only
  when one of them fires),
* ``precondition``: the text prefilter alone, the price every file pays,
* ``pass``: the token pass forced on the whole file, the price a file pays when it fires,
* ``load, fired``: ``load`` on the same stream plus one last document that needs the pass.

    python bench/strict_cost.py --documents 10000
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.generate import generate  # noqa: E402
from dralint.yaml.loader import SourceText, load  # noqa: E402
from dralint.yaml.strict import may_need_check, strict_problems  # noqa: E402


def best(function: Callable[[], object], repeat: int) -> float:
    """Best CPU time of ``repeat`` runs: the least disturbed by a noisy machine."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = generate(args.documents)
    source = SourceText("bench.yaml", text)
    result = load(source)
    fired = may_need_check(text)
    loader = best(lambda: load(source), args.repeat)
    prefilter = best(lambda: may_need_check(text), args.repeat)
    forced = best(lambda: strict_problems(text), args.repeat)
    firing = SourceText("bench.yaml", text + '---\nkind: ConfigMap\ndata: {a: "1"}#glued\n')
    assert len(load(firing).problems) == 1
    loader_fired = best(lambda: load(firing), args.repeat)
    print(
        f"{args.documents} documents, {len(text) / 1e6:.1f} MB, {len(result.documents)} parsed, prefilter "
        f"fired: {fired}"
    )
    print(f"load (as run)     {loader:7.3f} s")
    print(f"precondition      {prefilter:7.3f} s  ratio to load {prefilter / loader:.3f}")
    print(f"pass, forced      {forced:7.3f} s  ratio to load {forced / loader:.2f}")
    print(f"load, fired       {loader_fired:7.3f} s  ratio to load {loader_fired / loader:.2f}")


if __name__ == "__main__":
    main()
