"""dralint: a linter for Kubernetes manifests that use Dynamic Resource Allocation."""

__version__ = "0.1.0"
