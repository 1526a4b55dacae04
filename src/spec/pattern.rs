//! Patterns of check ids, as expectations files and `--filter` write them: `*` stands for any
//! run of characters, `{a,b}` for either alternative (which may hold `*` but no braces), and
//! every other character for itself. A pattern compiles to a small automaton that reads an id
//! once, so matching takes time linear in the id's length (times the pattern's), whatever the
//! number of `*` (no backtracking).

use std::fmt;

/// A compiled pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    /// The automaton's states; matching starts at state 0 and ends at `states.len()`.
    states: Vec<State>,
}

/// One state of the automaton.
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// Reads this byte and moves to the next state.
    Byte(u8),
    /// Reads any byte and stays, or moves on without reading.
    Star,
    /// Moves, without reading, to any of these states (the starts of the alternatives).
    Split(Vec<usize>),
    /// Moves, without reading, to this state (the end of an alternative).
    Jump(usize),
}

/// Most characters of a pattern.
pub const MAX_PATTERN_LEN: usize = 1024;

impl Pattern {
    /// Compiles `text`; an empty pattern, an unbalanced or nested brace, empty braces or a
    /// pattern longer than [`MAX_PATTERN_LEN`] is an error saying which.
    pub fn new(text: &str) -> Result<Pattern, String> {
        if text.is_empty() {
            return Err("an empty pattern matches no check id".into());
        }
        if text.len() > MAX_PATTERN_LEN {
            return Err(format!("the pattern is {} characters long: at most {MAX_PATTERN_LEN}", text.len()));
        }
        let mut states = Vec::new();
        // While inside braces: the Split state's index and the Jump states that end each
        // alternative so far.
        let mut group: Option<(usize, Vec<usize>)> = None;
        for (at, c) in text.char_indices() {
            let column = at + 1;
            match (c, &mut group) {
                ('{', Some(_)) => {
                    return Err(format!("nested `{{` at character {column}: braces do not nest"));
                }
                ('{', None) => {
                    states.push(State::Split(vec![states.len() + 1]));
                    group = Some((states.len() - 1, Vec::new()));
                }
                (',', Some((split, ends))) => {
                    ends.push(states.len());
                    states.push(State::Jump(0));
                    let start = states.len();
                    if let State::Split(starts) = &mut states[*split] {
                        starts.push(start);
                    }
                }
                ('}', Some((split, ends))) => {
                    if states.len() == *split + 1 && ends.is_empty() {
                        return Err(format!("empty braces `{{}}` at character {column}: give alternatives"));
                    }
                    let end = states.len();
                    for &j in ends.iter() {
                        states[j] = State::Jump(end);
                    }
                    group = None;
                }
                ('}', None) => return Err(format!("`}}` at character {column} closes no `{{`")),
                ('*', _) => states.push(State::Star),
                (c, _) => {
                    let mut bytes = [0; 4];
                    states.extend(c.encode_utf8(&mut bytes).bytes().map(State::Byte));
                }
            }
        }
        if group.is_some() {
            return Err("a `{` is not closed by `}`".into());
        }
        Ok(Pattern { text: text.to_string(), states })
    }

    /// Whether the whole of `id` matches.
    pub fn matches(&self, id: &str) -> bool {
        let n = self.states.len();
        let mut current = vec![false; n + 1];
        let mut next = vec![false; n + 1];
        self.enter(0, &mut current);
        for &b in id.as_bytes() {
            next.iter_mut().for_each(|s| *s = false);
            for (i, state) in self.states.iter().enumerate() {
                if !current[i] {
                    continue;
                }
                match state {
                    State::Byte(c) if *c == b => self.enter(i + 1, &mut next),
                    State::Star => self.enter(i, &mut next),
                    _ => {}
                }
            }
            std::mem::swap(&mut current, &mut next);
            if !current.iter().any(|&s| s) {
                return false;
            }
        }
        current[n]
    }

    /// Marks state `i` active, with every state reachable from it without reading.
    fn enter(&self, i: usize, active: &mut [bool]) {
        let mut pending = vec![i];
        while let Some(i) = pending.pop() {
            if active[i] {
                continue;
            }
            active[i] = true;
            match self.states.get(i) {
                Some(State::Star) => pending.push(i + 1),
                Some(State::Split(starts)) => pending.extend(starts),
                Some(State::Jump(to)) => pending.push(*to),
                _ => {}
            }
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, id: &str) -> bool {
        Pattern::new(pattern).unwrap().matches(id)
    }

    #[test]
    fn patterns() {
        assert!(matches("numr:numr:pow:f32:random", "numr:numr:pow:f32:random"));
        assert!(!matches("numr:numr:pow:f32:random", "numr:numr:pow:f64:random"));
        assert!(!matches("numr:numr:pow:f32:random", "numr:numr:pow:f32:randomx"));
        assert!(matches("{numr,array-api}:numr:pow:{f32,f64}:*", "array-api:numr:pow:f64:edges"));
        assert!(!matches("{numr,array-api}:numr:pow:{f32,f64}:*", "array-api:numr:pow:f16:edges"));
        assert!(matches("*:numr:add:*+*:*", "array-api:numr:add:i8+u8:promote"));
        assert!(!matches("*:numr:add:*+*:*", "array-api:numr:add:i8:edges"));
        assert!(matches("a{b,}c", "ac") && matches("a{b,}c", "abc") && !matches("a{b,}c", "abbc"));
        assert!(matches("{*:cpu,x}:add", "s:cpu:add") && matches("{*:cpu,x}:add", "x:add"));
        assert!(matches("*", "") && matches("**", "anything"));
    }

    #[test]
    fn many_stars_match_in_linear_time() {
        let pattern = Pattern::new(&"*a".repeat(40)).unwrap();
        let id = "a".repeat(39) + &"b".repeat(10_000);
        let started = std::time::Instant::now();
        assert!(!pattern.matches(&id));
        assert!(pattern.matches(&"a".repeat(100)));
        assert!(started.elapsed().as_secs() < 2);
    }

    #[test]
    fn malformed_patterns_say_what_is_wrong() {
        let error = |p: &str| Pattern::new(p).unwrap_err();
        assert!(error("").contains("empty pattern"));
        assert!(error("a:{b,c").contains("not closed"));
        assert!(error("a:b}").contains("closes no `{`"));
        assert!(error("{a,{b}}").contains("nested"));
        assert!(error("a{}").contains("empty braces"));
        assert!(error(&"a".repeat(2000)).contains("at most 1024"));
    }
}
