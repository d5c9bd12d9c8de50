"""dralint simulate's verdict on each scenario, compared with the real scheduler's recorded one.

Measures, per scenario (a measure that does not apply to a scenario is not counted):

- ``fits``: the first replica is bound iff dralint finds a feasible node for it;
- ``node``: the scheduler's node for it is one of dralint's feasible nodes;
- ``devices``: when dralint has exactly one feasible node and the scheduler binds there, the
  number of devices the pod's claims hold agrees (``allocationMode: All``, ``count``,
  ``firstAvailable``'s choice; which of several equal devices is picked is not compared);
- ``replicas``: as many replicas are bound as dralint places;
- ``reason``: when the first replica fits nowhere, the scheduler's per-node reasons
  ("2 node(s) had untolerated taint(s), 1 cannot allocate all claims") and dralint's agree in
  kind and count (node selection, taints, extended resources, devices); when the scheduler
  fails with an error (a ``SchedulerError`` that stops the whole pod, such as a constraint
  that ``allocationMode: All`` cannot meet), dralint reports the same error.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from scenarios import Scenario

from dralint.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
VERDICTS = ROOT / "conformance" / "scheduler" / "verdicts.json"
ALLOWLIST = ROOT / "conformance" / "scheduler" / "allowlist.yaml"
MEASURES = ("fits", "node", "devices", "replicas", "reason")

_SCHEDULER_PART = re.compile(r"(\d+) (.+)")


def simulate(scenario: Scenario) -> dict[str, Any]:
    """``dralint simulate --format json`` on the scenario's workload and snapshot: its one template."""
    with tempfile.TemporaryDirectory(prefix="dralint-scenario-") as tmp:
        workload = Path(tmp) / "workload.yaml"
        snapshot = Path(tmp) / "cluster.yaml"
        workload.write_text(yaml.safe_dump_all(scenario.workload, sort_keys=False))
        snapshot.write_text(yaml.safe_dump_all(scenario.snapshot, sort_keys=False))
        result = CliRunner().invoke(
            main, ["simulate", str(workload), "--slices", str(snapshot), "--format", "json", "-j", "1", "-q"]
        )
    if result.exit_code not in (0, 1):
        raise RuntimeError(f"{scenario.id}: dralint simulate exited {result.exit_code}: {result.output}")
    rows = json.loads(result.output)["templates"]
    if len(rows) != 1:
        raise RuntimeError(f"{scenario.id}: dralint simulate gave {len(rows)} templates")
    return rows[0]


def category(reason: str) -> str:
    """The kind of a per-node reason, from the scheduler's words or dralint's."""
    text = reason.lower()
    if "node affinity/selector" in text:
        return "node selection"
    if "untolerated taint" in text and "device" not in text:
        return "node taint"
    if text.startswith("insufficient ") or "device plugin" in text:
        return "extended resource"
    if "unschedulable" in text and "node(s) were" in text:
        return "unschedulable"
    return "devices"


def scheduler_reasons(message: str) -> Counter[str]:
    """``0/3 nodes are available: 2 X, 1 Y. preemption: ...`` -> {kind of X: 2, kind of Y: 1}."""
    head = message.split(". preemption:")[0]
    _, _, parts = head.partition(": ")
    counts: Counter[str] = Counter()
    for part in parts.rstrip(".").split(", "):
        found = _SCHEDULER_PART.match(part.strip())
        if found:
            counts[category(found.group(2))] += int(found.group(1))
    return counts


def dralint_reasons(row: dict[str, Any]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for reason, nodes in row["reasons"].items():
        counts[category(reason)] += len(nodes)
    return counts


def _after_request(error: str) -> str:
    """An allocation error without the claim's name (the scheduler names the generated claim,
    dralint the template): ``request nic: cannot add device ...``."""
    return error[error.find(", request ") + 2 :] if ", request " in error else error


def compare(scenario: Scenario, recorded: dict[str, Any], row: dict[str, Any]) -> dict[str, str]:
    """measure -> "agree", or what differs; measures that do not apply are left out."""
    first = recorded["replicas"][0]
    feasible = row["feasibleNodes"]
    out: dict[str, str] = {}

    def judge(measure: str, agree: bool, detail: str) -> None:
        out[measure] = "agree" if agree else detail

    bound = first["node"] is not None
    judge(
        "fits",
        bound == bool(feasible),
        f"scheduler {'binds to ' + first['node'] if bound else 'leaves it Pending'}; dralint feasible {feasible}",
    )
    if bound and feasible:
        judge("node", first["node"] in feasible, f"scheduler binds to {first['node']}; dralint feasible {feasible}")
        if feasible == [first["node"]]:
            mine = sorted(d["device"] for claim in row["claims"] for d in claim["devices"])
            theirs = first["devices"]
            judge(
                "devices",
                len(mine) == len(theirs),
                f"scheduler allocates {theirs}; dralint {mine}",
            )
    placed = sum(1 for r in recorded["replicas"] if r["node"])
    judge("replicas", placed == row["placed"], f"scheduler binds {placed} replica(s); dralint places {row['placed']}")
    if not bound and not feasible and first.get("error"):
        same = bool(row["error"]) and _after_request(first["message"]) == _after_request(row["error"])
        judge("reason", same, f"scheduler error {first['message']!r}; dralint error {row['error']!r}")
    elif not bound and not feasible:
        theirs, mine = scheduler_reasons(first["message"]), dralint_reasons(row)
        judge("reason", theirs == mine, f"scheduler {dict(theirs)} ({first['message']}); dralint {dict(mine)}")
    return out


def ruled_out_on_purpose(scenario: Scenario, recorded: dict[str, Any], row: dict[str, Any]) -> bool:
    """Every node the scheduler bound a replica to that dralint does not use is one dralint rules
    out on purpose: its kubelet predates what a DRA allocation needs, or its device plugin
    advertises an extended resource a DeviceClass maps. Which of several equal nodes the
    scheduler picks varies between runs, so a live run may meet these where the recording did not."""
    from dralint.k8s.kubelet import too_old

    mapped = {
        o["spec"]["extendedResourceName"]
        for o in scenario.snapshot
        if o["kind"] == "DeviceClass" and o["spec"].get("extendedResourceName")
    }
    nodes = {o["metadata"]["name"]: o["status"] for o in scenario.snapshot if o["kind"] == "Node"}

    def on_purpose(name: str) -> bool:
        status = nodes.get(name, {})
        old = too_old(status.get("nodeInfo", {}).get("kubeletVersion", ""), ("dra", "extended-resource"))
        return old is not None or bool(mapped & set(status.get("allocatable", {})))

    used = {r["node"] for r in recorded["replicas"] if r["node"]} - set(row["replicaNodes"])
    return bool(used) and all(map(on_purpose, used))


def load_verdicts() -> dict[str, dict[str, Any]]:
    return json.loads(VERDICTS.read_text()) if VERDICTS.exists() else {}


def load_allowlist() -> dict[str, dict[str, str]]:
    """scenario id -> {measure: why dralint and the scheduler differ there}."""
    if not ALLOWLIST.exists():
        return {}
    return yaml.safe_load(ALLOWLIST.read_text()) or {}


def figures(results: dict[str, dict[str, str]]) -> dict[str, tuple[int, int]]:
    """measure -> (agreeing scenarios, scenarios it applies to)."""
    return {
        measure: (
            sum(1 for r in results.values() if r.get(measure) == "agree"),
            sum(1 for r in results.values() if measure in r),
        )
        for measure in MEASURES
    }


def measure_all() -> dict[str, dict[str, str]]:
    """scenario id -> compare()'s answer, for every scenario with a recorded verdict."""
    from scenarios import scenarios

    recorded = load_verdicts()
    return {s.id: compare(s, recorded[s.id], simulate(s)) for s in scenarios() if s.id in recorded}


def table(found: dict[str, tuple[int, int]]) -> str:
    """conformance/README.md's rows, one per measure."""
    return "\n".join(
        f"| {measure} | {100 * agree / total:.1f}% | {total} scenarios |" for measure, (agree, total) in found.items()
    )


if __name__ == "__main__":
    results = measure_all()
    allow = load_allowlist()
    print(table(figures(results)))
    for sid, found in sorted(results.items()):
        for measure, detail in found.items():
            if detail != "agree":
                mark = "allowed" if measure in allow.get(sid, {}) else "UNEXPLAINED"
                print(f"{mark} {sid}.{measure}: {detail}")
