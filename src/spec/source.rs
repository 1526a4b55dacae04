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
        let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
        let refused = |why: &str| {
            format!(
                "`{url}` is not a public URL (https://host/...{why}); leave `url` out where there is none"
            )
        };
        let Some(rest) = rest.filter(|r| !r.is_empty() && !r.starts_with('/')) else {
            return Err(refused(""));
        };
        if url.contains(char::is_whitespace) {
            return Err(refused(""));
        }
        // The host, without a user, a port or a path.
        let authority = rest.split(['/', '?', '#', '\\']).next().unwrap_or("");
        let host = authority.rsplit('@').next().unwrap_or("");
        let host = match host.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(""),
            None => host.split(':').next().unwrap_or(""),
        };
        match private_host(&host.to_ascii_lowercase()) {
            Some(why) => Err(refused(&format!(": {why}"))),
            None => Ok(Url(url)),
        }
    }
}

/// Why a URL's `host` (lower case; an IPv6 address without its brackets) is not public, if it
/// is not: a machine's own name, or an address of a private, loopback, link-local or
/// unspecified range, in any of the forms a browser reads (`2130706433`, `0x7f.1`, `[::1]`).
fn private_host(host: &str) -> Option<String> {
    use std::net::{IpAddr, Ipv6Addr};
    // `localhost.` is `localhost`: a trailing dot only makes a name absolute.
    let name = host.trim_end_matches('.');
    if name.is_empty() {
        return Some("no host".into());
    }
    if name == "localhost" || name.ends_with(".localhost") {
        return Some(format!("`{host}` is this machine"));
    }
    let ip = match (name.parse::<Ipv6Addr>(), ipv4(name)) {
        (Ok(v6), _) => IpAddr::V6(v6).to_canonical(),
        (_, Some(Ok(v4))) => IpAddr::V4(v4),
        (_, Some(Err(()))) => return Some(format!("`{host}` is neither a name nor an IPv4 address")),
        // Only a bracketed host has a `:`.
        (Err(_), None) if name.contains(':') => return Some(format!("`[{host}]` is not an IPv6 address")),
        (Err(_), None) => return None,
    };
    let private = match ip {
        IpAddr::V4(v4) => {
            v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.octets()[0] == 0
        }
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.is_unspecified() || v6.is_unique_local() || v6.is_unicast_link_local()
        }
    };
    private.then(|| format!("{ip} is a private, loopback, link-local or unspecified address"))
}

/// A host read as an IPv4 address the way browsers read it (the WHATWG URL standard): `None`
/// where its last label is not a number (a name), else the address, or `Err` where the numbers
/// do not make one. One to four numbers, each decimal, `0x` hex or `0` octal, the last filling
/// the remaining bytes: `2130706433`, `0x7f000001`, `0177.0.0.1` and `127.1` are 127.0.0.1.
fn ipv4(host: &str) -> Option<Result<std::net::Ipv4Addr, ()>> {
    fn number(part: &str) -> Option<u64> {
        let (digits, radix) = match part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            Some("") => return Some(0),
            Some(hex) => (hex, 16),
            None if part.len() > 1 && part.starts_with('0') => (&part[1..], 8),
            None => (part, 10),
        };
        // At most 32 bits and a little: longer text is no address either way.
        if digits.is_empty() || digits.len() > 12 {
            return None;
        }
        u64::from_str_radix(digits, radix).ok()
    }
    let parts: Vec<&str> = host.split('.').collect();
    let last = parts.last()?;
    if !last.bytes().all(|b| b.is_ascii_digit()) && number(last).is_none() {
        return None;
    }
    let numbers: Option<Vec<u64>> = parts.iter().map(|p| number(p)).collect();
    let Some(numbers) = numbers.filter(|n| n.len() <= 4) else { return Some(Err(())) };
    let (last, first) = numbers.split_last()?;
    if first.iter().any(|&n| n > 255) || *last >= 1 << (8 * (5 - numbers.len())) {
        return Some(Err(()));
    }
    let value = first.iter().enumerate().fold(*last, |v, (i, &n)| v | n << (8 * (3 - i)));
    Some(u32::try_from(value).map(std::net::Ipv4Addr::from).map_err(|_| ()))
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
    } else if text.starts_with('\\') || text.starts_with(".\\") || text.contains("..\\") {
        Some("it is a Windows path")
    } else if windows_drive(text) {
        Some("it is a Windows path on a drive")
    } else if text.starts_with('$') || text.starts_with('%') {
        Some("it starts with an environment variable")
    } else {
        None
    }
}

/// Whether `text` starts with a Windows drive (`C:\\`, `D:/`, or `C:notes.txt`, relative to
/// that drive's current folder): a letter, a colon and no space.
fn windows_drive(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && !b[2].is_ascii_whitespace()
}

/// Deserializes a quote of a document (a row's `text`): the document's words. A text made
/// only of elisions (`[...]`, `[…]`, `...`, `…`) and blanks quotes nothing.
pub fn quoted<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    let mut words = text.clone();
    for elision in ["[...]", "[…]", "...", "…"] {
        words = words.replace(elision, "");
    }
    if words.trim().is_empty() {
        let m = format!(
            "`{text}` quotes no words of the document: quote the sentence (`[...]` marks words left out)"
        );
        return Err(serde::de::Error::custom(m));
    }
    Ok(text)
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
            "C:seeds\\004.txt",
            "\\seeds\\004.txt",
            "..\\notes\\DESIGN.md",
            ".\\specs\\add.yaml",
        ] {
            assert!(CitedText::try_from(path.to_string()).is_err(), "{path} was accepted");
        }
        for text in [
            "IEEE Std 754-2019",
            "clause 9.2.1",
            "add, Special cases",
            "2025.12",
            "seed 002",
            "C: the C standard",
        ] {
            assert!(CitedText::try_from(text.to_string()).is_ok(), "{text} was rejected");
        }
        assert!(CitedText::try_from("  ".to_string()).is_err());
    }

    #[test]
    fn a_quote_has_words() {
        let quote =
            |text: &str| quoted(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(text));
        for elided in ["[...]", " [...] ", "[…]", "[...] [...]", "...", "…", ""] {
            let e = quote(elided).unwrap_err().to_string();
            assert!(e.contains("quotes no words of the document"), "{elided:?}: {e}");
        }
        assert_eq!(
            quote("If x1_i is NaN, [...] the result is NaN.").unwrap(),
            "If x1_i is NaN, [...] the result is NaN."
        );
    }

    #[test]
    fn urls_are_public() {
        for url in [
            "https://data-apis.org/array-api/2025.12/",
            "http://example.org",
            "https://example.org./x",
            "http://172.32.0.1/x",
            "http://8.8.8.8/x",
            "https://[2606:4700::1111]/x",
            "https://0xdeadbeef.example/x",
        ] {
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
            "http://localhost./x",
            "http://a.localhost/x",
            "http://[::1]/",
            "http://[0:0:0:0:0:0:0:1]:8080/x",
            "http://[::ffff:127.0.0.1]/x",
            "http://[fe80::1]/x",
            "http://[fd00::1]/x",
            "http://[::]/x",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0177.0.0.1/",
            "http://127.1/",
            "http://10.1.2.3/x",
            "http://172.16.0.1/x",
            "http://172.31.255.255/x",
            "http://192.168.1.1/x",
            "http://169.254.169.254/latest",
            "http://0/x",
            "http://256.1.1.1/x",
            "http://[fe80::1%25eth0]/x",
        ] {
            assert!(Url::try_from(url.to_string()).is_err(), "{url} was accepted");
        }
    }
}
