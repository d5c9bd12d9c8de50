"""The PyYAML loader class every pass over YAML text uses: libyaml's, when it is installed.

The loader and the YAML 1.2 strictness pass must scan with the same scanner, or one would
accept input the other rejects; both take the class from here.
"""

try:
    from yaml import CSafeLoader as LOADER
except ImportError:  # pragma: no cover - libyaml missing: correct, only slower
    from yaml import SafeLoader as LOADER  # type: ignore[assignment]

__all__ = ["LOADER"]
