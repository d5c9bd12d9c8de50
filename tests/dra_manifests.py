"""Builders for the DRA manifests several API tests share, so each test shows only what differs.

``resource_claim`` always starts with the same 8 lines (the request named ``gpu`` is on line 8),
so tests can state exact positions of what they add.
"""

from __future__ import annotations

import textwrap

CLAIM_HEADER = """\
apiVersion: {api_version}
kind: ResourceClaim
metadata:
  name: {name}
spec:
  devices:
    requests:
    - name: gpu
"""


def resource_claim(request: str, claim: str = "", name: str = "claim", api_version: str = "resource.k8s.io/v1") -> str:
    """A ResourceClaim whose request ``gpu`` has the fields ``request`` (YAML under the request,
    starting on line 9) and whose ``spec.devices`` also has ``claim`` (constraints, config...)."""
    return (
        CLAIM_HEADER.format(name=name, api_version=api_version)
        + textwrap.indent(textwrap.dedent(request).strip("\n") + "\n", " " * 6)
        + (textwrap.indent(textwrap.dedent(claim).strip("\n") + "\n", " " * 4) if claim else "")
    )
