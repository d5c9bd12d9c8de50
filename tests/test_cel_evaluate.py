"""dralint.k8s.cel.evaluate / matches / matching_devices: the scheduler's semantics."""

import pytest

from dralint.k8s.cel import Device, conjuncts, evaluate, matches, matching_devices
from dralint.k8s.quantity import parse_quantity
from dralint.k8s.semver import parse_semver

GPU = "gpu.example.com"


def _gpu(model: str = "A100", memory: str = "40Gi", version: str = "550.1.0", **extra) -> Device:
    return Device(
        driver=GPU,
        name=f"gpu-{model}",
        pool="node-a",
        attributes={
            GPU: {"model": model, "index": 0, "healthy": True, "driverVersion": parse_semver(version), **extra}
        },
        capacity={GPU: {"memory": parse_quantity(memory)}},
    )


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        (f'device.driver == "{GPU}"', True),
        (f'device.attributes["{GPU}"].model == "A100"', True),
        (f'device.attributes["{GPU}"].model == "H100"', False),
        (f'device.capacity["{GPU}"].memory.compareTo(quantity("40960Mi")) == 0', True),
        (f'device.capacity["{GPU}"].memory.isGreaterThan(quantity("40G"))', True),
        (f'device.capacity["{GPU}"].memory == quantity("40Gi")', True),
        (f'device.capacity["{GPU}"].memory.asInteger() == 42949672960', True),
        (f'device.capacity["{GPU}"].memory.add(quantity("1Gi")).compareTo(quantity("41Gi")) == 0', True),
        (f'device.attributes["{GPU}"].driverVersion.isGreaterThan(semver("550.0.9"))', True),
        (f'device.attributes["{GPU}"].driverVersion == semver("550.1.0+build")', True),  # build ignored
        (f'device.attributes["{GPU}"].driverVersion == "550.1.0"', False),  # Semver is not a string
        (f'device.attributes["{GPU}"].driverVersion.major() == 550', True),
        ('"other.io" in device.attributes', False),
        ('has(device.attributes["other.io"].model)', False),
        ('device.attributes["other.io"].?model.orValue("none") == "none"', True),  # unknown domain = {}
        ('device.attributes["other.io"].size() == 0', True),
        (f'device.attributes["{GPU}"].missing == 1 || true', True),  # error absorbed by ||
        (f'false && device.attributes["{GPU}"].missing == 1', False),  # error absorbed by &&
        (f'device.attributes["{GPU}"].all(k, v, k != "")', True),
        (f'cel.bind(g, device.attributes["{GPU}"], g.model == "A100" && g.healthy)', True),
        ("device.allowMultipleAllocations", False),
    ],
)
def test_values(expression: str, value: bool) -> None:
    result = evaluate(expression, _gpu())
    assert (result.value, result.error, result.unsupported) == (value, None, None)


def test_missing_attribute_is_an_error_not_false() -> None:
    result = evaluate(f'device.attributes["{GPU}"].productName == "x"', _gpu())
    assert result.value is None
    assert result.error is not None and result.error.startswith("no such key: productName")
    assert "has()" in result.error


def test_missing_attribute_in_unknown_domain_names_the_attribute() -> None:
    result = evaluate('device.attributes["other.io"].model == "x"', _gpu())
    assert result.error is not None and result.error.startswith("no such key: model")


def test_guard_on_domain_keeps_its_meaning() -> None:
    expression = '"other.io" in device.attributes && device.attributes["other.io"].model == "x"'
    assert evaluate(expression, _gpu()).value is False


def test_error_not_absorbed_when_the_other_side_does_not_decide() -> None:
    result = evaluate(f'device.attributes["{GPU}"].missing == 1 || false', _gpu())
    assert result.error is not None


def test_runtime_function_error() -> None:
    result = evaluate('sign(quantity("not-a-quantity")) == 1', _gpu())
    assert result.error is not None and "quantit" in result.error


def test_mixed_quantity_semver_at_runtime_is_an_error() -> None:
    # capacity is dyn for the checker, so this only fails at run time, as in Kubernetes
    result = evaluate(f'device.capacity["{GPU}"].memory.compareTo(semver("1.0.0")) == 0', _gpu())
    assert result.error is not None


def test_compile_error_and_unsupported() -> None:
    assert evaluate("device.driver > 1", _gpu()).error.startswith("CEL compile error")
    unsupported = evaluate('url("https://a").getHost() == "a"', _gpu())
    assert unsupported.unsupported and unsupported.value is None and unsupported.error is None


def test_device_with_unloadable_attribute_fails_every_selector() -> None:
    device = Device.from_slice(GPU, {"name": "bad", "attributes": {"v": {"version": "1.0"}}})
    result = evaluate("true", device)
    assert result.error == "attribute v: parse semantic version: No Major.Minor.Patch elements found"


def test_from_slice_domains_lists_and_basic_wrapper() -> None:
    entry = {
        "name": "gpu-0",
        "basic": {
            "attributes": {
                "model": {"string": "A100"},
                "other.io/numa": {"int": 1},
                "ids": {"ints": [1, 2]},
                "driverVersion": {"version": "1.2.3"},
            },
            "capacity": {"memory": {"value": "80Gi"}},
            "allowMultipleAllocations": True,
        },
    }
    device = Device.from_slice(GPU, entry, pool="p")
    assert device.attributes[GPU]["model"] == "A100"
    assert device.attributes["other.io"]["numa"] == 1
    assert device.capacity[GPU]["memory"] == parse_quantity("80Gi")
    assert device.allow_multiple_allocations and device.label == f"{GPU}/p/gpu-0"
    assert evaluate(f'device.attributes["{GPU}"].ids.includes(2)', device).value is True
    assert evaluate(f'device.attributes["{GPU}"].model.includes("A100")', device).value is True


def test_matches_runs_selectors_in_order() -> None:
    device = _gpu()
    assert matches([f'device.driver == "{GPU}"', "true"], device).matched
    stopped = matches(["false", f'device.attributes["{GPU}"].missing'], device)
    assert (stopped.matched, stopped.selector, stopped.error) == (False, 0, None)
    failed = matches(["true", f'device.attributes["{GPU}"].missing'], device)
    assert failed.selector == 1 and failed.error is not None


def test_conjuncts_split_at_top_level_and() -> None:
    parts = conjuncts('device.driver == "a" && (true || false) &&\n  device.attributes["a"].b == 1')
    assert [p.text for p in parts] == ['device.driver == "a"', "(true || false)", 'device.attributes["a"].b == 1']
    # the split uses the operator positions of the top-level chain: && inside a macro stays put
    assert [p.text for p in conjuncts("[1].all(i, i > 0 && i < 2)")] == ["[1].all(i, i > 0 && i < 2)"]
    source = 'true && device.driver == "a"'
    for part in conjuncts(source):
        assert source[part.start : part.end] == part.text


def test_matching_devices_names_the_excluding_conjunct() -> None:
    devices = [_gpu("A100"), _gpu("A100", memory="80Gi"), Device(driver="nic.example.com")]
    selector = f'device.driver == "{GPU}" && device.attributes["{GPU}"].model == "H100"'
    selection = matching_devices([selector], devices)
    assert selection.matched == [] and selection.considered == 3
    assert selection.drivers == {GPU: 2, "nic.example.com": 1}
    assert selection.excluded_by is not None
    index, part = selection.excluded_by
    assert index == 0 and part.text == f'device.attributes["{GPU}"].model == "H100"'


def test_matching_devices_collects_matches_and_errors() -> None:
    devices = [_gpu("A100"), _gpu("H100"), _gpu("A100", productName="x")]
    selection = matching_devices([f'device.attributes["{GPU}"].productName == "x"'], devices)
    assert len(selection.errors) == 2 and [d.name for d in selection.matched] == ["gpu-A100"]
