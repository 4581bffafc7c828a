//! The letter format: one rank-one term a line, `(a14+a23)*(b12)*(c14+c22)`.
//!
//! `aXY` is row X, column Y of A (1-based), `bXY` of B and `cXY` of C transposed; formats with a
//! dimension past 9 write every variable as `aX_Y` (`a10_12`), which is read in any file. Integer files
//! carry coefficients (`2*a52`, `- c13`), a leading `-(...)` negates a factor, factors are
//! separated by `*` or white space, and lines may end in CRLF. Blank lines and lines starting
//! with `#` are skipped. The shape is the largest index seen in each dimension.

use std::fmt::Write;

use super::{check_rank, shape_at, ParseError};
use crate::scheme::{IntScheme, IntTerm};
use crate::shape::MAX_DIM;
use crate::term::Position;

/// The error of a coefficient that overflows as a line is multiplied out and added up.
const TOO_LARGE: &str = "a coefficient is too large";

/// A linear form in the entries of one matrix: `(row, column, coefficient)`, 0-based.
type Linear = Vec<(usize, usize, i64)>;

/// A parsed expression: a scalar times a product of at most one linear form per matrix.
#[derive(Default)]
struct Expr {
    scale: i64,
    factors: [Option<Linear>; 3],
}

impl Expr {
    fn scalar(k: i64) -> Expr {
        Expr {
            scale: k,
            factors: [None, None, None],
        }
    }

    /// The one matrix this expression is linear in, if it is a single scaled linear form.
    fn linear_position(&self) -> Option<Position> {
        match self.factors.iter().filter(|f| f.is_some()).count() {
            1 => Position::ALL.into_iter().find(|p| self.factors[p.index()].is_some()),
            _ => None,
        }
    }

    /// The scale folded into the linear form; `None` when a coefficient overflows.
    fn into_linear(self, pos: Position) -> Option<Linear> {
        let scale = self.scale;
        let [a, b, c] = self.factors;
        let f = [a, b, c].into_iter().nth(pos.index()).flatten().unwrap_or_default();
        scaled(f, scale)
    }
}

/// `f` times `scale`, with repeated entries added up; `None` when a coefficient overflows (an
/// exact reading or an error, never a clamped number).
fn scaled(f: Linear, scale: i64) -> Option<Linear> {
    let mut out: Linear = Vec::with_capacity(f.len());
    for (r, c, k) in f {
        let k = k.checked_mul(scale)?;
        match out.iter_mut().find(|e| (e.0, e.1) == (r, c)) {
            Some(e) => e.2 = e.2.checked_add(k)?,
            None => out.push((r, c, k)),
        }
    }
    Some(out)
}

/// Reads a scheme in the letter format.
pub fn read(text: &str) -> Result<IntScheme, ParseError> {
    let mut terms: Vec<[Linear; 3]> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let body = raw.trim();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        check_rank(terms.len() + 1, Some(line))?;
        terms.push(
            Parser {
                line,
                chars: body.as_bytes(),
                at: 0,
            }
            .term()?,
        );
    }
    // Dimensions from the largest indices: A is n x m, B m x p, C^T p x n.
    let mut dims = [0usize; 3];
    for factors in &terms {
        for (pos, f) in Position::ALL.into_iter().zip(factors) {
            for &(r, c, _) in f {
                let (dr, dc) = (pos.index(), pos.next().index());
                dims[dr] = dims[dr].max(r + 1);
                dims[dc] = dims[dc].max(c + 1);
            }
        }
    }
    let shape = shape_at(dims[0], dims[1], dims[2], None)?;
    let lengths = super::factor_lengths(shape);
    let terms = terms
        .into_iter()
        .map(|factors| {
            let mut t = IntTerm {
                factors: lengths.map(|len| vec![0i64; len]),
            };
            for (pos, f) in Position::ALL.into_iter().zip(factors) {
                let (_, cols) = shape.factor_dims(pos);
                for (r, c, coef) in f {
                    // Each entry once: `scaled` added up repeated ones.
                    t.factors[pos.index()][r * cols + c] = coef;
                }
            }
            t
        })
        .collect();
    Ok(IntScheme { shape, terms })
}

/// A recursive-descent parser of one line: sums of products of atoms (integers, variables,
/// parenthesised sums).
struct Parser<'a> {
    line: usize,
    chars: &'a [u8],
    at: usize,
}

/// Parentheses nested deeper than this are an error, which also bounds the recursion.
const MAX_NESTING: usize = 8;

impl Parser<'_> {
    fn error(&self, message: impl std::fmt::Display) -> ParseError {
        ParseError::at(self.line, format!("column {}: {message}", self.at + 1))
    }

    fn peek(&mut self) -> Option<u8> {
        while self.chars.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        let found = self.peek() == Some(c);
        self.at += found as usize;
        found
    }

    /// The whole line: one product with a factor for each of a, b and c.
    fn term(mut self) -> Result<[Linear; 3], ParseError> {
        let expr = self.sum(0)?;
        if let Some(c) = self.peek() {
            return Err(self.error(format!("unexpected '{}'", c as char)));
        }
        let scale = expr.scale;
        match expr.factors {
            [Some(a), Some(b), Some(c)] => {
                let too_large = || self.error(TOO_LARGE);
                let a = scaled(a, scale).ok_or_else(too_large)?;
                let (b, c) = (scaled(b, 1).ok_or_else(too_large)?, scaled(c, 1).ok_or_else(too_large)?);
                Ok([a, b, c])
            }
            _ => Err(self.error("a term needs one factor each of a, b and c")),
        }
    }

    /// `product (('+' | '-') product)*`: a sum is only allowed of linear forms of one matrix.
    fn sum(&mut self, depth: usize) -> Result<Expr, ParseError> {
        let mut acc = self.product(depth)?;
        while matches!(self.peek(), Some(b'+') | Some(b'-')) {
            let start = self.at;
            let next = self.product(depth)?;
            let pos = acc.linear_position().filter(|&p| next.linear_position() == Some(p));
            let Some(pos) = pos else {
                self.at = start;
                return Err(self.error("only entries of one matrix can be added"));
            };
            let (Some(mut sum), Some(more)) = (acc.into_linear(pos), next.into_linear(pos)) else {
                return Err(self.error(TOO_LARGE));
            };
            sum.extend(more);
            acc = Expr::scalar(1);
            acc.factors[pos.index()] = Some(sum);
        }
        Ok(acc)
    }

    /// `[sign] atom ([*] atom)*`.
    fn product(&mut self, depth: usize) -> Result<Expr, ParseError> {
        let mut acc = Expr::scalar(self.sign());
        let mut first = true;
        loop {
            let starred = self.eat(b'*');
            match self.peek() {
                Some(b'(' | b'a' | b'b' | b'c' | b'0'..=b'9') => {}
                _ if starred || first => return Err(self.error("expected a factor")),
                _ => return Ok(acc),
            }
            let start = self.at;
            let atom = self.atom(depth)?;
            acc.scale = acc.scale.checked_mul(atom.scale).ok_or_else(|| self.error(TOO_LARGE))?;
            for (slot, f) in acc.factors.iter_mut().zip(atom.factors) {
                if let Some(f) = f {
                    if slot.replace(f).is_some() {
                        self.at = start;
                        return Err(self.error("a second factor of the same matrix"));
                    }
                }
            }
            first = false;
        }
    }

    /// An integer, a variable or a parenthesised sum.
    fn atom(&mut self, depth: usize) -> Result<Expr, ParseError> {
        if self.eat(b'(') {
            if depth == MAX_NESTING {
                return Err(self.error("parentheses nested too deeply"));
            }
            let inner = self.sum(depth + 1)?;
            if !self.eat(b')') {
                return Err(self.error("expected ')'"));
            }
            // A parenthesised linear form keeps its sign: `(-b11)` is a factor of B.
            return Ok(match inner.linear_position() {
                Some(pos) => {
                    let mut e = Expr::scalar(1);
                    let linear = inner.into_linear(pos).ok_or_else(|| self.error(TOO_LARGE))?;
                    e.factors[pos.index()] = Some(linear);
                    e
                }
                None => inner,
            });
        }
        if let Some(k) = self.integer()? {
            return Ok(Expr::scalar(k));
        }
        let (pos, r, c) = self.variable()?;
        let mut e = Expr::scalar(1);
        e.factors[pos.index()] = Some(vec![(r, c, 1)]);
        Ok(e)
    }

    /// Any run of `+` and `-`: the product of their signs.
    fn sign(&mut self) -> i64 {
        let mut s = 1;
        loop {
            match self.peek() {
                Some(b'-') => s = -s,
                Some(b'+') => {}
                _ => return s,
            }
            self.at += 1;
        }
    }

    fn integer(&mut self) -> Result<Option<i64>, ParseError> {
        self.peek();
        let start = self.at;
        while self.chars.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        if start == self.at {
            return Ok(None);
        }
        let digits = std::str::from_utf8(&self.chars[start..self.at]).unwrap_or("");
        digits
            .parse()
            .map(Some)
            .map_err(|_| self.error(format!("coefficient {digits} is too large")))
    }

    /// `aXY`, `bXY` or `cXY` with 1-based single-digit indices, or `aX_Y` (any index up to
    /// [`MAX_DIM`], as written for formats with a dimension past 9).
    fn variable(&mut self) -> Result<(Position, usize, usize), ParseError> {
        let pos = match self.peek() {
            Some(b'a') => Position::A,
            Some(b'b') => Position::B,
            Some(b'c') => Position::C,
            Some(c) if c.is_ascii_graphic() => {
                return Err(self.error(format!("expected a variable like a12, found '{}'", c as char)))
            }
            Some(c) => return Err(self.error(format!("unexpected byte 0x{c:02x}"))),
            None => return Err(self.error("expected a variable like a12, found the end of the line")),
        };
        let from = self.at + 1;
        let digits = self.chars[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        let index = |bytes: &[u8]| {
            std::str::from_utf8(bytes)
                .ok()
                .and_then(|d| d.parse::<usize>().ok())
                .filter(|i| (1..=MAX_DIM as usize).contains(i))
                .map(|i| i - 1)
        };
        let (indices, end) = if self.chars.get(from + digits) == Some(&b'_') {
            let more = self.chars[from + digits + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            let end = from + digits + 1 + more;
            let rc = index(&self.chars[from..from + digits]).zip(index(&self.chars[from + digits + 1..end]));
            (rc.filter(|_| more > 0), end)
        } else if digits == 2 {
            (
                index(&self.chars[from..from + 1]).zip(index(&self.chars[from + 1..from + 2])),
                from + 2,
            )
        } else {
            (None, from + digits)
        };
        match indices {
            Some((r, c)) if !self.chars.get(end).is_some_and(u8::is_ascii_alphanumeric) => {
                self.at = end;
                Ok((pos, r, c))
            }
            _ => Err(self.error(format!(
                "a variable needs two indices from 1 to {MAX_DIM}, like {l}12 or {l}10_12",
                l = pos.letter()
            ))),
        }
    }
}

/// Writes a scheme in the letter format, one term a line.
pub fn write(scheme: &IntScheme) -> String {
    let mut out = String::new();
    // Single-digit indices where every index is; `a10_12` once one is not.
    let wide = scheme.shape.dims().iter().any(|&d| d > 9);
    for term in &scheme.terms {
        for (k, pos) in Position::ALL.into_iter().enumerate() {
            if k > 0 {
                out.push('*');
            }
            out.push('(');
            let (_, cols) = scheme.shape.factor_dims(pos);
            let mut first = true;
            for (i, &x) in term.get(pos).iter().enumerate().filter(|e| *e.1 != 0) {
                let sign = if x < 0 {
                    "-"
                } else if first {
                    ""
                } else {
                    "+"
                };
                let mag = if x.unsigned_abs() == 1 {
                    String::new()
                } else {
                    format!("{}*", x.unsigned_abs())
                };
                let (r, c) = (i / cols + 1, i % cols + 1);
                let _ = match wide {
                    true => write!(out, "{sign}{mag}{}{r}_{c}", pos.letter()),
                    false => write!(out, "{sign}{mag}{}{r}{c}", pos.letter()),
                };
                first = false;
            }
            out.push(')');
        }
        out.push('\n');
    }
    out
}
