// The playground in headless Chromium (puppeteer-core drives the system's browser): run by
// web/test.sh, which builds web/dist/ first if needed. CHROMIUM names the browser.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync, existsSync } from "node:fs";
import { join, dirname, extname, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const web = dirname(dirname(fileURLToPath(import.meta.url)));
const root = dirname(web);
const dist = join(web, "dist");
const TIMEOUT = 60_000;

const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".map": "application/json" };
let server, base, browser;

before(async () => {
  // A plain static server, as any host would be: files only, by relative URL.
  server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const file = join(dist, normalize(url.pathname === "/" ? "/index.html" : url.pathname));
    if (!file.startsWith(dist) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": types[extname(file)] || "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

const b64 = (text) => Buffer.from(text, "utf8").toString("base64url");

// A fresh page (its own storage) with a share link; errors the page throws fail the test.
async function open(hash) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.errors = errors;
  await page.goto(base + "#" + hash);
  return page;
}

async function screenshot(page, name) {
  if (process.env.TEMPO_WEB_SHOTS) await page.screenshot({ path: join(process.env.TEMPO_WEB_SHOTS, name + ".png") });
}

const badRules = `ruleset duel
initiative { value 0; ties table }
round { phase act: turns }
pool ap { max 2; refresh at turn_start }
action strike { cost 1 mana; target enemy; resolve { target.ap -= 1 } }
`;

test("a share link whose rules name an unknown pool shows tempo::unknown-pool at its line", async () => {
  const page = await open(`rules=${b64(badRules)}&scenario=${b64("(seed: 1, participants: [])")}`);
  await page.waitForFunction(() => document.querySelector("#diagnostics")?.textContent.includes("tempo::unknown-pool"), { timeout: TIMEOUT });
  const item = await page.$eval("#diagnostics li", (li) => li.textContent);
  assert.match(item, /playground\.rules:5:24 tempo::unknown-pool no pool named `mana`/);
  // The mark in the text: on line 5, over `mana`.
  await page.waitForSelector(".cm-lintRange-error", { timeout: TIMEOUT });
  const marked = await page.$$eval(".cm-lintRange-error", (marks) =>
    marks.filter((m) => m.offsetParent).map((m) => {
      const line = m.closest(".cm-line");
      return [[...line.parentNode.children].indexOf(line) + 1, m.textContent];
    }),
  );
  assert.deepEqual(marked, [[5, "mana"]]);
  await screenshot(page, "check");
  assert.deepEqual(page.errors, []);
});

test("a share link of frontiers.rules and frontiers-duel.ron with &run shows the trace", async () => {
  const rules = readFileSync(join(root, "rulesets/frontiers.rules"), "utf8");
  const scenario = readFileSync(join(root, "examples/frontiers-duel.ron"), "utf8");
  // The golden trace of `tempo run` (tests check it against the command line).
  const golden = readFileSync(join(root, "examples/frontiers-duel.trace"), "utf8").split("\n");
  const firstTurn = golden.find((l) => /'s turn\.$/.test(l));
  const initiative = golden.find((l) => l.startsWith("Initiative:"));
  assert.ok(firstTurn && initiative);
  const page = await open(`rules=${b64(rules)}&scenario=${b64(scenario)}&name=frontiers.rules&run`);
  await page.waitForFunction((line) => document.querySelector("#trace")?.textContent.split("\n").includes(line), { timeout: TIMEOUT }, firstTurn);
  const trace = await page.$eval("#trace", (t) => t.textContent);
  const lines = trace.split("\n");
  assert.equal(lines[0], "Encounter starts: Aria, Brute.");
  assert.ok(lines.includes(initiative), trace.slice(0, 400));
  // With "why", the rule locations link into the rules editor.
  await page.click("#why");
  await page.waitForSelector("#trace a.place", { timeout: TIMEOUT });
  const link = await page.$eval("#trace a.place", (a) => a.textContent);
  assert.match(link, /^rulesets\/frontiers\.rules:\d+:\d+$/);
  await page.click("#trace a.place");
  const line = Number(link.split(":")[1]);
  const cursor = await page.evaluate(() => {
    const view = window.tempoPlayground.rules("a");
    return view.state.doc.lineAt(view.state.selection.main.head).number;
  });
  assert.equal(cursor, line);
  await screenshot(page, "run");
  assert.deepEqual(page.errors, []);
});

test("the Sim view draws the summary and its charts, with progress", async () => {
  const rules = readFileSync(join(root, "rulesets/frontiers.rules"), "utf8");
  const scenario = readFileSync(join(root, "examples/frontiers-duel.ron"), "utf8");
  const page = await open(`rules=${b64(rules)}&scenario=${b64(scenario)}&name=frontiers.rules`);
  await page.click("#show-sim");
  await page.$eval("#sim-runs", (i) => (i.value = "500"));
  await page.click("#sim");
  await page.waitForSelector("#sim-charts svg", { timeout: TIMEOUT });
  const text = await page.$eval("#sim-text", (t) => t.textContent);
  assert.match(text, /^frontiers\.rules, scenario\.ron: 500 encounters/);
  const charts = await page.$$eval("#sim-charts svg", (s) => s.length);
  assert.ok(charts >= 1);
  await screenshot(page, "sim");
  // A long one can be stopped, and the page can sim again after.
  await page.$eval("#sim-runs", (i) => (i.value = "100000000"));
  await page.click("#sim");
  await page.waitForFunction(() => /of 100000000 runs/.test(document.querySelector("#sim-state").textContent), { timeout: TIMEOUT });
  await page.click("#sim-stop");
  await page.waitForFunction(() => document.querySelector("#sim-state").textContent === "stopped", { timeout: TIMEOUT });
  await page.$eval("#sim-runs", (i) => (i.value = "100"));
  await page.click("#sim");
  await page.waitForFunction(() => document.querySelector("#sim-text").textContent.includes(": 100 encounters"), { timeout: TIMEOUT });
  assert.deepEqual(page.errors, []);
});

test("pasting 5 MB into the rules editor leaves the page answering", async () => {
  const rules = readFileSync(join(root, "rulesets/frontiers.rules"), "utf8");
  const page = await open(`rules=${b64("ruleset small\n")}&scenario=${b64("(seed: 1, participants: [])")}`);
  await page.waitForFunction(() => document.querySelector("#diagnostics-summary")?.textContent !== "", { timeout: TIMEOUT });
  const before = await page.$eval("#diagnostics-summary", (s) => s.textContent);
  const big = rules.repeat(Math.ceil((5 * 1024 * 1024) / rules.length));
  const started = Date.now();
  await page.evaluate((text) => {
    const data = new DataTransfer();
    data.setData("text/plain", text);
    const editor = document.querySelector("#rules-editor .cm-content");
    editor.focus();
    editor.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, big);
  // The page answers at once while the worker checks.
  const answered = Date.now();
  await page.click("#show-doc");
  assert.equal(await page.$eval("#view-doc", (v) => getComputedStyle(v).display), "flex");
  assert.equal(await page.$eval("#view-run", (v) => getComputedStyle(v).display), "none");
  assert.ok(Date.now() - answered < 5000, `the page took ${Date.now() - answered} ms to answer a click`);
  const length = await page.evaluate(() => window.tempoPlayground.rules("a").state.doc.length);
  assert.ok(length >= 5 * 1024 * 1024, `the paste went in (${length} characters)`);
  // The diagnostics come from the worker (the same ruleset many times: duplicates).
  await page.waitForFunction(
    (before) =>
      document.querySelector("#status").textContent === "" &&
      document.querySelector("#diagnostics-summary").textContent !== before,
    { timeout: 120_000 },
    before,
  );
  const summary = await page.$eval("#diagnostics-summary", (s) => s.textContent);
  assert.match(summary, /^\d+ errors/);
  // The pasted copies of frontiers declare its names again: the checker's own code for that.
  const codes = await page.$$eval("#diagnostics code", (c) => [...new Set(c.map((e) => e.textContent))]);
  assert.ok(codes.length > 0 && codes.every((c) => c.startsWith("tempo::")), codes.join(", "));
  console.log(`5 MB checked in ${Date.now() - started} ms: ${summary} (${codes.join(", ")})`);
  await screenshot(page, "paste");
  assert.deepEqual(page.errors, []);
});

test("examples, a variant over its base, Compare, Doc, Format and Share", async () => {
  const page = await open("");
  await page.waitForFunction(() => document.querySelector("#diagnostics-summary")?.textContent === "no problems", { timeout: TIMEOUT });
  // A shipped example and its ruleset, a variant that extends frontiers.rules.
  await page.select("#examples", "frontiers-two-ap-duel.ron");
  assert.equal(await page.$eval("#rules-name", (i) => i.value), "frontiers-two-ap.rules");
  await page.waitForFunction(
    () => document.querySelector("#status").textContent === "" && document.querySelector("#diagnostics-summary").textContent === "no problems",
    { timeout: TIMEOUT },
  );
  // Rules B: the base, then Compare plays B against A.
  await page.click("#tab-b");
  await page.select("#ruleset-list", "frontiers.rules");
  assert.equal(await page.$eval("#rules-a", (p) => p.hidden), true);
  await page.click("#show-compare");
  await page.$eval("#compare-runs", (i) => (i.value = "200"));
  await page.click("#compare");
  await page.waitForSelector("#compare-charts svg", { timeout: TIMEOUT });
  const report = await page.$eval("#compare-text", (t) => t.textContent);
  assert.match(report, /^frontiers-two-ap\.rules against frontiers\.rules, frontiers-two-ap-duel\.ron: 200 encounters/);
  await screenshot(page, "compare");
  // Doc: the sheet of the rules shown (B).
  await page.click("#show-doc");
  await page.click("#doc");
  await page.waitForFunction(() => document.querySelector("#doc-frame").srcdoc.includes("Cheat sheet of the ruleset"), { timeout: TIMEOUT });
  await screenshot(page, "doc");
  // Format: `tempo fmt`'s layout.
  await page.click("#tab-a");
  await page.evaluate(() => {
    const view = window.tempoPlayground.rules("a");
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: "ruleset m\npool ap{max 3;refresh at turn_start}\n" } });
  });
  await page.click("#format");
  await page.waitForFunction(() => document.querySelector("#status").textContent === "formatted", { timeout: TIMEOUT });
  const formatted = await page.evaluate(() => window.tempoPlayground.rules("a").state.doc.toString());
  assert.equal(formatted, "ruleset m\npool ap { max 3; refresh at turn_start }\n");
  // Share: a link that holds both texts.
  await page.click("#share");
  const hash = await page.evaluate(() => location.hash);
  const rules = /rules=([^&]*)/.exec(hash)[1];
  assert.equal(Buffer.from(rules, "base64url").toString("utf8"), formatted);
  assert.ok(!rules.includes("="), "no padding");
  assert.deepEqual(page.errors, []);
});
