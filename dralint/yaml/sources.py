"""Finding and reading the files of a run.

Everything that can go wrong before YAML parsing (unreadable files, symlink loops, binary or
non-UTF-8 content, files that are not Kubernetes manifests at all) becomes a ``FileIssue``
here, so the parser only ever sees text that is worth parsing.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

#: Files larger than this are reported and skipped: no real manifest comes near it.
MAX_FILE_BYTES = 256 * 1024 * 1024
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", ".tox", "__pycache__", ".mypy_cache", ".pytest_cache"}
)
_HELM_RE = re.compile(r"\{\{-?\s")


class FileIssue:
    """Why a file was not linted, or what it is instead of a manifest.

    ``kind`` is one of: unreadable, too-large, symlink-loop, symlink-outside, not-a-file,
    binary, encoding, helm, kustomization, chart, values.
    """

    __slots__ = ("path", "kind", "message", "line", "column")

    def __init__(self, path: str, kind: str, message: str, line: int = 1, column: int = 1) -> None:
        self.path = path
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column


class SourceFile:
    """A file's display path (as the user gave it) and its decoded text."""

    __slots__ = ("path", "text")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text


class UnreadFile:
    """A file found and not read yet, with its size on disk when it could be asked.

    The engine has each file read by the process that parses it: with ``--jobs``, reading
    every file before the workers started kept all but one CPU idle (30 ms for 500 files).
    """

    __slots__ = ("path", "size", "max_bytes")

    def __init__(self, path: str, max_bytes: int = MAX_FILE_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes
        try:
            self.size = os.stat(path).st_size
        except OSError:  # reading it says why
            self.size = 0

    def read(self) -> SourceFile | FileIssue:
        return read(self.path, max_bytes=self.max_bytes)


def _excluded(path: str, patterns: list[str]) -> bool:
    name = os.path.basename(path)
    normal = path[2:] if path.startswith("./") else path
    return any(
        fnmatch.fnmatch(normal, p) or fnmatch.fnmatch(name, p) or fnmatch.fnmatch(normal, p.rstrip("/") + "/*")
        for p in patterns
    )


def _is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def discover(paths: list[str], exclude: list[str]) -> Iterator[str | FileIssue]:
    """Yield the files to lint in a stable order, or issues for paths that cannot be walked.

    Directories are walked recursively for .yaml/.yml/.json files; explicitly named files are
    taken whatever their suffix. Symlinked directories are followed once; a link back into a
    directory already being walked is a loop and is reported, and so is a link that leads out
    of the named directory (``dralint fix`` must never edit a file outside the tree it was given).
    """
    seen_files: set[str] = set()
    for given in paths:
        if given == "-":
            yield given
            continue
        if not os.path.lexists(given):
            yield FileIssue(given, "unreadable", f"{given}: no such file or directory")
            continue
        if os.path.isdir(given):
            yield from _walk(given, exclude, seen_files)
        elif not _excluded(given, exclude):
            real = os.path.realpath(given)
            if real not in seen_files:
                seen_files.add(real)
                yield given


def _outside(path: str, real: str, root: str, root_real: str) -> FileIssue | None:
    """A symbolic link under ``root`` that resolves outside it: reported, not followed."""
    if os.path.commonpath([real, root_real]) == root_real:
        return None
    return FileIssue(path, "symlink-outside", f"{path} is a symbolic link to {real}, outside {root}; not followed")


def _is_regular(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file(follow_symlinks=True)
    except OSError:  # reading it says why
        return True


def _file_type(path: str) -> str:
    """What a file that is not a regular file is, in words."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "special file"
    kinds = ((stat.S_ISFIFO, "named pipe (FIFO)"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"))
    return next((name for test, name in kinds if test(mode)), "block device" if stat.S_ISBLK(mode) else "special file")


def _walk(root: str, exclude: list[str], seen_files: set[str]) -> Iterator[str | FileIssue]:
    root_real = os.path.realpath(root)
    stack: list[tuple[str, tuple[str, ...]]] = [(root, (root_real,))]
    while stack:
        directory, ancestors = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as error:
            yield FileIssue(directory, "unreadable", f"cannot list {directory}: {error.strerror or error}")
            continue
        subdirs = []
        for entry in entries:
            path = os.path.join(directory, entry.name) if directory != "." else entry.name
            if _excluded(path, exclude):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError:
                is_dir = False
            if is_dir:
                if entry.name in SKIPPED_DIRS or _is_virtualenv(path):
                    continue
                real = os.path.realpath(path)
                if real in ancestors:
                    yield FileIssue(path, "symlink-loop", f"{path} is a symbolic link back to {real}; not followed")
                    continue
                leaves = _outside(path, real, root, root_real)
                if leaves is not None:
                    yield leaves
                    continue
                subdirs.append((path, ancestors + (real,)))
            elif entry.name.endswith(MANIFEST_SUFFIXES):
                if entry.is_symlink() and not os.path.exists(path):
                    yield FileIssue(path, "unreadable", f"{path} is a broken symbolic link")
                    continue
                real = os.path.realpath(path)
                leaves = _outside(path, real, root, root_real) if entry.is_symlink() else None
                if leaves is not None:
                    yield leaves
                elif not _is_regular(entry):
                    # opening a FIFO waits for a writer, a device may never end: only a file
                    # named on the command line is read whatever it is
                    yield FileIssue(path, "not-a-file", f"{path} is a {_file_type(path)}, not a regular file; skipped")
                elif real not in seen_files:
                    seen_files.add(real)
                    yield path
        stack.extend(reversed(subdirs))


def read(
    path: str, stdin: BinaryIO | None = None, stdin_name: str = "<stdin>", max_bytes: int = MAX_FILE_BYTES
) -> SourceFile | FileIssue:
    """Read and decode one file, or say why it cannot be linted."""
    display = stdin_name if path == "-" else path
    try:
        if path == "-":
            stream = stdin or getattr(sys.stdin, "buffer", None)  # None: dralint started with stdin closed
            if stream is None:
                return FileIssue(display, "unreadable", f"cannot read {display}: standard input is closed")
            raw = stream.read(max_bytes + 1)
        else:
            with open(path, "rb") as handle:
                # A regular file's size is known up front: refuse it before reading it whole.
                size = os.fstat(handle.fileno()).st_size
                if size > max_bytes:
                    return _too_large(display, max_bytes)
                # Ask for that size and a byte more, which shows a file that grew since or whose
                # size the system does not know (0 for a pipe): asked for max_bytes, Python maps
                # a buffer that large for every file and gives it back, 20 microseconds a file,
                # half the time reading 5,000 small files took.
                raw = handle.read(size + 1)
                if len(raw) > size:
                    raw += handle.read(max_bytes + 1 - len(raw))
    except OSError as error:
        return FileIssue(display, "unreadable", f"cannot read {display}: {error.strerror or error}")
    if len(raw) > max_bytes:
        return _too_large(display, max_bytes)
    return decode(display, raw)


def _too_large(display: str, max_bytes: int) -> FileIssue:
    return FileIssue(
        display, "too-large", f"{display} is larger than the {max_bytes:,}-byte limit (--max-file-size); skipped"
    )


def decode(display: str, raw: bytes) -> SourceFile | FileIssue:
    """Decode UTF-8 (with or without BOM); binary and other encodings are issues."""
    if b"\0" in raw[:8192] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return FileIssue(display, "binary", f"{display} is a binary file, not YAML or JSON")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        # In characters, as every other column: the line's bytes before the bad one, decoded.
        column = len(raw[raw.rfind(b"\n", 0, error.start) + 1 : error.start].decode("utf-8", "replace")) + 1
        return FileIssue(
            display,
            "encoding",
            f"{display} is not valid UTF-8 (byte 0x{raw[error.start]:02x}); Kubernetes manifests must be UTF-8",
            line,
            column,
        )
    return SourceFile(display, text.replace("\r\n", "\n") if "\r\n" in text else text)


def not_a_manifest(source: SourceFile) -> FileIssue | None:
    """Recognise files that belong to other tools, so they are reported once, not parsed."""
    name = Path(source.path).name.lower()
    if name in ("kustomization.yaml", "kustomization.yml", "kustomization"):
        return FileIssue(
            source.path, "kustomization", "kustomization file: lint the output of `kustomize build` instead"
        )
    if name in ("chart.yaml", "chart.yml"):
        return FileIssue(source.path, "chart", "Helm chart metadata, not a Kubernetes manifest")
    if name.startswith("values") and name.endswith((".yaml", ".yml")):
        return FileIssue(source.path, "values", "Helm values file, not a Kubernetes manifest")
    match = _HELM_RE.search(source.text) or ("{{" in source.text and re.search(r"\{\{[^}]*\}\}", source.text))
    if match:
        offset = match.start()
        line = source.text.count("\n", 0, offset) + 1
        column = offset - (source.text.rfind("\n", 0, offset) + 1) + 1
        return FileIssue(
            source.path,
            "helm",
            "Helm template (contains '{{'): render it with `helm template` and lint the output",
            line,
            column,
        )
    return None
