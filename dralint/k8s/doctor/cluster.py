"""Read, read-only, the objects ``doctor`` needs from the cluster of a kubeconfig context.

Through the ``kubernetes`` Python client when it is installed (``pip install 'dralint[cluster]'``,
imported only here and only then), else through ``kubectl`` on PATH: either way the user's
kubeconfig, contexts and credential plugins apply as they do for kubectl. Only ``list`` calls
are made: pods, ResourceClaims and ResourceClaimTemplates of the namespace (or all), the
cluster's ResourceSlices, DeviceClasses and Nodes, then the events of the pods doctor examines.
Any failure to reach the cluster is a :class:`ClusterError` of one line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol

#: Seconds for one request (the server's side) and for one kubectl run (ours).
REQUEST_TIMEOUT = 30
#: At most this many pods get their events read: one request each.
MAX_EVENT_PODS = 50


class ClusterError(RuntimeError):
    """The cluster cannot be read: no kubeconfig, unreachable, forbidden, no client."""


@dataclass(frozen=True)
class Target:
    """Which cluster and namespace: ``namespace`` None is the context's, ``all_namespaces`` every one."""

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False


class Resource(NamedTuple):
    kind: str
    group_version: str
    plural: str
    namespaced: bool


#: What doctor reads, in this order; events come later, per examined pod.
RESOURCES = (
    Resource("Pod", "v1", "pods", True),
    Resource("ResourceClaim", "resource.k8s.io/v1", "resourceclaims", True),
    Resource("ResourceClaimTemplate", "resource.k8s.io/v1", "resourceclaimtemplates", True),
    Resource("ResourceSlice", "resource.k8s.io/v1", "resourceslices", False),
    Resource("DeviceClass", "resource.k8s.io/v1", "deviceclasses", False),
    Resource("Node", "v1", "nodes", False),
)
EVENTS = Resource("Event", "v1", "events", True)


class Reader(Protocol):
    """One way to list objects: ``namespace`` None lists every namespace."""

    def list(self, resource: Resource, namespace: str | None, field_selector: str | None = None) -> list[dict]: ...


def read_cluster(target: Target, examined: Callable[[dict], bool]) -> list[dict[str, Any]]:
    """Every object doctor needs, as plain data, plus the events of the pods ``examined`` keeps."""
    reader = reader_for(target)
    namespace = None if target.all_namespaces else (target.namespace or _context_namespace(target))
    objects: list[dict[str, Any]] = []
    for resource in RESOURCES:
        objects.extend(reader.list(resource, namespace if resource.namespaced else None))
    pods = [o for o in objects if o.get("kind") == "Pod" and examined(o)][:MAX_EVENT_PODS]
    for pod in pods:
        meta = pod.get("metadata") or {}
        if meta.get("uid") and meta.get("namespace"):
            objects.extend(reader.list(EVENTS, str(meta["namespace"]), f"involvedObject.uid={meta['uid']}"))
    return objects


def reader_for(target: Target) -> Reader:
    """The Python client when installed, else kubectl; a clear error without either or without a kubeconfig."""
    _require_kubeconfig(target)
    try:
        import kubernetes  # noqa: F401  (the optional [cluster] extra)
    except ImportError:
        kubectl = shutil.which("kubectl")
        if kubectl is None:
            raise ClusterError(
                "reading a cluster needs kubectl on PATH or the kubernetes client: pip install 'dralint[cluster]'"
            ) from None
        return KubectlReader(kubectl, target)
    return ClientReader(target)


def _kubeconfig_files(target: Target) -> list[Path]:
    if target.kubeconfig:
        return [Path(target.kubeconfig)]
    if os.environ.get("KUBECONFIG"):
        return [Path(p) for p in os.environ["KUBECONFIG"].split(os.pathsep) if p]
    return [Path.home() / ".kube" / "config"]


def _require_kubeconfig(target: Target) -> None:
    files = _kubeconfig_files(target)
    if not any(f.is_file() for f in files):
        shown = ", ".join(str(f) for f in files)
        raise ClusterError(
            f"no kubeconfig found ({shown}): pass --kubeconfig FILE, set KUBECONFIG, or give doctor a dump file"
        )


def _context_namespace(target: Target) -> str:
    """The namespace of the context in use, as kubectl defaults it."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        return "default"
    merged: dict[str, Any] = {}
    contexts: dict[str, Any] = {}
    for path in _kubeconfig_files(target):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict):
            continue
        merged.setdefault("current-context", data.get("current-context"))
        for entry in data.get("contexts") or ():
            if isinstance(entry, dict) and isinstance(entry.get("context"), dict):
                contexts.setdefault(str(entry.get("name")), entry["context"])
    name = target.context or merged.get("current-context")
    return str((contexts.get(str(name)) or {}).get("namespace") or "default")


def _with_kind(items: Iterable[Any], resource: Resource) -> list[dict[str, Any]]:
    """List items as objects: the API leaves ``kind`` and ``apiVersion`` to the list."""
    return [{"apiVersion": resource.group_version, "kind": resource.kind, **i} for i in items if isinstance(i, dict)]


class KubectlReader:
    """``kubectl get -o json``, one run per resource, with the user's flags."""

    def __init__(self, kubectl: str, target: Target) -> None:
        self.base = [kubectl, f"--request-timeout={REQUEST_TIMEOUT}s"]
        if target.kubeconfig:
            self.base.append(f"--kubeconfig={target.kubeconfig}")
        if target.context:
            self.base.append(f"--context={target.context}")

    def list(self, resource: Resource, namespace: str | None, field_selector: str | None = None) -> list[dict]:
        group, _, version = resource.group_version.rpartition("/")
        name = f"{resource.plural}.{version}.{group}" if group else resource.plural
        command = [*self.base, "get", name, "-o", "json"]
        if resource.namespaced:
            command += ["--namespace", namespace] if namespace else ["--all-namespaces"]
        if field_selector:
            command.append(f"--field-selector={field_selector}")
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=2 * REQUEST_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            raise ClusterError(f"kubectl get {name} did not answer within {2 * REQUEST_TIMEOUT} s") from None
        except OSError as error:
            raise ClusterError(f"cannot run kubectl: {error.strerror or error}") from None
        if done.returncode != 0:
            raise ClusterError(_kubectl_error(done.stderr) or f"kubectl get {name} failed ({done.returncode})")
        try:
            data = json.loads(done.stdout)
        except ValueError:
            raise ClusterError(f"kubectl get {name} printed something other than JSON") from None
        return _with_kind(data.get("items") or () if isinstance(data, dict) else (), resource)


def _kubectl_error(stderr: str) -> str:
    """kubectl's own last message, without the klog lines (``E1207 01:02:03.456 ...``) before it."""
    lines = [
        line.strip()
        for line in stderr.splitlines()
        if line.strip() and not (line[:1] in "IWEF" and line[1:5].isdigit() and line[5:6] == " ")
    ]
    return lines[-1].removeprefix("error: ") if lines else ""


class ClientReader:
    """The ``kubernetes`` Python client for the kubeconfig (contexts, certificates, credential
    plugins) and its REST layer for plain GETs: no typed models and no generated API methods,
    whose signatures differ between client versions, so any version serves ``resource.k8s.io/v1``."""

    def __init__(self, target: Target) -> None:
        from kubernetes import config

        try:
            self.api = config.new_client_from_config(config_file=target.kubeconfig, context=target.context)
        except Exception as error:  # ConfigException and whatever a credential plugin raises
            raise ClusterError(f"cannot use the kubeconfig: {_first_line(error)}") from None
        self.host = str(self.api.configuration.host).rstrip("/")

    def list(self, resource: Resource, namespace: str | None, field_selector: str | None = None) -> list[dict]:
        from urllib.parse import quote

        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import InsecureRequestWarning

        root = "/api/v1" if resource.group_version == "v1" else f"/apis/{resource.group_version}"
        path = f"{root}/namespaces/{namespace}/{resource.plural}" if namespace else f"{root}/{resource.plural}"
        url = self.host + path + (f"?fieldSelector={quote(field_selector)}" if field_selector else "")
        headers = {"Accept": "application/json"}
        try:
            for setting in self.api.configuration.auth_settings().values():
                if setting.get("in") == "header" and setting.get("value"):
                    headers[setting["key"]] = setting["value"]
            with warnings.catch_warnings():
                # A kubeconfig with insecure-skip-tls-verify: kubectl is silent about it, and
                # urllib3 would print a warning per request.
                warnings.simplefilter("ignore", InsecureRequestWarning)
                response = self.api.rest_client.request("GET", url, headers=headers, _request_timeout=REQUEST_TIMEOUT)
            body = response.read() if callable(getattr(response, "read", None)) else response.data
            if response.status >= 400:
                raise ClusterError(f"{self.host}: {_api_message(response.status, response.reason, body)}")
            data = json.loads(body)
        except ApiException as error:  # clients before v35 raise on any status >= 400
            raise ClusterError(f"{self.host}: {_api_message(error.status, error.reason, error.body)}") from None
        except ClusterError:
            raise
        except ValueError:
            raise ClusterError(f"{url} answered something other than JSON") from None
        except Exception as error:  # urllib3's connection, TLS and timeout errors
            raise ClusterError(f"cannot reach {self.host}: {_connection_error(error)}") from None
        return _with_kind(data.get("items") or () if isinstance(data, dict) else (), resource)


def _api_message(status: int, reason: Any, body: Any) -> str:
    """The Status message the server sent (``pods is forbidden: User ... cannot list ...``)."""
    try:
        data = json.loads(body)
    except (TypeError, ValueError):
        data = None
    if isinstance(data, dict) and data.get("message"):
        return f"{reason} ({status}): {data['message']}"
    return f"{reason} ({status})"


def _connection_error(error: BaseException) -> str:
    """The operating system's words (``[Errno 111] Connection refused``) out of urllib3's retry wrapper."""
    found = re.search(r"\[Errno -?\d+\] [^'\")]+", str(error))
    return found.group(0) if found else _first_line(error)


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
