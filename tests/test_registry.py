"""Which check modules a run imports: only those that can apply to the kinds it holds."""

from __future__ import annotations

from dralint.lint import check_index, registry


def _names(checks: list[registry.Check]) -> list[str]:
    return [check.name for check in checks]


def test_a_run_gets_the_checks_for_its_kinds_and_every_run_wide_check():
    every = registry.all_checks()
    config_maps = registry.all_checks({"ConfigMap"})
    assert any("SEC046" in c.rules for c in config_maps)
    assert {c.name for c in every if not c.per_object or c.kinds is None} <= set(_names(config_maps))
    for check in config_maps:  # a module comes whole: its checks of other kinds come along
        kinds = check_index.KINDS.get(check.function.__module__)  # None also: registered elsewhere
        assert kinds is None or "ConfigMap" in kinds
    assert not any(c.function.__module__ == "dralint.checks.security.pod" for c in config_maps)
    # The same relative order as the whole catalogue: findings come out in the same order.
    assert [n for n in _names(every) if n in set(_names(config_maps))] == _names(config_maps)


def test_a_stale_index_imports_every_module(monkeypatch):
    monkeypatch.setattr(check_index, "DIGEST", check_index.DIGEST + 1)
    assert _names(registry.all_checks({"ConfigMap"})) == _names(registry.all_checks())


def test_a_module_missing_from_the_index_is_imported(monkeypatch):
    kinds = dict(check_index.KINDS)
    del kinds["dralint.checks.security.pod"]
    monkeypatch.setattr(check_index, "KINDS", kinds)
    assert any(c.function.__module__ == "dralint.checks.security.pod" for c in registry.all_checks({"ConfigMap"}))
