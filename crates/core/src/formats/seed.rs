//! The seed block of the preprint: Base32 (no padding) of a zlib stream, between
//! `BEGIN-RANK{R}-{N}X{M}X{P}-ZLIB-BASE32` and `END-RANK{R}-{N}X{M}X{P}-ZLIB-BASE32`.
//!
//! Decoded: for each term, the matrices A (n x m), B (m x p) and C (n x p, NOT transposed:
//! its convention is `sum E_ij (x) E_jk (x) E_ik`), each in `ceil(rows*cols/8)` little-endian
//! bytes where bit `r*cols + c` is entry `[r][c]`.

use std::io::Read;

use super::{check_rank, shape_at, ParseError, WriteError};
use crate::scheme::{IntScheme, Scheme};
use crate::shape::Shape;
use crate::term::Term;

/// The start of the opening line.
pub const BEGIN: &str = "BEGIN-RANK";

/// Parses `RANK{R}-{N}X{M}X{P}-ZLIB-BASE32` (after `BEGIN-` or `END-`).
fn parse_header(rest: &str, line: usize) -> Result<(usize, Shape), ParseError> {
    let bad = || {
        ParseError::at(
            line,
            "malformed seed header; expected BEGIN-RANK{R}-{N}X{M}X{P}-ZLIB-BASE32",
        )
    };
    let rest = rest.trim().strip_prefix("RANK").ok_or_else(bad)?;
    let rest = rest.strip_suffix("-ZLIB-BASE32").ok_or_else(bad)?;
    let (rank, dims) = rest.split_once('-').ok_or_else(bad)?;
    let rank: usize = rank.parse().map_err(|_| bad())?;
    let dims: Vec<usize> = dims
        .split('X')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    let [n, m, p] = dims[..] else {
        return Err(bad());
    };
    check_rank(rank, Some(line))?;
    Ok((rank, shape_at(n, m, p, Some(line))?))
}

/// Bytes of one matrix of `bits` entries.
const fn bytes_for(bits: usize) -> usize {
    bits.div_ceil(8)
}

/// The three matrix sizes of a seed term, in the seed's own layout (C as n x p).
fn seed_dims(shape: Shape) -> [(usize, usize); 3] {
    let [n, m, p] = shape.dims();
    [(n, m), (m, p), (n, p)]
}

/// Moves a factor between C^T (bit `k*n+i`) and the seed's C (bit `i*p+k`). A seed's factors
/// are read and written as `u128`, which holds every format's.
fn transpose(bits: u128, rows: usize, cols: usize) -> u128 {
    let mut out = 0;
    for r in 0..rows {
        for c in 0..cols {
            out |= (bits >> (r * cols + c) & 1) << (c * rows + r);
        }
    }
    out
}

/// Reads a seed block.
pub fn read(text: &str) -> Result<IntScheme, ParseError> {
    let mut lines = text.lines().enumerate();
    let (bl, begin) = lines
        .by_ref()
        .find(|(_, l)| l.trim_start().starts_with(BEGIN))
        .ok_or_else(|| ParseError::whole("no BEGIN-RANK... line"))?;
    let (rank, shape) = parse_header(&begin.trim()["BEGIN-".len()..], bl + 1)?;
    let mut payload = String::new();
    let mut end = None;
    for (i, l) in lines {
        if let Some(rest) = l.trim().strip_prefix("END-") {
            if parse_header(rest, i + 1)? != (rank, shape) {
                return Err(ParseError::at(i + 1, "the END line does not match the BEGIN line"));
            }
            end = Some(i);
            break;
        }
        payload.extend(l.chars().filter(|c| !c.is_whitespace() && *c != '='));
    }
    if end.is_none() {
        return Err(ParseError::whole("no END-RANK... line (truncated?)"));
    }
    let zlib = data_encoding::BASE32_NOPAD
        .decode(payload.as_bytes())
        .map_err(|e| ParseError::at(bl + 2, format!("bad Base32 in the seed block: {e}")))?;
    let dims = seed_dims(shape);
    let per_term: usize = dims.iter().map(|&(r, c)| bytes_for(r * c)).sum();
    let want = rank * per_term;
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&zlib[..])
        .take(want as u64 + 1)
        .read_to_end(&mut raw)
        .map_err(|e| ParseError::whole(format!("bad zlib stream in the seed block: {e}")))?;
    if raw.len() != want {
        return Err(ParseError::whole(format!(
            "the seed block holds {} bytes; rank {rank} of shape {shape} needs {want}",
            raw.len()
        )));
    }
    let [n, _, p] = shape.dims();
    let mut terms = Vec::with_capacity(rank);
    for chunk in raw.chunks(per_term) {
        let mut f = [0u128; 3];
        let mut at = 0;
        for (k, &(r, c)) in dims.iter().enumerate() {
            let len = bytes_for(r * c);
            f[k] = chunk[at..at + len].iter().rev().fold(0, |acc, &b| acc << 8 | b as u128);
            at += len;
        }
        let term = Term::from_factors(f[0], f[1], transpose(f[2], n, p));
        terms.push(term);
    }
    let scheme = Scheme::<u128>::new(shape, terms).map_err(|e| ParseError::whole(format!("seed block: {e}")))?;
    Ok(IntScheme::from_f2(&scheme))
}

/// Writes a seed block; fails unless every coefficient is 0 or 1.
pub fn write(scheme: &IntScheme) -> Result<String, WriteError> {
    if !scheme.is_binary() {
        return Err(WriteError::NotBinary);
    }
    let shape = scheme.shape;
    let [n, m, p] = shape.dims();
    let mut raw = Vec::new();
    for t in scheme.mod2::<u128>().expect("every format fits 128 bits").terms() {
        let factors = [t.a, t.b, transpose(t.c, p, n)];
        for (f, (r, c)) in factors.into_iter().zip(seed_dims(shape)) {
            raw.extend_from_slice(&f.to_le_bytes()[..bytes_for(r * c)]);
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut z, &raw).expect("writing to memory cannot fail");
    let encoded = data_encoding::BASE32_NOPAD.encode(&z.finish().expect("writing to memory cannot fail"));
    let header = format!("RANK{}-{n}X{m}X{p}-ZLIB-BASE32", scheme.rank());
    let mut out = format!("BEGIN-{header}\n");
    for line in encoded.as_bytes().chunks(76) {
        out.push_str(std::str::from_utf8(line).expect("Base32 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("END-{header}\n"));
    Ok(out)
}
