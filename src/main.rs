//! The `tempo` command line: the arguments parsed and handed to the command's module under
//! `cli/`, whose handler prints; its outcome becomes the exit code in `cli::exit_code`.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Compile and check tabletop-RPG action-economy rulesets (`.rules` files).
#[derive(Parser)]
#[command(name = "tempo", version, about, long_about = None, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Each command's `--help` text is the doc comment of its arguments, in its module.
#[derive(Subcommand)]
enum Command {
    Check(cli::check::CheckArgs),
    Compile(cli::compile::CompileArgs),
    Run(cli::run::RunArgs),
    Why(cli::why::WhyArgs),
    Sim(cli::sim::SimArgs),
    Compare(cli::sim::CompareArgs),
    Sweep(cli::sweep::SweepArgs),
    Solve(cli::solve::SolveArgs),
    Fmt(cli::fmt::FmtArgs),
    Explain(cli::explain::ExplainArgs),
    Doc(cli::doc::DocArgs),
    Test(cli::test::TestArgs),
    Lsp(cli::lsp::LspArgs),
}

fn main() -> ExitCode {
    let outcome = match Cli::parse().command {
        Command::Check(args) => cli::check::check(args),
        Command::Compile(args) => cli::compile::compile(args),
        Command::Run(args) => cli::run::run(args),
        Command::Why(args) => cli::why::why(args),
        Command::Sim(args) => cli::sim::sim(args),
        Command::Compare(args) => cli::sim::compare(args),
        Command::Sweep(args) => cli::sweep::sweep(args),
        Command::Solve(args) => cli::solve::solve(args),
        Command::Fmt(args) => cli::fmt::fmt(args),
        Command::Explain(args) => cli::explain::explain(args),
        Command::Doc(args) => cli::doc::doc(args),
        Command::Test(args) => cli::test::test(args),
        Command::Lsp(args) => cli::lsp::lsp(args),
    };
    cli::exit_code(outcome)
}
