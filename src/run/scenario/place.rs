//! Where a value is written in a scenario's RON text. `ron` gives values without places, so
//! the text is read again, only when a problem is shown, into a tree of spans; a problem's
//! path of fields and indices is then followed down it.

/// One step down a path into a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// A field of a struct, or of a struct-like enum variant (`Script(steps: ...)`); a newtype
    /// variant on the way (`Policy(...)`, `Some(...)`) is stepped through.
    Field(&'static str),
    /// An item of a list.
    Index(usize),
    /// The key of a map entry, written as a string.
    Key(String),
    /// The value of a map entry, by its key.
    Value(String),
}

/// Deepest nesting read; RON itself refuses deeper, so a text nested more was not a scenario.
const MAX_DEPTH: usize = 256;

/// The byte span of the value at `path` in `text`: the deepest value along the path that the
/// text shows (its whole span when the path ends inside it), or `None` if the text does not
/// read as RON.
pub fn span_of(text: &str, path: &[Seg]) -> Option<(usize, usize)> {
    let mut reader = Reader { text: text.as_bytes(), at: 0 };
    let root = reader.value(0)?;
    let mut node = &root;
    for seg in path {
        match node.step(seg, text) {
            Some(next) => node = next,
            None => break,
        }
    }
    Some(node.unwrapped().span)
}

#[derive(Debug)]
struct Node {
    span: (usize, usize),
    /// The identifier before a parenthesis (`Some`, `Script`), if any.
    name: Option<(usize, usize)>,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    /// A string, number, identifier or character.
    Atom,
    /// `[a, b]` or `(a, b)`.
    Items(Vec<Node>),
    /// `(field: value, ...)`.
    Fields(Vec<((usize, usize), Node)>),
    /// `{key: value, ...}`.
    Map(Vec<(Node, Node)>),
}

impl Node {
    fn step(&self, seg: &Seg, text: &str) -> Option<&Node> {
        match (&self.kind, seg) {
            (Kind::Fields(fields), Seg::Field(name)) => {
                fields.iter().find(|((s, e), _)| text.get(*s..*e) == Some(*name)).map(|(_, v)| v)
            }
            // A newtype variant (`Policy(HoldBack(...))`, `Some((...))`) is stepped through.
            (Kind::Items(items), Seg::Field(_)) if items.len() == 1 && self.name.is_some() => items[0].step(seg, text),
            (Kind::Items(items), Seg::Index(i)) => items.get(*i),
            (Kind::Map(entries), Seg::Key(key)) => {
                entries.iter().find(|(k, _)| string_value(k, text).as_deref() == Some(key.as_str())).map(|(k, _)| k)
            }
            (Kind::Map(entries), Seg::Value(key)) => {
                entries.iter().find(|(k, _)| string_value(k, text).as_deref() == Some(key.as_str())).map(|(_, v)| v)
            }
            _ => None,
        }
    }

    /// `Some(x)` as `x`: the value the scenario means.
    fn unwrapped(&self) -> &Node {
        match &self.kind {
            Kind::Items(items) if items.len() == 1 && self.name.is_some() => items[0].unwrapped(),
            _ => self,
        }
    }
}

/// A string literal's value (escapes read), or `None` for anything else.
fn string_value(node: &Node, text: &str) -> Option<String> {
    let raw = text.get(node.span.0..node.span.1)?;
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(inner.to_string());
    }
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            'u' => {
                let rest: String = chars.by_ref().skip(1).take_while(|c| *c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&rest, 16).ok()?)?);
            }
            other => out.push(other),
        }
    }
    Some(out)
}

struct Reader<'t> {
    text: &'t [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Skips blanks and comments (`//` to the line's end, `/* */` nested).
    fn blank(&mut self) {
        loop {
            match (self.peek(), self.text.get(self.at + 1)) {
                (Some(c), _) if c.is_ascii_whitespace() => self.at += 1,
                (Some(b'/'), Some(b'/')) => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.at += 1;
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    let mut depth = 0usize;
                    while self.at < self.text.len() {
                        if self.text[self.at..].starts_with(b"/*") {
                            depth += 1;
                            self.at += 2;
                        } else if self.text[self.at..].starts_with(b"*/") {
                            depth -= 1;
                            self.at += 2;
                            if depth == 0 {
                                break;
                            }
                        } else {
                            self.at += 1;
                        }
                    }
                }
                _ => return,
            }
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.blank();
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.blank();
        let start = self.at;
        match self.peek()? {
            b'"' => self.string(start),
            b'\'' => self.char(start),
            b'r' if matches!(self.text.get(self.at + 1), Some(b'"' | b'#')) => self.raw_string(start),
            b'[' => {
                self.at += 1;
                let items = self.items(b']', depth)?;
                Some(Node { span: (start, self.at), name: None, kind: Kind::Items(items) })
            }
            b'{' => self.map(start, depth),
            b'(' => self.parenthesised(start, None, depth),
            _ => {
                let word = self.word()?;
                self.blank();
                if self.peek() == Some(b'(') {
                    let at = self.at;
                    let mut node = self.parenthesised(at, Some(word), depth)?;
                    node.span.0 = start;
                    Some(node)
                } else {
                    Some(Node { span: word, name: None, kind: Kind::Atom })
                }
            }
        }
    }

    /// An identifier, number or other bare token.
    fn word(&mut self) -> Option<(usize, usize)> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'.') || c >= 0x80)
        {
            self.at += 1;
        }
        (self.at > start).then_some((start, self.at))
    }

    fn string(&mut self, start: usize) -> Option<Node> {
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => break,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        Some(Node { span: (start, self.at), name: None, kind: Kind::Atom })
    }

    fn char(&mut self, start: usize) -> Option<Node> {
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'\'' => break,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        Some(Node { span: (start, self.at), name: None, kind: Kind::Atom })
    }

    fn raw_string(&mut self, start: usize) -> Option<Node> {
        self.at += 1;
        let hashes = self.text[self.at..].iter().take_while(|c| **c == b'#').count();
        self.at += hashes;
        if self.peek()? != b'"' {
            return None;
        }
        self.at += 1;
        let mut close = vec![b'"'];
        close.extend(std::iter::repeat_n(b'#', hashes));
        while !self.text[self.at..].starts_with(&close) {
            self.peek()?;
            self.at += 1;
        }
        self.at += close.len();
        Some(Node { span: (start, self.at), name: None, kind: Kind::Atom })
    }

    /// Values up to `close`, separated by commas (a trailing one allowed).
    fn items(&mut self, close: u8, depth: usize) -> Option<Vec<Node>> {
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Some(items);
            }
            items.push(self.value(depth + 1)?);
            if !self.eat(b',') {
                return self.eat(close).then_some(items);
            }
        }
    }

    fn map(&mut self, start: usize, depth: usize) -> Option<Node> {
        self.at += 1;
        let mut entries = Vec::new();
        loop {
            if self.eat(b'}') {
                break;
            }
            let key = self.value(depth + 1)?;
            if !self.eat(b':') {
                return None;
            }
            entries.push((key, self.value(depth + 1)?));
            if !self.eat(b',') {
                if !self.eat(b'}') {
                    return None;
                }
                break;
            }
        }
        Some(Node { span: (start, self.at), name: None, kind: Kind::Map(entries) })
    }

    /// `(...)` after an optional name: fields when it starts `ident:`, else items.
    fn parenthesised(&mut self, start: usize, name: Option<(usize, usize)>, depth: usize) -> Option<Node> {
        self.at += 1;
        let before = self.at;
        self.blank();
        let is_fields = self.word().is_some() && {
            self.blank();
            self.peek() == Some(b':')
        };
        self.at = before;
        if !is_fields {
            let items = self.items(b')', depth)?;
            return Some(Node { span: (start, self.at), name, kind: Kind::Items(items) });
        }
        let mut fields = Vec::new();
        loop {
            if self.eat(b')') {
                break;
            }
            self.blank();
            let field = self.word()?;
            if !self.eat(b':') {
                return None;
            }
            fields.push((field, self.value(depth + 1)?));
            if !self.eat(b',') {
                if !self.eat(b')') {
                    return None;
                }
                break;
            }
        }
        Some(Node { span: (start, self.at), name, kind: Kind::Fields(fields) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at<'t>(text: &'t str, path: &[Seg]) -> &'t str {
        let (s, e) = span_of(text, path).expect("reads");
        &text[s..e]
    }

    #[test]
    fn paths_lead_to_the_value_written() {
        let text = r#"( // a comment
  rounds: 1, /* a /* nested */ one */
  participants: [
    (name: "A", stats: {"sped": 1}, controller: Policy(HoldBack(pool: "apx", keep: 1))),
    (name: "B", conditions: ["x", (name: "y", by: "Q")],
     controller: Script(steps: [Act(round: 1, action: "atack", target: Some("C"))], fallback: Passive)),
  ],
  gm_answers: {"Go first?": "nah"},
)"#;
        let p = |i| [Seg::Field("participants"), Seg::Index(i)];
        let path = |i, more: &[Seg]| p(i).iter().chain(more).cloned().collect::<Vec<_>>();
        assert_eq!(at(text, &path(0, &[Seg::Field("stats"), Seg::Key("sped".into())])), "\"sped\"");
        assert_eq!(at(text, &path(0, &[Seg::Field("controller"), Seg::Field("pool")])), "\"apx\"");
        assert_eq!(at(text, &path(1, &[Seg::Field("conditions"), Seg::Index(0), Seg::Field("name")])), "\"x\"");
        assert_eq!(at(text, &path(1, &[Seg::Field("conditions"), Seg::Index(1), Seg::Field("by")])), "\"Q\"");
        let step = |f| path(1, &[Seg::Field("controller"), Seg::Field("steps"), Seg::Index(0), Seg::Field(f)]);
        assert_eq!(at(text, &step("action")), "\"atack\"");
        assert_eq!(at(text, &step("target")), "\"C\"");
        assert_eq!(at(text, &[Seg::Field("gm_answers"), Seg::Value("Go first?".into())]), "\"nah\"");
        // A path the text does not show ends at the nearest value it does.
        let a = at(text, &path(0, &[Seg::Field("position")]));
        assert!(a.starts_with("(name: \"A\"") && a.ends_with("keep: 1)))"), "{a}");
        assert_eq!(span_of("(a: [", &[]), None);
    }

    #[test]
    fn any_text_is_read_without_panicking() {
        let path = [Seg::Field("a"), Seg::Index(0), Seg::Key("é".into()), Seg::Value("x".into())];
        for text in [
            "",
            "(",
            ")",
            "r",
            "r#",
            "r#\"",
            "'",
            "'\\",
            "\"\\",
            "\"é\\",
            "/*",
            "/* /*",
            "*/",
            "//",
            "é(",
            "(é: 1)",
            "{\"a\":",
            "(a:",
            "(a: [{\"é\": \"x\"}])",
            "((((((",
            "[,]",
            "(a: b, c)",
            "Some(",
            "{:}",
        ] {
            let _ = span_of(text, &path);
        }
        let deep = "[".repeat(10_000);
        assert_eq!(span_of(&deep, &[]), None);
    }
}
