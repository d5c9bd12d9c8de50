"""The checks: one module per concern, each registering functions with ``lint.registry``.

Families mirror the rule-id prefixes: ``api`` (API), ``cel`` (CEL), ``references`` (REF),
``extended`` (EXT), ``scheduling`` (SCH), ``security`` (SEC), ``podsecurity`` (PSS),
``reliability`` (REL). A check
reads ``KubeObject``s and the ``Context``, asks ``k8s`` for the Kubernetes facts, and yields
``Finding``s; its rule's name, severity and documentation live in ``rules/<ID>.yaml``. Checks
import ``lint``, ``k8s``, ``yaml`` and ``diagnostics``; nothing below imports a check.
"""
