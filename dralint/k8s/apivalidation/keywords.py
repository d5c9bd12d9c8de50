"""The overlay's custom JSON Schema keywords, run by jsonschema-rs during validation.

A keyword reports through the exception jsonschema-rs turns into a ``Custom`` error. One
invocation may find several problems, so the exception text is a JSON list of issues (relative
path, rule, message builder and arguments); :mod:`dralint.k8s.apivalidation.schema` decodes it and
adds the absolute path. Keeping the rules inside schema validation means each one runs wherever
its type occurs (claims, templates, every served version) without a separate walker.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dralint.k8s.apivalidation import errors as E
from dralint.k8s.apivalidation.semantic import CHECKS, Issue

if TYPE_CHECKING:
    from jsonschema_rs import KeywordValidator


def _raise(issues: list[Issue]) -> None:
    if issues:
        raise ValueError(json.dumps([i._asdict() for i in issues], default=str))


def decode(message: str) -> list[Issue]:
    """Turn a custom keyword's error message back into issues."""
    try:
        raws = json.loads(message)
    except ValueError:  # the check itself raised: a dralint bug, reported as an internal error
        raise RuntimeError(f"an overlay check failed: {message}") from None
    return [Issue(**{**raw, "path": tuple(raw["path"]), "args": tuple(raw["args"])}) for raw in raws]


class _Keyword:
    """Base: jsonschema-rs constructs keywords with (parent schema, keyword value, schema path)."""

    def __init__(self, parent_schema: dict[str, Any], value: Any, schema_path: list[Any]) -> None:
        self.value = value

    def issues(self, instance: Any) -> list[Issue]:
        raise NotImplementedError

    def validate(self, instance: Any) -> None:
        """Called by jsonschema-rs; raising reports the issues."""
        _raise(self.issues(instance))


class Unique(_Keyword):
    """``x-dralint-unique: <key>`` (entries unique by that key) or ``true`` (entries unique)."""

    def issues(self, instance: Any) -> list[Issue]:
        if not isinstance(instance, list):
            return []
        seen: set[str] = set()
        found = []
        path: tuple[int | str, ...]
        for i, entry in enumerate(instance):
            if self.value is True:
                value, path = entry, (i,)
            elif isinstance(entry, dict) and self.value in entry:
                value, path = entry[self.value], (i, self.value)
            else:
                continue
            marker = json.dumps(value, sort_keys=True, default=str)
            if marker in seen:
                found.append(Issue(path, E.DUPLICATE, "duplicate", (value,)))
            seen.add(marker)
        return found


class OneOf(_Keyword):
    """``x-dralint-one-of: {fields: [...], required: bool}``: exactly one / at most one is set."""

    def issues(self, instance: Any) -> list[Issue]:
        if not isinstance(instance, dict):
            return []
        fields = self.value["fields"]
        # Go reads an empty list as unset (`len(x) == 0`), so `firstAvailable: []` chooses nothing.
        chosen = [f for f in fields if instance.get(f) is not None and instance.get(f) != []]
        if len(chosen) == 1 or not chosen and not self.value.get("required"):
            return []  # nearly every object, and the listing below is not needed
        listing = " or ".join(f"`{f}`" for f in fields)
        if not chosen:
            return [Issue((), E.ONE_OF, "required", (f"exactly one of {listing} is required",), key=True)]
        quantifier = "exactly" if self.value.get("required") else "at most"
        return [
            Issue(
                (),
                E.ONE_OF,
                "invalid",
                (
                    "{" + ", ".join(f"`{f}`" for f in chosen) + "}",
                    f"{quantifier} one of {listing} may be set, but multiple fields are set",
                ),
                key=True,
            )
        ]


class Check(_Keyword):
    """``x-dralint-check: <name>``: a function from :data:`dralint.k8s.apivalidation.semantic.CHECKS`."""

    def issues(self, instance: Any) -> list[Issue]:
        return CHECKS[self.value](instance)


class Gate(_Keyword):
    """``x-dralint-gate: <gate>``: the field is dropped by a 1.37 server unless the gate is on."""

    def issues(self, instance: Any) -> list[Issue]:
        return [
            Issue(
                (),
                E.FEATURE_GATED,
                "text",
                (
                    f"the API server drops this field unless feature gate {self.value} is enabled (off by "
                    "default in v1.37)",
                ),
                key=True,
                gate=self.value,
                hint=f"remove the field, or enable {self.value} on the cluster and pass --feature-gates "
                f"{self.value}=true",
            )
        ]


class ServerWritten(_Keyword):
    """``x-dralint-server-written: true``: status written by controllers, not by manifests."""

    def issues(self, instance: Any) -> list[Issue]:
        return [
            Issue(
                (),
                E.SERVER_WRITTEN,
                "text",
                ("is written by the server (status); it is ignored on create or rejected on apply",),
                key=True,
                hint="remove it from the manifest (it looks like the output of `kubectl get -o yaml`)",
            )
        ]


#: Typed as jsonschema-rs's protocol: ``validator_for`` takes a dict, which is invariant in its values.
KEYWORDS: dict[str, type[KeywordValidator]] = {
    "x-dralint-unique": Unique,
    "x-dralint-one-of": OneOf,
    "x-dralint-check": Check,
    "x-dralint-gate": Gate,
    "x-dralint-server-written": ServerWritten,
}
