"""Compare dralint with the recorded verdicts of the real v1.37 code (conformance/golden/).

Needs no Go: it reads the goldens that conformance/record.py wrote. For each input it lints the
same bytes with dralint and lists every disagreement; tests/test_conformance.py fails on one
that conformance/allowlist.yaml does not explain, and `python conformance/compare.py` prints
the agreement figures published in conformance/README.md.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))

from inputs import ROOT, Input, all_inputs  # noqa: E402

from dralint.cli.main import main as dralint_cli  # noqa: E402
from dralint.diagnostics import Diagnostic, Severity  # noqa: E402
from dralint.lint.engine import lint  # noqa: E402
from dralint.lint.options import LintOptions  # noqa: E402

ALLOWLIST = ROOT / "conformance" / "allowlist.yaml"
# Families whose error-severity rules stand for "the API server rejects this object".
SERVER_FAMILIES = ("API", "CEL", "YAML")
CEL_COST_RULE = "CEL004"
# Length is a validation limit, not the compiler's: it is judged with the field errors.
CEL_LENGTH_RULE = "CEL003"
NAMES_AN_ITEM = ("FieldValueDuplicate", "FieldValueNotFound", "FieldValueTooLong")
MAP_KEY = re.compile(r"\[([^\]0-9][^\]]*)\]")


@dataclass(frozen=True)
class Disagreement:
    """One place where dralint and the real code disagree."""

    input: str
    check: str  # recall | false-error | cel-compile | cel-cost | allocation
    object: str
    field: str
    detail: str

    def key(self) -> str:
        return f"{self.input} {self.check} {self.object} {self.field}"


@dataclass
class Tally:
    """Counts behind the published figures."""

    inputs: int = 0
    objects: int = 0
    validated: int = 0
    server_errors: int = 0
    recalled: int = 0
    accepted: int = 0
    falsely_rejected: int = 0
    selectors: int = 0
    selectors_agreed: int = 0
    templates: int = 0
    templates_agreed: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in vars(self):
            if name != "disagreements":
                setattr(self, name, getattr(self, name) + getattr(other, name))
        self.disagreements.extend(other.disagreements)


def object_label(kind: str, namespace: str | None, name: str) -> str:
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _ref_label(diag: Diagnostic) -> str | None:
    ref = diag.object
    return None if ref is None else object_label(ref.kind, ref.namespace, ref.name)


def lint_input(item: Input, folder: Path) -> tuple[list[Diagnostic], Path, Path | None]:
    """Lint the input's bytes from disk, every rule on, the way `dralint lint` would."""
    target = folder / item.name
    target.write_bytes(item.text)
    snapshot = None
    options = LintOptions(paths=[str(target)], profile="strict", feature_gates=dict(item.feature_gates))
    if item.slices is not None:
        snapshot = folder / "slices.yaml"
        snapshot.write_text(item.slices, encoding="utf-8")
        options.slices = [str(snapshot)]
    return list(lint(options).diagnostics), target, snapshot


def simulate_input(target: Path, snapshot: Path) -> dict[str, dict[str, Any]]:
    """`dralint simulate --format json`, keyed by template label."""
    result = CliRunner().invoke(dralint_cli, ["simulate", "--format", "json", "--slices", str(snapshot), str(target)])
    if result.exit_code not in (0, 1):
        return {}
    return {row["template"]: row for row in json.loads(result.output)["templates"]}


def server_errors_of(obj: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, type) of every reason the server gives for rejecting the object."""
    if obj.get("decodeError"):
        return [("", "DecodeError")]
    if not obj["served"]:
        return [("apiVersion", "NotServed")]
    return [(e["field"], e["type"]) for e in obj["errors"]]


def compare_input(item: Input, verdict: dict[str, Any], folder: Path) -> Tally:
    """All checks for one input: validation, CEL, allocation."""
    tally = Tally(inputs=1)
    diags, target, snapshot = lint_input(item, folder)
    server = [d for d in diags if d.severity == Severity.ERROR and d.rule.startswith(SERVER_FAMILIES)]
    for obj in verdict["objects"]:
        tally.objects += 1
        label = object_label(obj.get("kind", ""), obj.get("namespace") or _default_ns(obj), obj.get("name", ""))
        labels = (label, object_label(obj.get("kind", ""), None, obj.get("name", "")))
        mine = [d for d in server if _ref_label(d) in labels]
        stops = [d for d in diags if d.severity == Severity.ERROR and _ref_label(d) in labels]
        if obj["validated"] or obj.get("decodeError"):
            _compare_validation(item, obj, label, mine, stops, server, tally)
        # field paths repeat across the objects of a file: only this object's reports count
        _compare_cel(item, obj, label, [d for d in diags if _ref_label(d) in labels], tally)
    if snapshot is not None and verdict.get("allocation") is not None:
        _compare_allocation(item, verdict["allocation"], simulate_input(target, snapshot), tally)
    return tally


def _default_ns(obj: dict[str, Any]) -> str | None:
    return None if obj.get("kind") in CLUSTER_SCOPED else "default"


CLUSTER_SCOPED = {"DeviceClass", "ResourceSlice", "DeviceTaintRule", "Namespace", "Node"}


def _compare_validation(
    item: Input,
    obj: dict[str, Any],
    label: str,
    mine: list[Diagnostic],
    stops: list[Diagnostic],
    whole_file: list[Diagnostic],
    tally: Tally,
) -> None:
    """Recall: every server error has an error-severity dralint report at its field (any rule:
    REF003 stops an undeclared container claim as surely as an API rule). False errors: an
    API/CEL/YAML error on an object the server accepts."""
    tally.validated += 1
    errors = server_errors_of(obj)
    if not errors:
        tally.accepted += 1
        if mine:
            tally.falsely_rejected += 1
            for d in mine:
                tally.disagreements.append(
                    Disagreement(item.id, "false-error", label, d.field or "", f"{d.rule}: {d.message}")
                )
        return
    fields = {normal_path(d.field) for d in stops if d.field}
    for path, kind in errors:
        tally.server_errors += 1
        if (path == "" and whole_file) or (kind == "NotServed" and mine) or same_place(normal_path(path), kind, fields):
            tally.recalled += 1
        else:
            tally.disagreements.append(Disagreement(item.id, "recall", label, path, kind))


def normal_path(path: str) -> str:
    """Field paths with map keys written as `.key`: the server writes `attributes[model]`."""
    return MAP_KEY.sub(lambda m: "." + m.group(1), path)


def same_place(path: str, kind: str, fields: set[str]) -> bool:
    """Whether dralint reported at the server's field. A missing key has no position, so for
    Required dralint's report on the mapping that lacks it counts; for Duplicate, NotFound and
    TooLong the server names the list item or map and dralint the offending key inside it,
    which counts too."""
    if path in fields:
        return True
    if kind == "FieldValueRequired" and path.rpartition(".")[0] in fields:
        return True
    return kind in NAMES_AN_ITEM and any(f.startswith(path + ".") for f in fields)


def _compare_cel(item: Input, obj: dict[str, Any], label: str, diags: list[Diagnostic], tally: Tally) -> None:
    for sel in obj["cel"]:
        if sel.get("tooLong"):
            continue  # never compiled by the server; the length error is a field error
        tally.selectors += 1
        at_field = {d.rule for d in diags if d.field == sel["field"]}
        rejected = {
            d.rule
            for d in diags
            if d.field == sel["field"]
            and d.rule.startswith("CEL")
            and d.severity == Severity.ERROR
            and d.rule != CEL_LENGTH_RULE
        }
        compile_error = bool(sel.get("error"))
        ok = True
        if compile_error != bool(rejected - {CEL_COST_RULE}):
            ok = False
            tally.disagreements.append(
                Disagreement(
                    item.id, "cel-compile", label, sel["field"], sel.get("error") or f"dralint: {sorted(rejected)}"
                )
            )
        if not compile_error and sel["overLimit"] != (CEL_COST_RULE in at_field):
            ok = False
            tally.disagreements.append(
                Disagreement(item.id, "cel-cost", label, sel["field"], f"server cost {sel.get('cost', 0)}")
            )
        tally.selectors_agreed += ok


def _compare_allocation(
    item: Input, oracle: list[dict[str, Any]], simulated: dict[str, dict[str, Any]], tally: Tally
) -> None:
    for row in oracle:
        tally.templates += 1
        mine = simulated.get(row["template"])
        theirs = (
            "unresolved" if row.get("unresolved") else ("error" if row.get("error") else sorted(row["feasibleNodes"]))
        )
        ours: Any = "absent"
        if mine is not None:
            ours = "unresolved" if mine["unresolved"] else ("error" if mine["error"] else sorted(mine["feasibleNodes"]))
        if ours == theirs:
            tally.templates_agreed += 1
        else:
            tally.disagreements.append(
                Disagreement(item.id, "allocation", row["template"], "", f"server {theirs}, dralint {ours}")
            )


def load_golden(item: Input) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(item.golden.read_text(encoding="utf-8"))
    return data


def compare_all(inputs: Iterable[Input] | None = None) -> Tally:
    total = Tally()
    with tempfile.TemporaryDirectory(prefix="dralint-conformance-") as tmp:
        for number, item in enumerate(all_inputs() if inputs is None else inputs):
            folder = Path(tmp) / str(number)
            folder.mkdir()
            total.add(compare_input(item, load_golden(item), folder))
    return total


@dataclass(frozen=True)
class Allowed:
    """One reviewed allow-list entry: a pattern over disagreement keys and why it is accepted."""

    input: str
    check: str
    object: str
    field: str
    detail: str
    reason: str

    def matches(self, d: Disagreement) -> bool:
        """Shell-style match where only `*` and `?` are wild: `[0]` in a field path is literal."""
        return all(
            _wild_match(value, pattern)
            for value, pattern in (
                (d.input, self.input),
                (d.check, self.check),
                (d.object, self.object),
                (d.field, self.field),
                (d.detail, self.detail),
            )
        )


def _wild_match(value: str, pattern: str) -> bool:
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, value, re.DOTALL) is not None


def load_allowlist() -> list[Allowed]:
    raw = yaml.safe_load(ALLOWLIST.read_text(encoding="utf-8")) or []
    return [
        Allowed(e["input"], e["check"], e.get("object", "*"), e.get("field", "*"), e.get("detail", "*"), e["reason"])
        for e in raw
    ]


def percent(part: int, whole: int) -> str:
    return "n/a" if whole == 0 else f"{100 * part / whole:.1f}%"


def figures(t: Tally) -> str:
    """The agreement table published in conformance/README.md."""
    return "\n".join(
        [
            "| measure | agreement | on |",
            "|---|---|---|",
            f"| recall of server field errors | {percent(t.recalled, t.server_errors)} | {t.server_errors} errors |",
            "| false-error rate (API error on an object the server accepts) | "
            f"{percent(t.falsely_rejected, t.accepted)} | {t.accepted} accepted objects |",
            f"| CEL compile error and cost-limit agreement | {percent(t.selectors_agreed, t.selectors)} | "
            f"{t.selectors} selectors |",
            "| allocation agreement (`simulate` feasible nodes) | "
            f"{percent(t.templates_agreed, t.templates)} | {t.templates} pod templates |",
            f"| inputs / objects / objects the server validates | {t.inputs} / {t.objects} / {t.validated} | |",
        ]
    )


if __name__ == "__main__":
    tally = compare_all()
    print(figures(tally))
    if "-v" in sys.argv:
        for d in tally.disagreements:
            print(f"{d.key()}  [{d.detail}]")
