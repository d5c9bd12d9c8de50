"""Mutated manifests, snapshots and dumps, and the commands that must survive them.

Seeds are the project's own files (examples/, the rule examples, the built-in snapshots), never
the corpus. Each mutation family is a function of a random generator and a seed text; a case
is reproducible from its number alone (``case(seed, n)``), so a failure found by
``python tools/fuzz.py`` is replayed by its number and becomes a regression test.

A case runs through ``lint``, ``lint --slices``, ``simulate``, ``doctor``, ``lint --format
sarif`` (each finding's fix) and ``fix`` in this process
(a subprocess per run would cost 30 times more). What each run must do: end with an exit code
the command documents (never an exception), within ``SECONDS``, with every position its JSON
report names inside the file (``positions.violations``).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from positions import as_read, violations

from dralint.cli.main import main
from dralint.k8s.allocator.examples import EXAMPLES, load_example

ROOT = Path(__file__).resolve().parent.parent
#: Wall time one run of one case may take; a hang or a blow-up is far beyond it.
SECONDS = 10.0
#: Manifests ``lint --slices`` and ``simulate`` read beside a mutated snapshot: small, with claims.
MANIFESTS = ROOT / "examples" / "gpu-training"


@cache
def seeds() -> tuple[tuple[str, str], ...]:
    """(name, text) of every seed: example files, rule examples, built-in snapshots."""
    found = [(str(p.relative_to(ROOT)), p.read_text()) for p in sorted((ROOT / "examples").rglob("*.yaml"))]
    for rule in sorted((ROOT / "rules").glob("*.yaml")):
        examples = yaml.safe_load(rule.read_text()).get("examples") or {}
        for verdict in ("bad", "good"):
            for i, text in enumerate(examples.get(verdict) or ()):
                if isinstance(text, str):
                    found.append((f"{rule.stem}:{verdict}:{i}", text))
    for name in sorted(EXAMPLES):
        found.append((f"example:{name}", yaml.safe_dump_all(load_example(name), sort_keys=False)))
    return tuple(found)


# --- mutation families -----------------------------------------------------------------


def byte_flips(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 8)):
        if chars:
            chars[rng.randrange(len(chars))] = rng.choice(":-[]{}&*!|>'\"#%@`\t\n \\,?0aZ")
    return "".join(chars)


def truncation(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(len(text) + 1)]


def _documents(text: str) -> list[Any] | None:
    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError:
        return None
    return docs or None


def _slots(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every (path, value) of a document, containers included."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _slots(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _slots(item, (*path, index))


def _replace_one(rng: random.Random, text: str, make: Callable[[random.Random, Any], Any]) -> str:
    """``text`` with one value somewhere in one of its documents replaced by ``make``'s."""
    docs = _documents(text)
    if docs is None:
        return byte_flips(rng, text)
    target = rng.randrange(len(docs))
    slots = list(_slots(docs[target]))
    path, old = rng.choice(slots)
    new = make(rng, old)
    if not path:
        docs[target] = new
    else:
        parent = docs[target]
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = new
    return yaml.safe_dump_all(docs, sort_keys=False, width=1 << 30)


def _other_type(rng: random.Random, old: Any) -> Any:
    choices = [["a", "b"], {"k": "v"}, "text", 7, True, None, [{"x": [1]}], {"name": ["n"]}, 1.5, ""]
    return rng.choice([c for c in choices if type(c) is not type(old)])


def type_swaps(rng: random.Random, text: str) -> str:
    return _replace_one(rng, text, _other_type)


HUGE_NUMBERS = (
    *("9" * 5000, str(2**63), str(-(2**63) - 1), str(2**64), "1e999", "-.inf", ".nan", "0x" + "f" * 400),
    *(f"'{'9' * 5000}Gi'", f"'1e{'9' * 5000}'", f"'0.{'0' * 5000}1'"),  # quantities
)


def huge_numbers(rng: random.Random, text: str) -> str:
    number = rng.choice(HUGE_NUMBERS)
    docs = _documents(text)
    if docs is None:
        return text + f"\nn: {number}\n"
    marker = "HUGE-NUMBER-HERE"
    return _replace_one(rng, text, lambda _rng, _old: marker).replace(f"'{marker}'", number).replace(marker, number)


def long_strings(rng: random.Random, text: str) -> str:
    size = rng.choice((300, 4000, 12_000, 70_000))
    filler = rng.choice(("a", "x" * 7 + "-", "device.attributes['a'].b && ", "é", "nvidia.com/gpu/"))
    return _replace_one(rng, text, lambda _rng, _old: (filler * size)[:size])


def deep_nesting(rng: random.Random, text: str) -> str:
    depth = rng.choice((50, 200, 255, 256, 300, 1200))
    flow = rng.random() < 0.5
    if flow:
        nested = "[" * depth + "1" + "]" * depth
        return text.rstrip("\n") + f"\ndeep: {nested}\n"
    block = "".join(f"{' ' * i}k{i}:\n" for i in range(depth)) + f"{' ' * depth}leaf: 1\n"
    return text.rstrip("\n") + "\n" + block


def aliases(rng: random.Random, text: str) -> str:
    shape = rng.randrange(4)
    if shape == 0:  # one long string aliased many times
        big = "a" * rng.choice((1000, 100_000, 1_000_000))
        count = rng.choice((10, 200, 2000))
        return text.rstrip("\n") + f"\nx-anchor: &s {{k: {big}}}\nx-aliases: [{', '.join(['*s'] * count)}]\n"
    if shape == 1:  # billion laughs
        lines = ["laughs:", "  a: &a [x, x, x, x, x, x, x, x, x, x]"]
        for i in range(1, rng.choice((3, 6, 9))):
            prev, name = chr(ord("a") + i - 1), chr(ord("a") + i)
            lines.append(f"  {name}: &{name} [{', '.join(['*' + prev] * 10)}]")
        return text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"
    if shape == 2:  # recursive alias
        return text.rstrip("\n") + "\nloop: &loop\n  self: *loop\n"
    # an anchor on a real value, aliased where a value of another type is expected
    docs = _documents(text)
    if docs is None:
        return text + "\nx: *nowhere\n"
    return re.sub(r"(?m)^(  name: )(\S+)$", r"\1&n \2\n  labels: *n", text, count=1)


#: Odd characters to insert; a lone surrogate is written as the bytes of one (invalid UTF-8).
UNICODE = (
    "\ufeff",
    "\u0085",
    "\u2028",
    "\u2029",
    "\r",
    "\r\r\n",
    "\u200b",
    "\u202e",
    "\x00",
    "\x7f",
    "e\u0301",
    "😀",
    "é\udcff",
)


def unicode_oddities(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 6)):
        chars.insert(rng.randrange(len(chars) + 1), rng.choice(UNICODE))
    if rng.random() < 0.3:
        return "".join(chars).replace("\n", rng.choice(("\r\n", "\r", "\u0085")))
    return "".join(chars)


CEL_PIECES = (
    "(" * 200 + "true" + ")" * 200,
    "device.attributes['x'].int > " + "9" * 5000,
    "device.attributes[" * 50,
    "size(device.attributes) == ",
    "'\\u",
    "device.capacity['m'].memory.compareTo(quantity('" + "9" * 400 + "Gi')) > 0",
    " && ".join(["device.driver == 'a'"] * 2000),
    "unknownFunction(device)",
    '"""',
    "\\",
)


def cel_mutations(rng: random.Random, text: str) -> str:
    piece = rng.choice(CEL_PIECES)
    found = list(re.finditer(r"(?m)^(\s*-?\s*expression: *)(.*)$", text))
    if not found:
        return text.rstrip("\n") + f"\nexpression: {json.dumps(piece)}\n"
    match = rng.choice(found)
    value = json.dumps(piece) if rng.random() < 0.5 else json.dumps(match.group(2).strip("'\"") + piece)
    return text[: match.start(2)] + value + text[match.end(2) :]


def directives(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    lines.insert(
        rng.randrange(len(lines) + 1), rng.choice(("%FOO bar", "%YAML 1.1", "---", "...", "--- !!map", "a: ["))
    )
    return "\n".join(lines)


FAMILIES: dict[str, Callable[[random.Random, str], str]] = {
    "byte-flips": byte_flips,
    "truncation": truncation,
    "type-swaps": type_swaps,
    "huge-numbers": huge_numbers,
    "long-strings": long_strings,
    "deep-nesting": deep_nesting,
    "aliases": aliases,
    "unicode": unicode_oddities,
    "cel": cel_mutations,
    "directives": directives,
}


@dataclass(frozen=True)
class Case:
    number: int
    family: str
    seed: str
    text: str


def case(seed: int, number: int) -> Case:
    """Case ``number`` of the run started from ``seed``: the same case on every machine."""
    rng = random.Random(f"{seed}:{number}")
    family = list(FAMILIES)[number % len(FAMILIES)]
    name, text = rng.choice(seeds())
    return Case(number, family, name, FAMILIES[family](rng, text))


# --- running a case --------------------------------------------------------------------

#: Exit codes each command documents: 0 clean, 1 findings or stuck pods, 2 unusable input.
EXIT_CODES = {0, 1, 2}


def runs(path: Path) -> dict[str, list[str]]:
    """The command lines a case goes through, by name; each writes a JSON report or answer."""
    manifests = str(MANIFESTS)
    return {
        "lint": ["lint", "--no-config", "--jobs", "1", "--format", "json", str(path)],
        "lint --slices": ["lint", "--no-config", "--jobs", "1", "--format", "json", "--slices", str(path), manifests],
        "simulate": ["simulate", "--jobs", "1", "--format", "json", "--slices", str(path), manifests],
        "doctor": ["doctor", "--format", "json", str(path)],
        # SARIF carries each finding's fix; `fix` rewrites the case's file, so it runs last.
        "lint --format sarif": ["lint", "--no-config", "--jobs", "1", "--format", "sarif", str(path)],
        "fix": ["fix", str(path)],
    }


COMMANDS = ("lint", "lint --slices", "simulate", "doctor", "lint --format sarif", "fix")


def failures(path: Path, text: str, commands: tuple[str, ...] = COMMANDS) -> list[str]:
    """What went wrong running the file at ``path`` (holding ``text``) through ``commands``."""
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    found: list[str] = []
    runner = CliRunner()
    for name in commands:
        began = time.perf_counter()
        result = runner.invoke(main, runs(path)[name])
        took = time.perf_counter() - began
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            found.append(f"{name}: {type(result.exception).__name__}: {result.exception}")
            continue
        if result.exit_code not in EXIT_CODES:
            found.append(f"{name}: exit code {result.exit_code}")
        if "Traceback" in result.output:
            found.append(f"{name}: a traceback in the output")
        if took > SECONDS:
            found.append(f"{name}: {took:.1f} s")
        if name.startswith("lint") and result.exit_code in (0, 1):
            fmt = "sarif" if name.endswith("sarif") else "json"
            found += [f"{name}: {v}" for v in violations(fmt, result.stdout, {str(path): as_read(path)})]
    return found
