"""Input written to hurt: aliases that expand to gigabytes, numbers of thousands of digits,
values of the wrong type anywhere. Each is a finding at its place in every command, in bounded
memory, never a traceback (docs/robustness.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from click.testing import CliRunner

from dralint.cli.main import main

#: Peak resident memory a run on the worst alias shapes may reach (docs/robustness.md): one
#: 1 MB string aliased 2,000 times measured 29 MiB (without the character budget it took
#: 5.9 GB), the largest expansion the budget lets through 105 MiB.
ALIAS_RSS_BOUND_KIB = 150 * 1024


def peak_rss_kib(*args: str) -> tuple[int, subprocess.CompletedProcess]:
    """Run ``python -m dralint ARGS`` in a child of a child, and return the grandchild's peak RSS.

    The child's ``RUSAGE_CHILDREN`` covers only the one run it waited for, where this process's
    would hold the largest of every run the test session made."""
    probe = textwrap.dedent(
        """
        import json, resource, subprocess, sys
        done = subprocess.run([sys.executable, "-m", "dralint", *sys.argv[1:]], capture_output=True, text=True)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        print(json.dumps([peak, done.returncode, done.stdout, done.stderr]))
        """
    )
    out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True)
    peak, code, stdout, stderr = json.loads(out.stdout)
    return peak, subprocess.CompletedProcess(args, code, stdout, stderr)


def alias_file(tmp_path: Path, text: str = "a" * 1_000_000, aliases: int = 2_000) -> Path:
    path = tmp_path / "aliases.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
        f"  labels: &s {{k: {text}}}\ndata:\n  l: [{', '.join(['*s'] * aliases)}]\n"
    )
    return path


def test_one_long_string_aliased_two_thousand_times_is_one_yaml006_in_bounded_memory(tmp_path):
    path = alias_file(tmp_path)
    peak, done = peak_rss_kib("lint", "--no-config", "--format", "json", str(path))
    assert done.returncode == 1, done.stderr
    (diag,) = json.loads(done.stdout)["diagnostics"]
    assert diag["rule"] == "YAML006" and (diag["line"], diag["column"]) == (7, 6 + 4 * 4 + 1)
    assert "characters of text" in diag["message"] and "times the" in diag["message"]
    assert peak < ALIAS_RSS_BOUND_KIB, f"peak RSS {peak} KiB"


def pod_of_aliased_containers(tmp_path: Path, aliases: int) -> Path:
    """A pod whose containers are one of 4,001 nodes aliased: the most nodes aliases can add
    to a small document within go-yaml's share is at 95 aliases (380,095 of 384,191 nodes)."""
    container = "{name: c, image: i, env: [" + ", ".join(f"{{name: e{i}, value: v}}" for i in range(800)) + "]}"
    path = tmp_path / "pod.yaml"
    path.write_text(
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nx: &c {container}\n"
        f"spec:\n  containers: [{', '.join(['*c'] * aliases)}]\n"
    )
    return path


def test_the_largest_expansion_within_the_budget_is_linted_in_bounded_memory(tmp_path):
    peak, done = peak_rss_kib("lint", "--no-config", "--format", "json", str(pod_of_aliased_containers(tmp_path, 95)))
    report = json.loads(done.stdout)
    assert "YAML006" not in done.stdout and report["summary"]["objects"] == 1
    assert peak < ALIAS_RSS_BOUND_KIB, f"peak RSS {peak} KiB"


def test_five_aliases_more_pass_the_share_the_api_server_accepts(tmp_path):
    result = CliRunner().invoke(
        main, ["lint", "--no-config", "--format", "json", str(pod_of_aliased_containers(tmp_path, 100))]
    )
    (diag,) = json.loads(result.output)["diagnostics"]
    assert diag["rule"] == "YAML006" and "excessive aliasing" in diag["message"]


def test_the_same_text_aliased_within_the_budget_is_linted(tmp_path):
    path = alias_file(tmp_path, "a" * 1000, aliases=20)
    result = CliRunner().invoke(main, ["lint", "--no-config", "--format", "json", str(path)])
    report = json.loads(result.output)
    assert report["summary"]["objects"] == 1 and "YAML006" not in result.output


ROOT = Path(__file__).resolve().parent.parent
DIGITS = "9" * 5000
SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: s
spec:
  driver: gpu.example.com
  nodeName: n1
  pool:
    name: p
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: d0
    attributes:
      big: {int: NUMBER}
"""


def invoke(*args: str):
    """Run the command line in-process (``stdout`` and ``stderr`` apart)."""
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def slice_file(tmp_path: Path, number: str) -> Path:
    path = tmp_path / "slice.yaml"
    path.write_text(SLICE.replace("NUMBER", number))
    return path


def test_an_integer_of_five_thousand_digits_is_a_finding_at_its_place_in_lint(tmp_path):
    path = slice_file(tmp_path, DIGITS)
    (diag,) = json.loads(invoke("lint", "--no-config", "--format", "json", str(path)).stdout)["diagnostics"]
    assert (diag["rule"], diag["line"], diag["column"]) == ("API002", 15, 18)
    assert "must be a finite number" in diag["message"] and "4300" not in diag["message"]


def test_an_integer_past_int64_is_a_finding_and_one_within_it_is_not(tmp_path):
    too_big = slice_file(tmp_path, str(2**63))
    (diag,) = json.loads(invoke("lint", "--no-config", "--format", "json", str(too_big)).stdout)["diagnostics"]
    assert (diag["rule"], diag["line"], diag["column"]) == ("API002", 15, 18)
    assert "must fit in a 64-bit integer" in diag["message"]
    fits = slice_file(tmp_path, str(2**63 - 1))
    assert json.loads(invoke("lint", "--no-config", "--format", "json", str(fits)).stdout)["diagnostics"] == []


def test_the_five_thousand_digit_integer_in_a_snapshot_is_a_finding_in_lint_slices_and_simulate(tmp_path):
    path = slice_file(tmp_path, DIGITS)
    manifests = str(ROOT / "examples" / "scheduling")
    report = json.loads(invoke("lint", "--no-config", "--format", "json", "--slices", str(path), manifests).stdout)
    (diag,) = [d for d in report["diagnostics"] if d["path"] == str(path)]
    assert (diag["rule"], diag["line"], diag["column"]) == ("SCH005", 15, 18)
    assert "ResourceSlice 's'" in diag["message"] and "refuses such a slice" in diag["message"]
    simulated = invoke("simulate", "--slices", str(path), manifests)
    assert f"{path}:15:18: ResourceSlice 's'" in simulated.stderr and "Traceback" not in simulated.output


def test_the_five_thousand_digit_integer_is_a_finding_in_doctor(tmp_path):
    path = slice_file(tmp_path, DIGITS)
    alone = invoke("doctor", str(path))
    assert alone.exit_code == 2 and f"{path}:15:18: ResourceSlice s: spec.devices[0]" in alone.stderr
    pod = (ROOT / "examples" / "doctor").glob("*.yaml")
    dump = tmp_path / "dump.yaml"
    dump.write_text("---\n".join([path.read_text(), *(p.read_text() for p in sorted(pod))]))
    report = json.loads(invoke("doctor", "--format", "json", str(dump)).stdout)
    (skipped,) = report["skipped"]
    assert skipped.startswith(f"{dump}:15:18: ResourceSlice s:") and skipped.endswith("it was left out")


def test_a_quantity_of_five_thousand_digits_is_a_finding_in_every_command(tmp_path):
    """Upstream reads any number of digits; dralint reads up to 200 and says so, where Python's
    conversion stopped the check with "Exceeds the limit (4300 digits)" (INT001)."""
    path = tmp_path / "slice.yaml"
    path.write_text(
        SLICE.replace("attributes:\n      big: {int: NUMBER}", f"capacity:\n      mem: {{value: '{DIGITS}Gi'}}")
    )
    (diag,) = json.loads(invoke("lint", "--no-config", "--format", "json", str(path)).stdout)["diagnostics"]
    assert (diag["line"], diag["column"]) == (15, 20)
    assert "at most 200 digits" in diag["message"] and "(5,004 characters)" in diag["message"]
    manifests = str(ROOT / "examples" / "gpu-training")
    for args in (
        ("lint", "--no-config", "--slices", str(path), manifests),
        ("simulate", "--slices", str(path), manifests),
    ):
        result = invoke(*args)
        assert result.exit_code in (0, 1) and "INT001" not in result.output and "Traceback" not in result.output
    doctor = invoke("doctor", str(path))  # a string there: the dump is read, no pod is stuck
    assert doctor.exit_code == 0 and "Traceback" not in doctor.output


def test_a_resource_claim_whose_namespace_is_a_list_is_a_finding_in_doctor(tmp_path):
    dump = tmp_path / "dump.yaml"
    dump.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: [a, b]\n"
        "spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}\n"
        "status: {allocation: {devices: {results: [{request: gpu, driver: d, pool: p, device: x}]}}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
        "spec:\n  resourceClaims: [{name: gpu, resourceClaimName: c}]\n"
        "  containers: [{name: c, image: i, resources: {claims: [{name: gpu}]}}]\nstatus: {phase: Pending}\n"
    )
    result = invoke("doctor", str(dump))
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith(
        f"skipped: {dump}:5:14: ResourceClaim default/c: metadata.namespace must be a string, not a list"
    )
    assert "Pod default/p: Pending" in result.stdout


def test_a_value_of_a_megabyte_is_shortened_in_messages(tmp_path):
    path = tmp_path / "label.yaml"
    path.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: {{k: {'a' * 1_000_000}}}\n")
    report = json.loads(invoke("lint", "--no-config", "--format", "json", str(path)).stdout)
    (diag,) = [d for d in report["diagnostics"] if d["rule"] == "API007"]
    assert len(diag["message"]) < 400 and "(1,000,002 characters)" in diag["message"]


def test_one_pod_whose_diagnosis_fails_leaves_the_others_diagnosed(monkeypatch):
    from dralint.k8s.doctor.diagnose import PodDoctor

    real = PodDoctor.diagnose
    calls = []

    def flaky(self, pod):
        calls.append(pod.name)
        if len(calls) == 1:
            raise TypeError("unhashable type: 'list'")
        return real(self, pod)

    monkeypatch.setattr(PodDoctor, "diagnose", flaky)
    dumps = sorted((ROOT / "examples" / "doctor").glob("*.yaml"))
    report = json.loads(invoke("doctor", "--format", "json", str(dumps[0])).stdout)
    assert len(calls) > 1 and len(report["pods"]) == len(calls)
    first = report["pods"][0]["steps"]
    assert [s["check"] for s in first] == ["dralint"] and "internal error in the diagnosis" in first[0]["message"]
    assert all(p["steps"][0]["check"] != "dralint" for p in report["pods"][1:])


def test_one_template_whose_simulation_fails_leaves_the_others_simulated(monkeypatch):
    from dralint.checks.scheduling.simulation import Simulation

    real = Simulation.run
    calls = []

    def flaky(self, *args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise KeyError("boom")
        return real(self, *args, **kwargs)

    args = ("simulate", "--format", "json", "--slices", "example:mixed", str(ROOT / "examples" / "scheduling"))
    monkeypatch.setattr(Simulation, "run", flaky)
    broken = invoke(*args)
    monkeypatch.setattr(Simulation, "run", real)
    whole = json.loads(invoke(*args).stdout)["templates"]
    assert "internal error in the simulation of" in broken.stderr and "KeyError" in broken.stderr
    rows = json.loads(broken.stdout)["templates"]
    assert len(calls) > 1 and rows and all(row in whole for row in rows) and len(rows) >= len(whole) - 1
