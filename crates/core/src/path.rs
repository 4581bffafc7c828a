//! Paths in the flip graph between two schemes of one shape, after the constructive proof of
//! its connectivity: split every term into basis tensors, cancel equal pairs (which leaves the
//! naive scheme, the tensor's own basis tensors), then run the other scheme's reduction backwards
//! (its cancellations become "add a pair", its splits become merges).
//!
//! A split of `t` at a position into a part `p` and the rest is a plus move: add the pair
//! `h + h` with `h` = `t` whose factor there is `p`, take `plus(h, t)` (which splits `t` into the
//! rest and `h`), and cancel one pair `h + h`.
//!
//! Moves name terms by value, so a path replays on any list holding those terms. The text form,
//! one move a line, factors in hexadecimal (`#` starts a comment):
//!
//! ```text
//! flipgraph-path 2x2x2
//! pair 0x1 0x8 0x1                  # adds the term twice (their sum is zero)
//! plus b 0x1 0x8 0x1 0x1 0x9 0x1    # plus(t, u) at B: u -> (u with B ^= t.B) + (u with B = t.B)
//! merge 0x1 0x8 0x1 0x1 0x8 0x1     # two terms sharing two factors -> one (none when equal)
//! flip a 0x1 0x2 0x4 0x1 0x8 0x10   # flip(keep, other) on their shared factor A
//! ```

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::moves::{flip, merge, plus};
use crate::scheme::Scheme;
use crate::shape::Shape;
use crate::term::{Position, Term};

/// One step of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// `flip(keep, other, pos)` on their shared factor at `pos`.
    Flip {
        /// The shared position.
        pos: Position,
        /// The term whose other factor `R` changes.
        keep: Term,
        /// The term whose factor `Q` changes.
        other: Term,
    },
    /// The plus move `plus(t, u, pos)` (see [`crate::moves::plus`]): `t` stays, `u` becomes
    /// `u` with `pos` xor `t[pos]`, and `u` with `pos` = `t[pos]` is added.
    Plus {
        /// The position.
        pos: Position,
        /// The term whose factor splits `u`.
        t: Term,
        /// The term split.
        u: Term,
    },
    /// A reduction: two terms that share two factors become one (none when they are equal).
    Merge {
        /// One term.
        x: Term,
        /// The other.
        y: Term,
    },
    /// Adds `term` twice (a zero sum: the inverse of cancelling an equal pair).
    Pair {
        /// The term added twice.
        term: Term,
    },
}

/// A move that does not apply, or a path file that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// Move `step` (0-based) needs a term the scheme does not hold.
    #[error("move {step}: the scheme holds no term {term:x?}")]
    MissingTerm {
        /// The move's index.
        step: usize,
        /// The term looked for.
        term: Term,
    },
    /// Move `step` is not a legal move on the terms it names.
    #[error("move {step}: {why}")]
    Illegal {
        /// The move's index.
        step: usize,
        /// What is wrong.
        why: &'static str,
    },
    /// A line of a path file.
    #[error("line {line}: {why}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
}

impl Move {
    /// Moves that undo this one (a merge of two different terms is undone by a pair, a plus
    /// and a cancellation).
    pub fn inverse(&self) -> Vec<Move> {
        match *self {
            Move::Flip { pos, keep, other } => {
                let (mut k, mut o) = (keep, other);
                flip(&mut k, &mut o, pos);
                alloc::vec![Move::Flip { pos, keep: k, other: o }]
            }
            Move::Plus { pos, t, u } => {
                let (changed, added) = plus(&t, &u, pos);
                alloc::vec![Move::Merge { x: changed, y: added }]
            }
            Move::Merge { x, y } if x == y => alloc::vec![Move::Pair { term: x }],
            Move::Merge { x, y } => {
                let pos = Position::ALL
                    .into_iter()
                    .find(|&p| x.get(p) != y.get(p))
                    .unwrap_or(Position::A);
                let mut merged = x;
                merged.set(pos, x.get(pos) ^ y.get(pos));
                split(merged, pos, y.get(pos)).to_vec()
            }
            Move::Pair { term } => alloc::vec![Move::Merge { x: term, y: term }],
        }
    }
}

/// Splits `t` at `pos` into `t` with `pos` xor `part` and `t` with `pos` = `part`, by a plus
/// move: a pair of the second term, `plus` with it, and the cancellation of one pair.
fn split(t: Term, pos: Position, part: u64) -> [Move; 3] {
    let mut h = t;
    h.set(pos, part);
    [
        Move::Pair { term: h },
        Move::Plus { pos, t: h, u: t },
        Move::Merge { x: h, y: h },
    ]
}

/// A scheme's terms as a multiset, a path replayed on them move by move: each move costs
/// O(log rank), so a path of millions of moves replays in seconds (a list search per move took
/// 24.6 s for 3.3 M moves).
#[derive(Clone, Debug, Default)]
pub struct Replay {
    /// Each term with its count (never 0).
    terms: BTreeMap<Term, u32>,
    /// Moves applied so far.
    steps: usize,
}

impl Replay {
    /// A replay starting at `terms` (zero terms included: moves may name them).
    pub fn new(terms: &[Term]) -> Replay {
        let mut replay = Replay::default();
        for &t in terms {
            replay.put(t);
        }
        replay
    }

    /// The moves applied so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The terms now, in order.
    pub fn terms(&self) -> Vec<Term> {
        let copies = |(&t, &n): (&Term, &u32)| core::iter::repeat_n(t, n as usize);
        self.terms.iter().flat_map(copies).collect()
    }

    fn put(&mut self, t: Term) {
        *self.terms.entry(t).or_insert(0) += 1;
    }

    fn holds(&self, t: &Term) -> bool {
        self.terms.contains_key(t)
    }

    /// Removes one term equal to `t`.
    fn take(&mut self, t: Term) -> Result<(), PathError> {
        let step = self.steps;
        match self.terms.get_mut(&t) {
            Some(1) => {
                self.terms.remove(&t);
            }
            Some(n) => *n -= 1,
            None => return Err(PathError::MissingTerm { step, term: t }),
        }
        Ok(())
    }

    /// Applies the next move; on an error nothing is changed but what the move took before it
    /// failed (the replay is then abandoned).
    pub fn apply(&mut self, m: &Move) -> Result<(), PathError> {
        let illegal = |why| PathError::Illegal { step: self.steps, why };
        match *m {
            Move::Flip { pos, keep, other } => {
                if keep.get(pos) != other.get(pos) {
                    return Err(illegal("a flip needs a shared factor"));
                }
                self.take(keep)?;
                self.take(other)?;
                let (mut k, mut o) = (keep, other);
                flip(&mut k, &mut o, pos);
                for t in [k, o].into_iter().filter(|t| !t.is_zero()) {
                    self.put(t);
                }
            }
            Move::Plus { pos, t, u } => {
                if t.get(pos) == u.get(pos) {
                    return Err(illegal("a plus move needs different factors at its position"));
                }
                self.take(u)?;
                if !self.holds(&t) {
                    return Err(PathError::MissingTerm {
                        step: self.steps,
                        term: t,
                    });
                }
                let (changed, added) = plus(&t, &u, pos);
                self.put(changed);
                self.put(added);
            }
            Move::Merge { x, y } => {
                let merged = merge(&x, &y).ok_or(illegal("a merge needs two shared factors"))?;
                self.take(x)?;
                self.take(y)?;
                if !merged.is_zero() {
                    self.put(merged);
                }
            }
            Move::Pair { term } => {
                if term.is_zero() {
                    return Err(illegal("a pair of zero terms"));
                }
                self.put(term);
                self.put(term);
            }
        }
        self.steps += 1;
        Ok(())
    }
}

/// Moves that turn `s` (a valid scheme) into the naive scheme of its shape: splits down to
/// basis tensors, then cancellation of equal pairs.
pub fn to_naive(s: &Scheme) -> Vec<Move> {
    to_basis(s.terms().to_vec())
}

/// Moves that turn `terms` into the basis tensors of their sum, each once: splits down to
/// basis tensors, then cancellation of equal pairs. For a valid scheme that is its naive one.
fn to_basis(mut work: Vec<Term>) -> Vec<Move> {
    let mut moves = Vec::new();
    let mut basis = Vec::new();
    while let Some(t) = work.pop() {
        match Position::ALL.into_iter().find(|&p| t.get(p).count_ones() > 1) {
            Some(pos) => {
                let part = t.get(pos) & t.get(pos).wrapping_neg();
                moves.extend(split(t, pos, part));
                let (mut rest, mut new) = (t, t);
                rest.set(pos, t.get(pos) ^ part);
                new.set(pos, part);
                work.extend([rest, new]);
            }
            None => basis.push(t),
        }
    }
    basis.sort_unstable();
    let mut i = 0;
    while i + 1 < basis.len() {
        if basis[i] == basis[i + 1] {
            moves.push(Move::Merge {
                x: basis[i],
                y: basis[i],
            });
            i += 2;
        } else {
            i += 1;
        }
    }
    moves
}

/// A path from `a` to `b` (valid schemes of one shape). The terms they share stay; the others
/// of `a` go down to basis tensors, which (the two sums being equal) are those of `b`'s others,
/// and back up to them. A scheme to itself, or to its terms in another order, is no move.
pub fn path(a: &Scheme, b: &Scheme) -> Vec<Move> {
    let (a_only, b_only) = unshared(a.terms(), b.terms());
    let mut moves = to_basis(a_only);
    moves.extend(to_basis(b_only).iter().rev().flat_map(Move::inverse));
    moves
}

/// The terms of `a` not in `b` and those of `b` not in `a`, counted as multisets.
fn unshared(a: &[Term], b: &[Term]) -> (Vec<Term>, Vec<Term>) {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_unstable();
    b.sort_unstable();
    let (mut a_only, mut b_only) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => (i, j) = (i + 1, j + 1),
            (Some(x), y) if y.is_none_or(|y| x < y) => {
                a_only.push(*x);
                i += 1;
            }
            (_, Some(y)) => {
                b_only.push(*y);
                j += 1;
            }
            (_, None) => unreachable!("the loop runs while a term is left"),
        }
    }
    (a_only, b_only)
}

/// The text form of a path (see the module docs).
pub fn to_text(shape: Shape, moves: &[Move]) -> String {
    let mut out = format!("flipgraph-path {shape}\n");
    let t = |t: &Term| format!("{:#x} {:#x} {:#x}", t.a, t.b, t.c);
    for m in moves {
        let _ = match m {
            Move::Flip { pos, keep, other } => writeln!(out, "flip {} {} {}", pos.letter(), t(keep), t(other)),
            Move::Plus { pos, t: x, u } => writeln!(out, "plus {} {} {}", pos.letter(), t(x), t(u)),
            Move::Merge { x, y } => writeln!(out, "merge {} {}", t(x), t(y)),
            Move::Pair { term } => writeln!(out, "pair {}", t(term)),
        };
    }
    out
}

/// Parses the text form; returns the shape and the moves.
pub fn parse(text: &str) -> Result<(Shape, Vec<Move>), PathError> {
    let mut shape = None;
    let mut moves = Vec::new();
    for (i, body) in text.lines().enumerate() {
        let line = i + 1;
        match shape {
            None => shape = parse_header(line, body)?,
            Some(_) => moves.extend(parse_line(line, body)?),
        }
    }
    let shape = shape.ok_or(PathError::Syntax {
        line: 1,
        why: "empty path file".into(),
    })?;
    Ok((shape, moves))
}

/// The text of a line without its comment, trimmed.
fn content(body: &str) -> &str {
    body.split('#').next().unwrap_or("").trim()
}

/// Line `line` of a path file before its header: the shape from `flipgraph-path NxMxP`, or
/// `None` for a blank or comment line.
pub fn parse_header(line: usize, body: &str) -> Result<Option<Shape>, PathError> {
    let header = content(body);
    if header.is_empty() {
        return Ok(None);
    }
    let Some(spec) = header.strip_prefix("flipgraph-path ") else {
        return Err(PathError::Syntax {
            line,
            why: "the first line must be `flipgraph-path NxMxP`".into(),
        });
    };
    // A shape that does not parse says why (a dimension past 16, a matrix past 128 entries).
    spec.trim()
        .parse()
        .map(Some)
        .map_err(|e: crate::shape::ParseShapeError| PathError::Syntax {
            line,
            why: alloc::format!("the header's shape {}: {e}", spec.trim()),
        })
}

/// Line `line` of a path file after its header: its move, or `None` for a blank or comment
/// line.
pub fn parse_line(line: usize, body: &str) -> Result<Option<Move>, PathError> {
    let syntax = |why: &str| PathError::Syntax { line, why: why.into() };
    let body = content(body);
    if body.is_empty() {
        return Ok(None);
    }
    let words: Vec<&str> = body.split_whitespace().collect();
    let num = |s: &str| {
        u64::from_str_radix(s.trim_start_matches("0x"), 16).map_err(|_| syntax("expected a hex factor like 0x1f"))
    };
    let pos = |s: &str| match s {
        "a" => Ok(Position::A),
        "b" => Ok(Position::B),
        "c" => Ok(Position::C),
        _ => Err(syntax("expected a position a, b or c")),
    };
    let term = |w: &[&str]| -> Result<Term, PathError> { Ok(Term::new(num(w[0])?, num(w[1])?, num(w[2])?)) };
    let m = match (words.first().copied(), words.len()) {
        (Some("flip"), 8) => Move::Flip {
            pos: pos(words[1])?,
            keep: term(&words[2..5])?,
            other: term(&words[5..8])?,
        },
        (Some("plus"), 8) => Move::Plus {
            pos: pos(words[1])?,
            t: term(&words[2..5])?,
            u: term(&words[5..8])?,
        },
        (Some("merge"), 7) => Move::Merge {
            x: term(&words[1..4])?,
            y: term(&words[4..7])?,
        },
        (Some("pair"), 4) => Move::Pair {
            term: term(&words[1..4])?,
        },
        _ => return Err(syntax("expected `flip P T T`, `plus P T T`, `merge T T` or `pair T`")),
    };
    Ok(Some(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut v: Vec<Term>) -> Vec<Term> {
        v.sort_unstable();
        v
    }

    #[test]
    fn every_move_is_undone_by_its_inverse() {
        let (x, y) = (Term::new(1, 2, 4), Term::new(1, 8, 16));
        let moves = [
            (
                Move::Flip {
                    pos: Position::A,
                    keep: x,
                    other: y,
                },
                alloc::vec![x, y],
            ),
            (
                Move::Plus {
                    pos: Position::A,
                    t: Term::new(1, 9, 9),
                    u: Term::new(3, 2, 4),
                },
                alloc::vec![Term::new(1, 9, 9), Term::new(3, 2, 4)],
            ),
            (
                Move::Merge {
                    x: Term::new(1, 2, 4),
                    y: Term::new(1, 2, 8),
                },
                alloc::vec![Term::new(1, 2, 4), Term::new(1, 2, 8)],
            ),
            (Move::Merge { x, y: x }, alloc::vec![x, x, y]),
            (Move::Pair { term: x }, alloc::vec![y]),
        ];
        for (m, start) in moves {
            let mut replay = Replay::new(&start);
            replay.apply(&m).unwrap();
            for inv in m.inverse() {
                replay.apply(&inv).unwrap();
            }
            assert_eq!(replay.terms(), sorted(start), "{m:?}");
        }
    }

    #[test]
    fn a_path_moves_only_the_terms_the_schemes_do_not_share() {
        let naive = Scheme::naive(Shape::new(2, 2, 3).unwrap());
        let mut shuffled = naive.terms().to_vec();
        shuffled.reverse();
        let shuffled = Scheme::new(naive.shape(), shuffled).unwrap();
        assert_eq!(path(&naive, &naive), alloc::vec![]);
        assert_eq!(path(&naive, &shuffled), alloc::vec![]);
        // A flip of two terms sharing their A factor: a short path, which replays to it.
        let terms = naive.terms();
        let (i, j) = (0..terms.len())
            .flat_map(|i| (i + 1..terms.len()).map(move |j| (i, j)))
            .find(|&(i, j)| terms[i].a == terms[j].a)
            .unwrap();
        let (x, y) = (terms[i], terms[j]);
        let mut flipped = terms.to_vec();
        flipped[i] = Term::new(x.a, x.b ^ y.b, x.c);
        flipped[j] = Term::new(y.a, y.b, x.c ^ y.c);
        let flipped = Scheme::new(naive.shape(), flipped).unwrap();
        let moves = path(&naive, &flipped);
        assert!(!moves.is_empty() && moves.len() < 10, "{moves:?}");
        let mut replay = Replay::new(naive.terms());
        for m in &moves {
            replay.apply(m).unwrap();
        }
        assert_eq!(replay.terms(), sorted(flipped.terms().to_vec()));
    }

    #[test]
    fn text_round_trips() {
        let s = Scheme::naive(Shape::new(2, 2, 3).unwrap());
        let mut t = s.terms().to_vec();
        t[0].a |= 2;
        let moves = [
            Move::Pair { term: t[0] },
            Move::Plus {
                pos: Position::A,
                t: t[1],
                u: t[0],
            },
        ];
        let text = to_text(s.shape(), &moves);
        assert_eq!(parse(&text).unwrap(), (s.shape(), moves.to_vec()));
        assert!(parse("flipgraph-path 2x2x2\nplus q 0x1 0x1 0x1 0x1 0x1 0x1\n").is_err());
        // A header whose shape is out of range says why, not only what a header looks like.
        let far = parse("flipgraph-path 17x2x2\n").unwrap_err().to_string();
        assert!(far.contains("17x2x2") && far.contains("between 1 and 16"), "{far}");
        let wrong = parse("flipgraph path 2x2x2\n").unwrap_err().to_string();
        assert!(wrong.contains("flipgraph-path NxMxP"), "{wrong}");
    }
}
