"""What a lint of one small file imports: pre-commit and editors start dralint once per file,
so start-up time is the modules loaded (bench/table.py times it; this keeps the heavy ones out)."""

from __future__ import annotations

import json
import subprocess
import sys

#: Loaded only by the runs that use them: workers, SARIF and baselines, chart and overlay
#: renders, a pyproject.toml, a cluster snapshot, `dralint fix`, the language server.
NOT_FOR_A_SMALL_LINT = (
    "multiprocessing",
    "hashlib",
    "subprocess",
    "tempfile",
    "tomllib",
    "dralint.k8s.inventory",
    "dralint.k8s.allocator.simulate",
    "dralint.k8s.allocator.search",
    "dralint.k8s.celmatch",
    "dralint.fix",
    "dralint.reporters.sarif",
    # `dralint lsp`'s: a dependency of every install, imported by that command alone.
    "pygls",
    "lsprotocol",
    "dralint.lsp",
)

PROGRAM = """
import json, sys
from dralint.cli.main import main
sys.argv = ["dralint", "lint", "--no-config", sys.argv[1]]
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_a_small_lint_leaves_the_heavy_modules_unloaded(tmp_path):
    manifest = tmp_path / "cm.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  mode: fast\n"
    )
    run = subprocess.run([sys.executable, "-c", PROGRAM, str(manifest)], capture_output=True, text=True, check=True)
    loaded = set(json.loads(run.stderr.strip().splitlines()[-1]))
    assert "dralint.lint.engine" in loaded and "dralint.checks.scheduling.placement" in loaded
    assert sorted(name for name in NOT_FOR_A_SMALL_LINT if name in loaded) == []
    # Check modules for kinds the file does not hold stay unloaded (see dralint.lint.registry).
    assert "dralint.checks.security.secrets" in loaded and "dralint.checks.security.pod" not in loaded
