"""Reference resolution: found, missing, or not in scope, with the evidence of a mistake.

Peers call a reference "dangling" whenever its target was not in the files they read, which is
their most common false positive. dralint answers with one of three results instead:

* **found**: the target is among the run's objects (scanned, context or cluster state);
* **missing**: the run is known to hold every object of that kind (``Context.is_closed``);
* **not in scope**: nothing says the run is complete, so the target may simply not be scanned.

Independently of the world being open or closed, some evidence shows a mistake rather than an
unscanned file: the name exists in another namespace, an object of a sibling kind (a
ResourceClaim where a template was named) has the name, or a near-identical name exists in the
right namespace. Such a resolution is ``mistaken`` and callers report it as an error.

Weaker evidence only improves the message: the name exists in another namespace while the referrer
sets no namespace of its own (it lands wherever it is applied, so ``-n`` may well be meant), or a
similar but not typo-close name exists (``single-gpu`` for ``single-gpu-v2``).
"""

from __future__ import annotations

import enum
import re
from typing import Any, NamedTuple

from dralint.diagnostics import Finding, Related, Severity
from dralint.k8s.objects import KubeObject
from dralint.lint.catalog import load_catalog
from dralint.lint.context import Context
from dralint.yaml.loader import DataPath


class Status(enum.Enum):
    """The three answers a reference can get."""

    FOUND = "found"
    MISSING = "missing"
    NOT_IN_SCOPE = "not-in-scope"


class Evidence(NamedTuple):
    """An object that suggests what the user meant, and why."""

    obj: KubeObject
    reason: str  # other-namespace | namespace-unset | other-kind | near-name | similar-name

    def describe(self) -> str:
        where = f" in namespace {self.obj.namespace!r}" if self.obj.namespace else ""
        if self.reason in ("near-name", "similar-name"):
            return f"did you mean {self.obj.name!r}?"
        return f"a {self.obj.kind} named {self.obj.name!r} exists{where}"


class Resolution(NamedTuple):
    """Where a reference from one object to ``kind namespace/name`` leads."""

    kind: str
    namespace: str | None
    name: str
    status: Status
    target: KubeObject | None = None
    evidence: tuple[Evidence, ...] = ()
    creator: tuple[KubeObject, DataPath] | None = None  # found: made at run time by this object

    @property
    def found(self) -> bool:
        return self.status is Status.FOUND

    @property
    def mistaken(self) -> bool:
        """Not found, and the run shows what was probably meant."""
        return not self.found and any(e.reason not in HINT_ONLY for e in self.evidence)

    @property
    def is_error(self) -> bool:
        return not self.found and (self.status is Status.MISSING or self.mistaken)

    @property
    def display(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"

    def message(self, what: str) -> str:
        """A sentence for an unresolved reference; ``what`` names the referring field."""
        scope = f" in namespace {self.namespace!r}" if self.namespace else ""
        head = f"{what} refers to {self.kind} {self.name!r}, which does not exist{scope}"
        if not self.mistaken and self.status is not Status.MISSING:
            head = f"{what} refers to {self.kind} {self.name!r}{scope}, which is not among the scanned files"
        if self.evidence:
            elsewhere = list(
                dict.fromkeys(
                    e.obj.namespace for e in self.evidence if e.reason in ("other-namespace", "namespace-unset")
                )
            )
            parts = [e.describe() for e in self.evidence if e.reason not in ("other-namespace", "namespace-unset")]
            if elsewhere:
                listed = ", ".join(repr(n) for n in elsewhere)
                unset = (
                    " (the referring object sets no metadata.namespace, so it goes wherever it is applied)"
                    if self.evidence[0].reason == "namespace-unset"
                    else ""
                )
                parts.insert(
                    0,
                    f"a {self.kind} of that name exists in namespace{'s' if len(elsewhere) > 1 else ''} "
                    f"{listed}{unset}",
                )
            return head + "; " + "; ".join(parts)
        if self.status is Status.MISSING:
            return head + f" (the run holds every {self.kind}: cluster state or --closed-world)"
        return (
            f"{what} refers to {self.kind} {self.name!r}{scope}, which is not among the scanned files, "
            "so it could not be checked"
        )

    def hint(self) -> str:
        """What to do about it, depending on the evidence."""
        for item in self.evidence:
            if item.reason in ("near-name", "similar-name"):
                return f"correct the name to {item.obj.name!r} if that is the intended {self.kind}"
            if item.reason == "namespace-unset":
                return (
                    f"set `metadata.namespace: {item.obj.namespace}` on the referring object, or apply it with "
                    f"`kubectl apply -n {item.obj.namespace}`"
                )
            if item.reason == "other-namespace":
                return (
                    f"{self.kind} references do not cross namespaces: set `metadata.namespace: {item.obj.namespace}` "
                    f"on the referring object, or create the {self.kind} in namespace {self.namespace!r}"
                )
            if item.reason == "other-kind":
                return f"use the field that refers to a {item.obj.kind}, or create the {self.kind}"
        if self.status is Status.MISSING:
            return f"create the {self.kind} or correct the name"
        return (
            f"add the file that defines it to the run (or pass it with --context); if the run holds "
            f"every {self.kind}, pass --closed-world {self.kind} to make this an error"
        )

    def related(self) -> tuple[Related, ...]:
        """Pointers at the target (found) or at the evidence (a likely mistake)."""
        if self.target is not None:
            return (self.target.related(("metadata", "name"), f"{self.target.display} is defined here"),)
        if self.creator is not None:
            owner, path = self.creator
            return (owner.related(path, f"{owner.display} creates {self.display}"),)
        return tuple(e.obj.related(("metadata", "name"), e.describe()) for e in self.evidence)


#: Objects whose controllers create another object under a name taken from their spec:
#: (kind, API group, path of the name, kind created in the same namespace).
CREATORS: tuple[tuple[str, str, DataPath, str], ...] = (
    (
        "ComputeDomain",
        "resource.nvidia.com",
        ("spec", "channel", "resourceClaimTemplate", "name"),
        "ResourceClaimTemplate",
    ),
    ("Certificate", "cert-manager.io", ("spec", "secretName"), "Secret"),
    ("ExternalSecret", "external-secrets.io", ("spec", "target", "name"), "Secret"),
    ("ExternalSecret", "external-secrets.io", ("metadata", "name"), "Secret"),  # target.name defaults to it
    ("SealedSecret", "bitnami.com", ("metadata", "name"), "Secret"),
)


def _created(ctx: Context) -> dict[tuple[str, str | None, str], tuple[KubeObject, DataPath]]:
    """(kind, namespace, name) of objects that some object of the run creates at run time."""

    def build() -> dict[tuple[str, str | None, str], tuple[KubeObject, DataPath]]:
        out: dict[tuple[str, str | None, str], tuple[KubeObject, DataPath]] = {}
        for owner_kind, group, path, created_kind in CREATORS:
            for owner in ctx.by_kind(owner_kind):
                name = owner.get(path)
                if owner.group == group and isinstance(name, str) and name:
                    out.setdefault((created_kind, owner.namespace, name), (owner, path))
        return out

    return ctx.memo(("refs", "created"), build)


class _Index:
    """Per-kind lookups that resolution needs for every unresolved reference."""

    __slots__ = ("by_name", "by_namespace", "closed", "cache", "spellings", "lookups")

    def __init__(
        self, by_name: dict[str, list[KubeObject]], by_namespace: dict[str | None, list[KubeObject]], closed: bool
    ) -> None:
        self.by_name = by_name  # name -> objects of the kind, every namespace
        self.by_namespace = by_namespace
        self.closed = closed
        self.cache: dict[tuple, Resolution] = {}
        self.spellings: dict[str | None, dict[str, list[KubeObject]]] = {}  # namespace -> deletion variant -> objects
        self.lookups: dict[str | None, int] = {}  # namespace -> near() calls so far

    def near(self, namespace: str | None, name: str) -> KubeObject | None:
        """The closest plausible typo-correction of ``name`` among the namespace's objects.

        The first few look-ups in a namespace compare ``name`` with the objects of similar
        length; a namespace asked about often gets a deletion-variant index (every spelling
        with up to one or two characters removed), which finds candidates without comparing
        with every object but costs far more to build than a handful of comparisons.
        """
        asked = self.lookups.get(namespace, 0) + 1
        self.lookups[namespace] = asked
        if namespace not in self.spellings and asked <= _LINEAR_LOOKUPS:
            similar = [o for o in self.by_namespace.get(namespace, []) if abs(len(o.name) - len(name)) <= 2]
            return _nearest(name, similar)
        if namespace not in self.spellings:
            variants: dict[str, list[KubeObject]] = {}
            for obj in self.by_namespace.get(namespace, []):
                for variant in _deletions(obj.name.lower()):
                    variants.setdefault(variant, []).append(obj)
            self.spellings[namespace] = variants
        table = self.spellings[namespace]
        candidates = {id(o): o for v in _deletions(name.lower()) for o in table.get(v, ())}
        return _nearest(name, list(candidates.values()))

    def similar(self, namespace: str | None, name: str) -> KubeObject | None:
        """A name in the namespace that is ``name`` with one word added or dropped at either end
        (``single-gpu`` for ``single-gpu-v2``): worth a "did you mean", not proof of a mistake.
        Several such names: the most alike one."""
        objects = {o.name: o for o in self.by_namespace.get(namespace, []) if _one_word_apart(name, o.name)}
        import difflib  # only when a reference misses

        match = difflib.get_close_matches(name, list(objects), n=1, cutoff=0)
        return objects[match[0]] if match else None


#: Evidence that improves the message but does not show a mistake on its own.
HINT_ONLY = frozenset({"namespace-unset", "similar-name"})


#: Typo look-ups per namespace answered by comparison before the variant index pays off.
_LINEAR_LOOKUPS = 16


def _index(ctx: Context, kind: str) -> _Index:
    def build() -> _Index:
        by_name: dict[str, list[KubeObject]] = {}
        by_namespace: dict[str | None, list[KubeObject]] = {}
        for obj in ctx.by_kind(kind):
            by_name.setdefault(obj.name, []).append(obj)
            by_namespace.setdefault(obj.namespace, []).append(obj)
        return _Index(by_name, by_namespace, ctx.is_closed(kind))

    return ctx.memo(("refs", "index", kind), build)


def resolve(
    ctx: Context,
    kind: str,
    namespace: str | None,
    name: str,
    *,
    sibling_kinds: tuple[str, ...] = (),
    referrer: KubeObject | None = None,
) -> Resolution:
    """Resolve ``kind namespace/name`` against every object of the run.

    ``sibling_kinds`` are kinds a user plausibly confuses with ``kind`` (template vs claim);
    ``referrer`` (the referring object) puts evidence from its own file first. Results are
    cached per run, since many pods usually name the same few targets.
    """
    target = ctx.find(kind, namespace, name)
    if target is not None:
        if referrer is not None and target.path != referrer.path:
            # Several objects with one identity (copies, overlays, revisions): the one beside
            # the reference is the one it was written against.
            target = next(
                (
                    o
                    for o in _index(ctx, kind).by_name.get(name, [])
                    if o.namespace == namespace and o.path == referrer.path
                ),
                target,
            )
        return Resolution(kind, namespace, name, Status.FOUND, target)
    creator = _created(ctx).get((kind, namespace, name))
    if creator is not None:
        return Resolution(kind, namespace, name, Status.FOUND, creator=creator)
    if kind == "DeviceClass" and not _index(ctx, kind).closed:
        from dralint.lint.drivers import installed_classes  # the catalog loads only when a class is not in the run

        if installed_classes(ctx, name):  # a driver's chart installs it; findings on its selectors say which
            return Resolution(kind, namespace, name, Status.FOUND)
    # A referrer without metadata.namespace lands wherever it is applied (`kubectl -n`), so a
    # target in another namespace is then no evidence of a mistake.
    pinned = referrer is None or isinstance(referrer.get(("metadata", "namespace")), str)
    index = _index(ctx, kind)
    key = (namespace, name, sibling_kinds, pinned, referrer.path if referrer is not None else None)
    if key not in index.cache:
        evidence: list[Evidence] = []
        if namespace is not None:
            elsewhere = [o for o in index.by_name.get(name, []) if o.namespace != namespace]
            if referrer is not None:
                elsewhere.sort(key=lambda o: (o.path != referrer.path, o.namespace or ""))
            evidence += [Evidence(o, "other-namespace" if pinned else "namespace-unset") for o in elsewhere[:3]]
        for sibling in sibling_kinds:
            other = ctx.find(sibling, namespace, name)
            if other is not None:
                evidence.append(Evidence(other, "other-kind"))
        near = index.near(namespace, name)
        if near is not None:
            evidence.append(Evidence(near, "near-name"))
        elif not evidence:
            similar = index.similar(namespace, name)
            if similar is not None:
                evidence.append(Evidence(similar, "similar-name"))
        status = Status.MISSING if index.closed else Status.NOT_IN_SCOPE
        index.cache[key] = Resolution(kind, namespace, name, status, None, tuple(evidence))
    return index.cache[key]


def reference_finding(
    obj: KubeObject,
    path: DataPath,
    resolution: Resolution,
    what: str,
    *,
    missing_rule: str,
    scope_rule: str,
    key: bool = False,
) -> Finding | None:
    """The finding for an unresolved reference at ``path`` (its key when the name is the key):
    ``missing_rule`` when the target is missing or the evidence shows a mistake, ``scope_rule``
    when it is merely not in scope."""
    if resolution.found:
        return None
    # A name one word longer or shorter than an object of the namespace (``vllm-inference`` for
    # ``vllm``) is weaker evidence than a typo, yet a "did you mean" the user should see: where
    # scope_rule is an info (hidden by the default profile), a warning of the reference's own
    # rule, never more; a reference with no near name stays in scope_rule.
    suggests = (
        not resolution.is_error
        and any(e.reason == "similar-name" for e in resolution.evidence)
        and load_catalog()[scope_rule].severity is Severity.INFO
    )
    rule = missing_rule if resolution.is_error or suggests else scope_rule
    return obj.finding(
        path,
        resolution.message(what),
        hint=resolution.hint(),
        rule=rule,
        related=resolution.related(),
        key=key,
        severity=Severity.WARNING if suggests else None,
    )


def _deletions(word: str) -> set[str]:
    """``word`` with up to one character removed (two for names of 12+ characters): two names
    within the typo distance always share one of these variants."""
    out = {word}
    frontier = {word}
    for _ in range(2 if len(word) >= 12 else 1):
        frontier = {w[:i] + w[i + 1 :] for w in frontier for i in range(len(w))}
        out |= frontier
    return out


def _nearest(name: str, candidates: list[KubeObject]) -> KubeObject | None:
    best: tuple[int, str, KubeObject] | None = None
    for obj in candidates:
        if not looks_like_typo(name, obj.name):
            continue
        distance = edit_distance(name, obj.name)
        if best is None or (distance, obj.name) < best[:2]:
            best = (distance, obj.name, obj)
    return best[2] if best else None


def looks_like_typo(wrong: str, right: str) -> bool:
    """Whether ``right`` is a near-identical spelling of ``wrong``.

    One edit for short names, two for names of 12+ characters. Names that differ only in
    digits (``gpu-1`` vs ``gpu-2``) or in separators (``dra.net`` vs ``dranet``, both real
    DeviceClass names in the wild) are deliberate siblings, not typos.
    """
    if wrong == right or min(len(wrong), len(right)) < 3 or abs(len(wrong) - len(right)) > 2:
        return False
    if _strip_digits(wrong) == _strip_digits(right) or _strip_separators(wrong) == _strip_separators(right):
        return False
    if _differ_in_one_short_word(wrong, right):
        return False
    limit = 2 if min(len(wrong), len(right)) >= 12 else 1
    return edit_distance(wrong.lower(), right.lower()) <= limit


def _differ_in_one_short_word(a: str, b: str) -> bool:
    """Whether the names differ only in one separator-delimited word of at most three letters.

    ``cpu.example.com`` and ``gpu.example.com``, ``tpu-v5`` and ``gpu-v5``: short words name
    different things (device types, sizes), so one letter apart there is a sibling, not a typo.
    """
    words_a, words_b = re.split(r"[.\-_/]", a.lower()), re.split(r"[.\-_/]", b.lower())
    if len(words_a) != len(words_b):
        return False
    differing = [(x, y) for x, y in zip(words_a, words_b, strict=True) if x != y]
    return len(differing) == 1 and max(len(differing[0][0]), len(differing[0][1])) <= 3


def looks_alike(wrong: str, right: str) -> bool:
    """A typo (``looks_like_typo``) or one word more or less at either end: what earns a
    "did you mean" (see docs/general-checks.md, *How near is near*)."""
    return looks_like_typo(wrong, right) or _one_word_apart(wrong, right)


def _one_word_apart(a: str, b: str) -> bool:
    """Whether one name is the other with one separator-delimited word more at its start or end."""
    words_a, words_b = re.split(r"[.\-_/]", a.lower()), re.split(r"[.\-_/]", b.lower())
    short, long = sorted((words_a, words_b), key=len)
    return len(long) == len(short) + 1 and short in (long[:-1], long[1:])


def _strip_separators(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch not in ".-_")


def _strip_digits(text: str) -> str:
    return "".join(ch for ch in text if not ch.isdigit())


def edit_distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): a swap counts as one edit."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def resolve_pod_claim(ctx: Context, referrer: KubeObject, entry: dict[str, Any]) -> tuple[str, str, Resolution] | None:
    """Resolve one ``spec.resourceClaims[]`` entry of ``referrer``'s pods: (field, name,
    resolution), or None when the entry names nothing."""
    for field_name, kind, sibling in (
        ("resourceClaimTemplateName", "ResourceClaimTemplate", "ResourceClaim"),
        ("resourceClaimName", "ResourceClaim", "ResourceClaimTemplate"),
    ):
        name = entry.get(field_name)
        if isinstance(name, str) and name:
            return (
                field_name,
                name,
                resolve(ctx, kind, referrer.namespace, name, sibling_kinds=(sibling,), referrer=referrer),
            )
    return None
