"""Parse Kubernetes resource quantities exactly (``resource.Quantity``).

Capacity request policies compare quantities (``validValues`` ascending, ``min + step <= value``,
multiples of ``step``) and extended resources must be whole numbers; floats would get these wrong
for values such as ``0.1``, so quantities become :class:`fractions.Fraction`.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL: dict[str, Fraction | int] = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_QUANTITY = re.compile(
    r"(?P<sign>[+-]?)(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:(?P<bin>Ki|Mi|Gi|Ti|Pi|Ei)|(?P<exp>[eE][+-]?[0-9]+)|(?P<dec>[numkMGTPE]?))\Z"
)


def parse_quantity(value: Any) -> Fraction | None:
    """Return the exact value of a quantity (string or YAML number), or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value))
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value)
    if match is None:
        return None
    number = Fraction(match["num"])
    if match["bin"]:
        number *= _BINARY[match["bin"]]
    elif match["exp"]:
        number *= Fraction(10) ** int(match["exp"][1:])
    else:
        number *= _DECIMAL[match["dec"] or ""]
    return -number if match["sign"] == "-" else number


def quantity_errors(value: str) -> list[str]:
    """Format check for the ``quantity`` overlay format: the server's decode error, reworded."""
    if parse_quantity(value) is None:
        return ["quantities must match the regular expression "
                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (e.g. '1Gi', '500m', '2')"]
    return []
