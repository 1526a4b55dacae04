//! Where a field is in a YAML text, for errors that validation finds after parsing: a field
//! path as the errors write it (`rows[3].when.x1`, `specs[2]`, `name`) is looked up in a tree
//! of the document's nodes with their locations.

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, Spanned};

/// A YAML node, keeping the location of every map key and sequence item below it.
enum Node {
    Leaf,
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(Spanned<String>, Spanned<Node>)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NodeVisitor;

        impl<'de> Visitor<'de> for NodeVisitor {
            type Value = Node;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any YAML node")
            }

            fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Leaf)
            }

            fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }

            fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }

            fn visit_i128<E>(self, _: i128) -> Result<Node, E> {
                Ok(Node::Leaf)
            }

            fn visit_u128<E>(self, _: u128) -> Result<Node, E> {
                Ok(Node::Leaf)
            }

            fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }

            fn visit_str<E>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Leaf)
            }

            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Leaf)
            }

            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Leaf)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Node::Seq(items))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                // A key that is not a string (a number, a list) cannot be named by a field
                // path; its value is skipped.
                while let Some(key) = map.next_key::<Spanned<KeyText>>()? {
                    match key.value.0 {
                        Some(text) => {
                            let key = Spanned::new(text, key.referenced, key.defined);
                            entries.push((key, map.next_value()?));
                        }
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Node::Map(entries))
            }
        }

        d.deserialize_any(NodeVisitor)
    }
}

/// A map key: its text if it is a scalar.
struct KeyText(Option<String>);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;

        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = KeyText;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map key")
            }

            fn visit_str<E>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }

            fn visit_bool<E>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }

            fn visit_i64<E>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }

            fn visit_u64<E>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }

            fn visit_f64<E>(self, v: f64) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }

            fn visit_unit<E>(self) -> Result<KeyText, E> {
                Ok(KeyText(None))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<KeyText, A::Error> {
                IgnoredAny.visit_seq(seq).map(|_| KeyText(None))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<KeyText, A::Error> {
                IgnoredAny.visit_map(map).map(|_| KeyText(None))
            }
        }

        d.deserialize_any(KeyVisitor)
    }
}

/// One step of a field path: a map key or a sequence index.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The steps of `rows[3].when.x1`; `None` if it is not such a path.
fn steps(field: &str) -> Option<Vec<Step<'_>>> {
    let mut steps = Vec::new();
    for part in field.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            steps.push(Step::Key(key));
        }
        while !rest.is_empty() {
            let (index, after) = rest.split_once(']')?;
            steps.push(Step::Index(index.parse().ok()?));
            rest = after.strip_prefix('[').unwrap_or(after);
            if !after.is_empty() && !after.starts_with('[') {
                return None;
            }
        }
    }
    Some(steps)
}

/// The 1-based line and column of `field` in the YAML `text`: of its key for a map entry, of
/// the item for a sequence index. Where the path goes further than the document, the deepest
/// node it reaches; `None` if the text does not parse or the path names nothing at all.
pub fn locate(text: &str, field: &str) -> Option<(u64, u64)> {
    let mut options = serde_saphyr::Options::default();
    // `.nan` and `.inf` are leaves like any other scalar.
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::AsString;
    let root: Spanned<Node> = serde_saphyr::from_str_with_options(text, options).ok()?;
    let mut node = &root;
    let mut found: Option<&Location> = None;
    for step in steps(field)? {
        let next = match (&node.value, step) {
            (Node::Map(entries), Step::Key(key)) => {
                entries.iter().find(|(k, _)| k.value == key).map(|(k, v)| (&k.referenced, v))
            }
            (Node::Seq(items), Step::Index(i)) => items.get(i).map(|v| (&v.referenced, v)),
            _ => None,
        };
        let Some((at, child)) = next else { break };
        found = Some(at);
        node = child;
    }
    found.map(|l| (l.line(), l.column()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str =
        "op: add\nrows:\n  - id: a\n    when: {x1: nan}\n  - id: b\n    when:\n      x2: zero\n";

    #[test]
    fn fields_are_found() {
        assert_eq!(locate(TEXT, "op"), Some((1, 1)));
        assert_eq!(locate(TEXT, "rows[1]"), Some((5, 5)));
        assert_eq!(locate(TEXT, "rows[1].when.x2"), Some((7, 7)));
        assert_eq!(locate(TEXT, "rows[0].when.x1"), Some((4, 12)));
        assert_eq!(locate(TEXT, "rows[0].when"), Some((4, 5)));
        // Past the document: the deepest node the path reaches.
        assert_eq!(locate(TEXT, "rows[1].when.x3"), Some((6, 5)));
        assert_eq!(locate(TEXT, "rows[7]"), Some((2, 1)));
        assert_eq!(locate(TEXT, "nothing"), None);
        assert_eq!(locate("op: [", "op"), None);
    }
}
