"""Suppressions: comments, object annotations and per-path config, applied after the run.

Peer linters' ignore annotations fail silently (a typo, the wrong object, a pod template that
the annotation does not reach), and old ignores outlive the problem they hid. So here every
suppression is checked both ways: it silences what it names, and a suppression that silences
nothing, is malformed, or names no rule is itself a finding. ``until=DATE`` makes a
suppression expire, after which the finding comes back together with a note.

Forms (a ``#`` inside a string value, such as a script in a ``|`` block, is text, not a comment):

- ``# dralint: ignore[RULE,...] [until=YYYY-MM-DD] [reason]`` at the end of the offending
  line, or alone on the line above it;
- ``# dralint: ignore-file[RULE,...] ...`` anywhere in a file;
- annotations ``dralint.io/ignore: "RULE,..."`` (with ``dralint.io/ignore-reason`` and
  ``dralint.io/ignore-until``) on an object, covering the whole object including its pod
  templates, or on a pod template's metadata, covering that template;
- ``per-path-ignores: {GLOB: [RULE, ...]}`` in the config file (an external suppression).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import fnmatch
import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from dralint.diagnostics import Diagnostic, Finding, Span, Suppressed
from dralint.k8s.objects import KubeObject, pod_templates
from dralint.lint.catalog import Rule, load_catalog
from dralint.lint.config import UNKNOWN_RULE
from dralint.lint.engine import RunResult, enabled_rules, rule_matches
from dralint.lint.fingerprint import normal_path
from dralint.lint.options import LintOptions
from dralint.yaml.loader import Document, SourceText, iter_paths

IGNORE_ANNOTATION = "dralint.io/ignore"
REASON_ANNOTATION = "dralint.io/ignore-reason"
UNTIL_ANNOTATION = "dralint.io/ignore-until"

_COMMENT_RE = re.compile(r"(?:^|(?<=\s))#\s*dralint\s*:\s*(?P<verb>ignore-file|ignore)\b(?P<rest>.*)$")
_ARGS_RE = re.compile(r"^\[(?P<ids>[^\]]*)\](?:\s+until=(?P<until>\S+))?(?:\s+(?P<reason>.*))?$")

UNUSED, EXPIRED, MALFORMED = "CFG003", "CFG004", "CFG005"


class Suppression:
    """One written suppression: what it names, where it is written, and what it covers.

    ``kind`` is SARIF's (inSource | external); ``form`` is how a message names it ("comment",
    "annotation", ...); ``used`` collects the selectors that silenced a diagnostic.
    """

    __slots__ = ("selectors", "span", "covers", "kind", "form", "reason", "until", "used")

    def __init__(
        self,
        selectors: tuple[str, ...],
        span: Span,
        covers: Callable[[Diagnostic], bool],
        kind: str,
        form: str,
        reason: str = "",
        until: dt.date | None = None,
    ) -> None:
        self.selectors = selectors
        self.span = span
        self.covers = covers
        self.kind = kind
        self.form = form
        self.reason = reason
        self.until = until
        self.used: set[str] = set()

    def selector_for(self, diag: Diagnostic, catalog: dict[str, Rule]) -> str | None:
        """The selector of this suppression that names ``diag``'s rule, if any."""
        rule = catalog.get(diag.rule)
        for selector in self.selectors:
            if selector == diag.rule or (rule is not None and rule_matches(rule, selector)):
                return selector
        return None

    @property
    def justification(self) -> str:
        until = f" (until {self.until.isoformat()})" if self.until else ""
        return (self.reason or f"suppressed by {self.form}") + until


class Outcome(NamedTuple):
    """What the suppression stage leaves: active diagnostics, suppressed ones, its own findings."""

    active: list[Diagnostic]
    suppressed: list[Suppressed]
    findings: list[Finding]


def _parse_date(text: str | None) -> tuple[dt.date | None, bool]:
    """(date, ok); no text is a valid "no expiry"."""
    if text is None:
        return None, True
    try:
        return dt.date.fromisoformat(text.strip()), True
    except ValueError:
        return None, False


def _selectors(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _code_lines(source: SourceText) -> list[int]:
    """1-based numbers of lines that hold YAML content (not blank, not comment-only)."""
    out = []
    for number in range(1, len(source.line_starts) + 1):
        stripped = source.line_text(number).strip()
        if stripped and not stripped.startswith("#"):
            out.append(number)
    return out


def _on_line(path: str, line: int) -> Callable[[Diagnostic], bool]:
    return lambda d: d.span.path == path and d.span.line == line


def _in_file(path: str) -> Callable[[Diagnostic], bool]:
    return lambda d: d.span.path == path


def _string_extents(doc: Document) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) of each string value holding a ``#``; a block scalar's text starts on the
    line after its ``|`` or ``>``, where a comment may still follow the indicator."""
    for path, value in iter_paths(doc.data):
        if isinstance(value, str) and "#" in value:
            span = doc.locate(path)
            start = (span.line + 1, 1) if doc.value_style(path) in ("|", ">") else (span.line, span.column)
            yield start, (span.end_line, span.end_column)


def in_string(documents: Iterable[Document]) -> Callable[[int, int], bool]:
    """Whether a 1-based (line, column) lies inside a string value, where ``#`` is text and
    not a comment: a shell script in a ``|`` block, a quoted message."""
    extents = [extent for doc in documents for extent in _string_extents(doc)]
    return lambda line, col: any(start <= (line, col) < end for start, end in extents)


def comment_suppressions(
    source: SourceText, findings: list[Finding], documents: Iterable[Document] = ()
) -> list[Suppression]:
    """Suppressions written as comments in one file; malformed ones become findings."""
    out: list[Suppression] = []
    if "dralint" not in source.text:  # the common case, decided without splitting lines
        return out
    code_lines = _code_lines(source)
    inside_string: Callable[[int, int], bool] | None = None
    for number in range(1, len(source.line_starts) + 1):
        text = source.line_text(number)
        match = _COMMENT_RE.search(text) if "dralint" in text else None
        if match is None:
            continue
        inside_string = inside_string or in_string(documents)
        if inside_string(number, match.start() + 1):
            continue
        span = Span(source.path, number, match.start() + 1, number, len(text) + 1)
        args = _ARGS_RE.match(match.group("rest").strip())
        verb = match.group("verb")
        until, date_ok = _parse_date(args.group("until") if args else None)
        if args is None or not _selectors(args.group("ids")) or not date_ok:
            why = "its date is not YYYY-MM-DD" if args is not None and not date_ok else "it names no rule in brackets"
            findings.append(
                Finding(
                    f"this `dralint: {verb}` comment is ignored because {why}",
                    span,
                    hint=f"write `# dralint: {verb}[RULE-ID] until=2027-01-31 reason` (until and reason are optional)",
                    rule=MALFORMED,
                )
            )
            continue
        if verb == "ignore-file":
            covers, form = _in_file(source.path), "ignore-file comment"
        else:
            own_line = not text[: match.start()].strip()
            target = next((n for n in code_lines if n > number), None) if own_line else number
            if target is None:
                findings.append(
                    Finding(
                        "this `dralint: ignore` comment has no line below it to cover",
                        span,
                        hint="put the comment on the offending line or on the line above it",
                        rule=MALFORMED,
                    )
                )
                continue
            covers, form = _on_line(source.path, target), f"comment on line {number}"
        out.append(
            Suppression(
                _selectors(args.group("ids")),
                span,
                covers,
                "inSource",
                form,
                (args.group("reason") or "").strip(),
                until,
            )
        )
    return out


def _within(outer: Span) -> Callable[[Diagnostic], bool]:
    start, end = (outer.line, outer.column), (outer.end_line, outer.end_column)
    return lambda d: d.span.path == outer.path and start <= (d.span.line, d.span.column) < end


def _on_object(obj: KubeObject) -> Callable[[Diagnostic], bool]:
    """An object's annotation covers the findings inside its text and those attributed to it."""
    inside, ref = _within(obj.span(())), obj.ref
    return lambda d: inside(d) or d.object == ref


def _annotation(
    obj: KubeObject, meta_path: tuple, covers: Callable[[Diagnostic], bool], what: str, findings: list[Finding]
) -> Suppression | None:
    """The suppression written in the annotations at ``meta_path`` of ``obj``, if any."""
    annotations = obj.get(meta_path + ("annotations",))
    if not isinstance(annotations, dict) or IGNORE_ANNOTATION not in annotations:
        return None
    value = annotations[IGNORE_ANNOTATION]
    where = meta_path + ("annotations", IGNORE_ANNOTATION)
    until_text = annotations.get(UNTIL_ANNOTATION)
    until, date_ok = _parse_date(str(until_text) if until_text is not None else None)
    selectors = _selectors(value) if isinstance(value, str) else ()
    if not selectors or not date_ok:
        bad_path = where if not selectors else meta_path + ("annotations", UNTIL_ANNOTATION)
        why = (
            "it names no rule (a comma-separated string of rule ids)" if not selectors else "its date is not YYYY-MM-DD"
        )
        findings.append(
            obj.finding(
                bad_path,
                f"the {IGNORE_ANNOTATION} annotation {what} is ignored because {why}",
                hint=f'{IGNORE_ANNOTATION}: "SEC001,REL002" with {UNTIL_ANNOTATION}: "2027-01-31"',
                rule=MALFORMED,
            )
        )
        return None
    reason = annotations.get(REASON_ANNOTATION)
    return Suppression(
        selectors,
        obj.span(where),
        covers,
        "inSource",
        f"annotation {what}",
        str(reason).strip() if reason else "",
        until,
    )


def annotation_suppressions(objects: Iterable[KubeObject], findings: list[Finding]) -> list[Suppression]:
    """Suppressions from object annotations and pod-template annotations."""
    out: list[Suppression] = []
    for obj in objects:
        found = _annotation(obj, ("metadata",), _on_object(obj), f"on {obj.display}", findings)
        if found:
            out.append(found)
        for template in pod_templates(obj):
            if template.metadata_path is None:
                continue
            found = _annotation(
                obj,
                template.metadata_path,
                _within(obj.span(template.metadata_path[:-1])),
                f"on the pod template of {template.label}",
                findings,
            )
            if found:
                out.append(found)
    return out


def path_suppressions(options: LintOptions, locate: Callable[[str], Span | None]) -> list[Suppression]:
    """Config ``per-path-ignores``: external suppressions by path glob."""
    out = []
    for pattern, selectors in options.per_path_ignores.items():

        def covers(d: Diagnostic, p: str = pattern) -> bool:
            return fnmatch.fnmatch(normal_path(d.span.path), p) or fnmatch.fnmatch(d.span.path, p)

        span = locate(pattern)
        out.append(
            Suppression(
                tuple(selectors),
                span or Span("<config>", 1, 1, 1, 1),
                covers,
                "external",
                f"per-path-ignores {pattern!r} in the config",
                f"per-path-ignores: {pattern}",
            )
        )
    return out


def _meta_findings(
    suppressions: list[Suppression], enabled: dict[str, Rule], catalog: dict[str, Rule], today: dt.date
) -> list[Finding]:
    """Unknown, unused and expired suppressions, each at the place it is written."""
    out = []
    for sup in suppressions:
        if sup.span.path == "<config>":
            continue
        if sup.until is not None and sup.until < today:
            out.append(
                Finding(
                    f"the suppression of {', '.join(sup.selectors)} ({sup.form}) expired on "
                    f"{sup.until.isoformat()}; its findings are reported again",
                    sup.span,
                    hint="fix the findings, or extend the date if the exception still holds",
                    rule=EXPIRED,
                )
            )
            continue
        for selector in sup.selectors:
            named = [r for r in catalog.values() if r.id == selector or rule_matches(r, selector)]
            if not named:
                out.append(
                    Finding(
                        f"the suppression ({sup.form}) names {selector!r}, which is no dralint rule",
                        sup.span,
                        hint="`dralint rules` lists the rule ids",
                        rule=UNKNOWN_RULE,
                    )
                )
            elif selector not in sup.used and any(r.id in enabled for r in named):
                out.append(
                    Finding(
                        f"the suppression of {selector} ({sup.form}) matches no finding; remove it so it "
                        "cannot hide a future one",
                        sup.span,
                        hint="delete the suppression, or move it to the line the finding is on",
                        rule=UNUSED,
                    )
                )
    return out


def _as_rendered(diag: Diagnostic) -> Diagnostic:
    """A finding in a render at its rendered place, where the annotations of the rendered
    object (and the comments of a piped-in render) apply."""
    assert diag.rendered is not None
    return dataclasses.replace(diag, span=diag.rendered)


def apply(
    result: RunResult,
    options: LintOptions,
    today: dt.date,
    locate_config: Callable[[str], Span | None] = lambda _: None,
) -> Outcome:
    """Split the run's diagnostics into active and suppressed; report suppression problems."""
    catalog = load_catalog()
    findings: list[Finding] = []
    suppressions: list[Suppression] = []
    # Only a file that names dralint can hold a suppression, as a comment or an annotation; the
    # objects of the others are not looked at (sorting 10,000 objects by file took 10 ms).
    named = {source.path for source in result.sources.values() if "dralint" in source.text}
    documents: dict[str, list[Document]] = {}
    for obj in result.context.objects if named else ():
        if obj.path in named:
            documents.setdefault(obj.path, []).append(obj.doc)  # one each: a List's items are documents of their own
    for source in result.sources.values():
        render = result.renders.get(source.path)
        if render is not None and render.generated:
            continue  # its comments are the templates' own, read from the templates
        suppressions.extend(comment_suppressions(source, findings, documents.get(source.path, ())))
    annotated = {path for path in named if IGNORE_ANNOTATION in result.sources[path].text}
    if annotated:
        suppressions.extend(
            annotation_suppressions(
                (o for o in result.context.objects if o.origin != "context" and o.path in annotated), findings
            )
        )
    suppressions.extend(path_suppressions(options, locate_config))
    live = [s for s in suppressions if s.until is None or s.until >= today]
    # Most runs have nothing to match: their findings (70,000 in a large run) are all active.
    active, suppressed = _split(result.diagnostics, live, catalog) if live else (list(result.diagnostics), [])
    findings.extend(_meta_findings(suppressions, enabled_rules(options, catalog), catalog, today))
    return Outcome(active, suppressed, findings)


def _split(
    diagnostics: list[Diagnostic], live: list[Suppression], catalog: dict[str, Rule]
) -> tuple[list[Diagnostic], list[Suppressed]]:
    """``diagnostics`` no suppression in ``live`` covers, and the ones some does, each with the
    first that does; every suppression that covers one is marked used."""
    active: list[Diagnostic] = []
    suppressed: list[Suppressed] = []
    for diag in diagnostics:
        hit = None
        for sup in live:
            selector = sup.selector_for(diag, catalog)
            if selector is not None and (
                sup.covers(diag) or (diag.rendered is not None and sup.covers(_as_rendered(diag)))
            ):
                sup.used.add(selector)
                hit = hit or sup
        if hit is None:
            active.append(diag)
        else:
            suppressed.append(Suppressed(diag, hit.kind, hit.justification))
    return active, suppressed
