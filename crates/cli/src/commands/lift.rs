//! `flipgraph lift FILE`: lift an F2 scheme to the integers.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flipgraph_core::lift::{lift_reporting, LiftError, LiftStage, DEFAULT_BITS, DEFAULT_TRIES};

use crate::schemes::read_checked;
use crate::write::{refuse_overwriting, write_verified, WriteArgs};

/// Lift a scheme valid over F2 to one valid over Z (Hensel lifting, preferring coefficients
/// in {-1,0,1}); says so, and why, when no lift exists or none is found.
#[derive(clap::Args)]
pub struct Args {
    /// The scheme (any readable format).
    input: PathBuf,
    /// Random sign vectors to try before the general lift.
    #[arg(long, default_value_t = DEFAULT_TRIES)]
    tries: usize,
    /// Lift the general system up to 2^BITS (2 to 40: products of three coefficients must fit
    /// 128-bit integers).
    #[arg(long, default_value_t = DEFAULT_BITS, value_parser = clap::value_parser!(u32).range(2..=40))]
    bits: u32,
    #[command(flatten)]
    write: WriteArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    refuse_overwriting(args.write.output.as_deref(), &[&args.input])?;
    let checked = read_checked(&args.input)?;
    if checked.f2.is_err() {
        bail!("{}: not a valid scheme over F2; nothing to lift", args.input.display());
    }
    let scheme = checked
        .f2_scheme::<u128>()
        .with_context(|| format!("{}: cannot lift", args.input.display()))?;
    tracing::info!(
        "lifting {} rank {} to Z: {} random sign vectors, then the general lift up to 2^{} \
         (a 7x7x7 scheme takes a minute or more)",
        scheme.shape(),
        scheme.rank(),
        args.tries,
        args.bits
    );
    // Nothing is written before the lift ends: Ctrl-C (or SIGTERM) ends it at once.
    ctrlc::set_handler(|| {
        eprintln!("interrupted: no lift written");
        std::process::exit(130);
    })
    .context("cannot install the Ctrl-C handler")?;
    let started = std::time::Instant::now();
    let lifted = lift_reporting(&scheme, args.tries, args.bits, &mut |stage| {
        match stage {
        LiftStage::Signs { equations, unknowns } => {
            tracing::info!("lift: signs on the support, {equations} equations in {unknowns} unknowns over F2")
        }
        LiftStage::Level {
            level,
            bits,
            equations,
            unknowns,
        } => tracing::info!(
            "lift: the general system, digit {level} of {bits} ({equations} equations in {unknowns} unknowns), {:.1}s in",
            started.elapsed().as_secs_f64()
        ),
    }
    });
    tracing::info!("lift finished in {:.1}s", started.elapsed().as_secs_f64());
    match lifted {
        Ok(z) => {
            write_verified(&z, &args.write, &format!("lift of {}", args.input.display()))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{}: {e}", args.input.display());
            if let Some(hint) = hint(&e, &args) {
                eprintln!("hint: {hint}");
            }
            Ok(ExitCode::FAILURE)
        }
    }
}

/// What may still find a lift after `failed`, in the flags' terms; None where nothing can (no
/// lift exists, or the scheme is not valid over F2).
fn hint(failed: &LiftError, args: &Args) -> Option<String> {
    match failed {
        LiftError::NotFound { .. } => Some(format!(
            "more sign vectors or digits may find one: --tries {} --bits {}; another scheme of the same rank \
             (a search's other results, or `flipgraph search --from` this one) may lift where this one does not",
            args.tries.saturating_mul(10).max(1),
            (args.bits + 8).min(40)
        )),
        LiftError::TooLarge { .. } | LiftError::NoSigns { .. } => Some(format!(
            "more sign vectors may find one with signs on the support: --tries {}",
            args.tries.saturating_mul(10).max(1)
        )),
        LiftError::NoLift => Some(
            "no flag changes that; another scheme of the same rank may lift (a search's other results, or \
             `flipgraph search --from` this one)"
                .into(),
        ),
        LiftError::Invalid => None,
    }
}
