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

    /// The ids the pattern matches, when it has no `*` and they are at most `limit`: each
    /// choice of its alternatives (`a{b,c}` names `ab` and `ac`). Looking them up is quicker
    /// than matching every id of a plan.
    pub fn expansions(&self, limit: usize) -> Option<Vec<String>> {
        if self.text.contains('*') {
            return None;
        }
        let mut ids = vec![String::new()];
        let mut rest = self.text.as_str();
        while !rest.is_empty() {
            let (choices, after): (Vec<&str>, &str) = match rest.strip_prefix('{') {
                Some(group) => {
                    let (inside, after) = group.split_once('}')?;
                    (inside.split(',').collect(), after)
                }
                None => {
                    let end = rest.find('{').unwrap_or(rest.len());
                    (vec![&rest[..end]], &rest[end..])
                }
            };
            if ids.len().checked_mul(choices.len())? > limit {
                return None;
            }
            ids = ids.iter().flat_map(|id| choices.iter().map(move |c| format!("{id}{c}"))).collect();
            rest = after;
        }
        Some(ids)
    }

    /// Whether the whole of `id` matches.
    pub fn matches(&self, id: &str) -> bool {
        self.matches_in(id, &mut Scratch::default())
    }

    /// Whether the whole of `id` matches, in `scratch`'s memory (reused across calls, it spares
    /// the allocations of matching many ids).
    pub fn matches_in(&self, id: &str, scratch: &mut Scratch) -> bool {
        let Scratch { current, next, pending, entered, generation, visits } = scratch;
        let end = self.states.len();
        // A state is in the set being built when its `entered` mark is that set's generation;
        // generations only grow, so marks from earlier ids or patterns never count.
        entered.resize(end + 1, 0);
        *generation += 1;
        current.clear();
        self.enter(0, *generation, entered, current, pending, visits);
        for &b in id.as_bytes() {
            *generation += 1;
            next.clear();
            for &i in current.iter() {
                *visits += 1;
                match self.states.get(i) {
                    Some(State::Byte(c)) if *c == b => {
                        self.enter(i + 1, *generation, entered, next, pending, visits)
                    }
                    Some(State::Star) => self.enter(i, *generation, entered, next, pending, visits),
                    _ => {}
                }
            }
            std::mem::swap(current, next);
            if current.is_empty() {
                return false;
            }
        }
        entered[end] == *generation
    }

    /// Adds state `i` to the set of `generation` (`into`, marked in `entered`), with every
    /// state reachable from it without reading; only the states that read, and the end, are
    /// listed in `into`.
    fn enter(
        &self,
        i: usize,
        generation: u64,
        entered: &mut [u64],
        into: &mut Vec<usize>,
        pending: &mut Vec<usize>,
        visits: &mut u64,
    ) {
        pending.push(i);
        while let Some(i) = pending.pop() {
            *visits += 1;
            if entered[i] == generation {
                continue;
            }
            entered[i] = generation;
            match self.states.get(i) {
                Some(State::Star) => {
                    into.push(i);
                    pending.push(i + 1);
                }
                Some(State::Split(starts)) => pending.extend(starts),
                Some(State::Jump(to)) => pending.push(*to),
                Some(State::Byte(_)) | None => into.push(i),
            }
        }
    }
}

/// The memory matching works in: the states active before and after reading a byte, and the
/// states still to enter. One `Scratch` serves any number of ids and patterns.
#[derive(Debug, Default)]
pub struct Scratch {
    current: Vec<usize>,
    next: Vec<usize>,
    pending: Vec<usize>,
    /// Per state, the generation of the last set that entered it.
    entered: Vec<u64>,
    /// One per set built: each id's start, and each byte read.
    generation: u64,
    /// States visited so far, entered or read from.
    visits: u64,
}

impl Scratch {
    /// The states matching visited in this scratch so far, entered or read from: the work
    /// done, at most proportional to the pattern's length times the id's for each id.
    pub fn visits(&self) -> u64 {
        self.visits
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

    /// The work of matching `id`, counted in states visited.
    fn visits(pattern: &Pattern, id: &str) -> (bool, u64) {
        let mut scratch = Scratch::default();
        let matched = pattern.matches_in(id, &mut scratch);
        (matched, scratch.visits())
    }

    #[test]
    fn many_stars_match_in_linear_time() {
        // Backtracking would try the 40 stars' splits of the id: exponentially many.
        let text = "*a".repeat(40);
        let pattern = Pattern::new(&text).unwrap();
        let bound = |id: &str| 4 * (text.len() as u64 + 1) * (id.len() as u64 + 1);
        let failing = |tail: usize| "a".repeat(39) + &"b".repeat(tail);
        let (matched, short) = visits(&pattern, &failing(10_000));
        assert!(!matched && short <= bound(&failing(10_000)), "{short} visits");
        // Twice the id, twice the work.
        let (_, long) = visits(&pattern, &failing(20_000));
        let ratio = long as f64 / short as f64;
        assert!((1.9..2.1).contains(&ratio), "{short} then {long} visits");
        let (matched, work) = visits(&pattern, &"a".repeat(100));
        assert!(matched && work <= bound(&"a".repeat(100)), "{work} visits");
    }

    #[test]
    fn one_scratch_serves_many_ids_and_patterns() {
        let mut scratch = Scratch::default();
        let long = Pattern::new("{numr,array-api}:*:pow:{f32,f64}:*").unwrap();
        let short = Pattern::new("a*").unwrap();
        for _ in 0..3 {
            assert!(long.matches_in("numr:cpu:pow:f64:edges", &mut scratch));
            assert!(!short.matches_in("numr", &mut scratch) && short.matches_in("ab", &mut scratch));
            assert!(!long.matches_in("numr:cpu:pow:f16:edges", &mut scratch));
        }
    }

    #[test]
    fn a_pattern_without_stars_expands_to_the_ids_it_matches() {
        let expand = |p: &str, limit| Pattern::new(p).unwrap().expansions(limit);
        let ids = expand("{numr,array-api}:cpu:pow:{f32,f64}:edges", 4).unwrap();
        assert_eq!(
            ids,
            [
                "numr:cpu:pow:f32:edges",
                "numr:cpu:pow:f64:edges",
                "array-api:cpu:pow:f32:edges",
                "array-api:cpu:pow:f64:edges"
            ]
        );
        assert!(ids.iter().all(|id| matches("{numr,array-api}:cpu:pow:{f32,f64}:edges", id)));
        assert_eq!(expand("a:b,c", 1).unwrap(), ["a:b,c"]);
        assert_eq!(expand("a{b,}c", 2).unwrap(), ["abc", "ac"]);
        assert_eq!(expand("{numr,array-api}:cpu:pow:{f32,f64}:edges", 3), None);
        assert_eq!(expand("{a,b}:*", 100), None);
        assert_eq!(expand(&"{a,b}".repeat(200), 1 << 20), None);
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
