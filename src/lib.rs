//! tempo: a compiler and headless runner for tabletop-RPG action economies.
//!
//! The pipeline, one module per stage: [`syntax`] (text → syntax tree) → [`check`] (files joined
//! through `extends`, names resolved, rules checked) → [`ir`] (what the runner executes).
//! [`run`] plays an encounter under the IR and writes a trace; [`solve`] works out its exact
//! outcome probabilities and optimal play where the states are few; [`why`] follows one event of it
//! back to what began it; [`testing`] runs golden-encounter test files against traces. [`doc`]
//! makes a ruleset's cheat sheet, [`fmt`] its canonical layout.
//! [`diagnostics`] is how every stage reports problems; [`api`] is the small embedding API over
//! all of it (from memory, no files, threads or terminal). The library never prints and never exits.
//!
//! Files, threads and the language server are default features (`fs`, `parallel`, `lsp`; `cli`
//! for the binary): without them the core builds for `wasm32-unknown-unknown`
//! (docs/architecture.md, "Features").

// pest is built without its `std` feature (Cargo.toml: its stack probe cost a fifth of parsing),
// and the parser its derive writes then names `alloc` from the crate root.
extern crate alloc;

pub mod api;
pub mod check;
pub mod diagnostics;
pub mod doc;
pub mod fmt;
pub mod ir;
#[cfg(feature = "lsp")]
pub mod lsp;
mod names;
#[cfg(feature = "fs")]
pub mod output;
mod par;
pub mod run;
pub mod sim;
pub mod solve;
pub mod source;
pub mod syntax;
pub mod testing;
pub mod why;
