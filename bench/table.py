"""Issue #16's table, measured: one line per row, each figure a ratio to a floor taken in the same run.

    python bench/table.py                      # every row at the issue's sizes (slow: minutes)
    python bench/table.py --quick              # smaller inputs, same rows, for a first look
    python bench/table.py --rows cold,throughput --repeat 7

Every command runs in a fresh interpreter and is measured by the kernel's accounting for that
child (``os.wait4``): CPU seconds (user + system) and peak resident memory. CPU time, not wall
time (except for ``--jobs``, whose point is wall time), because these machines are shared and a
loaded core stretches wall time for everyone; ratios, not absolute figures, for the same reason.
The commands a ratio compares run in turns, and each ratio is the median over ``--repeat`` turns
of the ratio within a turn (a neighbour that loads the machine for a while then loads both sides
of a ratio); the seconds shown are medians too. Bytecode caching is left on (as on a user's
machine), so the first run warms it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_allocator import snapshot, workloads  # noqa: E402
from bench.generate import generate  # noqa: E402

PY = sys.executable
DRALINT = [PY, "-c", "import sys; from dralint.cli.main import command_line; sys.argv[0] = 'dralint'; command_line()"]
IMPORT_YAML = [PY, "-c", "import yaml"]
SMALL = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  mode: fast\n"


def parse_command(*paths: str) -> list[str]:
    """The floor: the bare libyaml parse (CSafeLoader) of the same files, in a fresh interpreter."""
    code = (
        "import sys, yaml\nfor p in sys.argv[1:]:\n    list(yaml.load_all(open(p, encoding='utf-8'), "
        "Loader=yaml.CSafeLoader))"
    )
    return [PY, "-c", code, *paths]


@dataclass
class Figures:
    cpu: float
    peak_mib: float
    #: Wall seconds: only the rows about --jobs use them, since parallel work saves wall time, not CPU.
    wall: float


def run_once(command: list[str]) -> Figures:
    """CPU seconds and peak RSS of one child process; its output is discarded."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "CI")}
    env["PYTHONPATH"] = str(ROOT)
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(command[:6])} ...")
    return Figures(usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, wall)


def measure(command: list[str], repeat: int) -> Figures:
    runs = [run_once(command) for _ in range(repeat)]
    return Figures(
        statistics.median(r.cpu for r in runs),
        statistics.median(r.peak_mib for r in runs),
        statistics.median(r.wall for r in runs),
    )


@dataclass
class Paired:
    """Medians of commands run in turns, and the median ratio of each to the first within a turn."""

    figures: list[Figures]
    #: Per command, the median over turns of (its figure / the first command's), CPU and wall.
    cpu_ratio: list[float]
    wall_ratio: list[float]
    #: Per command, the lowest and highest per-turn ratio, CPU and wall: how far one turn can be trusted.
    cpu_spread: list[tuple[float, float]]
    wall_spread: list[tuple[float, float]]


def measure_paired(commands: list[list[str]], repeat: int) -> Paired:
    """Run ``commands`` in turns, ``repeat`` turns: a neighbour that slows the machine for a
    while then slows a whole turn, not only the runs of one command, and the ratio taken within
    each turn stays true. Medians of the per-turn ratios are what the rows report."""
    turns = [[run_once(command) for command in commands] for _ in range(repeat)]

    def median_of(index: int, value: Callable[[Figures], float]) -> float:
        return statistics.median(value(turn[index]) for turn in turns)

    figures = [
        Figures(median_of(i, lambda f: f.cpu), median_of(i, lambda f: f.peak_mib), median_of(i, lambda f: f.wall))
        for i in range(len(commands))
    ]
    cpus = [[turn[i].cpu / turn[0].cpu for turn in turns] for i in range(len(commands))]
    walls = [[turn[i].wall / turn[0].wall for turn in turns] for i in range(len(commands))]
    return Paired(
        figures,
        [statistics.median(c) for c in cpus],
        [statistics.median(w) for w in walls],
        [(min(c), max(c)) for c in cpus],
        [(min(w), max(w)) for w in walls],
    )


def line(row: str, detail: str, target: str) -> None:
    print(f"{row:<12} {detail}   [target {target}]", flush=True)


def write_generated(directory: Path, name: str, documents: int, files: int = 1) -> list[str]:
    paths = []
    per_file = documents // files
    for index in range(files):
        path = directory / f"{name}-{index}.yaml"
        path.write_text(generate(per_file, start=index * per_file), encoding="utf-8")
        paths.append(str(path))
    return paths


def row_cold(tmp: Path, args: argparse.Namespace) -> None:
    small = tmp / "small.yaml"
    small.write_text(SMALL, encoding="utf-8")
    run_once(DRALINT + ["lint", "--no-config", str(small)])  # compile bytecode once
    paired = measure_paired([IMPORT_YAML, DRALINT + ["lint", "--no-config", str(small)]], args.repeat)
    floor, lint = paired.figures
    line(
        "cold start",
        f"lint one small file {lint.cpu:.3f} s / python -c 'import yaml' {floor.cpu:.3f} s = "
        f"{paired.cpu_ratio[1]:.1f}x",
        "<= 6x",
    )


def row_throughput(tmp: Path, args: argparse.Namespace) -> None:
    docs = 2000 if args.quick else 10000
    (path,) = write_generated(tmp, "throughput", docs)
    # One process measures the work per document; the default (one job per CPU) adds the cost
    # of handing work to workers, and saves wall time (the jobs row).
    serial_command = DRALINT + ["lint", "--no-config", "--jobs", "1", "--format", "json", path]
    paired = measure_paired(
        [parse_command(path), serial_command, DRALINT + ["lint", "--no-config", "--format", "json", path]], args.repeat
    )
    floor, serial, _ = paired.figures
    _, serial_ratio, default_ratio = paired.cpu_ratio
    low, high = paired.cpu_spread[1]
    line(
        "throughput",
        f"{docs:,} documents, one file, --format json, --jobs 1 {serial.cpu:.2f} s / bare CSafeLoader parse "
        f"{floor.cpu:.2f} s = {serial_ratio:.2f}x (turns {low:.2f}-{high:.2f}x; default --jobs: "
        f"{default_ratio:.2f}x CPU, "
        f"{paired.wall_ratio[2] / paired.wall_ratio[1]:.2f}x the wall time of --jobs 1)",
        "<= 2.0x",
    )


def row_memory(tmp: Path, args: argparse.Namespace) -> None:
    docs, files = (10000, 5) if args.quick else (50000, 5)
    small = write_generated(tmp, "memory-small", docs // 5, files)
    large = write_generated(tmp, "memory-large", docs, files)
    floor = measure(parse_command(*large), 1)
    low = measure(DRALINT + ["lint", "--no-config", "--format", "json", *small], 1)
    high = measure(DRALINT + ["lint", "--no-config", "--format", "json", *large], 1)
    growth = (high.peak_mib - low.peak_mib) * 1024 / (docs - docs // 5)
    line(
        "memory",
        f"{docs:,} documents in {files} files: peak {high.peak_mib:.0f} MiB (bare parse {floor.peak_mib:.0f} MiB = "
        f"{high.peak_mib / floor.peak_mib:.1f}x); growth {growth:.1f} KiB per document",
        "<= 250 MiB, <= 5 KiB/document",
    )


def as_list(documents: list[str]) -> str:
    """Documents written as one ``kind: List``, the way ``kubectl get -o yaml`` writes a cluster."""
    items = "".join("- " + document.rstrip("\n").replace("\n", "\n  ") + "\n" for document in documents)
    return f'apiVersion: v1\nitems:\n{items}kind: List\nmetadata:\n  resourceVersion: ""\n'


def write_big_files(documents: Path, one_list: Path) -> None:
    """ConfigMaps with large data, like a cluster dump, as separate documents and as the one
    List ``kubectl get -A -o yaml`` writes."""
    value = "x" * 1000
    document = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dump-{i}\n  namespace: default\ndata:\n" + "".join(
        f"  key{k}: {value}\n" for k in range(1000)
    )
    texts = [document.format(i=i) for i in range(18)]
    documents.write_text("---\n".join(texts), encoding="utf-8")
    one_list.write_text(as_list(texts), encoding="utf-8")


def row_big_file(tmp: Path, args: argparse.Namespace) -> None:
    """One file over the old 16 MiB limit: the work per byte (one job, CPU), the peak, and the
    wall time two jobs save by reading the file in pieces."""
    forms = {"documents": tmp / "big.yaml", "one List": tmp / "big-list.yaml"}
    in_child(write_big_files, *forms.values())
    for form, path in forms.items():
        floor = measure(parse_command(str(path)), 1)
        paired = measure_paired(
            [DRALINT + ["lint", "--no-config", "--format", "json", "--jobs", str(jobs), str(path)] for jobs in (1, 2)],
            args.repeat,
        )
        one, two = paired.figures
        refused = subprocess.run(
            DRALINT + ["lint", "--no-config", "--select", "YAML008", str(path)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        ).stdout.count("YAML008")
        verdict = "refused (YAML008)" if refused else "linted"
        line(
            "big file",
            f"{path.stat().st_size / 2**20:.0f} MiB in one file, {form}: {verdict}; --jobs 1 {one.cpu:.2f} s / parse "
            f"{floor.cpu:.2f} s = {one.cpu / floor.cpu:.2f}x, peak {one.peak_mib:.0f} MiB; --jobs 2 wall "
            f"{two.wall:.2f} s = "
            f"{paired.wall_ratio[1]:.2f}x, peak {two.peak_mib:.0f} MiB",
            "accepted up to 256 MiB",
        )


def side_by_side(*commands: list[str]) -> list[str]:
    """One command that runs ``commands`` at once and waits for all of them."""
    code = (
        "import json, subprocess, sys\n"
        "runs = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in json.loads(sys.argv[1])]\n"
        "sys.exit(max(r.wait() for r in runs))"
    )
    return [PY, "-c", code, json.dumps(list(commands))]


def row_jobs(tmp: Path, args: argparse.Namespace) -> None:
    """``--jobs 2`` against ``--jobs 1``, and beside them what the machine allows: the files split
    in two halves, each linted by its own ``--jobs 1`` run, both at once. Those two processes
    share nothing and wait for nothing, so their wall time is as low as two processes of this
    work go on this machine (on a virtual machine whose two CPUs are not two free cores, well
    above half of one run). Their CPU (the two runs, which each start and import, and the
    process that starts them) says how much slower each runs while the other does."""
    files = 500
    paths = write_generated(tmp, "jobs", 2000 if args.quick else 10000, files)
    serial = DRALINT + ["lint", "--no-config", "--jobs", "1"]
    halves = side_by_side(serial + paths[: files // 2], serial + paths[files // 2 :])
    paired = measure_paired(
        [serial + paths, DRALINT + ["lint", "--no-config", "--jobs", "2", *paths], halves], args.repeat
    )
    one, two, _ = paired.figures
    (low, high), (halves_low, halves_high) = paired.wall_spread[1:]
    line(
        "jobs",
        f"{files} files, wall time: --jobs 2 {two.wall:.2f} s / --jobs 1 {one.wall:.2f} s = "
        f"{paired.wall_ratio[1]:.2f}x "
        f"(turns {low:.2f}-{high:.2f}x; CPU {paired.cpu_ratio[1]:.2f}x); two --jobs 1 runs on half the files "
        "each, side by side: "
        f"{paired.wall_ratio[2]:.2f}x (turns {halves_low:.2f}-{halves_high:.2f}x; CPU {paired.cpu_ratio[2]:.2f}x)",
        "2 jobs <= 0.6x of 1 job",
    )


def write_snapshots(nodes: int, documents: Path, one_list: Path) -> None:
    """The fleet as the benchmark writes it (a document per object) and as
    `kubectl get resourceslices,deviceclasses -o yaml` does (one List)."""
    import yaml

    fleet = snapshot(nodes, 8)
    documents.write_text(yaml.dump_all(fleet, Dumper=yaml.CSafeDumper), encoding="utf-8")
    one_list.write_text(
        yaml.dump(
            {"apiVersion": "v1", "items": fleet, "kind": "List", "metadata": {"resourceVersion": ""}},
            Dumper=yaml.CSafeDumper,
        ),
        encoding="utf-8",
    )


def in_child(function: Callable[..., None], *args: object) -> None:
    """Run ``function`` in a forked process: a child started later from this one counts this
    one's resident pages in its own peak until it execs, so the benchmark keeps no large input
    in memory while it measures."""
    process = multiprocessing.get_context("fork").Process(target=function, args=args)
    process.start()
    process.join()
    if process.exitcode:
        raise SystemExit(f"writing the inputs failed ({function.__name__})")


def row_simulate(tmp: Path, args: argparse.Namespace) -> None:
    import yaml

    manifests = tmp / "workloads.yaml"
    manifests.write_text(yaml.dump_all(workloads(200, 8), Dumper=yaml.CSafeDumper), encoding="utf-8")
    for nodes in [1000] if args.quick else args.nodes:
        forms = {"documents": tmp / f"slices-{nodes}.yaml", "one List": tmp / f"slices-{nodes}-list.yaml"}
        in_child(write_snapshots, nodes, *forms.values())
        for form, slices in forms.items():
            # The target is in seconds, not a ratio: the median of --repeat runs, so one run
            # that a neighbour slowed does not decide it. The parse, only for scale, runs once.
            floor = measure(parse_command(str(slices), str(manifests)), 1)
            sim = measure(DRALINT + ["simulate", "--slices", str(slices), str(manifests)], args.repeat)
            line(
                "simulate",
                f"{nodes:,} nodes x 8 devices x 200 workloads, snapshot as {form}: {sim.cpu:.1f} s "
                f"({sim.wall:.1f} s wall), "
                f"peak {sim.peak_mib:.0f} MiB; bare parse {floor.cpu:.1f} s = {sim.cpu / floor.cpu:.1f}x",
                "10,000 nodes <= 5 s and <= 300 MiB",
            )


ROWS = {
    "cold": row_cold,
    "throughput": row_throughput,
    "memory": row_memory,
    "big-file": row_big_file,
    "jobs": row_jobs,
    "simulate": row_simulate,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, from {', '.join(ROWS)}")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    parser.add_argument("--nodes", type=int, nargs="+", default=[1000, 10000], help="fleet sizes for the simulate row")
    args = parser.parse_args()
    print(
        f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}; "
        f"CPU seconds, medians of {args.repeat}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.rows.split(","):
            ROWS[name](Path(tmp), args)


if __name__ == "__main__":
    main()
