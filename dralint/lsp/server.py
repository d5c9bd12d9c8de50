"""The language server: the protocol's requests and notifications, answered from the
workspace lint (``workspace``), the cursor (``cursor``) and the features (``features``).

One process, one event loop, one lint at a time: a document is linted when it opens, a
moment (``debounceMs``) after the last of a burst of changes, and again when a file it may
refer to changes. Nothing a document, the config or a check does may stop the server: each
handler turns an exception into a logged message (and a lint that fails into a diagnostic).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from dralint import __version__, bundled_dir
from dralint.diagnostics import Diagnostic, Replacement, Span
from dralint.fix.runner import fix_replacements
from dralint.lint.context import Context
from dralint.lint.drivers import run_catalog
from dralint.lsp import cursor, features
from dralint.lsp.convert import Lines, diagnostic, edits, plain_range, uri_of
from dralint.lsp.devices import CatalogSource, Knowledge, ObjectSource
from dralint.lsp.workspace import Linted, Workspace, display

#: Documents larger than this are not linted as they are typed (``maxDocumentSize``): reading
#: costs about twenty times a document's size, and the editor waits for every keystroke.
MAX_DOCUMENT_BYTES = 4 << 20
#: Pause after the last change of a burst before a document is linted again (``debounceMs``).
DEBOUNCE_SECONDS = 0.05
#: The languages dralint lints; other documents get no diagnostics.
LANGUAGES = frozenset({"yaml", "json", "jsonc", "helm"})
_SUFFIXES = (".yaml", ".yml", ".json")

T = TypeVar("T")


def _rules_page() -> str | None:
    """docs/rules.md, the page rule codes link to (a wheel carries a copy, see ``bundled_dir``)."""
    docs = bundled_dir("docs")
    page = docs / "rules.md" if docs else None
    return page.as_uri() if page and page.is_file() else None


class DralintServer(LanguageServer):
    """The server's state: the workspace, each open document's last lint, pending lints."""

    def __init__(self) -> None:
        super().__init__("dralint", __version__)
        self.space = Workspace(None, self.log)
        self.linted: dict[str, Linted] = {}
        self.fixes: dict[str, dict[Diagnostic, tuple[Replacement, ...]]] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.docs_url = _rules_page()
        self.max_bytes = MAX_DOCUMENT_BYTES
        self.debounce = DEBOUNCE_SECONDS
        self._knowledge: tuple[int, Knowledge] | None = None
        #: Where the config's problems were last published.
        self._config_uri: str | None = None

    def configure(self, options: Any) -> None:
        """The client's ``initializationOptions`` (docs/editors.md); a bad value is logged."""
        if isinstance(options, dict):
            self.docs_url = options.get("docsUrl", self.docs_url)
            self.max_bytes = int(options.get("maxDocumentSize", self.max_bytes))
            self.debounce = float(options.get("debounceMs", self.debounce * 1000)) / 1000

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        # With no client connected yet (or any more) the message has nowhere to go.
        with contextlib.suppress(Exception):
            self.window_log_message(types.LogMessageParams(kind, message))

    def guarded(self, what: str, work: Callable[[], T], default: T) -> T:
        """``work()``, or ``default`` with the error logged: no request may stop the server."""
        try:
            return work()
        except Exception as error:
            self.log(
                f"dralint: {what} failed: {type(error).__name__}: {error}\n{traceback.format_exc()}",
                types.MessageType.Error,
            )
            return default

    # ------------------------------------------------------------------ documents

    def path_of(self, uri: str) -> str:
        return display(to_fs_path(uri) or uri, self.space.root)

    def lints(self, document: TextDocument) -> bool:
        name = document.filename or ""
        return document.language_id in LANGUAGES or name.endswith(_SUFFIXES)

    def schedule(self, uri: str, delay: float) -> None:
        """Lint ``uri`` after ``delay`` seconds, replacing a lint already pending for it."""
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(delay, self.lint_now, uri)

    def lint_now(self, uri: str) -> None:
        self.pending.pop(uri, None)
        document = self.workspace.text_documents.get(uri)
        if document is None or not self.lints(document):
            return
        found = self.guarded("lint", lambda: self.diagnostics_of(document), None)
        if found is None:
            found = [self.failure(document)]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, found, document.version))

    def diagnostics_of(self, document: TextDocument) -> list[types.Diagnostic]:
        text = document.source
        lines = Lines(text, document.position_codec.client_num_units)
        size = len(text) if len(text) > self.max_bytes else len(text.encode("utf-8", "surrogatepass"))
        if size > self.max_bytes:
            self.linted.pop(document.uri, None)
            return [self.too_large(size)]
        linted = self.space.lint(self.path_of(document.uri), text)
        self.linted[document.uri] = linted
        self.fixes.pop(document.uri, None)
        return [diagnostic(d, lines, self.docs_url, plain_range) for d in linted.diagnostics]

    def too_large(self, size: int) -> types.Diagnostic:
        return types.Diagnostic(
            range=types.Range(types.Position(0, 0), types.Position(0, 1)),
            message=f"this document is {size / (1 << 20):.1f} MiB, over the {self.max_bytes / (1 << 20):.0f} MiB "
            "that dralint lints as you type (maxDocumentSize); run `dralint lint` on it",
            severity=types.DiagnosticSeverity.Information,
            source="dralint",
        )

    def failure(self, document: TextDocument) -> types.Diagnostic:
        return types.Diagnostic(
            range=types.Range(types.Position(0, 0), types.Position(0, 1)),
            message="dralint could not lint this document (an internal error, logged in the language server's output); "
            "please report it with the document",
            severity=types.DiagnosticSeverity.Error,
            source="dralint",
            code="INT001",
        )

    def relint_open(self) -> None:
        for uri in list(self.workspace.text_documents):
            self.schedule(uri, self.debounce)

    def knowledge(self) -> Knowledge:
        """Classes and devices of the workspace, the snapshot and the driver catalog (the
        releases the run would judge against), rebuilt when the workspace or snapshot changed."""
        generation = self.space.generation
        if self._knowledge is None or self._knowledge[0] != generation:
            objects = [obj for objects in self.space.files.values() for obj in objects]
            catalog = run_catalog(Context(objects, self.space.options))
            known = Knowledge(
                ObjectSource("workspace", objects),
                ObjectSource("snapshot", self.space.cluster),
                [CatalogSource(catalog)],
            )
            self._knowledge = (generation, known)
        return self._knowledge[1]

    def fixes_of(self, uri: str, linted: Linted) -> dict[Diagnostic, tuple[Replacement, ...]]:
        """Each fixable finding's fix made alone, worked out once per lint when first asked."""
        if uri not in self.fixes:
            self.fixes[uri] = fix_replacements(linted.result) if linted.result is not None else {}
        return self.fixes[uri]

    def publish_config(self) -> None:
        """The config file's problems on the config file (and none on one no longer in use)."""
        config = self.space.config
        uri = uri_of(config.path) if config is not None and config.path is not None else None
        if self._config_uri not in (None, uri):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(self._config_uri, []))
        self._config_uri = uri
        if config is None or uri is None:
            return
        found = self.space.config_findings()
        source = config.source.text if config.source is not None else ""
        lines = Lines(source, self.workspace.position_codec.client_num_units)
        if found:
            self.log(
                f"dralint: {len(found)} problem(s) in {config.path}; see the diagnostics there",
                types.MessageType.Warning,
            )
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri, [diagnostic(d, lines, self.docs_url, plain_range) for d in found])
        )


server = DralintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: DralintServer, params: types.InitializeParams) -> None:
    folders = params.workspace_folders or []
    root_uri = folders[0].uri if folders else params.root_uri
    root = to_fs_path(root_uri) if root_uri else params.root_path
    ls.space = Workspace(os.path.abspath(root) if root else None, ls.log)
    ls.guarded("reading initializationOptions", lambda: ls.configure(params.initialization_options), None)


@server.feature(types.INITIALIZED)
def initialized(ls: DralintServer, params: types.InitializedParams) -> None:
    """Load the workspace before any later message is handled (a handler that awaited would let
    a document open and be linted against an empty workspace first), then ask to be told of
    file changes."""
    ls.guarded("loading the workspace", ls.space.load, None)
    ls.guarded("reading the config", ls.publish_config, None)
    watching = ls.client_capabilities.workspace
    dynamic = watching and watching.did_change_watched_files and watching.did_change_watched_files.dynamic_registration
    if dynamic:
        watchers = [
            types.FileSystemWatcher(glob_pattern=g) for g in ("**/*.yaml", "**/*.yml", "**/*.json", "**/pyproject.toml")
        ]
        registration = types.Registration(
            "dralint-watch",
            types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        # Not awaited: a client that refuses leaves saves to keep the workspace up to date.
        ls.client_register_capability(types.RegistrationParams([registration]))
    ls.relint_open()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DralintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: DralintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, ls.debounce)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DralintServer, params: types.DidSaveTextDocumentParams) -> None:
    path = to_fs_path(params.text_document.uri)
    if path:
        ls.guarded("updating the workspace", lambda: ls.space.changed(path), None)
        ls.guarded("reading the config", ls.publish_config, None)
    ls.relint_open()


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DralintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    waiting = ls.pending.pop(uri, None)
    if waiting is not None:
        waiting.cancel()
    ls.linted.pop(uri, None)
    ls.fixes.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched(ls: DralintServer, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = to_fs_path(change.uri)
        if path:
            ls.guarded("updating the workspace", lambda p=path: ls.space.changed(p), None)  # type: ignore[misc]
    ls.guarded("reading the config", ls.publish_config, None)
    ls.relint_open()


def _in_range(span: Span, start: types.Position, end: types.Position, lines: Lines) -> bool:
    found = lines.range(span)
    return (found.start.line, found.start.character) <= (end.line, end.character) and (
        (start.line, start.character) <= (found.end.line, found.end.character)
    )


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
)
def code_action(ls: DralintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    return ls.guarded("code actions", lambda: _code_actions(ls, params), None)


def _code_actions(ls: DralintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    linted = ls.linted.get(uri)
    if linted is None:
        return []
    document = ls.workspace.get_text_document(uri)
    lines = Lines(document.source, document.position_codec.client_num_units)
    hit = [d for d in linted.diagnostics if _in_range(d.span, params.range.start, params.range.end, lines)]
    fixes = ls.fixes_of(uri, linted) if any(d.rule in _fixable() for d in hit) else {}
    out = []
    for diag in hit:
        made = diagnostic(diag, lines, ls.docs_url, plain_range)
        actions = [features.fix_action(diag, fixes[diag])] if diag in fixes else []
        suppress = features.suppress_action(diag, document.source)
        actions.extend([suppress] if suppress is not None else [])
        for action in actions:
            edit = types.WorkspaceEdit(changes={uri: edits(action.replacements, lines)})
            out.append(
                types.CodeAction(
                    action.title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[made],
                    edit=edit,
                    is_preferred=action.preferred,
                )
            )
    return out


def _fixable() -> set[str]:
    from dralint.fix.runner import fixable_rules

    return fixable_rules()


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: DralintServer, params: types.HoverParams) -> types.Hover | None:
    return ls.guarded("hover", lambda: _hover(ls, params), None)


def _cursor(
    ls: DralintServer, params: types.HoverParams | types.CompletionParams
) -> tuple[str, TextDocument, int, int]:
    """The document a request is about and its cursor, as a 0-based line and character column."""
    uri = params.text_document.uri
    document = ls.workspace.get_text_document(uri)
    where = document.position_codec.position_from_client_units(document.lines, params.position)
    return uri, document, where.line, where.character


def _hover(ls: DralintServer, params: types.HoverParams) -> types.Hover | None:
    uri, document, line, column = _cursor(ls, params)
    parts = []
    linted = ls.linted.get(uri)
    if linted is not None:
        here = [d for d in linted.diagnostics if _covers(d.span, line, column)]
        if here:
            parts.append(features.rule_hover(here))
    at = cursor.string_at(cursor.documents(ls.path_of(uri), document.source), line, column)
    if at is not None and at.path and at.path[-1] == "deviceClassName":
        parts.append(features.class_hover(at.value, ls.knowledge()))
    elif at is not None and at.offset is not None and cursor.is_cel(at.path):
        said = features.field_hover(at.value, at.offset, ls.knowledge())
        parts.extend([said] if said else [])
    if not parts:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(parts)))


def _covers(span: Span, line: int, column: int) -> bool:
    where = (line + 1, column + 1)
    return (span.line, span.column) <= where < (span.end_line, span.end_column) or (span.line, span.column) == where


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"', ".", " "]))
def completion(ls: DralintServer, params: types.CompletionParams) -> types.CompletionList | None:
    return ls.guarded("completion", lambda: _completion(ls, params), None)


def _completion(ls: DralintServer, params: types.CompletionParams) -> types.CompletionList | None:
    uri, document, line, column = _cursor(ls, params)
    text_line = document.lines[line].rstrip("\r\n") if line < len(document.lines) else ""
    asked = cursor.completing_line(text_line[:column])
    if asked is None:
        at = cursor.string_at(cursor.documents(ls.path_of(uri), document.source), line, column)
        if at is None or at.offset is None or not cursor.is_cel(at.path):
            return None
        asked = cursor.completing_cel(at.value, at.offset)
    if asked is None:
        return None
    lines = Lines(document.source, document.position_codec.client_num_units)
    typed = Span("", line + 1, column + 1 - len(asked.typed), line + 1, column + 1)
    items = [
        types.CompletionItem(
            item.label,
            kind=types.CompletionItemKind.Class if asked.what == "class" else types.CompletionItemKind.Field,
            detail=item.detail,
            text_edit=types.TextEdit(lines.range(typed), item.label),
            filter_text=item.label,
        )
        for item in features.completions(asked, ls.knowledge())
    ]
    return types.CompletionList(is_incomplete=False, items=items)


def serve(tcp_port: int | None = None) -> None:
    """Run the server on stdio, or on a loopback TCP port (for debugging)."""
    if tcp_port is None:
        server.start_io()
    else:
        server.start_tcp("127.0.0.1", tcp_port)
