"""What each speed mechanism of the engine is worth: each turned off alone, against the code as it is.

    python bench/ablate.py                                  # every mechanism on every row
    python bench/ablate.py --only groups,exit --rows cold,throughput --repeat 7
    python bench/ablate.py --callgrind                      # instruction counts of the one-process rows

A mechanism is turned off by a few lines run in the measured process before dralint starts
(``MECHANISMS``), so the engine carries no switch for the benchmark. Every row runs the code as
it is and each variant in turns (``bench/table.py``'s ``measure_paired``), and a figure is the
median over turns of the ratio variant / as-is within a turn: 1.10 means the mechanism saves
a tenth there, 0.97 that the code is 3% faster without it. Before measuring, each variant's
report is compared with the as-is report, so no variant is measured doing different work.

``--callgrind`` counts instructions (``valgrind --tool=callgrind``, ``PYTHONHASHSEED=0``) of the
rows that run in one process, where counts are stable on a loaded machine and time is not;
counts do not see cache misses or branch prediction, which is what the groups of 32 save.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import (  # noqa: E402
    DRALINT,
    PY,
    SMALL,
    in_child,
    measure_paired,
    run_once,
    write_big_files,
    write_generated,
    write_snapshots,
)

_LOADER = "import dralint.yaml.loader as L\n"
_ENGINE = "import dralint.lint.engine as E\n"

#: Each mechanism (docs/performance.md), and the code that turns it off alone.
MECHANISMS: dict[str, tuple[str, str]] = {
    "frozen documents": (
        "frozen",
        # Documents are never frozen; a worker still sends them frozen (the pickle is the frozen form).
        _LOADER + "_freeze = L.Document.freeze\n"
        "def _send(self):\n"
        "    _freeze(self)\n"
        "    return (L._frozen_document, (self.source.path, self.index, self._frozen, self.finite, self.item))\n"
        "L.Document.freeze = lambda self: None\n"
        "L.Document.__reduce__ = _send\n",
    ),
    "THAWED set, 1 document": ("thawed-1", _LOADER + "L.THAWED.capacity = 1\n"),
    "THAWED set, unbounded": ("thawed-all", _LOADER + "L.THAWED.capacity = 1 << 60\n"),
    "groups of 32 objects per check": ("groups", _ENGINE + "E._GROUP = 1\n"),
    "pieces of large files": ("pieces", _ENGINE + "E._PIECE_LINES = 1 << 62\n"),
    "leaving with os._exit": ("exit", "import sys, dralint.cli.main as M\nM._end = sys.exit\n"),
    "fast block reader": (
        "fast-reader",
        # The fast reader declines everything, so libyaml reads every document.
        "import dralint.yaml.blockfast as B\n"
        "B.read = lambda text, add, **named: (0, 'off')\n"
        "B.read_documents = lambda text, starts, stops, line, add, **named: (starts[0], 'off')\n"
        "def _declined(*args, **named):\n"
        "    raise B.Declined('off')\n"
        "B.read_items = _declined\n",
    ),
}


def without(patch: str) -> list[str]:
    """``bench/table.py``'s dralint command with ``patch`` run first."""
    return [PY, "-c", patch + DRALINT[2]]


#: Per row: what the command after ``dralint`` is, given the row's input directory, and whether
#: it runs in one process (so callgrind can count it).
Row = tuple[Callable[[Path, argparse.Namespace], list[str]], bool]


def cold(tmp: Path, args: argparse.Namespace) -> list[str]:
    small = tmp / "small.yaml"
    small.write_text(SMALL, encoding="utf-8")
    return ["lint", "--no-config", str(small)]


def throughput(tmp: Path, args: argparse.Namespace) -> list[str]:
    (path,) = write_generated(tmp, "throughput", 2000 if args.quick or args.callgrind else 10000)
    return ["lint", "--no-config", "--jobs", "1", "--format", "json", path]


def memory(tmp: Path, args: argparse.Namespace) -> list[str]:
    return [
        "lint",
        "--no-config",
        "--format",
        "json",
        *write_generated(tmp, "memory", 4000 if args.quick else 20000, 5),
    ]


def jobs(tmp: Path, args: argparse.Namespace) -> list[str]:
    return ["lint", "--no-config", "--jobs", "2", *write_generated(tmp, "jobs", 2000 if args.quick else 10000, 500)]


def big_list(tmp: Path, args: argparse.Namespace) -> list[str]:
    in_child(write_big_files, tmp / "big.yaml", tmp / "big-list.yaml")
    return ["lint", "--no-config", "--format", "json", "--jobs", "2", str(tmp / "big-list.yaml")]


def simulate(tmp: Path, args: argparse.Namespace) -> list[str]:
    import yaml

    from bench.bench_allocator import workloads

    nodes = 1000 if args.quick else 10000
    manifests = tmp / "workloads.yaml"
    manifests.write_text(yaml.dump_all(workloads(200, 8), Dumper=yaml.CSafeDumper), encoding="utf-8")
    in_child(write_snapshots, nodes, tmp / "slices.yaml", tmp / "slices-list.yaml")
    return ["simulate", "--slices", str(tmp / "slices-list.yaml"), str(manifests)]


ROWS: dict[str, Row] = {
    "cold": (cold, True),
    "throughput": (throughput, True),
    "memory": (memory, False),
    "jobs": (jobs, False),
    "big-list": (big_list, False),
    "simulate": (simulate, False),
}


def report_digest(command: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, capture_output=True, env=env, cwd=ROOT)
    if done.returncode not in (0, 1):
        raise SystemExit(f"failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return hashlib.sha256(done.stdout).hexdigest()


def instructions(command: list[str], out: Path) -> int:
    """The instructions callgrind counts for ``command`` (one process)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for text in out.read_text(encoding="utf-8", errors="replace").splitlines():
        if text.startswith("summary:") or text.startswith("totals:"):
            return int(text.split()[1])
    raise SystemExit(f"no instruction count in {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, from {', '.join(ROWS)}")
    names = [key for key, _ in MECHANISMS.values()]
    parser.add_argument("--only", default=",".join(names), help=f"comma-separated, from {', '.join(names)}")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    parser.add_argument("--callgrind", action="store_true", help="instruction counts of the one-process rows")
    args = parser.parse_args()
    chosen = [(label, patch) for label, (key, patch) in MECHANISMS.items() if key in args.only.split(",")]
    print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as directory:
        for row in args.rows.split(","):
            make, one_process = ROWS[row]
            if args.callgrind and not one_process:
                continue
            tmp = Path(directory) / row
            tmp.mkdir()
            tail = make(tmp, args)
            commands = [DRALINT + tail] + [without(patch) + tail for _, patch in chosen]
            expected = report_digest(commands[0])  # also compiles the bytecode once
            for (label, _), command in zip(chosen, commands[1:], strict=True):
                if report_digest(command) != expected:
                    raise SystemExit(f"{row}: the report without {label} differs from the report as is")
            if args.callgrind:
                counts = [instructions(command, tmp / f"callgrind-{i}.out") for i, command in enumerate(commands)]
                print(f"{row}: as is {counts[0] / 1e9:.3f} G instructions", flush=True)
                for (label, _), count in zip(chosen, counts[1:], strict=True):
                    print(f"{row:<12} without {label:<32} instructions {count / counts[0]:.3f}x", flush=True)
                continue
            run_once(commands[0])
            paired = measure_paired(commands, args.repeat)
            base = paired.figures[0]
            print(
                f"{row}: as is CPU {base.cpu:.2f} s, wall {base.wall:.2f} s, peak {base.peak_mib:.0f} MiB", flush=True
            )
            for index, (label, _) in enumerate(chosen, 1):
                peak = paired.figures[index].peak_mib / base.peak_mib
                print(
                    f"{row:<12} without {label:<32} CPU {paired.cpu_ratio[index]:.3f}x "
                    f"(turns {paired.cpu_spread[index][0]:.2f}-{paired.cpu_spread[index][1]:.2f}), "
                    f"wall {paired.wall_ratio[index]:.3f}x "
                    f"(turns {paired.wall_spread[index][0]:.2f}-{paired.wall_spread[index][1]:.2f}), "
                    f"peak {peak:.3f}x",
                    flush=True,
                )


if __name__ == "__main__":
    main()
