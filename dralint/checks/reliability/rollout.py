"""How a Deployment replaces its pods on update.

``Recreate`` stops every old pod before the first new one starts, so each rollout is an outage.
It is also the only safe choice for a singleton that holds an exclusive device or lock (a GPU
training job's single worker, a database primary), so the finding is informational and opt-in.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.lint.registry import object_check


@object_check("REL028", kinds={"Deployment"})
def check_deployment_strategy(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """A Deployment whose update strategy is set to something other than RollingUpdate."""
    if obj.group != "apps":
        return
    strategy = obj.get(("spec", "strategy", "type"))
    if isinstance(strategy, str) and strategy != "RollingUpdate":
        yield obj.finding(
            ("spec", "strategy", "type"),
            f"{obj.display} updates with the {strategy} strategy: every rollout stops all old pods before "
            "new ones start, so the workload is down meanwhile",
            hint="use `strategy: {type: RollingUpdate}` unless the pods must never overlap (a device or lock only "
            "one may hold)",
        )
