//! Perminov txt: a line `n m p rank`, then one line each for U, V and W, each holding `rank`
//! blocks of `n*m` (resp. `m*p`, `p*n`) values, term after term.

use std::fmt::Write;

use super::{check_rank, factor_lengths, shape_at, ParseError, MAX_RANK};
use crate::scheme::{IntScheme, IntTerm};

/// Reads Perminov txt.
pub fn read(text: &str) -> Result<IntScheme, ParseError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (hl, header) = lines.next().ok_or_else(|| ParseError::whole("the file is empty"))?;
    let nums: Vec<usize> = header
        .split_whitespace()
        .map(|f| match f.parse::<usize>() {
            Ok(v) => Ok(v),
            // Digits past what a machine word holds: a number, only far too large.
            Err(_) if f.bytes().all(|b| b.is_ascii_digit()) => Err(ParseError::at(
                hl + 1,
                format!("{f} in the header is larger than any supported dimension (8) or rank ({MAX_RANK})"),
            )),
            Err(_) => Err(ParseError::at(hl + 1, "the header must be four numbers: n m p rank")),
        })
        .collect::<Result<_, _>>()?;
    let [n, m, p, rank] = nums[..] else {
        return Err(ParseError::at(hl + 1, "the header must be four numbers: n m p rank"));
    };
    let shape = shape_at(n, m, p, Some(hl + 1))?;
    check_rank(rank, Some(hl + 1))?;
    let mut columns = Vec::with_capacity(3);
    for (name, len) in ["U", "V", "W"].into_iter().zip(factor_lengths(shape)) {
        let Some((i, line)) = lines.next() else {
            return Err(ParseError::whole(format!("the {name} line is missing (truncated?)")));
        };
        let values: Vec<i64> = line
            .split_whitespace()
            .map(|v| {
                v.parse()
                    .map_err(|_| ParseError::at(i + 1, format!("'{v}' in the {name} line is not an integer")))
            })
            .collect::<Result<_, _>>()?;
        if values.len() != rank * len {
            return Err(ParseError::at(
                i + 1,
                format!(
                    "the {name} line has {} values; rank {rank} of shape {shape} needs {}",
                    values.len(),
                    rank * len
                ),
            ));
        }
        columns.push(values);
    }
    if let Some((i, _)) = lines.next() {
        return Err(ParseError::at(i + 1, "unexpected text after the W line"));
    }
    let lengths = factor_lengths(shape);
    let terms = (0..rank)
        .map(|t| IntTerm {
            factors: [0, 1, 2].map(|k| columns[k][t * lengths[k]..(t + 1) * lengths[k]].to_vec()),
        })
        .collect();
    Ok(IntScheme { shape, terms })
}

/// Writes Perminov txt.
pub fn write(scheme: &IntScheme) -> String {
    let [n, m, p] = scheme.shape.dims();
    let mut out = format!("{n} {m} {p} {}\n", scheme.rank());
    for k in 0..3 {
        let mut first = true;
        for x in scheme.terms.iter().flat_map(|t| &t.factors[k]) {
            let _ = write!(out, "{}{x}", if first { "" } else { " " });
            first = false;
        }
        out.push('\n');
    }
    out
}
