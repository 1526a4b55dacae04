//! Grading a result that missed the strict expectation: the most authoritative bar it misses
//! (must, should, or opspec's own: [`Tier`]), and the sentence that sets that bar. The
//! document's latitudes are applied below opspec's bar: where a suite grants the subnormal
//! latitude, a result as if subnormal inputs were zeros or subnormal results flushed meets the
//! must and should tiers.

use crate::bits::value::Domain;
use crate::judge::context::{Context, approximation_steps};
use crate::judge::expect::Expect;
use crate::spec::authority::Tier;
use crate::spec::matching::governing_rows;
use crate::spec::profile::{Profile, Relaxation};
use crate::spec::schema::{Accuracy, Outcome, Row};
use crate::spec::suite::NanPolicy;

/// The bar a result misses, and on whose authority.
#[derive(Clone, Debug, PartialEq)]
pub struct Grade {
    pub tier: Tier,
    /// The authority in words: the sentence quoted and cited, or opspec's bar named.
    pub basis: String,
}

impl Grade {
    /// A failure of what the check's own citation states (a must of its row, its rule or its
    /// case).
    pub fn cited() -> Grade {
        Grade { tier: Tier::Must, basis: String::new() }
    }

    /// A failure of a bar opspec sets itself, described by `basis`.
    pub fn opspec(basis: String) -> Grade {
        Grade { tier: Tier::Quality, basis }
    }

    /// A refused destination-passing call (`add_into`) that changed its destination: the
    /// refusal is what numr's seed asks; that `out` stays as it was is opspec's bar.
    pub fn changed_on_refusal() -> Grade {
        Grade::opspec(
            "opspec's bar: a refused call leaves out unchanged; numr's add_into says only \"Returns an error if dtypes mismatch, if out is not contiguous, or if broadcast(a, b) does not equal out’s shape.\"".into(),
        )
    }
}

impl Context<'_> {
    /// Grades `actual`, the result for `inputs` that [`Context::expectation`] rejected.
    pub fn grade(&self, inputs: &[u64], actual: u64, nan: NanPolicy) -> Result<Grade, String> {
        let rows = governing_rows(self.table, self.format, inputs);
        Ok(match self.tier_under(&rows, inputs, actual, nan)? {
            Tier::Must => Grade { tier: Tier::Must, basis: self.must_basis(&rows, inputs, actual, nan)? },
            Tier::Should if let Some(basis) = self.preference(&rows) => Grade { tier: Tier::Should, basis },
            Tier::Should => {
                let authority = self.authority;
                let quote = if self.table.accuracy == Accuracy::Approximate {
                    authority.and_then(|a| a.approximations.as_ref()).and_then(|a| a.should.as_ref())
                } else {
                    authority.and_then(|a| a.rounding.as_ref()).and_then(|r| r.should.as_ref())
                };
                let basis = quote.map_or_else(String::new, |q| self.quoted("should", &q.0));
                Grade { tier: Tier::Should, basis }
            }
            Tier::Quality => {
                let granted = self.authority.and_then(|a| a.subnormals.as_ref()).is_some();
                let strict = self.expectation_at_under(Tier::Quality, &rows, inputs)?;
                Grade::opspec(
                    if granted && self.within_latitude(Tier::Quality, inputs, &strict, actual, nan) {
                        let quote = self.authority.and_then(|a| a.subnormals.as_ref()).map_or("", |q| &q.0);
                        format!(
                            "opspec's bar: IEEE 754-2019's subnormal numbers, which the document lets vary: \"{quote}\"{}",
                            self.cited()
                        )
                    } else {
                        self.quality_basis(&rows)
                    },
                )
            }
        })
    }

    /// The tier of [`Context::grade`] alone (without the sentence, which a sweep does not
    /// keep), for inputs whose governing rows are `rows`.
    pub fn tier_under(
        &self,
        rows: &[usize],
        inputs: &[u64],
        actual: u64,
        nan: NanPolicy,
    ) -> Result<Tier, String> {
        let granted = self.authority.and_then(|a| a.subnormals.as_ref()).is_some();
        let meets = |tier: Tier| -> Result<bool, String> {
            let expect = self.expectation_at_under(tier, rows, inputs)?;
            Ok(expect.accepts(self.output, actual, nan)
                || (granted
                    && tier != Tier::Quality
                    && self.within_latitude(tier, inputs, &expect, actual, nan)))
        };
        Ok(if !meets(Tier::Must)? {
            Tier::Must
        } else if !meets(Tier::Should)? {
            Tier::Should
        } else {
            Tier::Quality
        })
    }

    /// Whether `actual` is what `expect` allows with subnormal inputs read as zeros or a
    /// subnormal result flushed to zero (the latitude), judging flushed inputs at `tier`.
    fn within_latitude(
        &self,
        tier: Tier,
        inputs: &[u64],
        expect: &Expect,
        actual: u64,
        nan: NanPolicy,
    ) -> bool {
        let latitude = Profile::new(vec![Relaxation::Daz, Relaxation::Ftz]);
        let full = |case: &[u64]| self.expectation_at(tier, case).ok();
        latitude.accepts((Domain::Float(self.format), self.output, nan), inputs, expect, actual, &full)
    }

    /// The preference a should failure misses where the table states one: a governing row that
    /// prefers one result to others, or a reading of the table the document prefers.
    fn preference(&self, rows: &[usize]) -> Option<String> {
        let table = self.table;
        if let Some(row) =
            rows.iter().map(|&r| &table.rows[r]).find(|r| matches!(r.result, Outcome::Prefer(_)))
        {
            return Some(format!(
                "should: the result the bullet states, which \"{}\" prefers to the one its note allows ({})",
                row.text,
                self.row_cited(row)
            ));
        }
        let reading = table.readings.iter().find(|r| r.meets == Tier::Should)?;
        let source = table.source(&reading.source).map_or(reading.source.as_str(), |s| s.title.as_str());
        Some(format!("should: \"{}\" ({source}; {})", reading.text, self.path.display()))
    }

    /// Where a row is: its source, bullet, file and line.
    fn row_cited(&self, row: &Row) -> String {
        let source = self.table.source(&row.source).map_or(row.source.as_str(), |s| s.title.as_str());
        format!("{source}, bullet {}; {}:{}", row.bullet, self.path.display(), row.id.referenced.line())
    }

    /// The must `actual` breaks: the first governing row that rejects it, or the clause that
    /// governs the remaining cases.
    fn must_basis(
        &self,
        rows: &[usize],
        inputs: &[u64],
        actual: u64,
        nan: NanPolicy,
    ) -> Result<String, String> {
        for &r in rows {
            let row = &self.table.rows[r];
            let expect = self.row_expectation(r, inputs)?;
            if !expect.accepts(self.output, actual, nan) || rows.len() == 1 {
                let reading = match row.result {
                    Outcome::Approx(_) => format!(
                        "; opspec reads \"an approximation to\" as within {} representable steps",
                        approximation_steps(self.format)
                    ),
                    Outcome::CorrectlyRounded if !self.table.readings.is_empty() => {
                        "; nor any reading the document prefers or allows".to_string()
                    }
                    _ => String::new(),
                };
                return Ok(format!("must: \"{}\" ({}){reading}", row.text, self.row_cited(row)));
            }
        }
        if let Some(rounding) = self.authority.and_then(|a| a.rounding.as_ref()).filter(|_| self.rounds()) {
            let quoted = self.quoted("must", &rounding.must.0);
            return Ok(match (&self.table.rounds_as, &self.table.defined_as) {
                (Some(op), Some(definition)) => format!(
                    "{quoted}; opspec grades {}'s value on {op}'s terms, as its page reads: \"{}\" ({})",
                    self.op,
                    definition.text,
                    self.path.display()
                ),
                _ => quoted,
            });
        }
        let source = self.table.sources.first().map_or("its document", |s| s.title.as_str());
        Ok(format!("must: the value of {} that {source} defines ({})", self.op, self.path.display()))
    }

    /// Which of opspec's bars a result that meets the document's musts and shoulds misses,
    /// where `rows` govern its input.
    fn quality_basis(&self, rows: &[usize]) -> String {
        let steps = self.step_bound.unwrap_or(0);
        if let Some(row) = rows.iter().map(|&r| &self.table.rows[r]).find(|r| self.is_opspec_bar(r)) {
            if !self.table.is_opspec_bar(row) {
                return format!(
                    "opspec's bar: \"{}\" ({}), which the {} suite borrows: its own document does not state it (suites/{}.yaml authority.own_sources)",
                    row.text,
                    self.row_cited(row),
                    self.suite,
                    self.suite
                );
            }
            let document = self
                .table
                .sources
                .iter()
                .find(|s| !s.opspec_bar)
                .map_or("its document", |s| s.title.as_str());
            return format!(
                "opspec's bar: \"{}\" ({}), which {document} does not state",
                row.text,
                self.row_cited(row)
            );
        }
        if let Some(row) =
            rows.iter().map(|&r| &self.table.rows[r]).find(|r| matches!(r.result, Outcome::Approx(_)))
        {
            return format!(
                "opspec's bar: within {steps} representable steps of the constant (suites/{}.yaml step_bounds); the row says only \"{}\"",
                self.suite, row.text
            );
        }
        match self.table.accuracy {
            Accuracy::Approximate => {
                let says = self.authority.and_then(|a| a.approximations.as_ref()).map_or("", |a| &a.says);
                format!(
                    "opspec's bar: within {steps} representable steps of the correctly rounded value (suites/{}.yaml step_bounds); the document sets no accuracy for {}: \"{says}\"{}",
                    self.suite,
                    self.op,
                    self.cited()
                )
            }
            Accuracy::Exact => format!(
                "opspec's reading: IEEE 754-2019's sign of a zero result, which {}'s document states only in its rows",
                self.op
            ),
            Accuracy::CorrectlyRounded if !self.table.readings.is_empty() => format!(
                "opspec's reading: the oracle's value, {}, where the document also prefers or allows other readings ({})",
                self.table.opspec_reading.as_deref().unwrap_or("the table's"),
                self.path.display()
            ),
            Accuracy::CorrectlyRounded if self.rounds() => {
                "opspec's bar: ties to even (roundTiesToEven), where the document names no tie rule"
                    .to_string()
            }
            Accuracy::CorrectlyRounded => "opspec's bar: the correctly rounded value".to_string(),
        }
    }

    fn rounds(&self) -> bool {
        self.authority.is_some_and(|a| a.rounds(self.rounding_op()))
    }

    fn cited(&self) -> String {
        self.authority.map_or_else(String::new, |a| a.cited())
    }

    fn quoted(&self, tier: &str, quote: &str) -> String {
        format!("{tier}: \"{quote}\"{}", self.cited())
    }
}
