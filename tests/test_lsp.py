"""``dralint lsp`` through pygls's own client over a real subprocess (tests/lsp_session.py):
diagnostics equal to ``dralint lint``'s, the workspace as context, code actions, hover,
completion, and bad input that never stops the server."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from lsp_session import Session, apply, uri
from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent

CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.acme.internal
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.nvidia.com"
"""
TEMPLATE = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.acme.internal
          selectors:
          - cel:
              expression: |
                device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3"
"""
TYPO = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ml
spec:
  replicsa: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.example.com/web:1.0
"""


def run(session: Session, body: Callable[[Session], Awaitable[None]]) -> None:
    async def whole() -> None:
        async with session:
            await body(session)

    asyncio.run(whole())


def cli_findings(root: Path, name: str, *extra: str) -> list[tuple[Any, ...]]:
    """What ``dralint lint NAME --context .`` says, as (rule, range, message) in the protocol's terms."""
    out = subprocess.run(
        [sys.executable, "-m", "dralint", "lint", name, "--context", ".", "--format", "json", "-j", "1", *extra],
        cwd=root,
        capture_output=True,
        text=True,
    ).stdout
    return sorted(
        (
            d["rule"],
            d["line"] - 1,
            d["column"] - 1,
            d["endLine"] - 1,
            d["endColumn"] - 1,
            d["message"],
            tuple((Path(r["path"]).name, r["line"] - 1, r["column"] - 1, r["message"]) for r in d["related"]),
        )
        for d in json.loads(out)["diagnostics"]
        if d["path"] == name
    )


def lsp_findings(diagnostics: list[types.Diagnostic]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            d.code,
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            d.message.split("\nhint: ")[0],
            tuple(
                (Path(r.location.uri).name, r.location.range.start.line, r.location.range.start.character, r.message)
                for r in d.related_information or ()
            ),
        )
        for d in diagnostics
    )


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.slow
def test_diagnostics_are_the_findings_of_lint_with_the_workspace_as_context(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "gpu-training", root)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml-training"}}
    pod["spec"] = {"containers": [{"name": "c", "image": "busybox", "imagePullPolcy": "Always"}]}
    (root / "pod.json").write_text(json.dumps(pod, indent=2), encoding="utf-8")
    names = sorted(p.name for p in root.glob("*.yaml")) + ["pod.json"]

    async def body(s: Session) -> None:
        for name in names:
            got = await s.open(root / name, language="json" if name.endswith(".json") else "yaml")
            expected = cli_findings(root, name)
            assert lsp_findings(got) == expected, name
            assert all(d.source == "dralint" and d.code_description is not None for d in got)
            assert all(f"rules.md#{str(d.code).lower()}-" in d.code_description.href for d in got)  # type: ignore[union-attr]

    # The example has findings to compare, notes among them, one in another file.
    assert any(f[6] and f[6][0][0] != name for name in names for f in cli_findings(root, name))
    run(Session(root), body)


def test_references_resolve_across_the_workspace_and_follow_file_changes(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"classes.yaml": CLASS, "claims/template.yaml": TEMPLATE})
    name = "claims/template.yaml"
    with_class = cli_findings(root, name)

    async def body(s: Session) -> None:
        assert lsp_findings(await s.open(root / name)) == with_class
        (root / "classes.yaml").unlink()
        await s.watched(root / "classes.yaml", types.FileChangeType.Deleted)
        without = lsp_findings(await s.diagnostics(root / name))
        assert without == cli_findings(root, name)
        assert without != with_class  # the class is missing now, and a rule says so
        (root / "classes.yaml").write_text(CLASS, encoding="utf-8")
        await s.watched(root / "classes.yaml", types.FileChangeType.Created)
        assert lsp_findings(await s.diagnostics(root / name)) == with_class
        (root / "classes.yaml").write_text(CLASS.replace("gpu.acme.internal", "other.acme.internal"))
        await s.saved(root / "classes.yaml")  # a save, as an editor without file watching sends
        assert lsp_findings(await s.diagnostics(root / name)) == without

    run(Session(root), body)


def test_fix_and_suppress_code_actions_remove_the_finding(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"deploy.yaml": TYPO})
    path = root / "deploy.yaml"

    async def body(s: Session) -> None:
        found = await s.open(path)
        typo = next(d for d in found if d.code == "API001")
        assert (typo.range.start.line, typo.range.start.character) == (6, 2)
        actions = {a.title: a for a in await s.actions(path, typo)}
        fix = actions["Fix API001 (unknown-field)"]
        suppress = actions["Suppress API001 on this line"]
        assert fix.is_preferred and fix.diagnostics and fix.diagnostics[0].code == "API001"
        for action in (fix, suppress):
            assert action.edit is not None and action.edit.changes is not None
            edited = apply(TYPO, list(action.edit.changes.values())[0])
            await s.change(path, edited)
            after = await s.diagnostics(path)
            assert "API001" not in {d.code for d in after}, action.title
        assert "replicas: 2" in apply(TYPO, list(fix.edit.changes.values())[0])  # type: ignore[union-attr]
        assert "replicsa: 2  # dralint: ignore[API001]" in apply(TYPO, list(suppress.edit.changes.values())[0])  # type: ignore[union-attr]

    run(Session(root), body)


def test_a_finding_inside_a_block_scalar_is_suppressed_for_the_file(tmp_path: Path) -> None:
    """A ``#`` inside ``expression: |`` is CEL text, not a comment: the action says the file."""
    bad_cel = TEMPLATE.replace('== "NVIDIA H100 80GB HBM3"', '== "NVIDIA H100 80GB HBM3" &&')
    root = write(tmp_path / "repo", {"classes.yaml": CLASS, "template.yaml": bad_cel})
    path = root / "template.yaml"

    async def body(s: Session) -> None:
        found = await s.open(path)
        cel = next(d for d in found if d.range.start.line == 15)
        (action,) = [a for a in await s.actions(path, cel) if a.title.startswith("Suppress")]
        assert "in this file" in action.title
        await s.change(path, apply(bad_cel, list(action.edit.changes.values())[0]))  # type: ignore[union-attr]
        assert cel.code not in {d.code for d in await s.diagnostics(path)}

    run(Session(root), body)


def test_hover_explains_rules_classes_and_attributes(tmp_path: Path) -> None:
    root = write(
        tmp_path / "repo",
        {
            ".dralint.yaml": "slices: [example:h100-mig]\n",
            "classes.yaml": CLASS,
            "template.yaml": TEMPLATE,
            "deploy.yaml": TYPO,
        },
    )

    async def body(s: Session) -> None:
        await s.open(root / "deploy.yaml")
        said = await s.hover(root / "deploy.yaml", 6, 4)
        assert said is not None and "# API001 unknown-field" in said and "## Why it matters" in said
        await s.open(root / "template.yaml")
        said = await s.hover(root / "template.yaml", 11, 30)  # on deviceClassName's value
        assert said is not None and "DeviceClass `gpu.acme.internal`" in said and "workspace: classes.yaml:1" in said
        assert 'device.driver == "gpu.nvidia.com"' in said and "devices in the snapshot" in said
        said = await s.hover(root / "template.yaml", 15, 58)  # on productName
        assert said is not None and "**string**" in said and "devices (snapshot)" in said
        assert await s.hover(root / "template.yaml", 2, 2) is None  # metadata: nothing to say

    run(Session(root), body)


def test_completion_inside_cel_and_for_device_class_names(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {".dralint.yaml": "slices: [example:h100-mig]\n", "classes.yaml": CLASS})
    path = root / "template.yaml"
    typing = TEMPLATE.replace(
        'device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3"', 'device.attributes["gpu.nv'
    )

    async def body(s: Session) -> None:
        await s.open(path, typing)
        domains = await s.complete(path, 15, len('                device.attributes["gpu.nv'))
        offered = {i.label: i for i in domains}
        assert offered["gpu.nvidia.com"].detail == "device.attributes domain (snapshot)"
        assert offered["gpu.intel.com"].detail == "device.attributes domain (driver catalog)"
        edit = offered["gpu.nvidia.com"].text_edit
        assert isinstance(edit, types.TextEdit) and edit.range.start.character == len(
            '                device.attributes["'
        )
        names_text = typing.replace('["gpu.nv', '["gpu.nvidia.com"].pro')
        await s.change(path, names_text)
        names = {
            i.label: i.detail
            for i in await s.complete(path, 15, len('                device.attributes["gpu.nvidia.com"].pro'))
        }
        assert names["productName"].startswith("string: ") and names["index"].startswith("int: ")
        capacity_text = typing.replace('attributes["gpu.nv', 'capacity["gpu.nvidia.com"].')
        await s.change(path, capacity_text)
        capacity = await s.complete(path, 15, len('                device.capacity["gpu.nvidia.com"].'))
        assert {i.label: i.detail.split(":")[0] for i in capacity} == {"memory": "quantity"}  # type: ignore[union-attr]
        classes = await s.complete(path, 11, len("          deviceClassName: "))
        assert {"gpu.acme.internal", "gpu.nvidia.com", "mig.nvidia.com"} <= {i.label for i in classes}

    run(Session(root), body)


def test_bad_input_never_stops_the_server(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {".dralint.yaml": "profile: nonsense\n", "deploy.yaml": TYPO})
    broken = (
        "from dralint.lint.registry import object_check\n"
        "@object_check('REL001', kinds=['Deployment'])\n"
        "def broken(obj, ctx):\n"
        "    raise RuntimeError('boom')\n"
        "from dralint.lsp.server import serve\n"
        "serve()\n"
    )

    async def body(s: Session) -> None:
        config = await s.diagnostics(root / ".dralint.yaml")
        assert [d.code for d in config] == ["CFG001"], config
        opened = await s.open(root / ".dralint.yaml")  # the config open in the editor keeps its problems
        assert [(d.code, d.range.start.line, d.range.start.character) for d in opened] == [("CFG001", 0, 9)]
        text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [x\n"
        unparsable = await s.open(root / "broken.yaml", text)
        assert [d.code for d in unparsable] == ["YAML001"]
        (action,) = [a for a in await s.actions(root / "broken.yaml", unparsable[0]) if "Suppress" in a.title]
        # the error stands after the last character of the last line, where a comment can go
        assert action.title == "Suppress YAML001 on this line"
        await s.change(root / "broken.yaml", apply(text, list(action.edit.changes.values())[0]))  # type: ignore[union-attr]
        assert not await s.diagnostics(root / "broken.yaml")
        huge = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n" + "  k: " + "x" * (50 << 20) + "\n"
        (too_large,) = await s.open(root / "huge.yaml", huge)
        assert "over the 4 MiB" in too_large.message
        assert not await s.open(root / "workflow.yaml", "on: push\njobs: {build: {runs-on: ubuntu-latest}}\n")
        crashed = await s.open(root / "deploy.yaml")
        internal = [d for d in crashed if d.code == "INT001"]
        assert internal and "boom" in internal[0].message
        assert "API001" in {d.code for d in crashed}  # the other checks still ran
        assert await s.hover(root / "deploy.yaml", 6, 4)  # and the server still answers
        assert any("reading initializationOptions failed" in m for m in s.logs)
        (root / ".dralint.yaml").write_text("profile: strict\n", encoding="utf-8")
        await s.saved(root / ".dralint.yaml")
        assert not await s.diagnostics(root / ".dralint.yaml")  # fixed, and its problem gone

    run(Session(root, {"debounceMs": "soon"}, server=("-c", broken)), body)


def test_without_a_snapshot_completion_and_hover_come_from_the_driver_catalog(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"classes.yaml": CLASS})
    path = root / "template.yaml"
    text = TEMPLATE.replace("deviceClassName: gpu.acme.internal", "deviceClassName: gpu.nvidia.com")

    async def body(s: Session) -> None:
        await s.open(path, text)
        said = await s.hover(path, 11, 30)
        assert said is not None and "DeviceClass `gpu.nvidia.com`" in said and "driver catalog: gpu.nvidia.com" in said
        assert "kinds of device: gpu.nvidia.com" in said
        said = await s.hover(path, 15, 58)  # productName, which the catalog's NVIDIA releases publish
        assert said is not None and "**string**" in said and "(driver catalog)" in said
        typed = text.replace('["gpu.nvidia.com"].productName', '["gpu.nvidia.com"].cuda')
        await s.change(path, typed)
        names = {
            i.label: i.detail
            for i in await s.complete(path, 15, len('                device.attributes["gpu.nvidia.com"].cuda'))
        }
        assert names["cudaComputeCapability"].startswith("version: gpu.nvidia.com ")
        classes = {i.label for i in await s.complete(path, 11, len("          deviceClassName: "))}
        assert {"gpu.acme.internal", "gpu.nvidia.com", "gpu.example.com"} <= classes

    run(Session(root), body)


def test_tcp_on_loopback(tmp_path: Path) -> None:
    """``dralint lsp --tcp PORT`` answers on 127.0.0.1, as over stdio."""
    root = write(tmp_path / "repo", {"deploy.yaml": TYPO})
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "dralint", "lsp", "--tcp", str(port)], cwd=root)
    try:

        async def body() -> None:
            client = LanguageClient("dralint-tests", "1")
            found: asyncio.Queue[list[types.Diagnostic]] = asyncio.Queue()
            client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda params: found.put_nowait(params.diagnostics))
            for _ in range(100):
                try:
                    await client.start_tcp("127.0.0.1", port)
                    break
                except OSError:
                    await asyncio.sleep(0.1)
            await client.initialize_async(
                types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=uri(root))
            )
            client.initialized(types.InitializedParams())
            item = types.TextDocumentItem(uri(root / "deploy.yaml"), "yaml", 1, TYPO)
            client.text_document_did_open(types.DidOpenTextDocumentParams(item))
            diagnostics = await asyncio.wait_for(found.get(), 60)
            assert "API001" in {d.code for d in diagnostics}
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()

        asyncio.run(body())
    finally:
        server.terminate()
        server.wait(10)
