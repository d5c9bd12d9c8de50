"""A small Pod manifest builder shared by the security and reliability tests."""

from __future__ import annotations

from dralint.diagnostics import Diagnostic
from dralint.lint.engine import RunResult

POD = """apiVersion: v1
kind: Pod
metadata:
  name: app
  namespace: team-a
  labels: {{app: web, tier: front}}
spec:
{spec}  containers:
  - name: app
    image: registry.example.com/app:1.0
{container}"""


def pod(spec: str = "", container: str = "") -> str:
    """Pod team-a/app (labels app=web, tier=front) with extra spec and container lines."""
    return POD.format(spec=spec, container=container)


def fired(result: RunResult, rule: str) -> list[Diagnostic]:
    return [d for d in result.diagnostics if d.rule == rule]
