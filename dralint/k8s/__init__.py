"""Kubernetes knowledge, with no lint machinery: how the API server, the scheduler and the
kubelet read an object.

``manifests`` and ``objects`` are stage 3 of a run (a document becomes one or more
``KubeObject``, and each workload kind's pod templates are found); the rest answers questions
about objects: labels and node selection, quantities and semantic versions, Pod Security,
RBAC, claims and their requests, the device-plugin-to-DRA migration, the device inventory of
a ResourceSlice snapshot. The subpackages model whole components: ``apivalidation`` (the API
server's schema and DRA validation), ``cel`` (the DRA CEL environment) and ``allocator`` (the
scheduler's structured allocator). Code here returns plain records or ``Finding``s and may
import :mod:`dralint.yaml` and :mod:`dralint.diagnostics`, never ``lint``, ``checks`` or
anything above; where it needs the run's index it takes an ``objects.ObjectIndex``.
"""
