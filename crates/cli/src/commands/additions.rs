//! `flipgraph additions FILE`: the fewest additions found for a scheme, its program, and with
//! `--walk` a scheme of the same rank that needs fewer.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use flipgraph_core::additions::walk::walk;
use flipgraph_core::additions::{minimize, write_program, Effort, SchemeProgram};
use flipgraph_core::formats::{Format, Ring};
use flipgraph_core::{verify, IntScheme};

use super::duration::parse_positive_duration;
use crate::output::atomic_file::write_atomic;
use crate::schemes::{read_checked, Checked};
use crate::write::{refuse_overwriting, Rendered};

/// Count the additions of a scheme's best program found (pairs shared by several linear forms
/// computed once, in both orientations of each map, over many greedy runs), over Z for a
/// scheme valid over Z and over F2 (XORs) otherwise. The program is verified against the
/// schoolbook product before it is reported. The last line is `additions: N`.
#[derive(clap::Args)]
pub struct Args {
    /// The scheme (any readable format).
    file: PathBuf,
    /// Count over F2 (XORs) even for a scheme valid over Z.
    #[arg(long)]
    f2: bool,
    /// Walk the flip graph at the scheme's rank this long (90s, 10m, 1h) and keep the scheme
    /// with the fewest additions (over Z, flips that keep every coefficient in {-1, 0, 1}).
    #[arg(long, value_parser = parse_positive_duration, requires = "save")]
    walk: Option<Duration>,
    /// Where --walk writes the best scheme found (JSON, verified first).
    #[arg(long)]
    save: Option<PathBuf>,
    /// The walk's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the program (JSON) here; `flipgraph codegen` turns it into code.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// The scheme whose additions are counted and the ring they are counted over: Z for a scheme
/// valid over Z (unless `f2` asks for F2), else F2 with the coefficients mod 2.
pub fn counted_scheme(checked: &Checked, path: &Path, f2: bool) -> Result<(IntScheme, bool)> {
    match checked.ring() {
        Some(Ring::Z) if !f2 => Ok((checked.file.scheme.clone(), false)),
        Some(_) => Ok((IntScheme::from_f2(&checked.file.f2::<u128>()?), true)),
        None => bail!("{}: not a valid scheme over any ring", path.display()),
    }
}

/// The program `additions`, `info` and `codegen` report for a scheme: [`minimize`] with the
/// default effort, verified.
pub fn best_program(scheme: &IntScheme, f2: bool, path: &Path) -> Result<SchemeProgram> {
    checked_program(minimize(scheme, f2, Effort::DEFAULT), path)
}

/// `program` once it has multiplied random matrices correctly and its scheme verifies.
fn checked_program(program: SchemeProgram, path: &Path) -> Result<SchemeProgram> {
    program
        .verify(16, 0x7e57)
        .with_context(|| format!("{}: the program found does not multiply correctly", path.display()))?;
    Ok(program)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let outputs = [args.output.as_deref(), args.save.as_deref()];
    for out in outputs {
        refuse_overwriting(out, &[&args.file])?;
    }
    let checked = read_checked(&args.file)?;
    let (scheme, f2) = counted_scheme(&checked, &args.file, args.f2)?;
    let ring = if f2 { "F2 (XORs)" } else { "Z" };
    println!("file:      {}", args.file.display());
    println!("shape:     {}", scheme.shape);
    println!("rank:      {}", scheme.rank());
    println!("counted over: {ring}");
    println!("term by term: {}", SchemeProgram::naive(&scheme, f2).additions());
    let program = match args.walk {
        None => best_program(&scheme, f2, &args.file)?,
        Some(time) => walked(&scheme, f2, time, &args)?,
    };
    if let Some(path) = &args.output {
        write_atomic(path, write_program(&program).as_bytes())?;
        println!("program:   {}", path.display());
    }
    print_breakdown(&program);
    println!("additions: {}", program.additions());
    Ok(ExitCode::SUCCESS)
}

/// Walks from `scheme` for `time`, writes the best scheme to `--save`, and returns its program.
fn walked(scheme: &IntScheme, f2: bool, time: Duration, args: &Args) -> Result<SchemeProgram> {
    let started = Instant::now();
    let found = walk(scheme, f2, args.seed, |_| started.elapsed() < time);
    let program = checked_program(found.program, &args.file)?;
    // Flips and changes of basis keep the tensor over Z; a scheme that lost it is a bug, and
    // is not written as an F2 scheme in its place.
    if !f2 {
        if let Err(d) = verify::verify_z(&found.scheme) {
            bail!("the walk's best scheme is not valid over Z ({d}); not writing it");
        }
    }
    let save = args.save.as_deref().expect("clap requires --save with --walk");
    Rendered::new(&found.scheme, Format::PerminovJson, f2, "the walk's best scheme")?.write(Some(save))?;
    println!(
        "walk:      {:.0} s, {} schemes scored; from {} additions to {}",
        started.elapsed().as_secs_f64(),
        found.steps,
        found.start.additions(),
        program.additions()
    );
    println!("scheme:    {}", save.display());
    Ok(program)
}

/// Each map's additions and the unary minuses left.
fn print_breakdown(program: &SchemeProgram) {
    for (map, name) in program.maps.iter().zip(["A", "B", "C"]) {
        println!(
            "map of {name}: {} additions ({} shared pairs)",
            map.additions(),
            map.pairs.len()
        );
    }
    println!("unary minuses: {}", program.negations());
}
