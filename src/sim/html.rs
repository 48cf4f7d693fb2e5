//! The HTML report: one self-contained page with the summary's charts (to be drawn).

use super::compare::Comparison;
use super::summary::Summary;

/// The page for a simulation.
pub fn sim_page(s: &Summary) -> Result<String, String> {
    Ok(format!("<!doctype html><title>{}</title>", s.ruleset))
}

/// The page for a comparison.
pub fn compare_page(c: &Comparison) -> Result<String, String> {
    Ok(format!("<!doctype html><title>{} vs {}</title>", c.a.ruleset, c.b.ruleset))
}
