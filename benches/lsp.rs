//! Language-server benchmark: the time from an edit (`textDocument/didChange`) to the
//! diagnostics the server publishes for it, through the server's real message loop
//! (`tempo::lsp::serve` over an in-memory `lsp_server::Connection` pair), so everything the
//! server does per edit is included: applying the change, compiling, building the chain of names,
//! converting and publishing diagnostics. Not included: JSON framing on stdio.
//!
//! Run with `cargo bench -p tempo-benches --bench lsp`. Results and how to read them: `docs/performance.md`.
//!
//! Inputs: `rulesets/cheatsheet.rules` (42 KB) and a ruleset of about 400 KB generated like
//! `benches/compile.rs` does (the same generator, `benches/support/generate.rs`). Each edit adds a `derive` that
//! names an unknown stat (a different one each time) or removes it again, so every edit changes
//! the diagnostics and the server has something to publish. The line goes at the end of the file,
//! or (`generated_400k_middle`) between two declarations in the middle of it, so that the half
//! after the edit moves.
//!
//! Two measurements:
//! - `lsp_edit/FILE` (criterion): one didChange, then wait for the publishDiagnostics of that
//!   version.
//! - burst (timed by hand, printed as a median of several rounds): `BURST` didChange
//!   notifications sent at once, then the time until the diagnostics of the last version arrive.

#[path = "support/generate.rs"]
mod generate;

use criterion::{BenchmarkId, Criterion, SamplingMode};
use generate::generate;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Actions in the generated ruleset: about 400 KB of text.
const ACTIONS: usize = 1_640;
/// Edits in one burst.
const BURST: i32 = 1_000;
/// Rounds of the burst measurement (the median is reported).
const BURST_ROUNDS: usize = 5;

/// A server running `tempo::lsp::serve` on its own thread, and the client's end.
struct Client {
    connection: Connection,
    thread: Option<std::thread::JoinHandle<()>>,
    uri: String,
    version: i32,
    base: String,
    /// Where edits insert their line: the end of the file, or the middle.
    at: usize,
}

impl Client {
    fn start(uri: &str, text: &str, at: usize) -> Client {
        let (client, server) = Connection::memory();
        let thread = std::thread::spawn(move || {
            let _ = tempo::lsp::serve(&server);
        });
        let init = Request::new(RequestId::from(1), "initialize".to_string(), json!({"capabilities": {}}));
        client.sender.send(Message::Request(init)).expect("send initialize");
        match client.receiver.recv_timeout(Duration::from_secs(30)).expect("initialize reply") {
            Message::Response(r) => assert!(r.response_result.is_ok(), "{r:?}"),
            other => panic!("expected the initialize reply, got {other:?}"),
        }
        let c = Client {
            connection: client,
            thread: Some(thread),
            uri: uri.to_string(),
            version: 1,
            base: text.to_string(),
            at,
        };
        c.notify("initialized", json!({}));
        // Opened at version 1, with the probe: the burst's last version (odd) has one too.
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "tempo", "version": 1, "text": c.text(1)}}),
        );
        c.wait_for(1);
        c
    }

    fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method.to_string(), params);
        self.connection.sender.send(Message::Notification(n)).expect("send to the server");
    }

    /// The text of edit `version`: odd versions add an unknown name (a different one each
    /// time), even ones are the file as it was.
    fn text(&self, version: i32) -> String {
        if version % 2 == 1 {
            let (before, after) = self.base.split_at(self.at);
            format!("{before}\nderive lsp_bench_probe = no_such_stat_{version}\n{after}")
        } else {
            self.base.clone()
        }
    }

    fn change(&mut self) -> i32 {
        self.version += 1;
        let text = self.text(self.version);
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": [{"text": text}]}),
        );
        self.version
    }

    /// Waits for the diagnostics of `version` (earlier versions' are skipped); returns how many
    /// publishDiagnostics came, that one included.
    fn wait_for(&self, version: i32) -> usize {
        let mut seen = 0;
        loop {
            let message = self.connection.receiver.recv_timeout(Duration::from_secs(600)).expect("diagnostics in time");
            if let Message::Notification(n) = message {
                if n.method == "textDocument/publishDiagnostics" {
                    seen += 1;
                    if n.params["version"] == json!(version) {
                        let count = n.params["diagnostics"].as_array().map_or(0, Vec::len);
                        let expected = if version % 2 == 1 { 1 } else { 0 };
                        assert_eq!(count, expected, "version {version}: {}", n.params);
                        return seen;
                    }
                }
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let shutdown = Request::new(RequestId::from(2), "shutdown".to_string(), json!(null));
        let _ = self.connection.sender.send(Message::Request(shutdown));
        let _ = self.connection.sender.send(Message::Notification(Notification::new("exit".to_string(), json!(null))));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct Input {
    name: &'static str,
    uri: String,
    text: String,
    at: usize,
}

fn inputs() -> Vec<Input> {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let cheatsheet = root.join("rulesets/cheatsheet.rules");
    let text = std::fs::read_to_string(&cheatsheet).expect("read rulesets/cheatsheet.rules");
    let generated = generate(ACTIONS);
    let check = tempo::check::compile_str("generated.rules", &generated);
    assert!(check.diagnostics.is_empty(), "the generated ruleset compiles cleanly: {:?}", check.diagnostics);
    // An item boundary in the middle of the generated file: a line that starts a declaration.
    let middle =
        generated[generated.len() / 2..].find("\naction ").map_or(generated.len(), |i| generated.len() / 2 + i);
    let inputs = vec![
        Input { name: "cheatsheet", uri: format!("file://{}", cheatsheet.display()), at: text.len(), text },
        Input {
            name: "generated_400k",
            uri: "file:///lsp-bench/generated_400k.rules".to_string(),
            at: generated.len(),
            text: generated.clone(),
        },
        Input {
            name: "generated_400k_middle",
            uri: "file:///lsp-bench/generated_400k_middle.rules".to_string(),
            at: middle,
            text: generated,
        },
    ];
    for input in &inputs {
        eprintln!("input {}: {} bytes, {} lines", input.name, input.text.len(), input.text.lines().count());
    }
    inputs
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// `BURST` edits at once, then the time until the last version's diagnostics arrive.
fn burst(input: &Input, edits: i32) {
    let mut times = Vec::new();
    let mut published = Vec::new();
    for _ in 0..BURST_ROUNDS {
        let mut client = Client::start(&input.uri, &input.text, input.at);
        // The texts are made before the clock starts: only the server is timed.
        let texts: Vec<Value> = (0..edits)
            .map(|i| {
                let version = client.version + 1 + i;
                json!({"textDocument": {"uri": client.uri, "version": version}, "contentChanges": [{"text": client.text(version)}]})
            })
            .collect();
        let start = Instant::now();
        for params in texts {
            client.notify("textDocument/didChange", params);
        }
        client.version += edits;
        let seen = client.wait_for(client.version);
        times.push(start.elapsed());
        published.push(seen);
    }
    eprintln!(
        "burst/{}: {edits} edits, last diagnostics after {:.1} ms (median of {BURST_ROUNDS}: {:?}); publishDiagnostics sent: {:?}",
        input.name,
        median(times.clone()).as_secs_f64() * 1e3,
        times.iter().map(|t| format!("{:.1} ms", t.as_secs_f64() * 1e3)).collect::<Vec<_>>(),
        published,
    );
}

fn main() {
    let inputs = inputs();
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("lsp_edit");
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    group.sampling_mode(SamplingMode::Flat);
    for input in &inputs {
        let mut client = Client::start(&input.uri, &input.text, input.at);
        group.bench_function(BenchmarkId::from_parameter(input.name), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    let start = Instant::now();
                    let version = client.change();
                    client.wait_for(version);
                    total += start.elapsed();
                }
                total
            })
        });
    }
    group.finish();
    c.final_summary();
    // The burst runs unless a filter is given that does not mention it: `cargo bench -p tempo-benches --bench lsp
    // -- lsp_edit` runs only the single edits, `-- burst` only the bursts.
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if !filters.is_empty() && !filters.iter().any(|f| f.contains("burst")) {
        return;
    }
    for input in &inputs {
        let edits = if input.text.len() > 100_000 { BURST / 10 } else { BURST };
        burst(input, edits);
    }
}
