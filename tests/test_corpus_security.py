"""Security and reliability rules over the shared corpus of real DRA manifests (skipped without it)."""

from __future__ import annotations

import pytest
from conftest import CORPUS, require

from dralint.lint.engine import lint
from dralint.lint.options import LintOptions

DRIVER = CORPUS / "ffromani__dra-driver-memory" / "hack__ci__install.tmpl.yaml"

require(CORPUS, "the shared corpus")


@pytest.fixture(scope="module")
def corpus_result():
    return lint(LintOptions(paths=[str(CORPUS)], profile="strict"))


def test_no_internal_errors_on_real_manifests(corpus_result):
    assert not [d for d in corpus_result.diagnostics if d.rule == "INT001"]


def test_the_memory_dra_driver_is_exempted_not_flagged_privileged(corpus_result):
    on_driver = {d.rule for d in corpus_result.diagnostics if d.span.path == str(DRIVER)}
    assert "SEC030" in on_driver
    assert not on_driver & {"SEC001", "SEC002", "SEC003", "SEC008", "SEC026"}
    assert {"SEC005", "SEC006"} <= on_driver  # host namespaces stay visible


def test_batch_workloads_get_no_probe_findings(corpus_result):
    batch = {"Job", "CronJob", "MPIJob", "JobSet"}
    probed = [
        d for d in corpus_result.diagnostics if d.rule in ("REL006", "REL007") and d.object and d.object.kind in batch
    ]
    assert not probed
    assert any(d.object and d.object.kind in batch for d in corpus_result.diagnostics), (
        "the corpus should hold batch workloads"
    )
