"""Environments (issue 43): several clusters in one tree, judged each on its own."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from dralint.cli.main import main
from dralint.lint.config import load_config
from dralint.lint.environments import configured, from_layout
from dralint.lint.gate import lint_with_config
from dralint.lint.options import LintOptions

CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: {name}
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.nvidia.com"
  extendedResourceName: nvidia.com/gpu
"""
WORKLOAD = """apiVersion: v1
kind: ConfigMap
metadata: {{name: settings, namespace: ml}}
data: {{mode: {mode}}}
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def run(root: Path, *, profile: str = "strict", config: str | None = None, **options):
    loaded = None
    if config is not None:
        (root / ".dralint.yaml").write_text(config, encoding="utf-8")
        loaded = load_config(str(root / ".dralint.yaml"))
    opts = loaded.apply(LintOptions()) if loaded else LintOptions()
    opts.paths = [str(root)]
    opts.profile = profile
    for key, value in options.items():
        setattr(opts, key, value)
    return lint_with_config(opts, loaded)


def of_rule(result, rule: str) -> list[str]:
    return [d.message for d in result.diagnostics if d.rule == rule]


def test_layout_recognises_clusters_envs_and_environment_named_siblings():
    envs = from_layout(
        [
            "repo/clusters/eu-1/a.yaml",
            "repo/clusters/us-2/b.yaml",
            "repo/base/c.yaml",
            "apps/staging/d.yaml",
            "apps/prod/e.yaml",
            "apps/frontend/f.yaml",
        ]
    )
    assert envs.names == ("eu-1", "prod", "staging", "us-2")
    assert envs.of("repo/clusters/eu-1/a.yaml") == {"eu-1"}
    assert envs.of("apps/prod/e.yaml") == {"prod"}
    assert envs.of("repo/base/c.yaml") == frozenset()  # shared: every environment
    assert envs.of("apps/frontend/f.yaml") == frozenset()


def test_layout_needs_two_siblings_and_ignores_ordinary_directories():
    assert not from_layout(["clusters/prod/a.yaml", "base/b.yaml"]).several
    assert not from_layout(["apps/frontend/a.yaml", "apps/backend/b.yaml"]).several
    renders = from_layout(["<kustomize build deploy/eu>", "<kustomize build deploy/us>"])
    assert renders.names == ("eu", "us")


def test_config_globs_and_shared_paths_belong_to_every_environment_listing_them():
    envs = configured(
        ["clusters/prod/a.yaml", "base/b.yaml", "clusters/staging/c.yaml", "other/d.yaml"],
        {"prod": ["clusters/prod/**", "base/**"], "staging": ["clusters/staging", "base/**"]},
    )
    assert envs.of("clusters/prod/a.yaml") == {"prod"}
    assert envs.of("base/b.yaml") == {"prod", "staging"}
    assert envs.of("clusters/staging/c.yaml") == {"staging"}
    assert envs.of("other/d.yaml") == frozenset()


def test_copies_in_staging_and_prod_are_no_clash_but_a_real_clash_in_one_is(tmp_path):
    same = CLASS.format(name="gpu.nvidia.com")
    write(tmp_path, {"staging/class.yaml": same, "prod/class.yaml": same})
    assert of_rule(run(tmp_path), "EXT002") == []
    write(tmp_path, {"staging/other.yaml": CLASS.format(name="gpu-b.nvidia.com")})
    clash = of_rule(run(tmp_path), "EXT002")
    assert len(clash) == 2
    assert all("DeviceClasses gpu-b.nvidia.com, gpu.nvidia.com all map" in m for m in clash)
    assert all(m.endswith("(environment staging)") for m in clash)


def test_identical_copies_in_one_directory_are_one_object(tmp_path):
    same = CLASS.format(name="gpu.nvidia.com")
    write(tmp_path, {"a/class.yaml": same, "b/class.yaml": same})
    assert of_rule(run(tmp_path), "EXT002") == []


def test_two_different_definitions_of_one_class_in_one_environment_stay_a_finding(tmp_path):
    write(
        tmp_path,
        {
            "a/class.yaml": CLASS.format(name="gpu.nvidia.com"),
            "b/class.yaml": CLASS.format(name="gpu.nvidia.com") + "  config: []\n",
        },
    )
    found = of_rule(run(tmp_path), "EXT002")
    assert found and all(m.startswith("DeviceClass gpu.nvidia.com is defined 2 times, differently") for m in found)
    assert all("gpu.nvidia.com, gpu.nvidia.com" not in m for m in found)


POD = """apiVersion: v1
kind: Pod
metadata: {name: app, namespace: ml}
spec:
  containers:
  - name: c
    image: registry.example/app:1.0
    envFrom: [{configMapRef: {name: settings}}]
"""


def test_references_do_not_cross_environments(tmp_path):
    write(tmp_path, {"envs/prod/pod.yaml": POD, "envs/staging/cm.yaml": WORKLOAD.format(mode="a")})
    found = [d for d in run(tmp_path, closed_world={"ConfigMap"}).diagnostics if "settings" in d.message]
    assert found and all("(environment prod)" in d.message for d in found)
    write(tmp_path, {"envs/prod/cm.yaml": WORKLOAD.format(mode="b")})
    assert [d for d in run(tmp_path, closed_world={"ConfigMap"}).diagnostics if "settings" in d.message] == []


def test_context_files_belong_to_their_environments_too(tmp_path):
    """pre-commit lints the changed file with the tree as context, the editor with its workspace:
    the other cluster's objects are no more visible than when the whole tree is linted."""
    write(tmp_path, {"envs/prod/pod.yaml": POD, "envs/staging/cm.yaml": WORKLOAD.format(mode="a")})
    changed = run(tmp_path, closed_world={"ConfigMap"}, paths=[str(tmp_path / "envs/prod/pod.yaml")])
    assert len(of_rule(changed, "REF022")) == 1  # alone, the ConfigMap is nowhere
    pre_commit = run(
        tmp_path, closed_world={"ConfigMap"}, paths=[str(tmp_path / "envs/prod/pod.yaml")], context=[str(tmp_path)]
    )
    found = [d.message for d in pre_commit.diagnostics if "settings" in d.message]
    assert found and all("(environment prod)" in m for m in found)
    write(tmp_path, {"envs/prod/cm.yaml": WORKLOAD.format(mode="b")})
    pre_commit = run(
        tmp_path, closed_world={"ConfigMap"}, paths=[str(tmp_path / "envs/prod/pod.yaml")], context=[str(tmp_path)]
    )
    assert [d for d in pre_commit.diagnostics if "settings" in d.message] == []


def test_configured_environments_with_a_shared_base(tmp_path):
    write(
        tmp_path,
        {
            "base/pod.yaml": POD,
            "clusters/prod/cm.yaml": WORKLOAD.format(mode="a"),
            "clusters/staging/cm.yaml": WORKLOAD.format(mode="b"),
        },
    )
    config = 'environments: {prod: ["clusters/prod/**", "base/**"], staging: ["clusters/staging/**", "base/**"]}\n'
    result = run(tmp_path, config=config, closed_world={"ConfigMap"})
    assert [d for d in result.diagnostics if "settings" in d.message] == []
    assert result.context.environments.names == ("prod", "staging")


def test_environment_option_lints_one_environment_and_rejects_unknown_names(tmp_path, monkeypatch):
    write(tmp_path, {"clusters/prod/pod.yaml": POD, "clusters/staging/cm.yaml": WORKLOAD.format(mode="a")})
    monkeypatch.chdir(tmp_path)
    one = CliRunner().invoke(main, ["lint", "--no-config", "--environment", "staging", "."])
    assert "1 file, 1 object" in one.output and one.exit_code == 0
    bad = CliRunner().invoke(main, ["lint", "--no-config", "--environment", "qa", "."])
    assert bad.exit_code == 2 and "its environments: prod, staging" in bad.output


SIMULATED = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - {name: g, exactly: {deviceClassName: gpu.example.com}}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml}
spec:
  resourceClaims: [{name: g, resourceClaimTemplateName: one}]
  containers:
  - {name: main, image: registry.example/app:1.0, resources: {claims: [{name: g}]}}
"""


def test_simulate_places_each_environment_on_its_own(tmp_path, monkeypatch):
    without_template = "---".join(part for part in SIMULATED.split("---") if "ResourceClaimTemplate" not in part)
    write(tmp_path, {"clusters/a/x.yaml": SIMULATED, "clusters/b/x.yaml": without_template})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["simulate", "--slices", "example:kind", "--format", "json", "."])
    rows = {r["environment"]: r for r in json.loads(result.output)["templates"]}
    assert rows["a"]["placed"] == 1 and rows["a"]["unresolved"] == []
    assert rows["b"]["unresolved"]  # b's pod cannot use the claim template of cluster a
