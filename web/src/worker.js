// The playground's worker: every call into tempo (compiled to wasm) runs here, so the page
// never waits on one. Messages in: {id, op, args}; out: {id, result} (the wasm call's JSON,
// parsed), {id, progress: {done, runs}} while a simulation plays, or {id, crashed} when
// the module panicked (the page then starts a new worker).
import init, * as tempo from "../build/wasm/tempo_web.js";

let panicMessage = null;
// Called by the module's panic hook (web/crate/src/lib.rs), just before it traps.
self.tempoPanic = (message) => {
  panicMessage = message;
};

const ready = init({ module_or_path: new URL("tempo_web_bg.wasm", self.location.href) });

// Runs per part of a simulation: small enough that progress moves several times a second.
const SIM_PART = 200;

const ops = {
  check: ({ files, path }) => tempo.check(JSON.stringify(files), path),
  hover: ({ files, path, offset }) => tempo.hover(JSON.stringify(files), path, offset),
  format: ({ text }) => tempo.format(text),
  run: ({ files, path, scenario, why, seed }) => tempo.run(JSON.stringify(files), path, scenario, why, seed || ""),
  sheet: ({ files, path }) => tempo.sheet(JSON.stringify(files), path),
  compare: ({ files, paths, scenario, names, runs, seed }) =>
    tempo.compare(JSON.stringify(files), paths.join("\n"), scenario, names.join("\n"), runs, seed || ""),
  sim: ({ files, path, scenario, scenarioName, runs, seed }, id) => {
    const started = JSON.parse(tempo.sim_start(JSON.stringify(files), path, scenario, runs, seed || ""));
    if (!started.ok) return JSON.stringify(started);
    let done = 0;
    while (true) {
      const step = JSON.parse(tempo.sim_step(SIM_PART));
      if (step.error) return JSON.stringify({ check: started.check, error: step.error });
      done = step.done;
      self.postMessage({ id, progress: { done, runs } });
      if (step.finished) break;
    }
    return tempo.sim_summary(scenarioName || "");
  },
};

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    await ready;
    const out = ops[op](args, id);
    self.postMessage({ id, result: JSON.parse(out) });
  } catch (e) {
    self.postMessage({ id, crashed: panicMessage || String((e && e.message) || e) });
  }
};
