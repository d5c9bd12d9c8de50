"""The score's documented properties, checked over many inputs rather than a few examples."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dralint.lint.score import score

counts = st.integers(min_value=0, max_value=10_000)


@given(counts, counts, counts)
def test_bounded_and_100_only_when_clean(objects, errors, warnings):
    value = score(objects, errors, warnings)
    assert 0 <= value <= 100
    assert (value == 100) == (errors == 0 and warnings == 0)


@given(counts, counts, counts)
def test_fixing_a_finding_never_lowers_the_score(objects, errors, warnings):
    assert score(objects, errors, warnings) <= score(objects, max(errors - 1, 0), warnings)
    assert score(objects, errors, warnings) <= score(objects, errors, max(warnings - 1, 0))


def test_an_error_weighs_more_than_a_warning_and_size_normalises():
    assert score(10, 1, 0) < score(10, 0, 1)
    assert score(1000, 1, 0) > score(10, 5, 0)
