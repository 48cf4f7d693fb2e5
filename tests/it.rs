//! The integration tests, one binary (linking one test binary per file cost minutes of a
//! fresh `cargo test`). Each file of tests/ is a module here, but those that need a process of
//! their own: `alloc` and `copy` count allocations (tests/counted.rs), `conformance` and `runner`
//! are libtest-mimic harnesses (Cargo.toml lists them). tests/tidy.rs checks that each file is
//! compiled exactly once.

mod api;
mod bad_input;
mod baseline;
mod cli;
mod diagnostics;
mod doc;
mod docs;
mod editors;
mod examples;
mod fmt;
mod fuzz;
mod hardening;
mod html;
mod language;
mod loadouts;
mod lsp;
mod readme;
mod reparse;
mod rulesets;
mod run;
mod scenario_problems;
mod search;
mod seating;
mod shards;
mod sim;
mod sweep;
mod syntax;
mod testing;
mod tidy;
