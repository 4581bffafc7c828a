//! Scheme algebra: `product`, `sum`, `split`, `extend`, `project`, `rotate`, `transpose`. Each
//! reads valid schemes, builds the new ones with flipgraph-core's algebra, verifies them and
//! writes them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use flipgraph_core::algebra::{self, Dim};
use flipgraph_core::projection;
use flipgraph_core::Shape;

use crate::output::atomic_file::write_atomic;
use crate::results::{best_construction, ours};
use crate::schemes::read_valid;
use crate::write::{readable_rank, refuse_overwriting, same_file, write_verified, Encoding, WriteArgs};

fn parse_dim(s: &str) -> Result<Dim, String> {
    match s {
        "n" => Ok(Dim::N),
        "m" => Ok(Dim::M),
        "p" => Ok(Dim::P),
        _ => Err(format!("unknown dimension '{s}' (expected n, m or p)")),
    }
}

/// The Kronecker product: <n1,m1,p1> and <n2,m2,p2> give <n1n2,m1m2,p1p2> of rank r1*r2.
#[derive(clap::Args)]
#[command(
    after_help = "Example: flipgraph product tests/data/2x2x2-r7-strassen.m tests/data/2x2x2-r7-strassen.m -o 4x4x4-r49.json"
)]
pub struct ProductArgs {
    /// The first factor's scheme (valid; any format).
    first: PathBuf,
    /// The second factor's scheme (valid; any format).
    second: PathBuf,
    #[command(flatten)]
    write: WriteArgs,
}

/// The sum along a dimension: <n,m,p1> and <n,m,p2> give <n,m,p1+p2> (or along n or m) of
/// rank r1+r2, the second's indices after the first's.
#[derive(clap::Args)]
#[command(after_help = "Example: flipgraph sum 4x4x4-r49.json 4x4x4-r49.json --dim p -o 4x4x8-r98.json")]
pub struct SumArgs {
    /// The first scheme (valid).
    first: PathBuf,
    /// The second scheme (valid), equal to the first in the other two dimensions.
    second: PathBuf,
    /// The dimension to sum along: n, m or p.
    #[arg(long, value_parser = parse_dim)]
    dim: Dim,
    #[command(flatten)]
    write: WriteArgs,
}

/// Split <n,m,p> along a dimension into <n,m,at> and <n,m,p-at> (or along n or m), each the
/// scheme restricted to its indices: the inverse of `sum`.
#[derive(clap::Args)]
#[command(after_help = "Example: flipgraph split 4x4x8-r98.json --dim p --at 4 first.json second.json")]
pub struct SplitArgs {
    /// The scheme to split (valid).
    input: PathBuf,
    /// The dimension to split: n, m or p.
    #[arg(long, value_parser = parse_dim)]
    dim: Dim,
    /// The size of the first part along --dim (1 to the dimension's size less 1).
    #[arg(long)]
    at: usize,
    /// Where to write the first part.
    first_out: PathBuf,
    /// Where to write the second part.
    second_out: PathBuf,
    #[command(flatten)]
    encoding: Encoding,
}

/// Build a format's scheme by its best construction (a product, sum, extension or projection
/// of other formats, in any orientation) from the lowest-rank schemes in result folders.
#[derive(clap::Args)]
#[command(after_help = "Example: flipgraph construct 4x4x8 --results results -o 4x4x8-r94.json")]
pub struct ConstructArgs {
    /// The format to build.
    shape: Shape,
    /// Result folders (files named SHAPE-rRANK.EXT, two levels deep, as `search` writes them).
    #[arg(long, num_args = 1.., required = true)]
    results: Vec<PathBuf>,
    #[command(flatten)]
    write: WriteArgs,
}

/// Extend <n,m,p> to <n+1,m,p> (or m+1, p+1) by adding the terms of the new slice.
#[derive(clap::Args)]
pub struct ExtendArgs {
    /// The scheme to extend (valid; any format).
    input: PathBuf,
    /// The dimension to grow: n, m or p.
    #[arg(long, value_parser = parse_dim)]
    dim: Dim,
    #[command(flatten)]
    write: WriteArgs,
}

/// Project <n,m,p> to <n-1,m,p> (or m-1, p-1) by dropping one index; vanishing terms are removed.
#[derive(clap::Args)]
pub struct ProjectArgs {
    /// The scheme to project (valid; any format).
    input: PathBuf,
    /// The dimension to shrink: n, m or p.
    #[arg(long, value_parser = parse_dim)]
    dim: Dim,
    /// The index to drop, from 1 (default: the last).
    #[arg(long, conflicts_with = "best")]
    index: Option<usize>,
    /// Over F2: drop the hyperplane (any change of basis of the dimension, then its last index)
    /// that removes the most terms; the result is valid over F2.
    #[arg(long)]
    best: bool,
    #[command(flatten)]
    write: WriteArgs,
}

/// A symmetry of one scheme: rotate (<n,m,p> to <m,p,n>) or transpose (<n,m,p> to <p,m,n>).
#[derive(clap::Args)]
pub struct SymmetryArgs {
    /// The scheme (valid; any format).
    input: PathBuf,
    #[command(flatten)]
    write: WriteArgs,
}

pub fn product(args: ProductArgs) -> Result<ExitCode> {
    refuse_overwriting(args.write.output.as_deref(), &[&args.first, &args.second])?;
    let (x, y) = (read_valid(&args.first)?, read_valid(&args.second)?);
    readable_rank(x.rank().saturating_mul(y.rank()), "product")?;
    let p = algebra::product(&x, &y).context("the product is too large")?;
    write_verified(&p, &args.write, "product")?;
    Ok(ExitCode::SUCCESS)
}

pub fn sum(args: SumArgs) -> Result<ExitCode> {
    refuse_overwriting(args.write.output.as_deref(), &[&args.first, &args.second])?;
    let (x, y) = (read_valid(&args.first)?, read_valid(&args.second)?);
    write_verified(&algebra::sum(&x, &y, args.dim)?, &args.write, "sum")?;
    Ok(ExitCode::SUCCESS)
}

pub fn split(args: SplitArgs) -> Result<ExitCode> {
    if same_file(&args.first_out, &args.second_out) {
        bail!(
            "FIRST_OUT and SECOND_OUT are both {}: the second part would overwrite the first",
            args.first_out.display()
        );
    }
    if let Some(out) = [&args.first_out, &args.second_out]
        .into_iter()
        .find(|out| same_file(out, &args.input))
    {
        bail!(
            "{} is the input: a part would overwrite the scheme it is split from",
            out.display()
        );
    }
    // Both parts or neither: a part that cannot go where it is sent is found before either is
    // written.
    for out in [&args.first_out, &args.second_out] {
        if out.is_dir() {
            bail!("{} is a folder; each part of split goes to a file", out.display());
        }
        let folder = out.parent().filter(|p| !p.as_os_str().is_empty());
        if let Some(folder) = folder.filter(|f| !f.is_dir()) {
            bail!("{}: no such folder for {}", folder.display(), out.display());
        }
    }
    let s = read_valid(&args.input)?;
    let size = s.shape.dims()[args.dim as usize];
    if !(1..size).contains(&args.at) {
        bail!(
            "--at {} leaves a part empty: {} has size {size} along {}, so --at is 1 to {}",
            args.at,
            s.shape,
            args.dim,
            size.saturating_sub(1)
        );
    }
    let (first, second) = algebra::split(&s, args.dim, args.at)?;
    let first = args.encoding.render(&first, "first part")?;
    let second = args.encoding.render(&second, "second part")?;
    // Both parts or neither: where the second cannot be written (a full disk, no permission,
    // /dev/full), the first is taken back.
    let before = std::fs::metadata(&args.first_out)
        .is_ok_and(|m| m.is_file())
        .then(|| std::fs::read(&args.first_out))
        .transpose()?;
    first.write(Some(&args.first_out))?;
    if let Err(e) = second.write(Some(&args.second_out)) {
        let undone = match &before {
            Some(bytes) => write_atomic(&args.first_out, bytes),
            None => std::fs::remove_file(&args.first_out).map_err(Into::into),
        };
        let first = args.first_out.display();
        return Err(match undone {
            Ok(()) => e.context(format!("{first} was taken back: split writes both parts or neither")),
            Err(u) => e.context(format!("and {first}, written first, could not be taken back: {u:#}")),
        });
    }
    Ok(ExitCode::SUCCESS)
}

pub fn construct(args: ConstructArgs) -> Result<ExitCode> {
    let found = ours(&args.results)?;
    // The construction is built from the best schemes there: it must not take one's place.
    if let Some(out) = &args.write.output {
        if let Some((_, input)) = found.values().find(|(_, input)| same_file(out, input)) {
            bail!(
                "-o {}: that is {}, a scheme of the results the construction is built from; name another file",
                out.display(),
                input.display()
            );
        }
    }
    let Some((built, plan)) = best_construction(args.shape, &found) else {
        bail!(
            "no construction of {} from the schemes in {}: none of its products, sums, extensions or projections has all its inputs there",
            args.shape,
            args.results.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    };
    tracing::info!("{}: the {}", args.shape, plan.construction);
    write_verified(&built, &args.write, "construction")?;
    Ok(ExitCode::SUCCESS)
}

pub fn extend(args: ExtendArgs) -> Result<ExitCode> {
    refuse_overwriting(args.write.output.as_deref(), &[&args.input])?;
    let s = read_valid(&args.input)?;
    write_verified(&algebra::extend(&s, args.dim)?, &args.write, "extension")?;
    Ok(ExitCode::SUCCESS)
}

pub fn project(args: ProjectArgs) -> Result<ExitCode> {
    refuse_overwriting(args.write.output.as_deref(), &[&args.input])?;
    let s = read_valid(&args.input)?;
    let size = s.shape.dims()[args.dim as usize];
    let index = match args.index {
        Some(i) if (1..=size).contains(&i) => i - 1,
        Some(i) => anyhow::bail!("--index {i} is out of range: the dimension has size {size}"),
        None => size - 1,
    };
    let projected = match args.best {
        true => projection::best_projection(&s, args.dim),
        false => algebra::project(&s, args.dim, index),
    }
    .context("cannot shrink a dimension of size 1")?;
    write_verified(&projected, &args.write, "projection")?;
    Ok(ExitCode::SUCCESS)
}

pub fn rotate(args: SymmetryArgs) -> Result<ExitCode> {
    refuse_overwriting(args.write.output.as_deref(), &[&args.input])?;
    let s = read_valid(&args.input)?;
    write_verified(&algebra::rotate(&s), &args.write, "rotation")?;
    Ok(ExitCode::SUCCESS)
}

pub fn transpose(args: SymmetryArgs) -> Result<ExitCode> {
    refuse_overwriting(args.write.output.as_deref(), &[&args.input])?;
    let s = read_valid(&args.input)?;
    write_verified(&algebra::transpose_scheme(&s), &args.write, "transposition")?;
    Ok(ExitCode::SUCCESS)
}
