"""The static cost estimate (model documented in dralint/k8s/cel/cost.py)."""

from dralint.k8s.cel import MAX_COST, check


def test_simple_selector_is_cheap() -> None:
    result = check('device.driver == "gpu.example.com"')
    assert result.cost is not None and result.cost.max_cost < 100 and result.cost.bounded


def test_comprehension_over_attributes_is_bounded_by_32_entries() -> None:
    one = check('device.attributes["d"].exists(k, k == "x")').cost
    nested = check('device.attributes.exists(d, device.attributes[d].exists(k, k == "x"))').cost
    assert one is not None and nested is not None
    assert 32 <= one.max_cost < 1000
    assert nested.max_cost > 20 * one.max_cost  # nesting multiplies
    assert nested.max_cost < MAX_COST


def test_string_functions_scale_with_input_length() -> None:
    short = check('device.driver.contains("a")').cost
    long = check('("' + "x" * 5000 + '").contains("a")').cost
    assert short is not None and long is not None and long.max_cost > short.max_cost + 400


def test_over_the_limit_is_an_error() -> None:
    result = check("lists.range(2000).all(i, lists.range(2000).all(j, i != j + 5000))")
    assert [e.kind for e in result.errors] == ["cost"]
    assert "exceeds cost limit" in result.errors[0].message


def test_near_the_limit_is_a_warning() -> None:
    result = check("lists.range(300).all(i, lists.range(300).all(j, i != j))")
    assert result.errors == ()
    assert [w.kind for w in result.warnings] == ["cost"]


def test_unbounded_size_is_a_warning_not_an_error() -> None:
    result = check('lists.range(device.attributes["d"].n).all(i, i >= 0)')
    assert result.errors == () and result.cost is not None and not result.cost.bounded
    assert "cannot be bounded" in result.warnings[0].message
