//! `flipgraph info FILE`

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use flipgraph_core::additions::{programs, Program};
use flipgraph_core::group::{invariant_groups, orbits, Group};
use flipgraph_core::known::best_known_rank;
use flipgraph_core::symmetry::is_c3_invariant;
use flipgraph_core::{IntScheme, Position};

use crate::schemes::read_checked;

/// Describe a scheme: shape, rank, ring, factor weights, the additions of the plain evaluation
/// and the flips it offers.
#[derive(clap::Args)]
pub struct Args {
    /// The scheme (any readable format).
    file: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let checked = read_checked(&args.file)?;
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
    let scheme = match checked.f2_scheme() {
        Ok(scheme) => scheme,
        Err(why) => {
            // Symmetries, weights and flips are counted on 64-bit factors.
            println!("details:   none for this format ({why:#})");
            return Ok(ExitCode::SUCCESS);
        }
    };
    if file.scheme.shape.is_square() {
        let yes = if is_c3_invariant(&scheme) { "yes" } else { "no" };
        println!("C3-invariant (a(x)b(x)c -> b(x)c(x)a): {yes}");
    }
    // The groups a symmetric search can walk it under (--symmetry), with their orbits.
    let groups: Vec<String> = invariant_groups(&scheme)
        .into_iter()
        .filter(|&g| g != Group::Trivial)
        .filter_map(|g| {
            let o = orbits(g, &scheme).ok()?;
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
    for pos in Position::ALL {
        println!("weight {}:  {}", pos.letter(), scheme.weight(pos));
    }
    println!("naive additions (F2): {}", scheme.naive_additions());
    let shared = programs(&IntScheme::from_f2(&scheme), true, true);
    println!(
        "additions, shared pairs once (F2): {} (flipgraph codegen)",
        shared.iter().map(Program::additions).sum::<usize>()
    );
    let pairs = scheme.flip_pairs();
    let sink = if pairs == 0 {
        " (a sink: only a plus move leaves it)"
    } else {
        ""
    };
    println!("flip pairs (F2): {pairs}{sink}");
    Ok(ExitCode::SUCCESS)
}
