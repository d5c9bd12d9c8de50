"""Per-namespace indexes over the run, for checks that relate objects of one namespace."""

from __future__ import annotations

from dralint.k8s.objects import KubeObject, ObjectIndex


def by_namespace(ctx: ObjectIndex, kind: str) -> dict[str | None, list[KubeObject]]:
    """Objects of ``kind`` in the run (scanned, context or cluster), grouped by namespace.

    Built once per run and kind, so a check that asks for every workload stays linear.
    """

    def build() -> dict[str | None, list[KubeObject]]:
        out: dict[str | None, list[KubeObject]] = {}
        for obj in ctx.by_kind(kind):
            out.setdefault(obj.namespace, []).append(obj)
        return out

    return ctx.memo((__name__, kind), build)
