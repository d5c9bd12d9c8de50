"""The inputs the conformance oracle judges: the manifest fixtures under tests/ and examples/,
and every example of every rule in rules/*.yaml.

Both the recorder (which needs Go) and the comparison test (which does not) enumerate inputs
here, so a golden file and the dralint run it is compared with always see the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from dralint.k8s.allocator.examples import PREFIX, load_example
from dralint.lint.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "conformance" / "golden"
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

# Fixture directories whose files are manifests (not expected outputs or test data).
FIXTURE_GLOBS = ("tests/fix/golden/*/input.*", "examples/**/*.yaml", "conformance/fixtures/*.yaml")
# The snapshot each example directory is documented with (examples/*/README.md, docs/simulation.md).
EXAMPLE_SLICES = {
    "examples/scheduling": "example:h100-mig",
    "examples/migration": "examples/migration/cluster-state.yaml",
}


@dataclass(frozen=True)
class Input:
    """One manifest file to judge: its id (also its golden file's name), text and run options."""

    id: str
    text: bytes
    name: str = "manifest.yaml"
    slices: str | None = None
    feature_gates: dict[str, bool] = field(default_factory=dict)

    @property
    def golden(self) -> Path:
        return GOLDEN / f"{self.id}.json"

    def gates_flag(self) -> str:
        """The oracle's --feature-gates value (empty for the v1.37 defaults)."""
        return ",".join(f"{k}={str(v).lower()}" for k, v in sorted(self.feature_gates.items()))


def fixture_inputs() -> list[Input]:
    found: list[Input] = []
    for pattern in FIXTURE_GLOBS:
        for path in sorted(ROOT.glob(pattern)):
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix not in MANIFEST_SUFFIXES or rel in EXAMPLE_SLICES.values():
                continue
            slices = next((s for d, s in EXAMPLE_SLICES.items() if rel.startswith(d + "/")), None)
            found.append(Input(rel, path.read_bytes(), path.name, slices_text(slices)))
    return found


def rule_inputs() -> list[Input]:
    found: list[Input] = []
    for rule in sorted(load_catalog().values(), key=lambda r: r.id):
        for kind in ("bad", "good"):
            for index, example in enumerate(getattr(rule, kind)):
                name = str(example.options.get("filename", "example.yaml"))
                found.append(
                    Input(
                        f"rules/{rule.id}/{kind}-{index}",
                        example.manifest.encode("utf-8"),
                        name,
                        example.slices,
                        dict(example.options.get("feature_gates") or {}),
                    )
                )
    return found


def all_inputs() -> list[Input]:
    return fixture_inputs() + rule_inputs()


def slices_text(reference: str | None) -> str | None:
    """The snapshot as text: a bundled example rendered as JSON documents, or a file's text."""
    if reference is None:
        return None
    if reference.startswith(PREFIX):
        return "\n---\n".join(json.dumps(obj, sort_keys=True) for obj in load_example(reference[len(PREFIX) :]))
    return (ROOT / reference).read_text(encoding="utf-8")
