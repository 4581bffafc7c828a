//! Reading scheme files and deciding what they are valid over.

use std::path::Path;

use anyhow::{bail, Context, Result};
use flipgraph_core::formats::{self, Ring, SchemeFile};
use flipgraph_core::term::FactorBits;
use flipgraph_core::verify::{self, Diagnosis};
use flipgraph_core::{IntScheme, Scheme};

/// A scheme file, read and verified.
pub struct Checked {
    pub file: SchemeFile,
    /// Over Z (only checked when the file has integer coefficients or declares Z).
    pub z: Option<Result<(), Diagnosis>>,
    /// Over F2 (the coefficients mod 2).
    pub f2: Result<(), Diagnosis>,
}

impl Checked {
    /// The richest ring the scheme is valid over, if any.
    pub fn ring(&self) -> Option<Ring> {
        match (&self.z, &self.f2) {
            (Some(Ok(())), _) => Some(Ring::Z),
            (_, Ok(())) => Some(Ring::F2),
            _ => None,
        }
    }

    /// The scheme mod 2 with zero terms removed; an error for a format whose factors need
    /// more than 64 bits (the engines walk 64-bit factors).
    pub fn f2_scheme<F: FactorBits>(&self) -> Result<Scheme<F>> {
        Ok(self.file.f2()?)
    }
}

/// Reads `path` and demands a scheme valid over F2 at least (integer coefficients kept).
pub fn read_valid(path: &Path) -> Result<IntScheme> {
    let checked = read_checked(path)?;
    if let Err(d) = &checked.f2 {
        bail!("{}: not a valid scheme: {d}", path.display());
    }
    Ok(checked.file.scheme)
}

/// Reads and verifies `path`. Z validity is checked unless the file declares F2 and holds
/// only 0 and 1.
pub fn read_checked(path: &Path) -> Result<Checked> {
    let file = formats::read_path(path)?;
    // Verified with 128-bit factors, which hold every format (9x9x9 and 10x10x10 included).
    let f2 = verify::verify(&file.scheme.mod2::<u128>()?);
    let integer = !file.scheme.is_binary() || file.declared_ring == Some(Ring::Z);
    let z = (integer || f2.is_ok()).then(|| verify::verify_z(&file.scheme));
    Ok(Checked { file, z, f2 })
}

/// Reads `path` as an F2 scheme that must be valid, for commands that start from it.
pub fn read_valid_f2<F: FactorBits>(path: &Path) -> Result<Scheme<F>> {
    let checked = read_checked(path)?;
    if let Err(d) = &checked.f2 {
        anyhow::bail!("{}: not a valid scheme over F2: {d}", path.display());
    }
    checked.f2_scheme().with_context(|| path.display().to_string())
}
