"""Secrets written into manifests: literal env values with secret-like names, private keys.

Names are split into words, so ``DB_PASSWORD`` and ``apiKey`` count while ``TOKEN_PATH``,
``PASSWORD_FILE`` or ``SECRET_NAME`` (which point at a secret rather than hold one) do not;
empty values, ``$(VAR)`` references and plain numbers are not secrets either.
"""

from __future__ import annotations

import re
from typing import Iterator

from dralint.lint.context import Context
from dralint.diagnostics import Finding, Severity
from dralint.k8s.objects import KubeObject, pod_templates
from dralint.lint.registry import object_check

_SECRET_WORDS = frozenset({"PASSWORD", "PASSWD", "SECRET", "TOKEN", "CREDENTIAL", "CREDENTIALS", "APIKEY", "PASSPHRASE"})
_SECRET_PAIRS = frozenset({("API", "KEY"), ("ACCESS", "KEY"), ("PRIVATE", "KEY"), ("SECRET", "KEY"), ("AUTH", "KEY")})
#: Last words that make the variable a pointer to a secret or a setting about it.
_POINTER_WORDS = frozenset({"PATH", "FILE", "DIR", "URL", "URI", "NAME", "ENDPOINT", "TTL", "TIMEOUT", "TYPE", "HEADER", "LENGTH", "SIZE", "REF", "ENABLED", "MODE", "ID", "REFRESH", "AUDIENCE", "EXPIRATION", "KEYS"})
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")


def secret_like(name: str) -> bool:
    """Whether an environment variable name says it holds a secret value."""
    words = [w.upper() for w in _WORD.findall(name)]
    if not words or words[-1] in _POINTER_WORDS:
        return False
    return any(w in _SECRET_WORDS for w in words) or any(pair in _SECRET_PAIRS for pair in zip(words, words[1:]))


def _literal(value: object) -> bool:
    if not isinstance(value, str):
        return False
    text = value.strip()
    return bool(text) and not text.startswith("$(") and not text.isdigit() and text.lower() not in ("true", "false")


@object_check("SEC015")
def check_env_secrets(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Literal secret values in container env (private keys anywhere are an error)."""
    for template in pod_templates(obj):
        for path, container in template.containers():
            env = container.get("env")
            for index, var in enumerate(env if isinstance(env, list) else []):
                if not isinstance(var, dict) or "value" not in var:
                    continue
                name, value = str(var.get("name", "")), var.get("value")
                hint = f"store it in a Secret and mount it as a file, or reference it with `valueFrom: {{secretKeyRef: {{name: <secret>, key: {name.lower() or 'key'}}}}}`"
                if isinstance(value, str) and _PRIVATE_KEY.search(value):
                    yield obj.finding(path + ("env", index, "value"), f"{template.label}: env var {name} holds a private key in plain text", hint=hint, severity=Severity.ERROR)
                elif secret_like(name) and _literal(value):
                    yield obj.finding(path + ("env", index, "value"), f"{template.label}: env var {name} looks like a secret and its value is written in the manifest", hint=hint)
