"""dralint doctor reading a cluster, without Go: a small fake API server on loopback.

The fake serves the discovery documents kubectl needs and the list calls doctor makes, from one
dump; each test runs through both readers (kubectl on PATH, the kubernetes Python client) when
they are there. The real API server is in tests/test_controlplane.py.
"""

from __future__ import annotations

import json
import shutil
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from dralint.cli.main import main
from dralint.k8s.doctor.cluster import EVENTS, RESOURCES

ROOT = Path(__file__).resolve().parent.parent
DUMP = ROOT / "examples" / "doctor" / "dump.yaml"

_RESOURCE_LISTS = {
    "/api/v1": ("v1", [("pods", "Pod", True), ("nodes", "Node", False), ("events", "Event", True)]),
    "/apis/resource.k8s.io/v1": (
        "resource.k8s.io/v1",
        [
            ("resourceclaims", "ResourceClaim", True),
            ("resourceclaimtemplates", "ResourceClaimTemplate", True),
            ("resourceslices", "ResourceSlice", False),
            ("deviceclasses", "DeviceClass", False),
        ],
    ),
}


def _discovery(path: str) -> dict[str, Any] | None:
    if path == "/api":
        return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
    if path == "/apis":
        version = {"groupVersion": "resource.k8s.io/v1", "version": "v1"}
        group = {"name": "resource.k8s.io", "versions": [version], "preferredVersion": version}
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [group]}
    if path in _RESOURCE_LISTS:
        group_version, resources = _RESOURCE_LISTS[path]
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": group_version,
            "resources": [
                {"name": n, "singularName": "", "namespaced": ns, "kind": k, "verbs": ["get", "list"]}
                for n, k, ns in resources
            ],
        }
    return None


class FakeServer:
    """Lists the objects of ``objects`` by kind and namespace; ``forbidden`` answers 403 to lists."""

    def __init__(self, objects: list[dict[str, Any]], forbidden: bool = False) -> None:
        self.objects = objects
        self.forbidden = forbidden
        self.requests: list[str] = []
        handler = self._handler()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                path, _, query = self.path.partition("?")
                server.requests.append(self.path)
                found = _discovery(path)
                if found is None:
                    code, found = server.answer(path, query)
                else:
                    code = 200
                body = json.dumps(found).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def answer(self, path: str, query: str) -> tuple[int, dict[str, Any]]:
        parts = path.strip("/").split("/")
        plural = parts[-1]
        namespace = parts[parts.index("namespaces") + 1] if "namespaces" in parts else None
        resource = next((r for r in (*RESOURCES, EVENTS) if r.plural == plural), None)
        if resource is None:
            return 404, {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404}
        if self.forbidden:
            scope = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
            message = f'{plural} is forbidden: User "nobody" cannot list resource "{plural}" {scope}'
            status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 403}
            return 403, {**status, "reason": "Forbidden", "message": message, "details": {"kind": plural}}
        items = [
            o
            for o in self.objects
            if o.get("kind") == resource.kind
            and (namespace is None or (o.get("metadata") or {}).get("namespace") == namespace)
        ]
        return 200, {"kind": f"{resource.kind}List", "apiVersion": resource.group_version, "items": items}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _kubeconfig(tmp_path: Path, server: str, namespace: str = "ml") -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "fake", "cluster": {"server": server}}],
                "users": [{"name": "me", "user": {"token": "t"}}],
                "contexts": [
                    {"name": "fake", "context": {"cluster": "fake", "user": "me", "namespace": namespace}},
                    {"name": "elsewhere", "context": {"cluster": "fake", "user": "me", "namespace": "other"}},
                ],
                "current-context": "fake",
            }
        )
    )
    return path


@pytest.fixture(params=["kubectl", "client"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test once through kubectl (the client hidden) and once through the Python client."""
    if request.param == "kubectl":
        if shutil.which("kubectl") is None:
            pytest.skip("kubectl is not on PATH")
        monkeypatch.setitem(sys.modules, "kubernetes", None)
    else:
        pytest.importorskip("kubernetes", reason="the kubernetes client (dralint[cluster]) is not installed")
    return request.param


def _dump_objects() -> list[dict[str, Any]]:
    data = yaml.safe_load(DUMP.read_text())
    return list(data["items"]) if data.get("kind") == "List" else [data]


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    server = FakeServer(_dump_objects())
    yield server
    server.close()


def _doctor(*args: str) -> Any:
    return CliRunner().invoke(main, ["doctor", *args])


def test_cluster_gives_the_answers_of_its_dump(reader: str, fake: FakeServer, tmp_path: Path) -> None:
    from_dump = _doctor(str(DUMP), "--format", "json")
    live = _doctor("--kubeconfig", str(_kubeconfig(tmp_path, fake.url)), "-A", "--format", "json")
    assert live.exit_code == from_dump.exit_code == 1, live.output
    assert json.loads(live.output) == json.loads(from_dump.output)
    lists = [r for r in fake.requests if not r.startswith(("/api?", "/apis?")) and r not in ("/api", "/apis")]
    assert all("watch" not in r for r in lists)
    # Only what doctor needs: the six kinds, then the events of each examined pod.
    assert any("/events" in r and "involvedObject.uid" in r for r in lists)


def test_namespace_is_the_contexts_unless_given(reader: str, fake: FakeServer, tmp_path: Path) -> None:
    kubeconfig = str(_kubeconfig(tmp_path, fake.url, namespace="ml"))
    assert _doctor("--kubeconfig", kubeconfig).exit_code == 1
    assert any("/namespaces/ml/pods" in r for r in fake.requests)
    quiet = _doctor("--kubeconfig", kubeconfig, "--context", "elsewhere")
    assert quiet.exit_code == 0, quiet.output
    assert "no Pending or failing pod that uses devices in the cluster" in quiet.output
    assert _doctor("--kubeconfig", kubeconfig, "-n", "other").exit_code == 0


def _one_line_error(result: Any) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def test_no_kubeconfig_is_one_line(reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    line = _one_line_error(_doctor())
    assert line.startswith("dralint: no kubeconfig found") and "--kubeconfig" in line
    line = _one_line_error(_doctor("--kubeconfig", str(tmp_path / "missing.yaml")))
    assert "missing.yaml" in line


def test_unreachable_server_is_one_line(reader: str, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    line = _one_line_error(_doctor("--kubeconfig", str(_kubeconfig(tmp_path, f"http://127.0.0.1:{port}"))))
    assert line.startswith("dralint: ") and f"127.0.0.1:{port}" in line and "refused" in line


def test_forbidden_is_one_line(reader: str, tmp_path: Path) -> None:
    server = FakeServer([], forbidden=True)
    try:
        line = _one_line_error(_doctor("--kubeconfig", str(_kubeconfig(tmp_path, server.url))))
    finally:
        server.close()
    assert "forbidden" in line.lower() and 'User "nobody" cannot list resource "pods"' in line


def test_dump_and_cluster_options_together_are_a_usage_error(tmp_path: Path) -> None:
    line = _one_line_error(_doctor(str(DUMP), "--kubeconfig", str(tmp_path / "k")))
    assert "not both" in line
