"""The shipped driver catalog: every fact names its source, every example is of its type, and a
team's catalog file with mistakes gives problems at their line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralint.k8s.drivers import ATTRIBUTE_TYPES, builtin_catalog, load_catalog, read_catalog, typed_value
from dralint.k8s.drivers.catalog import COMPILED, catalog_files, compiled_catalog
from dralint.k8s.quantity import parse_quantity
from dralint.k8s.semver import Semver

CATALOG = builtin_catalog()


def test_compiled_catalog_is_up_to_date():
    on_disk = COMPILED.read_text(encoding="utf-8")
    assert on_disk == compiled_catalog(), "dralint/k8s/drivers/data/compiled.json is stale: run tools/generate_docs.py"


@pytest.mark.parametrize("path", list(catalog_files()), ids=lambda p: p.name)
def test_shipped_file_reads_without_problems_with_positions(path):
    releases, problems = read_catalog(str(path))
    assert problems == []
    assert releases, f"{path.name} describes no driver release"


def test_catalog_holds_the_drivers_the_issue_names():
    assert {"gpu.nvidia.com", "compute-domain.nvidia.com", "gpu.example.com", "gpu.intel.com", "gpu.amd.com"} <= set(
        CATALOG.drivers
    )
    for name in ("gpu.nvidia.com", "mig.nvidia.com", "compute-domain-default-channel.nvidia.com", "gpu.example.com"):
        assert CATALOG.device_class(name), name


def test_every_fact_names_its_source():
    for release in CATALOG.releases:
        assert release.tag and release.project.repository.startswith("github.com/")
        facts = (*release.kinds, *release.attributes, *release.capacity, *release.classes)
        assert facts
        for fact in facts:
            source = fact.source
            assert source.repository == release.project.repository
            assert source.tag == release.tag, (release.label, fact)
            assert source.path and not source.path.startswith("/"), fact


def test_examples_are_of_their_declared_types():
    python_types = {"string": str, "int": int, "bool": bool, "version": Semver}
    for release in CATALOG.releases:
        for attribute in release.attributes:
            assert attribute.type in ATTRIBUTE_TYPES
            for kind in attribute.kinds:
                value = typed_value(attribute.type, attribute.value_for(kind))
                items = value if attribute.type.endswith("s") else [value]
                assert all(type(v) is python_types[attribute.type.rstrip("s")] for v in items), (
                    release.label,
                    attribute,
                )
        for capacity in release.capacity:
            parse_quantity(capacity.example)


def test_classes_admit_the_kinds_their_chart_means():
    release = CATALOG.release("gpu.nvidia.com", "25.8.0")
    assert release is not None
    kinds = {c.name: release.class_kinds(c) for c in release.classes}
    assert kinds == {"gpu.nvidia.com": ("gpu",), "mig.nvidia.com": ("mig",)}
    newer = CATALOG.release("gpu.nvidia.com", "25.12.0")
    assert newer is not None
    assert {c.name: c.extended_resource_name for c in newer.classes}["gpu.nvidia.com"] == "nvidia.com/gpu"


def test_versions_differ_where_the_driver_changed():
    old, new = CATALOG.release("gpu.nvidia.com", "25.3.2"), CATALOG.release("gpu.nvidia.com", "25.12.0")
    assert old is not None and new is not None
    assert "index" in old.names("attributes", "gpu.nvidia.com")
    assert "index" not in new.names("attributes", "gpu.nvidia.com")
    assert "pciBusID" in new.names("attributes", "resource.kubernetes.io")
    mig_only = old.published("attributes", "gpu.nvidia.com", "profile")
    assert [a.kinds for a in mig_only] == [("mig",)]


def test_select_keeps_one_release_of_the_named_driver():
    chosen = CATALOG.select({"gpu.nvidia.com": "v25.8.0"})
    assert [r.version for r in chosen.releases_of("gpu.nvidia.com")] == ["25.8.0"]
    assert len(chosen.releases_of("gpu.example.com")) == len(CATALOG.releases_of("gpu.example.com"))


TEAM = Path(__file__).parent / "data" / "drivers" / "team-catalog.yaml"


def test_team_catalog_problems_are_at_their_line_and_column():
    releases, problems = read_catalog(str(TEAM))
    found = {(p.span.line, p.span.column): p.message for p in problems}
    assert "unknown attribute type 'integer'" in found[(11, 29)]
    assert "not of type int" in found[(12, 63)]
    assert "'board' is not a kind of this driver" in found[(13, 43)]
    assert "not a quantity" in found[(15, 48)]
    # the good entries are kept
    (release,) = releases
    assert [a.ident for a in release.attributes] == ["model"]
    assert [c.name for c in release.classes] == ["accel.acme.io"]
    merged = load_catalog([str(TEAM)])
    assert merged.release("accel.acme.io", "1.2.0") is not None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "- a\n- b\n",
        "project: [\n",
        "project: x\nreleases: 3\n",
        "project: x\nrepository: r\nreleases: [{}]\n",
        "\t",
    ],
)
def test_malformed_team_catalog_never_raises(tmp_path, text):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    releases, problems = read_catalog(str(path))
    assert releases == []
    assert problems or text == ""


def _paths(data, prefix=()):
    yield prefix
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield from _paths(value, (*prefix, key))


def test_any_entry_of_any_type_gives_problems_never_an_exception(tmp_path):
    """Every place of a real catalog file, replaced by a value of each wrong shape, in turn."""
    import random

    import yaml

    source = next(p for p in catalog_files() if p.name == "nvidia-dra-driver-gpu.yaml")
    data = yaml.safe_load(source.read_text())
    places = list(_paths(data))[1:]
    chosen = random.Random(42).sample(places, 40)
    target = tmp_path / "mutated.yaml"
    for number, place in enumerate(chosen):
        mutated = yaml.safe_load(source.read_text())
        parent = mutated
        for key in place[:-1]:
            parent = parent[key]
        parent[place[-1]] = [None, 7, "x", [], {"a": 1}, True][number % 6]
        target.write_text(yaml.safe_dump(mutated))
        releases, problems = read_catalog(str(target))
        assert all(p.span.line >= 1 and p.span.column >= 1 for p in problems)
