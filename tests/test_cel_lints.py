"""Static selector lints in dralint.k8s.cel.lints (offsets are into the expression)."""

from dralint.k8s.cel import check
from dralint.k8s.cel.lints import (
    constant_value,
    domain_mismatches,
    lookups,
    pinned_drivers,
    quantity_string_comparisons,
    unguarded_lookups,
    version_string_comparisons,
)


def _ast(expression: str):
    result = check(expression)
    assert result.ok, result
    return result.ast


def _texts(expression, notes):
    return [expression[n.start : n.end] for n in notes]


def test_lookups_find_literal_reads_and_guards() -> None:
    expression = (
        'has(device.attributes["d"].x) && device.attributes["d"]["y"] == 1 && '
        'device.capacity["d"].?m.hasValue() && "z" in device.attributes["d"]'
    )
    found = {(lk.kind, lk.domain, lk.name, lk.guarded) for lk in lookups(_ast(expression))}
    assert found == {
        ("attributes", "d", "x", True),
        ("attributes", "d", "y", False),
        ("capacity", "d", "m", True),
        ("attributes", "d", "z", True),
    }
    optional = 'device.attributes["d"][?"uuid"].orValue("") != ""'
    assert [(lk.name, lk.guarded) for lk in lookups(_ast(optional))] == [("uuid", True)]


def test_pinned_drivers_only_from_top_level_conjuncts() -> None:
    assert pinned_drivers(_ast('device.driver == "GPU.example.com" && true')) == {"gpu.example.com"}
    assert pinned_drivers(_ast('"a.io" == device.driver')) == {"a.io"}
    assert pinned_drivers(_ast('device.driver == "a.io" || device.driver == "b.io"')) == set()


def test_domain_mismatch_points_at_the_domain_literal() -> None:
    expression = 'device.driver == "gpu.nvidia.com" && device.attributes["gpu.example.com"].model == "x"'
    notes = domain_mismatches(expression, _ast(expression), {"gpu.nvidia.com"})
    assert _texts(expression, notes) == ['"gpu.example.com"']
    assert "gpu.nvidia.com" in notes[0].message


def test_domain_mismatch_ignores_own_domain_standard_domain_and_published_ones() -> None:
    expression = (
        'device.attributes["gpu.nvidia.com"].a == 1 && device.attributes["resource.kubernetes.io"].pcieRoot == "x"'
        ' && device.attributes["extra.io"].b == 1'
    )
    ast = _ast(expression)
    assert domain_mismatches(expression, ast, {"gpu.nvidia.com"}, published={"extra.io"}) == []
    assert domain_mismatches(expression, ast, set()) == []
    assert _texts(expression, domain_mismatches(expression, ast, {"gpu.nvidia.com"})) == ['"extra.io"']


def test_unguarded_lookup_points_at_the_name() -> None:
    expression = 'device.attributes["d"].model == "x" && has(device.attributes["d"].ok) && device.attributes["d"].ok'
    notes = unguarded_lookups(expression, _ast(expression))
    assert _texts(expression, notes) == ["model"]
    assert ".?model.orValue" in notes[0].hint


def test_version_compared_with_string() -> None:
    expression = 'device.attributes["d"].driverVersion >= "550"'
    notes = version_string_comparisons(expression, _ast(expression))
    assert _texts(expression, notes) == [">="] and "runtime error" in notes[0].message
    assert 'semver("550", true)' in notes[0].hint
    equality = 'device.attributes["d"].driverVersion == "550.1.0"'
    assert "never true" in version_string_comparisons(equality, _ast(equality))[0].message


def test_version_knowledge_from_a_snapshot_overrides_the_name_guess() -> None:
    expression = 'device.attributes["d"].fw > "1.2.3" && device.attributes["d"].version == "x"'
    ast = _ast(expression)
    assert version_string_comparisons(expression, ast) == []  # no snapshot: "fw" not guessed
    notes = version_string_comparisons(expression, ast, versions={("d", "fw"): ""})
    assert _texts(expression, notes) == [">"]


def test_quantity_like_string_ordering() -> None:
    expression = 'device.attributes["d"].memory >= "40Gi"'
    notes = quantity_string_comparisons(expression, _ast(expression))
    assert _texts(expression, notes) == [">="]
    plain = 'device.attributes["d"].model >= "A100" && device.attributes["d"].n >= 4'
    assert quantity_string_comparisons(plain, _ast(plain)) == []
    # every comparison is looked at, not only those before the first that is no ordering
    after_equality = 'device.attributes["d"].model == "A100" && device.attributes["d"].memory < "80Gi"'
    assert _texts(after_equality, quantity_string_comparisons(after_equality, _ast(after_equality))) == ["<"]


def test_constant_selectors() -> None:
    assert constant_value("true") is True
    assert constant_value("1 == 2") is False
    assert constant_value('device.driver == "x"') is None
    assert isinstance(constant_value('quantity("bad") == quantity("1")'), str)


def test_qualified_name_used_as_domain() -> None:
    expression = 'device.attributes["dra.net/rdma"].bool == true'
    notes = domain_mismatches(expression, _ast(expression), set())
    assert _texts(expression, notes) == ['"dra.net/rdma"']
    assert notes[0].hint == 'device.attributes["dra.net"].rdma'


def test_subdomain_of_the_driver_is_fine() -> None:
    expression = 'device.attributes["gce.dra.net"].networkName == "x"'
    assert domain_mismatches(expression, _ast(expression), {"dra.net"}) == []
