//! What the server knows about a ruleset: the chain of files it extends and the names they
//! declare (`crate::names`, shared with the embedding API), and the compiler's diagnostics in
//! the protocol's shape.

use super::position;
use crate::check::{Compilation, Loader};
use crate::diagnostics::Severity;
use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Url};
use std::path::Path;

pub(crate) use crate::names::{trimmed, Chain, Declaration, Kind};

/// What checking one open document gives: its compiler diagnostics in the protocol's shape, each
/// with the file it belongs to, and its chain when every file of it parsed.
pub(crate) struct Checked {
    pub diagnostics: Vec<(Url, lsp_types::Diagnostic)>,
    pub chain: Option<Chain>,
}

/// Compiles `path` and keeps the syntax trees the compilation parsed as its chain: each file is
/// read and parsed once per check (the chain used to be loaded again after compiling).
pub fn check(loader: &dyn Loader, path: &Path, uri_for: impl Fn(&Path) -> Option<Url>) -> Checked {
    let (compilation, files) = crate::check::compile_keeping_trees(loader, path);
    let diagnostics = diagnostics(&compilation, uri_for);
    let chain = if files.is_empty() {
        None
    } else {
        let Compilation { sources, option_words, names_read, .. } = compilation;
        Some(Chain { sources, files, option_words, names_read })
    };
    Checked { diagnostics, chain }
}

/// A compiler diagnostic in the protocol's shape, with the path of the file it belongs to.
pub fn diagnostics(
    compilation: &Compilation,
    uri_for: impl Fn(&Path) -> Option<Url>,
) -> Vec<(Url, lsp_types::Diagnostic)> {
    let sources = &compilation.sources;
    let mut out = Vec::new();
    for d in &compilation.diagnostics {
        let Some(uri) = uri_for(Path::new(sources.name(d.primary.span.file))) else { continue };
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let related: Vec<DiagnosticRelatedInformation> = d
            .secondary
            .iter()
            .filter_map(|label| {
                let uri = uri_for(Path::new(sources.name(label.span.file)))?;
                let range = position::range(sources, label.span);
                Some(DiagnosticRelatedInformation {
                    location: Location::new(uri, range),
                    message: label.message.clone(),
                })
            })
            .collect();
        let diagnostic = lsp_types::Diagnostic {
            range: position::range(sources, d.primary.span),
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
            }),
            code: Some(NumberOrString::String(d.code.name())),
            source: Some("tempo".to_string()),
            message,
            related_information: if related.is_empty() { None } else { Some(related) },
            ..lsp_types::Diagnostic::default()
        };
        out.push((uri, diagnostic));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::MemoryLoader;
    use std::cell::RefCell;
    use std::path::PathBuf;

    /// A loader that counts how often each file is read (each read is followed by a parse).
    struct Counting {
        files: MemoryLoader,
        reads: RefCell<Vec<PathBuf>>,
    }

    impl Loader for Counting {
        fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
            self.reads.borrow_mut().push(path.to_path_buf());
            self.files.read(path)
        }

        fn identity(&self, path: &Path) -> PathBuf {
            self.files.identity(path)
        }
    }

    #[test]
    fn a_check_reads_and_parses_each_file_of_the_chain_once() {
        let base = "ruleset base\npool ap { max 3 }\ninitiative { value 0 }\nround { phase act: turns }\n";
        let variant = "ruleset variant extends \"base.rules\"\naction strike { cost 1 apx }\n";
        let loader = Counting {
            files: MemoryLoader::new().with("/r/base.rules", base).with("/r/variant.rules", variant),
            reads: RefCell::new(Vec::new()),
        };
        let checked = check(&loader, Path::new("/r/variant.rules"), |p| Url::from_file_path(p).ok());
        let reads = loader.reads.borrow();
        assert_eq!(*reads, [PathBuf::from("/r/variant.rules"), PathBuf::from("/r/base.rules")], "{reads:?}");
        // The compilation's diagnostics and the chain come out of that one reading.
        let codes: Vec<_> = checked.diagnostics.iter().map(|(_, d)| d.code.clone()).collect();
        assert_eq!(codes, [Some(NumberOrString::String("tempo::unknown-pool".to_string()))]);
        let chain = checked.chain.expect("both files parse");
        assert_eq!(chain.paths(), [PathBuf::from("/r/base.rules"), PathBuf::from("/r/variant.rules")]);
        assert!(chain.declarations().iter().any(|d| d.name == "strike"));
        assert!(chain.declarations().iter().any(|d| d.name == "ap"));
    }
}
