//! Dice as the trace writes them.

use serde::{Serialize, Serializer};
use std::fmt;

/// Dice as rolled: `1d20`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dice {
    pub count: u32,
    pub sides: u32,
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}d{}", self.count, self.sides)
    }
}

impl Serialize for Dice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
