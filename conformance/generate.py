"""Varied DRA manifests for the conformance oracle, drawn by Hypothesis from a fixed seed.

Each object starts valid and has a few fields mutated across the limits, formats, one-of rules
and CEL forms the API server checks, so the oracle and dralint see many near-misses. The draw is
derandomized: the same count gives the same objects on every machine, so a disagreement found in
CI can be reproduced and recorded (`python conformance/generate.py --save N` writes the objects
dralint disagrees on to conformance/fixtures/, where the goldens and the Go-free test pick them up).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare import compare_input, load_allowlist  # noqa: E402
from inputs import ROOT, Input  # noqa: E402
from record import build_oracle, run_oracle  # noqa: E402

SEED = 1437
FIXTURES = ROOT / "conformance" / "fixtures"

Obj = dict[str, Any]

# Values at and around the server's limits and formats.
NAMES = st.sampled_from(["gpu", "a", "gpu-0", "GPU", "gpu_0", "-gpu", "gpu.", "g" * 63, "g" * 64, "", "9gpu", "a.b"])
OBJECT_NAMES = st.sampled_from(["claim", "x", "my.claim", "Claim", "c" * 253, "c" * 254, "claim-", "a..b"])
CLASS_NAMES = st.sampled_from(["gpu.example.com", "gpu", "Gpu.Example.com", "", "gpu_example", "x" * 253, "x" * 254])
COUNTS = st.sampled_from([1, 0, -1, 2, 32, 33, 10**6])
MODES = st.sampled_from(["ExactCount", "All", "exactcount", "Some"])
DRIVERS = st.sampled_from(
    ["gpu.example.com", "example.com", "GPU.example.com", "gpu", "a" * 64 + ".com", "gpu.example.com."]
)
ATTRIBUTES = st.sampled_from(
    ["gpu.example.com/model", "model", "gpu.example.com/Model", "/model", "gpu.example.com/" + "m" * 64]
)
CEL = st.sampled_from(
    [
        'device.driver == "gpu.example.com"',
        'device.attributes["gpu.example.com"].model == "h100"',
        'device.attributes["gpu.example.com"].model',
        'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0',
        'device.capacity["gpu.example.com"].memory >= "40Gi"',
        'device.attributes["gpu.example.com"].version.isGreaterThan(semver("1.0.0"))',
        "device.driver ==",
        'device.nope == "x"',
        '"gpu.example.com" in device.attributes',
        "true",
        "1 + 1",
        "device.allowMultipleAllocations",
        'device.attributes.all(d, device.attributes[d].all(a, device.attributes[d][a] != ""))',
        "x" * 10241,
    ]
)
# The cost estimate knows a string's size only along a path from `device` (or from a literal):
# the same size-dependent string function on values reached in each way, and on values reached
# through an optional (`.?x`, `[?k]`, `orValue`), with and without `cel.bind`.  `{f}` is where
# the function goes.
_DOMAIN = 'device.attributes["gpu.example.com"]'
SIZED_SOURCES = st.sampled_from(
    [
        f'cel.bind(u, {_DOMAIN}.?uuid.orValue(""), u{{f}})',
        f'{_DOMAIN}.?uuid.orValue(""){{f}}',
        f'{_DOMAIN}.?uuid.orValue("GPU-0"){{f}}',
        f"cel.bind(u, {_DOMAIN}.uuid, u{{f}})",
        f"{_DOMAIN}.uuid{{f}}",
        'device.attributes[?"gpu.example.com"].?uuid.orValue(""){f}',
        f'cel.bind(d, {_DOMAIN}, d.?uuid.orValue(""){{f}})',
        f"cel.bind(d, {_DOMAIN}, d.uuid{{f}})",
        'optional.of("GPU-0").orValue(""){f}',
        'cel.bind(u, "GPU-0", u{f})',
        f'dyn({_DOMAIN}.?uuid.orValue("")){{f}}',
    ]
)
STRING_FUNCTIONS = st.sampled_from(
    [
        '.matches("^GPU-[0-9a-f]+$")',
        '.lowerAscii() == "gpu-0"',
        '.upperAscii() == "GPU-0"',
        '.trim() == "GPU-0"',
        '.startsWith("GPU-")',
        '.endsWith("-0")',
        '.contains("GPU")',
        '.split("-").size() > 1',
        '.replace("-", "") != ""',
        '.substring(1) != ""',
        '.find("[0-9]+") != ""',
        '.findAll("[0-9]").size() > 0',
        ".size() > 0",
        ' == "GPU-0"',
        ' + "-x" != ""',
    ]
)


@st.composite
def sized_string_selector(draw: st.DrawFn) -> str:
    return draw(SIZED_SOURCES).format(f=draw(STRING_FUNCTIONS))


CEL = st.one_of(CEL, sized_string_selector())
TOLERATION_OPS = st.sampled_from(["Exists", "Equal", "Gt", "exists", None])
EFFECTS = st.sampled_from(["NoSchedule", "NoExecute", "PreferNoSchedule", "None", None])


def _meta(name: str) -> Obj:
    return {"name": name}


@st.composite
def selectors(draw: st.DrawFn) -> list[Obj]:
    return [{"cel": {"expression": e}} for e in draw(st.lists(CEL, min_size=0, max_size=2))]


@st.composite
def exact_request(draw: st.DrawFn) -> Obj:
    body: Obj = {"deviceClassName": draw(CLASS_NAMES)}
    mode = draw(st.one_of(st.none(), MODES))
    if mode is not None:
        body["allocationMode"] = mode
    if draw(st.booleans()):
        body["count"] = draw(COUNTS)
    if draw(st.booleans()):
        body["selectors"] = draw(selectors())
    if draw(st.booleans()):
        body["tolerations"] = [
            {
                k: v
                for k, v in {
                    "key": "gpu.example.com/unhealthy",
                    "operator": draw(TOLERATION_OPS),
                    "effect": draw(EFFECTS),
                }.items()
                if v is not None
            }
        ]
    if draw(st.integers(0, 9)) == 0:
        body["adminAccess"] = True
    return body


@st.composite
def device_request(draw: st.DrawFn) -> Obj:
    request: Obj = {"name": draw(NAMES)}
    shape = draw(st.sampled_from(["exactly", "exactly", "firstAvailable", "both", "neither"]))
    if shape in ("exactly", "both"):
        request["exactly"] = draw(exact_request())
    if shape in ("firstAvailable", "both"):
        subs = []
        for _ in range(draw(st.integers(0, 3))):
            sub = draw(exact_request())
            sub.pop("adminAccess", None)
            subs.append({"name": draw(NAMES), **sub})
        request["firstAvailable"] = subs
    return request


@st.composite
def claim_spec(draw: st.DrawFn) -> Obj:
    requests = draw(st.lists(device_request(), min_size=0, max_size=3))
    devices: Obj = {"requests": requests}
    if requests and draw(st.booleans()):
        names = [r["name"] for r in requests] + ["missing"]
        devices["constraints"] = [
            {"requests": draw(st.lists(st.sampled_from(names), max_size=2)), "matchAttribute": draw(ATTRIBUTES)}
        ]
    if requests and draw(st.integers(0, 3)) == 0:
        devices["config"] = [
            {
                "requests": [requests[0]["name"]],
                "opaque": {"driver": draw(DRIVERS), "parameters": {"sharing": "TimeSlicing"}},
            }
        ]
    return {"devices": devices}


@st.composite
def resource_claim(draw: st.DrawFn) -> Obj:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": _meta(draw(OBJECT_NAMES)),
        "spec": draw(claim_spec()),
    }


@st.composite
def claim_template(draw: st.DrawFn) -> Obj:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": _meta(draw(OBJECT_NAMES)),
        "spec": {"spec": draw(claim_spec())},
    }


@st.composite
def device_class(draw: st.DrawFn) -> Obj:
    spec: Obj = {"selectors": draw(selectors())}
    if draw(st.booleans()):
        spec["extendedResourceName"] = draw(
            st.sampled_from(["example.com/gpu", "gpu", "kubernetes.io/gpu", "example.com/", "requests.example.com/gpu"])
        )
    if draw(st.booleans()):
        spec["config"] = [{"opaque": {"driver": draw(DRIVERS), "parameters": {}}}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": _meta(draw(CLASS_NAMES)),
        "spec": spec,
    }


@st.composite
def resource_slice(draw: st.DrawFn) -> Obj:
    devices = []
    for index in range(draw(st.integers(0, 3))):
        device: Obj = {"name": draw(st.sampled_from([f"gpu-{index}", "GPU", "gpu_0", "d" * 64]))}
        if draw(st.booleans()):
            device["attributes"] = {
                draw(st.sampled_from(["model", "gpu.example.com/model", "Model", "m" * 33])): draw(
                    st.sampled_from(
                        [
                            {"string": "h100"},
                            {"int": 3},
                            {"version": "1.2.3"},
                            {"version": "v1"},
                            {},
                            {"string": "h", "int": 1},
                        ]
                    )
                )
            }
        if draw(st.booleans()):
            device["capacity"] = {"memory": {"value": draw(st.sampled_from(["80Gi", "-1", "1.5", "abc", "0"]))}}
        devices.append(device)
    spec: Obj = {
        "driver": draw(DRIVERS),
        "pool": {
            "name": draw(st.sampled_from(["pool", "node-0/pool", "", "Pool"])),
            "generation": draw(st.sampled_from([0, 1, -1])),
            "resourceSliceCount": draw(st.sampled_from([1, 0, 2])),
        },
        "devices": devices,
    }
    placement = draw(st.sampled_from(["nodeName", "allNodes", "both", "none", "nodeSelector"]))
    if placement in ("nodeName", "both"):
        spec["nodeName"] = "node-0"
    if placement in ("allNodes", "both"):
        spec["allNodes"] = True
    if placement == "nodeSelector":
        spec["nodeSelector"] = {
            "nodeSelectorTerms": [
                {
                    "matchExpressions": [
                        {
                            "key": "kubernetes.io/hostname",
                            "operator": draw(st.sampled_from(["In", "Exists", "in"])),
                            "values": ["node-0"],
                        }
                    ]
                }
            ]
        }
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": _meta(draw(OBJECT_NAMES)),
        "spec": spec,
    }


@st.composite
def pod_with_claims(draw: st.DrawFn) -> Obj:
    claims = []
    for _ in range(draw(st.integers(0, 2))):
        entry: Obj = {"name": draw(NAMES)}
        source = draw(st.sampled_from(["resourceClaimName", "resourceClaimTemplateName", "both", "neither"]))
        if source in ("resourceClaimName", "both"):
            entry["resourceClaimName"] = draw(OBJECT_NAMES)
        if source in ("resourceClaimTemplateName", "both"):
            entry["resourceClaimTemplateName"] = draw(OBJECT_NAMES)
        claims.append(entry)
    used = [{"name": draw(st.sampled_from([c["name"] for c in claims] + ["undeclared"]))}] if claims else []
    container: Obj = {"name": "main", "image": "registry.example.com/app:1.0"}
    if used:
        container["resources"] = {"claims": used}
    pod_spec: Obj = {"containers": [container], "resourceClaims": claims}
    kind = draw(st.sampled_from(["Pod", "Deployment", "Job"]))
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": _meta(draw(OBJECT_NAMES)), "spec": pod_spec}
    template = {"metadata": {"labels": {"app": "x"}}, "spec": pod_spec}
    if kind == "Job":
        pod_spec["restartPolicy"] = draw(st.sampled_from(["Never", "Always"]))
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": _meta("job"), "spec": {"template": template}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta("deploy"),
        "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": template},
    }


OBJECTS = st.one_of(resource_claim(), claim_template(), device_class(), resource_slice(), pod_with_claims())


def generate(count: int) -> list[Obj]:
    """``count`` objects, the same ones on every run (fixed seed, derandomized, no database)."""
    drawn: list[Obj] = []

    @seed(SEED)
    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(OBJECTS)
    def collect(obj: Obj) -> None:
        drawn.append(obj)

    collect()
    return drawn


def as_inputs(objects: list[Obj]) -> list[Input]:
    return [
        Input(f"generated/{index:05d}", yaml.safe_dump(obj, sort_keys=False).encode("utf-8"), "generated.yaml")
        for index, obj in enumerate(objects)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--save", type=int, default=0, help="record up to N disagreeing objects as fixtures")
    args = parser.parse_args()
    inputs = as_inputs(generate(args.count))
    verdicts = run_oracle(build_oracle(), inputs)
    allowed = load_allowlist()
    saved = 0
    with tempfile.TemporaryDirectory() as tmp:
        for item in inputs:
            folder = Path(tmp) / item.id
            folder.mkdir(parents=True)
            found = compare_input(item, verdicts[item.id], folder).disagreements
            for d in found:
                print(f"{d.key()}  [{d.detail}]{'  (allowed)' if any(a.matches(d) for a in allowed) else ''}")
            if found and saved < args.save and not all(any(a.matches(d) for a in allowed) for d in found):
                FIXTURES.mkdir(exist_ok=True)
                (FIXTURES / f"gen-{item.id.split('/')[1]}.yaml").write_bytes(item.text)
                saved += 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
