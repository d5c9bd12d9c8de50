"""Names given in lists: rule selectors, kinds and feature gates, checked before a run.

A misspelt ``--select BOGUS99`` or a comma list read as one name used to select nothing and
let the gate pass with score 100. Every option that takes a list accepts comma-separated
values (as ruff and kube-linter do), and a name that means nothing is reported with the
nearest valid spelling.
"""

from __future__ import annotations

from collections.abc import Iterable

from dralint.lint.catalog import Rule
from dralint.lint.engine import rule_matches
from dralint.lint.refs import edit_distance


def split_names(values: Iterable[str]) -> list[str]:
    """``["SEC002,SEC003", " REL "]`` -> ``["SEC002", "SEC003", "REL"]`` (empty parts dropped)."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """`` did you mean 'X'?`` for the closest choice (case-insensitive, at most a third of the
    name's characters edited), or an empty string."""
    distances = sorted((edit_distance(name.lower(), choice.lower()), choice) for choice in set(choices))
    if distances and distances[0][0] <= max(1, len(name) // 3):
        return f" did you mean {distances[0][1]!r}?"
    return ""


def selector_words(rules: Iterable[Rule]) -> set[str]:
    """Every word that selects a rule: ids, families, kebab names, categories and tags."""
    words: set[str] = set()
    for rule in rules:
        family = rule.id.rstrip("0123456789")
        words.update((rule.id, family, rule.name, rule.category, *rule.tags))
    return words


def unknown_selectors(names: Iterable[str], rules: Iterable[Rule]) -> list[str]:
    """The selectors among ``names`` that match no rule."""
    catalog = list(rules)
    return [name for name in names if not any(rule_matches(rule, name) for rule in catalog)]
