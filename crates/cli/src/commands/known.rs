//! `flipgraph known [SHAPE] [--results DIR...]`: the best known ranks, and a campaign's standing
//! beside them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use flipgraph_core::construction::{self, Construction};
use flipgraph_core::known::{best_known, best_known_rank, table, wide_table, zt_table, BestKnown};
use flipgraph_core::serendipity::rank_or_naive;
use flipgraph_core::Shape;

use super::choices::RingArg;
use crate::results::ours;

/// The best known rank over F2 (or, with --ring zt, over {-1,0,1}) of every format up to
/// 8x8x8 (with --wide: of the larger formats up to 16), with its source; with `--results`,
/// the best verified scheme found in result folders beside it.
#[derive(clap::Args)]
pub struct Args {
    /// One format (e.g. 4x4x5, 5 or 4x5x12); all 84 up to 8x8x8 when left out.
    shape: Option<Shape>,
    /// List the formats beyond 8x8x8 instead (a dimension of 9 to 16, at most 128 entries per
    /// matrix); searches walk every one of them (factors of up to 128 bits; symmetric walks
    /// take those of at most 64 entries a matrix).
    #[arg(long, conflicts_with = "shape")]
    wide: bool,
    /// Result folders (searched two levels deep for files named SHAPE-rRANK.EXT, as `search`
    /// writes them); the lowest rank per format that verifies is shown.
    #[arg(long, num_args = 1..)]
    results: Vec<PathBuf>,
    /// Print the sources in full.
    #[arg(long)]
    sources: bool,
    /// List the constructions of SHAPE (products, sums, extensions, projections of other
    /// formats, in every orientation) by the rank they reach: from the best known ranks, or with
    /// --results from the best schemes found there.
    #[arg(long, requires = "shape")]
    constructions: bool,
    /// The ring of the ranks: f2, or zt (coefficients -1, 0, 1, valid over Z: the field's
    /// catalogues rank schemes so; the note gives the Z rank).
    #[arg(long, value_enum, default_value = "f2", conflicts_with_all = ["results", "constructions"])]
    ring: RingArg,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let (true, Some(shape)) = (args.constructions, args.shape) {
        return list_constructions(shape, &args.results);
    }
    let zt = args.ring == RingArg::Zt;
    let entries: Vec<BestKnown> = match args.shape {
        Some(shape) => {
            let entry = match zt {
                true => zt_table().find(|e| e.dims == shape.sorted_dims()),
                false => best_known(shape),
            };
            let entry = entry.with_context(|| format!("{shape}: no best known rank (no dimension of 1)"))?;
            if entry.dims != shape.dims() {
                let [n, m, p] = entry.dims;
                println!("{shape}: the table lists it as {n}x{m}x{p} (the rank does not depend on the order)");
            }
            vec![entry]
        }
        // Over ZT one table up to 16: --wide lists its formats beyond 8x8x8.
        None if zt => zt_table().filter(|e| (e.dims[2] > 8) == args.wide).collect(),
        None if args.wide => wide_table().collect(),
        None => table().collect(),
    };
    // One format's source is shown in full.
    let full_sources = args.sources || args.shape.is_some();
    let ours = ours(&args.results)?;
    let mut header = format!("{:<8} {:>5}", "format", "best");
    if !args.results.is_empty() {
        header += &format!(" {:>5} {:>5}", "ours", "gap");
    }
    println!("{header}  source");
    let mut records = 0;
    for e in &entries {
        let [n, m, p] = e.dims;
        let mut line = format!("{:<8} {:>5}", format!("{n}x{m}x{p}"), e.rank);
        if !args.results.is_empty() {
            match ours.get(&e.dims) {
                Some(&(found, _)) => {
                    let gap = found as i64 - e.rank as i64;
                    records += usize::from(gap < 0);
                    line += &format!(" {found:>5} {gap:>+5}");
                }
                None => line += &format!(" {:>5} {:>5}", "-", ""),
            }
        }
        println!("{line}  {}", source_text(e, full_sources));
    }
    if !args.results.is_empty() {
        println!(
            "{} of {} formats searched; {records} below the best known rank",
            entries.iter().filter(|e| ours.contains_key(&e.dims)).count(),
            entries.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Constructions listed at most.
const CONSTRUCTIONS_SHOWN: usize = 12;

/// Prints the constructions of `shape`, from the ranks of the schemes in `results` (when
/// given) or the built-in table.
fn list_constructions(shape: Shape, results: &[PathBuf]) -> Result<ExitCode> {
    let ours = ours(results)?;
    let rank_of = |s: Shape| match results.is_empty() {
        true => best_known_rank(s),
        false => ours.get(&s.sorted_dims()).map(|&(rank, _)| rank),
    };
    let from = if results.is_empty() {
        "the best known ranks".to_owned()
    } else {
        "the schemes in --results".to_owned()
    };
    let known = best_known_rank(shape)
        .map(|r| format!(" (best known {r})"))
        .unwrap_or_default();
    // Serendipitous products need the base scheme itself: from --results only.
    let base_of = |s: Shape| crate::schemes::read_valid(&ours.get(&s.sorted_dims())?.1).ok();
    let plans = construction::constructions_from_schemes(shape, base_of, rank_of);
    println!("constructions of {shape}{known} from {from}: {}", plans.len());
    // A format with a dimension 1 is its naive rank (a serendipitous product's inner one).
    let named = |s: Shape| format!("{s} ({})", rank_or_naive(s, rank_of).unwrap_or_default());
    for plan in plans.iter().take(CONSTRUCTIONS_SHOWN) {
        let how = match plan.construction {
            Construction::Product(x, y) => format!("product {} x {}", named(x), named(y)),
            Construction::Sum(x, y, dim) => format!("sum along {dim}: {} + {}", named(x), named(y)),
            Construction::Extension(x, dim) => format!("extension along {dim} of {}", named(x)),
            Construction::Projection(x, dim) => format!("projection along {dim} of {}", named(x)),
            Construction::Serendipitous(x, y) => {
                format!(
                    "serendipitous product of {} (its buds together) and {}",
                    named(x),
                    named(y)
                )
            }
        };
        let bound = if plan.exact() { " " } else { "<=" };
        println!("{bound}{:>5}  {how}", plan.rank);
    }
    Ok(ExitCode::SUCCESS)
}

fn source_text(e: &BestKnown, full: bool) -> String {
    let note = if e.note.is_empty() {
        String::new()
    } else {
        format!(" [{}]", e.note)
    };
    let source = if full || e.source.len() <= 60 {
        e.source.to_string()
    } else {
        format!("{}...", e.source.chars().take(57).collect::<String>())
    };
    source + &note
}
