//! A floor for item 4 of issue 10 (`docs/performance.md`): how long pest alone takes to read a
//! `.rules` file as a flat stream of tokens, with no structure, no keywords and no tree. A
//! grammar that says what tempo's says cannot do less work than this one: every token of the
//! file is matched once, and nothing is ever tried twice. Blanks and comments are read as
//! `grammar/tempo.pest` reads them (comments are blanks, matched as character ranges).
//!
//! ```text
//! cargo run --release --features bench-tools --example pest-floor -- /tmp/tempo-sizes/big3.rules
//! ```

extern crate alloc;

use pest::Parser;
use std::process::ExitCode;

#[path = "../support/input.rs"]
mod input;

#[derive(pest_derive::Parser)]
#[grammar_inline = r##"
WHITESPACE = _{ ' '..' ' | '\t'..'\n' | '\r'..'\r' | '#'..'#' ~ ('\u{00}'..'\u{09}' | '\u{0B}'..'\u{0C}' | '\u{0E}'..'\u{10FFFF}')* }
file = { SOI ~ token* ~ EOI }
token = _{ word | number | string | punct }
word = @{ (ASCII_ALPHA | "_") ~ (ASCII_ALPHANUMERIC | "_")* }
number = @{ ASCII_DIGIT+ }
string = @{ "\"" ~ (!("\"" | "\\" | "\n") ~ ANY | "\\" ~ ANY)* ~ "\"" }
punct = @{ "+=" | "-=" | "<=" | ">=" | "==" | "!=" | ANY }
"##]
struct Floor;

fn main() -> ExitCode {
    let (_, text) = match input::first_file("pest-floor FILE.rules") {
        Ok(read) => read,
        Err(code) => return code,
    };
    match Floor::parse(Rule::file, &text) {
        Ok(pairs) => {
            let tokens = pairs.flatten().count();
            println!("{tokens} tokens");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}
