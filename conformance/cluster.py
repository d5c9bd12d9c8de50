"""Start and stop the test control plane (conformance/controlplane) and talk to its API server.

Used by the recorder of the scheduler verdicts and by the tests marked ``go``. The API client
is a few lines of urllib on the kubeconfig the control plane writes (a bearer token, a
self-signed serving certificate), so no Kubernetes client library is needed to drive it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from gobuild import go_build

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "conformance" / "controlplane"
BINARY = SOURCE / ".build" / "controlplane"
START_TIMEOUT = 180.0
STOP_TIMEOUT = 60.0


def build() -> Path:
    """`go build` the control plane."""
    return go_build(SOURCE)


class ApiError(RuntimeError):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"{status}: {body[:300]}")
        self.status = status


class Api:
    """JSON over HTTPS with the kubeconfig's token; paths are the API's (``/api/v1/nodes``)."""

    def __init__(self, kubeconfig: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        self.server = config["clusters"][0]["cluster"]["server"]
        user = next(u for u in config["users"] if u["name"] == "admin")
        self.token = user["user"]["token"]
        self.tls = ssl.create_default_context()
        self.tls.check_hostname = False
        self.tls.verify_mode = ssl.CERT_NONE

    def call(self, method: str, path: str, body: Any = None, content_type: str = "application/json") -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.server + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, context=self.tls, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, error.read().decode(errors="replace")) from None

    def get(self, path: str) -> Any:
        return self.call("GET", path)

    def create(self, obj: dict[str, Any]) -> Any:
        """POST an object to its collection; ``status`` is then written through the status subresource."""
        created = self.call("POST", collection(obj), {k: v for k, v in obj.items() if k != "status"})
        if obj.get("status"):
            created["status"] = obj["status"]
            created = self.call("PUT", f"{collection(obj)}/{obj['metadata']['name']}/status", created)
        return created

    def delete(self, path: str) -> None:
        try:
            self.call("DELETE", path, {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0})
        except ApiError as error:
            if error.status != 404:
                raise


#: kind -> (API path root, plural, namespaced)
KINDS = {
    "Namespace": ("/api/v1", "namespaces", False),
    "Node": ("/api/v1", "nodes", False),
    "Pod": ("/api/v1", "pods", True),
    "Event": ("/api/v1", "events", True),
    "ResourceSlice": ("/apis/resource.k8s.io/v1", "resourceslices", False),
    "DeviceClass": ("/apis/resource.k8s.io/v1", "deviceclasses", False),
    "ResourceClaim": ("/apis/resource.k8s.io/v1", "resourceclaims", True),
    "ResourceClaimTemplate": ("/apis/resource.k8s.io/v1", "resourceclaimtemplates", True),
}


def collection(obj: dict[str, Any], namespace: str | None = None) -> str:
    root, plural, namespaced = KINDS[obj["kind"]]
    if not namespaced:
        return f"{root}/{plural}"
    return f"{root}/namespaces/{namespace or obj['metadata'].get('namespace') or 'default'}/{plural}"


def kind_path(kind: str, namespace: str | None = None) -> str:
    return collection({"kind": kind, "metadata": {}}, namespace)


class ControlPlane:
    """The control plane as a child process: ``with ControlPlane() as cp: cp.api.get(...)``."""

    def __init__(self, binary: Path = BINARY) -> None:
        self.binary = binary
        self.dir = Path(tempfile.mkdtemp(prefix="dralint-controlplane-"))
        self.kubeconfig = self.dir / "kubeconfig"
        self.log = self.dir / "controlplane.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.started_in = 0.0

    def __enter__(self) -> ControlPlane:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        began = time.monotonic()
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [str(self.binary), f"--kubeconfig={self.kubeconfig}", f"--data-dir={self.dir / 'data'}"],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        while not self.kubeconfig.exists():
            if self.process.poll() is not None:
                raise RuntimeError(f"the control plane exited ({self.process.returncode}): {self.tail()}")
            if time.monotonic() - began > START_TIMEOUT:
                self.stop()
                raise RuntimeError(f"the control plane was not ready within {START_TIMEOUT:.0f} s: {self.tail()}")
            time.sleep(0.2)
        self.started_in = time.monotonic() - began
        self.api = Api(self.kubeconfig)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL of its process group after STOP_TIMEOUT; the files go."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def tail(self, lines: int = 5) -> str:
        try:
            return " | ".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"
