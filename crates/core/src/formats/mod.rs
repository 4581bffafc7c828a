//! The field's scheme file formats (feature `std`).
//!
//! | format | read | write | module |
//! |---|---|---|---|
//! | letter format (`.exp`) | yes | yes | [`letter`] |
//! | Mathematica lists (`.m`) | yes | no | [`mathematica`] |
//! | Perminov JSON | yes | yes | [`perminov_json`] |
//! | Perminov txt | yes | yes | [`perminov_txt`] |
//! | seed zlib-base32 block | yes | yes | [`seed`] |
//! | Maple triads (`.mpl`) | yes | no | [`maple`] |
//!
//! Readers give an [`IntScheme`] (integer coefficients; F2 files hold 0 and 1) and detect the
//! format from the content ([`detect`]). Writers drop zero terms.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::scheme::IntScheme;
use crate::shape::Shape;
use crate::term::FactorBits;
use crate::term::Position;

pub mod letter;
pub mod maple;
pub mod mathematica;
pub mod perminov_json;
pub mod perminov_txt;
pub mod seed;

/// The largest coefficient a file may hold, 2^31 - 1 (the field's schemes use 1 and 2): a
/// coefficient is read exactly or refused, never clamped, and products of schemes stay exact.
pub const MAX_COEFFICIENT: i64 = i32::MAX as i64;

/// A hard limit on the rank a file may declare, so a bad header cannot make a reader allocate
/// without bound. The naive 8x8x8 scheme has rank 512.
pub const MAX_RANK: usize = 1 << 16;

/// A scheme file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// One term a line: `(a11+a23)*(b12)*(c14)`.
    Letter,
    /// `{ {A, B, C^T}, ... }` with nested lists of rows.
    Mathematica,
    /// `{"n":[n,m,p],"m":rank,"z2":bool,"u":...,"v":...,"w":...}`.
    PerminovJson,
    /// `n m p rank`, then the U, V and W lines.
    PerminovTxt,
    /// The zlib-base32 seed block of the preprint.
    Seed,
    /// Maple's `TriadSet([Triad([Matrix(..), Matrix(..), Matrix(..)]), ...])` (read only).
    Maple,
}

impl Format {
    /// Every format, in the order of the table above.
    pub const ALL: [Format; 6] = [
        Format::Letter,
        Format::Mathematica,
        Format::PerminovJson,
        Format::PerminovTxt,
        Format::Seed,
        Format::Maple,
    ];

    /// The short name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Letter => "letter",
            Format::Mathematica => "mathematica",
            Format::PerminovJson => "json",
            Format::PerminovTxt => "txt",
            Format::Seed => "seed",
            Format::Maple => "maple",
        }
    }

    /// The usual file extension.
    pub const fn extension(self) -> &'static str {
        match self {
            Format::Letter => "exp",
            Format::Mathematica => "m",
            Format::PerminovJson => "json",
            Format::PerminovTxt => "txt",
            Format::Seed => "b32",
            Format::Maple => "mpl",
        }
    }

    /// True when [`write()`] supports this format.
    pub const fn writable(self) -> bool {
        !matches!(self, Format::Mathematica | Format::Maple)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s || f.extension() == s)
            .ok_or_else(|| format!("unknown format '{s}' (expected letter, mathematica, json, txt, seed or maple)"))
    }
}

/// The ring a scheme is meant for; decides the `z2` flag of Perminov JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ring {
    /// The field with two elements.
    F2,
    /// The integers.
    Z,
}

impl fmt::Display for Ring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ring::F2 => "F2",
            Ring::Z => "Z",
        })
    }
}

/// What is wrong with a file's content, and on which line (1-based) where there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// The 1-based line, when the problem has one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl ParseError {
    /// An error at `line` (1-based).
    pub fn at(line: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            line: Some(line),
            message: message.into(),
        }
    }

    /// An error of the whole file.
    pub fn whole(message: impl Into<String>) -> ParseError {
        ParseError {
            line: None,
            message: message.into(),
        }
    }
}

/// A scheme as read from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemeFile {
    /// The detected format.
    pub format: Format,
    /// The terms, with the file's coefficients.
    pub scheme: IntScheme,
    /// The ring the file declares (Perminov JSON's `z2`), if it declares one.
    pub declared_ring: Option<Ring>,
}

impl SchemeFile {
    /// The scheme over F2: coefficients mod 2, zero terms dropped (what the engines walk), or
    /// an error when the format's factors are wider than `F`. Whether it is valid is
    /// [`crate::verify::verify`]'s to say.
    pub fn f2<F: FactorBits>(&self) -> Result<crate::Scheme<F>, crate::scheme::WidthError> {
        let mut scheme = self.scheme.mod2()?;
        scheme.remove_zero_terms();
        Ok(scheme)
    }
}

/// Reading a file failed: I/O, or its content (with the file's path in the message).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be read.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error (shown in the message, so not chained as a source).
        error: std::io::Error,
    },
    /// Not a regular file (a folder, FIFO or device): reading it could block or never end.
    #[error("{}: not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// Larger than any file this program reads of its kind.
    #[error("{}: larger than {} MiB, more than any valid {what} can be", path.display(), limit >> 20)]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
        /// What the file should hold.
        what: &'static str,
    },
    /// The content is not a valid scheme file.
    #[error("{}:{}{}", path.display(), error.line.map(|l| format!("{l}: ")).unwrap_or_else(|| " ".into()), error.message)]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        error: ParseError,
    },
}

/// Detects the format of `text` from its content.
pub fn detect(text: &str) -> Result<Format, ParseError> {
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(ParseError::whole("the file is empty"));
    }
    // A line of its own: a note that mentions the block (a README) is not one.
    if text.lines().any(|line| line.trim_start().starts_with(seed::BEGIN)) {
        return Ok(Format::Seed);
    }
    if text.contains(maple::MARKER) {
        return Ok(Format::Maple);
    }
    if let Some(rest) = trimmed.strip_prefix('{') {
        return Ok(match rest.trim_start().chars().next() {
            Some('"') => Format::PerminovJson,
            _ => Format::Mathematica,
        });
    }
    let first = trimmed.lines().next().unwrap_or("");
    let fields: Vec<&str> = first.split_whitespace().collect();
    // A first line of numbers alone is a Perminov txt header (checked by its reader).
    let number = |f: &&str| {
        let digits = f.strip_prefix('-').unwrap_or(f);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    if fields.iter().all(number) {
        return Ok(Format::PerminovTxt);
    }
    if trimmed.starts_with(['(', 'a', 'b', 'c', '-', '+']) || trimmed.chars().next().is_some_and(|c| c.is_ascii_digit())
    {
        return Ok(Format::Letter);
    }
    Err(ParseError::at(1, "not a scheme file: unrecognised scheme format (expected the letter format, a Mathematica list, Perminov JSON or txt, a seed block or Maple triads)"))
}

/// Reads a scheme from raw bytes, detecting the format.
pub fn read(bytes: &[u8]) -> Result<SchemeFile, ParseError> {
    // UTF-16 (with its byte-order mark, or without: NUL bytes between ASCII ones) is not read,
    // and said so rather than echoed back with its NUL bytes.
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(ParseError::at(
            1,
            "UTF-16 text (a byte-order mark): scheme files are UTF-8; save it as UTF-8",
        ));
    }
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        return Err(ParseError::at(
            line,
            format!("a NUL byte at offset {at}: UTF-16 or binary, not a scheme file (scheme files are UTF-8 text)"),
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count();
        ParseError::at(
            line,
            format!("not UTF-8 text (invalid byte at offset {})", e.valid_up_to()),
        )
    })?;
    // A UTF-8 byte-order mark (editors on Windows write one) is no part of any format.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let format = detect(text)?;
    let (scheme, declared_ring) = match format {
        Format::Letter => (letter::read(text)?, None),
        Format::Mathematica => (mathematica::read(text)?, None),
        Format::PerminovJson => perminov_json::read(text).map(|(s, r)| (s, Some(r)))?,
        Format::PerminovTxt => (perminov_txt::read(text)?, None),
        Format::Seed => (seed::read(text)?, Some(Ring::F2)),
        Format::Maple => (maple::read(text)?, None),
    };
    if scheme.terms.is_empty() {
        return Err(ParseError::whole("the scheme has no terms"));
    }
    check_coefficients(&scheme)?;
    Ok(SchemeFile {
        format,
        scheme,
        declared_ring,
    })
}

/// The largest scheme file read, 16 MiB: a scheme of 8x8x8 at rank 4096 (eight times the naive
/// rank) with three-digit coefficients takes about 5 MiB in the most verbose format.
pub const MAX_SCHEME_BYTES: u64 = 16 << 20;

/// Opens a regular file for reading, refusing anything else (a FIFO would block, /dev/zero
/// never end).
pub fn open_regular(path: &Path) -> Result<std::fs::File, FileError> {
    let io = |error| FileError::Io {
        path: path.into(),
        error,
    };
    // The type is checked before opening: opening a FIFO for reading blocks until a writer comes.
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(FileError::NotAFile { path: path.into() });
    }
    std::fs::File::open(path).map_err(io)
}

/// Reads a regular file of at most `limit` bytes, without blocking on a FIFO or filling memory
/// from /dev/zero; `what` names its expected content in the error.
pub fn read_bounded(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>, FileError> {
    use std::io::Read;
    let io = |error| FileError::Io {
        path: path.into(),
        error,
    };
    let mut bytes = Vec::new();
    open_regular(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge {
            path: path.into(),
            limit,
            what,
        });
    }
    Ok(bytes)
}

/// Reads a scheme file; errors name the file (and line).
pub fn read_path(path: &Path) -> Result<SchemeFile, FileError> {
    let bytes = read_bounded(path, MAX_SCHEME_BYTES, "scheme")?;
    read(&bytes).map_err(|error| FileError::Parse {
        path: path.into(),
        error,
    })
}

/// A scheme that a writer cannot express.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The format has no writer.
    #[error("cannot write the {0} format")]
    Unsupported(Format),
    /// The seed block holds bits only.
    #[error("the seed format holds F2 schemes only; this scheme has a coefficient outside 0 and 1")]
    NotBinary,
}

/// Writes an F2 scheme in `format` (marked as an F2 scheme where the format can say so).
pub fn write_f2(scheme: &crate::Scheme, format: Format) -> Result<String, WriteError> {
    write(&IntScheme::from_f2(scheme), format, Ring::F2)
}

/// Writes `scheme` in `format`; `ring` decides Perminov JSON's `z2` flag.
pub fn write(scheme: &IntScheme, format: Format, ring: Ring) -> Result<String, WriteError> {
    let nonzero = IntScheme {
        shape: scheme.shape,
        terms: scheme
            .terms
            .iter()
            .filter(|t| t.factors.iter().all(|f| f.iter().any(|&x| x != 0)))
            .cloned()
            .collect(),
    };
    match format {
        Format::Letter => Ok(letter::write(&nonzero)),
        Format::PerminovJson => Ok(perminov_json::write(&nonzero, ring)),
        Format::PerminovTxt => Ok(perminov_txt::write(&nonzero)),
        Format::Seed => seed::write(&nonzero),
        Format::Mathematica | Format::Maple => Err(WriteError::Unsupported(format)),
    }
}

/// Checks a declared rank against [`MAX_RANK`].
fn check_rank(rank: usize, line: Option<usize>) -> Result<(), ParseError> {
    if rank > MAX_RANK {
        Err(ParseError {
            line,
            message: format!("rank {rank} is larger than the supported {MAX_RANK}"),
        })
    } else {
        Ok(())
    }
}

/// Refuses a coefficient beyond [`MAX_COEFFICIENT`], naming its term and factor.
fn check_coefficients(scheme: &IntScheme) -> Result<(), ParseError> {
    for (i, t) in scheme.terms.iter().enumerate() {
        for pos in Position::ALL {
            if let Some(x) = t.get(pos).iter().find(|x| x.unsigned_abs() > MAX_COEFFICIENT as u64) {
                return Err(ParseError::whole(format!(
                    "term {}: coefficient {x} of {} is beyond the supported +-{MAX_COEFFICIENT}",
                    i + 1,
                    pos.letter()
                )));
            }
        }
    }
    Ok(())
}

/// A shape from file values, with the error naming the line.
fn shape_at(n: usize, m: usize, p: usize, line: Option<usize>) -> Result<Shape, ParseError> {
    Shape::new(n, m, p).map_err(|e| ParseError {
        line,
        message: e.to_string(),
    })
}

/// The lengths of the three factors of `shape`.
fn factor_lengths(shape: Shape) -> [usize; 3] {
    Position::ALL.map(|pos| shape.factor_bits(pos))
}
