// The playground page: three editors, the views Run, Sim, Compare and Doc, share links and
// storage. Everything tempo computes is asked of a worker (worker.js), so typing never waits.
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLine, hoverTooltip } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { syntaxHighlighting, defaultHighlightStyle, bracketMatching } from "@codemirror/language";
import { setDiagnostics, lintGutter } from "@codemirror/lint";
import { rulesets, scenarios } from "../build/files.js";
import { tempoLanguage, ronLanguage } from "./lang.js";
import { encodeText, decodeText, parseHash } from "./share.js";

const $ = (id) => document.getElementById(id);
const STORE = "tempo-playground";
// Diagnostics drawn and listed at most: a huge paste can have thousands, and drawing them all
// would freeze the page that the worker keeps free.
const SHOWN = 200;
const shipped = Object.fromEntries(rulesets.map((r) => ["rulesets/" + r.name, r.text]));

// ---- the worker: requests by id; a crash (a Rust panic) or Stop starts a new one ----

class Tempo {
  constructor(name) {
    this.name = name;
    this.pending = new Map();
    this.next = 1;
    this.start();
  }
  start() {
    this.worker = new Worker("worker.js");
    this.worker.onmessage = ({ data }) => {
      const p = this.pending.get(data.id);
      if (!p) return;
      if (data.progress) return p.progress && p.progress(data.progress);
      this.pending.delete(data.id);
      if (data.crashed) {
        this.restart(`tempo stopped with an internal error (a bug: please report it): ${data.crashed}`);
      } else p.resolve(data.result);
    };
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.restart(`the worker failed: ${e.message || "unknown error"}`);
    };
  }
  // Ends every pending request with `error` and starts a fresh worker.
  restart(error, stopped = false) {
    this.worker.terminate();
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.start();
    for (const p of pending) p.resolve(stopped ? { error, stopped } : { error, crashed: true });
  }
  call(op, args, progress) {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, progress });
      this.worker.postMessage({ id, op, args });
    });
  }
}

// Checking has a worker of its own, so a long simulation never delays diagnostics.
const checker = new Tempo("check");
const runner = new Tempo("run");

// ---- editors ----

const rules = {
  a: { name: "playground.rules", view: null, diagnostics: [] },
  b: { name: "playground-b.rules", view: null, diagnostics: [] },
};
let active = "a";
let scenarioName = "scenario.ron";

const path = (side) => {
  const name = rules[side].name;
  // B beside A under the same name would replace it among the files.
  return side === "b" && name === rules.a.name ? "rulesets/b-" + name : "rulesets/" + name;
};

// Every shipped ruleset (a variant's base) and both editors' texts, by path.
const files = () => ({
  ...shipped,
  [path("b")]: rules.b.view.state.doc.toString(),
  [path("a")]: rules.a.view.state.doc.toString(),
});

function editor(parent, language, doc, onChange, extra = []) {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        history(),
        highlightActiveLine(),
        bracketMatching(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        language,
        syntaxHighlighting(defaultHighlightStyle),
        EditorView.updateListener.of((u) => u.docChanged && onChange()),
        ...extra,
      ],
    }),
  });
}

// A diagnostic's line and column (columns count characters) as an offset into the editor's text.
function offsetOf(doc, line, column) {
  if (line < 1) return 0;
  if (line > doc.lines) return doc.length;
  const l = doc.line(line);
  const prefix = Array.from(l.text).slice(0, Math.max(0, column - 1)).join("");
  return l.from + Math.min(prefix.length, l.length);
}

function hover(side) {
  return hoverTooltip(async (view, pos) => {
    const text = view.state.doc.toString();
    if (text.length > 200000) return null;
    const out = await checker.call("hover", { files: files(), path: path(side), offset: byteOffset(text, pos) });
    if (!out || !out.text) return null;
    return {
      pos,
      above: true,
      create() {
        const dom = document.createElement("div");
        dom.className = "hover";
        // Markdown, shown as plain text: only the code fences are dropped.
        dom.textContent = out.text.replace(/```\w*\n?/g, "").trim();
        return { dom };
      },
    };
  });
}

// The UTF-8 byte offset of a UTF-16 position, which the library counts in.
const byteOffset = (text, pos) => new TextEncoder().encode(text.slice(0, pos)).length;

// ---- checking as you type ----

const checking = { a: { busy: false, again: false, timer: 0 }, b: { busy: false, again: false, timer: 0 } };

function scheduleCheck(side) {
  clearTimeout(checking[side].timer);
  checking[side].timer = setTimeout(() => {
    check(side);
    save();
  }, 250);
}

// One check at a time per editor: edits made while one runs ask for one more after it.
async function check(side) {
  const c = checking[side];
  if (c.busy) {
    c.again = true;
    return;
  }
  c.busy = true;
  $("status").textContent = "checking…";
  const out = await checker.call("check", { files: files(), path: path(side) });
  c.busy = false;
  showCheck(side, out);
  if (c.again) {
    c.again = false;
    check(side);
  } else $("status").textContent = "";
}

function showCheck(side, out) {
  const view = rules[side].view;
  const list = out.diagnostics || [];
  rules[side].diagnostics = list;
  rules[side].error = out.error || null;
  const doc = view.state.doc;
  const marks = list
    .filter((d) => d.file === path(side))
    .slice(0, SHOWN)
    .map((d) => {
      const from = offsetOf(doc, d.line, d.column);
      const to = Math.max(from, offsetOf(doc, d.end_line, d.end_column));
      return {
        from,
        to,
        severity: d.severity === "error" ? "error" : d.severity === "warning" ? "warning" : "info",
        source: d.code,
        message: d.message + (d.help ? `\nhelp: ${d.help}` : ""),
      };
    });
  view.dispatch(setDiagnostics(view.state, marks));
  if (side === active) listDiagnostics();
}

function listDiagnostics() {
  const { diagnostics, error } = rules[active];
  const ul = $("diagnostics");
  ul.replaceChildren();
  if (error) {
    const li = document.createElement("li");
    li.className = "error";
    li.textContent = error;
    ul.append(li);
  }
  for (const d of diagnostics.slice(0, SHOWN)) {
    const li = document.createElement("li");
    li.className = d.severity;
    const where = document.createElement("a");
    where.href = "#";
    where.textContent = `${d.file.replace(/^rulesets\//, "")}:${d.line}:${d.column}`;
    where.onclick = (e) => {
      e.preventDefault();
      if (d.file === path(active)) goTo(active, d.line, d.column);
    };
    const code = document.createElement("code");
    code.textContent = d.code;
    li.append(where, " ", code, " ", d.message);
    if (d.help) {
      const help = document.createElement("div");
      help.className = "help";
      help.textContent = "help: " + d.help;
      li.append(help);
    }
    ul.append(li);
  }
  if (diagnostics.length > SHOWN) {
    const li = document.createElement("li");
    li.textContent = `… and ${diagnostics.length - SHOWN} more`;
    ul.append(li);
  }
  $("diagnostics-summary").textContent = diagnostics.length
    ? `${diagnostics.filter((d) => d.severity === "error").length} errors, ${
        diagnostics.filter((d) => d.severity === "warning").length
      } warnings`
    : error
      ? ""
      : "no problems";
}

function goTo(side, line, column = 1) {
  showRules(side);
  const view = rules[side].view;
  const at = offsetOf(view.state.doc, line, column);
  view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
  view.focus();
}

function showRules(side) {
  active = side;
  for (const s of ["a", "b"]) {
    $("rules-" + s).hidden = s !== side;
    $("tab-" + s).classList.toggle("on", s === side);
  }
  $("rules-name").value = rules[side].name;
  listDiagnostics();
}

// ---- storage and share links ----

function save() {
  try {
    localStorage.setItem(
      STORE,
      JSON.stringify({
        rules: rules.a.view.state.doc.toString(),
        name: rules.a.name,
        rulesB: rules.b.view.state.doc.toString(),
        nameB: rules.b.name,
        scenario: scenarioEditor.state.doc.toString(),
        scenarioName,
      }),
    );
  } catch {
    // Storage full or refused (a 5 MB paste, a private window): the page works without it.
  }
}

function stored() {
  try {
    return JSON.parse(localStorage.getItem(STORE) || "null");
  } catch {
    return null;
  }
}

function shareLink() {
  const hash =
    "rules=" +
    encodeText(rules.a.view.state.doc.toString()) +
    "&scenario=" +
    encodeText(scenarioEditor.state.doc.toString()) +
    "&name=" +
    encodeURIComponent(rules.a.name);
  return location.href.replace(/#.*$/, "") + "#" + hash;
}

function setText(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

// ---- examples ----

function loadRuleset(side, name) {
  const r = rulesets.find((r) => r.name === name);
  if (!r) return;
  rules[side].name = name;
  setText(rules[side].view, r.text);
  if (side === active) $("rules-name").value = name;
}

function loadScenario(name) {
  const s = scenarios.find((s) => s.name === name);
  if (!s) return;
  scenarioName = name;
  setText(scenarioEditor, s.text);
  if (s.rules) loadRuleset(active, s.rules);
}

// ---- views ----

function showView(name) {
  for (const v of ["run", "sim", "compare", "doc"]) {
    $("view-" + v).hidden = v !== name;
    $("show-" + v).classList.toggle("on", v === name);
  }
}

// Problems that stopped a request: the rules' diagnostics (drawn in the editor too) or an error.
function problems(out, side = active) {
  if (out.check) showCheck(side, out.check);
  if (out.check_a) showCheck("a", out.check_a);
  if (out.check_b) showCheck("b", out.check_b);
  const texts = [out.check, out.check_a, out.check_b]
    .filter((c) => c && c.diagnostics && c.diagnostics.some((d) => d.severity === "error"))
    .map((c) => c.text);
  if (out.error) texts.push(out.error);
  return texts.join("\n");
}

async function run() {
  showView("run");
  const why = $("why").checked;
  $("trace").textContent = "running…";
  const out = await runner.call("run", {
    files: files(),
    path: path("a"),
    scenario: scenarioEditor.state.doc.toString(),
    why,
    seed: $("run-seed").value,
  });
  const trace = $("trace");
  trace.replaceChildren();
  if (out.trace !== undefined) {
    trace.append(...traceNodes(out.trace, why));
    if (out.error) trace.append(errorNode(out.error));
  } else trace.append(errorNode(problems(out, "a")));
}

function errorNode(text) {
  const span = document.createElement("span");
  span.className = "problem";
  span.textContent = text;
  return span;
}

// The trace's text; with --why, each rule location of the rules in the editor is a link to it.
function traceNodes(text, why) {
  if (!why) return [document.createTextNode(text)];
  const nodes = [];
  const place = /(rulesets\/[^\s:\]]+):(\d+):(\d+)/g;
  let last = 0;
  for (const m of text.matchAll(place)) {
    nodes.push(document.createTextNode(text.slice(last, m.index)));
    const side = m[1] === path("a") ? "a" : m[1] === path("b") ? "b" : null;
    if (side) {
      const a = document.createElement("a");
      a.href = "#";
      a.className = "place";
      a.textContent = m[0];
      const [line, column] = [Number(m[2]), Number(m[3])];
      a.onclick = (e) => {
        e.preventDefault();
        goTo(side, line, column);
      };
      nodes.push(a);
    } else nodes.push(document.createTextNode(m[0]));
    last = m.index + m[0].length;
  }
  nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

async function sim() {
  showView("sim");
  const runs = Math.max(1, Math.floor(Number($("sim-runs").value) || 1000));
  $("sim-text").textContent = "";
  $("sim-charts").replaceChildren();
  $("sim-progress").hidden = false;
  $("sim-progress").value = 0;
  $("sim-progress").max = runs;
  $("sim-stop").disabled = false;
  $("sim-state").textContent = "playing…";
  const out = await runner.call(
    "sim",
    {
      files: files(),
      path: path("a"),
      scenario: scenarioEditor.state.doc.toString(),
      scenarioName,
      runs,
      seed: $("sim-seed").value,
    },
    ({ done }) => {
      $("sim-progress").value = done;
      $("sim-state").textContent = `${done} of ${runs} runs`;
    },
  );
  $("sim-stop").disabled = true;
  $("sim-progress").hidden = true;
  if (out.stopped) {
    $("sim-state").textContent = "stopped";
    return;
  }
  $("sim-state").textContent = out.text ? `${runs} runs` : "";
  if (out.text === undefined) return void $("sim-text").replaceChildren(errorNode(problems(out, "a")));
  $("sim-text").textContent = out.text;
  $("sim-charts").append(...charts(out.html));
}

// The charts of a report page (the SVGs of `tempo sim --html`) with their headings.
function charts(html) {
  const page = new DOMParser().parseFromString(html, "text/html");
  const out = [];
  for (const svg of page.querySelectorAll("svg")) {
    const figure = document.createElement("figure");
    const holder = svg.closest("figure, section, div") || svg;
    const title = holder.querySelector("figcaption, h2, h3");
    if (title && holder !== svg) {
      const caption = document.createElement("figcaption");
      caption.textContent = title.textContent;
      figure.append(caption);
    }
    figure.append(document.importNode(svg, true));
    out.push(figure);
  }
  return out;
}

// A simulation plays inside one call of the worker: stopping it ends that worker.
function stop() {
  runner.restart("stopped", true);
}

async function compare() {
  showView("compare");
  const runs = Math.max(1, Math.floor(Number($("compare-runs").value) || 1000));
  $("compare-text").textContent = "playing…";
  $("compare-charts").replaceChildren();
  const out = await runner.call("compare", {
    files: files(),
    paths: [path("a"), path("b")],
    names: [scenarioName, rules.a.name, rules.b.name === rules.a.name ? "B " + rules.b.name : rules.b.name],
    scenario: scenarioEditor.state.doc.toString(),
    runs,
    seed: $("compare-seed").value,
  });
  if (out.text === undefined) return void $("compare-text").replaceChildren(errorNode(problems(out)));
  $("compare-text").textContent = out.text;
  $("compare-charts").append(...charts(out.html));
}

async function doc() {
  showView("doc");
  const out = await runner.call("sheet", { files: files(), path: path(active) });
  const frame = $("doc-frame");
  if (out.html === undefined) {
    $("doc-problems").replaceChildren(errorNode(problems(out)));
    frame.hidden = true;
    return;
  }
  $("doc-problems").replaceChildren();
  frame.hidden = false;
  frame.srcdoc = out.html;
}

async function format() {
  const view = rules[active].view;
  const out = await checker.call("format", { text: view.state.doc.toString() });
  if (out.text !== undefined) {
    if (out.text !== view.state.doc.toString()) setText(view, out.text);
    $("status").textContent = "formatted";
  } else $("status").textContent = "not formatted: the text does not parse (see the problems below)";
}

// ---- start ----

let saving = 0;
const scenarioEditor = editor($("scenario-editor"), ronLanguage, "", () => {
  clearTimeout(saving);
  saving = setTimeout(save, 250);
});

function start() {
  const hash = parseHash(location.hash);
  const kept = stored();
  const first = rulesets.find((r) => r.name === "frontiers.rules");
  const firstScenario = scenarios.find((s) => s.name === "frontiers-duel.ron");
  let text = first ? first.text : "";
  let scenario = firstScenario ? firstScenario.text : "";
  if (kept) {
    text = kept.rules ?? text;
    scenario = kept.scenario ?? scenario;
    rules.a.name = kept.name || rules.a.name;
    rules.b.name = kept.nameB || rules.b.name;
    scenarioName = kept.scenarioName || scenarioName;
  } else {
    rules.a.name = "frontiers.rules";
    scenarioName = "frontiers-duel.ron";
  }
  let textB = kept && kept.rulesB !== undefined ? kept.rulesB : text;
  // The link wins over storage.
  if (hash.rules !== undefined) {
    text = hash.rules;
    rules.a.name = hash.name || "playground.rules";
  }
  if (hash.scenario !== undefined) {
    scenario = hash.scenario;
    scenarioName = "scenario.ron";
  }
  for (const side of ["a", "b"]) {
    // Each editor in a pane of its own: CodeMirror's own style keeps an editor shown.
    const pane = document.createElement("div");
    pane.className = "pane";
    pane.id = "rules-" + side;
    $("rules-editor").append(pane);
    rules[side].view = editor(
      pane,
      tempoLanguage,
      side === "a" ? text : textB,
      () => scheduleCheck(side),
      [lintGutter(), hover(side)],
    );
  }
  setText(scenarioEditor, scenario);
  showRules("a");
  showView("run");
  for (const s of scenarios) $("examples").append(new Option(s.name, s.name));
  for (const r of rulesets) $("ruleset-list").append(new Option(r.name, r.name));
  check("a");
  check("b");
  if (hash.run) run();
}

$("examples").onchange = (e) => {
  if (e.target.value) loadScenario(e.target.value);
  e.target.value = "";
};
$("ruleset-list").onchange = (e) => {
  if (e.target.value) loadRuleset(active, e.target.value);
  e.target.value = "";
};
$("rules-name").onchange = (e) => {
  const name = e.target.value.trim().replace(/[\/\\]/g, "") || "playground.rules";
  rules[active].name = name.endsWith(".rules") ? name : name + ".rules";
  e.target.value = rules[active].name;
  scheduleCheck(active);
};
$("tab-a").onclick = () => showRules("a");
$("tab-b").onclick = () => showRules("b");
$("format").onclick = format;
$("run").onclick = run;
$("sim").onclick = sim;
$("sim-stop").onclick = stop;
$("compare").onclick = compare;
$("doc").onclick = doc;
for (const v of ["run", "sim", "compare", "doc"]) $("show-" + v).onclick = () => showView(v);
$("why").onchange = () => $("trace").textContent && run();
$("share").onclick = async () => {
  const link = shareLink();
  window.history.replaceState(null, "", link);
  $("share-link").value = link;
  $("share-link").hidden = false;
  $("share-link").select();
  try {
    await navigator.clipboard.writeText(link);
    $("status").textContent = "link copied";
  } catch {
    $("status").textContent = "link in the box above";
  }
};

// For the browser tests and for a look from the console: the editors.
window.tempoPlayground = { rules: (side) => rules[side].view, scenario: () => scenarioEditor };

start();
