// Which `.rules` files are tempo's: `.rules` is also used by other tools (udev, Snort, ...), so
// the extension does not claim the extension outright. A `.rules` file is tempo's when its first
// line that is not blank or a `#` comment starts with `ruleset` (every tempo rules file does).
"use strict";

/** @param {string} text */
function isTempoRules(text) {
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.replace(/^\uFEFF/, "").trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    return /^ruleset\b/.test(trimmed);
  }
  return false;
}

module.exports = { isTempoRules };
