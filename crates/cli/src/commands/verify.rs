//! `flipgraph verify FILE...`

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flipgraph_core::formats::Ring;

use crate::schemes::read_checked;

/// Check scheme files: prints format, shape, rank, ring and validity (or a diagnosis) per file.
#[derive(clap::Args)]
#[command(after_help = "Exit status: 0 when every file is valid, 1 otherwise.")]
pub struct Args {
    /// Scheme files in any supported format (detected from the content).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Demand validity over this ring: f2 (default; integer files are reduced mod 2) or z.
    #[arg(long, default_value = "f2", value_parser = parse_ring)]
    ring: Ring,
}

pub fn parse_ring(s: &str) -> Result<Ring, String> {
    match s.to_ascii_lowercase().as_str() {
        "f2" | "z2" | "gf2" => Ok(Ring::F2),
        "z" => Ok(Ring::Z),
        _ => Err(format!("unknown ring '{s}' (expected f2 or z)")),
    }
}

/// Prints one line per file on standard output, valid or not (so that a pipe keeps the
/// failures, in the files' order), and on standard error how many failed. Folders (as
/// `verify DIR/*` names them) are passed over, with a note.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut failed = 0;
    let (folders, files): (Vec<&PathBuf>, Vec<&PathBuf>) = args.files.iter().partition(|p| p.is_dir());
    for folder in &folders {
        eprintln!("{}: a folder, passed over (name the files in it)", folder.display());
    }
    if files.is_empty() {
        bail!("no files to verify: every path given is a folder");
    }
    for path in &files {
        let checked = match read_checked(path) {
            Ok(c) => c,
            Err(e) => {
                println!("error: {e:#}");
                failed += 1;
                continue;
            }
        };
        let s = &checked.file.scheme;
        let head = format!(
            "{}: {}, {}, rank {}",
            path.display(),
            checked.file.format,
            s.shape,
            s.rank()
        );
        let f2_note = if checked.f2.is_ok() { " (valid over F2)" } else { "" };
        let verdict = match (args.ring, &checked.z, &checked.f2) {
            (Ring::Z, Some(Err(d)), _) => Err(format!("INVALID over Z{f2_note}: {d}")),
            (_, _, Err(d)) => Err(format!("INVALID over F2: {d}")),
            _ => Ok(format!("valid over {}", checked.ring().unwrap_or(Ring::F2))),
        };
        match verdict {
            Ok(v) => println!("{head}: {v}"),
            Err(v) => {
                failed += 1;
                println!("{head}: {v}");
            }
        }
    }
    if failed > 0 {
        eprintln!("error: {failed} of {} files are not valid schemes", files.len());
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
