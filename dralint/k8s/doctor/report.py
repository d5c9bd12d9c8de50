"""The doctor's answer as plain data (JSON) or as text blocks for people, one block per pod."""

from __future__ import annotations

from typing import Any

from dralint.k8s.doctor.diagnose import PROBLEM, Diagnosis

_MARK = {"ok": "ok  ", "note": "note", "warning": "WARN", PROBLEM: "FAIL"}


def as_data(diagnoses: list[Diagnosis], skipped: list[str]) -> dict[str, Any]:
    """Every pod with its steps; ``stuck`` is the first problem's message (null when none);
    ``skipped``, the dump's documents and objects left out, each with its place and reason."""
    return {
        "skipped": skipped,
        "pods": [
            {
                "namespace": d.namespace,
                "name": d.name,
                "phase": d.phase,
                "node": d.node,
                "stuck": d.stuck.message if d.stuck else None,
                "steps": [
                    {"check": s.check, "status": s.status, "message": s.message, "command": s.command} for s in d.steps
                ],
            }
            for d in diagnoses
        ],
        "stuck": sum(1 for d in diagnoses if d.stuck),
    }


def as_text(diagnoses: list[Diagnosis], skipped: list[str], source: str = "the dump") -> str:
    """The objects left out, then one block per pod: header, the verdict, then each step with
    its evidence command."""
    lines = [f"skipped: {why}" for why in skipped]
    if not diagnoses:
        return "\n".join([*lines, f"no Pending or failing pod that uses devices in {source}"]) + "\n"
    if lines:
        lines.append("")
    for d in diagnoses:
        where = f" on {d.node}" if d.node else ""
        lines.append(f"Pod {d.namespace}/{d.name}: {d.phase}{where}")
        lines.append(f"  STUCK: {d.stuck.message}" if d.stuck else f"  no cause found in {source}")
        for step in d.steps:
            lines.append(f"  {_MARK.get(step.status, '    ')} {step.check}: {step.message}")
            lines.append(f"         $ {step.command}")
        lines.append("")
    stuck = sum(1 for d in diagnoses if d.stuck)
    lines.append(f"{len(diagnoses)} pod(s) examined, {stuck} stuck for a reason named above")
    return "\n".join(lines) + "\n"
