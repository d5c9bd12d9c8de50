"""Configuration: discovery, every LintOptions field, positioned errors, CLI precedence, --show."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dralint.cli.main import main
from dralint.lint.config import KEYS, config_key, find_config, load_config
from dralint.lint.options import LintOptions

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
DUPLICATE = CM + "  name: again\n"


def problems(config):
    return [(f.rule, f.span.line, f.span.column, f.message) for f in config.findings]


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def _valid_value(name: str, type_text: str):
    """A non-default value of each field's type, so the test covers fields added later too."""
    special = {
        "profile": "strict",
        "fail_on": "warning",
        "severity_overrides": {"YAML002": "warning"},
        "select": ["YAML"],
        "ignore": ["YAML010"],
        "per_path_ignores": {"vendor/*": ["YAML002"]},
        "min_score": 80,
        "max_file_bytes": 1000,
        "pss_level": "restricted",
        "closed_world": ["DeviceClass"],
        "feature_gates": {"DRAPrioritizedList": False},
        "drivers": {"gpu.nvidia.com": "25.8.0"},
        "driver_catalogs": [],
        "charts": {"chart": {"values": ["prod.yaml"], "set": ["workers=4"], "release": "r", "namespace": "ml"}},
    }
    if name in special:
        return special[name]
    base = type_text.removesuffix("| None").strip()
    return {
        "str": "x",
        "int": 3,
        "bool": True,
        "list[str]": ["x"],
        "set[str]": ["X"],
        "dict[str, bool]": {"Gate": True},
        "dict[str, str]": {"k": "v"},
        "dict[str, list[str]]": {"k": ["v"]},
    }[base]


def test_every_lintoptions_field_is_a_config_key(in_tmp):
    values = {config_key(f.name): _valid_value(f.name, str(f.type)) for f in dataclasses.fields(LintOptions)}
    assert set(values) == set(KEYS)
    write(in_tmp / "x", "")  # the input path fields must name files that exist
    config = load_config(write(in_tmp / ".dralint.yaml", yaml.safe_dump(values)))
    assert problems(config) == []
    options = config.apply(LintOptions())
    for f in dataclasses.fields(LintOptions):
        expected = values[config_key(f.name)]
        assert getattr(options, f.name) == (set(expected) if isinstance(getattr(options, f.name), set) else expected), (
            f.name
        )


def test_unknown_key_and_bad_values_have_positions(in_tmp):
    text = (
        "profile: strictest\n"  # 1: bad choice
        "fail_on: warning\n"  # 2: unknown key (snake case)
        "min-score: 120\n"  # 3: out of range
        "select: YAML\n"  # 4: string instead of list
        "severity-overrides:\n"
        "  YAML002: fatal\n"  # 6: bad level
        "  NOPE001: error\n"  # 7: unknown rule id
        "feature-gates:\n"
        "  DRAPrioritizedList: yes please\n"  # 9: not a bool
        "closed-world: [DeviceClass, 3]\n"  # 10: item not a string
    )
    config = load_config(write(in_tmp / ".dralint.yaml", text))
    got = {(line, col): message for _, line, col, message in problems(config)}
    assert got[(1, 10)] == "profile must be one of dra, recommended, strict, got 'strictest'"
    assert got[(2, 1)] == "unknown config key 'fail_on'"
    assert got[(3, 12)] == "min-score must be between 0 and 100, got 120"
    assert got[(4, 9)].startswith("select must be a list of strings, got a string")
    assert got[(6, 12)] == "severity-overrides.YAML002 must be one of error, warning, info, got 'fatal'"
    assert got[(7, 3)].startswith("severity-overrides.NOPE001 'NOPE001' is not a rule id")
    assert got[(9, 23)] == "feature-gates.DRAPrioritizedList must be true or false, got a string"
    assert got[(10, 29)] == "closed-world.1 must be a non-empty string, got an integer"
    assert len(got) == 8
    assert next(f.hint for f in config.findings if "fail_on" in f.message) == "did you mean 'fail-on'?"
    assert config.values == {}  # every entry was bad, none applied


def test_unknown_rule_names_are_warnings_but_apply(in_tmp):
    config = load_config(write(in_tmp / ".dralint.yaml", "ignore: [YAML010, YAML999]\n"))
    assert problems(config) == [
        ("CFG002", 1, 19, "'YAML999' matches no dralint rule (by id, family, name, category or tag)")
    ]
    assert config.values["ignore"] == ["YAML010", "YAML999"]


def test_yaml_syntax_errors_and_non_mapping(in_tmp):
    config = load_config(write(in_tmp / ".dralint.yaml", "profile: strict\nselect: [YAML\n"))
    assert [(rule, line) for rule, line, _, _ in problems(config)] == [("CFG001", 3)]
    config = load_config(write(in_tmp / ".dralint.yaml", "- profile\n"))
    assert problems(config)[0][3].startswith("the config file must be a mapping")
    config = load_config(write(in_tmp / ".dralint.yaml", "profile: dra\nprofile: strict\n"))
    assert problems(config)[0][1:3] == (2, 1) and "duplicate key" in problems(config)[0][3]
    assert load_config(write(in_tmp / ".dralint.yaml", "")).findings == []


def test_pyproject_table_with_positions(in_tmp):
    text = (
        "[project]\nname = 'x'\n\n"
        "[tool.dralint]\n"
        "profile = 'strict'\n"
        "fail-on = 'sometimes'\n"
        "unknown = 1\n\n"
        "[tool.dralint.severity-overrides]\n"
        "YAML002 = 'loud'\n"
    )
    path = write(in_tmp / "pyproject.toml", text)
    assert find_config(in_tmp) == path
    config = load_config(path)
    got = {(line, col): message for _, line, col, message in problems(config)}
    assert got == {
        (6, 1): "fail-on must be one of error, warning, info, never, got 'sometimes'",
        (7, 1): "unknown config key 'unknown'",
        (10, 1): "severity-overrides.YAML002 must be one of error, warning, info, got 'loud'",
    }
    assert config.values == {"profile": "strict"}
    broken = load_config(write(in_tmp / "pyproject.toml", "[tool.dralint]\nprofile = \n"))
    assert problems(broken)[0][:3] == ("CFG001", 2, 11)


def test_discovery_prefers_the_nearest_and_skips_pyproject_without_table(in_tmp):
    write(in_tmp / ".dralint.yaml", "profile: strict\n")
    write(in_tmp / "sub" / "pyproject.toml", "[project]\nname = 'x'\n")
    deeper = in_tmp / "sub" / "deeper"
    deeper.mkdir()
    assert find_config(deeper) == str(in_tmp / ".dralint.yaml")
    write(in_tmp / "sub" / "pyproject.toml", "[tool.dralint]\nprofile = 'dra'\n")
    assert find_config(deeper) == str(in_tmp / "sub" / "pyproject.toml")


def test_paths_are_relative_to_the_config_file(in_tmp, monkeypatch):
    write(
        in_tmp / ".dralint.yaml",
        "paths: [deploy]\ncontext: [shared]\nslices: ['example:h100']\nper-path-ignores:\n"
        "  deploy/vendor/*: [YAML002]\n",
    )
    (in_tmp / "sub").mkdir()
    (in_tmp / "shared").mkdir()
    monkeypatch.chdir(in_tmp / "sub")
    config = load_config(find_config("."))
    assert config.values["paths"] == ["../deploy"] and config.values["context"] == ["../shared"]
    assert config.values["slices"] == ["example:h100"]  # a snapshot name, not a path
    assert list(config.values["per_path_ignores"]) == ["../deploy/vendor/*"]
    assert config.locate_per_path("../deploy/vendor/*").line == 5


def invoke(*args):
    return CliRunner().invoke(main, list(args))


def test_cli_uses_config_and_command_line_wins(in_tmp):
    write(in_tmp / "deploy" / "cm.yaml", DUPLICATE)
    write(in_tmp / ".dralint.yaml", "paths: [deploy]\nseverity-overrides: {YAML002: warning}\nfail-on: warning\n")
    result = invoke("lint")
    assert result.exit_code == 1 and "deploy/cm.yaml:5:3: warning:" in result.stdout
    assert invoke("lint", "--fail-on", "error").exit_code == 0
    unconfigured = invoke("lint", "--no-config")
    assert unconfigured.exit_code == 1 and "deploy/cm.yaml:5:3: error:" in unconfigured.stdout
    other = write(in_tmp / "other.yaml", "fail-on: never\npaths: [deploy]\n")
    assert invoke("lint", "--config", other).exit_code == 0
    assert invoke("lint", "--config", "missing.yaml").exit_code == 2


def test_bad_config_fails_the_run_with_positions(in_tmp):
    write(in_tmp / "cm.yaml", CM)
    write(in_tmp / ".dralint.yaml", "profile: strict\nfail_on: warning\n")
    result = invoke("lint", "cm.yaml")
    assert result.exit_code == 1
    assert ".dralint.yaml:2:1: error: unknown config key 'fail_on' [CFG001]" in result.stdout


def test_context_default_from_config(in_tmp):
    write(in_tmp / "templates" / "broken.yaml", DUPLICATE)
    write(in_tmp / "changed.yaml", CM)
    write(in_tmp / ".dralint.yaml", "context: [templates]\n")
    result = invoke("lint", "--format", "json", "changed.yaml")
    assert result.exit_code == 0
    assert '"diagnostics": []' in result.stdout


def test_input_paths_that_do_not_exist_are_findings_at_their_entry(in_tmp):
    write(in_tmp / "templates" / "class.yaml", CM)
    write(in_tmp / "cm.yaml", CM)
    write(
        in_tmp / ".dralint.yaml",
        "context: [templates, nope/]\nslices: [cluster.yaml]\nhelm-values: [prod.yaml]\ndriver-catalogs: [ours.yaml]\n",
    )
    config = load_config(".dralint.yaml")
    assert [(rule, line, column) for rule, line, column, _ in problems(config)] == [
        ("CFG001", 1, 22),
        ("CFG001", 2, 10),
        ("CFG001", 3, 15),
        ("CFG001", 4, 19),
    ]
    assert problems(config)[0][3] == (
        "context.1 names 'nope/', which does not exist (paths here are relative to the config file's directory)"
    )
    assert config.values["context"] == ["templates"]
    assert config.values["slices"] == config.values["helm_values"] == config.values["driver_catalogs"] == []
    result = invoke("lint", "cm.yaml")
    assert result.exit_code == 1 and result.stdout.count("[CFG001]") == 4


def test_config_show(in_tmp):
    write(in_tmp / ".dralint.yaml", "profile: strict\nmin-score: 70\n")
    result = invoke("config", "--show")
    assert result.exit_code == 0
    assert result.stdout.startswith("# effective dralint configuration (.dralint.yaml)")
    shown = yaml.safe_load(result.stdout)
    assert shown["profile"] == "strict" and shown["min-score"] == 70 and shown["fail-on"] == "error"
    assert set(shown) == set(KEYS)
    write(in_tmp / ".dralint.yaml", "profile: strictest\n")
    bad = invoke("config", "--show")
    assert bad.exit_code == 1 and ".dralint.yaml:1:10: error: profile must be one of" in bad.output


def _first_yaml_block(page: str, heading: str) -> str:
    text = (Path(__file__).resolve().parent.parent / page).read_text(encoding="utf-8")
    return text.split(f"\n{heading}\n", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]


def _with_its_inputs(directory: Path, example: str) -> str:
    """``example`` written as a config in ``directory``, with the files its input paths name."""
    for key in ("context", "slices", "helm-values", "driver-catalogs"):
        for path in yaml.safe_load(example).get(key) or []:
            if ":" not in path:
                write(directory / path / "x.yaml" if path.endswith("/") else directory / path, "")
    return write(directory / ".dralint.yaml", example)


def test_config_reference_names_every_key_and_is_a_valid_config(in_tmp):
    example = _first_yaml_block("docs/configuration.md", "## The configuration file")
    config = load_config(_with_its_inputs(in_tmp, example))
    assert config.findings == []
    assert {config_key(name) for name in config.values} == set(KEYS)


def test_readme_config_example_is_a_valid_config(in_tmp):
    example = _first_yaml_block("README.md", "## Configuration")
    config = load_config(_with_its_inputs(in_tmp, example))
    assert config.findings == [] and "profile" in {config_key(name) for name in config.values}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(alphabet=st.sampled_from(list("abc-_:[]{}#\"' \n\t0123456789.=\x00é")), max_size=80),
    name=st.sampled_from([".dralint.yaml", "pyproject.toml"]),
)
def test_any_config_text_gives_findings_never_an_exception(tmp_path, text, name):
    if name == "pyproject.toml":
        text = "[tool.dralint]\n" + text
    config = load_config(write(tmp_path / name, text))
    for finding in config.findings:
        assert finding.span.line >= 1 and finding.span.column >= 1
        assert finding.rule in ("CFG001", "CFG002")


def test_bad_config_is_reported_under_every_profile_and_select(in_tmp):
    write(in_tmp / "cm.yaml", CM)
    write(in_tmp / ".dralint.yaml", "profile: dra\nselect: [YAML]\nmin_score: 3\n")
    result = CliRunner().invoke(main, ["lint", "cm.yaml"])
    assert result.exit_code == 1 and "unknown config key 'min_score' [CFG001]" in result.stdout
    write(in_tmp / ".dralint.yaml", "ignore: [CFG001]\nmin_score: 3\n")
    assert CliRunner().invoke(main, ["lint", "cm.yaml"]).exit_code == 0
