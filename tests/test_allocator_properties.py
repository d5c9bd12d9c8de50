"""Property tests: the search agrees with brute force on small nodes, and its answers are valid."""

from __future__ import annotations

from itertools import permutations

from allocator_fixtures import allocate, claim_spec, device, picked, request, resource_slice
from hypothesis import given, settings
from hypothesis import strategies as st

ATTR = "gpu.example.com/pciRoot"

devices_st = st.lists(
    st.tuples(st.sampled_from(["H100", "A100"]), st.integers(0, 2), st.booleans()), min_size=1, max_size=6
)
request_st = st.tuples(st.integers(1, 3), st.booleans())  # count, H100 only
claim_st = st.tuples(
    st.lists(request_st, min_size=1, max_size=2), st.sampled_from([None, "matchAttribute", "distinctAttribute"])
)
claims_st = st.lists(claim_st, min_size=1, max_size=2)


def build(devs, claims):
    objs = [
        resource_slice(
            "s",
            [
                device(
                    f"d{i}",
                    model=model,
                    pciRoot=f"r{root}",
                    **({"taints": [{"key": "bad", "effect": "NoSchedule"}]} if tainted else {}),
                )
                for i, (model, root, tainted) in enumerate(devs)
            ],
        )
    ]
    specs = []
    for requests, constraint in claims:
        reqs = [
            request(f"r{j}", count=count, **({"selectors": ["is-h100"]} if h100 else {}))
            for j, (count, h100) in enumerate(requests)
        ]
        specs.append(claim_spec(*reqs, constraints=[{constraint: ATTR}] if constraint else None))
    return objs, specs


def brute_force(devs, claims) -> bool:
    """Try every ordered assignment of distinct untainted devices to the request slots."""
    slots = []  # (claim index, request index, needs H100)
    for ci, (requests, _) in enumerate(claims):
        for ri, (count, h100) in enumerate(requests):
            slots += [(ci, ri, h100)] * count
    usable = [i for i, (_, _, tainted) in enumerate(devs) if not tainted]
    for chosen in permutations(usable, len(slots)):
        if any(h100 and devs[d][0] != "H100" for (_, _, h100), d in zip(slots, chosen, strict=True)):
            continue
        ok = True
        for ci, (_, constraint) in enumerate(claims):
            roots = [devs[d][1] for (c, _, _), d in zip(slots, chosen, strict=True) if c == ci]
            if constraint == "matchAttribute" and len(set(roots)) > 1:
                ok = False
            if constraint == "distinctAttribute" and len(set(roots)) != len(roots):
                ok = False
        if ok:
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(devices_st, claims_st)
def test_search_finds_a_solution_exactly_when_one_exists(devs, claims):
    objs, specs = build(devs, claims)
    results, *_ = allocate(objs, *specs)
    assert (results is not None) == brute_force(devs, claims)


@settings(max_examples=300, deadline=None)
@given(devices_st, claims_st)
def test_every_solution_is_valid(devs, claims):
    objs, specs = build(devs, claims)
    results, *_ = allocate(objs, *specs)
    if results is None:
        return
    names = [name for _, name in picked(results)]
    assert len(names) == len(set(names)), "a dedicated device was given twice"
    by_name = {f"d{i}": d for i, d in enumerate(devs)}
    for result, (requests, constraint) in zip(results, claims, strict=True):
        for j, (count, h100) in enumerate(requests):
            got = [p.device.id.name for p in result.picks if p.request == f"r{j}"]
            assert len(got) == count
            assert not h100 or all(by_name[n][0] == "H100" for n in got)
        roots = [by_name[p.device.id.name][1] for p in result.picks]
        assert not any(by_name[p.device.id.name][2] for p in result.picks), "tainted device allocated"
        if constraint == "matchAttribute":
            assert len(set(roots)) == 1
        if constraint == "distinctAttribute":
            assert len(set(roots)) == len(roots)


node_st = st.tuples(
    st.lists(st.tuples(st.sampled_from(["H100", "A100"]), st.integers(0, 1)), min_size=0, max_size=4),
    st.lists(st.booleans(), min_size=4, max_size=4),  # which devices are allocated already
)


@settings(max_examples=150, deadline=None)
@given(st.lists(node_st, min_size=1, max_size=6), claims_st, st.integers(1, 5), st.booleans())
def test_node_shape_answers_match_searching_every_node(nodes, claims, replicas, shared_nic):
    from allocator_fixtures import DEFAULT_CLASSES, allocated_claim, fake_matcher

    from dralint.k8s.allocator import Simulator, pod_demand
    from dralint.k8s.inventory import Inventory

    objs = []
    for n, (devs, busy) in enumerate(nodes):
        name = f"n{n}"
        objs.append(
            resource_slice(
                f"{name}-s", [device(f"d{i}", model=m, pciRoot=f"r{r}") for i, (m, r) in enumerate(devs)], node=name
            )
        )
        taken = [(name, f"d{i}") for i in range(len(devs)) if busy[i]]
        if taken:
            objs.append(allocated_claim(f"busy-{name}", *taken))
    if shared_nic:
        objs.append(
            resource_slice("net", [device("nic", model="H100", pciRoot="r0")], node=None, pool="net", allNodes=True)
        )
    _, specs = build([("H100", 0, False)], claims)
    templates = {f"t{i}": {"spec": {"spec": s}} for i, s in enumerate(specs)}
    pod = {"resourceClaims": [{"name": f"c{i}", "resourceClaimTemplateName": f"t{i}"} for i in range(len(specs))]}
    inv = Inventory.build(objs + DEFAULT_CLASSES)
    demand = pod_demand("pod", pod, "default", lambda kind, ns, name: templates.get(name), inv, {})
    answers = []
    for same in (True, False):
        sim = Simulator(inv, inv.device_classes, fake_matcher, same_shapes=same)
        out = sim.place(demand, replicas)
        first = [[(p.request, str(p.device.id)) for p in r.picks] for r in out.first or ()]
        answers.append((out.feasible, out.placed, out.packing, dict(out.reasons), first))
    assert answers[0] == answers[1]
