"""One end-to-end test with a real editor: Neovim, headless, with its built-in LSP client.

It opens a manifest with a mistyped field, reads the diagnostics the editor holds, applies
the fix code action the server offers, and sees the diagnostic go. Skipped where ``nvim`` is
not installed (Debian: ``apt-get install neovim``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_lsp import TYPO

NVIM = shutil.which("nvim")

SCRIPT = r"""
local out = {}
local function save()
  local f = io.open(OUT, "w"); f:write(vim.fn.json_encode(out)); f:close()
end
local function codes(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(found, {code = d.code or "", lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message})
  end
  return found
end
local function drive()
local client = vim.lsp.start_client({name = "dralint", cmd = {PYTHON, "-m", "dralint", "lsp"}, root_dir = ROOT})
vim.cmd("edit " .. FILE)
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client)
local has = function(code)
  for _, d in ipairs(vim.diagnostic.get(buf)) do if d.code == code then return true end end
  return false
end
out.before_ok = vim.wait(60000, function() return has("API001") end, 100)
out.before = codes(buf)
local target
for _, d in ipairs(vim.diagnostic.get(buf)) do if d.code == "API001" then target = d end end
if target then
  local params = {
    textDocument = {uri = vim.uri_from_bufnr(buf)},
    range = {
      start = {line = target.lnum, character = target.col},
      ["end"] = {line = target.end_lnum, character = target.end_col},
    },
    context = {diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, target.lnum)},
  }
  local answers = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 30000) or {}
  out.titles = {}
  for _, answer in pairs(answers) do
    for _, action in ipairs(answer.result or {}) do
      table.insert(out.titles, action.title)
      if action.isPreferred and action.edit then
        vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
      end
    end
  end
  out.after_ok = vim.wait(60000, function() return not has("API001") end, 100)
  out.after = codes(buf)
  out.text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end
vim.lsp.stop_client(client)
end
local ok, err = pcall(drive)
if not ok then out.error = tostring(err) end
save()
vim.cmd("qall!")
"""


@pytest.mark.skipif(
    NVIM is None, reason="nvim is not installed (Debian: apt-get install neovim); the editor test needs it"
)
def test_neovim_shows_the_finding_and_its_fix_removes_it(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    manifest = root / "deploy.yaml"
    manifest.write_text(TYPO, encoding="utf-8")
    out = tmp_path / "out.json"
    header = "".join(
        f"local {name} = {json.dumps(str(value))}\n"
        for name, value in {"PYTHON": sys.executable, "ROOT": root, "FILE": manifest, "OUT": out}.items()
    )
    script = tmp_path / "drive.lua"
    script.write_text(header + SCRIPT, encoding="utf-8")
    subprocess.run(
        [str(NVIM), "--headless", "--clean", "-n", "-c", f"luafile {script}"],
        cwd=root,
        timeout=240,
        check=True,
        capture_output=True,
    )
    seen = json.loads(out.read_text())
    assert seen["before_ok"], seen
    typo = next(d for d in seen["before"] if d["code"] == "API001")
    # The range `dralint lint` gives: line 7, columns 3-11 (1-based, end exclusive).
    assert (typo["lnum"], typo["col"], typo["end_col"]) == (6, 2, 10)
    assert typo["message"].startswith('unknown field "spec.replicsa"')
    assert "Fix API001 (unknown-field)" in seen["titles"]
    assert seen["after_ok"], seen
    assert "replicas: 2" in seen["text"] and "replicsa" not in seen["text"]
