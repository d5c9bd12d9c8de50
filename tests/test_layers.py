"""The package's import rules (docs/architecture.md): each layer imports only the layers below.

Every ``import`` statement counts, including those inside functions and ``TYPE_CHECKING``
blocks, because a deferred import is still a dependency. The one exception is the check
registry, which discovers ``dralint.checks`` by name at run time the way plug-ins are found.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dralint"

#: Layer of each top-level entry, lowest first. A module may import its own package and any
#: entry of a strictly lower layer; entries of one layer never import each other.
LAYERS = {
    "dralint": 0,  # the package root: version and bundled data paths only
    "dralint.diagnostics": 0,
    "dralint.yaml": 1,
    "dralint.k8s": 2,
    "dralint.lint": 3,
    "dralint.checks": 4,
    "dralint.fix": 5,
    "dralint.reporters": 5,
    "dralint.lsp": 6,
    "dralint.cli": 7,
    "dralint.__main__": 8,
}

#: Inside k8s/, these subpackages are knowledge the rest of k8s/ builds on or builds upon.
K8S_INNER = {
    "dralint.k8s.cel": {"dralint.k8s.quantity", "dralint.k8s.semver"},
    "dralint.k8s.apivalidation": {"dralint.k8s.objects", "dralint.k8s.quantity", "dralint.k8s.semver"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """Every dralint module ``path`` imports: ``from pkg import sub`` depends on ``pkg.sub``,
    ``from module import name`` on ``module``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in modules else node.module)
    return {name for name in found if name in modules}


def entry(name: str) -> str:
    """The top-level entry a module belongs to (``dralint.k8s.cel.env`` -> ``dralint.k8s``)."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else name


def graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: imports(path, modules) - {name} for name, path in paths.items()}


def test_layers_import_only_downwards() -> None:
    offenders = []
    for module, targets in graph().items():
        for target in targets:
            if target == "dralint.checks" and module == "dralint.lint.registry":
                continue
            source_entry, target_entry = entry(module), entry(target)
            if source_entry == target_entry or target == "dralint":
                continue
            if LAYERS[target_entry] >= LAYERS[source_entry]:
                offenders.append(f"{module} imports {target}")
    assert offenders == []


def test_k8s_subpackages_import_only_what_they_build_on() -> None:
    offenders = []
    for module, targets in graph().items():
        for inner, allowed in K8S_INNER.items():
            if module != inner and not module.startswith(inner + "."):
                continue
            for target in targets:
                if target.startswith("dralint.k8s.") and not target.startswith(inner) and target not in allowed:
                    offenders.append(f"{module} imports {target}")
    assert offenders == []


def test_no_import_cycles() -> None:
    edges = graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join(stack[stack.index(target) :] + [target]))
            elif target not in state:
                visit(target, stack + [target])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_only_the_cel_adapter_imports_the_cel_library() -> None:
    """cel-expr-python is young and pinned; keeping it behind k8s/cel/ keeps a swap local."""
    offenders = [
        module_name(path)
        for path in PACKAGE.rglob("*.py")
        if "cel_expr_python" in path.read_text(encoding="utf-8") and not module_name(path).startswith("dralint.k8s.cel")
    ]
    assert offenders == []


def test_top_level_stays_small() -> None:
    entries = {
        p.name for p in PACKAGE.iterdir() if p.name not in {"__init__.py", "__main__.py", "__pycache__", "_data"}
    }
    assert len(entries) <= 9, sorted(entries)  # the stages of docs/architecture.md, the CLI and the language server
