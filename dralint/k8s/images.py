"""Container image references as the kubelet parses them before pulling.

The kubelet normalizes every ``image`` with the distribution reference grammar (the one
``docker pull`` uses) and refuses the container with reason ``InvalidImageName`` when it does
not parse; the pod then never starts, although the API server accepted it. The grammar:

    reference  := name [ ":" tag ] [ "@" digest ]
    name       := [ domain "/" ] path-component { "/" path-component }   (at most 255 characters)
    domain     := host [ ":" port ]   host: DNS-like components or "[" IPv6 "]"
    path-component := [a-z0-9]+ { separator [a-z0-9]+ }   separator: "." | "_" | "__" | "-"+
    tag        := [A-Za-z0-9_] [A-Za-z0-9_.-]{0,127}
    digest     := algorithm ":" hex   (sha256: 64, sha384: 96, sha512: 128 lower-case hex digits)

The first component is a registry only when it contains "." or ":", is "localhost", or has an
upper-case letter; otherwise the name is a Docker Hub repository. :func:`image_problem` returns
the first problem with the exact character range it concerns, so a finding can point at it.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

#: Reason the kubelet records on the container when the reference does not parse.
KUBELET_REASON = "InvalidImageName"
NAME_MAX = 255
TAG_MAX = 128
DIGEST_HEX_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}

_PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\$\{[^}]*\}|<[^<>]*>|\$\(?[A-Za-z_][A-Za-z0-9_]*\)?|%\{[^}]*\}|@@[A-Z_]+@@")
_PATH_CHARS = re.compile(r"[^a-z0-9._-]")
_SEPARATOR_RUN = re.compile(r"[._-]+")
_VALID_SEPARATOR = re.compile(r"[.]|_|__|-+")
_DOMAIN_COMPONENT = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?")
_BAD_DOMAIN_CHAR = re.compile(r"[^A-Za-z0-9.-]")
_TAG = re.compile(r"[\w][\w.-]*", re.ASCII)
_ALGORITHM = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*")
_IDENTIFIER = re.compile(r"[a-f0-9]{64}")


class ImageProblem(NamedTuple):
    """Why a reference does not parse, about the characters ``start:end`` of it."""

    start: int
    end: int
    message: str


def image_tag(image: str) -> str | None:
    """The tag of an image reference; None when it has none. Digest-pinned images count as tagged.

    A registry port (``localhost:5000/app``) is not a tag: only a colon in the last path
    component is.
    """
    if "@" in image:
        return image.rsplit("@", 1)[1]
    last = image.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else None


@functools.lru_cache(maxsize=4096)
def image_problem(ref: str) -> ImageProblem | None:
    """The first reason the kubelet would reject ``ref`` (None when it parses or is empty).

    An empty image is left to the API rules: the server rejects it for pods, while templates
    may leave it to an admission webhook. Cached per text: the workloads of a repository
    share a handful of images.
    """
    if not ref:
        return None
    placeholder = _PLACEHOLDER.search(ref)
    if placeholder:
        return ImageProblem(
            placeholder.start(), placeholder.end(), f"'{placeholder.group()}' is an unrendered template placeholder"
        )
    if ref != ref.strip():
        edge = 0 if ref[0].isspace() else len(ref.rstrip())
        return ImageProblem(edge, edge + 1, "leading or trailing white space")
    if _IDENTIFIER.fullmatch(ref):
        return ImageProblem(0, len(ref), "a bare 64-hex-digit image ID, which is not a pullable repository name")
    name_end = ref.find("@")
    digest = None
    if name_end >= 0:
        digest = _digest_problem(ref, name_end + 1)
    else:
        name_end = len(ref)
    slash = ref.rfind("/", 0, name_end)
    colon = ref.find(":", slash + 1, name_end)
    repo_end = colon if colon >= 0 else name_end
    return _name_problem(ref, repo_end) or (_tag_problem(ref, colon + 1, name_end) if colon >= 0 else None) or digest


def _name_problem(ref: str, end: int) -> ImageProblem | None:
    """Domain and repository path of ``ref[:end]``."""
    if end == 0:
        return ImageProblem(0, 1, "no repository name")
    first = ref.find("/", 0, end)
    start = 0
    if first >= 0 and _is_domain(ref[:first]):
        problem = _domain_problem(ref, first)
        if problem:
            return problem
        start = first + 1
    offset = start
    for component in ref[start:end].split("/"):
        problem = _path_problem(component, offset, ref)
        if problem:
            return problem
        offset += len(component) + 1
    if end > NAME_MAX:
        return ImageProblem(NAME_MAX, end, f"repository name is {end} characters long, more than {NAME_MAX}")
    return None


def _is_domain(first: str) -> bool:
    """The reference grammar's rule for telling a registry host from a Docker Hub namespace."""
    return "." in first or ":" in first or first == "localhost" or first.lower() != first


def _domain_problem(ref: str, end: int) -> ImageProblem | None:
    """The registry part ``ref[:end]``: host components or a bracketed IPv6 address, then a port."""
    domain = ref[:end]
    if domain.startswith("["):
        close = domain.find("]")
        if close < 0 or not re.fullmatch(r"\[[A-Fa-f0-9:]+\]", domain[: close + 1]):
            return ImageProblem(
                0, close + 1 if close >= 0 else end, "registry host is not a valid bracketed IPv6 address"
            )
        host, port_at = "", close + 1
    else:
        colon = domain.find(":")
        port_at = colon if colon >= 0 else end
        host = domain[:port_at]
    rest = domain[port_at:]
    if rest and rest[0] != ":":
        return ImageProblem(port_at, port_at + 1, "registry host must be followed by ':port' or '/'")
    if rest:
        port = rest[1:]
        bad = re.search(r"[^0-9]", port)
        if not port or bad:
            at = port_at + 1 + (bad.start() if bad else 0)
            return ImageProblem(min(at, end - 1), min(at, end - 1) + 1, f"registry port '{port}' is not a number")
    offset = 0
    for component in host.split(".") if host else ():
        bad_char = _BAD_DOMAIN_CHAR.search(component)
        if bad_char:
            at = offset + bad_char.start()
            return ImageProblem(at, at + 1, f"registry host has the character '{bad_char.group()}'")
        if not _DOMAIN_COMPONENT.fullmatch(component):
            return ImageProblem(
                offset,
                offset + max(len(component), 1),
                "registry host has an empty component or one that starts or ends with '-'",
            )
        offset += len(component) + 1
    return None


def _path_problem(component: str, offset: int, ref: str) -> ImageProblem | None:
    """One "/"-separated repository component at ``offset`` in ``ref``."""
    if not component:
        return ImageProblem(
            max(offset - 1, 0), offset, "repository name has an empty path component ('//' or a '/' at an end)"
        )
    bad = _PATH_CHARS.search(component)
    if bad:
        at = offset + bad.start()
        if bad.group().isupper():
            run = re.match(r"[A-Z]+", component[bad.start() :])
            length = run.end() if run else 1
            return ImageProblem(at, at + length, "repository name must be lowercase")
        return ImageProblem(at, at + 1, f"repository name has the character '{bad.group()}'")
    for run in _SEPARATOR_RUN.finditer(component):
        if run.start() == 0 or run.end() == len(component):
            return ImageProblem(
                offset + run.start(),
                offset + run.end(),
                "a repository path component must start and end with a letter or digit",
            )
        if not _VALID_SEPARATOR.fullmatch(run.group()):
            return ImageProblem(
                offset + run.start(),
                offset + run.end(),
                f"'{run.group()}' is not a separator the grammar allows ('.', '_', '__' or dashes)",
            )
    return None


def _tag_problem(ref: str, start: int, end: int) -> ImageProblem | None:
    tag = ref[start:end]
    if not tag:
        return ImageProblem(start - 1, start, "empty tag after ':'")
    match = _TAG.match(tag)
    if not match or tag[0] in ".-":
        return ImageProblem(start, start + 1, f"tag must start with a letter, digit or '_', not '{tag[0]}'")
    if match.end() != len(tag):
        at = start + match.end()
        return ImageProblem(at, at + 1, f"tag has the character '{tag[match.end()]}'")
    if len(tag) > TAG_MAX:
        return ImageProblem(start + TAG_MAX, end, f"tag is {len(tag)} characters long, more than {TAG_MAX}")
    return None


def _digest_problem(ref: str, start: int) -> ImageProblem | None:
    digest = ref[start:]
    colon = digest.find(":")
    if colon < 0:
        return ImageProblem(start - 1, len(ref), "digest after '@' must be 'algorithm:hex'")
    algorithm, hex_part = digest[:colon], digest[colon + 1 :]
    if not _ALGORITHM.fullmatch(algorithm):
        return ImageProblem(start, start + max(colon, 1), f"'{algorithm}' is not a digest algorithm name")
    want = DIGEST_HEX_LENGTHS.get(algorithm)
    if want is None:
        return ImageProblem(
            start, start + colon, f"digest algorithm '{algorithm}' is not supported (sha256, sha384, sha512)"
        )
    hex_start = start + colon + 1
    bad = re.search(r"[^a-f0-9]", hex_part)
    if bad:
        at = hex_start + bad.start()
        return ImageProblem(at, at + 1, f"digest has the character '{bad.group()}' (lower-case hex digits only)")
    if len(hex_part) != want:
        return ImageProblem(hex_start, len(ref), f"{algorithm} digest has {len(hex_part)} hex digits, not {want}")
    return None
