// Highlighting for the rules language, from the word lists of the VS Code TextMate grammar
// (embedded by tools/embed.mjs), so the page and the editor extension colour the same words.
import { StreamLanguage } from "@codemirror/language";
import { words } from "../build/files.js";

// A double-quoted string with backslash escapes, in both languages: the rules and RON.
function readString(stream) {
  stream.next();
  while (!stream.eol()) {
    const c = stream.next();
    if (c === "\\") stream.next();
    else if (c === '"') break;
  }
  return "string";
}

const set = (list) => new Set(list);
const keywords = set(words.keywords);
const atoms = set(words.atoms);
const builtins = set(words.builtins);
const declarations = set(words.declarations);

export const tempoLanguage = StreamLanguage.define({
  name: "tempo",
  startState: () => ({ declaring: false }),
  token(stream, state) {
    if (stream.eatSpace()) return null;
    if (stream.match("##")) {
      stream.skipToEnd();
      return "docComment";
    }
    if (stream.peek() === "#") {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.peek() === '"') return readString(stream);
    if (stream.match(/^[0-9]*d[0-9]+\b/) || stream.match(/^[0-9]+/)) return "number";
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*/)) {
      const word = stream.current();
      if (state.declaring) {
        state.declaring = false;
        return "def";
      }
      if (declarations.has(word)) {
        state.declaring = true;
        return "keyword";
      }
      if (atoms.has(word)) return "atom";
      if (builtins.has(word)) return "builtin";
      if (keywords.has(word)) return "keyword";
      return "variableName";
    }
    state.declaring = false;
    if (stream.match(/^(\+=|-=|<=|>=|==|!=|[-+*\/%=<>])/)) return "operator";
    stream.next();
    return "punctuation";
  },
  languageData: { commentTokens: { line: "#" } },
});

// RON, for scenarios: enough to tell strings, numbers, comments and names apart.
export const ronLanguage = StreamLanguage.define({
  name: "ron",
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match("//")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.peek() === '"') return readString(stream);
    if (stream.match(/^-?[0-9][0-9_.]*/)) return "number";
    if (stream.match(/^(true|false)\b/)) return "atom";
    if (stream.match(/^[A-Z][A-Za-z0-9_]*/)) return "typeName";
    if (stream.match(/^[a-z_][A-Za-z0-9_]*(?=\s*:)/)) return "propertyName";
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*/)) return "variableName";
    stream.next();
    return "punctuation";
  },
  languageData: { commentTokens: { line: "//" } },
});
