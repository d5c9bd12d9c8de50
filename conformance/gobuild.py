"""`go build` of the Go programs the tests compare dralint with (the oracle, the control plane)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def go_build(directory: Path) -> Path:
    """Build the module in ``directory`` to ``directory/.build/<its name>``; Go's own cache makes
    a rebuild with no change take seconds."""
    binary = directory / ".build" / directory.name
    if shutil.which("go") is None:
        raise SystemExit(f"go is not on PATH; {directory.name} cannot be built")
    binary.parent.mkdir(exist_ok=True)
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=directory, check=True)
    return binary
