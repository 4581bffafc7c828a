//! The output folder of a search: one verified file per rank reached, the event log, and the
//! checkpoint. Every file is written atomically (temp file + rename).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::verify::Verified;
use flipgraph_core::{IntScheme, Scheme, Shape, Term};
use serde::{Deserialize, Serialize};

use crate::atomic_file::write_atomic;

pub const CHECKPOINT: &str = "checkpoint.json";
pub const EVENTS: &str = "events.jsonl";
/// The largest checkpoint read: 192 schemes (three ranks of the pool) of 8x8x8 at rank 512 take
/// about 6 MiB.
const MAX_CHECKPOINT_BYTES: u64 = 64 << 20;

/// Where a search writes.
pub struct Output {
    dir: PathBuf,
    formats: Vec<Format>,
    events: File,
}

/// What a checkpoint holds: enough to continue the search.
#[derive(Serialize, Deserialize)]
pub struct Checkpoint {
    pub shape: [usize; 3],
    pub seed: u64,
    pub target: usize,
    pub elapsed_s: f64,
    pub steps: u64,
    pub vertices: u64,
    pub rounds: u64,
    /// Each scheme as a list of `[a, b, c]` factor bit masks.
    pub pool: Vec<Vec<[u64; 3]>>,
}

impl Checkpoint {
    pub fn shape(&self) -> Result<Shape> {
        let [n, m, p] = self.shape;
        Ok(Shape::new(n, m, p)?)
    }

    pub fn schemes(&self) -> Result<Vec<Scheme>> {
        let shape = self.shape()?;
        self.pool
            .iter()
            .map(|terms| {
                Ok(Scheme::new(
                    shape,
                    terms.iter().map(|&[a, b, c]| Term::new(a, b, c)).collect(),
                )?)
            })
            .collect()
    }

    /// The time the search has walked so far.
    pub fn elapsed(&self) -> Duration {
        // `read` refused any other value.
        Duration::from_secs_f64(self.elapsed_s)
    }

    pub fn read(dir: &Path) -> Result<Checkpoint> {
        let path = dir.join(CHECKPOINT);
        let bytes = formats::read_bounded(&path, MAX_CHECKPOINT_BYTES, "checkpoint")?;
        let cp: Checkpoint = serde_json::from_slice(&bytes)
            .with_context(|| format!("{}: not a flipgraph checkpoint", path.display()))?;
        // A century of walking: anything longer (or negative, or not a number) is a damaged file.
        if !(cp.elapsed_s.is_finite() && (0.0..=3.2e9).contains(&cp.elapsed_s)) {
            bail!(
                "{}: elapsed_s {} is not a time a search can have run (damaged checkpoint?)",
                path.display(),
                cp.elapsed_s
            );
        }
        Ok(cp)
    }
}

/// Removes the temp files a killed run may have left (`.NAME.tmpPID`, see `write_atomic`):
/// they were never renamed into place, so they hold nothing that was reported.
fn remove_stale_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && name.contains(".tmp") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Saves a verified scheme that the output folder could not take: into the system's temp
/// folder, or, failing that, onto standard error. Returns where it went.
///
/// The file goes into a fresh private folder (`flipgraph-rescued-XXXXXX`, made with mode 0700
/// by `tempfile`), never to a predictable name in the shared temp folder, where a planted
/// symbolic link could make the write replace another file.
pub fn rescue(scheme: &Verified) -> String {
    let int = IntScheme::from_f2(scheme);
    let name = format!("{}-r{}.json", scheme.shape(), scheme.rank());
    let folder = tempfile::Builder::new().prefix("flipgraph-rescued-").tempdir();
    if let (Ok(text), Ok(folder)) = (formats::write(&int, Format::PerminovJson, Ring::F2), folder) {
        let path = folder.keep().join(name);
        if write_atomic(&path, text.as_bytes()).is_ok() {
            return format!("saved it to {} instead", path.display());
        }
    }
    let letter = formats::write(&int, Format::Letter, Ring::F2).unwrap_or_default();
    eprintln!(
        "--- the verified scheme of rank {} ({}), letter format ---\n{letter}---",
        scheme.rank(),
        scheme.shape()
    );
    "printed it above instead".to_owned()
}

impl Output {
    /// Opens (creating it if needed) the output folder. A folder that already holds a checkpoint
    /// is only reused with `resume`, so a new search never mixes with an old one.
    pub fn open(dir: &Path, formats: Vec<Format>, resume: bool) -> Result<Output> {
        fs::create_dir_all(dir).with_context(|| format!("cannot create the output folder {}", dir.display()))?;
        if !resume && dir.join(CHECKPOINT).exists() {
            bail!(
                "{} already holds a search (checkpoint.json); continue it with --resume {0} or choose another --out",
                dir.display()
            );
        }
        remove_stale_temp_files(dir);
        let events_path = dir.join(EVENTS);
        let events = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&events_path)
            .with_context(|| format!("cannot write {}", events_path.display()))?;
        Ok(Output {
            dir: dir.to_path_buf(),
            formats,
            events,
        })
    }

    /// Writes a verified scheme in every chosen format; returns the paths.
    pub fn write_scheme(&self, scheme: &Verified) -> Result<Vec<PathBuf>> {
        let int = IntScheme::from_f2(scheme);
        let mut paths = Vec::new();
        for &format in &self.formats {
            let text = formats::write(&int, format, Ring::F2)?;
            let path = self
                .dir
                .join(format!("{}-r{}.{}", scheme.shape(), scheme.rank(), format.extension()));
            write_atomic(&path, text.as_bytes())?;
            paths.push(path);
        }
        Ok(paths)
    }

    /// Where the lift to Z of a verified scheme goes, and in which format: beside the scheme,
    /// named `SHAPE-rRANK-z.EXT`.
    pub fn lift_path(&self, scheme: &Verified) -> (PathBuf, Format) {
        let format = self.formats.first().copied().unwrap_or(Format::PerminovJson);
        let name = format!("{}-r{}-z.{}", scheme.shape(), scheme.rank(), format.extension());
        (self.dir.join(name), format)
    }

    /// Appends one JSON line to the event log.
    pub fn event(&mut self, event: &serde_json::Value) -> Result<()> {
        writeln!(self.events, "{event}").context("cannot append to the event log")?;
        self.events.flush().context("cannot append to the event log")
    }

    pub fn checkpoint(&self, checkpoint: &Checkpoint) -> Result<()> {
        let text = serde_json::to_vec(checkpoint)?;
        write_atomic(&self.dir.join(CHECKPOINT), &text)
    }
}

#[cfg(test)]
mod tests {
    use super::rescue;
    use flipgraph_core::verify::Verified;
    use flipgraph_core::{Scheme, Shape};

    #[test]
    fn a_rescue_goes_to_a_fresh_private_folder_and_never_through_a_planted_link() {
        let victim = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(victim.path(), "precious").unwrap();
        // The name earlier versions wrote to, planted as a link to the victim.
        let planted = std::env::temp_dir().join("flipgraph-rescued-2x2x2-r8.json");
        let _ = std::fs::remove_file(&planted);
        std::os::unix::fs::symlink(victim.path(), &planted).unwrap();
        let scheme = Verified::new(Scheme::naive(Shape::square(2).unwrap())).unwrap();
        let said = rescue(&scheme);
        let path = std::path::PathBuf::from(said.trim_start_matches("saved it to ").trim_end_matches(" instead"));
        let folder = path.parent().unwrap();
        assert!(
            folder
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("flipgraph-rescued-"),
            "{said}"
        );
        assert_eq!(path.file_name().unwrap(), "2x2x2-r8.json");
        let back = flipgraph_core::formats::read_path(&path).unwrap().scheme.mod2();
        assert_eq!(flipgraph_core::verify::verify(&back), Ok(()));
        assert_eq!(std::fs::read_to_string(victim.path()).unwrap(), "precious");
        let _ = std::fs::remove_file(&planted);
        let _ = std::fs::remove_dir_all(folder);
    }
}
