//! The integration tests, one binary (a fresh `cargo test` linked one binary per file, each a
//! few seconds). Each file of tests/ is a module here, but those that need a process of
//! their own: `alloc` and `copy` count allocations (tests/counted.rs), `conformance`, `runner` and
//! `html` are libtest-mimic harnesses (Cargo.toml lists them). tests/tidy.rs checks that each file is
//! compiled exactly once.

mod api;
mod bad_input;
mod baseline;
mod choose;
mod cli;
mod corpus;
mod diagnostics;
mod doc;
mod docs;
mod drawn;
mod editors;
mod examples;
mod fmt;
mod fuzz;
mod hardening;
mod hidden;
mod language;
mod loadouts;
mod lsp;
mod picks;
mod piles;
mod readme;
mod reparse;
mod rolls;
mod rulesets;
mod run;
mod scenario_problems;
mod search;
mod seating;
mod shards;
mod sides;
mod sim;
mod solve;
mod sweep;
mod syntax;
mod testing;
mod tidy;
