"""Kubernetes resource.Quantity semantics (cases follow apimachinery's quantity_test.go)."""

from fractions import Fraction

import pytest

from dralint.k8s.quantity import Quantity, QuantityError, is_quantity, parse_quantity, quantity_value


@pytest.mark.parametrize(
    ("text", "value", "fmt"),
    [
        ("0", 0, "DecimalSI"),
        ("0Ki", 0, "BinarySI"),
        ("1", 1, "DecimalSI"),
        ("1Ki", 1024, "BinarySI"),
        ("7Mi", 7 * 2**20, "BinarySI"),
        ("6Gi", 6 * 2**30, "BinarySI"),
        ("5Ti", 5 * 2**40, "BinarySI"),
        ("4Pi", 4 * 2**50, "BinarySI"),
        ("3Ei", 3 * 2**60, "BinarySI"),
        ("5n", Fraction(5, 10**9), "DecimalSI"),
        ("4u", Fraction(4, 10**6), "DecimalSI"),
        ("3m", Fraction(3, 1000), "DecimalSI"),
        ("8k", 8000, "DecimalSI"),
        ("7M", 7 * 10**6, "DecimalSI"),
        ("6G", 6 * 10**9, "DecimalSI"),
        ("5T", 5 * 10**12, "DecimalSI"),
        ("2P", 2 * 10**15, "DecimalSI"),
        ("1E", 10**18, "DecimalSI"),
        ("1E-3", Fraction(1, 1000), "DecimalExponent"),
        ("1e3", 1000, "DecimalExponent"),
        ("1.3E+6", 1_300_000, "DecimalExponent"),
        ("0.5e-2", Fraction(5, 1000), "DecimalExponent"),
        ("100.035k", 100_035, "DecimalSI"),
        ("0.0005k", Fraction(1, 2), "DecimalSI"),
        ("6.987654321G", 6_987_654_321, "DecimalSI"),
        ("100.035Ki", Fraction(10243584, 100), "BinarySI"),
        ("0.5Mi", 2**19, "BinarySI"),
        (".001", Fraction(1, 1000), "DecimalSI"),
        ("1.", 1, "DecimalSI"),
        ("1.G", 10**9, "DecimalSI"),
        ("-1.5", Fraction(-3, 2), "DecimalSI"),
        ("+2Ki", 2048, "BinarySI"),
    ],
)
def test_parse_values_and_formats(text: str, value: Fraction, fmt: str) -> None:
    q = parse_quantity(text)
    assert q.value == value
    assert q.format == fmt


@pytest.mark.parametrize(
    ("text", "value", "fmt"),
    [
        ("3.001n", Fraction(4, 10**9), "DecimalSI"),  # rounds up to the next nano unit
        ("1.1E-9", Fraction(2, 10**9), "DecimalExponent"),
        ("0.0000000001", Fraction(1, 10**9), "DecimalSI"),
        ("0.00000012345", Fraction(124, 10**9), "DecimalSI"),
        ("-0.9n", Fraction(-1, 10**9), "DecimalSI"),  # away from zero
        ("9Ei", 2**63 - 1, "BinarySI"),  # binary values are capped at int64
        ("0.000000000001Ki", Fraction(2, 10**9), "DecimalSI"),  # tiny binary becomes decimal
    ],
)
def test_rounding_and_caps(text: str, value: Fraction, fmt: str) -> None:
    q = parse_quantity(text)
    assert (q.value, q.format) == (value, fmt)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1.1.M",
        "1+1.0M",
        "0.1mi",
        "0.1am",
        "aoeu",
        ".5i",
        "1i",
        "-3.01i",
        "-3.01e-",
        " 1",
        "1 ",
        "1K",
        "1e",
        "1Mi5",
        "Non-Numeric",
        "1e99999",
    ],
)
def test_invalid(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)
    assert not is_quantity(text)


@pytest.mark.parametrize("text", [".", "+", "-", "Gi"])
def test_degenerate_inputs_the_upstream_scanner_reads_as_zero(text: str) -> None:
    assert parse_quantity(text).value == 0


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0", "0"),
        ("0Mi", "0"),
        ("1Ki", "1Ki"),
        ("1024Ki", "1Mi"),
        ("1536Mi", "1536Mi"),
        ("1.5Gi", "1536Mi"),
        ("1000Ki", "1000Ki"),
        ("0.5Mi", "512Ki"),
        ("1023Ki", "1023Ki"),
        ("1024", "1024"),
        ("2048", "2048"),  # decimal input stays decimal
        ("1000", "1k"),
        ("1500", "1500"),
        ("1.5", "1500m"),
        ("0.1", "100m"),
        ("100m", "100m"),
        ("1000m", "1"),
        ("1500m", "1500m"),
        ("1.5k", "1500"),
        ("12M", "12M"),
        ("1e3", "1e3"),
        ("1.5e3", "1500"),
        ("12e6", "12e6"),
        ("1E-3", "1e-3"),
        ("-1.5", "-1500m"),
        ("3.001n", "4n"),
        ("100.035Ki", "102435840m"),  # fractional binary is printed as decimal
        ("1000Mi", "1000Mi"),
        ("0.9Ki", "921600m"),
        ("9Ei", "9223372036854775807"),
    ],
)
def test_canonical_form(text: str, canonical: str) -> None:
    assert str(parse_quantity(text)) == canonical


def test_comparison_across_suffixes() -> None:
    assert parse_quantity("1Gi") == parse_quantity("1024Mi")
    assert parse_quantity("1G") < parse_quantity("1Gi")
    assert parse_quantity("10000T") > parse_quantity("100Gi")
    assert parse_quantity("100m").compare(parse_quantity("50m")) == 1
    assert parse_quantity("50m").compare(parse_quantity("0.1")) == -1
    assert parse_quantity("1e3").compare(parse_quantity("1k")) == 0
    assert len({parse_quantity("1Gi"), parse_quantity("1073741824")}) == 1


def test_sign() -> None:
    assert [parse_quantity(t).sign() for t in ("-1m", "0", "5Gi")] == [-1, 0, 1]


@pytest.mark.parametrize(
    ("text", "integer"),
    [
        ("1Gi", True),
        ("1k", True),
        ("5", True),
        ("0", True),
        ("1e3", True),
        # Kubernetes answers from its int64 representation, not from the value:
        ("1000m", False),
        ("1.0", False),
        ("1.5Gi", False),
        ("1.5", False),
    ],
)
def test_is_integer_follows_the_int64_representation(text: str, integer: bool) -> None:
    q = parse_quantity(text)
    assert q.is_integer() is integer
    if integer:
        assert q.as_integer() == q.value
    else:
        with pytest.raises(QuantityError, match="cannot convert value to integer"):
            q.as_integer()


def test_as_integer_overflow() -> None:
    assert not parse_quantity("10E").is_integer()  # 10^19 does not fit in int64


def test_add_and_sub_keep_format_and_value() -> None:
    total = parse_quantity("1Gi").add(parse_quantity("512Mi"))
    assert str(total) == "1536Mi"
    assert str(parse_quantity("0").add(parse_quantity("1Gi"))) == "1Gi"  # zero takes the other format
    assert str(parse_quantity("100m").add(parse_quantity("0"))) == "100m"
    assert str(parse_quantity("1k").add(1)) == "1001"
    assert parse_quantity("1k").add(1).is_integer()
    assert str(parse_quantity("1").sub(parse_quantity("1500m"))) == "-500m"
    assert parse_quantity("2Gi").sub(1).value == 2 * 2**30 - 1


def test_approximate_float() -> None:
    assert parse_quantity("1.5").as_approximate_float() == 1.5
    assert parse_quantity("1Gi").as_approximate_float() == float(2**30)
    assert parse_quantity("3.001n").as_approximate_float() == pytest.approx(4e-9)


def test_from_int_is_decimal_exponent() -> None:
    q = Quantity.from_int(1000)
    assert (q.format, str(q), q.is_integer()) == ("DecimalExponent", "1e3", True)


def test_quantity_value_reads_numbers_by_their_text_and_rejects_non_quantities() -> None:
    assert quantity_value(2) == 2
    assert quantity_value(1.5) == Fraction(3, 2)
    assert quantity_value(1e20) == 10**20
    assert quantity_value("1500m") == Fraction(3, 2)
    for bad in (True, None, [], float("inf"), float("-inf"), float("nan"), "1K", ""):
        assert quantity_value(bad) is None, bad
