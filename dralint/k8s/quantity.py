"""Kubernetes ``resource.Quantity`` as the CEL quantity library sees it.

DRA capacities (``device.capacity[domain][name]``) are Quantities, and selectors compare them
with ``quantity("40Gi")``.  To evaluate selectors offline dralint needs the same parsing,
ordering and canonical form as ``k8s.io/apimachinery/pkg/api/resource``:

* Grammar: optional sign, digits with an optional fraction, then one suffix: a binary suffix
  (``Ki Mi Gi Ti Pi Ei``), a decimal SI suffix (``n u m k M G T P E`` or none), or an exponent
  (``e3``, ``E-2``).  ``1K`` and ``1e`` are errors; ``+``, ``-`` and ``.`` alone parse as zero
  (the upstream scanner accepts them, so we do too).
* Values are exact.  Non-zero values finer than one nano unit are rounded *up* (away from zero)
  to the next nano unit, and binary-suffixed values are capped at 2^63-1, as upstream.
* The canonical form (``str(q)``) follows ``Quantity.String()``: binary quantities with an
  integer value of at least 1024 use the largest binary suffix that keeps an integer mantissa;
  otherwise the value is written as an integer mantissa times a power of 1000 with an SI suffix
  (``1500m``, ``1k``) or, for exponent input, ``e<n>`` notation.  Upstream writes no suffix
  for a decimal-SI exponent beyond ``E`` (a value of at least 1000E); dralint writes ``e<n>``
  there instead of producing a wrong number.
* ``isInteger``/``asInteger`` mirror ``Quantity.AsInt64``, which answers from the internal
  int64 representation, not from the mathematical value: ``1000m`` and ``1.5Gi`` are *not*
  integers for Kubernetes CEL even though their values are whole numbers.  We keep the same
  representation (``_int``: mantissa and power-of-ten scale, or ``None`` for the big-decimal
  form) so evaluation answers what the scheduler answers.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import Any

__all__ = ["Quantity", "QuantityError", "is_quantity", "parse_quantity", "quantity_errors", "quantity_value"]

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)
_NANO = Fraction(1, 10**9)
_MAX_INT64_FACTORS = 18
# Upstream accepts exponents up to 2^31-1; exact arithmetic on 10^(2^31) is not feasible, so
# dralint rejects exponents beyond this bound (documented limit; no real capacity needs it).
_MAX_EXPONENT = 4096
# Likewise for the digits: upstream reads any number of them (inf.Dec), but a value of
# thousands of digits (fuzzing writes them) is past what Python converts to an int (4,300
# digits) once scaled by the largest exponent; no real quantity has more than a few dozen.
_MAX_DIGITS = 200

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXPONENT = {v: k for k, v in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT = {v: k for k, v in _BINARY_SUFFIXES.items()}

_SCAN = re.compile(r"([+-]?)(0*)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)")


class QuantityError(ValueError):
    """Raised for a string that ``resource.ParseQuantity`` would reject."""


@functools.total_ordering
class Quantity:
    """An exact Kubernetes quantity: its value, its format and its int64 representation."""

    __slots__ = ("value", "format", "_int")

    def __init__(self, value: Fraction, fmt: str, int_repr: tuple[int, int] | None) -> None:
        self.value = value
        self.format = fmt
        self._int = int_repr

    @classmethod
    def from_int(cls, value: int, fmt: str = DECIMAL_EXPONENT) -> Quantity:
        """``resource.NewQuantity(value, fmt)``: an int64 amount at scale 0."""
        return cls(Fraction(value), fmt, (value, 0))

    # --- comparison -------------------------------------------------------------------
    def compare(self, other: Quantity) -> int:
        """-1, 0 or 1, like ``Quantity.Cmp``; the order is the numeric value."""
        return (self.value > other.value) - (self.value < other.value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.value == other.value

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def sign(self) -> int:
        """-1, 0 or 1."""
        return (self.value > 0) - (self.value < 0)

    # --- arithmetic (the CEL library's add/sub) --------------------------------------------
    def add(self, other: Quantity | int) -> Quantity:
        """``q.add(other)``; an int operand is a DecimalExponent quantity, as upstream."""
        if isinstance(other, int):
            other = Quantity.from_int(other)
        fmt = other.format if self.value == 0 else self.format
        return Quantity(self.value + other.value, fmt, _int_add(self._int, other._int))

    def sub(self, other: Quantity | int) -> Quantity:
        """``q.sub(other)``."""
        if isinstance(other, int):
            other = Quantity.from_int(other)
        negated = None if other._int is None or other._int[0] == _INT64_MIN else (-other._int[0], other._int[1])
        fmt = other.format if self.value == 0 else self.format
        return Quantity(self.value - other.value, fmt, _int_add(self._int, negated))

    # --- conversions ---------------------------------------------------------------------
    def is_integer(self) -> bool:
        """``Quantity.AsInt64`` succeeds: int64 representation at a scale of 0 or more that fits."""
        return self._as_int64() is not None

    def as_integer(self) -> int:
        """The int64 value, or QuantityError("cannot convert value to integer") as upstream."""
        result = self._as_int64()
        if result is None:
            raise QuantityError("cannot convert value to integer")
        return result

    def as_approximate_float(self) -> float:
        """A float close to the value (upstream multiplies mantissa by a power of ten)."""
        if self._int is not None:
            mantissa, scale = self._int
            return float(mantissa) if scale == 0 else float(mantissa) * 10.0**scale
        return float(self.value)

    def _as_int64(self) -> int | None:
        if self._int is None:
            return None
        mantissa, scale = self._int
        if scale < 0:
            return None
        result = mantissa * 10**scale
        return result if _INT64_MIN <= result <= _INT64_MAX else None

    # --- canonical form ----------------------------------------------------------------------
    def canonical(self) -> str:
        """The string ``Quantity.String()`` prints (``1Gi``, ``1500m``, ``12e6``)."""
        if self.value == 0:
            return "0"
        fmt = self.format
        if fmt == BINARY_SI and (-1024 < self.value < 1024 or self.value.denominator != 1):
            fmt = DECIMAL_SI
        if fmt == BINARY_SI:
            amount, times = _remove_factors(self.value.numerator, 1024)
            return f"{amount}{_BINARY_BY_EXPONENT.get(times * 10, '')}"
        mantissa, exponent = _decimal_canonical(self.value)
        if fmt == DECIMAL_SI and exponent in _DECIMAL_BY_EXPONENT:
            return f"{mantissa}{_DECIMAL_BY_EXPONENT[exponent]}"
        return f"{mantissa}" if exponent == 0 else f"{mantissa}e{exponent}"

    def __str__(self) -> str:
        return self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({self.canonical()!r})"


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    negative = value < 0
    result = -value if negative else value
    times = 0
    while result >= base and result % base == 0:
        result //= base
        times += 1
    return (-result if negative else result), times


def _decimal_canonical(value: Fraction) -> tuple[int, int]:
    """Integer mantissa and an exponent that is a multiple of 3 (values are nano multiples)."""
    scaled = value * 10**9
    if scaled.denominator != 1:  # cannot happen for parsed values; keep exactness anyway
        exponent = 0
        while value.denominator != 1:
            value *= 10
            exponent -= 1
        mantissa = value.numerator
    else:
        mantissa, exponent = int(scaled), -9
    mantissa, times = _remove_factors(mantissa, 10)
    exponent += times
    while exponent % 3:
        mantissa *= 10
        exponent -= 1
    return mantissa, exponent


def _int_add(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    """``int64Amount.Add``: the int64 sum at the smaller scale, or None if it overflows."""
    if a is None or b is None:
        return None
    (av, ascale), (bv, bscale) = a, b
    if bv == 0:
        return a
    if av == 0:
        return b
    scale = min(ascale, bscale)
    total = av * 10 ** (ascale - scale) + bv * 10 ** (bscale - scale)
    aligned = av * 10 ** (ascale - scale) if ascale > bscale else bv * 10 ** (bscale - scale)
    if not (_INT64_MIN <= aligned <= _INT64_MAX and _INT64_MIN <= total <= _INT64_MAX):
        return None
    return total, scale


def _round_up_nano(value: Fraction) -> Fraction:
    """Round a non-zero magnitude up to the next multiple of 1e-9 (upstream ``inf.RoundUp``)."""
    units = value / _NANO
    whole = units.numerator // units.denominator
    if whole != units:
        whole += 1
    return whole * _NANO


@functools.lru_cache(maxsize=4096)
def parse_quantity(text: str) -> Quantity:
    """Parse like ``resource.ParseQuantity``; raises QuantityError with upstream's reason."""
    if not isinstance(text, str) or not text:
        raise QuantityError(
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        )
    if text == "0":
        return Quantity(Fraction(0), DECIMAL_SI, (0, 0))
    match = _SCAN.fullmatch(text)
    if match is None:
        raise QuantityError(
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        )
    sign_text, _zeros, num, denom, suffix = match.groups()
    negative = sign_text == "-"
    denom = denom or ""
    num = num or "0"
    base, exponent, fmt = _interpret_suffix(suffix)
    if len(num) + len(denom) > _MAX_DIGITS:
        raise QuantityError(
            f"dralint reads quantities of at most {_MAX_DIGITS} digits, and this one has "
            f"{len(num) + len(denom):,}; no Kubernetes quantity needs that many"
        )

    digits = Fraction(int(num + denom)) / 10 ** len(denom)
    magnitude = digits * (Fraction(10) ** exponent if base == 10 else 2**exponent)

    int_repr = _fast_path(num, denom, base, exponent, fmt, negative)
    if int_repr is not None:
        return Quantity(-magnitude if negative else magnitude, fmt, int_repr)

    if magnitude != 0:
        magnitude = _round_up_nano(magnitude)
    if fmt == BINARY_SI and magnitude > _INT64_MAX:
        magnitude = Fraction(_INT64_MAX)
    if fmt == BINARY_SI and 0 < magnitude < 1:
        fmt = DECIMAL_SI
    return Quantity(-magnitude if negative else magnitude, fmt, None)


def _interpret_suffix(suffix: str) -> tuple[int, int, str]:
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    # An exponent of more than ten digits is past int32, which upstream parses it as (and past
    # what Python converts once it has thousands).
    short = len(suffix[1:].lstrip("+-").lstrip("0")) <= 10
    if len(suffix) > 1 and suffix[0] in "eE" and short and re.fullmatch(r"[-+]?[0-9]+", suffix[1:]):
        exponent = int(suffix[1:])
        if abs(exponent) <= _MAX_EXPONENT:
            return 10, exponent, DECIMAL_EXPONENT
    raise QuantityError("unable to parse quantity's suffix")


def _fast_path(num: str, denom: str, base: int, exponent: int, fmt: str, negative: bool) -> tuple[int, int] | None:
    """The int64 representation upstream's fast path produces, or None for the decimal form."""
    if base == 10:
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
        scale, mantissa = exponent, 1
    elif exponent >= 0 and not denom:
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale, mantissa = 0, 1 << exponent
    else:
        return None
    if precision < 0:
        return None
    scale -= len(denom)
    if scale < -9:
        return None
    shifted = int(num + denom)
    if shifted > _INT64_MAX:
        return None
    result = shifted * mantissa
    if result > _INT64_MAX:
        return None
    return (-result if negative else result), scale


def is_quantity(text: str) -> bool:
    """``isQuantity(text)``."""
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def quantity_value(value: Any) -> Fraction | None:
    """The exact value of a manifest field that holds a quantity, or None when it is not one.

    YAML lets a quantity be written as a number (``count: 2``, ``memory: 1.5``). The API server
    reads a JSON number by its text, so a number is parsed from its decimal form; booleans and
    non-finite floats are not quantities.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        value = repr(value)
    if not isinstance(value, str):
        return None
    try:
        return parse_quantity(value).value
    except QuantityError:
        return None


def quantity_errors(value: str) -> list[str]:
    """Why ``resource.ParseQuantity`` rejects ``value`` (empty when it parses)."""
    try:
        parse_quantity(value)
    except QuantityError as error:
        return [f"{error} (e.g. '1Gi', '500m', '2')"]
    return []
