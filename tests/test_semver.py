"""Semver 2.0.0 as the Kubernetes CEL semver library (blang/semver v4) reads it."""

from itertools import pairwise

import pytest

from dralint.k8s.semver import SemverError, is_semver, parse_semver


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("1.2.3", (1, 2, 3, (), ())),
        ("0.0.0", (0, 0, 0, (), ())),
        ("1.2.3-rc.1", (1, 2, 3, ("rc", 1), ())),
        ("1.2.3-0.3.7", (1, 2, 3, (0, 3, 7), ())),
        ("1.2.3-x-y.z", (1, 2, 3, ("x-y", "z"), ())),
        ("1.2.3+build.5", (1, 2, 3, (), ("build", "5"))),
        ("1.2.3+b-1", (1, 2, 3, (), ("b-1",))),  # '+' splits before '-'
        ("1.2.3-alpha+001", (1, 2, 3, ("alpha",), ("001",))),
        ("18446744073709551615.0.0", (2**64 - 1, 0, 0, (), ())),
    ],
)
def test_parse(text: str, parts: tuple) -> None:
    v = parse_semver(text)
    assert (v.major, v.minor, v.patch, v.pre, v.build) == parts
    assert str(v) == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1",
        "1.2",
        "v1.2.3",
        "01.2.3",
        "1.02.3",
        "1.2.03",
        "1.2.3-",
        "1.2.3-01",
        "1.2.3-a..b",
        "1.2.3+",
        "1.2.3+a..b",
        "1.2.3-a_b",
        "1.2.x",
        "-1.2.3",
        "1.2.3 ",
        "18446744073709551616.0.0",
        "a.b.c",
    ],
)
def test_invalid(text: str) -> None:
    with pytest.raises(SemverError):
        parse_semver(text)
    assert not is_semver(text)


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("v1.2.3", "1.2.3"),
        ("1", "1.0.0"),
        ("v2.1", "2.1.0"),
        ("01.002.0003", "1.2.3"),
        ("1.2.3-rc.1", "1.2.3-rc.1"),
        ("v00.0.0", "0.0.0"),
    ],
)
def test_normalize(text: str, normalized: str) -> None:
    assert str(parse_semver(text, normalize=True)) == normalized
    assert is_semver(text, True)


@pytest.mark.parametrize("text", ["1-rc", "1.2+b", "vv1.2.3"])
def test_normalize_rejects(text: str) -> None:
    with pytest.raises(SemverError):
        parse_semver(text, normalize=True)


def test_precedence_chain_from_the_spec() -> None:
    chain = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
        "1.0.1",
        "1.1.0",
        "2.0.0",
        "10.0.0",
    ]
    versions = [parse_semver(t) for t in chain]
    for lower, higher in pairwise(versions):
        assert lower.compare(higher) == -1
        assert higher.compare(lower) == 1
    assert sorted(reversed(versions)) == versions


def test_build_metadata_is_ignored_by_equality_and_order() -> None:
    a, b = parse_semver("1.2.3+a"), parse_semver("1.2.3+b")
    assert a == b and a.compare(b) == 0 and hash(a) == hash(b)
    assert a.precedence_key() == "1.2.3"


def test_alphanumeric_identifiers_compare_by_bytes() -> None:
    assert parse_semver("1.0.0-Z") < parse_semver("1.0.0-a")  # 'Z' (0x5A) < 'a' (0x61)
    assert parse_semver("1.0.0-2") < parse_semver("1.0.0-10")  # numeric compare
    assert parse_semver("1.0.0-999") < parse_semver("1.0.0-a")  # numeric below alphanumeric
