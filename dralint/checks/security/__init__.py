"""Security checks: pod and container hardening, secrets, RBAC and network exposure."""
