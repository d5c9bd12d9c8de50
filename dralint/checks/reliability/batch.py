"""Jobs and CronJobs that are never cleaned up or silently stop running.

A finished Job and its pods stay in the API until someone deletes them, unless
``ttlSecondsAfterFinished`` is set; Jobs that a CronJob creates are pruned by its history
limits instead, so only Jobs written as such are checked. A CronJob without
``startingDeadlineSeconds`` counts every missed schedule since its last run, and after 100
missed schedules (a controller outage, a long suspension) it stops scheduling altogether.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.objects import KubeObject
from dralint.lint.context import Context
from dralint.lint.registry import object_check


@object_check("REL014", kinds={"Job"})
def check_job_ttl(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Jobs that keep their finished pods forever."""
    if (
        obj.group != "batch"
        or obj.get(("metadata", "ownerReferences")) is not None
        or not isinstance(obj.get(("spec",)), dict)
    ):
        return
    if obj.get(("spec", "ttlSecondsAfterFinished")) is None:
        yield obj.finding(
            ("spec",),
            f"{obj.display} sets no ttlSecondsAfterFinished: the finished Job and its pods stay in the "
            "cluster until deleted by hand",
            hint="set `spec: {ttlSecondsAfterFinished: 86400}` (or create the Job from a CronJob, whose history "
            "limits prune it)",
            rule="REL014",
            key=True,
        )


@object_check("REL015", kinds={"CronJob"})
def check_cronjob_deadline(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """CronJobs that stop scheduling after 100 missed runs."""
    if obj.group != "batch" or not isinstance(obj.get(("spec",)), dict):
        return
    if obj.get(("spec", "startingDeadlineSeconds")) is None:
        yield obj.finding(
            ("spec",),
            f"{obj.display} sets no startingDeadlineSeconds: after 100 missed schedules (controller "
            "downtime, suspension) "
            "it stops scheduling jobs altogether",
            hint="set `spec: {startingDeadlineSeconds: 300}` (shorter than the schedule's interval)",
            rule="REL015",
            key=True,
        )
