"""dralint: a linter for Kubernetes manifests that use Dynamic Resource Allocation."""

from pathlib import Path

__version__ = "0.1.0"


def bundled_dir(name: str) -> Path | None:
    """A data directory that ships with dralint (``rules``, ``schemas``, ``docs``), or None if absent.

    A wheel carries it as ``dralint/_data/<name>``; a checkout has it at the repository root.
    """
    package = Path(__file__).resolve().parent
    for candidate in (package / "_data" / name, package.parent / name):
        if candidate.is_dir():
            return candidate
    return None
