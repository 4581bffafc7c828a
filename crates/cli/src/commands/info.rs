//! `flipgraph info FILE`

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use flipgraph_core::group::{invariant_groups, orbits, Group};
use flipgraph_core::known::best_known_rank;
use flipgraph_core::symmetry::is_c3_invariant;
use flipgraph_core::{Position, Scheme};

use super::additions::{best_program, counted_scheme};
use crate::schemes::read_checked;

/// Describe a scheme: shape, rank, ring, factor weights, the additions of the plain evaluation
/// and of the best program `flipgraph additions` finds, and the flips it offers. Exits 1 when the scheme is valid over no ring (after describing
/// it).
#[derive(clap::Args)]
pub struct Args {
    /// The scheme (any readable format).
    file: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let checked = read_checked(&args.file)?;
    let valid = checked.ring().is_some();
    let file = &checked.file;
    println!("file:      {}", args.file.display());
    println!("format:    {}", file.format);
    println!("shape:     {}", file.scheme.shape);
    println!("rank:      {}", file.scheme.rank());
    if let Some(best) = best_known_rank(file.scheme.shape) {
        println!("best known rank over F2: {best}");
    }
    match checked.ring() {
        Some(ring) => println!("valid over: {ring}"),
        None => println!(
            "valid over: nothing ({})",
            checked.f2.as_ref().err().map(ToString::to_string).unwrap_or_default()
        ),
    }
    // Symmetries are read on 64-bit factors (the groups' walks); the counts below on 128-bit
    // ones, which hold every format.
    match checked.f2_scheme() {
        Ok(scheme) => print_symmetries(&scheme),
        Err(why) => println!("symmetries: not read for this format ({why:#})"),
    }
    let scheme = file.f2::<u128>()?;
    for pos in Position::ALL {
        println!("weight {}:  {}", pos.letter(), scheme.weight(pos));
    }
    println!("naive additions (F2): {}", scheme.naive_additions());
    if valid {
        let (counted, f2) = counted_scheme(&checked, &args.file, false)?;
        let program = best_program(&counted, f2, &args.file)?;
        let ring = if f2 { "F2, XORs" } else { "Z" };
        println!("additions ({ring}): {} (flipgraph additions)", program.additions());
    }
    let pairs = scheme.flip_pairs();
    let sink = if pairs == 0 {
        " (a sink: only a plus move leaves it)"
    } else {
        ""
    };
    println!("flip pairs (F2): {pairs}{sink}");
    match valid {
        true => Ok(ExitCode::SUCCESS),
        false => {
            eprintln!("error: {}: not a valid scheme over any ring", args.file.display());
            Ok(ExitCode::FAILURE)
        }
    }
}

/// Whether `scheme` is C3-invariant, and the groups a symmetric search can walk it under
/// (`--symmetry`), with their orbits.
fn print_symmetries(scheme: &Scheme) {
    if scheme.shape().is_square() {
        let yes = if is_c3_invariant(scheme) { "yes" } else { "no" };
        println!("C3-invariant (a(x)b(x)c -> b(x)c(x)a): {yes}");
    }
    let groups: Vec<String> = invariant_groups(scheme)
        .into_iter()
        .filter(|&g| g != Group::Trivial)
        .filter_map(|g| {
            let o = orbits(g, scheme).ok()?;
            Some(format!(
                "{g} ({} free orbits, {} other terms)",
                o.free.len(),
                o.fixed.len()
            ))
        })
        .collect();
    println!(
        "invariant under: {}",
        if groups.is_empty() {
            "none".to_owned()
        } else {
            groups.join(", ")
        }
    );
}
