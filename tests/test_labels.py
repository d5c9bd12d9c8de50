"""Label-selector and node-selection semantics, checked against the Kubernetes rules."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dralint.k8s.labels import (
    NodeSelection,
    NodeTerm,
    Requirement,
    map_selector_matches,
    pod_node_selection,
    satisfiable,
    selector_matches,
    selector_requirements,
)


@pytest.mark.parametrize(
    "selector,labels,expected",
    [
        ({}, {"a": "1"}, True),
        (None, {"a": "1"}, False),
        ({"matchLabels": {"app": "x"}}, {"app": "x", "b": "2"}, True),
        ({"matchLabels": {"app": "x"}}, {"app": "y"}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}, {"tier": "b"}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["a"]}]}, {}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["a"]}]}, {"tier": "a"}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, {"tier": ""}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, {"tier": ""}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "Gt", "values": ["1"]}]}, {"tier": "5"}, False),
        (
            {"matchLabels": {"app": "x"}, "matchExpressions": [{"key": "env", "operator": "Exists"}]},
            {"app": "x"},
            False,
        ),
    ],
)
def test_label_selector(selector, labels, expected):
    assert selector_matches(selector, labels) is expected


def test_map_selector_empty_selects_nothing():
    assert not map_selector_matches({}, {"app": "x"})
    assert map_selector_matches({"app": "x"}, {"app": "x", "other": "1"})
    assert not map_selector_matches({"app": "x"}, {"other": "1"})


def _spec(node_selector=None, terms=None, node_name=None):
    spec = {}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if terms is not None:
        spec["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}
        }
    if node_name:
        spec["nodeName"] = node_name
    return spec


def test_node_selection_matches_terms_ored_expressions_anded():
    sel = pod_node_selection(
        _spec(
            {"gpu": "true"},
            [
                {
                    "matchExpressions": [
                        {"key": "zone", "operator": "In", "values": ["a"]},
                        {"key": "dra", "operator": "DoesNotExist"},
                    ]
                },
                {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["8"]}]},
            ],
        )
    )
    assert sel.matches({"gpu": "true", "zone": "a"})
    assert not sel.matches({"gpu": "true", "zone": "a", "dra": "yes"})
    assert sel.matches({"gpu": "true", "cores": "16"})
    assert not sel.matches({"gpu": "true", "cores": "4"})
    assert not sel.matches({"zone": "a"})


def test_match_fields_compare_node_name():
    sel = pod_node_selection(
        _spec(terms=[{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}])
    )
    assert sel.matches({}, "n1")
    assert not sel.matches({}, "n2")


def test_tolerations_do_not_select():
    sel = pod_node_selection({"tolerations": [{"key": "gpu", "operator": "Exists"}]})
    assert sel.unrestricted


@pytest.mark.parametrize(
    "a,b,overlap",
    [
        (_spec(), _spec(), True),
        (_spec({"gpu": "nvidia"}), _spec({"gpu": "amd"}), False),
        (
            _spec({"gpu": "nvidia"}),
            _spec(terms=[{"matchExpressions": [{"key": "gpu", "operator": "NotIn", "values": ["nvidia"]}]}]),
            False,
        ),
        (_spec(), _spec(terms=[{"matchExpressions": [{"key": "dra", "operator": "DoesNotExist"}]}]), True),
        (
            _spec(terms=[{"matchExpressions": [{"key": "dra", "operator": "Exists"}]}]),
            _spec(terms=[{"matchExpressions": [{"key": "dra", "operator": "DoesNotExist"}]}]),
            False,
        ),
        (
            _spec(terms=[{"matchExpressions": [{"key": "dra", "operator": "In", "values": ["true"]}]}]),
            _spec(
                terms=[
                    {"matchExpressions": [{"key": "dra", "operator": "NotIn", "values": ["true"]}]},
                    {"matchExpressions": [{"key": "zone", "operator": "Exists"}]},
                ]
            ),
            True,
        ),
        (
            _spec(terms=[{"matchExpressions": [{"key": "n", "operator": "Gt", "values": ["3"]}]}]),
            _spec(terms=[{"matchExpressions": [{"key": "n", "operator": "Lt", "values": ["4"]}]}]),
            False,
        ),
        (_spec(node_name="a"), _spec(node_name="b"), False),
    ],
)
def test_may_overlap(a, b, overlap):
    assert pod_node_selection(a).may_overlap(pod_node_selection(b)) is overlap
    assert pod_node_selection(b).may_overlap(pod_node_selection(a)) is overlap


def test_symbolic_overlap_agrees_with_a_witness():
    """When satisfiable says yes for In/NotIn sets, a concrete label set exists."""
    reqs = selector_requirements(
        {"matchLabels": {"a": "1"}, "matchExpressions": [{"key": "b", "operator": "NotIn", "values": ["x"]}]}
    )
    assert satisfiable(reqs)
    assert all(r.matches({"a": "1"}) for r in reqs)
    assert not satisfiable(reqs + [Requirement("a", "NotIn", ("1",))])


def test_invalid_operator_never_matches():
    assert not selector_matches({"matchExpressions": [{"key": "a", "operator": "Bogus"}]}, {"a": "1"})
    assert NodeSelection().unrestricted


def test_overlap_excluding_a_pool():
    plugin = pod_node_selection(_spec({"nvidia.com/gpu.present": "true"}))
    dra_pool = pod_node_selection(_spec({"gpu-pool": "dra"}))
    pinned_to_dra = pod_node_selection(_spec({"gpu-pool": "dra"}))
    anywhere = pod_node_selection(_spec())
    assert not pinned_to_dra.may_overlap(plugin, excluding=[dra_pool])
    assert anywhere.may_overlap(plugin, excluding=[dra_pool])
    assert not anywhere.may_overlap(plugin, excluding=[NodeSelection()])


def test_complement_of_terms_needs_every_term_negated():
    sel = pod_node_selection(
        _spec(
            terms=[
                {"matchExpressions": [{"key": "a", "operator": "In", "values": ["1"]}]},
                {"matchExpressions": [{"key": "b", "operator": "Exists"}]},
            ]
        )
    )
    (alternative,) = sel.complement()
    assert all(r.matches({"a": "2"}) for r in alternative)
    assert not all(r.matches({"a": "2", "b": "x"}) for r in alternative)
    for labels in ({"a": "1"}, {"b": ""}, {"a": "2"}, {}):
        outside = any(all(r.matches(labels) for r in alt) for alt in sel.complement())
        assert outside is not sel.matches(labels)


def test_describe_is_readable():
    sel = pod_node_selection(
        _spec({"gpu-pool": "dra"}, [{"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a", "b"]}]}])
    )
    assert sel.describe() == "gpu-pool=dra and zone notin (a, b)"
    assert NodeSelection().describe() == "every node"


def test_unquoted_yaml_booleans_compare_as_label_text():
    assert map_selector_matches({"dra": True}, {"dra": "true"})
    assert selector_matches({"matchLabels": {"dra": "true"}}, {"dra": True})
    assert pod_node_selection(_spec({"dra": True})).matches({"dra": "true"})


# "02" matters: label values are strings and Gt/Lt parse them as integers, so `a=02` meets
# `NotIn [2]`, `Gt 1` and `Lt 3` together; a universe without it would call that unsatisfiable.
_VALUES = ["0", "1", "2", "02", "3", "4", "5", "x"]
_requirement = st.builds(
    Requirement,
    key=st.sampled_from(["a", "b"]),
    operator=st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    values=st.lists(st.sampled_from(["1", "2", "3"]), min_size=1, max_size=2).map(tuple),
).map(
    lambda r: (
        Requirement(r.key, r.operator, r.values[:1])
        if r.operator in ("Gt", "Lt")
        else Requirement(r.key, r.operator, () if r.operator in ("Exists", "DoesNotExist") else r.values)
    )
)


def _label_sets():
    for a, b in product([None] + _VALUES, repeat=2):
        yield {k: v for k, v in (("a", a), ("b", b)) if v is not None}


@settings(max_examples=300, deadline=None)
@given(st.lists(_requirement, max_size=5))
def test_satisfiable_agrees_with_brute_force(requirements):
    """The symbolic test says yes exactly when some small label set meets every requirement
    (the universe has values below, between and above every bound, and a non-number)."""
    witness = any(all(r.matches(labels) for r in requirements) for labels in _label_sets())
    assert satisfiable(requirements) is witness


@settings(max_examples=200, deadline=None)
@given(st.lists(_requirement, max_size=3), st.lists(_requirement, max_size=3))
def test_complement_is_never_larger_than_the_true_complement(required, term):
    sel = NodeSelection(tuple(required), (NodeTerm(tuple(term)),) if term else ())
    for labels in _label_sets():
        outside = any(all(r.matches(labels) for r in alt) for alt in sel.complement())
        if outside:
            assert not sel.matches(labels)
