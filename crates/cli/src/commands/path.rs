//! `flipgraph path A B` and `flipgraph replay A PATH`: flip-graph paths between schemes.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flipgraph_core::formats;
use flipgraph_core::path::{apply, parse, path, to_text, Move};
use flipgraph_core::verify::verify;
use flipgraph_core::{IntScheme, Scheme};

use crate::atomic_file::write_atomic;
use crate::schemes::read_valid_f2;
use crate::write::{write_verified, WriteArgs};

/// The largest path file read: a million moves of some 60 bytes each.
const MAX_PATH_BYTES: u64 = 64 << 20;

/// Build a path of moves (plus moves, merges and pairs; see the path format in flipgraph-core's
/// `path` module) that turns scheme A into scheme B of the same shape, over F2.
#[derive(clap::Args)]
pub struct PathArgs {
    /// Scheme A, where the path starts (valid over F2; any format).
    from: PathBuf,
    /// Scheme B, where it ends (valid over F2, of A's shape).
    to: PathBuf,
    /// Where to write the path (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Replay a path from a scheme: every move must apply; the end must verify (and equal --target).
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The scheme the path starts from (valid over F2; any format).
    from: PathBuf,
    /// The path file (`flipgraph path` writes one).
    path: PathBuf,
    /// The scheme the path must arrive at exactly.
    #[arg(long)]
    target: Option<PathBuf>,
    #[command(flatten)]
    write: WriteArgs,
}

fn counts(moves: &[Move]) -> String {
    let n = |f: fn(&Move) -> bool| moves.iter().filter(|m| f(m)).count();
    format!(
        "{} moves ({} flips, {} plus, {} merges, {} pairs)",
        moves.len(),
        n(|m| matches!(m, Move::Flip { .. })),
        n(|m| matches!(m, Move::Plus { .. })),
        n(|m| matches!(m, Move::Merge { .. })),
        n(|m| matches!(m, Move::Pair { .. }))
    )
}

pub fn build(args: PathArgs) -> Result<ExitCode> {
    let (a, b) = (read_valid_f2(&args.from)?, read_valid_f2(&args.to)?);
    if a.shape() != b.shape() {
        bail!("the schemes have different shapes: {} and {}", a.shape(), b.shape());
    }
    let moves = path(&a, &b);
    let text = to_text(a.shape(), &moves);
    match &args.output {
        Some(p) => write_atomic(p, text.as_bytes())?,
        None => print!("{text}"),
    }
    eprintln!("path from rank {} to rank {}: {}", a.rank(), b.rank(), counts(&moves));
    Ok(ExitCode::SUCCESS)
}

pub fn replay(args: ReplayArgs) -> Result<ExitCode> {
    let a = read_valid_f2(&args.from)?;
    let bytes = formats::read_bounded(&args.path, MAX_PATH_BYTES, "path")?;
    let text = String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8 text", args.path.display()))?;
    let (shape, moves) = parse(&text).with_context(|| format!("{}", args.path.display()))?;
    if shape != a.shape() {
        bail!(
            "{}: a path for {shape}, but the scheme is {}",
            args.path.display(),
            a.shape()
        );
    }
    let mut terms = a.terms().to_vec();
    for (i, m) in moves.iter().enumerate() {
        apply(&mut terms, m, i).with_context(|| format!("{}", args.path.display()))?;
    }
    let end = Scheme::new(shape, terms)?;
    verify(&end).map_err(|d| anyhow::anyhow!("the path ends at an invalid scheme: {d}"))?;
    eprintln!("replayed {}: rank {} to rank {}", counts(&moves), a.rank(), end.rank());
    if let Some(target) = &args.target {
        let b = read_valid_f2(target)?;
        let (mut x, mut y) = (end.terms().to_vec(), b.terms().to_vec());
        x.sort_unstable();
        y.sort_unstable();
        if x != y {
            bail!("the path does not arrive at {}", target.display());
        }
        eprintln!("arrived exactly at {}", target.display());
    }
    write_verified(&IntScheme::from_f2(&end), &args.write, "the end of the path")?;
    Ok(ExitCode::SUCCESS)
}
