"""Rule documentation rendered from the catalog: ``dralint explain`` and docs/rules.md."""

from __future__ import annotations

from dralint.catalog import Example, Rule


def _example_block(example: Example) -> str:
    return "```yaml\n" + example.manifest.rstrip() + "\n```"


def explain(rule: Rule) -> str:
    """The full text of a rule, in the order ruff uses: what, why, example, fix."""
    parts = [
        f"# {rule.id} {rule.name}",
        f"Severity: {rule.severity.value}   Category: {rule.category}   Tags: {', '.join(rule.tags) or '-'}"
        + ("   (strict profile only)" if not rule.recommended else "")
        + ("   (fixable)" if rule.fixable else ""),
        "## What it does\n" + rule.summary,
        "## Why it matters\n" + rule.rationale,
    ]
    if rule.bad:
        parts.append("## Example\n" + _example_block(rule.bad[0]))
    if rule.good:
        parts.append("## Use instead\n" + _example_block(rule.good[0]))
    parts.append("## How to fix\n" + rule.fix)
    return "\n\n".join(parts) + "\n"


def rules_markdown(rules: list[Rule]) -> str:
    """docs/rules.md: an index table, then every rule's full text."""
    lines = [
        "# dralint rules",
        "",
        "Generated from `rules/` by `python tools/generate_docs.py`; do not edit by hand.",
        "",
        "| id | name | severity | category | summary |",
        "|---|---|---|---|---|",
    ]
    for rule in rules:
        lines.append(f"| [{rule.id}](#{rule.id.lower()}-{rule.name}) | {rule.name} | {rule.severity.value} | {rule.category} | {rule.summary} |")
    lines.append("")
    for rule in rules:
        lines.append(explain(rule).replace("# ", "## ", 1).replace("\n## ", "\n### "))
    return "\n".join(lines)
