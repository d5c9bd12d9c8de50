"""Reference resolution: found / missing / not in scope, and the evidence of a mistake."""

from __future__ import annotations

import pytest
from conftest import lint_text

from dralint.lint.engine import lint
from dralint.lint.options import LintOptions
from dralint.lint.refs import Status, edit_distance, looks_like_typo, resolve

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: {name}
  namespace: {namespace}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {{deviceClassName: gpu.vendor.example}}
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
spec:
  resourceClaims:
  - name: gpu
    {field}: {target}
  containers:
  - name: main
    image: registry.example/trainer:1.0
    resources:
      claims:
      - name: gpu
"""


def _ref_diags(result, *rules, kind="Pod"):
    """Diagnostics of ``rules`` about objects of ``kind`` (the DeviceClass a template names is
    never scanned here, so its own not-in-scope warning is left out)."""
    return [d for d in result.diagnostics if d.rule in rules and d.object is not None and d.object.kind == kind]


@pytest.mark.parametrize(
    "a,b,expected",
    [("kitten", "sitting", 3), ("abc", "acb", 1), ("", "abc", 3), ("gpu", "gpu", 0), ("two-gpu", "two-gpus", 1)],
)
def test_edit_distance(a, b, expected):
    assert edit_distance(a, b) == expected
    assert edit_distance(b, a) == expected


@pytest.mark.parametrize(
    "wrong,right,expected",
    [
        ("two-gpu-same-root", "two-gpus-same-root", True),
        ("gpu", "gpus", True),
        ("gpu-1", "gpu-2", False),  # numbered siblings
        ("dra.net", "dranet", False),  # separator-only variants are real, distinct names
        ("single-gpu", "multiple-gpus", False),
        ("ab", "abc", False),  # too short to judge
        ("h100-sxm-eighty-gb", "h100-sxm-eigthy-gbx", True),  # swap + insert, long name
        ("cpu.example.com", "gpu.example.com", False),  # short words name different device types
        ("tpu-v5", "gpu-v5", False),
        ("gpu.exmple.com", "gpu.example.com", True),  # a typo in a longer word still counts
    ],
)
def test_typo_heuristic(wrong, right, expected):
    assert looks_like_typo(wrong, right) is expected


def test_found_points_at_the_target(tmp_path):
    text = (
        TEMPLATE.format(name="one-gpu", namespace="ml")
        + "---\n"
        + POD.format(field="resourceClaimTemplateName", target="one-gpu")
    )
    result = lint_text(tmp_path, text)
    resolution = resolve(result.context, "ResourceClaimTemplate", "ml", "one-gpu")
    assert resolution.status is Status.FOUND
    (related,) = resolution.related()
    assert (related.span.line, related.span.column) == (4, 9)
    assert not _ref_diags(result, "REF001", "REF002")


def test_not_in_scope_is_a_warning_with_how_to_close_the_world(tmp_path):
    result = lint_text(tmp_path, POD.format(field="resourceClaimTemplateName", target="one-gpu"))
    (diag,) = _ref_diags(result, "REF001", "REF002")
    assert (diag.rule, diag.severity.value) == ("REF001", "warning")
    assert (diag.span.line, diag.span.column, diag.span.end_column) == (9, 32, 39)
    assert "not among the scanned files" in diag.message
    assert "--closed-world ResourceClaimTemplate" in diag.hint


def test_closed_world_turns_it_into_missing(tmp_path):
    result = lint_text(
        tmp_path,
        POD.format(field="resourceClaimTemplateName", target="one-gpu"),
        closed_world={"ResourceClaimTemplate"},
    )
    (diag,) = _ref_diags(result, "REF001", "REF002")
    assert (diag.rule, diag.severity.value) == ("REF002", "error")
    assert "does not exist in namespace 'ml'" in diag.message


def test_cluster_state_of_the_kind_closes_the_world(tmp_path):
    slices = TEMPLATE.format(name="other", namespace="ml")
    result = lint_text(tmp_path, POD.format(field="resourceClaimTemplateName", target="one-gpu"), slices=slices)
    assert [d.rule for d in _ref_diags(result, "REF001", "REF002")] == ["REF002"]


def test_other_namespace_is_a_mistake_even_in_an_open_world(tmp_path):
    text = (
        TEMPLATE.format(name="one-gpu", namespace="research")
        + "---\n"
        + POD.format(field="resourceClaimTemplateName", target="one-gpu")
    )
    result = lint_text(tmp_path, text)
    (diag,) = _ref_diags(result, "REF001", "REF002")
    assert diag.rule == "REF002"
    assert "exists in namespace 'research'" in diag.message
    assert [(r.span.line, r.span.column) for r in diag.related] == [(4, 9)]


def test_referrer_without_namespace_may_be_applied_anywhere(tmp_path):
    pod = POD.format(field="resourceClaimTemplateName", target="one-gpu").replace("  namespace: ml\n", "")
    result = lint_text(tmp_path, TEMPLATE.format(name="one-gpu", namespace="research") + "---\n" + pod)
    assert [d.rule for d in _ref_diags(result, "REF001", "REF002")] == ["REF001"]


def test_claim_where_a_template_was_named(tmp_path):
    claim = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: shared-gpu
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.vendor.example}
"""
    result = lint_text(tmp_path, claim + "---\n" + POD.format(field="resourceClaimTemplateName", target="shared-gpu"))
    (diag,) = _ref_diags(result, "REF001", "REF002")
    assert diag.rule == "REF002"
    assert "a ResourceClaim named 'shared-gpu' exists" in diag.message
    assert "refer to it with `resourceClaimName: shared-gpu`" in diag.hint
    assert diag.related[0].span.line == 4


def test_near_name_says_did_you_mean_with_location(tmp_path):
    text = (
        TEMPLATE.format(name="two-gpus-same-root", namespace="ml")
        + "---\n"
        + POD.format(field="resourceClaimTemplateName", target="two-gpu-same-root")
    )
    result = lint_text(tmp_path, text)
    (diag,) = _ref_diags(result, "REF001", "REF002")
    assert diag.rule == "REF002" and "did you mean 'two-gpus-same-root'?" in diag.message
    assert diag.related[0].span.line == 4


def test_device_class_missing_in_subrequest(tmp_path):
    claim = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: flexible
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - name: big
        deviceClassName: big.vendor.example
      - name: small
        deviceClassName: small.vendor.example
"""
    slices = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: big.vendor.example\n"
    result = lint_text(tmp_path, claim, slices=slices)
    (diag,) = _ref_diags(result, "REF001", "REF008", kind="ResourceClaim")
    assert diag.rule == "REF008"
    assert (diag.span.line, diag.span.column) == (14, 26)
    assert "request 'gpu/small'" in diag.message


def test_deletion_index_finds_what_a_full_scan_finds():
    """The index is only a shortcut: on random names it agrees with comparing every pair."""
    import random

    from dralint.lint.refs import _deletions

    rng = random.Random(7)
    alphabet = "ab-1."
    names = {"".join(rng.choice(alphabet) for _ in range(rng.randint(3, 14))) for _ in range(300)}
    for wrong in list(names)[:120]:
        for right in names:
            if looks_like_typo(wrong, right):
                assert _deletions(wrong.lower()) & _deletions(right.lower()), (wrong, right)


def test_template_created_by_a_compute_domain_counts_as_found(tmp_path):
    domain = """\
apiVersion: resource.nvidia.com/v1beta1
kind: ComputeDomain
metadata: {name: imex, namespace: ml}
spec:
  numNodes: 2
  channel:
    resourceClaimTemplate:
      name: imex-channel
---
"""
    result = lint_text(
        tmp_path,
        domain + POD.format(field="resourceClaimTemplateName", target="imex-channel"),
        closed_world={"ResourceClaimTemplate"},
    )
    assert not _ref_diags(result, "REF001", "REF002", "REF005")
    resolution = resolve(result.context, "ResourceClaimTemplate", "ml", "imex-channel")
    (related,) = resolution.related()
    assert (related.span.line, related.span.column) == (8, 13)


def test_typo_suggestions_agree_before_and_after_the_variant_index_is_built():
    from dralint.k8s.manifests import objects_from
    from dralint.lint.context import Context
    from dralint.lint.refs import _LINEAR_LOOKUPS, _index
    from dralint.yaml.loader import SourceText, load

    names = [
        f"{stem}-{n}" for stem in ("single-h100", "two-gpus-same-root", "mig-1g") for n in ("train", "serve", "eval")
    ]
    text = "\n---\n".join(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
        f"metadata: {{name: {n}, namespace: ml}}\nspec: {{spec: {{}}}}"
        for n in names
    )
    objects = [o for doc in load(SourceText("t.yaml", text)).documents for o in objects_from(doc, "scan")[0]]
    index = _index(Context(objects), "ResourceClaimTemplate")
    queries = (
        [n[:-1] for n in names] + [n + "x" for n in names] + [n.replace("-", "", 1) for n in names] + ["unrelated"]
    )
    assert len(queries) > _LINEAR_LOOKUPS
    first = [getattr(index.near("ml", q), "name", None) for q in queries]
    assert "ml" in index.spellings, "the index was never built"
    again = [getattr(index.near("ml", q), "name", None) for q in queries]
    assert first == again
    assert first[0] == names[0] and first[-1] is None


def test_a_reference_resolves_to_the_same_named_object_beside_it(tmp_path):
    """Two files holding a template of one identity (copies, revisions): each pod's request
    names are checked against the template in its own file."""
    template = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: gpus, namespace: ml}}
spec:
  spec:
    devices:
      requests:
      - {{name: {request}, exactly: {{deviceClassName: gpu.example.com}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: {pod}, namespace: ml}}
spec:
  resourceClaims:
  - {{name: gpus, resourceClaimTemplateName: gpus}}
  containers:
  - name: c
    image: i:1
    resources:
      claims:
      - {{name: gpus, request: {request}}}
"""
    (tmp_path / "a.yaml").write_text(template.format(request="shared", pod="a"))
    (tmp_path / "b.yaml").write_text(template.format(request="exclusive", pod="b"))
    result = lint(LintOptions(paths=[str(tmp_path)], profile="strict"))
    assert not [d for d in result.diagnostics if d.rule == "REF005"]


def test_the_copy_beside_the_referrer_is_preferred_only_in_the_namespace_it_names(tmp_path):
    """Of several objects with the reference's identity, the one in the referrer's own file is
    the one it was written against; a same-named object of that file in another namespace is
    no such copy (a resolve() that dropped the namespace comparison survived every test)."""
    (tmp_path / "pod.yaml").write_text(
        TEMPLATE.format(name="one-gpu", namespace="research")
        + "---\n"
        + POD.format(field="resourceClaimTemplateName", target="one-gpu")
    )
    (tmp_path / "templates.yaml").write_text(TEMPLATE.format(name="one-gpu", namespace="ml"))
    ctx = lint(LintOptions(paths=[str(tmp_path)], jobs=1)).context
    (pod,) = [o for o in ctx.scanned if o.kind == "Pod"]
    found = resolve(ctx, "ResourceClaimTemplate", "ml", "one-gpu", referrer=pod)
    assert found.status is Status.FOUND
    assert (found.target.namespace, found.target.path) == ("ml", str(tmp_path / "templates.yaml"))
    # with a copy in its own file and namespace, that copy wins over the other files'
    (tmp_path / "pod.yaml").write_text(
        TEMPLATE.format(name="one-gpu", namespace="ml")
        + "---\n"
        + POD.format(field="resourceClaimTemplateName", target="one-gpu")
    )
    ctx = lint(LintOptions(paths=[str(tmp_path)], jobs=1)).context
    (pod,) = [o for o in ctx.scanned if o.kind == "Pod"]
    found = resolve(ctx, "ResourceClaimTemplate", "ml", "one-gpu", referrer=pod)
    assert (found.target.namespace, found.target.path) == ("ml", str(tmp_path / "pod.yaml"))


def test_a_name_one_word_apart_is_offered_when_nothing_else_explains_the_miss(tmp_path):
    text = (
        TEMPLATE.format(name="single-gpu", namespace="ml")
        + "---\n"
        + POD.format(field="resourceClaimTemplateName", target="single-gpu-v2")
    )
    (diag,) = _ref_diags(lint_text(tmp_path, text), "REF001", "REF002")
    assert diag.rule == "REF001"  # a hint, not proof of a mistake
    assert diag.message.endswith("which is not among the scanned files; did you mean 'single-gpu'?")
    assert [r.span.line for r in diag.related] == [4]


def test_other_namespaces_are_listed_from_the_referrers_own_file_first(tmp_path):
    """The copy beside the reference is the likeliest one meant, whatever its namespace's name."""
    (tmp_path / "a.yaml").write_text(TEMPLATE.format(name="one-gpu", namespace="alpha"))
    (tmp_path / "pod.yaml").write_text(
        TEMPLATE.format(name="one-gpu", namespace="zeta")
        + "---\n"
        + POD.format(field="resourceClaimTemplateName", target="one-gpu")
    )
    result = lint(LintOptions(paths=[str(tmp_path)], jobs=1))
    (diag,) = _ref_diags(result, "REF001", "REF002")
    assert diag.rule == "REF002" and diag.message.endswith("of that name exists in namespaces 'zeta', 'alpha'")
