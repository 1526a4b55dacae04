//! The serde types of a spec table (`specs/**/*.yaml`).
//!
//! A table encodes one operation's contract: its special-case rows (each a condition on the
//! operands and the result the source document requires), its default accuracy, and the
//! documents it was written from, and the operation's shape rules (a fused operation's
//! `no_broadcast:`, a destination-passing operation's `into_rules:`). The vocabulary is closed:
//! an unknown field, class or result is a load error that names the file, line and column.

use opspec_adapter::ErrorKind;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::source::{NotCovered, Source};

/// One operation's table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecTable {
    /// Operation name, as the adapter API spells it (`add`, `multiply`).
    pub op: String,
    /// Operand names, in call order (`[x1, x2]`).
    pub operands: Vec<Operand>,
    /// Accuracy required outside the special-case rows.
    pub accuracy: Accuracy,
    /// The result's dtype: the operands' (`same`, the default) or `bool` (comparisons).
    #[serde(default)]
    pub output: Output,
    /// dtypes the table applies to.
    pub dtypes: Vec<String>,
    /// The documents the rows cite, by short id.
    pub sources: Vec<Source>,
    /// A definition in terms of another operation, quoted from the source (subtract's note).
    #[serde(default)]
    pub defined_as: Option<Definition>,
    /// Bullets of the sources this table does not encode yet (e.g. complex operands).
    #[serde(default)]
    pub not_covered: Vec<NotCovered>,
    /// The special-case rows.
    pub rows: Vec<Row>,
    /// Properties of the results as a whole (hypot's symmetry).
    #[serde(default)]
    pub properties: Vec<PropertyRow>,
    /// A fused (ternary) operation's shape rule: operand shapes it must refuse. Checked as
    /// `<suite>:<adapter>:<op>:<dtype>:no-broadcast`.
    #[serde(default)]
    pub no_broadcast: Vec<NoBroadcastRow>,
    /// A destination-passing operation's (`add_into`'s) rules about `out`. Checked as
    /// `<suite>:<adapter>:<op>:<dtype>:into-rules`.
    #[serde(default)]
    pub into_rules: Option<IntoRules>,
    /// Other readings of the `correctly_rounded` rows that the document prefers or allows,
    /// each with the tiers it meets.
    #[serde(default)]
    pub readings: Vec<super::authority::Reading>,
    /// opspec's own reading of the `correctly_rounded` rows, which the oracle computes, in
    /// words; required with `readings`.
    #[serde(default)]
    pub opspec_reading: Option<String>,
    /// The operation on whose rounding terms the value is graded, where the page defines this
    /// one by it (square: "as if the operation is implemented as x * x"): the suite's
    /// `authority.rounding` for that operation applies. Needs `defined_as`, the words.
    #[serde(default)]
    pub rounds_as: Option<String>,
}

impl SpecTable {
    /// Whether `row` is cited to a source that is opspec's bar ([`Source::opspec_bar`]).
    pub fn is_opspec_bar(&self, row: &Row) -> bool {
        self.source(&row.source).is_some_and(|s| s.opspec_bar)
    }

    /// The source with id `id`.
    pub fn source(&self, id: &str) -> Option<&Source> {
        self.sources.iter().find(|s| s.id == id)
    }
}

/// Operand positions. A one-operand table names its operand `x` (the standard's `x_i`),
/// which is `x1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operand {
    #[serde(alias = "x")]
    X1,
    X2,
    X3,
}

impl Operand {
    /// Position in the argument list.
    pub fn index(self) -> usize {
        match self {
            Operand::X1 => 0,
            Operand::X2 => 1,
            Operand::X3 => 2,
        }
    }

    /// The name as written in tables.
    pub fn name(self) -> &'static str {
        match self {
            Operand::X1 => "x1",
            Operand::X2 => "x2",
            Operand::X3 => "x3",
        }
    }
}

/// How closely results outside the special cases must match the exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Accuracy {
    /// Bit-exact against the oracle's result, rounded once to nearest-even.
    CorrectlyRounded,
    /// Bit-exact; the result is one of the inputs or a comparison.
    Exact,
    /// Within the suite's step bound (`step_bounds`) of the correctly rounded value.
    Approximate,
}

/// The dtype of an operation's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// The operands' dtype.
    #[default]
    Same,
    /// `bool`.
    Bool,
}

/// A property the source states about results as a whole, checked by calling the adapter on
/// transformed inputs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropertyRow {
    /// Permanent id, unique among the table's rows and properties.
    pub id: Spanned<String>,
    pub source: String,
    pub bullet: u32,
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    pub property: Property,
}

/// The properties tables can state.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Property {
    /// The result is bit-identical after each listed transformation of the operands.
    InvariantUnder(Vec<Transform>),
    /// A zero or subnormal result is allowed only where every operand is subnormal and the
    /// correctly rounded result is subnormal too.
    UnderflowOnlyFromSubnormals,
    /// A unary function's symmetry: `f(-x)` equals `f(x)` (even) or `-f(x)` (odd), bit for
    /// bit (any NaN matches any NaN).
    Parity(Parity),
}

/// Whether a function is even or odd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parity {
    Even,
    Odd,
}

/// A transformation of the operands of a binary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transform {
    /// `(x2, x1)`.
    Swap,
    /// `(-x1, x2)`.
    NegateX1,
    /// `(x1, -x2)`.
    NegateX2,
    /// `(-x1, -x2)`.
    NegateBoth,
}

/// A definition of the operation through another one.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Definition {
    pub source: String,
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
}

/// One special-case row.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// Permanent id, unique in the table; never changes when the wording does.
    pub id: Spanned<String>,
    /// Ids this row had before it was renamed: check ids with an old id still name its
    /// checks (in expectations files), and `opspec expect --migrate` rewrites them.
    #[serde(default)]
    pub aliases: Vec<Spanned<String>>,
    /// Id of the source document (one of the table's `sources`).
    pub source: String,
    /// Bullet number within the function's special-case section (1-based).
    pub bullet: u32,
    /// The bullet's text, as the source states it.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    /// When the row applies.
    pub when: Condition,
    /// What the result must be.
    pub result: Outcome,
    /// Rows this one wins over where both apply.
    #[serde(default)]
    pub overrides: Vec<String>,
    /// Other documents that state the same bullet.
    #[serde(default)]
    pub also: Vec<AlsoCited>,
    /// Why the oracle (MPFR) gives another result on this row's inputs. The row wins for
    /// adapters; the table self-check then demands that the difference really shows, so the
    /// note cannot outlive it.
    #[serde(default)]
    pub oracle_differs: Option<String>,
}

/// A further citation of a row: the same rule in another document.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlsoCited {
    pub source: String,
    pub bullet: u32,
}

/// The condition of a row: every listed constraint must hold.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// The first operand's classes (`x` in a one-operand table).
    #[serde(default, alias = "x")]
    pub x1: Classes,
    #[serde(default)]
    pub x2: Classes,
    #[serde(default)]
    pub x3: Classes,
    /// At least one operand is in this class ("if either x1 or x2 is NaN").
    #[serde(default)]
    pub either: Option<Class>,
    /// Every operand is in this class ("both nonzero finite numbers").
    #[serde(default)]
    pub both: Option<Class>,
    /// A relation between x1 and x2.
    #[serde(default)]
    pub relation: Option<Relation>,
    /// The first named operand is numerically greater than the second (`[x2, x3]`: clip's
    /// `min_i > max_i`); false where either is NaN.
    #[serde(default)]
    pub greater: Option<[Operand; 2]>,
}

impl Condition {
    /// The per-operand class lists.
    pub fn operand_classes(&self, operand: Operand) -> &[Class] {
        match operand {
            Operand::X1 => &self.x1.0,
            Operand::X2 => &self.x2.0,
            Operand::X3 => &self.x3.0,
        }
    }
}

/// One class or a list of classes that must all hold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Classes(pub Vec<Class>);

impl<'de> Deserialize<'de> for Classes {
    /// Accepts one class (`nan`, `{gt: 0}`) or a list of them, keeping the class's own error
    /// (e.g. "unknown variant") when it is misspelt.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer, StrDeserializer};

        struct ClassesVisitor;

        impl<'de> serde::de::Visitor<'de> for ClassesVisitor {
            type Value = Classes;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a value class or a list of value classes")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Classes, E> {
                Class::deserialize(StrDeserializer::<E>::new(v)).map(|c| Classes(vec![c]))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Classes, A::Error> {
                Class::deserialize(MapAccessDeserializer::new(map)).map(|c| Classes(vec![c]))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Classes, A::Error> {
                Vec::<Class>::deserialize(SeqAccessDeserializer::new(seq)).map(Classes)
            }
        }

        d.deserialize_any(ClassesVisitor)
    }
}

/// A class of operand values.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Any value, NaN included.
    Any,
    /// Any NaN.
    Nan,
    /// A NaN with the sign bit clear.
    NanPositiveSign,
    /// A NaN with the sign bit set.
    NanNegativeSign,
    /// Anything but NaN.
    NotNan,
    PosInfinity,
    NegInfinity,
    /// Either infinity.
    Infinity,
    PosZero,
    NegZero,
    /// Either zero.
    Zero,
    /// Neither infinite nor NaN.
    Finite,
    /// Finite and not a zero.
    NonzeroFinite,
    /// Finite and greater than 0.
    PositiveFinite,
    /// Finite and less than 0.
    NegativeFinite,
    /// Greater than the constant (infinities included where they qualify).
    Gt(f64),
    /// Less than the constant.
    Lt(f64),
    /// Equal to the constant (a zero constant matches both zeros).
    Eq(f64),
    /// Not equal to the constant (NaN included: NaN equals nothing).
    Ne(f64),
    /// `abs(x)` greater than the constant.
    AbsGt(f64),
    /// `abs(x)` less than the constant.
    AbsLt(f64),
    /// `abs(x)` equal to the constant.
    AbsEq(f64),
    /// A finite integer value.
    Integer,
    /// A finite odd integer value.
    OddInteger,
    /// Finite and not an integer value.
    NotInteger,
    /// Anything but a finite odd integer value (NaN and infinities included).
    NotOddInteger,
    /// A finite value midway between two integers ("two integers are equally close", round).
    HalfInteger,
}

/// A relation between `x1` and `x2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// `x2` is `-x1` (bit for bit, the sign flipped).
    Negation,
    /// `x2` is not `-x1`.
    NotNegation,
    /// `x1 == x2` numerically.
    Equal,
    /// `x1 != x2` numerically (NaN is unequal to everything).
    NotEqual,
    /// Same sign bit ("the same mathematical sign").
    SameSign,
    /// Different sign bits.
    DifferentSign,
}

/// Which operand a result refers to, and how.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Any NaN (payload and sign free).
    Nan,
    /// A NaN whose sign bit follows the rule (payload free).
    NanWithSign(SignRule),
    /// `true` or `false` (comparisons).
    Boolean(bool),
    PosZero,
    NegZero,
    PosInfinity,
    NegInfinity,
    /// The given constant, exactly (it must be representable).
    Value(f64),
    /// The operand itself, bit for bit.
    Operand(Operand),
    /// The operand with its sign flipped.
    NegOperand(Operand),
    /// `+|operand|`.
    AbsOperand(Operand),
    /// `-|operand|`.
    NegAbsOperand(Operand),
    /// Any non-NaN value with this sign ("the result has a positive mathematical sign").
    Sign(SignRule),
    /// An infinity whose sign follows the rule.
    SignedInfinity(SignRule),
    /// An approximation to a named constant, within the suite's step bound of its correctly
    /// rounded value.
    Approx(NamedConstant),
    /// Any of the listed results is allowed.
    AnyOf(Vec<Outcome>),
    /// The first result is the one the bullet states (a should); the others are those its note
    /// allows (floor_divide's "libraries may return NaN to match Python behavior"): any of them
    /// meets the must.
    Prefer(Vec<Outcome>),
    /// Any result at all: the document leaves the behaviour unspecified.
    Unspecified,
    /// What the table's accuracy class requires: for `correctly_rounded` and `exact` tables
    /// the oracle's result (rounded once to nearest-even), for `approximate` ones that result
    /// within the suite's step bound.
    CorrectlyRounded,
}

/// How a sign-only result's sign is determined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignRule {
    Positive,
    Negative,
    /// Negative exactly when the operands' signs differ ("determined by the rule above").
    ProductOfSigns,
}

/// Constants the documents name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NamedConstant {
    Pi,
    NegPi,
    HalfPi,
    NegHalfPi,
    QuarterPi,
    NegQuarterPi,
    ThreeQuarterPi,
    NegThreeQuarterPi,
}

/// A shape rule of a fused operation: each listed set of operand shapes must be refused.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoBroadcastRow {
    /// Permanent id, unique in the table.
    pub id: Spanned<String>,
    /// Id of the source document (one of the table's `sources`).
    pub source: String,
    /// The rule, quoted from the source.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    /// The error every refusal must be.
    pub error: ShapeError,
    /// Operand shapes the operation must refuse, one shape per operand of the fused
    /// operation (`[[2, 3], [2, 3], [3]]`). They are unequal, and chosen to broadcast under
    /// NumPy's rules, so that an implementation that silently broadcasts returns a result
    /// instead of the error.
    pub shapes: Vec<[Vec<usize>; 3]>,
}

/// The error kinds a shape rule can require.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeError {
    /// Shapes that do not match where they must.
    ShapeMismatch,
}

impl ShapeError {
    /// The adapter API's error kind.
    pub fn kind(self) -> ErrorKind {
        match self {
            ShapeError::ShapeMismatch => ErrorKind::ShapeMismatch,
        }
    }
}

/// The rules of a destination-passing operation: one pair of operands, written into each
/// listed destination.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntoRules {
    /// The first operand (values read in the check's dtype).
    pub a: TensorLiteral,
    /// The second operand.
    pub b: TensorLiteral,
    /// The destinations, each with what the call must do.
    pub destinations: Vec<DestinationRow>,
}

/// One destination and what writing `a op b` into it must do.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DestinationRow {
    /// Permanent id, unique in the table.
    pub id: Spanned<String>,
    /// Id of the source document (one of the table's `sources`).
    pub source: String,
    /// What the source says about such a destination, quoted.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    /// The destination.
    pub out: Destination,
    /// What the call must do.
    pub result: IntoResult,
}

/// A caller-owned destination tensor. It starts filled with a sentinel value, so that a write
/// is visible.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Destination {
    pub shape: Vec<usize>,
    pub dtype: OutDtype,
    pub layout: Layout,
}

/// A destination's dtype, relative to the operands'.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutDtype {
    /// The operands' dtype.
    Same,
    /// Another float dtype: f64, or f32 where the operands are f64.
    Other,
}

/// How a destination's elements are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Row-major and dense.
    Contiguous,
    /// The transpose of a contiguous buffer: a `[2, 3]` view of a `[3, 2]` buffer, its axes
    /// in reverse order (not contiguous).
    Transposed,
}

/// What writing into a destination must do.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum IntoResult {
    /// The call succeeds and `out` then holds exactly these values, row-major (each read in
    /// the check's dtype; the check also requires them to be the oracle's `a op b`).
    Values(Vec<String>),
    /// The call returns an error (of any kind) and leaves `out` as it was.
    Refused,
}

/// A tensor written out in a table: its shape and row-major values as text (decimals, or
/// `nan`, `inf`, `-inf`, `-0`), read in the check's dtype with one correct rounding.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorLiteral {
    /// The shape.
    pub shape: Vec<usize>,
    /// The values, row-major.
    pub values: Vec<String>,
}
