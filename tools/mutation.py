"""Mutation testing of dralint's core packages with mutmut: which deliberate bugs the tests miss.

    python tools/mutation.py references            # one package (minutes to an hour)
    python tools/mutation.py checks allocator cel apivalidation references --jobs 2
    python tools/mutation.py cel --sample 150 --seed 1   # a seeded sample of the mutants

Each package is mutated in a scratch copy of the tracked files (``--workdir``, default a
directory under the system's temporary one), so the checkout is never touched; mutmut
(``pip install mutmut``, 3.x) runs the package's own tests against each mutant. The score is
printed per package: killed / (killed + survived), with the surviving mutants listed for
``mutmut show NAME`` in the work directory. It is not part of the test command: a run takes
from minutes (references) to hours (checks). docs/testing.md holds the last scores.

``--sample N`` bounds the time: every mutant is generated, but only N of them, drawn with
``random.Random(SEED).sample`` from the sorted mutant names, are tested; the same mutmut
version, code and seed draw the same sample (written to ``sample.txt`` in the work directory).
Its score is that of the sample (killed / tested of N out of all M), not of the package.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: package -> (what is mutated, the tests that judge it)
PACKAGES = {
    "references": (
        ["dralint/lint/refs.py"],
        [
            "tests/test_refs.py",
            "tests/test_core_references.py",
            "tests/test_claim_references.py",
            "tests/test_pod_references.py",
            "tests/test_refs_robustness.py",
        ],
    ),
    "allocator": (
        ["dralint/k8s/allocator/"],
        [
            "tests/test_allocator.py",
            "tests/test_allocator_properties.py",
            "tests/test_allocator_robustness.py",
            "tests/test_simulate.py",
            "tests/test_conformance.py",
            "tests/test_scheduler_conformance.py",
        ],
    ),
    "cel": (
        ["dralint/k8s/cel/"],
        [
            "tests/test_cel_check.py",
            "tests/test_cel_evaluate.py",
            "tests/test_cel_cost.py",
            "tests/test_cel_lints.py",
            "tests/test_cel_checks.py",
            "tests/test_conformance.py",
        ],
    ),
    "apivalidation": (
        ["dralint/k8s/apivalidation/"],
        [
            "tests/test_apivalidation.py",
            "tests/test_api_fidelity.py",
            "tests/test_api_positions.py",
            "tests/test_api_robustness.py",
            "tests/test_conformance.py",
        ],
    ),
    "checks": (["dralint/checks/"], ["tests/"]),
}


def _config(mutate: list[str], tests: list[str]) -> str:
    listed = ", ".join(json.dumps(p) for p in mutate)
    judged = ", ".join(json.dumps(t) for t in tests)
    return (
        "\n[tool.mutmut]\n"
        f"paths_to_mutate = [{listed}]\n"
        'also_copy = ["dralint/", "rules/", "schemas/", "examples/", "conformance/"]\n'
        f"tests_dir = [{judged}]\n"
        f"pytest_add_cli_args_test_selection = [{judged}]\n"
        'pytest_add_cli_args = ["-x", "-q", "-p", "no:cacheprovider"]\n'
    )


def _copy_tracked(into: Path) -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)


#: Added to the scratch copy's tests/conftest.py. mutmut runs each mutant's tests in a process
#: forked from one that has run the tests already, so whatever the code memoises in functools
#: caches (compiled selectors with their cost, schemas) would be the unmutated code's results
#: and the mutants behind them would survive unexecuted: a mutant in the CEL cost estimator that
#: fails every test it reaches passed them all. Each test starts with empty caches instead.
_FRESH_CACHES = """

import sys as _sys


@pytest.fixture(autouse=True)
def _fresh_caches_for_each_mutant():
    for _module in list(_sys.modules.values()):
        if getattr(_module, "__name__", "").startswith("dralint"):
            for _value in list(vars(_module).values()):
                if callable(getattr(_value, "cache_clear", None)):
                    _value.cache_clear()
"""

#: mutmut's first step of ``mutmut run``, the mutants written to mutants/ without testing any
_GENERATE = (
    "import mutmut.__main__ as m; m.set_mutant_under_test('mutant_generation'); "
    "m.makedirs('mutants', exist_ok=True); m.copy_src_dir(); m.copy_also_copy_files(); m.create_mutants(1)"
)


def mutant_names(workdir: Path) -> list[str]:
    """Every mutant's name, sorted, generating the mutants first."""
    subprocess.run([sys.executable, "-c", _GENERATE], cwd=workdir, check=True, stdout=subprocess.DEVNULL)
    names = []
    for meta in (workdir / "mutants").rglob("*.py.meta"):
        names += json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    return sorted(names)


def score(workdir: Path, only: set[str] | None = None) -> dict[str, object]:
    """The counts of ``mutmut results`` in ``workdir`` (of the mutants ``only`` names, if given),
    and the mutants that survived."""
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=workdir, capture_output=True, text=True
    ).stdout
    counts: dict[str, int] = {}
    survived = []
    for line in out.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name and (only is None or name in only):
            counts[status] = counts.get(status, 0) + 1
            if status == "survived":
                survived.append(name)
    killed = counts.get("killed", 0)
    judged = killed + counts.get("survived", 0)
    return {"counts": counts, "score": round(killed / judged, 3) if judged else None, "survived": survived}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("packages", nargs="+", choices=sorted(PACKAGES))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants tested at once")
    parser.add_argument("--workdir", type=Path, help="scratch directory (kept, for `mutmut show`)")
    parser.add_argument("--sample", type=int, metavar="N", help="test only N mutants of each package, drawn by --seed")
    parser.add_argument("--seed", type=int, default=0, help="the seed of --sample's draw (default 0)")
    args = parser.parse_args()
    for package in args.packages:
        workdir = (
            args.workdir / package if args.workdir else Path(tempfile.mkdtemp(prefix=f"dralint-mutation-{package}-"))
        )
        workdir.mkdir(parents=True, exist_ok=True)
        _copy_tracked(workdir)
        with open(workdir / "tests" / "conftest.py", "a", encoding="utf-8") as conftest:
            conftest.write(_FRESH_CACHES)
        mutate, tests = PACKAGES[package]
        with open(workdir / "pyproject.toml", "a", encoding="utf-8") as config:
            config.write(_config(mutate, tests))
        started = time.monotonic()
        names: list[str] = []
        sample: list[str] = []
        if args.sample:
            names = mutant_names(workdir)
            sample = sorted(random.Random(args.seed).sample(names, min(args.sample, len(names))))
            (workdir / "sample.txt").write_text("\n".join(sample) + "\n", encoding="utf-8")
            print(f"{package}: testing {len(sample)} of {len(names)} mutants (seed {args.seed})")
        run = [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.jobs), *sample]
        subprocess.run(run, cwd=workdir)
        result = score(workdir, set(sample) if sample else None)
        of = f" of a sample of {len(sample)} of {len(names)} mutants, seed {args.seed}" if sample else ""
        minutes = (time.monotonic() - started) / 60
        print(
            f"{package}: score {result['score']}{of} {result['counts']} in {minutes:.0f} min (work directory {workdir})"
        )
        for name in result["survived"]:
            print(f"  survived: {name}")


if __name__ == "__main__":
    main()
