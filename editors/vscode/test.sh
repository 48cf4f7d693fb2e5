#!/usr/bin/env bash
# Tests the VS Code extension without VS Code: the TextMate grammar against scope assertions
# (vscode-tmgrammar-test, tests/*.test.rules), the manifest's files, that extension.js loads, and
# the package: bundled with esbuild, `vsce package` without a warning, the .vsix holding what the
# extension needs and no node_modules, its bundle loading on its own.
# Needs node, npm, unzip, and the npm registry.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
# The bundle package.json's `main` names (dist/extension.js).
rm -rf dist
npm run --silent bundle
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
# A test file whose header says "lines of rulesets/NAME.rules" holds only lines of that shipped
# ruleset, so highlighting is tested on real text.
for test in tests/*.test.rules; do
  source="$(sed -n '1s/.*"lines of \(rulesets\/[a-z-]*\.rules\).*/\1/p' "$test")"
  [ -n "$source" ] || continue
  grep -v '^# *[<^]' "$test" | tail -n +2 | grep -v '^$' | while IFS= read -r line; do
    grep -qxF -- "$line" "../../$source" || { echo "$test: not a line of $source: $line"; exit 1; }
  done
done
npm test

# The package, as install.sh builds it: vsce runs the bundle (vscode:prepublish) first.
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
npx --no-install vsce package --no-dependencies --out "$out/tempo-rules.vsix" >"$out/vsce.log" 2>&1 || {
  cat "$out/vsce.log"
  exit 1
}
if grep -q "WARNING" "$out/vsce.log"; then
  cat "$out/vsce.log"
  echo "vsce package warned"
  exit 1
fi
unzip -Z1 "$out/tempo-rules.vsix" >"$out/files"
for want in extension/package.json extension/dist/extension.js extension/syntaxes/tempo.tmLanguage.json \
  extension/LICENSE.txt extension/language-configuration.json extension/snippets/tempo.json; do
  grep -qxF "$want" "$out/files" || { echo "the .vsix lacks $want:"; cat "$out/files"; exit 1; }
done
if grep -q "node_modules" "$out/files"; then
  echo "the .vsix ships node_modules:"
  grep node_modules "$out/files" | head
  exit 1
fi
# The extension's LICENSE holds the repository's two licence texts.
for text in ../../LICENSE-MIT ../../LICENSE-APACHE; do
  grep -qF "$(head -n 3 "$text" | tail -n 1)" LICENSE || { echo "LICENSE lacks $text"; exit 1; }
done
cmp -s <(tail -n "$(wc -l <../../LICENSE-APACHE)" LICENSE) ../../LICENSE-APACHE || { echo "LICENSE's Apache text differs from LICENSE-APACHE"; exit 1; }
# The shipped bundle loads from the unpacked package alone (no node_modules beside it), with a
# stand-in for the `vscode` module that only VS Code provides.
unzip -q "$out/tempo-rules.vsix" -d "$out/unpacked"
node -e '
const Module = require("module");
const stub = new Proxy(function () {}, { get: (t, k) => (k === "__esModule" ? false : stub), apply: () => stub, construct: () => stub });
const load = Module._load;
Module._load = function (request, ...rest) { return request === "vscode" ? stub : load.call(this, request, ...rest); };
const ext = require(process.argv[1]);
if (typeof ext.activate !== "function" || typeof ext.deactivate !== "function") throw new Error("the bundle exports no activate/deactivate");
' "$out/unpacked/extension/dist/extension.js"
echo "package: $(wc -l <"$out/files") files in the .vsix, no warning, the bundle loads on its own"
