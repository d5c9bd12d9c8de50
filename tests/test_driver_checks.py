"""What the driver catalog changes when no cluster state is given: DeviceClasses the drivers'
charts install resolve, and selectors are judged against what the drivers publish."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import lint_text

from dralint.cli.main import main
from dralint.k8s.allocator.examples import load_example
from dralint.k8s.drivers import builtin_catalog
from dralint.lint.gate import lint_with_config
from dralint.lint.options import LintOptions

QUICKSTARTS = Path(__file__).parent / "data" / "quickstarts"


def _template(class_name: str, *expressions: str) -> str:
    selectors = "".join(f"          - cel:\n              expression: '{e}'\n" for e in expressions)
    return (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: t\nspec:\n  spec:\n"
        "    devices:\n      requests:\n      - name: gpu\n        exactly:\n"
        f"          deviceClassName: {class_name}\n" + ("          selectors:\n" + selectors if expressions else "")
    )


def _findings(tmp_path, manifest: str, rules=("REF001", "CEL010", "CEL015", "CEL017", "CEL018"), **options):
    result = lint_text(tmp_path, manifest, **options)
    return [d for d in result.diagnostics if d.rule in rules]


def test_quickstart_fixtures_get_no_ref001_for_catalog_classes():
    options = LintOptions(paths=[str(QUICKSTARTS)], profile="strict")
    result = lint_with_config(options, None)
    ref001 = [d for d in result.diagnostics if d.rule == "REF001"]
    assert [(Path(d.span.path).name, d.span.line) for d in ref001] == [("unknown-class.yaml", 12)]
    assert "fpga.acme.example" in ref001[0].message
    # and their correct selectors, one or more per catalog driver, get nothing from the catalog
    judged = [d for d in result.diagnostics if d.rule in ("CEL010", "CEL011", "CEL015", "CEL017", "CEL018")]
    assert judged == []


def test_catalog_class_does_not_resolve_when_the_run_holds_every_device_class(tmp_path):
    found = _findings(tmp_path, _template("gpu.nvidia.com"), closed_world={"DeviceClass"}, rules=("REF008",))
    assert [d.rule for d in found] == ["REF008"]


def test_misspelt_attribute_is_found_at_its_characters_with_did_you_mean(tmp_path):
    expression = 'device.attributes["gpu.nvidia.com"].prodctName == "NVIDIA H100 80GB HBM3"'
    manifest = _template("gpu.nvidia.com", expression)
    (finding,) = _findings(tmp_path, manifest)
    assert finding.rule == "CEL010"
    assert "did you mean 'productName'" in finding.message
    assert "gpu.nvidia.com 25.3.2, 25.8.0, 25.12.0" in finding.message  # the releases it was judged against
    line = manifest.splitlines()[finding.span.line - 1]
    assert line[finding.span.column - 1 : finding.span.end_column - 1] == "prodctName"


def test_string_attribute_compared_with_an_int(tmp_path):
    manifest = _template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].productName == 80')
    (finding,) = _findings(tmp_path, manifest)
    assert finding.rule == "CEL017" and "is a string" in finding.message and "int 80" in finding.message
    line = manifest.splitlines()[finding.span.line - 1]
    assert line[finding.span.column - 1 : finding.span.end_column - 1] == "=="


def test_int_attribute_compared_with_a_string_is_flagged_too(tmp_path):
    manifest = _template(
        "compute-domain-default-channel.nvidia.com", 'device.attributes["compute-domain.nvidia.com"].id == "0"'
    )
    assert [d.rule for d in _findings(tmp_path, manifest)] == ["CEL017"]


def test_a_version_attribute_compared_with_a_string_names_the_releases_judged(tmp_path):
    manifest = _template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].driverVersion >= "550.0.0"')
    (finding,) = _findings(tmp_path, manifest, rules=("CEL011",))
    assert "in gpu.nvidia.com 25.3.2, 25.8.0, 25.12.0 (dralint's driver catalog)" in finding.message
    (pinned,) = _findings(tmp_path, manifest, rules=("CEL011",), drivers={"gpu.nvidia.com": "25.8.0"})
    assert "in gpu.nvidia.com 25.8.0 (dralint's driver catalog)" in pinned.message


def test_mig_only_attribute_over_whole_gpus(tmp_path):
    manifest = _template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].profile == "1g.10gb"')
    (finding,) = _findings(tmp_path, manifest)
    assert finding.rule == "CEL018"
    assert "matches no device of this class" in finding.message and "mig" in finding.message
    assert "nvidia-dra-driver-gpu chart" in finding.message  # who installs the class
    assert not _findings(tmp_path, manifest.replace("gpu.nvidia.com\n", "mig.nvidia.com\n"))


def test_what_only_an_off_by_default_gate_publishes_is_said_as_such(tmp_path):
    """NVIDIA 25.12.0 announces a whole GPU's MIG capacities only with featureGates.DynamicMIG
    (cmd/gpu-kubelet-plugin/partitions.go): the chart's defaults still match no device."""
    manifest = _template(
        "gpu.nvidia.com", 'device.capacity["gpu.nvidia.com"].multiprocessors.compareTo(quantity("64")) >= 0'
    )
    (before,) = _findings(tmp_path, manifest, drivers={"gpu.nvidia.com": "25.8.0"})
    assert before.rule == "CEL018" and "DynamicMIG" not in before.message
    (gated,) = _findings(tmp_path, manifest, drivers={"gpu.nvidia.com": "25.12.0"})
    assert gated.rule == "CEL018" and gated.severity.value == "warning"
    assert gated.message.endswith(
        "; with featureGates.DynamicMIG (alpha, off by default) on, gpu.nvidia.com 25.12.0 also publishes it on gpu "
        "devices"
    )
    release = builtin_catalog().release("gpu.nvidia.com", "25.12.0")
    (whole,) = [k for k in release.kinds if k.name == "gpu"]
    assert "multiprocessors" not in release.device(whole).capacity.get("gpu.nvidia.com", {})  # the defaults
    listed = CliRunner().invoke(main, ["drivers", "gpu.nvidia.com"]).output
    assert "gpu-{i}-counter-set: multiprocessors, copy-engines" in listed
    assert "98, only with featureGates.DynamicMIG (alpha, off by default)  [25.12.0;" in listed


def test_mig_only_attribute_in_a_scanned_whole_gpu_class(tmp_path):
    manifest = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: small-gpu
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].type == "gpu"
  - cel:
      expression: device.attributes["gpu.nvidia.com"].?parentUUID.orValue("") != ""
"""
    assert [d.rule for d in _findings(tmp_path, manifest)] == ["CEL018"]


def test_selector_no_device_of_the_driver_satisfies(tmp_path):
    manifest = _template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].type == "mig"')
    (finding,) = _findings(tmp_path, manifest)
    assert finding.rule == "CEL015"
    line = manifest.splitlines()[finding.span.line - 1]
    assert (
        line[finding.span.column - 1 : finding.span.end_column - 1]
        == 'device.attributes["gpu.nvidia.com"].type == "mig"'
    )


@pytest.mark.parametrize(
    ("class_name", "expression"),
    [
        ("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].architecture == "Hopper"'),
        ("mig.nvidia.com", 'device.capacity["gpu.nvidia.com"].multiprocessors.compareTo(quantity("16")) >= 0'),
        ("compute-domain-daemon.nvidia.com", 'device.attributes["compute-domain.nvidia.com"].id >= 0'),
        ("gpu.example.com", 'device.attributes["gpu.example.com"].index == 0'),
        ("gpu.intel.com", 'device.attributes["gpu.intel.com"].model == "Flex 170"'),
        ("gpu.amd.com", 'device.attributes["gpu.amd.com"].partitionProfile == "spx_nps1"'),
        ("dra.cpu", 'device.attributes["dra.cpu"].socketID == 0'),
        ("gpu.nvidia.com", 'device.attributes["resource.kubernetes.io"].?pcieRoot.orValue("") == "pci0000:10"'),
    ],
)
def test_a_correct_selector_for_each_catalog_driver_gets_nothing(tmp_path, class_name, expression):
    assert _findings(tmp_path, _template(class_name, expression)) == []


def test_an_attribute_of_some_releases_only_says_which(tmp_path):
    manifest = _template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].index == 0')
    (finding,) = _findings(tmp_path, manifest)
    assert finding.rule == "CEL010" and finding.severity.value == "info"
    assert "published by gpu.nvidia.com 25.3.2 but not by gpu.nvidia.com 25.8.0, 25.12.0" in finding.message
    # the cluster's release, named on the command line, in the config or by a HelmRelease
    assert [d.rule for d in _findings(tmp_path, manifest, drivers={"gpu.nvidia.com": "25.3.2"})] == []
    newer = _findings(tmp_path, manifest, drivers={"gpu.nvidia.com": "25.8.0"})
    assert [(d.rule, d.severity.value) for d in newer] == [("CEL010", "warning")]
    assert "gpu.nvidia.com 25.8.0 in" in newer[0].message
    config = "drivers: {gpu.nvidia.com: 25.3.2}\n"
    assert _findings(tmp_path, manifest, config=config) == []


HELM_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: nvidia-dra-driver-gpu
  namespace: nvidia-dra-driver-gpu
spec:
  interval: 1h
  chart:
    spec:
      chart: nvidia-dra-driver-gpu
      version: "25.3.2"
      sourceRef: {kind: HelmRepository, name: nvidia}
---
"""


def test_the_release_is_read_from_a_helm_release(tmp_path):
    manifest = HELM_RELEASE + _template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].index == 0')
    assert _findings(tmp_path, manifest) == []
    newer = HELM_RELEASE.replace('"25.3.2"', '"25.12.0"') + _template(
        "vfio.gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].index == 0'
    )
    assert [(d.rule, d.severity.value) for d in _findings(tmp_path, newer)] == [("CEL010", "warning")]


def test_a_range_of_versions_judges_the_catalog_releases_in_it(tmp_path):
    manifest = _template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].index == 0')  # 25.3.2 only
    for constraint, judged in [
        ("~25.3.0", None),  # 25.3.2 alone: it publishes index
        (">=25.3.0 <25.12.0", "gpu.nvidia.com 25.8.0"),
        ("25.x", "gpu.nvidia.com 25.8.0, 25.12.0"),
        ("26.x", "gpu.nvidia.com 25.8.0, 25.12.0"),  # no catalog release: every one is judged
    ]:
        installed = HELM_RELEASE.replace('"25.3.2"', f'"{constraint}"') + manifest
        found = _findings(tmp_path, installed)
        if judged is None:
            assert found == [], constraint
        else:
            (finding,) = found
            assert f"but not by {judged};" in finding.message, constraint
    argo = (
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: dra\nspec:\n  source:\n"
        "    chart: nvidia-dra-driver-gpu\n    repoURL: https://helm.ngc.nvidia.com/nvidia\n"
        "    targetRevision: 25.3.x\n---\n"
    )
    assert _findings(tmp_path, argo + manifest) == []


def test_class_of_a_later_release_is_unknown_to_an_earlier_one(tmp_path):
    manifest = _template("vfio.gpu.nvidia.com")
    assert _findings(tmp_path, manifest) == []
    assert [d.rule for d in _findings(tmp_path, manifest, drivers={"gpu.nvidia.com": "25.8.0"})] == ["REF001"]


def test_slices_win_over_the_catalog(tmp_path):
    manifest = _template("gpu.example.com", 'device.attributes["gpu.example.com"].productName == "A100"')
    assert [d.rule for d in _findings(tmp_path, manifest)] == ["CEL010"]
    snapshot = yaml.safe_dump_all(load_example("kind"))
    with_slices = _findings(tmp_path, manifest, slices=snapshot)
    assert all("catalog" not in d.message for d in with_slices)


def test_example_snapshot_of_a_driver_is_its_real_device_shapes():
    objects = load_example("gpu.nvidia.com@25.8.0")
    slices = [o for o in objects if o["kind"] == "ResourceSlice"]
    classes = {o["metadata"]["name"] for o in objects if o["kind"] == "DeviceClass"}
    assert classes == {"gpu.nvidia.com", "mig.nvidia.com"}
    devices = slices[0]["spec"]["devices"]
    assert {d["attributes"]["type"]["string"] for d in devices} == {"gpu", "mig"}
    gpu = next(d for d in devices if d["attributes"]["type"]["string"] == "gpu")
    assert gpu["attributes"]["cudaComputeCapability"] == {"version": "9.0.0"}
    assert "pcieBusID" in gpu["attributes"] and "index" not in gpu["attributes"]
    with pytest.raises(KeyError, match="gpu.nvidia.com"):
        load_example("gpu.nvidia.con")


def test_lint_and_simulate_take_example_driver_snapshots(tmp_path):
    claim = _template("mig.nvidia.com", 'device.attributes["gpu.nvidia.com"].profile == "1g.10gb"')
    pod = """---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: t}
  containers:
  - name: c
    image: registry.example.com/cuda:12.4
    resources: {claims: [{name: gpu}]}
"""
    (tmp_path / "w.yaml").write_text(claim + pod)
    simulated = CliRunner().invoke(main, ["simulate", "--slices", "example:gpu.nvidia.com", str(tmp_path / "w.yaml")])
    assert simulated.exit_code == 0, simulated.output
    assert "gpu.nvidia.com/node-0/gpu-0-mig-0" in simulated.output
    linted = CliRunner().invoke(
        main, ["lint", "--no-config", "--slices", "example:nvidia-dra-driver-gpu", str(tmp_path)]
    )
    assert "REF001" not in linted.output and "CEL015" not in linted.output


def test_drivers_command_lists_the_catalog_with_sources():
    runner = CliRunner()
    listed = runner.invoke(main, ["drivers", "--no-config"])
    assert listed.exit_code == 0
    for driver in builtin_catalog().drivers:
        assert driver in listed.output
    shown = runner.invoke(main, ["drivers", "--no-config", "gpu.nvidia.com"])
    assert shown.exit_code == 0
    assert "productName" in shown.output and "cmd/gpu-kubelet-plugin/deviceinfo.go" in shown.output
    assert "mig.nvidia.com" in shown.output and "v25.8.0" in shown.output
    by_class = runner.invoke(main, ["drivers", "--no-config", "compute-domain-default-channel.nvidia.com"])
    assert "compute-domain.nvidia.com" in by_class.output
    missing = runner.invoke(main, ["drivers", "--no-config", "nope.example"])
    assert missing.exit_code == 2


def test_driver_option_is_checked(tmp_path):
    (tmp_path / "t.yaml").write_text(_template("gpu.nvidia.com"))
    runner = CliRunner()
    bad = runner.invoke(main, ["lint", "--no-config", "--driver", "gpu.nvidia.com=1.0", str(tmp_path)])
    assert bad.exit_code == 2 and "known: 25.3.2, 25.8.0, 25.12.0" in bad.output
    typo = runner.invoke(main, ["lint", "--no-config", "--driver", "gpu.nvidia.co=25.8.0", str(tmp_path)])
    assert typo.exit_code == 2 and "did you mean 'gpu.nvidia.com'" in typo.output
    good = runner.invoke(main, ["lint", "--no-config", "--driver", "gpu.nvidia.com=v25.8.0", str(tmp_path)])
    assert good.exit_code == 0, good.output


def test_driver_option_overrides_the_config_for_the_drivers_it_names(tmp_path):
    nvidia = _template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].index == 0')  # 25.3.2 only
    example = _template("gpu.example.com", 'device.attributes["gpu.example.com"].partition == 0')  # 0.4.0 only
    (tmp_path / "t.yaml").write_text(nvidia + "---\n" + example.replace("name: t", "name: e"))
    (tmp_path / ".dralint.yaml").write_text("drivers: {gpu.nvidia.com: 25.3.2, gpu.example.com: 0.2.1}\n")
    args = ["lint", "--config", str(tmp_path / ".dralint.yaml"), "--format", "json", str(tmp_path / "t.yaml")]
    configured = CliRunner().invoke(main, args)
    assert [
        (d["rule"], d["severity"]) for d in json.loads(configured.output)["diagnostics"] if d["rule"] == "CEL010"
    ] == [("CEL010", "warning")]
    both = CliRunner().invoke(main, [*args, "--driver", "gpu.nvidia.com=25.8.0"])
    messages = [d["message"] for d in json.loads(both.output)["diagnostics"] if d["rule"] == "CEL010"]
    assert len(messages) == 2
    assert any("gpu.nvidia.com 25.8.0 in" in m for m in messages)
    assert any("gpu.example.com 0.2.1 in" in m for m in messages)  # still the config's pin


TEAM_CATALOG = Path(__file__).parent / "data" / "drivers" / "team-catalog.yaml"


def test_team_catalog_from_config_adds_its_driver_and_reports_its_mistakes(tmp_path):
    (tmp_path / "drivers.yaml").write_text(TEAM_CATALOG.read_text())
    config = "driver-catalogs: [drivers.yaml]\ndrivers: {accel.acme.io: 1.2.0, gpu.nvidia.com: 9.9.9}\n"
    manifest = _template("accel.acme.io", 'device.attributes["accel.acme.io"].modle == "X1"')
    result = lint_text(tmp_path, manifest, config=config)
    rules = [(d.rule, Path(d.span.path).name, d.span.line, d.span.column) for d in result.diagnostics]
    assert ("CFG001", "drivers.yaml", 11, 29) in rules  # the unknown type, at its value
    assert ("CFG001", ".dralint.yaml", 2, 49) in rules  # no such release of gpu.nvidia.com
    assert "REF001" not in {d.rule for d in result.diagnostics}
    (cel010,) = [d for d in result.diagnostics if d.rule == "CEL010"]
    assert "did you mean 'model'" in cel010.message and "accel.acme.io 1.2.0" in cel010.message


def _umbrella_chart(tmp_path, version: str) -> list[str]:
    """A claim and an umbrella chart that depends on the NVIDIA driver's chart at ``version``."""
    chart = tmp_path / "platform"
    chart.mkdir()
    (chart / "Chart.yaml").write_text(
        "apiVersion: v2\nname: platform\nversion: 1.0.0\ndependencies:\n"
        f'  - {{name: nvidia-dra-driver-gpu, version: "{version}", repository: https://helm.ngc.nvidia.com/nvidia}}\n'
    )
    (tmp_path / "claims.yaml").write_text(_template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].index == 0'))
    return [str(tmp_path / "claims.yaml"), str(chart / "Chart.yaml")]


def test_the_release_is_read_from_an_umbrella_charts_dependency(tmp_path):
    claims, chart = _umbrella_chart(tmp_path, "25.3.2")
    alone = lint_with_config(LintOptions(paths=[claims]), None)
    assert [d.rule for d in alone.diagnostics if d.rule == "CEL010"] == ["CEL010"]
    result = lint_with_config(LintOptions(paths=[claims, chart]), None)
    assert [d for d in result.diagnostics if d.rule == "CEL010"] == []


def test_an_umbrella_charts_dependency_may_name_a_range(tmp_path):
    result = lint_with_config(LintOptions(paths=_umbrella_chart(tmp_path, "^25.8.0")), None)
    (finding,) = [d for d in result.diagnostics if d.rule == "CEL010"]
    assert finding.severity.value == "warning"  # every judged release lacks it, not some
    assert "gpu.nvidia.com 25.8.0, 25.12.0" in finding.message and "25.3.2" not in finding.message


def test_unguarded_read_of_what_every_device_of_the_class_has_is_no_cel009(tmp_path):
    always = _template("gpu.nvidia.com", 'device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3"')
    assert _findings(tmp_path, always, rules=("CEL009",)) == []
    some = _template("gpu.nvidia.com", 'device.attributes["resource.kubernetes.io"].pcieRoot == "pci0000:10"')
    assert [d.rule for d in _findings(tmp_path, some, rules=("CEL009",))] == ["CEL009"]  # on some devices only
    unknown_class = _template("gpu.acme.example", 'device.attributes["gpu.acme.example"].productName == "X"')
    assert [d.rule for d in _findings(tmp_path, unknown_class, rules=("CEL009",))] == ["CEL009"]
