#!/usr/bin/env bash
# Tests the VS Code extension without VS Code: the TextMate grammar against scope assertions
# (vscode-tmgrammar-test, tests/*.test.rules), the manifest's files, and that extension.js loads.
# Needs node and npm, and the npm registry.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node --check extension.js
node --check detect.js
# Which `.rules` files the extension claims (detect.js).
node -e '
const { isTempoRules } = require("./detect");
const cases = [
  ["ruleset duel\npool ap { max 3 }\n", true],
  ["# A comment first.\n\n## Docs too.\nruleset duel extends \"base.rules\"\n", true],
  ["\uFEFFruleset bom\n", true],
  ["# udev rules\nSUBSYSTEM==\"usb\", MODE=\"0666\"\n", false],
  ["alert tcp any any -> any any (msg:\"x\";)\n", false],
  ["rulesets are here\n", false],
  ["", false],
];
for (const [text, want] of cases) {
  if (isTempoRules(text) !== want) throw new Error(`isTempoRules(${JSON.stringify(text)}) should be ${want}`);
}
console.log(`detect: ${cases.length} cases`);
'
# Every shipped ruleset is recognised.
for f in ../../rulesets/*.rules; do
  node -e 'const fs = require("fs"); if (!require("./detect").isTempoRules(fs.readFileSync(process.argv[1], "utf8"))) throw new Error(process.argv[1] + " is not recognised");' "$f"
done
node -e '
const fs = require("fs");
const manifest = require("./package.json");
const files = [manifest.main, ...manifest.contributes.grammars.map((g) => g.path),
  ...manifest.contributes.languages.map((l) => l.configuration),
  ...manifest.contributes.snippets.map((s) => s.path), "detect.js"];
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
