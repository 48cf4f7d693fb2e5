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
# The test file's code lines are lines of the shipped ruleset, so highlighting is tested on real text.
grep -v '^# *[<^]' tests/frontiers.test.rules | tail -n +2 | grep -v '^$' | while IFS= read -r line; do
  grep -qxF -- "$line" ../../rulesets/frontiers.rules || { echo "not a line of rulesets/frontiers.rules: $line"; exit 1; }
done
npm test
