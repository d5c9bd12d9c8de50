"""Charts and overlays: rendering with helm/kustomize and findings at the files the user edits.

Most tests run on any machine: a stand-in ``helm`` or ``kustomize`` on PATH prints a recorded
render from tests/data/renders (real tool output, recorded from examples/), so the mapping from
rendered findings to templates, resources and patches is tested without the tools. The tests
at the end run the real binaries (built by tools/build_render_tools.sh into
``DRALINT_TOOLS_DIR``) and also check that the recordings still match what the tools print.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dralint.lint.config import load_config
from dralint.lint.gate import lint_with_config
from dralint.lint.options import LintOptions
from dralint.reporters.json_report import document as json_document
from dralint.reporters.json_report import render as json_render
from dralint.reporters.sarif import document as sarif_document
from dralint.reporters.sarif import render as sarif_render
from dralint.yaml.render import RenderUnit, plan, strip_build_metadata
from dralint.yaml.templates import locate_key

REPO = Path(__file__).resolve().parent.parent
RENDERS = Path(__file__).resolve().parent / "data" / "renders"
CHART = "examples/helm-chart"
CLAIM_TEMPLATE = "examples/helm-chart/templates/claim-template.yaml"
PROD = "examples/kustomize/overlays/prod"
PATCH = "examples/kustomize/overlays/prod/deviceclass-patch.yaml"


def _line_of(path: str, text: str) -> int:
    """1-based line of the first line of ``path`` holding ``text``."""
    lines = (REPO / path).read_text(encoding="utf-8").split("\n")
    return next(n for n, line in enumerate(lines, 1) if text in line)


def fake_tool(bin_dir: Path, name: str, render: str, log: Path, root: Path = REPO) -> None:
    """A stand-in for helm or kustomize: logs its arguments and prints ``render`` (a recorded
    render, where ``@REPO@`` becomes ``root``'s path relative to the directory built)."""
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"with open({str(log)!r}, 'a') as handle:\n"
        "    handle.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"text = {render!r}\n"
        f"sys.stdout.write(text.replace('@REPO@', os.path.relpath({str(root)!r}, sys.argv[-1])))\n",
        encoding="utf-8",
    )
    script.chmod(0o755)


@pytest.fixture
def at_repo(monkeypatch):
    monkeypatch.chdir(REPO)


@pytest.fixture
def tools(tmp_path, monkeypatch, at_repo):
    """PATH holding only stand-ins; returns a function that installs one and its call log."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))

    def install(name: str, recording: str, render: str | None = None, root: Path = REPO) -> Path:
        log = tmp_path / f"{name}.log"
        fake_tool(
            bin_dir,
            name,
            render if render is not None else (RENDERS / recording).read_text(encoding="utf-8"),
            log,
            root,
        )
        return log

    return install


def lint(paths: list[str], config: str | None = None, stdin: bytes | None = None, **options) -> object:
    loaded = load_config(config) if config else None
    opts = loaded.apply(LintOptions()) if loaded else LintOptions()
    opts.paths = paths
    opts.profile = options.pop("profile", "strict")
    for key, value in options.items():
        setattr(opts, key, value)
    return lint_with_config(opts, loaded, io.BytesIO(stdin) if stdin is not None else None)


def _only(result, rule: str):
    found = [d for d in result.diagnostics if d.rule == rule]
    assert len(found) == 1, [(d.rule, d.span) for d in result.diagnostics]
    return found[0]


# --- the key locator on template text -------------------------------------------------------------

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: {{ .Release.Name }}-gpus
spec:
  spec:
    devices:
      requests:
      {{- range .Values.requests }}
      - name: {{ .name }}
        exactly:
          deviceClassName: {{ $.Values.deviceClass }}
          selectors:
          - cel:
              expression: device.driver == "gpu.nvidia.com"
      {{- end }}
      constraints:
      - requests: ["gpus"]
        matchAttribute: gpu.nvidia.com/pcieRoot
"""


def test_locate_key_follows_parents_through_list_items_and_template_lines():
    found = locate_key(TEMPLATE, ["spec", "spec", "devices", "requests", "exactly", "selectors", "cel", "expression"])
    assert (found.line, found.column) == (15, 15)
    assert found.value_text == 'device.driver == "gpu.nvidia.com"'
    assert (found.line, found.column) == (15, TEMPLATE.split("\n")[14].index("expression") + 1)
    name = locate_key(TEMPLATE, ["spec", "spec", "devices", "requests", "name"])
    assert (name.line, name.column) == (10, 9)
    assert locate_key(TEMPLATE, ["metadata", "name"]).line == 4


def test_locate_key_refuses_what_is_not_unambiguously_in_the_file():
    # a key under the wrong parents, a key produced by include/toYaml, and a key written twice
    assert locate_key(TEMPLATE, ["spec", "devices", "requests", "name"]) is None
    assert locate_key(TEMPLATE, ["spec", "template", "spec", "nodeSelector"]) is None
    twice = "a:\n  b: 1\n---\na:\n  b: 2\n"
    assert locate_key(twice, ["a", "b"]) is None
    assert locate_key(twice, []) is None


def test_strip_build_metadata_leaves_what_a_plain_build_prints():
    recorded = (RENDERS / "kustomize-prod.yaml").read_text(encoding="utf-8").split("---\n")[1]
    stripped = strip_build_metadata(recorded)
    assert "config.kubernetes.io" not in stripped and "annotations:" not in stripped
    assert stripped.startswith(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: trainer-gpus\n"
    )
    kept = strip_build_metadata(
        "metadata:\n  annotations:\n    team: ml\n    config.kubernetes.io/origin: |\n      path: a.yaml\n  name: x\n"
    )
    assert kept == "metadata:\n  annotations:\n    team: ml\n  name: x\n"


# --- which directories are rendered ---------------------------------------------------------------


def test_plan_renders_top_level_overlays_and_charts_and_owns_their_files(at_repo):
    files = [str(p.relative_to(REPO)) for p in sorted((REPO / "examples").rglob("*.yaml"))]
    work = plan(files)
    assert sorted((u.tool, u.root) for u in work.units) == [
        ("helm", CHART),
        ("kustomize", "examples/kustomize/overlays/dev"),
        ("kustomize", PROD),
    ]
    owned = {os.path.relpath(p, REPO) for p in work.owned}
    assert {CLAIM_TEMPLATE, "examples/helm-chart/values.yaml", "examples/kustomize/base/job.yaml", PATCH} <= owned
    assert "examples/kustomize/platform/deviceclasses.yaml" not in owned
    assert "examples/gpu-training/claims.yaml" not in owned


def test_a_subchart_renders_with_its_parent(tmp_path):
    for chart in ("parent", "parent/charts/child"):
        (tmp_path / chart / "templates").mkdir(parents=True)
        (tmp_path / chart / "Chart.yaml").write_text(
            f"apiVersion: v2\nname: {chart.rsplit('/', 1)[-1]}\nversion: 0.1.0\n"
        )
    work = plan([str(tmp_path / "parent/Chart.yaml"), str(tmp_path / "parent/charts/child/Chart.yaml")])
    assert work.units == [RenderUnit("helm", str(tmp_path / "parent"))]


# --- without the tools -------------------------------------------------------------------------------


def test_without_helm_or_kustomize_each_chart_and_overlay_gets_one_finding(tools):
    result = lint(["examples/"])
    missing = sorted((d.span.path, d.span.line) for d in result.diagnostics if d.rule == "YAML013")
    assert missing == [
        ("examples/helm-chart/Chart.yaml", 1),
        ("examples/kustomize/overlays/dev/kustomization.yaml", 1),
        ("examples/kustomize/overlays/prod/kustomization.yaml", 1),
    ]
    helm = next(d for d in result.diagnostics if d.rule == "YAML013" and "helm" in d.span.path)
    assert "helm template examples/helm-chart | dralint lint -" in helm.message
    # the raw templates and the overlay's files are skipped, not reported as broken YAML
    touched = {d.span.path for d in result.diagnostics}
    assert not any(p.startswith(("examples/helm-chart/templates", "examples/kustomize/base")) for p in touched)
    assert not [d for d in result.diagnostics if d.rule in ("YAML001", "YAML010")]


def test_without_helm_the_cli_still_lints_the_rest(tools, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "dralint", "lint", "--no-config", "examples/helm-chart", "examples/gpu-training"],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(tmp_path / "bin")},
    )
    assert "Traceback" not in done.stderr
    assert "examples/helm-chart/Chart.yaml:1:1: warning:" in done.stdout and "[YAML013]" in done.stdout
    assert done.returncode == 1  # the gpu-training examples hold deliberate errors


def test_a_failing_render_is_one_error_at_the_chart(tools, tmp_path):
    failing = tmp_path / "bin" / "helm"
    failing.write_text("#!/bin/sh\necho 'Error: template: gpu-training/templates/job.yaml:4:11: bad' >&2\nexit 1\n")
    failing.chmod(0o755)
    diag = _only(lint([CHART]), "YAML014")
    assert diag.span.path == "examples/helm-chart/Chart.yaml"
    assert diag.message.endswith("template: gpu-training/templates/job.yaml:4:11: bad")


# --- Helm: findings at the template ------------------------------------------------------------------


def test_chart_findings_land_on_the_template_line_with_the_rendered_place_kept(tools):
    tools("helm", "helm-gpu-training.yaml")
    result = lint([CHART])
    diag = _only(result, "CEL011")
    line = _line_of(CLAIM_TEMPLATE, "expression:")
    text = (REPO / CLAIM_TEMPLATE).read_text().split("\n")[line - 1]
    assert (diag.span.path, diag.span.line) == (CLAIM_TEMPLATE, line)
    assert diag.span.column > text.index("expression:")  # inside the expression, as on a plain file
    assert diag.rendered is not None and diag.rendered.path == "<helm template examples/helm-chart>"
    assert result.sources[diag.rendered.path].line_text(diag.rendered.line).strip().startswith("expression:")
    assert {f.path for f in result.files} >= {CLAIM_TEMPLATE, "examples/helm-chart/templates/job.yaml"}


def test_chart_settings_from_the_command_line_and_the_config_reach_helm(tools, tmp_path):
    log = tools("helm", "helm-gpu-training.yaml")
    config = tmp_path / ".dralint.yaml"
    config.write_text(
        f"charts:\n  {REPO / CHART}:\n    values: [{REPO / CHART / 'values.yaml'}]\n    set: [workers=4]\n"
        "    release: nightly\n",
        encoding="utf-8",
    )
    lint([CHART], config=str(config), helm_set=["gpusPerWorker=8"], helm_namespace="ml")
    argv = json.loads(log.read_text().splitlines()[0])
    assert argv[:3] == ["template", "nightly", CHART]
    assert argv[3:] == [
        "--namespace",
        "ml",
        "--values",
        str(REPO / CHART / "values.yaml"),
        "--set",
        "workers=4",
        "--set",
        "gpusPerWorker=8",
    ]


def test_a_bad_charts_entry_is_a_config_finding(tmp_path):
    config = tmp_path / ".dralint.yaml"
    config.write_text("charts:\n  chart/:\n    valuez: [a.yaml]\n  other/:\n    release: [x]\n", encoding="utf-8")
    loaded = load_config(str(config))
    assert sorted((f.span.line, f.message) for f in loaded.findings) == [
        (3, "charts.chart/.valuez is not a chart setting (known: values, set, release, namespace)"),
        (5, "charts.other/.release must be a string, got a list"),
    ]
    assert loaded.values["charts"] == {}


def test_a_piped_render_maps_through_its_source_comments(at_repo):
    render = (RENDERS / "helm-gpu-training.yaml").read_bytes()
    result = lint(["-"], stdin=render)
    diag = _only(result, "CEL011")
    assert (diag.span.path, diag.span.line) == (CLAIM_TEMPLATE, _line_of(CLAIM_TEMPLATE, "expression:"))
    assert diag.rendered.path == "<stdin>"
    assert render.decode().split("\n")[diag.rendered.line - 1].strip().startswith("expression:")


def test_the_streamed_json_report_carries_the_rendered_place(at_repo):
    result = lint(["-"], stdin=(RENDERS / "helm-gpu-training.yaml").read_bytes())
    assert _only(result, "CEL011").rendered is not None
    assert json.loads(json_render(result)) == json_document(result)
    assert json_render(result) == json.dumps(json_document(result), indent=2) + "\n"


def test_a_piped_render_of_an_unknown_chart_stays_in_the_stream(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = lint(["-"], stdin=(RENDERS / "helm-gpu-training.yaml").read_bytes())
    diag = _only(result, "CEL011")
    assert diag.span.path == "<stdin>" and diag.rendered is None


def test_json_and_sarif_carry_both_places(tools):
    tools("helm", "helm-gpu-training.yaml")
    result = lint([CHART])
    entry = next(d for d in json_document(result)["diagnostics"] if d["rule"] == "CEL011")
    assert entry["path"] == CLAIM_TEMPLATE
    assert entry["rendered"]["path"] == "<helm template examples/helm-chart>" and entry["rendered"]["line"] > 0
    plain = next(d for d in json_document(lint(["examples/gpu-training"]))["diagnostics"])
    assert "rendered" not in plain  # the contract is unchanged for plain files
    sarif = next(r for r in sarif_document(result)["runs"][0]["results"] if r["ruleId"] == "CEL011")
    assert sarif["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == CLAIM_TEMPLATE
    rendered = sarif["properties"]["rendered"]
    assert rendered["artifactLocation"]["uri"] == "%3Chelm%20template%20examples%2Fhelm-chart%3E"
    assert rendered in [r["physicalLocation"] for r in sarif["relatedLocations"]]
    assert sarif_render(result) == json.dumps(sarif_document(result), ensure_ascii=False, separators=(",", ":")) + "\n"


# --- suppressions and baselines on rendered findings ----------------------------------------------


def _chart_copy(tmp_path: Path) -> Path:
    chart = tmp_path / "chart"
    shutil.copytree(REPO / CHART, chart)
    return chart


def test_a_comment_in_the_template_suppresses_what_it_renders(tools, tmp_path):
    chart = _chart_copy(tmp_path)
    template = chart / "templates" / "claim-template.yaml"
    lines = template.read_text().split("\n")
    index = next(i for i, line in enumerate(lines) if "expression:" in line)
    lines[index] += "  # dralint: ignore[CEL011] checked by hand"
    template.write_text("\n".join(lines))
    render = (RENDERS / "helm-gpu-training.yaml").read_text()
    tools("helm", "", render=render.replace('>= "550"', '>= "550"  # dralint: ignore[CEL011] checked by hand'))
    result = lint([str(chart)])
    assert not [d for d in result.diagnostics if d.rule in ("CEL011", "CFG003")]
    assert [s.diagnostic.rule for s in result.suppressed] == ["CEL011"]


def test_an_annotation_in_the_template_suppresses_what_it_renders(tools, tmp_path):
    chart = _chart_copy(tmp_path)
    render = (RENDERS / "helm-gpu-training.yaml").read_text()
    annotated = render.replace(
        "kind: ResourceClaimTemplate\nmetadata:\n",
        "kind: ResourceClaimTemplate\nmetadata:\n  annotations:\n    dralint.io/ignore: CEL011\n",
    )
    assert annotated != render
    tools("helm", "", render=annotated)
    result = lint([str(chart)])
    assert not [d for d in result.diagnostics if d.rule in ("CEL011", "CFG003")]
    assert [s.diagnostic.rule for s in result.suppressed] == ["CEL011"]


def test_a_baseline_entry_survives_a_re_render(tools, tmp_path):
    from dralint.lint.baseline import baseline_document

    render = (RENDERS / "helm-gpu-training.yaml").read_text()
    tools("helm", "", render=render)
    first = lint([CHART])
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(baseline_document(first.diagnostics, first.fingerprints)))
    # the next render has an extra document in front: every rendered line moves
    extra = (
        "---\n# Source: gpu-training/templates/job.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"
    )
    tools("helm", "", render=extra + render)
    second = lint([CHART], baseline=str(baseline))
    moved = next(d for d in second.known if d.rule == "CEL011")
    assert moved.rendered.line != next(d for d in first.diagnostics if d.rule == "CEL011").rendered.line
    assert not [d for d in second.diagnostics if d.rule == "CEL011"]


# --- Kustomize: findings at the resource or the patch -----------------------------------------------


def test_overlay_findings_land_on_the_patch_that_introduced_the_field(tools):
    tools("kustomize", "kustomize-prod.yaml")
    result = lint([PROD])
    diag = _only(result, "API001")
    line = _line_of(PATCH, "deviceClassName:")
    assert (diag.span.path, diag.span.line, diag.span.column) == (PATCH, line, 9)
    assert diag.rendered.path == "<kustomize build examples/kustomize/overlays/prod>"
    assert "config.kubernetes.io" not in result.sources[diag.rendered.path].text


def test_overlay_findings_in_unpatched_fields_land_on_the_resource_file(tools, tmp_path):
    render = (RENDERS / "kustomize-dev.yaml").read_text()
    tools("kustomize", "", render=render.replace("readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false"))
    diag = _only(lint(["examples/kustomize/overlays/dev"]), "SEC004")
    assert (diag.span.path, diag.span.line) == (
        "examples/kustomize/base/job.yaml",
        _line_of("examples/kustomize/base/job.yaml", "readOnlyRootFilesystem"),
    )
    # kind/name/namespace come from the render: the overlay's namespace, the base's file
    assert diag.object.namespace == "ml-dev"


def test_resources_of_an_overlay_are_not_linted_twice(tools):
    tools("kustomize", "kustomize-prod.yaml")
    result = lint(["examples/kustomize"])
    objects = {f.path: f.objects for f in result.files}
    assert objects["examples/kustomize/base/claim-template.yaml"] == 2  # once per overlay, never raw
    assert objects["examples/kustomize/base/job.yaml"] == 2


def test_a_finding_whose_key_is_not_in_the_source_points_at_the_document(tools, tmp_path):
    render = (RENDERS / "helm-gpu-training.yaml").read_text()
    tools("helm", "", render=render.replace("restartPolicy: Never", "restartPolicy: Never\n      hostNetwork: true"))
    diag = _only(lint([CHART]), "SEC005")
    job = "examples/helm-chart/templates/job.yaml"
    assert (diag.span.path, diag.span.line, diag.span.column) == (job, 1, 1)  # the document's first line
    assert diag.rendered is not None
    rendered = (RENDERS / "helm-gpu-training.yaml").read_text().split("\n")
    assert diag.rendered.line == rendered.index("restartPolicy: Never".rjust(len("restartPolicy: Never") + 6)) + 2


# --- the real binaries -------------------------------------------------------------------------------


def _real(name: str) -> str | None:
    directory = os.environ.get("DRALINT_TOOLS_DIR")
    candidate = Path(directory) / name if directory else None
    return str(candidate) if candidate is not None and candidate.is_file() else None


needs_helm = pytest.mark.skipif(
    _real("helm") is None, reason="no helm binary: run tools/build_render_tools.sh (needs Go) and set DRALINT_TOOLS_DIR"
)
needs_kustomize = pytest.mark.skipif(
    _real("kustomize") is None,
    reason="no kustomize binary: run tools/build_render_tools.sh (needs Go) and set DRALINT_TOOLS_DIR",
)


@pytest.fixture
def real_tools(monkeypatch, at_repo):
    monkeypatch.setenv("PATH", os.environ["DRALINT_TOOLS_DIR"])


@needs_helm
def test_real_helm_renders_the_example_chart(real_tools):
    diag = _only(lint([CHART]), "CEL011")
    assert (diag.span.path, diag.span.line) == (CLAIM_TEMPLATE, _line_of(CLAIM_TEMPLATE, "expression:"))


@needs_helm
def test_the_helm_recording_matches_real_helm(real_tools):
    done = subprocess.run(
        [_real("helm"), "template", "release-name", CHART], capture_output=True, text=True, check=True
    )
    assert done.stdout == (RENDERS / "helm-gpu-training.yaml").read_text(encoding="utf-8")


@needs_kustomize
def test_real_kustomize_builds_the_example_overlays(real_tools):
    result = lint(["examples/kustomize"])
    diag = _only(result, "API001")
    assert (diag.span.path, diag.span.line) == (PATCH, _line_of(PATCH, "deviceClassName:"))
    assert not [d for d in result.diagnostics if d.rule in ("YAML013", "YAML014")]


@needs_kustomize
def test_the_kustomize_recordings_match_real_kustomize(real_tools, tmp_path):
    for overlay in ("dev", "prod"):
        wrapper = tmp_path / overlay
        wrapper.mkdir()
        target = os.path.relpath(REPO / "examples/kustomize/overlays" / overlay, wrapper)
        (wrapper / "kustomization.yaml").write_text(
            f"buildMetadata: [originAnnotations, transformerAnnotations]\nresources:\n- {target}\n"
        )
        done = subprocess.run([_real("kustomize"), "build", str(wrapper)], capture_output=True, text=True, check=True)
        recorded = (RENDERS / f"kustomize-{overlay}.yaml").read_text(encoding="utf-8")
        assert done.stdout == recorded.replace("@REPO@", os.path.relpath(REPO, wrapper))


def test_sarif_offers_no_automatic_fix_for_a_rendered_finding(tools):
    from dralint.fix.runner import fix_replacements

    tools("kustomize", "kustomize-prod.yaml")
    result = lint([PROD])
    assert _only(result, "API001").rendered is not None
    assert fix_replacements(result) == {}


def test_a_broken_kustomization_is_one_finding_never_a_traceback(tmp_path, at_repo):
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text("resources: [missing.yaml\n")
    (overlay / "notes.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n")
    if shutil.which("kustomize") is None and shutil.which("kubectl") is None:
        pytest.skip("needs kustomize or kubectl on PATH to see the build fail")
    result = lint([str(overlay)])
    failed = _only(result, "YAML014")
    assert failed.span.path == str(overlay / "kustomization.yaml")
    assert "notes.yaml" in {Path(f.path).name for f in result.files}  # not a resource: linted as a file


CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: {name}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors:
          - cel:
              expression: {expression}
"""
GOOD_CEL = "device.driver == 'gpu.nvidia.com'"
BAD_CEL = "device.attributes['gpu.nvidia.com'].driverVersion >= '550'"


def test_a_template_with_several_documents_maps_to_the_right_one(tools, tmp_path):
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: claims\nversion: 0.1.0\n")
    template = (
        CLAIM.format(name="{{ .Release.Name }}-a", expression=GOOD_CEL)
        + "---\n"
        + CLAIM.format(name="{{ .Release.Name }}-b", expression=BAD_CEL)
    )
    (chart / "templates" / "claims.yaml").write_text(template)
    render = "".join(
        f"---\n# Source: claims/templates/claims.yaml\n{CLAIM.format(name=name, expression=cel)}"
        for name, cel in (("r-a", GOOD_CEL), ("r-b", BAD_CEL))
    )
    tools("helm", "", render=render)
    diag = _only(lint([str(chart)]), "CEL011")
    assert (diag.span.path, diag.span.line) == (
        str(chart / "templates" / "claims.yaml"),
        template.split("\n").index(f"              expression: {BAD_CEL}") + 1,
    )


def test_a_resource_file_with_several_objects_maps_by_kind_and_name(tools, tmp_path):
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text("namePrefix: prod-\nresources:\n- claims.yaml\n")
    resource = CLAIM.format(name="a", expression=GOOD_CEL) + "---\n" + CLAIM.format(name="b", expression=BAD_CEL)
    (overlay / "claims.yaml").write_text(resource)
    origin = "  annotations:\n    config.kubernetes.io/origin: |\n      path: @REPO@/overlay/claims.yaml\n"
    render = "---\n".join(
        CLAIM.format(name=f"prod-{n}", expression=cel).replace("metadata:\n", "metadata:\n" + origin)
        for n, cel in (("a", GOOD_CEL), ("b", BAD_CEL))
    )
    tools("kustomize", "", render=render, root=tmp_path)
    result = lint([str(overlay)])
    diag = _only(result, "CEL011")
    assert (diag.span.path, diag.span.line) == (
        str(overlay / "claims.yaml"),
        resource.split("\n").index(f"              expression: {BAD_CEL}") + 1,
    )
    assert "config.kubernetes.io" not in result.sources[diag.rendered.path].text


def test_the_cli_passes_the_helm_options(tools, tmp_path):
    log = tools("helm", "helm-gpu-training.yaml")
    values = tmp_path / "prod.yaml"
    values.write_text("workers: 1\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "dralint",
            "lint",
            "--no-config",
            "--format",
            "json",
            "--helm-values",
            str(values),
            "--helm-set",
            "gpusPerWorker=4",
            "--helm-release",
            "nightly",
            "--helm-namespace",
            "ml",
            CHART,
        ],
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(log.read_text().splitlines()[0]) == [
        "template",
        "nightly",
        CHART,
        "--namespace",
        "ml",
        "--values",
        str(values),
        "--set",
        "gpusPerWorker=4",
    ]
    report = json.loads(done.stdout)
    assert [d["path"] for d in report["diagnostics"] if d["rule"] == "CEL011"] == [CLAIM_TEMPLATE]


def test_a_render_that_is_not_yaml_is_a_syntax_finding_at_the_template(tools, tmp_path):
    broken = tmp_path / "bin" / "helm"
    broken.write_bytes(
        b"#!/bin/sh\nprintf -- '---\\n# Source: gpu-training/templates/job.yaml\\napiVersion: v1\\nkind: "
        b"[oops\\n\\377\\n'\n"
    )
    broken.chmod(0o755)
    diag = _only(lint([CHART]), "YAML001")
    assert (diag.span.path, diag.span.line) == ("examples/helm-chart/templates/job.yaml", 1)
    assert diag.rendered.path == "<helm template examples/helm-chart>"


def test_a_generated_object_maps_to_the_kustomization_that_configured_it(tools, tmp_path):
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text("configMapGenerator:\n- name: settings\n  literals: [mode=train]\n")
    render = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    config.kubernetes.io/origin: |\n"
        "      configuredIn: @REPO@/overlay/kustomization.yaml\n      configuredBy:\n        apiVersion: builtin\n"
        "        kind: ConfigMapGenerator\n  name: settings-7b8f\ndata:\n  mode: train\n  mode: twice\n"
    )
    tools("kustomize", "", render=render, root=tmp_path)
    result = lint([str(overlay)])
    diag = _only(result, "YAML002")
    assert (diag.span.path, diag.span.line) == (str(overlay / "kustomization.yaml"), 1)
    assert {f.path: f.objects for f in result.files} == {str(overlay / "kustomization.yaml"): 1}
