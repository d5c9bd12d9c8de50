"""Real manifests (../shared/corpus, skipped when absent): v1 files lint without API errors
unless genuinely wrong, and every file in an older DRA version gets a version finding."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import CORPUS, require

from dralint.diagnostics import Severity
from dralint.lint.engine import lint
from dralint.lint.options import LintOptions

require(CORPUS / "INDEX.md", "the shared corpus")

# Files that are genuinely wrong for a v1.37 server, and why.
GENUINELY_WRONG = {
    # declares resource.k8s.io/v1 but nests device fields under the v1beta1 `basic:` wrapper
    "ibm-aiu__dra-driver-spyre/demo__generated-resourceslices.yaml",
    # scheduling.k8s.io/v1alpha2 PodGroup: 1.37 serves only v1alpha3 and v1beta1
    "kubernetes-sigs__dra-example-driver/demo__examples__podgroup-resourceclaimtemplate__podgroup-resourceclaimtemplate.yaml",
    # captured objects whose authors trimmed ownerReferences[].uid, which the server requires
    "kubernetes-sigs__dranet/examples__aws_eks_examples__gpu-efa__resource-claim.yaml",
    "kubernetes-sigs__dranet/examples__aws_eks_examples__gpu-efa__resourceslice-dranet.yaml",
    "kubernetes-sigs__dranet/examples__aws_eks_examples__gpu-efa__resourceslice-gpu.yaml",
    # `expression:` is indented as a sibling of `cel:` instead of under it
    "kubernetes__website/content__en__examples__dra__resourceclaim.yaml",
}
OLD_DRA_VERSION = re.compile(r"resource\.k8s\.io/v1(alpha|beta)\d")


def _rows() -> list[tuple[str, list[str], str]]:
    rows = []
    for line in (CORPUS / "INDEX.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 8 and cells[1].startswith("`") and cells[1].endswith("`"):
            rows.append((cells[1].strip("`"), [v.strip() for v in cells[7].split(",")], cells[8]))
    return rows


def _api_errors(files: list[str]) -> dict[str, list[str]]:
    result = lint(LintOptions(paths=[str(CORPUS / f) for f in files], profile="strict"))
    found: dict[str, list[str]] = {}
    for diag in result.diagnostics:
        if diag.rule.startswith("API") and diag.severity is Severity.ERROR:
            found.setdefault(str(Path(diag.span.path).relative_to(CORPUS)), []).append(f"{diag.rule} {diag.message}")
    return found


def test_v1_driver_manifests_have_no_api_errors_unless_genuinely_wrong():
    files = [
        f
        for f, versions, notes in _rows()
        if not f.startswith("_md_extracts")
        and "SYNTHETIC" not in notes
        and "resource.k8s.io/v1" in versions
        and not any(OLD_DRA_VERSION.match(v) for v in versions)
    ]
    assert len(files) > 100
    errors = _api_errors(files)
    assert set(errors) == GENUINELY_WRONG, {f: e for f, e in errors.items() if f not in GENUINELY_WRONG}


def test_older_dra_versions_get_version_findings():
    files = [
        f
        for f, versions, _ in _rows()
        if not f.startswith("_md_extracts") and any(OLD_DRA_VERSION.match(v) for v in versions)
    ]
    assert files
    result = lint(LintOptions(paths=[str(CORPUS / f) for f in files], profile="strict"))
    flagged = {
        str(Path(d.span.path).relative_to(CORPUS))
        for d in result.diagnostics
        if d.rule in ("API011", "API012", "API015")
    }
    assert set(files) - flagged == set()
