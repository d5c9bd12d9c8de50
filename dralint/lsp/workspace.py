"""The workspace an editor's document is linted against, parsed once and kept up to date.

An open document gets exactly the findings of ``dralint lint FILE --context .`` run from the
workspace folder (with the config's own ``context`` too): the folder's other manifests are
context, the nearest config file gives profile, suppressions, baseline and ``slices``. What
the engine would parse again on every run (every other manifest, the snapshot) is parsed here
once (``engine.parse_unreported``), and again file by file as the editor says files changed;
each lint parses only the document's text.

Paths are relative to the current directory, which is the workspace folder, as for a
``dralint lint`` run from there: per-path ignores, baselines and the config's paths depend on it.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import os
from collections.abc import Callable
from typing import NamedTuple

from dralint.diagnostics import Diagnostic
from dralint.k8s.allocator.examples import PREFIX as EXAMPLE_PREFIX
from dralint.k8s.allocator.examples import example_sources
from dralint.k8s.objects import KubeObject
from dralint.lint.baseline import BaselineError
from dralint.lint.config import LoadedConfig, find_config, load_config
from dralint.lint.engine import Item, RunResult, find_sources, parse_unreported, run
from dralint.lint.gate import finish, without_own_files
from dralint.lint.options import LintOptions
from dralint.yaml.render import RenderedSource
from dralint.yaml.sources import discover, read

Log = Callable[[str], None]


class Linted(NamedTuple):
    """One document's lint: its findings, and the finished run they come from (its fixes are
    worked out from it when the editor asks)."""

    path: str
    diagnostics: list[Diagnostic]
    #: None for a file ``lint`` skips.
    result: RunResult | None


class Workspace:
    """The config, the context objects by file and the snapshot of one workspace folder."""

    def __init__(self, root: str | None, log: Log) -> None:
        self.root = root
        self.log = log
        self.config: LoadedConfig | None = None
        self.options = LintOptions(jobs=1)
        #: The objects of each context file by its display path, in the order ``lint`` reads them.
        self.files: dict[str, list[KubeObject]] = {}
        self._real: dict[str, str] = {}
        #: Files whose text reaches the context only through a render (chart templates, overlays).
        self._rendered_from: set[str] = set()
        self.cluster: list[KubeObject] = []
        #: Bumped whenever the context changes, so that callers know their lints are stale.
        self.generation = 0

    # ------------------------------------------------------------------ loading

    def load(self) -> None:
        """Read the config, then parse every manifest of the folder and the snapshot."""
        if self.root is not None:
            os.chdir(self.root)
        found = find_config(".") if self.root is not None else None
        self.config = load_config(found) if found else None
        options = LintOptions()
        if self.config is not None:
            self.config.apply(options)
        # The server never forks: one process, one lint at a time.
        self.options = dataclasses.replace(options, jobs=1)
        self.files, self._real, self._rendered_from = {}, {}, set()
        for item in self._find(self._context_paths()):
            self._add(item)
        self.load_cluster()
        self.log(
            f"dralint: workspace {self.root or '(none)'}: {len(self.files)} files, "
            f"{sum(map(len, self.files.values()))} objects as context, {len(self.cluster)} snapshot objects"
        )

    def load_cluster(self) -> None:
        """Parse the ``slices`` snapshot the config names (files and ``example:NAME``)."""
        slices = self.options.slices
        files = self._find([p for p in slices if not p.startswith(EXAMPLE_PREFIX)])
        self.cluster = parse_unreported([*files, *example_sources(slices)], self.options, "cluster")
        self.generation += 1

    def _context_paths(self) -> list[str]:
        return ([] if self.root is None else ["."]) + [p for p in self.options.context if p != "."]

    def _find(self, paths: list[str]) -> list[Item]:
        return find_sources(paths, without_own_files(self.options, self.config)) if paths else []

    def _add(self, item: Item) -> None:
        path = item.path
        self.files[path] = parse_unreported([item], self.options)
        self._real[path] = os.path.realpath(path)
        if isinstance(item, RenderedSource):
            self._rendered_from.update(os.path.normpath(origin.path) for origin in item.files)
        self.generation += 1

    # ------------------------------------------------------------------ keeping up to date

    def changed(self, path: str) -> None:
        """A file on disk was saved, created or deleted: parse again what it affects.

        The config or the baseline reloads everything; a snapshot file the snapshot; a file
        read through a render (a chart's template) the whole folder, since which renders it
        feeds is the planner's to say; any other manifest itself alone.
        """
        path = os.path.normpath(display(path, self.root))
        own = {os.path.normpath(p) for p in (self.config.path if self.config else None, self.options.baseline) if p}
        if path in own or os.path.basename(path) in (".dralint.yaml", ".dralint.yml", "pyproject.toml"):
            self.load()
        elif any(_under(path, p) for p in self.options.slices if not p.startswith(EXAMPLE_PREFIX)):
            self.load_cluster()
        elif path in self._rendered_from:
            self.load()
        else:
            self._reparse(path)

    def _reparse(self, path: str) -> None:
        key = next((k for k in self.files if os.path.normpath(k) == path), None)
        if key is not None:
            del self.files[key]
            self.generation += 1
        if not path.endswith((".yaml", ".yml", ".json")) or not os.path.isfile(path):
            return
        if key is None and not any(_under(path, p) for p in self._context_paths()):
            return
        for item in self._find([key or path]):
            self._add(item)

    # ------------------------------------------------------------------ linting

    def lint(self, path: str, text: str) -> Linted:
        """The findings ``dralint lint`` gives for ``path`` holding ``text``, in this workspace:
        none for a file it skips (an ``exclude`` glob), the config's problems on the config."""
        if os.path.lexists(path) and not any(discover([path], without_own_files(self.options, self.config).exclude)):
            config = self.config.path if self.config is not None else None
            own = config is not None and os.path.realpath(config) == os.path.realpath(path)
            return Linted(path, self.config_findings() if own else [], None)
        item = read("-", io.BytesIO(text.encode("utf-8", "surrogatepass")), path, self.options.max_file_bytes)
        real = os.path.realpath(path)
        parsed = [obj for key, objects in self.files.items() if self._real[key] != real for obj in objects]
        parsed.extend(self.cluster)
        options = dataclasses.replace(self.options, paths=[path])
        result = run([item], options, parsed=parsed)
        try:
            finished = finish(result, options, self.config)
        except BaselineError as error:
            self.log(f"dralint: {error}; linting without the baseline")
            finished = finish(result, dataclasses.replace(options, baseline=None), self.config)
        # The run's data stays out of the cyclic collector's view (engine.without_cyclic_gc):
        # for one run that saves a pass, for a server running thousands it would keep every
        # cycle they left, so the collector sees it all again.
        gc.unfreeze()
        return Linted(path, [d for d in finished.diagnostics if d.span.path == path], finished)

    def config_findings(self) -> list[Diagnostic]:
        """The config file's own problems (CFG001...), shown on the config file."""
        if self.config is None or not self.config.findings:
            return []
        finished = finish(run([], self.options, parsed=()), self.options, self.config)
        gc.unfreeze()
        return [d for d in finished.diagnostics if d.span.path == self.config.path]


def display(path: str, root: str | None) -> str:
    """``path`` as a lint from ``root`` names it: relative inside the folder, else absolute."""
    if root is not None:
        relative = os.path.relpath(path, root)
        if not relative.startswith(".."):
            return relative
    return path


def _under(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or in it (either relative to the current directory)."""
    path, directory = os.path.abspath(path), os.path.abspath(directory)
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
