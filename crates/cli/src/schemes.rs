//! Reading scheme files and deciding what they are valid over.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use flipgraph_core::formats::{self, Format, Ring, SchemeFile};
use flipgraph_core::verify::{self, Diagnosis};
use flipgraph_core::{IntScheme, Scheme};

use crate::atomic_file::write_atomic;

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

    /// The scheme mod 2 with zero terms removed.
    pub fn f2_scheme(&self) -> Scheme {
        self.file.f2()
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

/// How a command writes the scheme it makes.
#[derive(clap::Args, Clone)]
pub struct WriteArgs {
    /// The format to write: letter, json, txt or seed.
    #[arg(long, value_parser = parse_writable, default_value = "json")]
    pub to: Format,
    /// Where to write (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Reduce the coefficients mod 2.
    #[arg(long)]
    pub mod2: bool,
}

/// A format that has a writer (for flags that choose output formats).
pub fn parse_writable(s: &str) -> Result<Format, String> {
    let f: Format = s.parse()?;
    if f.writable() {
        Ok(f)
    } else {
        Err(format!("the {f} format can be read but not written"))
    }
}

/// Verifies `scheme` and writes it as `args` say: with its integer coefficients when it is
/// valid over Z (unless --mod2, or the seed format), else reduced mod 2. An invalid scheme is
/// an error naming `what`, and nothing is written.
pub fn write_verified(scheme: &IntScheme, args: &WriteArgs, what: &str) -> Result<()> {
    let over_z = !args.mod2 && args.to != Format::Seed && verify::verify_z(scheme).is_ok();
    let (out, ring) = if over_z {
        (scheme.clone(), Ring::Z)
    } else {
        let mut f2 = scheme.mod2();
        if let Err(d) = verify::verify(&f2) {
            bail!("{what}: not a valid scheme, not writing it: {d}");
        }
        f2.remove_zero_terms();
        (IntScheme::from_f2(&f2), Ring::F2)
    };
    let text = formats::write(&out, args.to, ring)?;
    match &args.output {
        Some(path) => write_atomic(path, text.as_bytes())?,
        None => std::io::stdout().write_all(text.as_bytes())?,
    }
    tracing::info!("{what}: {} rank {}, valid over {ring}", out.shape, out.rank());
    Ok(())
}

/// Reads and verifies `path`. Z validity is checked unless the file declares F2 and holds
/// only 0 and 1.
pub fn read_checked(path: &Path) -> Result<Checked> {
    let file = formats::read_path(path)?;
    let f2 = verify::verify(&file.scheme.mod2());
    let integer = !file.scheme.is_binary() || file.declared_ring == Some(Ring::Z);
    let z = (integer || f2.is_ok()).then(|| verify::verify_z(&file.scheme));
    Ok(Checked { file, z, f2 })
}

/// Reads `path` as an F2 scheme that must be valid, for commands that start from it.
pub fn read_valid_f2(path: &Path) -> Result<Scheme> {
    let checked = read_checked(path)?;
    if let Err(d) = &checked.f2 {
        anyhow::bail!("{}: not a valid scheme over F2: {d}", path.display());
    }
    Ok(checked.f2_scheme())
}
