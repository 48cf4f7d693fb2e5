#!/usr/bin/env bash
# Tests the VS Code extension without VS Code: the TextMate grammar against scope assertions
# (vscode-tmgrammar-test, tests/*.test.rules), the manifest's files, and that extension.js loads.
# Needs node and npm, and the npm registry.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node --check extension.js
node -e '
const fs = require("fs");
const manifest = require("./package.json");
const files = [manifest.main, ...manifest.contributes.grammars.map((g) => g.path),
  ...manifest.contributes.languages.map((l) => l.configuration)];
for (const file of files) {
  if (!fs.existsSync(file)) throw new Error(`package.json names ${file}, which does not exist`);
  if (file.endsWith(".json")) JSON.parse(fs.readFileSync(file, "utf8"));
}
require.resolve("vscode-languageclient/node");
console.log(`manifest: ${files.length} files present`);
'
npm test
