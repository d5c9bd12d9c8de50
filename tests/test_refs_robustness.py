"""Odd shapes never crash the reference and extended-resource checks (no INT001)."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import yaml
from conftest import lint_text

from dralint.lint.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
ODD_VALUES = [None, 0, -3, True, "", "x/y", [], {}, [None], {"a": None}, "deviceclass.resource.kubernetes.io/", 1.5]


def _seed_documents() -> list[tuple[list, str | None]]:
    seeds = []
    for rule in load_catalog().values():
        if rule.family in ("REF", "EXT"):
            for example in rule.bad + rule.good:
                seeds.append((list(yaml.safe_load_all(example.manifest)), example.slices))
    for form in ("broken", "fixed"):
        docs = [
            d
            for f in sorted((ROOT / "examples" / "migration" / form).glob("*.yaml"))
            for d in yaml.safe_load_all(f.read_text())
        ]
        seeds.append((docs, (ROOT / "examples" / "migration" / "cluster-state.yaml").read_text()))
    return seeds


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


def _replace(node, path, value):
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


def test_mutated_manifests_never_raise(tmp_path):
    rng = random.Random(5)
    seeds = _seed_documents()
    for round_number in range(150):
        docs, slices = rng.choice(seeds)
        docs = yaml.safe_load(yaml.safe_dump(docs))
        for _ in range(3):
            doc_index = rng.randrange(len(docs))
            candidates = [p for p in _paths(docs[doc_index]) if len(p) >= 1 and p[0] not in ("apiVersion", "kind")]
            if candidates:
                _replace(docs[doc_index], rng.choice(candidates), copy.deepcopy(rng.choice(ODD_VALUES)))
        text = yaml.safe_dump_all(docs)
        result = lint_text(tmp_path, text, slices=slices, select=["REF", "EXT", "INT001"])
        crashes = [d.message for d in result.diagnostics if d.rule == "INT001"]
        assert not crashes, f"round {round_number}:\n{text}\n{crashes}"
