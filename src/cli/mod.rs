//! The command line's larger commands, one module each; `main.rs` holds the rest.

pub mod sim;
