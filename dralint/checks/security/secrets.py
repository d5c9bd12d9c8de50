"""Secrets written into manifests (literal env values with secret-like names, private keys,
secret-looking ConfigMap values) and Secrets read into the environment.

Names are split into words, so ``DB_PASSWORD`` and ``apiKey`` count while ``TOKEN_PATH``,
``PASSWORD_FILE`` or ``SECRET_NAME`` (which point at a secret rather than hold one) do not;
empty values, ``$(VAR)`` references and plain numbers are not secrets either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from dralint.diagnostics import Finding, Severity
from dralint.k8s.objects import POD_TEMPLATE_KINDS, KubeObject, pod_templates
from dralint.lint.context import Context
from dralint.lint.registry import object_check

_SECRET_WORDS = frozenset(
    {"PASSWORD", "PASSWD", "SECRET", "TOKEN", "CREDENTIAL", "CREDENTIALS", "APIKEY", "PASSPHRASE"}
)
_SECRET_PAIRS = frozenset({("API", "KEY"), ("ACCESS", "KEY"), ("PRIVATE", "KEY"), ("SECRET", "KEY"), ("AUTH", "KEY")})
#: Last words that make the variable a pointer to a secret or a setting about it.
_POINTER_WORDS = frozenset(
    {
        "PATH",
        "FILE",
        "DIR",
        "URL",
        "URI",
        "NAME",
        "ENDPOINT",
        "TTL",
        "TIMEOUT",
        "TYPE",
        "HEADER",
        "LENGTH",
        "SIZE",
        "REF",
        "ENABLED",
        "MODE",
        "ID",
        "REFRESH",
        "AUDIENCE",
        "EXPIRATION",
        "KEYS",
    }
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")


def secret_like(name: str) -> bool:
    """Whether an environment variable name says it holds a secret value."""
    words = [w.upper() for w in _WORD.findall(name)]
    if not words or words[-1] in _POINTER_WORDS:
        return False
    return any(w in _SECRET_WORDS for w in words) or any(pair in _SECRET_PAIRS for pair in pairwise(words))


def _literal(value: object) -> bool:
    if not isinstance(value, str):
        return False
    text = value.strip()
    return bool(text) and not text.startswith("$(") and not text.isdigit() and text.lower() not in ("true", "false")


@object_check("SEC015", kinds=POD_TEMPLATE_KINDS)
def check_env_secrets(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Literal secret values in container env (private keys anywhere are an error)."""
    for template in pod_templates(obj):
        for path, container in template.containers():
            env = container.get("env")
            for index, var in enumerate(env if isinstance(env, list) else []):
                if not isinstance(var, dict) or "value" not in var:
                    continue
                name, value = str(var.get("name", "")), var.get("value")
                hint = (
                    "store it in a Secret and mount it as a file, or reference it with `valueFrom: "
                    f"{{secretKeyRef: {{name: <secret>, key: {name.lower() or 'key'}}}}}`"
                )
                if isinstance(value, str) and _PRIVATE_KEY.search(value):
                    yield obj.finding(
                        path + ("env", index, "value"),
                        f"{template.label}: env var {name} holds a private key in plain text",
                        hint=hint,
                        severity=Severity.ERROR,
                    )
                elif secret_like(name) and _literal(value):
                    yield obj.finding(
                        path + ("env", index, "value"),
                        f"{template.label}: env var {name} looks like a secret and its value is written in "
                        "the manifest",
                        hint=hint,
                    )


_ASSIGNMENT = re.compile(r"^\s*[\"']?([A-Za-z_][A-Za-z0-9_.-]*)[\"']?\s*[:=]\s*[\"']?([^\"'#\s][^\"'#]*?)[\"']?\s*$")


def _placeholder(value: str) -> bool:
    """Values filled in later (``${VAR}``, ``{{ .Values.x }}``, ``$(VAR)``) hold no secret."""
    return "${" in value or "{{" in value or value.startswith("$(") or value.startswith("<")


def configmap_secrets(key: str, value: object) -> Iterator[tuple[str, bool]]:
    """(what, is_private_key) for each secret a ConfigMap entry seems to hold: a private key, a
    secret-named key with a literal value, or such an assignment inside an embedded config file."""
    if not isinstance(value, str):
        return
    if _PRIVATE_KEY.search(value):
        yield "a private key", True
        return
    if "\n" not in value.strip() and secret_like(key.replace(".", "_").replace("-", "_")):
        if _literal(value) and not _placeholder(value.strip()):
            yield f"key {key} looks like a secret and has a literal value", False
        return
    for line in value.splitlines():
        # Only a line with an assignment can match; testing that first spares the pattern's
        # backtracking over every long line of a data blob.
        found = _ASSIGNMENT.match(line) if ":" in line or "=" in line else None
        if (
            found
            and secret_like(found.group(1).replace(".", "_").replace("-", "_"))
            and _literal(found.group(2))
            and not _placeholder(found.group(2))
        ):
            yield f"key {key} sets {found.group(1)} to a literal value", False
            return


@object_check("SEC046", kinds={"ConfigMap"})
def check_configmap_secrets(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Secret-looking values in a ConfigMap, which anyone who may read ConfigMaps can see."""
    data = obj.get(("data",))
    for key, value in data.items() if isinstance(data, dict) else ():
        for what, private in configmap_secrets(str(key), value):
            yield obj.finding(
                ("data", key),
                f"{obj.display}: {what}; ConfigMaps are readable by far more accounts than Secrets and are "
                "not encrypted at rest",
                hint="move the value to a Secret (mounted as a file) and keep only non-secret settings in the "
                "ConfigMap",
                severity=Severity.ERROR if private else None,
            )


@object_check("SEC045", kinds=POD_TEMPLATE_KINDS)
def check_secret_env(obj: KubeObject, ctx: Context) -> Iterator[Finding]:
    """Secrets read into environment variables (``secretKeyRef``, ``envFrom.secretRef``)."""
    for template in pod_templates(obj):
        for path, container in template.containers():
            env = container.get("env")
            for index, var in enumerate(env if isinstance(env, list) else []):
                source = var.get("valueFrom") if isinstance(var, dict) else None
                if isinstance(source, dict) and isinstance(source.get("secretKeyRef"), dict):
                    yield obj.finding(
                        path + ("env", index, "valueFrom", "secretKeyRef"),
                        f"{template.label}: env var {var.get('name', '?')} is read from a Secret; "
                        "environment variables leak into crash dumps, child processes and `kubectl describe` "
                        "output of some tools",
                        hint="mount the Secret as a file (`volumes: [{secret: {secretName: ...}}]`) and read it there",
                        rule="SEC045",
                        key=True,
                    )
            env_from = container.get("envFrom")
            for index, source in enumerate(env_from if isinstance(env_from, list) else []):
                if isinstance(source, dict) and isinstance(source.get("secretRef"), dict):
                    yield obj.finding(
                        path + ("envFrom", index, "secretRef"),
                        f"{template.label}: every key of a Secret is read into the environment",
                        hint="mount the Secret as a file and read it there",
                        rule="SEC045",
                        key=True,
                    )
