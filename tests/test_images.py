"""API040: image references the kubelet cannot parse, with the exact characters."""

from __future__ import annotations

import pytest
from conftest import lint_text

from dralint.k8s.images import image_problem


@pytest.mark.parametrize(
    "ref",
    [
        "ubuntu",
        "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
        "localhost:5000/team/app:v1",
        "[::1]:5000/app",
        "MyRegistry/app",  # an upper-case first component is a registry host
        "foo__bar/a.b-c---d:_tag",
        "app@sha256:" + "a" * 64,
        "app:1.0@sha512:" + "0" * 128,
        "",
    ],
)
def test_valid_references_have_no_problem(ref):
    assert image_problem(ref) is None


@pytest.mark.parametrize(
    ("ref", "span", "words"),
    [
        ("nvcr.io/nvidia/cuda:<tag>", (20, 25), "placeholder"),
        ("repo/app:${TAG}", (9, 15), "placeholder"),
        ("app:{{ .Values.image.tag }}", (4, 27), "placeholder"),
        ("Ubuntu", (0, 1), "lowercase"),
        ("quay.io/Team/app", (8, 9), "lowercase"),
        ("localhost:50a0/app", (12, 13), "not a number"),
        ("app___x", (3, 6), "separator"),
        ("-app", (0, 1), "start and end"),
        ("team//app", (4, 5), "empty path component"),
        ("app:", (3, 4), "empty tag"),
        ("app:.1", (4, 5), "tag must start"),
        ("app:1+2", (5, 6), "'+'"),
        ("app:" + "x" * 129, (132, 133), "more than 128"),
        ("app@sha256:abc", (11, 14), "3 hex digits"),
        ("app@md5:" + "a" * 32, (4, 7), "not supported"),
        ("app@sha256:" + "A" * 64, (11, 12), "lower-case hex"),
        ("a" * 64, (0, 64), "image ID"),
        ("app ", (3, 4), "white space"),
        ("bad_host-.io/app", (3, 4), "registry host has the character"),
        ("host-.io/app", (0, 5), "starts or ends"),
    ],
)
def test_invalid_references_point_at_the_characters(ref, span, words):
    problem = image_problem(ref)
    assert problem is not None
    assert (problem.start, problem.end) == span
    assert words in problem.message


def test_name_longer_than_255_characters():
    ref = "/".join(["abcdefghij"] * 24)  # 263 characters
    problem = image_problem(ref)
    assert problem is not None and "more than 255" in problem.message and problem.start == 255


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: gpu-smoke-test
spec:
  containers:
  - name: ok
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
  - name: cuda
    image: nvcr.io/nvidia/cuda:<tag>
  - name: quoted
    image: "registry.example.com/Team/app:1.0"
"""


def test_findings_are_at_the_exact_characters(tmp_path):
    result = lint_text(tmp_path, POD, select=["API040"])
    found = sorted((d.span.line, d.span.column, d.span.end_column) for d in result.diagnostics if d.rule == "API040")
    assert found == [(10, 32, 37), (12, 34, 35)]
    message = next(d.message for d in result.diagnostics if d.span.line == 10)
    assert "container cuda" in message and "InvalidImageName" in message


def test_workload_templates_are_checked(tmp_path):
    manifest = (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      containers:\n      - name: c\n        image: app:${TAG}\n"
    )
    result = lint_text(tmp_path, manifest, select=["API040"])
    found = [(d.span.line, d.span.column) for d in result.diagnostics if d.rule == "API040"]
    assert found == [(11, 20)]
