"""Every position a report names lies inside its file: start and end on one of the file's
lines, at most one column past its last character, the end never before the start; an error at
the end of the stream on the last line, after its last character (tests/positions.py).

First the cases met in fuzzing, each fixed where its span is made; then the property on
generated and mutated inputs for every reporter, and on the corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CORPUS, require
from fuzzing import case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import PLACES, as_read, line_lengths, violations

from dralint.cli.main import main
from dralint.reporters import FORMATS

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = ROOT / "examples" / "gpu-training"


def lint(*args: str, fmt: str = "json") -> str:
    result = CliRunner().invoke(main, ["lint", "--no-config", "--jobs", "1", "--format", fmt, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.stdout


def diagnostics(*args: str) -> list[dict]:
    return json.loads(lint(*args))["diagnostics"]


def one(found: list[dict], rule: str, path: Path) -> dict:
    (diag,) = [d for d in found if d["rule"] == rule and d["path"] == str(path)]
    return diag


def span(diag: dict) -> tuple[int, int, int, int]:
    return diag["line"], diag["column"], diag["endLine"], diag["endColumn"]


def end_of(text: str) -> tuple[int, int]:
    """The last line and the column after its last character."""
    lengths = line_lengths(text)
    return len(lengths), lengths[-1] + 1


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_file_cut_short_is_a_syntax_error_on_its_last_line_after_its_last_character(tmp_path):
    """Was "line 6 of 5": libyaml reports the end of the stream on the line after the last."""
    text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {a: "b\n'
    path = write(tmp_path, "cut.yaml", text)
    diag = one(diagnostics(str(path)), "YAML001", path)
    assert span(diag) == (*end_of(text), *end_of(text))


def test_an_object_at_the_end_of_the_file_ends_on_its_last_line(tmp_path):
    """YAML005 ended on the line after the last: libyaml ends a block mapping where the next
    line starts."""
    text = "kind: ConfigMap\nmetadata:\n  name: x\n"
    path = write(tmp_path, "no-version.yaml", text)
    diag = one(diagnostics(str(path)), "YAML005", path)
    assert span(diag) == (1, 1, *end_of(text))


def test_a_deeply_nested_wrong_value_at_the_end_of_the_file_ends_on_its_last_line(tmp_path):
    """API002 on a deep mapping where a string is expected, last in the file."""
    nested = "".join(f"{' ' * (i + 4)}k{i}:\n" for i in range(40)) + " " * 44 + "leaf: 1\n"
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a:\n" + nested
    path = write(tmp_path, "deep.yaml", text)
    diag = one(diagnostics(str(path)), "API002", path)
    assert span(diag) == (7, 5, *end_of(text))


def test_a_slice_last_in_a_snapshot_ends_on_its_last_line(tmp_path):
    """SCH006 on a slice's spec, the file's last block."""
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n"
        "  driver: gpu.example.com\n  pool:\n    name: p\n    generation: 1\n    resourceSliceCount: 1\n"
        "  devices:\n  - name: d0\n"
    )
    path = write(tmp_path, "slice.yaml", text)
    diag = one(diagnostics("--slices", str(path), str(MANIFESTS)), "SCH006", path)
    assert span(diag) == (6, 3, *end_of(text))


def test_a_long_expression_in_a_block_scalar_ends_at_its_line_end(tmp_path):
    """CEL003 on a 12,000-character expression ended two columns past its line."""
    expression = "device.driver == 'a' && " * 500 + "true"
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: c\nspec:\n  selectors:\n"
        f"  - cel:\n      expression: |\n        {expression}\n"
    )
    path = write(tmp_path, "class.yaml", text)
    diag = one(diagnostics(str(path)), "CEL003", path)
    assert span(diag) == (9, 9, 9, 9 + len(expression))


def test_a_long_image_reference_is_underlined_within_its_line(tmp_path):
    image = "registry.example.com/" + "A" * 5000 + ":latest"
    text = f'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: "{image}"\n'
    path = write(tmp_path, "pod.yaml", text)
    diag = one(diagnostics(str(path)), "API040", path)
    assert diag["line"] == diag["endLine"] == 8 and diag["endColumn"] <= len(text.splitlines()[7]) + 1


def test_an_empty_value_at_a_line_end_is_a_point_after_the_line(tmp_path):
    """API002 at column 19 of a 17-character line: ``containers:`` with nothing after it."""
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n---\na: 1\n"
    path = write(tmp_path, "pod.yaml", text)
    (diag,) = [d for d in diagnostics(str(path)) if d["rule"] == "API002" and "containers" in d["message"]]
    assert span(diag) == (6, 14, 6, 14)


def test_a_bad_byte_after_accented_letters_is_located_in_characters(tmp_path):
    """YAML009 counted the column in bytes: after three two-byte letters, three columns late."""
    path = tmp_path / "latin.yaml"
    path.write_bytes('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "ééé'.encode() + b'\xff"\n')
    diag = one(diagnostics(str(path)), "YAML009", path)
    assert (diag["line"], diag["column"]) == (4, 13)


@pytest.mark.parametrize("first", ["a: [\n", "%FOO bar\n"], ids=["syntax error", "unknown directive"])
def test_list_items_after_a_broken_document_are_at_their_own_lines(tmp_path, first):
    """After a syntax error or an unknown directive libyaml reads the rest of the file again;
    every item of a List but the first was reported a line early (the table of a frozen item
    was freed, and a later item's table took its id, so it was taken for moved already)."""
    items = "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: m{i}, labels: {{long-label: x{'y' * 60}}}}}\n"
        f"  data: {{x: 1}}\n"
        for i in range(4)
    )
    text = f"{first}---\napiVersion: v1\nkind: List\nitems:\n{items}"
    path = write(tmp_path, "list.yaml", text)
    wrong = [d for d in diagnostics(str(path)) if d["rule"] == "API002"]
    lines = text.splitlines()
    expected = [n + 1 for n, line in enumerate(lines) if line == "  data: {x: 1}"]
    assert [(d["line"], d["column"]) for d in wrong] == [(n, 13) for n in expected]


def test_snapshot_findings_in_a_list_after_a_directive_are_on_their_slices(tmp_path):
    """SCH004 of the second pool was at column 27 of a 19-character line, one line early."""
    items = "".join(
        f"- apiVersion: resource.k8s.io/v1\n  kind: ResourceSlice\n"
        f"  metadata: {{name: s{i}, labels: {{description: a long label value to push columns right}}}}\n"
        f"  spec:\n    driver: gpu.example.com\n    nodeName: node-{i}\n"
        f"    pool:\n      name: pool-{i}\n      generation: 1\n      resourceSliceCount: 2\n"
        f"    devices:\n    - name: d0\n"
        for i in range(3)
    )
    text = f"%FOO bar\n---\napiVersion: v1\nkind: List\nitems:\n{items}"
    path = write(tmp_path, "slices.yaml", text)
    found = [d for d in diagnostics("--slices", str(path), str(MANIFESTS)) if d["rule"] == "SCH004"]
    counts = [n + 1 for n, line in enumerate(text.splitlines()) if line == "      resourceSliceCount: 2"]
    assert [(d["line"], d["column"]) for d in found] == [(n, 27) for n in counts]


# --- the property ------------------------------------------------------------------------


def assert_inside_in_every_report(path: Path, *args: str) -> None:
    texts = {str(path): as_read(path)}
    for fmt in FORMATS:
        output = lint(*args, str(path), fmt=fmt)
        found = list(violations(fmt, output, texts))
        assert not found, "\n".join(found)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), number=st.integers(0, 10_000))
def test_every_position_of_every_report_of_a_mutated_input_is_inside_the_file(tmp_path, seed, number):
    path = tmp_path / "case.yaml"
    path.write_bytes(case(seed, number).text.encode("utf-8", "surrogatepass"))
    assert_inside_in_every_report(path)


#: Text a manifest is made of, odd line breaks and unclosed brackets included.
PIECES = st.sampled_from(
    [
        "apiVersion: v1\n",
        "kind: Pod\n",
        "kind: List\n",
        "items:\n",
        "- ",
        "  ",
        "metadata:\n",
        "  name: x\n",
        "spec:\n",
        "  containers:\n",
        "  - name: c\n",
        "    image: i\n",
        "{",
        "}",
        "[",
        "]",
        ": ",
        "&a ",
        "*a",
        "---\n",
        "...\n",
        "%FOO\n",
        "\r",
        "\r\n",
        "\u0085",
        "\u2028",
        "\t",
        "'",
        '"',
        "|\n",
        ">\n",
        "#c\n",
        "\n",
        "9" * 30,
        "é",
        "\ufeff",
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(PIECES, min_size=1, max_size=40))
def test_every_position_of_every_report_of_generated_text_is_inside_the_file(tmp_path, pieces):
    path = tmp_path / "generated.yaml"
    path.write_text("".join(pieces), newline="")
    assert_inside_in_every_report(path)


def test_every_position_of_the_corpus_is_inside_its_file_in_every_report(tmp_path):
    """One run writes every report (the SARIF one's fixes are most of its time). It looked for
    the corpus two folders above the checkout, found none anywhere, and skipped on every run."""
    require(CORPUS, "the shared corpus")
    outputs = [f"{fmt}={tmp_path / fmt}" for fmt in FORMATS]
    args = ["lint", "--no-config", *(f"--format={fmt}" for fmt in FORMATS), *(f"--output={o}" for o in outputs)]
    result = CliRunner().invoke(main, [*args, str(CORPUS)])
    assert result.exit_code == 1, result.output
    for fmt in FORMATS:
        output = (tmp_path / fmt).read_text()
        found = list(violations(fmt, output, {}))
        assert not found, "\n".join(found[:20])
        assert len(list(PLACES[fmt](output))) > 1000  # the reports do name the corpus's findings
