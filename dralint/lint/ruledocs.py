"""Rule documentation rendered from the catalog: ``dralint explain`` and docs/rules.md."""

from __future__ import annotations

import json

from dralint.lint.catalog import Example, Rule


def _example_block(example: Example) -> str:
    """The manifest, and what it is linted with: the cluster state and the options, which are
    often all that tells a failing example from a passing one."""
    block = "```yaml\n" + example.manifest.rstrip() + "\n```"
    if example.slices:
        block += "\n\nwith this cluster state (`--slices`):\n```yaml\n" + example.slices.rstrip() + "\n```"
    options = dict(example.options)
    filename, config = options.pop("filename", None), options.pop("config", "")
    config += "".join(f"{name.replace('_', '-')}: {json.dumps(value)}\n" for name, value in sorted(options.items()))
    if filename:
        block = f"in a file named `{filename}`:\n" + block
    if config:
        block += "\n\nwith this configuration (`.dralint.yaml`):\n```yaml\n" + config.rstrip() + "\n```"
    return block


def severity_text(rule: Rule) -> str:
    """The default severity, with any profile that reports the rule at another one."""
    return rule.severity.value + "".join(
        f" ({profile}: {severity.value})" for profile, severity in rule.profile_severities
    )


def explain(rule: Rule) -> str:
    """The full text of a rule, in the order ruff uses: what, why, example, fix."""
    parts = [
        f"# {rule.id} {rule.name}",
        f"Severity: {severity_text(rule)}   Category: {rule.category}   Tags: {', '.join(rule.tags) or '-'}"
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
        lines.append(
            f"| [{rule.id}](#{rule.id.lower()}-{rule.name}) | {rule.name} | {rule.severity.value} | "
            f"{rule.category} | {rule.summary} |"
        )
    lines.append("")
    for rule in rules:
        lines.append(explain(rule).replace("# ", "## ", 1).replace("\n## ", "\n### "))
    return "\n".join(lines)


_PEER_HEADERS = {
    "kube-linter": "kube-linter",
    "kube-score": "kube-score",
    "polaris": "Polaris",
    "checkov": "Checkov",
    "kubescape": "Kubescape",
    "trivy": "Trivy",
}


def _ids(ids: tuple[str, ...]) -> str:
    return "<br>".join(f"`{i}`" for i in ids) if ids else "-"


def peer_table(rules: list[Rule], elsewhere: list[dict] | tuple = ()) -> str:
    """The table of docs/peers.md mapping each dralint rule to the peers' check ids it covers.

    ``elsewhere`` adds rows for checks another part of dralint owns whose catalog entries do not
    carry ``peers:`` yet: mappings with ``ids``, ``name``, ``profile`` and ``peers``.
    """
    tools = list(_PEER_HEADERS)
    lines = [
        "| dralint | name | default severity | profile | " + " | ".join(_PEER_HEADERS[t] for t in tools) + " |",
        "|---|---|---|---|" + "---|" * len(tools),
    ]
    for rule in rules:
        if not rule.peers:
            continue
        peers = dict(rule.peers)
        profile = "recommended" if rule.recommended else "strict"
        anchor = f"rules.md#{rule.id.lower()}-{rule.name}"
        lines.append(
            f"| [{rule.id}]({anchor}) | {rule.name} | {severity_text(rule)} | {profile} | "
            + " | ".join(_ids(peers.get(t, ())) for t in tools)
            + " |"
        )
    for row in elsewhere:
        peers = row.get("peers") or {}
        lines.append(
            f"| {row['ids']} | {row['name']} | see rules.md | {row['profile']} | "
            + " | ".join(_ids(tuple(peers.get(t, ()))) for t in tools)
            + " |"
        )
    return "\n".join(lines) + "\n"


#: The linters docs/peers.md accounts for check by check.
PARITY_TOOLS = ("kube-linter", "polaris", "kube-score")


def _where(rule: Rule) -> str:
    """Default severity and profile of a rule, as the parity table shows them."""
    return f"{severity_text(rule)}, {'recommended' if rule.recommended else 'strict only'}"


def _coverage(rules: list[Rule], elsewhere: list[dict] | tuple) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """``(tool, check id) -> [(dralint rule, severity and profile)]`` from every peers mapping."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for rule in rules:
        for tool, ids in rule.peers:
            for check in ids:
                out.setdefault((tool, check), []).append(
                    (f"[{rule.id}](rules.md#{rule.id.lower()}-{rule.name}) {rule.name}", _where(rule))
                )
    for row in elsewhere:
        for tool, ids in (row.get("peers") or {}).items():
            for check in ids:
                out.setdefault((tool, check), []).append((f"{row['ids']} {row['name']}", str(row["profile"])))
    return out


def unlisted_peer_checks(rules: list[Rule], checks: dict[str, list[dict]]) -> list[tuple[str, str]]:
    """Checks of the parity tools that a rule names but docs/peer-checks.yaml does not list."""
    listed = {(tool, str(entry["id"])) for tool, entries in checks.items() for entry in entries}
    named = {(tool, check) for rule in rules for tool, ids in rule.peers if tool in PARITY_TOOLS for check in ids}
    return sorted(named - listed)


def peer_parity(rules: list[Rule], checks: dict[str, list[dict]], elsewhere: list[dict] | tuple = ()) -> str:
    """docs/peers.md: every check of kube-linter, Polaris and kube-score and what covers it, then
    every dralint rule with the checks of those and other linters it covers (``peer_table``).

    ``checks`` is docs/peer-checks.yaml: per tool, entries with ``id`` and, for a check dralint
    deliberately has no rule for, ``none`` (the reason). Coverage comes only from the rules'
    ``peers:`` mappings, so a rule added or removed changes the table on the next generation.
    """
    coverage = _coverage(rules, elsewhere)
    sections, summary = [], []
    for tool in PARITY_TOOLS:
        entries = {str(e["id"]): e for e in checks.get(tool, [])}
        for missing_tool, check in unlisted_peer_checks(rules, checks):
            if missing_tool == tool:
                entries.setdefault(check, {"id": check})
        counts = {"covered": 0, "none": 0, "open": 0}
        lines = [
            f"## {_PEER_HEADERS[tool]}",
            "",
            "| check | dralint rule | default severity, profile |",
            "|---|---|---|",
        ]
        for check in sorted(entries, key=str.lower):
            covered = coverage.get((tool, check))
            if covered:
                counts["covered"] += 1
                lines.append(
                    f"| `{check}` | "
                    + "<br>".join(c for c, _ in covered)
                    + " | "
                    + "<br>".join(w for _, w in covered)
                    + " |"
                )
            elif entries[check].get("none"):
                counts["none"] += 1
                lines.append(f"| `{check}` | none: {entries[check]['none']} | - |")
            else:
                counts["open"] += 1
                lines.append(f"| `{check}` | not covered yet | - |")
        sections.append("\n".join(lines))
        summary.append(
            f"| {_PEER_HEADERS[tool]} | {len(entries)} | {counts['covered']} | {counts['open']} | {counts['none']} |"
        )
    head = [
        "# Peer parity: kube-linter, Polaris and kube-score",
        "",
        "Generated by `python tools/generate_docs.py` from the `peers:` mapping of every rule in `rules/`,",
        "`docs/peer-coverage-elsewhere.yaml` and the peers' check lists in `docs/peer-checks.yaml`; do not",
        "edit by hand (`tests/test_peer_parity.py` fails when this page is stale). A check is covered when",
        'a dralint rule names it under `peers:`; "not covered yet" means no rule does so today.',
        "",
        "| tool | checks | covered | not covered yet | no rule planned |",
        "|---|---|---|---|---|",
        *summary,
    ]
    by_rule = [
        "## Every dralint rule and the peers' checks it covers",
        "",
        "Each row maps a dralint rule to the checks of other tools that find the same problem, so an",
        "ignore list can be carried over. Rules without an equivalent elsewhere (every DRA rule) are in",
        "[rules.md](rules.md).",
        "",
        peer_table(rules, elsewhere).rstrip("\n"),
    ]
    return "\n".join(head) + "\n\n" + "\n\n".join([*sections, "\n".join(by_rule)]) + "\n"
