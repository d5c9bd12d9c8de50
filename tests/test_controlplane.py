"""The v1.37 control plane of conformance/controlplane, live: it starts and stops, the real
scheduler judges a sample of the scenarios as recorded, and ``dralint doctor`` reads pods the
scheduler left Pending or bound, through the cluster and through a dump of it alike.

Marked ``go``: it builds the control plane (minutes when cold), so it runs only with
``DRALINT_GO_TESTS=1``; the recorded verdicts are checked without Go in
tests/test_scheduler_conformance.py, and doctor's cluster errors in tests/test_doctor_cluster.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "conformance"))

import scheduler  # noqa: E402
from cluster import ControlPlane, build  # noqa: E402
from scenarios import GPU, scenarios  # noqa: E402
from schedcompare import compare, load_allowlist, load_verdicts, ruled_out_on_purpose, simulate  # noqa: E402

from dralint.cli.main import main  # noqa: E402

pytestmark = pytest.mark.go

NS = "doctor"


@pytest.fixture(scope="module")
def plane() -> Iterator[ControlPlane]:
    binary = build()
    with ControlPlane(binary) as running:
        yield running


def test_starts_serves_dra_v1_and_stops_cleanly():
    plane = ControlPlane(build())
    plane.start()
    try:
        served = {r["name"] for r in plane.api.get("/apis/resource.k8s.io/v1")["resources"]}
        assert {"resourceclaims", "resourceclaimtemplates", "resourceslices", "deviceclasses"} <= served
        assert plane.started_in < 120
    finally:
        plane.stop()
    assert plane.process is not None and plane.process.returncode == 0
    assert not plane.dir.exists()


def test_every_scenario_is_judged_live_as_recorded(plane: ControlPlane):
    """The real scheduler, now, on every scenario: dralint agrees with it wherever the allow-list
    does not explain why not, and the first replica fits or not as recorded. Which of several
    equal nodes the scheduler picks may differ between runs: a pick of a node dralint rules out
    on purpose (an old kubelet, a device plugin beside a DRA driver) is explained as in the list."""
    allow, recorded = load_allowlist(), load_verdicts()
    unexplained, changed = {}, []
    for scenario in scenarios():
        verdict = scheduler.run(plane.api, scenario)
        row = simulate(scenario)
        found = compare(scenario, verdict, row)
        wrong = {m: d for m, d in found.items() if d != "agree" and m not in allow.get(scenario.id, {})}
        if wrong and not ruled_out_on_purpose(scenario, verdict, row):
            unexplained[scenario.id] = wrong
        if (verdict["replicas"][0]["node"] is None) != (recorded[scenario.id]["replicas"][0]["node"] is None):
            changed.append(scenario.id)
    assert unexplained == {} and changed == []


# ------------------------------------------------------------------ doctor on the live cluster


def _node(name: str, kubelet: str = "v1.37.2", **allocatable: str) -> dict[str, Any]:
    resources = {"cpu": "8", "memory": "32Gi", "pods": "110", **allocatable}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {
            "capacity": resources,
            "allocatable": resources,
            "nodeInfo": {"kubeletVersion": kubelet},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def _slice(node: str, gpus: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpus"},
        "spec": {
            "driver": GPU,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": f"gpu-{i}", "attributes": {"model": {"string": "H100"}}} for i in range(gpus)],
        },
    }


def _class(name: str, expression: str, extended: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": expression}}]}
    if extended:
        spec["extendedResourceName"] = extended
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def _template(name: str, device_class: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": device_class}}]}}},
    }


def _pod(name: str, *, template: str | None = None, extended: str | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "app", "image": "registry.example.com/app:1.0"}
    spec: dict[str, Any] = {"containers": [container]}
    if template:
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": template}]
        container["resources"] = {"claims": [{"name": "gpu"}]}
    if extended:
        container["resources"] = {"limits": {extended: "1"}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS}, "spec": spec}


@pytest.fixture(scope="module")
def doctored(plane: ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One cluster holding every case, each pod created and left as the scheduler decides;
    doctor's JSON answer read from the cluster and from a kubectl dump of it."""
    api = plane.api
    objects = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
        _node("dr-ok", "v1.37.2"),
        _slice("dr-ok", 1),
        _node("dr-old", "v1.32.0"),
        _slice("dr-old", 1),
        _node("dr-plugin", "v1.37.2", **{"example.com/npu": "1"}),
        _slice("dr-plugin", 1),
        _class("dr-gpu", f'device.driver == "{GPU}"'),
        _class("dr-wrong-driver", 'device.driver == "example.com"'),
        _class("dr-b200", f'device.attributes["{GPU}"].model == "B200"'),
        _class("dr-npu", f'device.driver == "{GPU}"', extended="example.com/npu"),
        _template("ok", "dr-gpu"),
        _template("wrong-driver", "dr-wrong-driver"),
        _template("b200", "dr-b200"),
    ]
    scheduler.create_all(api, objects)
    node_pin = {"nodeSelector": {"kubernetes.io/hostname": "dr-ok"}}
    ok = _pod("verified", template="ok")
    ok["spec"].update(node_pin)
    old = _pod("old-kubelet", template="ok")
    old["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "dr-old"}
    plugin = _pod("device-plugin", extended="example.com/npu")
    plugin["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "dr-plugin"}
    taken = _pod("taken", template="ok")
    taken["spec"].update(node_pin)
    pods = [
        ok,
        old,
        plugin,
        taken,
        _pod("unmapped", extended="example.com/gpu"),
        _pod("wrong-driver", template="wrong-driver"),
        _pod("no-match", template="b200"),
    ]
    seen = {}
    for pod in pods:  # one at a time: "taken" comes after "verified" holds dr-ok's GPU
        api.create(pod)
        seen[pod["metadata"]["name"]] = scheduler.outcome(api, NS, pod["metadata"]["name"])["node"]
    kubeconfig = str(plane.kubeconfig)
    live = CliRunner().invoke(main, ["doctor", "--kubeconfig", kubeconfig, "-n", NS, "--format", "json"])
    kubectl = shutil.which("kubectl")
    dumped = None
    if kubectl is not None:
        dump = tmp_path_factory.mktemp("dump") / "dump.yaml"
        kinds = "pods,resourceclaims,resourceclaimtemplates"
        text = subprocess.run(
            [kubectl, "--kubeconfig", kubeconfig, "get", f"{kinds}", "-n", NS, "-o", "yaml"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        cluster = subprocess.run(
            [kubectl, "--kubeconfig", kubeconfig, "get", "resourceslices,deviceclasses,nodes", "-o", "yaml"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        dump.write_text(text + "---\n" + cluster)
        dumped = CliRunner().invoke(main, ["doctor", str(dump), "--format", "json"])
    return {"scheduled": seen, "live": live, "dump": dumped}


def _pods(result: Any) -> dict[str, dict[str, Any]]:
    assert result.exit_code in (0, 1), result.output
    return {p["name"]: p for p in json.loads(result.output)["pods"]}


def _steps(pod: dict[str, Any]) -> list[tuple[str, str]]:
    return [(s["check"], s["status"]) for s in pod["steps"]]


def test_the_scheduler_did_what_the_cases_need(doctored):
    assert doctored["scheduled"] == {
        "verified": "dr-ok",
        "old-kubelet": "dr-old",
        "device-plugin": "dr-plugin",
        "taken": None,
        "unmapped": None,
        "wrong-driver": None,
        "no-match": None,
    }


def test_the_guides_three_verification_checks_pass_on_a_bound_pod(doctored):
    pod = _pods(doctored["live"])["verified"]
    assert pod["stuck"] is None
    assert {("drivers", "ok"), ("claims", "ok"), ("pod status", "ok")} <= set(_steps(pod))
    claims = next(s["message"] for s in pod["steps"] if s["check"] == "claims")
    assert f"allocated on {GPU}/dr-ok/gpu-0" in claims and "reserved for this pod" in claims


def test_the_two_causes_doctor_used_to_miss(doctored):
    pods = _pods(doctored["live"])
    assert pods["unmapped"]["stuck"].startswith(
        "example.com/gpu: no DeviceClass maps it (spec.extendedResourceName) and no node advertises it"
    )
    assert "DeviceClass dr-gpu selects that vendor's devices" in pods["unmapped"]["stuck"]
    assert pods["wrong-driver"]["stuck"].startswith("DeviceClass dr-wrong-driver matches none of the 3 published")
    assert '`device.driver == "example.com"` in spec.selectors[0] is false' in pods["wrong-driver"]["stuck"]


def test_a_selector_matching_nothing_is_pointed_at(doctored):
    stuck = _pods(doctored["live"])["no-match"]["stuck"]
    assert f'`device.attributes["{GPU}"].model == "B200"`' in stuck


def test_devices_taken_by_other_claims(doctored):
    pod = _pods(doctored["live"])["taken"]
    assert pod["stuck"].startswith("does not fit on the free devices")
    assert any(s["check"] == "events" and "FailedScheduling" in s["message"] for s in pod["steps"])


def test_an_old_kubelet_and_a_device_plugin(doctored):
    pods = _pods(doctored["live"])
    assert pods["old-kubelet"]["stuck"].startswith("node dr-old: ")
    assert "1.32" in pods["old-kubelet"]["stuck"]
    warning = [s["message"] for s in pods["device-plugin"]["steps"] if s["status"] == "warning"]
    assert warning and "node dr-plugin advertises example.com/npu" in warning[0]


def test_a_dump_of_the_cluster_gets_the_same_answers(doctored):
    if doctored["dump"] is None:
        pytest.skip("kubectl is not on PATH: no dump to compare with")
    live, dumped = _pods(doctored["live"]), _pods(doctored["dump"])
    assert {n: p["stuck"] for n, p in dumped.items()} == {n: p["stuck"] for n, p in live.items()}


def test_the_forbidden_context_is_one_line(plane: ControlPlane):
    result = CliRunner().invoke(main, ["doctor", "--kubeconfig", str(plane.kubeconfig), "--context", "forbidden"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "forbidden" in lines[0].lower() and "nobody" in lines[0]
