"""API040: container images the kubelet cannot parse (InvalidImageName), at the exact characters.

The API server stores any non-empty image string; the kubelet parses it only when it starts the
container, so a placeholder left by a copied guide (``nvcr.io/nvidia/cuda:<tag>``) or an
unrendered chart value surfaces as a pod stuck in ``InvalidImageName`` on the node.
"""

from __future__ import annotations

from collections.abc import Iterator

from dralint.diagnostics import Finding
from dralint.k8s.images import KUBELET_REASON, image_problem
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, pod_templates
from dralint.lint.context import Context
from dralint.lint.registry import object_check


@object_check("API040", kinds=POD_TEMPLATE_KINDS)
def check_image_reference(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """One finding per container whose image reference does not parse."""
    for template in pod_templates(obj):
        for path, container in template.containers():
            image = container.get("image")
            if not isinstance(image, str):
                continue
            problem = image_problem(image)
            if problem is None:
                continue
            where = path + ("image",)
            name = container.get("name") if isinstance(container.get("name"), str) else "?"
            yield obj.finding(
                where,
                f"{template.label}: container {name}: image {image!r}: {problem.message}; the kubelet "
                f"refuses to start the container ({KUBELET_REASON})",
                hint="use a complete reference such as registry.example.com/team/app:1.2.3 (lower-case "
                "repository path, tag of letters, digits, '_', '.', '-') or render the template first",
                span=obj.scalar_span(where, problem.start, problem.end),
            )
