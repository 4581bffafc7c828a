//! `flipgraph convert IN --to FORMAT [-o OUT]`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::IntScheme;

use crate::output::write_atomic;
use crate::schemes::read_checked;

/// Convert a scheme between formats. The scheme is verified first; a scheme valid over Z keeps
/// its integer coefficients unless --mod2 is given (the seed format always holds F2).
#[derive(clap::Args)]
#[command(after_help = "Formats: letter (.exp), json (Perminov JSON), txt (Perminov txt), seed (zlib-base32 block).")]
pub struct Args {
    /// The scheme to convert (any readable format).
    input: PathBuf,
    /// The format to write.
    #[arg(long, value_parser = parse_writable)]
    to: Format,
    /// Where to write (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Reduce the coefficients mod 2.
    #[arg(long)]
    mod2: bool,
}

fn parse_writable(s: &str) -> Result<Format, String> {
    let f: Format = s.parse()?;
    if f.writable() {
        Ok(f)
    } else {
        Err(format!("the {f} format can be read but not written"))
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let checked = read_checked(&args.input)?;
    let (scheme, ring) = match checked.ring() {
        Some(Ring::Z) if !args.mod2 && args.to != Format::Seed => (checked.file.scheme.clone(), Ring::Z),
        Some(_) => (IntScheme::from_f2(&checked.f2_scheme()), Ring::F2),
        None => bail!(
            "{}: not a valid scheme, not converting: {}",
            args.input.display(),
            checked.f2.as_ref().err().map(|d| d.to_string()).unwrap_or_default()
        ),
    };
    let text = formats::write(&scheme, args.to, ring)?;
    match &args.output {
        Some(path) => write_atomic(path, text.as_bytes())?,
        None => std::io::stdout().write_all(text.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
