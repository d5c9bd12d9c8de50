"""simulate and fix keep their promises (issue 20, items 10-14)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from dralint.cli.main import main
from dralint.cli.simulate import as_text
from dralint.k8s.allocator.examples import load_example
from dralint.yaml import loader

ROOT = Path(__file__).resolve().parent.parent
OLD_CLASS = "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata:\n  name: gpu\n"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(
    "slices,message",
    [
        ("nofile.yaml", "nofile.yaml: no such file or directory"),
        ("example:nope", "unknown example snapshot 'nope'; known: h100-mig, kind, mixed"),
    ],
)
def test_simulate_says_why_a_snapshot_cannot_be_read(slices, message):
    result = invoke("simulate", "--slices", slices, str(ROOT / "examples" / "scheduling"))
    assert result.exit_code == 2
    assert message in result.output
    assert "holds no ResourceSlice" not in result.output


def test_simulate_says_why_the_remaining_replicas_do_not_fit():
    result = invoke(
        "simulate", "--format", "json", "--slices", "example:h100-mig", str(ROOT / "examples" / "scheduling")
    )
    trainer = next(t for t in json.loads(result.output)["templates"] if t["template"] == "StatefulSet research/trainer")
    assert (trainer["placed"], trainer["replicas"]) == (2, 3)
    assert sorted(n for nodes in trainer["unplacedReasons"].values() for n in nodes) == [
        f"h100-node-{i}" for i in range(4)
    ]
    assert trainer["unplacedReasons"]["not enough devices of class gpu.nvidia.com (need 8, node has 0 free)"] == [
        "h100-node-2",
        "h100-node-3",
    ]
    text = as_text([trainer])
    assert (
        "    replica 3 of 3 does not fit once 2 hold their devices:\n"
        "      2 node(s) (h100-node-2, h100-node-3): not enough" in text
    )


def test_simulate_names_extended_resource_requests_in_user_terms():
    migration = ROOT / "examples" / "migration"
    result = invoke("simulate", "--slices", str(migration / "cluster-state.yaml"), str(migration / "fixed"))
    assert "extended resources / nvidia.com/gpu of container 'server': gpu.nvidia.com/gpu-dra-1/gpu-0" in result.output
    assert "container-0-request" not in result.output and "<extended-resources>" not in result.output


def test_simulate_reads_a_kubectl_list_snapshot_of_more_nodes_than_aliases_may_add(tmp_path, monkeypatch):
    """``kubectl get -o yaml`` writes one List document, which for a fleet holds millions of YAML
    nodes; YAML006 counts only the nodes aliases add (its limit lowered here to 100)."""
    monkeypatch.setattr(loader, "MAX_EXPANDED_NODES", 100)
    objects = load_example("h100-mig")
    documents, listed = tmp_path / "documents.yaml", tmp_path / "list.yaml"
    documents.write_text(yaml.safe_dump_all(objects))
    listed.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
    results = [
        invoke("simulate", "--format", "json", "--slices", str(path), str(ROOT / "examples" / "scheduling"))
        for path in (documents, listed)
    ]
    assert [r.exit_code for r in results] == [1, 1] and "YAML006" not in results[1].output
    by_document, by_list = (json.loads(r.output)["templates"] for r in results)
    assert by_list == by_document and any(t["placed"] for t in by_list)


def test_fix_of_a_missing_path_is_a_usage_error_naming_it_once():
    result = invoke("fix", "/nonexistent")
    assert result.exit_code == 2
    assert result.output.count("/nonexistent") == 1


def test_fix_does_not_follow_a_symlink_out_of_the_tree(tmp_path):
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (outside / "class.yaml").write_text(OLD_CLASS)
    (tree / "link").symlink_to(outside, target_is_directory=True)
    (tree / "file.yaml").symlink_to(outside / "class.yaml")
    result = invoke("fix", str(tree))
    assert result.exit_code == 1
    assert (outside / "class.yaml").read_text() == OLD_CLASS
    assert f"{tree / 'link'} is a symbolic link to {outside}, outside {tree}; not followed" in result.output
    assert f"{tree / 'file.yaml'} is a symbolic link to {outside / 'class.yaml'}" in result.output
    linted = invoke("lint", "--format", "json", str(tree))
    assert {d["rule"] for d in json.loads(linted.stdout)["diagnostics"]} == {"YAML008"}


def test_fix_leaves_a_read_only_file_untouched_and_reports_it(tmp_path):
    target = tmp_path / "class.yaml"
    target.write_text(OLD_CLASS)
    target.chmod(0o444)
    try:
        result = invoke("fix", str(target))
        assert target.read_text() == OLD_CLASS
        assert result.exit_code == 1
        assert "the file is read-only; left unchanged" in result.output
        assert os.stat(target).st_mode & 0o777 == 0o444
    finally:
        target.chmod(0o644)


BLOCK_INDENTED = """    # a document indented as a whole, as pasted from a README
    apiVersion: resource.k8s.io/v1beta1
    kind: DeviceClass
    metadata:
      name: gpu
    spec:
      selectors:
      - cel:
          expression: device.driver == "gpu.example.com" &&
            device.attributes["gpu.example.com"].model == "H100"
"""


def test_fix_keeps_untouched_lines_of_a_block_indented_document_byte_for_byte(tmp_path):
    target = tmp_path / "class.yaml"
    target.write_text(BLOCK_INDENTED)
    result = invoke("fix", "--rule", "API012", str(target))
    assert result.exit_code == 0, result.output
    before, after = BLOCK_INDENTED.splitlines(keepends=True), target.read_text().splitlines(keepends=True)
    assert after[1] == "    apiVersion: resource.k8s.io/v1\n"
    assert after[:1] + after[2:] == before[:1] + before[2:]
