"""dralint.k8s.cel.check: what the API server says about a selector, at the exact character."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dralint.k8s.cel import MAX_LENGTH, Device, check, evaluate


def _only_error(expression: str):
    result = check(expression)
    assert len(result.errors) == 1, result
    return result.errors[0]


@pytest.mark.parametrize(
    ("expression", "fragment", "text"),
    [
        ("device.driver > 5", "'_>_' applied to '(string, int)'", ">"),
        ('device.drivr == "x"', "undefined field 'drivr'", "drivr"),
        ("nosuchfn(1) == 1", "undeclared reference to 'nosuchfn'", "nosuchfn"),
        ('quantity("1Gi") > 5', "(kubernetes.Quantity, int)", ">"),
        ('quantity("1Gi").compareTo(semver("1.0.0")) == 0', "kubernetes.Quantity.(kubernetes.Semver)", "compareTo"),
        ('device.allowMultipleAllocations == "true"', "(bool, string)", "="),
        ('device.driver === "x"', "Syntax error", "="),
    ],
)
def test_compile_errors_point_at_the_character(expression: str, fragment: str, text: str) -> None:
    issue = _only_error(expression)
    assert issue.message.startswith("compilation failed: ERROR: <input>:1:")
    assert fragment in issue.message
    assert expression[issue.start : issue.end].startswith(text)


def test_message_keeps_the_api_server_line_and_column() -> None:
    issue = _only_error("device.driver > 5")
    assert issue.message == (
        "compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(string, int)'"
    )
    assert (issue.start, issue.end) == (14, 15)


def test_error_on_second_line() -> None:
    expression = 'device.driver == "a" &&\n  device.attributes["a"].x > "b" &&\n  device.driver > 1'
    issue = _only_error(expression)
    assert issue.message.startswith("compilation failed: ERROR: <input>:3:17:")
    assert expression[issue.start] == ">"


def test_eof_error_is_clamped_to_the_last_content_character() -> None:
    expression = 'device.driver == "a" &&\n  (device.driver == "b"\n'  # block scalars end with \n
    issue = _only_error(expression)
    assert "<EOF>" in issue.message
    assert issue.start == len(expression.rstrip()) - 1


def test_several_errors_are_all_reported() -> None:
    result = check("nosuch1() && nosuch2()")
    assert [r.start for r in result.errors] == [0, 13]  # each function name


def test_non_ascii_columns_count_code_points() -> None:
    expression = '"é😀" == 1'
    issue = _only_error(expression)
    assert expression[issue.start] == "="


@pytest.mark.parametrize(
    ("expression", "type_name"),
    [
        ("device.driver", "string"),
        ("1 + 2", "int"),
        ('quantity("1")', "kubernetes.Quantity"),
        ("[true]", "list(bool)"),
        ('device.attributes["d"].?x', "optional_type(dyn)"),
    ],
)
def test_result_must_be_bool(expression: str, type_name: str) -> None:
    issue = _only_error(expression)
    assert issue.message == f"must evaluate to bool or the unknown type, not {type_name}"
    assert issue.kind == "result-type"


@pytest.mark.parametrize(
    "expression",
    [
        'device.attributes["gpu.example.com"].model',  # dyn is accepted
        'device.attributes["d"].?x.orValue(false)',
        'device.attributes["d"].all(k, v, k.startsWith("x") && v != 0)',  # two-variable comprehension
        'cel.bind(a, device.attributes["d"], a.x == 1 && a.y == 2)',
        'device.attributes["d"].`model-name` == "x"',
        'device.driver.lowerAscii().split(".").size() > 1',
        'sets.contains(["a", "b"], ["a"])',
        "[3, 1].sort()[0] == 1 && lists.range(3).size() == 3",
        '"gpu0".find("[0-9]+") == "0" && "a1b2".findAll("[0-9]").size() == 2',
        'device.capacity["d"].memory.compareTo(quantity("40Gi")) >= 0',
        'device.capacity["d"].memory.isGreaterThan(quantity("1Gi")) || sign(device.capacity["d"].memory) == 0',
        'device.attributes["d"].version.isGreaterThan(semver("1.2.3")) && semver("v1.2", true).minor() == 2',
        'isQuantity("1Gi") && isSemver("1.0.0") && quantity("1").add(1).asInteger() == 2',
        'device.attributes["d"].ints.includes(3)',
        "device.allowMultipleAllocations",
    ],
)
def test_kubernetes_syntax_is_accepted(expression: str) -> None:
    result = check(expression)
    assert result.ok, result


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ('url("https://x").getHost() == "x"', "'url'"),
        ('ip("10.0.0.1").family() == 4', "'ip'"),
        ("1 < 1.5", "numbers of different types"),
        ("[1, 2].indexOf(2) == 1", "'indexOf'"),
    ],
)
def test_unsupported_kubernetes_features_are_not_checked_never_errors(expression: str, reason: str) -> None:
    result = check(expression)
    assert result.errors == ()
    assert result.not_checked is not None and reason in result.not_checked


def test_syntax_error_is_still_reported_next_to_a_gap() -> None:
    result = check('url("x").getHost() == ')
    assert result.not_checked is None or result.errors
    assert any("Syntax error" in e.message for e in result.errors)


def test_length_limit_counts_bytes() -> None:
    base = 'device.driver == "'
    fits = base + "a" * (MAX_LENGTH - len(base) - 1) + '"'
    assert len(fits) == MAX_LENGTH and check(fits).errors == ()
    too_long = base + "é" * ((MAX_LENGTH - len(base)) // 2) + '"'
    result = check(too_long)
    assert result.errors[0].kind == "length"
    assert result.errors[0].message == f"Too long: may not be more than {MAX_LENGTH} bytes"


def test_check_is_cached_per_expression() -> None:
    assert check('device.driver == "cache"') is check('device.driver == "cache"')


_TOKENS = st.sampled_from(
    [
        "device",
        ".",
        "driver",
        "attributes",
        "capacity",
        '["d"]',
        "[",
        "]",
        "(",
        ")",
        "&&",
        "||",
        "==",
        ">",
        '"x"',
        "'y'",
        "1",
        "2.5",
        "true",
        "!",
        "?",
        ":",
        ".?",
        "has(",
        "all(",
        "k",
        ",",
        "v",
        'quantity("1Gi")',
        'semver("1.0.0")',
        ".compareTo(",
        "\n",
        " ",
        "\x00",
        "\ud800",
        "é",
        "cel.bind(",
        "lists.range(",
        ".size()",
        "in",
        "[1,2]",
        "{",
        "}",
        '"',
        "\\",
        "orValue(",
        "includes(",
        "+",
        "-",
        "*",
        "/",
        "%",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_TOKENS, max_size=20).map("".join))
def test_arbitrary_input_never_raises_and_spans_stay_inside(expression: str) -> None:
    result = check(expression)
    for issue in result.errors + result.warnings:
        assert 0 <= issue.start < issue.end <= max(len(expression), 1)
    evaluate(expression, Device(driver="d", attributes={"d": {"x": 1}}))


def test_lone_surrogate_is_an_error_not_a_crash() -> None:
    issue = _only_error('device.driver == "\ud800"')
    assert "lone surrogate" in issue.message and issue.start == 18


@pytest.mark.parametrize(
    ("expression", "operator", "types"),
    [
        # the server's messages (conformance/oracle, 2026-12-07): a method's receiver comes first
        ('device.capacity["d"].memory > 5', ">", "(kubernetes.Quantity, int)"),
        ('device.capacity["d"].memory == "40Gi"', "==", "(kubernetes.Quantity, string)"),
        ('device.capacity["d"].memory > device.capacity["d"].other', ">", "(kubernetes.Quantity, kubernetes.Quantity)"),
        ('device.capacity["d"].memory >= quantity("1Gi")', ">=", None),
        (
            'device.capacity["d"].memory.compareTo(semver("1.0.0")) == 0',
            "compareTo",
            "kubernetes.Quantity.(kubernetes.Semver)",
        ),
        ('sign(device.capacity["d"].memory.add(1.5)) == 1', "add", "kubernetes.Quantity.(double)"),
        ('device.capacity["d"].memory.isGreaterThan(1)', "isGreaterThan", "kubernetes.Quantity.(int)"),
        ('device.capacity["d"]["memory"] < 1', "<", "(kubernetes.Quantity, int)"),
        ('quantity(device.capacity["d"].memory) == quantity("1")', "quantity", "(kubernetes.Quantity)"),
    ],
)
def test_capacities_are_quantities_as_for_the_api_server(expression: str, operator: str, types: str | None) -> None:
    issue = _only_error(expression)
    assert expression[issue.start :].startswith(operator)
    assert "found no matching overload for" in issue.message
    if types is not None:
        function = operator if operator[0].isalpha() else f"_{operator}_"
        assert issue.message.endswith(f"found no matching overload for '{function}' applied to '{types}'")


@pytest.mark.parametrize(
    "expression",
    [
        'device.capacity["d"].memory.compareTo(quantity("40Gi")) >= 0',
        'device.capacity["d"].memory == quantity("40Gi")',
        'device.capacity["d"].memory.add(1).isGreaterThan(device.capacity["d"].other)',
        'sign(device.capacity["d"].?memory.orValue(quantity("0"))) >= 0',
        'has(device.capacity["d"].memory) && device.capacity["d"].memory.isInteger()',
        'device.capacity["d"].exists(name, sign(device.capacity["d"][name]) > 0)',
    ],
)
def test_valid_quantity_uses(expression: str) -> None:
    assert check(expression).ok


def test_a_capacity_as_the_result_is_not_bool() -> None:
    assert _only_error('device.capacity["d"].memory').message == (
        "must evaluate to bool or the unknown type, not kubernetes.Quantity"
    )


@pytest.mark.parametrize(
    ("expression", "at"),
    [
        # what the v1.37 compiler refuses (conformance/oracle, 2026-12-07) and dralint's library
        # accepted: no math extension, strings at version 2 (no string reverse), and sign() is a
        # function of a Quantity, not a method (k8s.io/apiserver pkg/cel/library/quantity.go)
        ("math.greatest([1, 2, 3]) == 3", "math"),
        ("math.least(1, 2) == 1", "math"),
        ('device.attributes["d"].name.reverse() == "x"', '== "x"'),
        ('"abc".reverse() == "cba"', "reverse"),
        ('device.capacity["d"].memory.sign() == 0', "sign"),
        ('quantity("1").sign() == 1', "sign"),
        ("[1, 2].flatten().size() == 2", "flatten"),
    ],
)
def test_what_the_server_refuses_outside_its_environment(expression: str, at: str) -> None:
    result = check(expression)
    assert result.errors and result.errors[0].kind == "compile", result
    assert expression[result.errors[0].start :].startswith(at)


def test_flatten_takes_a_list_of_lists_or_a_depth() -> None:
    (error,) = check("[1, 2].flatten().size() == 2").errors
    assert error.message == (
        "compilation failed: ERROR: <input>:1:15: found no matching overload for 'flatten' applied to 'list(int).()'"
    )
    for accepted in ("[[1], [2]].flatten().size() == 2", "[1, 2].flatten(1).size() == 2"):
        assert check(accepted).errors == (), accepted
    assert check('device.attributes["d"].list.flatten().size() == 1').errors == ()  # dyn: the server's too


def test_the_string_reverse_error_names_the_list_it_became() -> None:
    (error,) = check('device.attributes["d"].name.reverse() == "x"').errors
    assert error.message.endswith("found no matching overload for '_==_' applied to '(list(dyn), string)'")
