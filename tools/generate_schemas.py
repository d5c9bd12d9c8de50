"""Generate dralint's bundled Kubernetes v1.37 schema from kubernetes-validate 1.37.0.

Why a generator: dralint must answer "would a v1.37 API server accept this?" without asking users to
install the 108 MB ``kubernetes-validate`` package. This script is run by maintainers only (install
the ``schemas`` extra: ``pip install '.[schemas]'``) and writes two committed files:

* ``schemas/kubernetes-v1.37.0-strict.json.gz``: every ``$defs`` entry of the strict 1.37 definitions,
  with descriptions and OpenAPI extensions removed (they are large and not used for validation).
* ``schemas/gvk-index-v1.37.0.json``: ``"<group>/<version>/<Kind>" -> definition name`` for every
  built-in kind, plus the list of API groups the release knows.

Output is byte-for-byte reproducible: keys are sorted and the gzip header has no name or timestamp.
Usage: ``python tools/generate_schemas.py [--check]`` (``--check`` compares instead of writing).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

VERSION = "v1.37.0"
SOURCE_DIR = f"kubernetes-json-schema/{VERSION}-local-strict"
REPO = Path(__file__).resolve().parent.parent
SCHEMA_FILE = REPO / "schemas" / f"kubernetes-{VERSION}-strict.json.gz"
INDEX_FILE = REPO / "schemas" / f"gvk-index-{VERSION}.json"

# Keys that carry documentation or client hints only; validation never reads them. Upstream
# "format" values (int32, int64, byte, double, date-time) are dropped too: dralint enables format
# validation for its own overlay formats and must not start enforcing formats the server's
# structural decoding does not enforce the same way.
DROPPED_KEYS = frozenset({"description", "format"})
# Definitions that list a GVK for every group ever served; they would make every old group look
# like it still serves kinds.
META_DEFINITIONS = frozenset(
    {
        "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
        "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    }
)


def _source_definitions() -> dict[str, Any]:
    """Load the strict 1.37 definitions from the installed kubernetes-validate package."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or spec.origin is None:
        raise SystemExit("kubernetes-validate==1.37.0 is not installed (pip install '.[schemas]')")
    path = Path(spec.origin).parent / SOURCE_DIR / "_definitions.json"
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)["$defs"]


def _merge_type_only_one_of(schema: dict[str, Any]) -> dict[str, Any]:
    """Turn ``oneOf: [{type: [string, null]}, {type: [number, null]}]`` into one ``type`` list.

    Quantity and IntOrString are written that way upstream; ``null`` matches both branches, so a
    ``oneOf`` would reject an explicit ``null`` that the API server accepts.
    """
    branches = schema.get("oneOf")
    if not isinstance(branches, list) or not all(isinstance(b, dict) and set(b) == {"type"} for b in branches):
        return schema
    types: list[str] = []
    for branch in branches:
        for name in branch["type"] if isinstance(branch["type"], list) else [branch["type"]]:
            if name not in types:
                types.append(name)
    merged = {k: v for k, v in schema.items() if k != "oneOf"}
    merged["type"] = types
    return merged


def _strip(node: Any, *, in_properties: bool = False) -> Any:
    """Drop documentation keys and ``x-kubernetes-*`` extensions recursively.

    Inside a ``properties`` mapping the keys are field names (a field may be called
    ``description`` or ``format``), so nothing is dropped at that level.
    """
    if isinstance(node, list):
        return [_strip(item) for item in node]
    if not isinstance(node, dict):
        return node
    if in_properties:
        return {key: _strip(value) for key, value in node.items()}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED_KEYS or key.startswith("x-kubernetes-"):
            continue
        out[key] = _strip(value, in_properties=(key == "properties"))
    return _merge_type_only_one_of(out)


def build() -> tuple[bytes, bytes]:
    """Return the (gzipped schema, index JSON) bytes."""
    source = _source_definitions()
    definitions = {name: _strip(body) for name, body in sorted(source.items())}
    kinds: dict[str, str] = {}
    groups: set[str] = set()
    for name, body in sorted(source.items()):
        for gvk in body.get("x-kubernetes-group-version-kind", []):
            groups.add(gvk["group"])
            if name in META_DEFINITIONS:
                continue
            api_version = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            kinds[f"{api_version}/{gvk['kind']}"] = name
    schema_json = json.dumps({"$defs": definitions}, sort_keys=True, separators=(",", ":"))
    schema_gz = gzip.compress(schema_json.encode("utf-8"), compresslevel=9, mtime=0)
    index = {"kubernetesVersion": VERSION, "groups": sorted(groups), "kinds": dict(sorted(kinds.items()))}
    index_json = (json.dumps(index, indent=1, sort_keys=True) + "\n").encode("utf-8")
    return schema_gz, index_json


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` verify) the bundled schema files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed files differ")
    args = parser.parse_args(argv)
    schema_gz, index_json = build()
    outputs = {SCHEMA_FILE: schema_gz, INDEX_FILE: index_json}
    if args.check:
        stale = [str(p) for p, data in outputs.items() if not p.exists() or p.read_bytes() != data]
        for path in stale:
            print(f"out of date: {path}", file=sys.stderr)
        return 1 if stale else 0
    for path, data in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"wrote {path.relative_to(REPO)} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
