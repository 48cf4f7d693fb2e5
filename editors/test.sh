#!/usr/bin/env bash
# Tests the editor set-ups editors/README.md gives, taken from it so the doc cannot drift: every
# `lua` block compiles (luac, Debian's lua5.4, installed when missing, as .ci/run does for
# chromium), and the Neovim block's filetype detection claims the same `.rules` files as the VS
# Code extension's detect.js; every `toml` block parses (Python's tomllib) and each language in it
# names a language server the block defines, which runs `tempo lsp`. Then the VS Code extension's
# own tests (editors/vscode/test.sh).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v luac5.4 >/dev/null || ! command -v lua5.4 >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends lua5.4
fi
blocks="$(mktemp -d)"
trap 'rm -rf "$blocks"' EXIT
# Each fenced block of README.md into its own file: lua-1.lua, toml-1.toml, ...
python3 - "$blocks" <<'PY'
import re, sys, pathlib
out = pathlib.Path(sys.argv[1])
text = pathlib.Path("README.md").read_text()
counts = {}
for lang, body in re.findall(r"^```(\w+)\n(.*?)^```$", text, flags=re.M | re.S):
    counts[lang] = counts.get(lang, 0) + 1
    (out / f"{lang}-{counts[lang]}.{lang}").write_text(body)
if counts.get("lua", 0) < 2 or counts.get("toml", 0) < 1:
    sys.exit(f"editors/README.md should hold the Neovim (lua) and Helix (toml) set-ups: found {counts}")
PY
for f in "$blocks"/lua-*.lua; do
  luac5.4 -p "$f" || { echo "editors/README.md: a lua block does not compile ($(basename "$f"))"; exit 1; }
done
# The first lua block is the whole Neovim set-up: run it against stand-ins for Neovim's API and
# nvim-lspconfig, then ask its `.rules` detection about the cases detect.js is tested on.
lua5.4 - "$blocks/lua-1.lua" <<'LUA'
local added, server
local buffers = {}
vim = {
  filetype = { add = function(spec) added = spec end },
  api = {
    nvim_buf_get_lines = function(buf) return buffers[buf] end,
    nvim_create_autocmd = function() end,
  },
  bo = {},
}
package.preload["lspconfig.configs"] = function() return {} end
package.preload["lspconfig.util"] = function() return { root_pattern = function() return function() end end } end
package.preload["lspconfig"] = function()
  local configs = require("lspconfig.configs")
  return setmetatable({}, { __index = function(_, name)
    return { setup = function() server = configs[name].default_config end }
  end })
end
dofile(arg[1])
assert(server and server.cmd[1] == "tempo" and server.cmd[2] == "lsp", "the server is not `tempo lsp`")
local detect = added.extension.rules
local cases = {
  { "ruleset duel\npool ap { max 3 }", "tempo" },
  { "# A comment first.\n\n## Docs too.\nruleset duel extends \"base.rules\"", "tempo" },
  { "\239\187\191ruleset bom", "tempo" },
  { "# udev rules\nSUBSYSTEM==\"usb\", MODE=\"0666\"", nil },
  { "alert tcp any any -> any any (msg:\"x\";)", nil },
  { "rulesets are here", nil },
  { "", nil },
}
for i, case in ipairs(cases) do
  local lines = {}
  for line in (case[1] .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
  buffers[i] = lines
  assert(detect("x.rules", i) == case[2], "the Neovim detection is wrong for " .. string.format("%q", case[1]))
end
assert(added.pattern[".*%.test%.ron"] == "tempo_test", "*.test.ron is not a tempo test file")
print("neovim: " .. #cases .. " detection cases, server `tempo lsp`")
LUA
python3 - "$blocks" <<'PY'
import pathlib, sys, tomllib
for path in sorted(pathlib.Path(sys.argv[1]).glob("toml-*.toml")):
    doc = tomllib.loads(path.read_text())
    servers = doc.get("language-server", {})
    languages = doc.get("language", [])
    assert languages, f"{path.name}: no [[language]]"
    for lang in languages:
        for name in lang.get("language-servers", []):
            assert name in servers, f"{path.name}: {lang['name']} names the undefined server {name}"
            assert servers[name]["command"] == "tempo" and servers[name]["args"] == ["lsp"], servers[name]
    print(f"helix: {len(languages)} languages, servers {sorted(servers)}")
PY
bash -n vscode/install.sh
bash vscode/test.sh
