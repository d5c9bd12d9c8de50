"""The CEL library stays behind dralint/k8s/cel: no other module imports it."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "dralint"


def test_only_the_adapter_imports_the_cel_library() -> None:
    offenders = [
        str(path.relative_to(ROOT.parent))
        for path in ROOT.rglob("*.py")
        if "cel_expr_python" in path.read_text(encoding="utf-8") and path.parent != ROOT / "k8s" / "cel"
    ]
    assert offenders == []
    assert "cel_expr_python" in (ROOT / "k8s" / "cel" / "env.py").read_text(encoding="utf-8")
