//! How a command writes the scheme it makes: `--to`, `--output`, `--mod2`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use flipgraph_core::formats::Format;
use flipgraph_core::IntScheme;

pub use crate::output::rendered::{readable_rank, Rendered};

/// How a command writes the scheme it makes.
#[derive(clap::Args, Clone)]
pub struct WriteArgs {
    #[command(flatten)]
    pub encoding: Encoding,
    /// Where to write (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// How a scheme is written out: its format and ring (for `split`, whose two outputs are
/// arguments of their own, without `--output`).
#[derive(clap::Args, Clone, Copy)]
pub struct Encoding {
    /// The format to write: letter, json, txt or seed.
    #[arg(long, value_parser = parse_writable, default_value = "json")]
    pub to: Format,
    /// Reduce the coefficients mod 2.
    #[arg(long)]
    pub mod2: bool,
}

/// Whether two paths name one file: the same path, or the same file by another name
/// (`./a.json` and `a.json`, `sub/../a.json`, a link), whether or not it exists yet.
pub fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

/// `path` with its links and `..` resolved: itself where it exists, else its folder's resolved
/// path joined with its name; a link to a file not yet there (`ql.json -> q.json`) is where
/// it points.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = path.canonicalize() {
        return Some(real);
    }
    if let Ok(target) = std::fs::read_link(path) {
        let target = match target.is_absolute() {
            true => target,
            false => path.parent().unwrap_or(Path::new("")).join(target),
        };
        // A chain of dangling links: followed a few steps, then taken as it is.
        return match target.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
            true => target.canonicalize().ok().or(Some(target)),
            false => resolved(&target),
        };
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize().ok()?,
        _ => std::env::current_dir().ok()?,
    };
    Some(folder.join(path.file_name()?))
}

/// A format that has a writer (for flags that choose output formats).
pub fn parse_writable(s: &str) -> Result<Format, String> {
    // The readers' list names formats that cannot be written: here, only those that can.
    let f: Format = s
        .parse()
        .map_err(|_| format!("unknown format '{s}' (expected letter, json, txt or seed)"))?;
    if f.writable() {
        Ok(f)
    } else {
        Err(format!("the {f} format can be read but not written"))
    }
}

/// Verifies `scheme` and writes it as `args` say: with its integer coefficients when it is
/// valid over Z (unless --mod2, or the seed format), else reduced mod 2. An invalid scheme is
/// an error naming `what`, and nothing is written.
pub fn write_verified(scheme: &IntScheme, args: &WriteArgs, what: &str) -> Result<()> {
    args.encoding.render(scheme, what)?.write(args.output.as_deref())
}

impl Encoding {
    /// `scheme` verified and rendered as these flags say ([`write_verified`]).
    pub fn render(self, scheme: &IntScheme, what: &str) -> Result<Rendered> {
        Rendered::new(scheme, self.to, self.mod2, what)
    }
}

/// Refuses an `output` that is one of the `inputs` by any name (`./a.json`, a link): the
/// command would replace a scheme it reads with what it makes of it.
pub fn refuse_overwriting(output: Option<&Path>, inputs: &[&Path]) -> Result<()> {
    if let Some((out, input)) = output.and_then(|out| inputs.iter().find(|i| same_file(out, i)).map(|i| (out, i))) {
        bail!(
            "-o {}: that is the input {}; name another file (it would be replaced)",
            out.display(),
            input.display()
        );
    }
    Ok(())
}
