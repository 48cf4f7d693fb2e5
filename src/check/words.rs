//! English wording helpers for messages.

/// "a" or "an" before a word.
pub(crate) fn article(word: &str) -> &'static str {
    // "a unit", "a use": a leading `u` that sounds like "you" takes "a".
    if word.starts_with("un") && !word.starts_with("uni") || word.starts_with("up") {
        return "an";
    }
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o') => "an",
        _ => "a",
    }
}
