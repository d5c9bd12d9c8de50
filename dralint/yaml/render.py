"""Rendering Helm charts and Kustomize overlays with the tools on PATH, so their output is linted.

dralint stays pure Python: ``helm template``, ``kustomize build`` and ``kubectl kustomize`` run
as subprocesses. A render keeps, per output document, the file the user edits (the template
named by Helm's ``# Source:`` comment; the resource file Kustomize's origin annotation names,
and the patch files that touched the object), so findings can be reported there instead of in
an anonymous stream. Without the tool, a chart or overlay becomes one ``RenderIssue`` that says
how to get it, and its raw template files are skipped, not parsed as broken YAML.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import yaml

from dralint.yaml.libyaml import LOADER
from dralint.yaml.sources import SKIPPED_DIRS, FileIssue, SourceFile

CHART_FILE = "Chart.yaml"
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
#: A render that takes longer than this is stuck (a plugin waiting for input, a huge chart).
RENDER_TIMEOUT_SECONDS = 300
#: helm's own default release name for ``helm template`` without one.
DEFAULT_RELEASE = "release-name"
_SOURCE_RE = re.compile(r"^# Source: (\S.*?)\s*$")
_ORIGIN_KEYS = ("config.kubernetes.io/origin", "alpha.config.kubernetes.io/transformations")
_PATCH_TRANSFORMERS = frozenset({"PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer"})


class ChartSettings(NamedTuple):
    """How to render one chart: values files, ``--set`` pairs, release name and namespace."""

    values: tuple[str, ...] = ()
    set: tuple[str, ...] = ()
    release: str = DEFAULT_RELEASE
    namespace: str | None = None


class Origin(NamedTuple):
    """Where one document of a render comes from.

    ``line`` and ``end_line`` (1-based, inclusive) delimit the document in the rendered text;
    ``path`` is the file the user edits, None when it cannot be found; ``patches`` are the patch
    files that may have changed the object, latest first; ``part`` counts, from 0, the documents
    rendered from the same template before this one (Helm only).
    """

    line: int
    end_line: int
    path: str | None
    patches: tuple[str, ...] = ()
    part: int | None = None


class RenderedSource(SourceFile):
    """A render's output (``path`` names the command, like ``<helm template chart>``) with the
    origin of each document and the text of each file those origins name; ``generated`` is
    False for a stream the user piped in, whose comments are theirs."""

    __slots__ = ("origins", "files", "generated")

    def __init__(
        self,
        path: str,
        text: str,
        origins: tuple[Origin, ...] = (),
        files: tuple[SourceFile, ...] = (),
        generated: bool = True,
    ) -> None:
        super().__init__(path, text)
        self.origins = origins
        self.files = files
        self.generated = generated

    def origin_at(self, line: int) -> Origin | None:
        """The origin of the document holding 1-based ``line``."""
        return next((o for o in self.origins if o.line <= line <= o.end_line), None)


class RenderIssue(FileIssue):
    """A chart or overlay that was not rendered; ``text`` is its Chart.yaml or kustomization."""

    __slots__ = ("text",)

    def __init__(self, path: str, kind: str, message: str, line: int = 1, column: int = 1, text: str = "") -> None:
        super().__init__(path, kind, message, line, column)
        self.text = text


class RenderUnit(NamedTuple):
    """A chart or an overlay to render: ``tool`` is helm or kustomize, ``root`` its directory."""

    tool: str
    root: str

    @property
    def metadata_file(self) -> str:
        if self.tool == "helm":
            return os.path.join(self.root, CHART_FILE)
        return next(
            (os.path.join(self.root, n) for n in KUSTOMIZATION_FILES if os.path.isfile(os.path.join(self.root, n))),
            os.path.join(self.root, KUSTOMIZATION_FILES[0]),
        )


class RenderPlan:
    """The charts and overlays among a run's files, and the files they own (real paths), which
    are linted through the render and never on their own."""

    __slots__ = ("units", "owned")

    def __init__(self) -> None:
        self.units: list[RenderUnit] = []
        self.owned: set[str] = set()


# --- finding charts and overlays -----------------------------------------------------------------


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _load_yaml(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.load(handle, Loader=LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None


def kustomization_refs(path: str) -> list[str]:
    """The files and directories a kustomization names (resources, bases, components,
    patches), as real paths; a file that cannot be read names nothing."""
    data = _load_yaml(path)
    if not isinstance(data, dict):
        return []
    names: list[Any] = []
    for key in ("resources", "bases", "components", "patchesStrategicMerge", "crds"):
        if isinstance(data.get(key), list):
            names.extend(data[key])
    for key in ("patches", "patchesJson6902"):
        if isinstance(data.get(key), list):
            names.extend(entry.get("path") for entry in data[key] if isinstance(entry, dict))
    base = os.path.dirname(os.path.realpath(path))
    return [
        os.path.realpath(os.path.join(base, n))
        for n in names
        if isinstance(n, str) and "://" not in n and "\n" not in n
    ]


def plan(files: Iterable[str]) -> RenderPlan:
    """Charts (directories with Chart.yaml) and top-level overlays among discovered files.

    A subchart renders with its parent, and a kustomization that another one names as a
    resource renders inside that one; neither is rendered alone.
    """
    files = list(files)
    charts = sorted({os.path.dirname(f) or "." for f in files if os.path.basename(f) == CHART_FILE}, key=len)
    chart_roots: list[str] = []
    for root in charts:
        if not any(_inside(os.path.realpath(root), os.path.realpath(outer)) for outer in chart_roots):
            chart_roots.append(root)
    out = RenderPlan()
    real_charts = [os.path.realpath(r) for r in chart_roots]
    for path in files if real_charts else ():  # a real path costs a system call per level of directory
        real = os.path.realpath(path)
        if any(_inside(real, chart) and not _inside(real, os.path.join(chart, "crds")) for chart in real_charts):
            out.owned.add(real)
    kustomizations = [
        f for f in files if os.path.basename(f) in KUSTOMIZATION_FILES and os.path.realpath(f) not in out.owned
    ]
    referenced: set[str] = set()
    for path in kustomizations:
        out.owned.add(os.path.realpath(path))
        refs = kustomization_refs(path)
        referenced.update(refs)
        out.owned.update(refs)
    out.units = [RenderUnit("helm", root) for root in chart_roots]
    out.units += [
        RenderUnit("kustomize", os.path.dirname(k) or ".")
        for k in kustomizations
        if os.path.realpath(os.path.dirname(k) or ".") not in referenced
    ]
    return out


# --- running the tools -----------------------------------------------------------------------------


def _issue(unit: RenderUnit, kind: str, message: str) -> RenderIssue:
    path = unit.metadata_file
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        text = ""
    return RenderIssue(path, kind, message, text=text)


def _run(command: list[str], unit: RenderUnit) -> str | RenderIssue:
    # subprocess, shutil and tempfile are imported where a render needs them: most runs have
    # no chart or overlay, and pre-commit starts dralint once per file.
    import subprocess

    try:
        done = subprocess.run(
            command,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=RENDER_TIMEOUT_SECONDS,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return _issue(
            unit,
            "render-failed",
            f"`{' '.join(command[:2])}` did not finish within {RENDER_TIMEOUT_SECONDS} s; {unit.root} was not linted",
        )
    except OSError as error:
        return _issue(
            unit, "render-failed", f"cannot run {command[0]}: {error.strerror or error}; {unit.root} was not linted"
        )
    if done.returncode != 0:
        errors = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        reason = errors[-1] if errors else f"exit status {done.returncode}"
        return _issue(
            unit, "render-failed", f"`{' '.join(command[:2])}` failed for {unit.root}: {reason.removeprefix('Error: ')}"
        )
    return done.stdout


def read_files(paths: Iterable[str | None]) -> tuple[SourceFile, ...]:
    """The text of each file a render's documents came from; unreadable ones are left out."""
    out: dict[str, SourceFile] = {}
    for path in paths:
        if path is None or path in out:
            continue
        try:
            with open(path, encoding="utf-8-sig") as handle:
                out[path] = SourceFile(path, handle.read().replace("\r\n", "\n"))
        except (OSError, UnicodeDecodeError):
            continue
    return tuple(out.values())


def render_chart(unit: RenderUnit, settings: ChartSettings, helm: str = "helm") -> RenderedSource | RenderIssue:
    """``helm template`` one chart; findings map back through the ``# Source:`` comments."""
    import shutil

    binary = shutil.which(helm)
    if binary is None:
        return _issue(
            unit,
            "renderer-missing",
            f"{unit.root} is a Helm chart and `{helm}` is not on PATH, so it was not rendered or linted; "
            f"install helm (https://helm.sh/docs/intro/install/) or pipe the render: "
            f"helm template {unit.root} | dralint lint -",
        )
    command = [binary, "template", settings.release, unit.root]
    if settings.namespace:
        command += ["--namespace", settings.namespace]
    for values in settings.values:
        command += ["--values", values]
    for pair in settings.set:
        command += ["--set", pair]
    output = _run(command, unit)
    if isinstance(output, RenderIssue):
        return output
    origins = helm_origins(output, lambda source: chart_file(unit.root, source))
    return RenderedSource(f"<helm template {unit.root}>", output, origins, read_files(o.path for o in origins))


def chart_file(root: str, source: str) -> str | None:
    """The file a ``# Source: CHART/templates/x.yaml`` comment names, in the chart at ``root``."""
    _, _, rest = source.partition("/")
    path = os.path.normpath(os.path.join(root, rest))
    return path if rest and os.path.isfile(path) else None


def helm_origins(text: str, resolve: Callable[[str], str | None]) -> tuple[Origin, ...]:
    """One origin per ``# Source:``-labelled document of a Helm render."""
    origins: list[Origin] = []
    seen: dict[str, int] = {}
    lines = text.split("\n")
    start, source = 1, None
    for number, line in enumerate(lines + ["---"], 1):
        if line.startswith("---"):
            if source is not None:
                origins.append(Origin(start, number - 1, resolve(source), part=seen.get(source, 0)))
                seen[source] = seen.get(source, 0) + 1
            start, source = number + 1, None
            continue
        match = _SOURCE_RE.match(line)
        if match and source is None:
            source = match.group(1)
    return tuple(origins)


def stream_chart_resolver(search_root: str = ".", depth: int = 3) -> Callable[[str], str | None]:
    """For a render piped in: find the chart a ``# Source:`` names, from the current directory.

    ``CHART/templates/x.yaml`` is tried as a path first, then as a chart named CHART (by its
    Chart.yaml) in a directory at most ``depth`` levels down.
    """
    found: dict[str, str | None] = {}

    def chart_root(name: str) -> str | None:
        if name not in found:
            matches = [d for d in _chart_dirs(search_root, depth) if _chart_name(d) == name]
            found[name] = matches[0] if len(matches) == 1 else None
        return found[name]

    def resolve(source: str) -> str | None:
        if os.path.isfile(source) and os.path.isfile(os.path.join(source.split("/")[0], CHART_FILE)):
            return os.path.normpath(source)
        root = chart_root(source.split("/")[0])
        return chart_file(root, source) if root is not None else None

    return resolve


def _chart_dirs(root: str, depth: int) -> list[str]:
    out = []
    for directory, subdirs, names in os.walk(root):
        level = 0 if directory == root else os.path.relpath(directory, root).count(os.sep) + 1
        subdirs[:] = (
            [] if level >= depth else sorted(d for d in subdirs if d not in SKIPPED_DIRS and not d.startswith("."))
        )
        if CHART_FILE in names:
            out.append(os.path.normpath(directory))
    return out


def _chart_name(directory: str) -> str | None:
    data = _load_yaml(os.path.join(directory, CHART_FILE))
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def has_source_comments(text: str) -> bool:
    """Whether a stream looks like ``helm template`` output (documents labelled ``# Source:``)."""
    return any(_SOURCE_RE.match(line) for line in text.split("\n", 200)[:200])


def kustomize_command() -> list[str] | None:
    """``kustomize build`` when kustomize is on PATH, else ``kubectl kustomize``, else None."""
    import shutil

    kustomize = shutil.which("kustomize")
    if kustomize:
        return [kustomize, "build"]
    kubectl = shutil.which("kubectl")
    return [kubectl, "kustomize"] if kubectl else None


def render_overlay(unit: RenderUnit) -> RenderedSource | RenderIssue:
    """Build one overlay through a throw-away kustomization that asks for origin annotations.

    The wrapper names the overlay as its only resource (by a relative path, as kustomize
    requires) and sets ``buildMetadata``, so every object says which file it came from and
    which kustomizations patched it; those annotations are removed before linting.
    """
    command = kustomize_command()
    if command is None:
        return _issue(
            unit,
            "renderer-missing",
            f"{unit.root} is a Kustomize overlay and neither `kustomize` nor `kubectl` is on PATH, so it was not "
            f"built or linted; install kustomize (https://kubectl.docs.kubernetes.io/installation/kustomize/) "
            f"or pipe the build: kustomize build {unit.root} | dralint lint -",
        )
    import tempfile

    with tempfile.TemporaryDirectory(prefix="dralint-kustomize-") as wrapper:
        target = os.path.relpath(os.path.realpath(unit.root), os.path.realpath(wrapper))
        with open(os.path.join(wrapper, "kustomization.yaml"), "w", encoding="utf-8") as handle:
            handle.write(f"buildMetadata: [originAnnotations, transformerAnnotations]\nresources:\n- {target}\n")
        output = _run(command + [wrapper], unit)
        if isinstance(output, RenderIssue):
            return output
        return _overlay_render(unit, output, os.path.realpath(wrapper))


def _shown(real: str, unit: RenderUnit) -> str:
    """A real path as the user would name it: relative when they named the overlay so."""
    return real if os.path.isabs(unit.root) else os.path.relpath(real)


def _overlay_render(unit: RenderUnit, output: str, wrapper: str) -> RenderedSource:
    texts: list[str] = []
    origins: list[Origin] = []
    line = 1
    for raw in re.split(r"(?m)^---\n", output):
        if not raw.strip():
            continue
        data = _safe(raw)
        annotations = (
            (data.get("metadata") or {}).get("annotations")
            if isinstance(data, dict) and isinstance(data.get("metadata"), dict)
            else None
        )
        annotations = annotations if isinstance(annotations, dict) else {}
        text = strip_build_metadata(raw)
        count = text.count("\n") + (0 if text.endswith("\n") else 1)
        source = _origin_path(annotations.get(_ORIGIN_KEYS[0]), wrapper)
        patches = _patch_files(annotations.get(_ORIGIN_KEYS[1]), wrapper, data)
        origins.append(
            Origin(
                line,
                line + count - 1,
                _shown(source, unit) if source else None,
                tuple(_shown(p, unit) for p in patches),
            )
        )
        texts.append(text if text.endswith("\n") else text + "\n")
        line += count + 1
    rendered = "---\n".join(texts)
    files = read_files([o.path for o in origins] + [p for o in origins for p in o.patches])
    return RenderedSource(f"<kustomize build {unit.root}>", rendered, tuple(origins), files)


def _safe(text: str) -> Any:
    try:
        return yaml.load(text, Loader=LOADER)
    except yaml.YAMLError:
        return None


def _origin_path(value: Any, wrapper: str) -> str | None:
    """The file an origin annotation names: the resource's file, or for a generated object
    (a ConfigMap or Secret generator) the kustomization that configured it."""
    data = _safe(value) if isinstance(value, str) else None
    path = (data.get("path") or data.get("configuredIn")) if isinstance(data, dict) and not data.get("repo") else None
    if not isinstance(path, str):
        return None
    real = os.path.realpath(os.path.join(wrapper, path))
    return real if os.path.isfile(real) else None


def _patch_files(value: Any, wrapper: str, obj: Any) -> list[str]:
    """Patch files of the kustomizations that patched ``obj`` whose kind matches it, latest first."""
    entries = _safe(value) if isinstance(value, str) else None
    kind = obj.get("kind") if isinstance(obj, dict) else None
    out: list[str] = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or not isinstance(entry.get("configuredIn"), str):
            continue
        by = entry.get("configuredBy")
        if not isinstance(by, dict) or by.get("kind") not in _PATCH_TRANSFORMERS:
            continue
        kustomization = os.path.realpath(os.path.join(wrapper, entry["configuredIn"]))
        for ref in kustomization_refs(kustomization):
            patch = _load_yaml(ref) if os.path.isfile(ref) else None
            if isinstance(patch, dict) and patch.get("kind") == kind and ref not in out:
                out.append(ref)
    return list(reversed(out))


def strip_build_metadata(text: str) -> str:
    """Remove the origin annotations the wrapper asked for from one document of kustomize's
    output (and ``annotations:`` when nothing else is left), leaving what a plain build prints."""
    lines = text.split("\n")
    out: list[str] = []
    skipping = False
    in_metadata = in_annotations = False
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if skipping and (indent > 4 or not line.strip()) and line != "":
            continue
        skipping = False
        if indent == 0:
            in_metadata = line.startswith("metadata:")
        if indent <= 2:
            in_annotations = in_metadata and line == "  annotations:"
        if in_annotations and indent == 4 and line.strip().split(":")[0] in _ORIGIN_KEYS:
            skipping = True
            continue
        out.append(line)
    return _drop_empty_annotations("\n".join(out))


def _drop_empty_annotations(text: str) -> str:
    lines = text.split("\n")
    in_metadata = False
    for index, line in enumerate(lines):
        if line and not line.startswith(" "):
            in_metadata = line.startswith("metadata:")
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if in_metadata and line == "  annotations:" and not following.startswith("    "):
            return "\n".join(lines[:index] + lines[index + 1 :])
    return text
