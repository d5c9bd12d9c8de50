"""Node agents (issue 43): the GPU stack's privileged DaemonSets are warnings that say why."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralint.diagnostics import Severity
from dralint.lint.gate import lint_with_config
from dralint.lint.options import LintOptions

AGENTS = Path(__file__).resolve().parent / "data" / "node-agents"
TOLERATED = {"SEC001", "SEC006", "SEC007", "SEC008", "SEC009", "SEC026"}


def lint_paths(*paths: str, **options):
    opts = LintOptions(paths=list(paths), profile=options.pop("profile", "recommended"))
    for key, value in options.items():
        setattr(opts, key, value)
    return lint_with_config(opts, None)


@pytest.mark.parametrize("fixture", sorted(p.name for p in AGENTS.glob("*.yaml")))
def test_vendor_shaped_node_agents_get_no_error_in_the_default_profile(fixture):
    result = lint_paths(str(AGENTS / fixture))
    assert [d for d in result.diagnostics if d.severity is Severity.ERROR] == []
    tolerated = [d for d in result.diagnostics if d.rule in TOLERATED]
    assert tolerated, "the fixture exercises what node agents are allowed"
    assert all("it is a node agent (" in d.message for d in tolerated)


def test_everything_else_about_a_node_agent_is_judged_as_usual():
    result = lint_paths(str(AGENTS / "driver.yaml"))
    rules = {d.rule for d in result.diagnostics}
    assert {"SEC003", "SEC004"} <= rules  # root, writable root filesystem: not privileged-by-design
    assert all("node agent" not in d.message for d in result.diagnostics if d.rule not in TOLERATED)


APP = """apiVersion: apps/v1
kind: {kind}
metadata: {{name: web, namespace: {namespace}}}
spec:
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - name: web
        image: registry.example/web:1.2
        securityContext: {{privileged: true}}
      volumes:
      - name: dev
        hostPath: {{path: /dev}}
"""


@pytest.mark.parametrize(
    ("kind", "namespace"),
    [("Deployment", "kube-system"), ("DaemonSet", "shop"), ("Deployment", "gpu-operator")],
)
def test_a_privileged_workload_that_is_no_node_agent_still_gets_an_error(tmp_path, kind, namespace):
    (tmp_path / "app.yaml").write_text(APP.format(kind=kind, namespace=namespace))
    result = lint_paths(str(tmp_path / "app.yaml"))
    privileged = [d for d in result.diagnostics if d.rule == "SEC001"]
    assert [d.severity for d in privileged] == [Severity.ERROR]
    assert "node agent" not in privileged[0].message


@pytest.mark.parametrize(
    "declared",
    [
        {"node_agent_namespaces": ["shop"]},
        {"node_agent_labels": {"app": "web"}},
        {"node_agent_images": ["registry.example/web:*"]},
    ],
)
def test_a_team_declares_its_node_agents_by_namespace_label_or_image(tmp_path, declared):
    (tmp_path / "app.yaml").write_text(APP.format(kind="DaemonSet", namespace="shop").replace("/dev", "/opt/agent"))
    result = lint_paths(str(tmp_path / "app.yaml"), **declared)
    privileged = [d for d in result.diagnostics if d.rule == "SEC001"]
    assert [d.severity for d in privileged] == [Severity.WARNING]
    assert "node-agent-" in privileged[0].message


def test_the_config_file_declares_node_agents(tmp_path):
    from dralint.lint.config import load_config

    (tmp_path / ".dralint.yaml").write_text(
        "node-agent-namespaces: [shop]\nnode-agent-labels: {app: web}\nnode-agent-images: ['x/*']\n"
    )
    config = load_config(str(tmp_path / ".dralint.yaml"))
    assert config.findings == []
    assert config.values["node_agent_labels"] == {"app": "web"}


SOCKET = """apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: shop}}
spec:
  containers:
  - {{name: c, image: registry.example/app:1.0}}
  volumes:
  - name: h
    hostPath: {{path: {path}}}
"""


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/", "is the node's root filesystem, so it holds the container runtime's socket (containerd, CRI-O"),
        ("/run/containerd", "holds the container runtime's socket (containerd, whichever the node runs)"),
        ("/run/containerd/containerd.sock", "which is the containerd socket"),
        ("/var/run/crio/crio.sock", "which is the CRI-O socket"),
        ("/var/run/docker.sock", "which is the Docker socket"),
    ],
)
def test_runtime_socket_messages_name_what_is_really_exposed(tmp_path, path, said):
    (tmp_path / "pod.yaml").write_text(SOCKET.format(path=path))
    found = [d.message for d in lint_paths(str(tmp_path / "pod.yaml")).diagnostics if d.rule == "SEC009"]
    assert len(found) == 1 and said in found[0]
    if path == "/":
        assert "docker.sock" not in found[0]
