#!/usr/bin/env bash
# Builds the extension and installs it into VS Code: `bash editors/vscode/install.sh`.
# Needs node and npm (the npm registry, for the locked build tools) and VS Code's `code` on PATH
# (or CODE=/path/to/code, e.g. `codium`). The package is left at editors/vscode/tempo-rules.vsix.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent package
code="${CODE:-code}"
if ! command -v "$code" >/dev/null; then
  echo "built $PWD/tempo-rules.vsix; \`$code\` is not on PATH: install it from VS Code with" \
    "\"Extensions: Install from VSIX...\", or run: CODE=/path/to/code bash $0" >&2
  exit 1
fi
"$code" --install-extension tempo-rules.vsix --force
echo "installed; the extension starts \`tempo lsp\`: put tempo on PATH (cargo install --path .) or set tempo.server.path"
