//! The `tempo` command line. The only place that prints, reads the terminal and picks exit codes.

mod cli;

use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tempo::check::{self, Compilation};
use tempo::diagnostics::{render, Code};
use tempo::run::sink;

/// Compile and check tabletop-RPG action-economy rulesets (`.rules` files).
#[derive(Parser)]
#[command(name = "tempo", version, about, long_about = None, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and check rules files; print every error and warning.
    ///
    /// Exit code 0: no errors (warnings allowed); 1: errors found; 2: a file could not be read.
    Check {
        /// The `.rules` files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// `text` for people, `json` for scripts and editors (one document on stdout).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        load: cli::LoadArgs,
    },
    /// Compile a rules file to the interpreter IR (RON), on stdout or into a file.
    ///
    /// Diagnostics go to stderr. Exit codes as for `check`; nothing is written when there are errors.
    Compile {
        /// The `.rules` file to compile.
        file: PathBuf,
        /// Write the IR here instead of stdout.
        #[arg(short, long, value_name = "OUT.ron")]
        output: Option<PathBuf>,
        #[command(flatten)]
        load: cli::LoadArgs,
    },
    /// Run one encounter headless and print its trace.
    ///
    /// RULES is a `.rules` file or a compiled `.ron` IR; SCENARIO is a RON scenario (see
    /// docs/scenario.md). Exit code 0: ran to the end; 1: the ruleset or scenario is wrong, or a
    /// rule failed while running (diagnostic on stderr); 2: a file could not be read.
    Run {
        /// The ruleset: `.rules` source or `.ron` IR from `tempo compile`.
        rules: PathBuf,
        /// The scenario (RON).
        scenario: PathBuf,
        /// Seed for the dice; overrides the scenario's.
        #[arg(long)]
        seed: Option<u64>,
        /// `text` for people, `jsonl` for scripts (one JSON object per line).
        #[arg(long, value_enum, default_value_t = TraceFormat::Text)]
        format: TraceFormat,
        /// Text: end each line with its event number and, for a line a rule caused, where that
        /// rule is written, as `[#SEQ FILE:LINE:COLUMN]` (JSON lines always carry both, as `seq`
        /// and `rule`). `tempo why ... --event SEQ` explains one of them.
        #[arg(long)]
        why: bool,
        /// Text: leave out routine pool bookkeeping (`refresh at turn_start`, `lose at turn_end`
        /// and the other pool steps of timings); what actions, effects, thresholds and choices
        /// change is still shown. JSON lines always hold every event.
        #[arg(long, short)]
        quiet: bool,
        /// Text: show the ruleset's own names (`ap`, `shield_raised`) instead of the labels it
        /// declares for them ("Action Points", "Shield Raised"), as `tempo test` golden traces and
        /// JSON lines do.
        #[arg(long)]
        names: bool,
        /// Write each decision a policy makes with the options it considered (Greedy with the
        /// score of each) and the one it took: a `decision` event in either format.
        #[arg(long)]
        decisions: bool,
        #[command(flatten)]
        load: cli::LoadArgs,
    },
    /// Explain one event of a run: the chain of its causes back to the turn, phase or round
    /// that began it, each with the rule that caused it, shown in its source.
    ///
    /// Plays the encounter as `tempo run` does (same seed, same events) and follows event SEQ
    /// back: a pool change to the action that paid it, a reaction to the trigger it answered, an
    /// outcome to its check, a threshold's effect to the change that crossed it, a refusal to
    /// the rule that refused. Event numbers are `seq` in `tempo run --format jsonl`, and `#SEQ`
    /// in `tempo run --why`. Exit code 0: explained; 1: the ruleset or scenario is wrong, or the
    /// run failed before the event; 2: a file could not be read, or there is no event SEQ.
    Why {
        /// The ruleset: `.rules` source or `.ron` IR from `tempo compile` (its sources are read
        /// for excerpts when they are at hand).
        rules: PathBuf,
        /// The scenario (RON).
        scenario: PathBuf,
        /// The event to explain: its `seq`.
        #[arg(long, value_name = "SEQ")]
        event: u64,
        /// Seed for the dice; overrides the scenario's (use the one the run was made with).
        #[arg(long)]
        seed: Option<u64>,
        #[command(flatten)]
        load: cli::LoadArgs,
    },
    /// Play many encounters and summarise them: outcomes, length, pool use and waste, action
    /// use, reactions, conditions, each estimate with its 95% interval (see docs/simulation.md).
    ///
    /// Run i plays with a seed derived from --seed and i, so any run can be replayed with
    /// `tempo run`; the summary is the same whatever --jobs is. `tempo sim merge` merges shards.
    /// Exit code 0: summary written (runs that failed are counted in it); 1: the ruleset or
    /// scenario is wrong; 2: a file could not be read or written.
    Sim(cli::sim::SimArgs),
    /// Play one scenario under two rulesets on the same seeds and show what B changes.
    ///
    /// Each count for A and B, and the paired difference A - B with its 95% interval; a
    /// difference that is not noise is marked `*`. Exit codes as for `sim`.
    Compare(cli::sim::CompareArgs),
    /// Format rules files in the canonical layout, in place (see docs/formatting.md).
    ///
    /// Comments are kept and meaning never changes; a file that does not parse is left alone and its
    /// errors printed. Exit code 0: done (or, with --check, nothing would change); 1: a file does not
    /// parse, or with --check a file would change (each is listed); 2: a file could not be read or written.
    Fmt {
        /// `.rules` files, or folders: every `*.rules` file under a folder is formatted.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Change nothing; list the files that are not formatted.
        #[arg(long)]
        check: bool,
    },
    /// Explain a diagnostic code, with an example of the problem and its fix.
    ///
    /// `tempo explain unknown-pool` or `tempo explain tempo::unknown-pool`; `--list` lists all codes.
    Explain {
        /// The code, e.g. `tempo::unknown-pool`.
        #[arg(required_unless_present = "list")]
        code: Option<String>,
        /// List every code with the first line of its explanation.
        #[arg(long)]
        list: bool,
    },
    /// Write the cheat sheet for the table: the round, initiative, pools, actions by category,
    /// reactions, triggers, hooks and conditions, with their `##` docs (see docs/doc.md).
    ///
    /// Made from the compiled ruleset: for a variant, what it changes from its base comes first.
    /// Diagnostics go to stderr. Exit code 0: written; 1: the ruleset has errors (nothing is
    /// written); 2: a file could not be read or written.
    Doc {
        /// The `.rules` file.
        rules: PathBuf,
        /// `md` (Markdown) or `html` (one self-contained page, printable).
        #[arg(long, value_enum, default_value_t = DocFormat::Md)]
        format: DocFormat,
        /// Write the sheet here (replaced atomically) instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        load: cli::LoadArgs,
    },
    /// Run golden-encounter tests: `*.test.ron` files that play a scenario under a ruleset and say
    /// what must happen (see docs/testing.md).
    ///
    /// Each PATH is a test file or a folder searched for `*.test.ron` files (none given: the
    /// current folder). Prints a line per test, each failure's reason (a readable diff for a
    /// golden trace that changed), then `N passed, M failed`. Exit code 0: all passed; 1: a test
    /// failed; 2: a PATH could not be read or no test was found.
    Test {
        /// Test files or folders.
        paths: Vec<PathBuf>,
        /// Write the golden traces (`golden: "FILE"`) from this run instead of comparing.
        #[arg(long)]
        bless: bool,
        /// `text` for people (like `cargo test`), `json` for scripts (one document on stdout).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Start the language server, speaking the Language Server Protocol on stdin and stdout.
    ///
    /// Editors start it (see editors/README.md): it checks each open file as `tempo check` would
    /// and offers hover, go to definition, references, rename, completion and an outline.
    /// Exit code 0 after the client's `shutdown` and `exit`, 1 otherwise.
    Lsp,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TraceFormat {
    Text,
    Jsonl,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DocFormat {
    Md,
    Html,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { files, format, load } => check_files(&files, format, load),
        Command::Compile { file, output, load } => compile(&file, output.as_deref(), load),
        Command::Explain { code, list } => explain(code.as_deref(), list),
        Command::Fmt { files, check } => format_files(&files, check),
        Command::Run { rules, scenario, seed, format, why, quiet, names, decisions, load } => {
            run(&rules, &scenario, seed, format, (why, quiet, names, decisions), load)
        }
        Command::Why { rules, scenario, event, seed, load } => why(&rules, &scenario, event, seed, load),
        Command::Sim(args) => cli::sim::sim(args),
        Command::Compare(args) => cli::sim::compare(args),
        Command::Doc { rules, format, output, load } => doc(&rules, format, output.as_deref(), load),
        Command::Test { paths, bless, format } => test(paths, bless, format),
        Command::Lsp => lsp(),
    }
}

fn text_style() -> render::TextStyle {
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal();
    let width = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(100);
    render::TextStyle { color, width }
}

/// The exit code for a set of compilations: 2 beats 1 beats 0.
fn exit_code(compilations: &[Compilation]) -> ExitCode {
    if compilations.iter().any(|c| c.unreadable) {
        ExitCode::from(2)
    } else if compilations.iter().any(Compilation::has_errors) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_text(compilation: &Compilation) {
    let text = render::to_text(&compilation.diagnostics, &compilation.sources, text_style());
    let _ = std::io::stderr().write_all(text.as_bytes());
}

fn summary(compilations: &[Compilation]) -> String {
    let count = |errors: bool| -> usize {
        compilations.iter().flat_map(|c| &c.diagnostics).filter(|d| d.is_error() == errors).count()
    };
    let (errors, warnings) = (count(true), count(false));
    let files = compilations.len();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!("checked {}: {}, {}", plural(files, "file"), plural(errors, "error"), plural(warnings, "warning"))
}

fn check_files(files: &[PathBuf], format: Format, load: cli::LoadArgs) -> ExitCode {
    let compilations: Vec<Compilation> = files.iter().map(|f| check::compile_path_limited(f, load.limits())).collect();
    match format {
        Format::Text => {
            for c in &compilations {
                print_text(c);
            }
            eprintln!("{}", summary(&compilations));
        }
        Format::Json => {
            // One document for all files: each diagnostic names its own file.
            let mut all: Vec<render::JsonDiagnostic> = Vec::new();
            for c in &compilations {
                all.extend(c.diagnostics.iter().map(|d| render::to_json_value(d, &c.sources)));
            }
            let doc = render::JsonDocument { diagnostics: all };
            match serde_json::to_string_pretty(&doc) {
                Ok(text) => println!("{text}"),
                Err(e) => {
                    eprintln!("error: could not write JSON: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    exit_code(&compilations)
}

fn compile(file: &Path, output: Option<&Path>, load: cli::LoadArgs) -> ExitCode {
    let compilation = check::compile_path_limited(file, load.limits());
    print_text(&compilation);
    let Some(ruleset) = &compilation.ruleset else {
        return exit_code(std::slice::from_ref(&compilation));
    };
    // Streamed into the output: the text is several times the source, and holding it whole
    // (twice, with the final newline added) was most of the command's peak memory.
    let written = match output {
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            write_ir(ruleset, &mut out)
        }
        Some(path) => match std::fs::File::create(path) {
            Ok(file) => write_ir(ruleset, std::io::BufWriter::new(file)),
            Err(e) => {
                eprintln!("error: cannot write `{}`: {e}", path.display());
                return ExitCode::from(2);
            }
        },
    };
    if let Err(e) = written {
        let target = output.map_or("stdout".to_string(), |p| format!("`{}`", p.display()));
        eprintln!("error: cannot write the IR to {target}: {e}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// The IR as `tempo compile` writes it: the RON, then a newline.
fn write_ir(ruleset: &tempo::ir::Ruleset, mut w: impl std::io::Write) -> Result<(), String> {
    ruleset.write_ron(&mut w).map_err(|e| e.to_string())?;
    w.write_all(b"\n").and_then(|()| w.flush()).map_err(|e| e.to_string())
}

fn doc(rules: &Path, format: DocFormat, output: Option<&Path>, load: cli::LoadArgs) -> ExitCode {
    let (compilation, sheet) = tempo::doc::generate(&check::FsLoader::new(load.limits()), rules);
    print_text(&compilation);
    let Some(sheet) = sheet else {
        let code = exit_code(std::slice::from_ref(&compilation));
        // A ruleset without errors always gives a sheet; this is only a guard.
        return if code == ExitCode::SUCCESS { ExitCode::from(1) } else { code };
    };
    let text = match format {
        DocFormat::Md => tempo::doc::markdown::sheet(&sheet),
        DocFormat::Html => tempo::doc::html::sheet(&sheet),
    };
    match output {
        None => cli::write_stdout("the sheet", &text),
        Some(path) => match tempo::fmt::files::write_new_atomically(path, &text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: cannot write `{}`: {e}", path.display());
                ExitCode::from(2)
            }
        },
    }
}

/// Prints a runtime problem as a diagnostic line with its code.
fn runtime_error(code: Code, message: &str) -> ExitCode {
    eprintln!("error[{}]: {message}", code.name());
    ExitCode::from(1)
}

/// A ruleset from `.rules` source (diagnostics printed) or `.ron` IR; the exit code if it is not one.
fn load_ruleset(rules: &Path, load: cli::LoadArgs) -> Result<tempo::ir::Ruleset, ExitCode> {
    let is_ir = rules.extension().and_then(|e| e.to_str()) == Some("ron");
    if is_ir {
        let text = match cli::read_input(rules) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", rules.display());
                return Err(ExitCode::from(2));
            }
        };
        return tempo::ir::Ruleset::from_ron(&text)
            .map_err(|e| runtime_error(Code::BadIr, &format!("`{}` is not a tempo IR: {e}", rules.display())));
    }
    let compilation = check::compile_path_limited(rules, load.limits());
    if compilation.has_errors() || compilation.unreadable {
        print_text(&compilation);
        return Err(exit_code(std::slice::from_ref(&compilation)));
    }
    compilation.ruleset.ok_or(ExitCode::from(1))
}

/// A scenario file, parsed; the exit code if it cannot be read or is not a scenario.
fn load_scenario(scenario: &Path) -> Result<tempo::run::scenario::Scenario, ExitCode> {
    let text = match cli::read_input(scenario) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", scenario.display());
            return Err(ExitCode::from(2));
        }
    };
    tempo::run::scenario::parse(&text).map_err(|e| runtime_error(Code::BadScenario, &e))
}

fn run(
    rules: &Path,
    scenario: &Path,
    seed: Option<u64>,
    format: TraceFormat,
    (why, quiet, names, decisions): (bool, bool, bool, bool),
    load: cli::LoadArgs,
) -> ExitCode {
    let ruleset = match load_ruleset(rules, load) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let scenario_path = scenario;
    let scenario = match load_scenario(scenario) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // Events are written as they happen: nothing of the trace is kept in memory, and a run that
    // fails has printed everything up to the failure before the error.
    let format = match format {
        TraceFormat::Jsonl => sink::Format::Jsonl,
        TraceFormat::Text => sink::Format::Text,
    };
    let out = std::io::BufWriter::new(std::io::stdout().lock());
    let labels = (!names).then(|| tempo::run::labels::Labels::new(&ruleset));
    let writer = sink::Writer::new(out, format, &ruleset.files)
        .why(why)
        .quiet(quiet)
        .labels(labels)
        .hide_downed(&ruleset, &scenario);
    let mut runner = match tempo::run::Runner::new(&ruleset, &scenario, writer) {
        Ok(runner) => runner.decisions(decisions),
        Err(e) => return scenario_failed(&e, scenario_path),
    };
    let played = runner.play(seed);
    match (runner.into_sink().finish(), played) {
        // The reader stopped reading (`tempo run ... | head`): it has what it wanted.
        (Err(e), _) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        (Err(e), _) => {
            eprintln!("error: cannot write the trace: {e}");
            ExitCode::from(2)
        }
        (Ok(_), Ok(())) => ExitCode::SUCCESS,
        (Ok(_), Err(e)) => run_failed(&e, Some(&ruleset)),
    }
}

fn why(rules: &Path, scenario: &Path, event: u64, seed: Option<u64>, load: cli::LoadArgs) -> ExitCode {
    use tempo::why;
    let is_ir = rules.extension().and_then(|e| e.to_str()) == Some("ron");
    // The sources, for excerpts: the compilation's own, or for an IR the files it names.
    let (ruleset, sources, found) = if is_ir {
        let ruleset = match load_ruleset(rules, load) {
            Ok(r) => r,
            Err(code) => return code,
        };
        let (sources, found) = why::sources_of(&ruleset, |name| cli::read_input(Path::new(name)).ok());
        (ruleset, sources, found)
    } else {
        let compilation = check::compile_path_limited(rules, load.limits());
        if compilation.has_errors() || compilation.unreadable {
            print_text(&compilation);
            return exit_code(std::slice::from_ref(&compilation));
        }
        let Some(ruleset) = compilation.ruleset else { return ExitCode::from(1) };
        let found = vec![true; ruleset.files.len()];
        (ruleset, compilation.sources, found)
    };
    let scenario_path = scenario;
    let scenario = match load_scenario(scenario) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut runner = match tempo::run::Runner::new(&ruleset, &scenario, why::Keep::new(event)) {
        Ok(runner) => runner,
        Err(e) => return scenario_failed(&e, scenario_path),
    };
    // Abandoned past the event (`Output`): everything that could be a cause was written.
    let played = runner.play(seed);
    let kept = runner.into_sink();
    let Some(chain) = why::chain(&kept.steps, event) else {
        if let Err(e) = &played {
            if !matches!(e, tempo::run::RunError::Output) {
                eprintln!("the run stopped before event #{event}:");
                return run_failed(e, Some(&ruleset));
            }
        }
        let last = kept.steps.len();
        eprintln!(
            "error: there is no event #{event}: this run wrote {last} events (#0 to #{})",
            last.saturating_sub(1)
        );
        return ExitCode::from(2);
    };
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal();
    let style = render::TextStyle { color, ..text_style() };
    cli::write_stdout("the explanation", &why::to_text(&chain, &ruleset.files, &sources, &found, style))
}

fn test(paths: Vec<PathBuf>, bless: bool, format: Format) -> ExitCode {
    use tempo::testing;
    let paths = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths };
    let found = match testing::file::discover(&paths) {
        Ok(found) => found,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let outcomes = testing::run_all(&found, testing::Options { bless, keep_traces: false });
    let text = match format {
        Format::Text => testing::report::to_text(&outcomes),
        Format::Json => format!("{}\n", testing::report::to_json(&outcomes)),
    };
    let written = cli::write_stdout("the report", &text);
    if written != ExitCode::SUCCESS {
        return written;
    }
    if outcomes.iter().all(|o| o.passed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// A scenario that does not fit its ruleset: each problem once, shown at its place in the
/// scenario, as `check` shows the ruleset's.
fn scenario_failed(e: &tempo::run::RunError, scenario: &Path) -> ExitCode {
    if !matches!(e, tempo::run::RunError::Scenario(_)) {
        return run_failed(e, None);
    }
    let mut sources = tempo::source::SourceMap::new();
    let file = sources.add(scenario.display().to_string(), cli::read_input(scenario).unwrap_or_default());
    let diagnostics = e.diagnostics(&sources, Some((file, &[])), &[]).unwrap_or_default();
    let _ = std::io::stderr().write_all(render::to_text(&diagnostics, &sources, text_style()).as_bytes());
    ExitCode::from(1)
}

/// A run that could not finish, as a diagnostic with its code: a rule that failed is shown in
/// its source when the ruleset's files can be read, else named by its place.
fn run_failed(e: &tempo::run::RunError, ruleset: Option<&tempo::ir::Ruleset>) -> ExitCode {
    let Some(r) = ruleset.filter(|_| matches!(e, tempo::run::RunError::Rule { rule: Some(_), .. })) else {
        return runtime_error(e.code(), &e.to_string());
    };
    let (sources, _) = tempo::why::sources_of(r, |name| cli::read_input(Path::new(name)).ok());
    match e.diagnostics(&sources, None, &r.files) {
        Some(diagnostics) => {
            let _ = std::io::stderr().write_all(render::to_text(&diagnostics, &sources, text_style()).as_bytes());
            ExitCode::from(1)
        }
        None => {
            let place = e.rule_place(&r.files).map(|p| format!(" (rule at {p})")).unwrap_or_default();
            runtime_error(e.code(), &format!("{e}{place}"))
        }
    }
}

fn lsp() -> ExitCode {
    // Replies are written and flushed as they go, so nothing is left to wait for; the thread
    // reading stdin may still be blocked in a read, and ends with the process.
    match tempo::lsp::serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tempo lsp: {e}");
            ExitCode::from(1)
        }
    }
}

/// What `tempo fmt` found for one file.
enum Formatted {
    Unchanged,
    Changed,
    /// Does not parse (diagnostics printed); left alone.
    Refused,
    /// Could not be read or written (message printed).
    Failed,
}

fn format_files(paths: &[PathBuf], check: bool) -> ExitCode {
    let (files, errors) = tempo::fmt::files::rules_files(paths);
    for (path, e) in &errors {
        eprintln!("error: cannot read the folder `{}`: {e}", path.display());
    }
    let results: Vec<Formatted> = files.iter().map(|f| format_file(f, check)).collect();
    let count = |want: fn(&Formatted) -> bool| results.iter().filter(|r| want(r)).count();
    let changed = count(|r| matches!(r, Formatted::Changed));
    let verb = if check { "would reformat" } else { "reformatted" };
    eprintln!("{verb} {changed} of {} files", files.len());
    if !errors.is_empty() || count(|r| matches!(r, Formatted::Failed)) > 0 {
        ExitCode::from(2)
    } else if count(|r| matches!(r, Formatted::Refused)) > 0 || (check && changed > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn format_file(path: &Path, check: bool) -> Formatted {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", path.display());
            return Formatted::Failed;
        }
    };
    // Text that is not UTF-8 gets the diagnostic `tempo check` gives it.
    let Ok(text) = String::from_utf8(bytes) else {
        print_text(&check::compile_path(path));
        return Formatted::Refused;
    };
    // A byte-order mark is kept where it was, and the text after it formatted.
    let bom = if text.starts_with('\u{feff}') { "\u{feff}" } else { "" };
    let formatted = match tempo::fmt::format_source(&text[bom.len()..]) {
        Ok(formatted) => format!("{bom}{formatted}"),
        Err(e) => {
            let mut sources = tempo::source::SourceMap::new();
            sources.add(path.display().to_string(), text[bom.len()..].to_string());
            let rendered = render::to_text(&e.diagnostics, &sources, text_style());
            let _ = std::io::stderr().write_all(rendered.as_bytes());
            return Formatted::Refused;
        }
    };
    if formatted == text {
        return Formatted::Unchanged;
    }
    if check {
        println!("{}", path.display());
    } else if let Err(e) = tempo::fmt::files::write_atomically(path, &formatted) {
        eprintln!("error: cannot write `{}`: {e}", path.display());
        return Formatted::Failed;
    }
    Formatted::Changed
}

fn explain(code: Option<&str>, list: bool) -> ExitCode {
    if list {
        for c in Code::ALL {
            let first = c.explanation().lines().next().unwrap_or("");
            println!("{:<32} {first}", c.name());
        }
        return ExitCode::SUCCESS;
    }
    let text = code.unwrap_or("");
    match Code::parse(text) {
        Some(c) => {
            println!("{}\n\n{}", c.name(), c.explanation());
            ExitCode::SUCCESS
        }
        None => {
            let names: Vec<String> = Code::ALL.iter().map(|c| c.slug().to_string()).collect();
            let slug = text.strip_prefix("tempo::").unwrap_or(text);
            let hint = tempo::diagnostics::did_you_mean(slug, names.iter().map(String::as_str))
                .map(|s| format!(" did you mean `tempo::{s}`?"))
                .unwrap_or_default();
            eprintln!("error: `{text}` is not a tempo diagnostic code.{hint} `tempo explain --list` lists them all.");
            ExitCode::from(2)
        }
    }
}
