// Writes build/files.js: every shipped ruleset and example scenario (embedded, so each is one
// click away with no server), and the word lists of the VS Code TextMate grammar (so the page
// highlights the same words as the editor extension).
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const web = dirname(dirname(fileURLToPath(import.meta.url)));
const root = dirname(web);
const read = (dir, ext) =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => ({ name: f, text: readFileSync(join(root, dir, f), "utf8") }));

const rulesets = read("rulesets", ".rules");
// Test files (`*.test.ron`) are `tempo test` files, not scenarios.
const scenarios = read("examples", ".ron").filter((f) => !f.name.endsWith(".test.ron"));
// A scenario's ruleset: the longest ruleset name its own name starts with
// (frontiers-two-ap-duel.ron plays frontiers-two-ap.rules).
for (const s of scenarios) {
  const base = s.name.replace(/\.ron$/, "");
  const fits = rulesets
    .map((r) => r.name.replace(/\.rules$/, ""))
    .filter((r) => base === r || base.startsWith(r + "-"))
    .sort((a, b) => b.length - a.length);
  s.rules = fits.length ? fits[0] + ".rules" : null;
}

const grammar = JSON.parse(readFileSync(join(root, "editors/vscode/syntaxes/tempo.tmLanguage.json"), "utf8"));
const words = (patterns) =>
  patterns.flatMap((p) => [...(p.match || "").matchAll(/\(\?:([A-Za-z_|]+)\)/g)].flatMap((m) => m[1].split("|")));
const keywordPatterns = grammar.repository.keywords.patterns;
const atoms = words(keywordPatterns.filter((p) => /\btrue\b/.test(p.match)));
const keywords = words(keywordPatterns.filter((p) => !/\btrue\b/.test(p.match)));
const builtins = words(grammar.repository.builtins.patterns).concat(["self", "actor", "victim", "source"]);
const declarations = ["reach"];
for (const p of grammar.repository.declarations.patterns) {
  const m = /^\\b\(([a-z_|]+)\)/.exec(p.match);
  if (m) declarations.push(...m[1].split("|"));
}

mkdirSync(join(web, "build"), { recursive: true });
writeFileSync(
  join(web, "build", "files.js"),
  "// Made by tools/embed.mjs from rulesets/, examples/ and editors/vscode's grammar.\n" +
    `export const rulesets = ${JSON.stringify(rulesets)};\n` +
    `export const scenarios = ${JSON.stringify(scenarios)};\n` +
    `export const words = ${JSON.stringify({ keywords, atoms, builtins, declarations })};\n`,
);
console.log(`embedded ${rulesets.length} rulesets, ${scenarios.length} scenarios`);
