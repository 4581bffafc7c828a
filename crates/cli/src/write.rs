//! How a command writes the scheme it makes: `--to`, `--output`, `--mod2`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};
use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::{verify, IntScheme};

use crate::atomic_file::write_atomic;

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
        // 128-bit factors hold every format, so wide products and sums are verified too.
        let mut f2 = scheme.mod2::<u128>()?;
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
