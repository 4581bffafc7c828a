//! A scheme verified and rendered as the text of its file: over Z where it is valid over Z
//! (unless asked mod 2), else reduced mod 2; refused where it is not valid.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};
use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::{verify, IntScheme};

use super::atomic_file::write_atomic;

/// A verified scheme as the text of its file, ready to write (so that a caller writing
/// several can check them all before it writes any).
pub struct Rendered {
    text: String,
    said: String,
}

impl Rendered {
    /// `scheme` verified and rendered in the format `to`: with its integer coefficients when it
    /// is valid over Z (unless `mod2`, or the seed format), else reduced mod 2. An invalid
    /// scheme is an error naming `what`.
    pub fn new(scheme: &IntScheme, to: Format, mod2: bool, what: &str) -> Result<Rendered> {
        readable_rank(scheme.rank(), what)?;
        let over_z = !mod2 && to != Format::Seed && verify::verify_z(scheme).is_ok();
        let (out, ring) = if over_z {
            (scheme.clone(), Ring::Z)
        } else {
            // 128-bit factors hold every format, so wide products and sums are verified too.
            let mut f2 = scheme.mod2::<u128>()?;
            if let Err(d) = verify::verify(&f2) {
                bail!("{what}: not a valid scheme, not writing it: {d}");
            }
            f2.remove_zero_terms();
            (IntScheme::from_f2(&f2), Ring::F2)
        };
        Ok(Rendered {
            text: formats::write(&out, to, ring)?,
            said: format!("{what}: {} rank {}, valid over {ring}", out.shape, out.rank()),
        })
    }

    /// Writes it to `output` (atomically), or to standard output, and says so in the log.
    pub fn write(&self, output: Option<&Path>) -> Result<()> {
        match output {
            Some(path) => write_atomic(path, self.text.as_bytes())?,
            None => std::io::stdout()
                .write_all(self.text.as_bytes())
                .context("cannot write to standard output")?,
        }
        tracing::info!("{}", self.said);
        Ok(())
    }
}

/// Refuses a scheme of `rank` that no reader of this program would take back (more terms than
/// [`formats::MAX_RANK`]): before it is built, where the caller knows its rank, and before it
/// is written.
pub fn readable_rank(rank: usize, what: &str) -> Result<()> {
    if rank > formats::MAX_RANK {
        bail!(
            "{what}: rank {rank} is more than the {} terms any command of flipgraph reads back; nothing written",
            formats::MAX_RANK
        );
    }
    Ok(())
}
