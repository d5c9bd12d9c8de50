"""dralint against the real Kubernetes v1.37 code, through the verdicts recorded in
conformance/golden/ (conformance/README.md). No Go is needed except for the generator test
(marked ``go``: it runs only with ``DRALINT_GO_TESTS=1``).

Every disagreement must be explained by a reviewed entry of conformance/allowlist.yaml, and
every entry must still explain one, so the list can neither hide a new gap nor go stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "conformance"))

from compare import Tally, compare_all, compare_input, figures, load_allowlist  # noqa: E402
from generate import as_inputs, generate  # noqa: E402
from inputs import all_inputs  # noqa: E402
from record import build_oracle, run_oracle  # noqa: E402


@pytest.fixture(scope="module")
def tally() -> Tally:
    return compare_all()


def test_every_input_has_a_recorded_verdict():
    missing = [item.id for item in all_inputs() if not item.golden.exists()]
    assert not missing, f"no golden verdict (run python conformance/record.py): {missing}"


def test_the_goldens_hold_real_verdicts(tally):
    # The oracle validated objects and found both accepted and rejected ones: an empty or
    # all-accepting golden set would make every other check here pass vacuously.
    assert tally.validated > 100 and tally.accepted > 50 and tally.server_errors > 50
    assert tally.selectors > 20 and tally.templates > 5


def test_every_disagreement_is_allow_listed(tally):
    allowed = load_allowlist()
    unexplained = [f"{d.key()}  [{d.detail}]" for d in tally.disagreements if not any(a.matches(d) for a in allowed)]
    assert not unexplained, "dralint disagrees with the v1.37 code:\n" + "\n".join(unexplained)


def test_every_allow_list_entry_is_still_needed(tally):
    unused = [a for a in load_allowlist() if not any(a.matches(d) for d in tally.disagreements)]
    assert not unused, f"allow-list entries that match no disagreement (remove them): {unused}"


def test_every_allow_list_entry_has_a_reason():
    assert all(len(a.reason.split()) >= 4 for a in load_allowlist())


def test_published_figures_are_the_measured_ones(tally):
    readme = (ROOT / "conformance" / "README.md").read_text(encoding="utf-8")
    assert figures(tally) in readme, "conformance/README.md figures are stale: run python conformance/compare.py"


@pytest.mark.go
def test_generated_manifests_agree_with_the_oracle(tmp_path):
    inputs = as_inputs(generate(1500))
    verdicts = run_oracle(build_oracle(), inputs)
    allowed = load_allowlist()
    unexplained = []
    for item in inputs:
        folder = tmp_path / item.id
        folder.mkdir(parents=True)
        for d in compare_input(item, verdicts[item.id], folder).disagreements:
            if not any(a.matches(d) for a in allowed):
                unexplained.append(f"{d.key()}  [{d.detail}]\n{item.text.decode()}")
    assert not unexplained, "generated objects dralint disagrees on (record with generate.py --save):\n" + "\n".join(
        unexplained[:20]
    )
