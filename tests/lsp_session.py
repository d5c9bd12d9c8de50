"""A real ``dralint lsp`` subprocess driven by pygls's own client, for the protocol tests and
bench/lsp.py: open, change and save documents, wait for the diagnostics the server publishes."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path


def uri(path: Path) -> str:
    return from_fs_path(str(path.resolve())) or str(path)


class Session:
    """One server over stdio, rooted at ``root``; ``published`` holds each document's last
    diagnostics, ``logs`` the messages the server logged."""

    def __init__(self, root: Path, options: dict[str, Any] | None = None, server: tuple[str, ...] = ()) -> None:
        self.root = root
        self.options = options or {}
        #: Arguments to Python that run the server (default: ``-m dralint lsp``).
        self.server = server or ("-m", "dralint", "lsp")
        self.client = LanguageClient("dralint-tests", "1")
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.logs: list[str] = []
        self._arrived: dict[str, asyncio.Event] = {}
        self._versions: dict[str, int] = {}
        self.arrival: dict[str, float] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            # A lint of an older version (one the server had queued) is not the answer awaited.
            if params.version is not None and params.version < self._versions.get(params.uri, 0):
                return
            self.published[params.uri] = params.diagnostics
            self.arrival[params.uri] = time.perf_counter()
            self._event(params.uri).set()

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def logged(params: types.LogMessageParams) -> None:
            self.logs.append(params.message)

        @self.client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            return None

    def _event(self, key: str) -> asyncio.Event:
        return self._arrived.setdefault(key, asyncio.Event())

    async def __aenter__(self) -> Session:
        await self.client.start_io(sys.executable, *self.server, cwd=str(self.root))
        capabilities = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
            ),
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True)
            ),
        )
        self.initialized = await self.client.initialize_async(
            types.InitializeParams(
                capabilities=capabilities,
                root_uri=uri(self.root),
                workspace_folders=[types.WorkspaceFolder(uri(self.root), self.root.name)],
                initialization_options=self.options,
            )
        )
        self.client.initialized(types.InitializedParams())
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    async def open(self, path: Path, text: str | None = None, language: str = "yaml") -> list[types.Diagnostic]:
        key = uri(path)
        self._versions[key] = 1
        self._event(key).clear()
        content = path.read_text(encoding="utf-8") if text is None else text
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(key, language, 1, content))
        )
        return await self.diagnostics(path)

    async def change(self, path: Path, text: str) -> float:
        """Replace the document's text; returns when the change was sent (perf_counter)."""
        key = uri(path)
        self._versions[key] += 1
        self._event(key).clear()
        sent = time.perf_counter()
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(self._versions[key], key),
                [types.TextDocumentContentChangeWholeDocument(text)],
            )
        )
        return sent

    async def diagnostics(self, path: Path, timeout: float = 60) -> list[types.Diagnostic]:
        """The next diagnostics published for ``path``."""
        key = uri(path)
        await asyncio.wait_for(self._event(key).wait(), timeout)
        self._event(key).clear()
        return self.published[key]

    def _expect_fresh(self) -> None:
        """Forget the diagnostics published so far: a change on disk answers anew."""
        for event in self._arrived.values():
            event.clear()

    async def saved(self, path: Path) -> None:
        self._expect_fresh()
        self.client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri(path))))

    async def watched(self, path: Path, kind: types.FileChangeType = types.FileChangeType.Changed) -> None:
        self._expect_fresh()
        self.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams([types.FileEvent(uri(path), kind)])
        )

    async def actions(self, path: Path, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri(path)), diagnostic.range, types.CodeActionContext([diagnostic])
            )
        )
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    async def hover(self, path: Path, line: int, character: int) -> str | None:
        found = await self.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri(path)), types.Position(line, character))
        )
        if found is None:
            return None
        contents = found.contents
        return contents.value if isinstance(contents, types.MarkupContent) else str(contents)

    async def complete(self, path: Path, line: int, character: int) -> list[types.CompletionItem]:
        found = await self.client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(uri(path)), types.Position(line, character))
        )
        if found is None:
            return []
        return found.items if isinstance(found, types.CompletionList) else list(found)


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """``edits`` made on ``text`` (ASCII columns), last first so earlier ranges stay right."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: types.Position) -> int:
        return starts[position.line] + position.character if position.line < len(starts) else len(text)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text
