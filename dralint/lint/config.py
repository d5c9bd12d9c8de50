"""Configuration files: ``.dralint.yaml`` (or ``.yml``) and ``[tool.dralint]`` in pyproject.toml.

Every ``LintOptions`` field is a key, spelled in kebab-case (``feature-gates``,
``closed-world``, ``per-path-ignores``); the keys are derived from the dataclass, so a field
added to ``LintOptions`` is configurable without touching this module. The config file is
linted like a manifest: unknown keys, wrong types and bad values become CFG001 findings at
their line and column (YAML through dralint's positioned loader), and rule names that match no
rule become CFG002 warnings. A bad entry is skipped; the rest of the file still applies.

Relative paths in the file are relative to the file's directory, so a config found in a parent
directory means the same thing from any subdirectory.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from dralint.diagnostics import Finding, Severity, Span
from dralint.k8s.features import DRA_GATES
from dralint.lint.catalog import load_catalog
from dralint.lint.context import CLOSABLE_KINDS
from dralint.lint.options import FAIL_ON, PROFILES, PSS_LEVELS, LintOptions
from dralint.lint.selectors import did_you_mean, selector_words, split_names, unknown_selectors
from dralint.yaml.loader import SourceText, load
from dralint.yaml.plain import type_name

CONFIG_NAMES = (".dralint.yaml", ".dralint.yml")
PYPROJECT = "pyproject.toml"
BAD_CONFIG, UNKNOWN_RULE = "CFG001", "CFG002"
#: Fields whose values are file-system paths, resolved against the config file's directory.
PATH_FIELDS = frozenset({"paths", "context", "slices", "baseline", "sarif_root", "helm_values", "driver_catalogs"})
#: Path fields whose files are read as the run's inputs besides the linted paths: one that does
#: not exist is a finding at its entry (the command line's ``--context`` and ``--slices`` make it
#: a usage error), never a run that silently reads less.
INPUT_FIELDS = frozenset({"context", "slices", "helm_values", "driver_catalogs"})
#: Fields whose values are fixed words.
CHOICES: dict[str, tuple[str, ...]] = {"profile": PROFILES, "fail_on": FAIL_ON, "pss_level": PSS_LEVELS}
#: Fields that name rules (by id, family, name, category or tag).
RULE_LIST_FIELDS = frozenset({"select", "ignore"})
_MAX_CONFIG_BYTES = 1024 * 1024

Locate = Callable[[tuple, bool], Span]


def config_key(name: str) -> str:
    """The config spelling of a LintOptions field."""
    return name.replace("_", "-")


KEYS: dict[str, dataclasses.Field] = {config_key(f.name): f for f in dataclasses.fields(LintOptions)}


class LoadedConfig:
    """A config file's validated values (by LintOptions field name) and its problems."""

    __slots__ = ("path", "values", "findings", "source", "locate", "written_patterns")

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self.values: dict[str, Any] = {}
        self.findings: list[Finding] = []
        self.source: SourceText | None = None
        self.locate: Locate | None = None
        #: per-path-ignores globs as rebased to the current directory -> as written in the file.
        self.written_patterns: dict[str, str] = {}

    def apply(self, options: LintOptions, keep: AbstractSet[str] = frozenset()) -> LintOptions:
        """Set every configured field on ``options`` except those in ``keep`` (set on the CLI)."""
        for name, value in self.values.items():
            if name not in keep:
                setattr(options, name, value)
        return options

    def locate_per_path(self, pattern: str) -> Span | None:
        """Where a ``per-path-ignores`` glob is written, for unused-suppression warnings."""
        if self.locate is None or pattern not in self.written_patterns:
            return None
        return self.locate(("per-path-ignores", self.written_patterns[pattern]), True)

    def shown(self) -> dict[str, Any]:
        """The effective configuration in config spelling, defaults filled in."""
        effective = self.apply(LintOptions())
        out = {}
        for f in dataclasses.fields(LintOptions):
            value = getattr(effective, f.name)
            out[config_key(f.name)] = sorted(value) if isinstance(value, set) else value
        return out


def find_config(start: str | os.PathLike = ".") -> str | None:
    """The nearest ``.dralint.yaml`` or pyproject.toml with ``[tool.dralint]``, walking up."""
    directory = Path(start).resolve()
    for candidate_dir in (directory, *directory.parents):
        for name in CONFIG_NAMES:
            if (candidate_dir / name).is_file():
                return str(candidate_dir / name)
        pyproject = candidate_dir / PYPROJECT
        if pyproject.is_file() and _has_tool_table(pyproject):
            return str(pyproject)
    return None


def _has_tool_table(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return re.search(r"^\s*\[\s*tool\s*\.\s*dralint\s*[.\]]", text, re.M) is not None


def _inside(path: str, directory: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(directory)]) == os.path.abspath(directory)
    except ValueError:  # different drives
        return False


def display_path(path: str, base_dir: str) -> str:
    """A path written in a config file in ``base_dir``, as findings should show it.

    Relative to the current directory when the config was found from inside its directory
    (``../deploy`` from a subdirectory), otherwise absolute, which reads better than a long
    climb of ``..``.
    """
    path = os.path.normpath(os.path.join(base_dir, path))
    if _inside(path, base_dir) and _inside(os.getcwd(), base_dir):
        return os.path.relpath(path)
    return path


def load_config(path: str) -> LoadedConfig:
    """Read and validate one config file; problems are findings, never exceptions."""
    shown = display_path(os.path.abspath(path), os.path.dirname(os.path.abspath(path)))
    config = LoadedConfig(path=shown)
    try:
        with open(path, "rb") as handle:  # bounded: a config named /dev/zero never ends
            raw = handle.read(_MAX_CONFIG_BYTES + 1)
        text = raw.decode("utf-8")
    except OSError as error:
        config.findings.append(
            _problem(Span(shown, 1, 1, 1, 2), f"cannot read the config file: {error.strerror or error}")
        )
        return config
    except UnicodeDecodeError as error:
        config.findings.append(_problem(Span(shown, 1, 1, 1, 2), f"the config file is not UTF-8 text ({error.reason})"))
        return config
    if len(raw) > _MAX_CONFIG_BYTES:
        config.findings.append(
            _problem(Span(shown, 1, 1, 1, 2), "the config file is over 1 MiB; that is no config file")
        )
        return config
    config.source = SourceText(shown, text)
    data = _pyproject_table(config) if Path(path).name == PYPROJECT else _yaml_mapping(config)
    if data:
        _validate(config, data, os.path.dirname(os.path.abspath(path)))
    return config


def _problem(span: Span, message: str, hint: str | None = None, rule: str = BAD_CONFIG) -> Finding:
    return Finding(message, span, hint=hint, rule=rule)


def _yaml_mapping(config: LoadedConfig) -> dict | None:
    source = config.source
    assert source is not None
    result = load(source)
    for problem in result.problems:
        span = Span(
            source.path,
            problem.line + 1,
            problem.column + 1,
            problem.end_line + 1,
            max(problem.end_column, problem.column + 1) + 1,
        )
        config.findings.append(_problem(span, f"the config file is not valid YAML: {problem.message}"))
    documents = [doc for doc in result.documents if doc.data is not None]
    if not documents:
        return None if result.problems else {}
    first = documents[0]
    config.locate = first.locate
    for extra in documents[1:]:
        config.findings.append(
            _problem(extra.locate(()), "the config file holds more than one YAML document; only the first is read")
        )
    if not isinstance(first.data, dict):
        config.findings.append(
            _problem(first.locate(()), "the config file must be a mapping of settings (like `profile: strict`)")
        )
        return None
    return first.data


#: ``name:rest`` values (such as built-in snapshot names like ``example:h100``) are not paths.
_NOT_A_PATH = re.compile(r"^[a-z][a-z0-9+.-]+:(?![\\/])")
_HEADER_RE = re.compile(r"^\s*\[\s*([^\]\[]+?)\s*\]\s*(#.*)?$")


def _pyproject_table(config: LoadedConfig) -> dict | None:
    import tomllib  # only for a pyproject.toml, not at every start

    source = config.source
    assert source is not None
    try:
        data = tomllib.loads(source.text)
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        line, column = (int(where.group(1)), int(where.group(2))) if where else (1, 1)
        config.findings.append(
            _problem(
                Span(source.path, line, column, line, column + 1),
                f"pyproject.toml is not valid TOML: {str(error).split(' (at')[0]}",
            )
        )
        return None
    table = data.get("tool", {}).get("dralint") if isinstance(data.get("tool"), dict) else None
    config.locate = _toml_locator(source)
    if table is None:
        return {}
    if not isinstance(table, dict):
        config.findings.append(_problem(config.locate((), True), "[tool.dralint] must be a table"))
        return None
    return table


def _toml_locator(source: SourceText) -> Locate:
    """Spans for keys of ``[tool.dralint]``: the line that sets the key, found by scanning.

    tomllib keeps no positions, so the key's own line is found in its table (a sub-table
    ``[tool.dralint.x]`` for nested keys); the table header is the fallback.
    """
    lines = [source.line_text(n) for n in range(1, len(source.line_starts) + 1)]
    sections: dict[str, int] = {}
    current = None
    key_lines: dict[tuple[str | None, str], int] = {}
    for number, text in enumerate(lines, 1):
        header = _HEADER_RE.match(text)
        if header:
            current = re.sub(r"\s*\.\s*", ".", header.group(1)).replace('"', "")
            sections.setdefault(current, number)
            continue
        key = re.match(r"^\s*\"?([A-Za-z0-9_.*/?\[\]-]+?)\"?\s*=", text)
        if key:
            key_lines.setdefault((current, key.group(1)), number)

    def span_at(number: int, name: str | None) -> Span:
        text = lines[number - 1]
        start = text.find(name) if name else -1
        start = start if start >= 0 else len(text) - len(text.lstrip())
        end = start + len(name) if name and start >= 0 else len(text)
        return Span(source.path, number, start + 1, number, max(end, start + 1) + 1)

    def locate(path: tuple, key: bool = False) -> Span:
        table = "tool.dralint"
        for depth in range(len(path), 0, -1):
            parent = ".".join([table, *map(str, path[: depth - 1])])
            name = str(path[depth - 1])
            if (parent, name) in key_lines:
                return span_at(key_lines[(parent, name)], name)
            if f"{parent}.{name}" in sections:
                return span_at(sections[f"{parent}.{name}"], name)
        number = sections.get(table, 1)
        return span_at(number, None)

    return locate


# --- validation ----------------------------------------------------------------------------------


class _Bad(Exception):
    def __init__(self, path: tuple, message: str, key: bool = False):
        super().__init__(message)
        self.path, self.message, self.key = path, message, key


def _str_list(value: Any, path: tuple) -> list[str]:
    if isinstance(value, str):
        raise _Bad(path, f"must be a list of strings, got a string; write [{value!r}]")
    if not isinstance(value, list):
        raise _Bad(path, f"must be a list of strings, got {type_name(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item:
            raise _Bad(path + (index,), f"must be a non-empty string, got {type_name(item)}")
    return list(value)


def _mapping(value: Any, path: tuple) -> dict:
    if not isinstance(value, dict):
        raise _Bad(path, f"must be a mapping, got {type_name(value)}")
    for key in value:
        if not isinstance(key, str):
            raise _Bad(path + (key,), f"keys must be strings, got {type_name(key)}", key=True)
    return value


def _convert(type_text: str, value: Any, path: tuple) -> Any:
    """Check ``value`` against a LintOptions annotation and return it in the field's type."""
    optional = type_text.endswith("| None")
    base = type_text.removesuffix("| None").strip()
    if value is None:
        if optional:
            return None
        raise _Bad(path, "must not be empty")
    if base == "str":
        if not isinstance(value, str):
            raise _Bad(path, f"must be a string, got {type_name(value)}")
        return value
    if base == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise _Bad(path, f"must be an integer, got {type_name(value)}")
        return value
    if base == "bool":
        if not isinstance(value, bool):
            raise _Bad(path, f"must be true or false, got {type_name(value)}")
        return value
    if base in ("list[str]", "set[str]"):
        items = _str_list(value, path)
        return set(items) if base == "set[str]" else items
    if base == "dict":
        return _mapping(value, path)
    if base.startswith("dict[str, "):
        inner = base[len("dict[str, ") : -1]
        return {k: _convert(inner, v, path + (k,)) for k, v in _mapping(value, path).items()}
    raise _Bad(path, f"has type {type_text}, which the config file cannot express yet")


def _rule_names(names: list[str], path: tuple, config: LoadedConfig) -> None:
    """CFG002 for each rule selector that matches no rule in the catalog."""
    catalog = load_catalog().values()
    for index, written in enumerate(names):
        for name in unknown_selectors(split_names([written]), catalog):
            assert config.locate is not None
            config.findings.append(
                _problem(
                    config.locate(path + (index,), False),
                    f"{name!r} matches no dralint rule (by id, family, name, category or tag)",
                    hint=f"{did_you_mean(name, selector_words(catalog)).strip() or '`dralint rules` lists the rules'}",
                    rule=UNKNOWN_RULE,
                )
            )


def _check_value(name: str, value: Any, key: str, config: LoadedConfig) -> Any:
    """Value checks beyond the type: fixed words, ranges and rule names.

    Returns the value to apply, or None when nothing of it is usable; a bad entry of a mapping
    is reported and dropped, the rest kept.
    """
    if name in CHOICES and value not in CHOICES[name]:
        raise _Bad((key,), f"must be one of {', '.join(CHOICES[name])}, got {value!r}")
    if name == "min_score" and value is not None and not 0 <= value <= 100:
        raise _Bad((key,), f"must be between 0 and 100, got {value}")
    if name == "max_file_bytes" and value <= 0:
        raise _Bad((key,), f"must be a positive number of bytes, got {value}")
    if name == "jobs" and value < 0:
        raise _Bad((key,), f"must be 0 (one per CPU) or a number of processes, got {value}")
    if name in ("hpa_min_replicas", "max_dns_ndots") and value is not None and value < 1:
        raise _Bad((key,), f"must be at least 1, got {value}")
    if name == "severity_overrides":
        levels = [s.value for s in Severity]
        kept = {}
        for rule_id, level in value.items():
            if level not in levels:
                _report(config, _Bad((key, rule_id), f"must be one of {', '.join(levels)}, got {level!r}"))
            elif rule_id not in load_catalog():
                _report(
                    config,
                    _Bad(
                        (key, rule_id), f"{rule_id!r} is not a rule id (severity overrides name rules by id)", key=True
                    ),
                )
            else:
                kept[rule_id] = level
        return kept if kept or not value else None
    if name == "feature_gates":
        for gate in value:
            if gate not in DRA_GATES:
                _report(
                    config,
                    _Bad(
                        (key, gate),
                        f"{gate!r} is not a Kubernetes v1.37 feature gate that dralint models;"
                        f"{did_you_mean(gate, DRA_GATES)} it changes nothing here",
                        key=True,
                    ),
                )
    if name == "closed_world":
        for kind in sorted(set(split_names(value)) - set(CLOSABLE_KINDS)):
            _report(
                config,
                _Bad(
                    (key,),
                    f"{kind!r} is not a kind dralint resolves references to;{did_you_mean(kind, CLOSABLE_KINDS)} "
                    f"known: {', '.join(CLOSABLE_KINDS)}",
                ),
            )
        return set(split_names(value))
    if name in RULE_LIST_FIELDS:
        _rule_names(value, (key,), config)
        return split_names(value)
    if name == "per_path_ignores":
        for pattern, names in value.items():
            _rule_names(names, (key, pattern), config)
        return {pattern: split_names(names) for pattern, names in value.items()}
    if name == "charts":
        return _charts(value, key, config)
    return value


#: What a ``charts`` entry may set, and the type of each setting.
CHART_KEYS = {"values": "list[str]", "set": "list[str]", "release": "str", "namespace": "str | None"}


def _charts(value: dict, key: str, config: LoadedConfig) -> dict:
    """``charts: {DIR: {values, set, release, namespace}}``: each entry checked on its own."""
    kept = {}
    for chart, settings in value.items():
        try:
            entry = {}
            for name, setting in _mapping(settings, (key, chart)).items():
                if name not in CHART_KEYS:
                    raise _Bad((key, chart, name), f"is not a chart setting (known: {', '.join(CHART_KEYS)})", key=True)
                entry[name] = _convert(CHART_KEYS[name], setting, (key, chart, name))
        except _Bad as bad:
            _report(config, bad)
            continue
        kept[chart] = entry
    return kept


def _report(config: LoadedConfig, bad: _Bad) -> None:
    assert config.locate is not None
    shown_path = ".".join(str(p) for p in bad.path)
    config.findings.append(_problem(config.locate(bad.path, bad.key), f"{shown_path} {bad.message}"))


def _rebase(value: Any, base_dir: str) -> Any:
    """Make config-relative paths usable from the current directory."""
    if value is None:
        return None
    if isinstance(value, list):
        return [_rebase(v, base_dir) for v in value]
    if value == "-" or os.path.isabs(value) or _NOT_A_PATH.match(value):
        return value
    return display_path(value, base_dir)


def _validate(config: LoadedConfig, data: dict, base_dir: str) -> None:
    assert config.locate is not None
    for key, value in data.items():
        spec = KEYS.get(key) if isinstance(key, str) else None
        if spec is None:
            near = [
                k
                for k in KEYS
                if isinstance(key, str) and (k.replace("-", "") == key.replace("_", "").replace("-", "").lower())
            ]
            hint = f"did you mean {near[0]!r}?" if near else f"known keys: {', '.join(sorted(KEYS))}"
            config.findings.append(_problem(config.locate((key,), True), f"unknown config key {key!r}", hint=hint))
            continue
        try:
            converted = _check_value(spec.name, _convert(str(spec.type), value, (key,)), key, config)
        except _Bad as bad:
            _report(config, bad)
            continue
        if converted is None and value is not None:
            continue
        if spec.name == "per_path_ignores":
            config.written_patterns = {_rebase(p, base_dir): p for p in converted}
            converted = {_rebase(p, base_dir): names for p, names in converted.items()}
        if spec.name == "environments":
            converted = {name: _rebase(globs, base_dir) for name, globs in converted.items()}
        if spec.name == "charts":
            converted = {
                _rebase(chart, base_dir): {
                    **entry,
                    **({"values": _rebase(entry["values"], base_dir)} if "values" in entry else {}),
                }
                for chart, entry in converted.items()
            }
        if spec.name in PATH_FIELDS:
            converted = _rebase(converted, base_dir)
        if spec.name in INPUT_FIELDS and converted is not None:
            converted = _existing(config, key, value, converted)
        config.values[spec.name] = converted
    if "drivers" in config.values or "driver_catalogs" in config.values:
        _check_drivers(config)


def _existing(config: LoadedConfig, key: str, written: list[str], rebased: list[str]) -> list[str]:
    """The entries of an input list that exist; each one that does not is a CFG001 at it."""
    kept = []
    for index, (entry, path) in enumerate(zip(written, rebased, strict=True)):
        if path == "-" or _NOT_A_PATH.match(path) or os.path.lexists(path):
            kept.append(path)
        else:
            _report(
                config,
                _Bad(
                    (key, index),
                    f"names {entry!r}, which does not exist (paths here are relative to the config file's directory)",
                ),
            )
    return kept


def _check_drivers(config: LoadedConfig) -> None:
    """A team's catalog files are read here, so their mistakes are CFG001 findings at their line
    and column; ``drivers`` must name releases the catalog (with those files) knows."""
    from dralint.k8s.drivers import load_catalog as load_drivers  # only for configs that use it
    from dralint.lint.drivers import release_problem

    catalog = load_drivers(config.values.get("driver_catalogs", []))
    for problem in catalog.problems:
        config.findings.append(_problem(problem.span, f"driver catalog: {problem.message}"))
    chosen = config.values.get("drivers", {})
    kept = {}
    for driver, version in chosen.items():
        found = release_problem(catalog, driver, version)
        if found is None:
            kept[driver] = version
            continue
        message, unknown_driver = found
        if unknown_driver:
            message += " (add an in-house driver with driver-catalogs)"
        else:
            message += "; it is judged against every release"
        _report(config, _Bad(("drivers", driver), message, key=unknown_driver))
    if "drivers" in config.values:
        config.values["drivers"] = kept
