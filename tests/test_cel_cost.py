"""The static cost estimate (ported from the v1.37 compiler: dralint/k8s/cel/cost.py says from where).

The expected figures are the compiler's own, measured with
``k8s.io/dynamic-resource-allocation/cel`` v0.37.2 ``CompileCELExpression`` (``MaxCost``) in the
new-expressions environment with the v1.37 default gates; the last test compares dralint with
every cost the conformance oracle recorded.
"""

import json
from pathlib import Path

import pytest
from conftest import lint_text

from dralint.k8s.cel import MAX_COST, check

GOLDEN = Path(__file__).resolve().parent.parent / "conformance" / "golden"
UNKNOWN = 'device.attributes["d"].?uuid.orValue("")'

COMPILER_COSTS = {
    'device.driver == "gpu.example.com"': 4,
    'device.attributes["d"].exists(k, k == "x")': 196,
    'device.attributes.exists(d, device.attributes[d].exists(k, k == "x"))': 6435,
    "lists.range(2000).all(i, lists.range(2000).all(j, i != j + 5000))": 32032012,
    'device.attributes["d"].uuid.matches("^GPU-[0-9a-f]+$")': 32,
    'cel.bind(u, device.attributes["d"].uuid, u.lowerAscii() == "x")': 23,
    'cel.bind(u, "abc", u.lowerAscii() == "x")': 13,
    'device.driver.contains("nvidia")': 9,
    'device.driver.replace(".", "-") == "x"': 16,
    # the elements of a list literal have no path, so no size: join() is refused
    '["a", "b"].join(",") == "a,b"': 1844674407370955275,
    "[2, 1].sortBy(x, -x)[0] == 2": 82,
    'device.capacity["d"].memory == quantity("40Gi")': 6,
    # cel-go's paths share Go arrays: the key of a two-variable comprehension over one domain
    # gets the values' path, so its size is 64, not 32.
    'device.attributes["d"].all(k, v, k.lowerAscii() == "x")': 388,
    f'cel.bind(u, {UNKNOWN}, u.lowerAscii() == "x")': 1844674407370955281,
    f'cel.bind(u, {UNKNOWN}, u.matches("^GPU-[0-9a-f]+$"))': 7378697629483821072,
    f'{UNKNOWN}.lowerAscii() == "x"': 1844674407370955270,
    f'cel.bind(u, {UNKNOWN}, u == "x")': 17,
    f'cel.bind(u, {UNKNOWN}, u.startsWith("GPU-"))': 17,
    'lists.range(device.attributes["d"].n).all(i, i >= 0)': 18446744073709551615,
    # the extension and Kubernetes functions, measured with conformance/oracle (the same library
    # and environment) on 2026-12-07, after sampled mutants of their cost rules survived
    "[1, 2, 3].slice(0, 2).size() == 2": 25,
    'device.attributes["d"].list.slice(1, 3).size() == 2': 19,
    "[3, 1, 2].reverse()[0] == 2": 26,
    'device.attributes["d"].list.reverse().size() > 0': 81,
    "[3, 1, 2].sort()[0] == 1": 41,
    '["b", "a"].sortBy(x, x)[0] == "a"': 81,
    "sets.contains([1, 2, 3], [1])": 24,
    "sets.equivalent([1, 2], [2, 1])": 29,
    'sets.intersects(device.attributes["d"].list, [1])': 79,
    'semver("1.2.3").isGreaterThan(semver("1.0.0"))': 3,
    'isSemver("1.2.3")': 1,
    'isSemver(device.attributes["d"].name)': 11,
    'semver(device.attributes["d"].name, true).major() == 1': 13,
    'quantity("1Gi").isGreaterThan(quantity("1Mi"))': 3,
    'isQuantity(device.attributes["d"].name)': 11,
    'quantity(device.attributes["d"].name).asInteger() > 0': 13,
    'device.attributes["d"].name.split(",").size() == 2': 19,
    'device.attributes["d"].name.substring(1, 3) == "ab"': 12,
    'device.attributes["d"].name.indexOf("x") >= 0': 12,
    'device.attributes["d"].name.lastIndexOf("x") >= 0': 12,
    'device.attributes["d"].name.trim() == "x"': 12,
    'device.attributes["d"].name.upperAscii() == "X"': 12,
    '"%s-%d".format(["a", 1]) == "a-1"': 12,
    'strings.quote(device.attributes["d"].name) == "x"': 12,
    'device.attributes["d"].name.charAt(0) == "x"': 6,
    "[[1], [2]].flatten().size() == 2": 45,
    'device.attributes["d"].list.distinct().size() == 1': 8209,
    "[1, 2, 2].distinct().size() == 2": 41,
    'device.attributes["d"].name.join("") == "x"': 4,
    "device.attributes.map(k, k).size() > 0": 431,
    'device.attributes["d"].filter(k, k == "x").size() == 1': 496,
    'device.attributes["d"].exists_one(k, k == "x")': 133,
    'device.capacity["d"].memory.compareTo(quantity("1Gi")) > 0': 7,
    'device.capacity["d"].memory.add(quantity("1Gi")).isGreaterThan(quantity("2Gi"))': 8,
    'device.attributes["d"].version.compareTo(semver("1.0.0")) >= 0': 7,
    'device.attributes["d"].name.matches("^a.*$") && device.attributes["d"].name.endsWith("z")': 23,
    "optional.of(1).hasValue()": 2,
    'device.attributes["d"].?name.orValue("").size() > 0': 7,
    "[1, 2, 3].all(x, x > 0) && [1].exists(y, y == 1)": 43,
    "cel.bind(xs, [1, 2, 3], xs.map(x, x * 2).size() == 3)": 76,
    '{"a": 1}.exists(k, k == "a")': 37,
    'device.attributes["d"].name in ["a", "b"]': 16,
    "[1].first().hasValue()": 12,
    "[1].last().hasValue()": 12,
    'sign(device.capacity["d"].memory) == 0': 6,
    'sign(quantity("1")) == 1': 3,
}


@pytest.mark.parametrize("expression", sorted(COMPILER_COSTS))
def test_the_estimate_is_the_compilers(expression: str) -> None:
    cost = check(expression).cost
    assert cost is not None and cost.max_cost == COMPILER_COSTS[expression]


def test_a_size_dependent_function_of_an_optional_value_is_over_the_limit_and_says_why() -> None:
    result = check(f'cel.bind(u, {UNKNOWN}, u.lowerAscii() == "x")')
    assert [e.kind for e in result.errors] == ["cost"]
    message = result.errors[0].message
    assert message.startswith("too complex, exceeds cost limit: estimated cost 1844674407370955281")
    assert "lowerAscii() is applied to a value of unknown size" in message
    assert result.cost is not None and not result.cost.bounded


def test_a_comprehension_over_a_value_of_unknown_size_is_over_the_limit() -> None:
    result = check('lists.range(device.attributes["d"].n).all(i, i >= 0)')
    assert [e.kind for e in result.errors] == ["cost"]
    assert "a comprehension ranges over a value of unknown size" in result.errors[0].message


def test_near_the_limit_is_a_warning() -> None:
    result = check("lists.range(300).all(i, lists.range(300).all(j, i != j))")
    assert result.errors == ()
    assert [w.kind for w in result.warnings] == ["cost"]
    assert result.cost is not None and MAX_COST // 2 < result.cost.max_cost <= MAX_COST


def _recorded_costs() -> dict[str, int]:
    costs: dict[str, int] = {}
    for path in GOLDEN.rglob("*.json"):
        for obj in json.loads(path.read_text(encoding="utf-8")).get("objects") or []:
            for verdict in obj.get("cel") or []:
                if not verdict.get("error") and not verdict.get("tooLong"):
                    costs[verdict["expression"]] = verdict.get("cost", 0)
    return costs


def test_every_cost_the_oracle_recorded_is_dralints() -> None:
    """Selectors dralint does not check (CEL006: URL, IP/CIDR...) get no estimate and are left out."""
    recorded = _recorded_costs()
    results = {e: check(e) for e in recorded}
    mine = {e: r.cost.max_cost for e, r in results.items() if r.cost is not None and r.not_checked is None}
    assert len(mine) > 20
    assert {e: (c, recorded[e]) for e, c in mine.items() if c != recorded[e]} == {}


OPTIONAL_LIST = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cores}
spec:
  selectors: [{cel: {expression: 'device.attributes["d"].?cores.orValue([]).filter(c, c > 1).size() > 0'}}]
"""


@pytest.mark.parametrize(("gates", "rules"), [({}, ["CEL016"]), ({"DRAListTypeAttributes": True}, ["CEL004"])])
def test_the_server_estimates_the_cost_only_of_what_compiles(tmp_path, gates, rules) -> None:
    """With the gate off the comprehension over an attribute value is a compile error and the
    server stops there; with it on the selector compiles and its range has no size (oracle:
    cost 18446744073709551615 with DRAListTypeAttributes=true)."""
    result = lint_text(tmp_path, OPTIONAL_LIST, feature_gates=gates)
    assert sorted(d.rule for d in result.diagnostics if d.severity.value == "error") == rules
