//! `flipgraph path A B` and `flipgraph replay A PATH`: flip-graph paths between schemes.

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flipgraph_core::path::{parse_header, parse_line, path, to_text, Move, Replay};
use flipgraph_core::verify::verify;
use flipgraph_core::{IntScheme, Scheme};

use crate::output::atomic_file::write_atomic;
use crate::schemes::read_valid_f2;
use crate::write::{refuse_overwriting, write_verified, WriteArgs};

/// The longest line of a path file read: a move takes under 200 bytes. The file itself has no
/// limit: it is read line by line (a path of 3.3 M moves is 136 MB).
const MAX_LINE_BYTES: u64 = 4096;

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

/// How many moves of each kind a path has.
#[derive(Default)]
struct MoveCounts([usize; 4]);

impl MoveCounts {
    fn add(&mut self, m: &Move) {
        let kind = match m {
            Move::Flip { .. } => 0,
            Move::Plus { .. } => 1,
            Move::Merge { .. } => 2,
            Move::Pair { .. } => 3,
        };
        self.0[kind] += 1;
    }
}

impl fmt::Display for MoveCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [flips, plus, merges, pairs] = self.0;
        let all = flips + plus + merges + pairs;
        write!(
            f,
            "{all} moves ({flips} flips, {plus} plus, {merges} merges, {pairs} pairs)"
        )
    }
}

pub fn build(args: PathArgs) -> Result<ExitCode> {
    refuse_overwriting(args.output.as_deref(), &[&args.from, &args.to])?;
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
    let mut counts = MoveCounts::default();
    moves.iter().for_each(|m| counts.add(m));
    eprintln!("path from rank {} to rank {}: {counts}", a.rank(), b.rank());
    Ok(ExitCode::SUCCESS)
}

pub fn replay(args: ReplayArgs) -> Result<ExitCode> {
    let a = read_valid_f2(&args.from)?;
    let name = args.path.display();
    let file = flipgraph_core::formats::open_regular(&args.path)?;
    let mut reader = BufReader::new(file);
    let (mut replay, mut counts) = (Replay::new(a.terms()), MoveCounts::default());
    let (mut shape, mut line, mut text) = (None, 0, String::new());
    loop {
        text.clear();
        let read = (&mut reader).take(MAX_LINE_BYTES + 1).read_line(&mut text);
        let bytes = read.with_context(|| format!("{name}: line {}: not UTF-8 text", line + 1))?;
        if bytes == 0 {
            break;
        }
        line += 1;
        if bytes as u64 > MAX_LINE_BYTES {
            bail!("{name}: line {line} is longer than {MAX_LINE_BYTES} bytes: not a path file");
        }
        if shape.is_none() {
            shape = parse_header(line, &text).with_context(|| format!("{name}"))?;
            if let Some(s) = shape.filter(|&s| s != a.shape()) {
                bail!("{name}: a path for {s}, but the scheme is {}", a.shape());
            }
        } else if let Some(m) = parse_line(line, &text).with_context(|| format!("{name}"))? {
            counts.add(&m);
            replay.apply(&m).with_context(|| format!("{name}: line {line}"))?;
        }
    }
    let Some(shape) = shape else {
        bail!("{name}: line 1: empty path file");
    };
    let end = Scheme::new(shape, replay.terms())
        .with_context(|| format!("{name}: its moves put bits outside the matrices of {shape}"))?;
    verify(&end).map_err(|d| anyhow::anyhow!("the path ends at an invalid scheme: {d}"))?;
    eprintln!("replayed {counts}: rank {} to rank {}", a.rank(), end.rank());
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
