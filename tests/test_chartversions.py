"""Chart version constraints (dralint.k8s.chartversions) against the library Helm, Flux and
Argo CD read them with: the examples of its README always, the library itself with Go."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dralint.k8s.chartversions import matching

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "conformance"))
from gobuild import go_build  # noqa: E402

VERSIONS = ["0.1.0", "0.2.3", "0.2.9", "1.2.0", "1.2.3", "1.3.0", "2.0.0", "25.3.2", "25.8.0", "25.8.1", "25.12.0"]


@pytest.mark.parametrize(
    ("constraint", "expected"),
    [
        # Masterminds/semver v3.5.0 README.md, "Checking Version Constraints"
        ("1.2.x", ["1.2.0", "1.2.3"]),  # >= 1.2.0, < 1.3.0
        ("~1.2.3", ["1.2.3"]),  # >= 1.2.3, < 1.3.0
        ("~1", ["1.2.0", "1.2.3", "1.3.0"]),  # >= 1, < 2
        ("^1.2.3", ["1.2.3", "1.3.0"]),  # >= 1.2.3, < 2.0.0
        ("^0.2.3", ["0.2.3", "0.2.9"]),  # >= 0.2.3 < 0.3.0
        ("1.2 - 1.3.0", ["1.2.0", "1.2.3", "1.3.0"]),  # >= 1.2 <= 1.3.0
        ("<= 2.x", ["0.1.0", "0.2.3", "0.2.9", "1.2.0", "1.2.3", "1.3.0", "2.0.0"]),  # < 3
        (">= 1.2 < 2.0.0 || >= 25.8.1", ["1.2.0", "1.2.3", "1.3.0", "25.8.1", "25.12.0"]),
        ("25.8.0, 25.8.1", []),  # a comma is AND
        ("25.3.2 || 25.12.0", ["25.3.2", "25.12.0"]),
        ("v25.8.0", ["25.8.0"]),
        ("*", VERSIONS),
    ],
)
def test_the_librarys_documented_examples(constraint, expected):
    assert matching(constraint, VERSIONS) == expected


@pytest.mark.parametrize("constraint", ["", "latest", ">=", "1.2.3 -", "1x2", "> 1 <", "a" * 300, "1.2.3.4"])
def test_what_the_library_refuses_is_none(constraint):
    assert matching(constraint, VERSIONS) is None


@given(st.text(alphabet=st.sampled_from(list("0123456789.xX*^~<>=!|, -v+abAB")), max_size=60) | st.text(max_size=40))
def test_any_text_is_an_answer_or_none_never_an_exception(constraint):
    kept = matching(constraint, VERSIONS)
    assert kept is None or set(kept) <= set(VERSIONS)


def _constraints() -> list[str]:
    """Every operator with every shape of version, then random AND/OR lists of them."""
    operators = ["", "=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^"]
    shapes = ["*", "x", "0", "1", "25", "0.2", "1.x", "25.8", "25.X", "0.0.3", "0.2.3", "1.2.3", "25.8.0", "25.8.*"]
    shapes += ["25.8.0-0", "1.2.3-beta.1", "v1.2", "25.12.0+build"]
    single = [f"{op}{shape}" for op, shape in itertools.product(operators, shapes)]
    single += [f"{op} {shape}" for op, shape in itertools.product(operators[:4], shapes[:6])]
    chosen = random.Random(7)
    lists = []
    for _ in range(300):
        alternatives = [
            chosen.choice([" ", ", ", ","]).join(chosen.sample(single, chosen.randint(1, 3)))
            for _ in range(chosen.randint(1, 2))
        ]
        lists.append(" || ".join(alternatives))
    hyphens = [f"{a} - {b}" for a, b in itertools.product(["0.2", "1.2.3", "25.3"], ["1.x", "25.8.0", "25"])]
    return single + lists + hyphens + ["", "latest", ">=", "1.2.3 -", "1x2", "> 1 <", "1.2.3.4", "=>1.2 <=25"]


@pytest.mark.go
def test_agrees_with_the_library_helm_uses():
    binary = go_build(Path(__file__).resolve().parent.parent / "conformance" / "chartversions")
    constraints = _constraints()
    question = json.dumps({"constraints": constraints, "versions": VERSIONS})
    answers = json.loads(subprocess.run([binary], input=question, capture_output=True, text=True, check=True).stdout)
    differing = {c: (matching(c, VERSIONS), answers[c]) for c in constraints if matching(c, VERSIONS) != answers[c]}
    assert differing == {}
    assert sum(answers[c] is None for c in constraints) == 7  # the refusals were judged too
