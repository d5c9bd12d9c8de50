"""Time from a ``didChange`` to the ``publishDiagnostics`` that answers it, in ``dralint lsp``.

A workspace of 500 manifests (bench/generate.py's mix, nine documents each) and one file of
about 2,000 lines open in it; each turn changes one value of that file and waits for its
diagnostics. The server runs as a real subprocess, driven by pygls's client
(tests/lsp_session.py), with ``debounceMs`` 0: the figure is the lint, not the pause the
server waits for a burst of keystrokes to end (50 ms by default, added to it when typing).

    python bench/lsp.py               # median of 15 turns; goal < 100 ms
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from lsp_session import Session, uri  # noqa: E402

from bench.generate import generate  # noqa: E402

GOAL_SECONDS = 0.1


def workspace(root: Path, files: int, lines: int) -> Path:
    """``files`` manifests under ``root`` and the edited file, about ``lines`` long."""
    for number in range(files):
        (root / "teams" / f"team-{number % 20}").mkdir(parents=True, exist_ok=True)
        (root / "teams" / f"team-{number % 20}" / f"app-{number}.yaml").write_text(generate(9, start=number * 9))
    count = 9
    while generate(count, start=files * 9).count("\n") < lines:
        count += 9
    edited = root / "edited.yaml"
    edited.write_text(generate(count, start=files * 9))
    return edited


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(root: Path, edited: Path, turns: int) -> tuple[list[float], float]:
    """Each turn's wall time, and the server's CPU time per turn (what a loaded machine's
    other processes do not inflate)."""
    times = []
    async with Session(root, {"debounceMs": 0}) as session:
        text = edited.read_text()
        await session.open(edited, text)
        pid = session.client._server.pid  # type: ignore[attr-defined]  # pygls keeps the process here
        for turn in range(turns + 1):
            if turn == 1:
                cpu = cpu_seconds(pid)
            changed = text.replace("replicas: 1", f"replicas: {2 + turn % 3}", 1)
            sent = await session.change(edited, changed)
            await session.diagnostics(edited)
            if turn:  # the first change warms what the first lint did not reach
                times.append(session.arrival[uri(edited)] - sent)
        cpu = (cpu_seconds(pid) - cpu) / turns
    return times, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        edited = workspace(root, args.files, args.lines)
        lines = edited.read_text().count("\n")
        times, cpu = asyncio.run(measure(root, edited, args.turns))
    median = statistics.median(times)
    verdict = "meets" if median < GOAL_SECONDS else "misses"
    print(
        f"didChange -> publishDiagnostics, {lines}-line file in a workspace of {args.files} manifests: "
        f"median {median * 1000:.0f} ms of {len(times)} (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}), "
        f"server CPU {cpu * 1000:.0f} ms a change; {verdict} the goal of {GOAL_SECONDS * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
