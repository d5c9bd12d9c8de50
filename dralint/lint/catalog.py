"""The rule catalog: one YAML file per rule under ``rules/``, the single source of rule facts.

The same entry feeds ``dralint rules``, ``dralint explain``, SARIF rule descriptors, the
generated docs and the catalog tests, so a rule's wording lives in exactly one place.
"""

from __future__ import annotations

import functools
import json
import re
import zlib
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from dralint import bundled_dir
from dralint.diagnostics import Severity
from dralint.lint.options import PROFILES

CATEGORIES = (
    "yaml",
    "api",
    "cel",
    "reference",
    "extended-resources",
    "scheduling",
    "pod-security",
    "security",
    "reliability",
    "efficiency",
    "general",
    "internal",
)
#: Categories the ``dra`` profile keeps: DRA correctness and the API checks it rests on. Pod
#: Security admission belongs here: its rules report only pods the API server would reject (or
#: warn about) under a level the user declared, which is "would the API server accept it?".
DRA_CATEGORIES = frozenset(
    {"yaml", "api", "cel", "reference", "extended-resources", "scheduling", "pod-security", "internal"}
)
_ID_RE = re.compile(r"^[A-Z]{2,5}\d{3}$")
_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_REQUIRED = ("id", "name", "severity", "category", "summary", "rationale", "fix")
#: Tools whose check ids a rule may list under ``peers:``, so users can migrate ignore lists.
PEER_TOOLS = ("kube-linter", "kube-score", "polaris", "checkov", "kubescape", "trivy")


class Example(NamedTuple):
    """A manifest that shows a rule firing (bad) or not (good), with what it needs to run."""

    manifest: str
    slices: str | None
    options: dict[str, Any]


class Rule(NamedTuple):
    """Everything users and reporters need to know about one rule."""

    id: str
    name: str
    severity: Severity
    category: str
    summary: str
    rationale: str
    fix: str
    tags: tuple[str, ...] = ()
    bad: tuple[Example, ...] = ()
    good: tuple[Example, ...] = ()
    recommended: bool = True
    security_severity: str | None = None
    fixable: bool = False
    source: str = ""
    #: (tool, ids) pairs in PEER_TOOLS order: the peers' checks this rule covers.
    peers: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: (profile, severity) pairs where a profile reports the rule at another default severity.
    profile_severities: tuple[tuple[str, Severity], ...] = ()

    @property
    def family(self) -> str:
        return self.id.rstrip("0123456789")

    def severity_in(self, profile: str) -> Severity:
        """The rule's default severity when ``profile`` runs (``severity`` unless it says otherwise)."""
        return dict(self.profile_severities).get(profile, self.severity)


class CatalogError(ValueError):
    """A malformed catalog entry: a packaging bug, reported with the file it came from."""


def rules_dir() -> Path:
    """Where the catalog lives: inside the wheel, or at the repository root in a checkout."""
    found = bundled_dir("rules")
    if found is not None:
        return found
    raise CatalogError("the rule catalog (rules/) is missing from this installation")


def _examples(raw: Any, where: str) -> tuple[Example, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise CatalogError(f"{where}: examples must be a list")
    out = []
    for item in raw:
        if isinstance(item, str):
            out.append(Example(item, None, {}))
        elif isinstance(item, dict) and isinstance(item.get("manifest"), str):
            out.append(Example(item["manifest"], item.get("slices"), dict(item.get("options") or {})))
        else:
            raise CatalogError(f"{where}: an example is a string or a mapping with 'manifest'")
    return tuple(out)


def _peers(raw: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``peers: {kube-linter: [id, ...], ...}`` as ordered pairs; unknown tools are an error."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise CatalogError(f"{where}: peers must map a tool name to a list of its check ids")
    unknown = sorted(set(map(str, raw)) - set(PEER_TOOLS))
    if unknown:
        raise CatalogError(f"{where}: unknown peer tool(s) {', '.join(unknown)}; known: {', '.join(PEER_TOOLS)}")
    out = []
    for tool in PEER_TOOLS:
        ids = raw.get(tool)
        if ids is None:
            continue
        ids = [ids] if isinstance(ids, str) else ids
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
            raise CatalogError(f"{where}: peers.{tool} must be a non-empty list of check ids")
        out.append((tool, tuple(ids)))
    return tuple(out)


def _profile_severities(raw: Any, where: str) -> tuple[tuple[str, Severity], ...]:
    """``severity_in: {strict: warning}``: per-profile defaults, for known profiles only."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not all(p in PROFILES for p in raw):
        raise CatalogError(f"{where}: severity_in must map a profile ({', '.join(PROFILES)}) to a severity")
    try:
        return tuple((profile, Severity(raw[profile])) for profile in PROFILES if profile in raw)
    except ValueError as error:
        raise CatalogError(f"{where}: severity_in: {error}") from error


def parse_rule(raw: Any, source: str) -> Rule:
    """Build a Rule from one catalog file's data, rejecting anything malformed."""
    if not isinstance(raw, dict):
        raise CatalogError(f"{source}: a rule file holds one mapping")
    missing = [k for k in _REQUIRED if not raw.get(k)]
    if missing:
        raise CatalogError(f"{source}: missing {', '.join(missing)}")
    if not _ID_RE.match(str(raw["id"])):
        raise CatalogError(f"{source}: id {raw['id']!r} is not like API001")
    if not _NAME_RE.match(str(raw["name"])):
        raise CatalogError(f"{source}: name {raw['name']!r} is not kebab-case")
    if raw["category"] not in CATEGORIES:
        raise CatalogError(f"{source}: category {raw['category']!r} is not one of {', '.join(CATEGORIES)}")
    examples = raw.get("examples") or {}
    return Rule(
        id=raw["id"],
        name=raw["name"],
        severity=Severity(raw["severity"]),
        category=raw["category"],
        summary=str(raw["summary"]).strip(),
        rationale=str(raw["rationale"]).strip(),
        fix=str(raw["fix"]).strip(),
        tags=tuple(raw.get("tags") or ()),
        bad=_examples(examples.get("bad"), source),
        good=_examples(examples.get("good"), source),
        recommended=bool(raw.get("recommended", True)),
        security_severity=str(raw["security_severity"]) if raw.get("security_severity") else None,
        fixable=bool(raw.get("fixable", False)),
        source=source,
        peers=_peers(raw.get("peers"), source),
        profile_severities=_profile_severities(raw.get("severity_in"), source),
    )


#: The catalog's YAML files already parsed, beside them in ``rules/`` (so the wheel ships it):
#: parsing 117 YAML files took a third of a small lint's run, reading this takes milliseconds.
#: ``python tools/generate_docs.py`` writes it; tests/test_catalog.py fails when it is stale.
COMPILED_NAME = "catalog.json"


def _sources(directory: Path) -> list[tuple[str, bytes]]:
    """(file name, bytes) of every rule file, in catalog order."""
    return [(path.name, path.read_bytes()) for path in sorted(directory.glob("*.y*ml"))]


def _digest(sources: list[tuple[str, bytes]]) -> int:
    """A checksum of the rule files: tells whether the compiled catalog still describes them."""
    digest = 0
    for name, data in sources:
        digest = zlib.crc32(data, zlib.crc32(name.encode("utf-8"), digest))
    return digest


def compile_catalog(directory: Path) -> str:
    """The compiled catalog of ``directory`` as JSON text: the parsed rule files and their checksum."""
    sources = _sources(directory)
    raw = [[name, yaml.load(data, Loader=yaml.CSafeLoader)] for name, data in sources]
    return json.dumps({"digest": _digest(sources), "rules": raw}, indent=1, sort_keys=True) + "\n"


def _raw_rules(directory: Path) -> list[tuple[str, Any]]:
    """(file name, parsed data) per rule file: from the compiled catalog when it matches the
    files, else parsed from the YAML (a stale compiled file costs time, never correctness)."""
    sources = _sources(directory)
    compiled = directory / COMPILED_NAME
    if compiled.is_file():
        data = json.loads(compiled.read_text(encoding="utf-8"))
        if data.get("digest") == _digest(sources):
            return [(name, raw) for name, raw in data["rules"]]
    return [(name, yaml.load(text, Loader=yaml.CSafeLoader)) for name, text in sources]


@functools.cache
def load_catalog() -> dict[str, Rule]:
    """All rules by id, loaded once per process."""
    rules: dict[str, Rule] = {}
    names: set[str] = set()
    for name, raw in _raw_rules(rules_dir()):
        rule = parse_rule(raw, name)
        if rule.id in rules:
            raise CatalogError(f"{name}: duplicate rule id {rule.id}")
        if rule.name in names:
            raise CatalogError(f"{name}: duplicate rule name {rule.name}")
        rules[rule.id] = rule
        names.add(rule.name)
    return rules
