"""Effective securityContext: what containers inherit from the pod and what they never do."""

from __future__ import annotations

import pytest

from dralint.k8s.objects import KubeObject, pod_templates
from dralint.k8s.podsec import containers, run_as_root
from dralint.yaml.loader import SourceText, load


def _template(text: str):
    doc = load(SourceText("t.yaml", text)).documents[0]
    data = doc.data
    obj = KubeObject(data["apiVersion"], data["kind"], data["metadata"]["name"], "team-a", doc)
    return pod_templates(obj)[0]


POD = """apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  securityContext: {pod}
  containers:
  - name: a
    image: x:1
    securityContext: {own}
"""


def _sec(pod: str = "{}", own: str = "{}"):
    return next(containers(_template(POD.format(pod=pod, own=own))))


def test_pod_level_run_as_non_root_is_inherited():
    sec = _sec(pod="{runAsNonRoot: true}")
    setting = sec.get("runAsNonRoot")
    assert setting.value is True and setting.inherited
    assert setting.path == ("spec", "securityContext", "runAsNonRoot")
    assert not run_as_root(sec).may_run_as_root


def test_container_overrides_pod_for_inherited_fields():
    sec = _sec(pod="{runAsUser: 1000}", own="{runAsUser: 0}")
    verdict = run_as_root(sec)
    assert verdict.may_run_as_root and verdict.path == ("spec", "containers", 0, "securityContext", "runAsUser")


def test_container_run_as_non_root_false_beats_pod_true():
    verdict = run_as_root(_sec(pod="{runAsNonRoot: true}", own="{runAsNonRoot: false}"))
    assert verdict.may_run_as_root and verdict.reason == "runAsNonRoot is false"


def test_non_zero_user_alone_is_enough():
    assert not run_as_root(_sec(own="{runAsUser: 1001}")).may_run_as_root


def test_nothing_set_may_run_as_root_without_a_deciding_path():
    verdict = run_as_root(_sec())
    assert verdict.may_run_as_root and verdict.path is None


@pytest.mark.parametrize("field", ["allowPrivilegeEscalation", "readOnlyRootFilesystem", "privileged"])
def test_container_only_fields_are_not_inherited(field):
    sec = _sec(pod=f"{{{field}: false}}")
    assert not sec.get(field).is_set
    assert sec.misplaced(field) == ("spec", "securityContext", field)


def test_seccomp_profile_struct_is_taken_whole_from_one_level():
    sec = _sec(pod="{seccompProfile: {type: RuntimeDefault}}", own="{seccompProfile: {localhostProfile: x.json}}")
    assert not sec.get("seccompProfile", "type").is_set


def test_windows_options_merge_field_by_field():
    sec = _sec(pod="{windowsOptions: {hostProcess: true}}", own="{windowsOptions: {runAsUserName: app}}")
    setting = sec.get("windowsOptions", "hostProcess")
    assert setting.value is True and setting.inherited


def test_capabilities_are_normalised():
    sec = _sec(own="{capabilities: {add: [cap_sys_admin], drop: [all]}}")
    assert sec.capabilities("add")[0] == ["SYS_ADMIN"]
    assert sec.capabilities("drop")[0] == ["ALL"]


def test_init_and_ephemeral_containers_are_included():
    text = (
        POD.format(pod="{}", own="{}")
        + "  initContainers:\n  - {name: i, image: x:1}\n  ephemeralContainers:\n  - {name: e, image: x:1}\n"
    )
    kinds = sorted(sec.kind for sec in containers(_template(text)))
    assert kinds == ["container", "ephemeral container", "init container"]


def test_settings_are_kept_per_field_and_sub_field():
    """Each (field, sub-field) answer is kept apart: asking for one first must not answer another."""
    sec = _sec(pod="{runAsUser: 1000, seccompProfile: {type: RuntimeDefault}}", own="{privileged: true}")
    assert sec.get("seccompProfile", "type").value == "RuntimeDefault"
    assert sec.get("seccompProfile").value == {"type": "RuntimeDefault"}
    assert sec.get("seccompProfile", "localhostProfile") is not sec.get("seccompProfile", "type")
    assert not sec.get("seccompProfile", "localhostProfile").is_set
    assert sec.get("privileged").value is True and sec.get("privileged").level == "container"
    assert sec.get("runAsUser").value == 1000 and sec.get("runAsUser").inherited
    assert not sec.get("runAsGroup").is_set


def test_containers_are_built_once_per_template_and_follow_it():
    template = _template(POD.format(pod="{}", own="{runAsUser: 5}"))
    first, again = list(containers(template)), list(containers(template))
    assert [id(s) for s in first] == [id(s) for s in again]
    other = _template(POD.format(pod="{}", own="{runAsUser: 7}"))
    assert next(containers(other)).get("runAsUser").value == 7
