//! The documents a table cites (its `sources:`), shared by every family of tables, and the
//! statements of those documents a table does not encode.
//!
//! A citation is something a reader can follow without opspec's files: the document's name, its
//! version or date, the section, and a public URL where there is one. A value that looks like a
//! local path (`shared/…`, `../…`, `/…`) is a load error naming the file, line, column and field.

use serde::Deserialize;

/// A document a table cites.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Short id used by rows and cases (`array-api`, `megengine-add`).
    pub id: String,
    /// Title of the document as failure reports print it.
    pub title: String,
    /// Where a reader finds the document.
    pub citation: Citation,
    /// How many special-case bullets the cited section has, where rows cite them by number:
    /// a row's `bullet` is 1 to this.
    #[serde(default)]
    pub bullets: Option<u32>,
    /// The document is not the suite's (IEEE 754-2019 where the suite's document is silent):
    /// rows cited to it are opspec's bar (quality). Below it, the document's own rows govern
    /// their inputs, and the row's result is accepted as well.
    #[serde(default)]
    pub opspec_bar: bool,
}

/// Where a document is, without opspec's files.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Citation {
    /// The document's name (`Python array API standard`, `IEEE Std 754-2019`).
    pub document: CitedText,
    /// Its version, release or date (`2025.12`, `v1.13.4`).
    pub version: CitedText,
    /// The section, clause or anchor cited (`add, Special cases`, `clause 5.11`).
    pub section: CitedText,
    /// A public URL of that version and section, where there is one.
    #[serde(default)]
    pub url: Option<Url>,
}

/// A statement of a source that the table does not encode, listed so that the gap is visible.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotCovered {
    /// Id of the source.
    pub source: String,
    /// What is not encoded.
    pub what: String,
    /// Why.
    pub reason: String,
}

/// A citation's text: not empty, and not a path to a local file.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct CitedText(String);

impl CitedText {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for CitedText {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Err("a citation needs text here".into());
        }
        if let Some(why) = local_path(&text) {
            return Err(format!(
                "`{text}` is a local path ({why}): cite the document by name, version, section and \
                 public URL instead"
            ));
        }
        Ok(CitedText(text))
    }
}

/// A public URL: `https://` or `http://` and a host.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct Url(String);

impl Url {
    /// The URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Url {
    type Error = String;

    fn try_from(url: String) -> Result<Self, String> {
        let host = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
        // The host, without a user, a port or a path: a machine's own name is not public.
        let name = host.map(|rest| {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            let host = authority.rsplit('@').next().unwrap_or("");
            host.split(':').next().unwrap_or("").to_ascii_lowercase()
        });
        let local =
            name.as_deref().is_some_and(|n| n == "localhost" || n.starts_with("127.") || n == "0.0.0.0");
        match host {
            Some(rest)
                if !rest.is_empty()
                    && !rest.starts_with('/')
                    && !url.contains(char::is_whitespace)
                    && !local =>
            {
                Ok(Url(url))
            }
            _ => Err(format!(
                "`{url}` is not a public URL (https://host/...); leave `url` out where there is none"
            )),
        }
    }
}

/// Why `text` reads as a path to a local file, if it does.
fn local_path(text: &str) -> Option<&'static str> {
    if text.starts_with('/') || text.starts_with('~') {
        Some("it starts with / or ~")
    } else if text.starts_with("./") || text.contains("../") {
        Some("it is relative to a directory")
    } else if text.contains("shared/") {
        Some("shared/ is beside a checkout, not in it")
    } else if text.starts_with("file:") {
        Some("a file: URL")
    } else if text.starts_with("\\\\")
        || text.as_bytes().get(1..3).is_some_and(|s| s == b":\\" || s == b":/")
            && text.as_bytes()[0].is_ascii_alphabetic()
    {
        Some("it is a Windows path")
    } else if text.starts_with('$') || text.starts_with('%') {
        Some("it starts with an environment variable")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_not_citations() {
        for path in [
            "shared/seeds/003_f64cea9378dccddf.txt#add_into",
            "see shared/reference/array-api-special-cases.txt",
            "../notes/DESIGN.md",
            "/work/shared/seeds/004.txt",
            "./specs/add.yaml",
            "~/notes.txt",
            "file:///tmp/x",
            "C:\\Users\\me\\seeds\\004.txt",
            "D:/notes/seed.txt",
            "\\\\server\\share\\seed.txt",
            "$HOME/seeds/004.txt",
            "%USERPROFILE%\\seed.txt",
        ] {
            assert!(CitedText::try_from(path.to_string()).is_err(), "{path} was accepted");
        }
        for text in ["IEEE Std 754-2019", "clause 9.2.1", "add, Special cases", "2025.12", "seed 002"] {
            assert!(CitedText::try_from(text.to_string()).is_ok(), "{text} was rejected");
        }
        assert!(CitedText::try_from("  ".to_string()).is_err());
    }

    #[test]
    fn urls_are_public() {
        for url in ["https://data-apis.org/array-api/2025.12/", "http://example.org"] {
            assert!(Url::try_from(url.to_string()).is_ok(), "{url} was rejected");
        }
        for url in [
            "shared/DESIGN.md",
            "https://",
            "https:///x",
            "ftp://x",
            "file:///tmp/x",
            "https://a b",
            "http://localhost:8000/spec.html",
            "https://127.0.0.1/x",
            "https://user@LOCALHOST/x",
        ] {
            assert!(Url::try_from(url.to_string()).is_err(), "{url} was accepted");
        }
    }
}
