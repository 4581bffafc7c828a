//! The output folder of a search: one verified file per rank reached, the event log, and the
//! checkpoint. Every file is written atomically (temp file + rename).

pub mod atomic_file;
mod checkpoint;
pub mod record;
pub mod rendered;

use checkpoint::island_checkpoint_paths;
pub use checkpoint::*;
pub use record::Lifts;

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::term::FactorBits;
use flipgraph_core::verify::Verified;
use flipgraph_core::{IntScheme, Shape};

use atomic_file::{injected_disk_full, is_temp_file, replace_own_file, write_atomic};

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Target,
    TimeLimit,
    /// The best rank went a stall limit without improving ([`SearchConfig::stall_limit`](crate::driver::SearchConfig::stall_limit)).
    Stalled,
    Interrupted,
}

impl Stop {
    /// The stop's name in JSON reports.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Target => "target",
            Stop::TimeLimit => "time_limit",
            Stop::Stalled => "stalled",
            Stop::Interrupted => "interrupted",
        }
    }
}

/// The event log's name in a search's folder.
pub const EVENTS: &str = "events.jsonl";

/// Where a search writes.
pub struct Output {
    dir: PathBuf,
    formats: Vec<Format>,
    /// The event log: island 0's (or a lone search's) only.
    events: Option<File>,
    /// Held while the search runs (see [`LOCK`]).
    _lock: File,
}

/// Removes the temp files a killed run may have left (see [`is_temp_file`]): they were never
/// renamed into place, so they hold nothing that was reported. Nobody else's files match.
fn remove_stale_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if is_temp_file(&entry.file_name().to_string_lossy()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The lock file that makes a search the only writer of its folder while it runs.
pub const LOCK: &str = ".flipgraph.lock";

/// Why an output folder cannot be the search's, in the library's words (the command line adds
/// which flag to change).
#[derive(Clone, Debug, thiserror::Error)]
pub enum FolderError {
    /// Another search holds the folder's lock.
    #[error("{} is in use by another flipgraph search (process {holder})", .dir.display())]
    InUse { dir: PathBuf, holder: String },
    /// A new search asked for a folder that holds one (that of the search rooted at `root`).
    #[error("{} already holds a search (checkpoint.json)", .dir.display())]
    HoldsSearch { dir: PathBuf, root: PathBuf },
    /// The path is a file.
    #[error("{} is not a folder", .dir.display())]
    NotAFolder { dir: PathBuf },
    /// A new search asked for a folder that holds scheme files named as results are (`file`),
    /// but no checkpoint: the search would write over them.
    #[error(
        "{} holds scheme files but no checkpoint (such as {file}): a new search would write over them",
        .dir.display()
    )]
    HoldsSchemes { dir: PathBuf, file: String },
}

/// Takes the folder's lock: an exclusive `flock` on the folder itself (held on an open
/// descriptor, released when it is closed, so also when the process dies; a lock on a file in
/// it would be lost by deleting the file), and writes our process id into `LOCK` for whoever
/// finds the folder taken. Returns the folder's descriptor, to keep open.
fn lock(dir: &Path) -> Result<File> {
    let folder = File::open(dir).with_context(|| format!("cannot open the output folder {}", dir.display()))?;
    let path = dir.join(LOCK);
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function owns; no memory is involved.
        if unsafe { libc::flock(folder.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let holder = fs::read_to_string(&path).unwrap_or_default();
            return Err(FolderError::InUse {
                dir: dir.to_path_buf(),
                holder: holder.trim().to_owned(),
            }
            .into());
        }
    }
    let mut file = open_own(&path, OpenOptions::new().write(true).create(true).truncate(true))?;
    write!(file, "{}", std::process::id())?;
    Ok(folder)
}

/// Makes folder `dir` (of the search resumed with `--resume root`) ours: creates it, takes its
/// lock, refuses a search already there unless `resume`, and removes stale temp files.
fn take_folder(dir: &Path, root: &Path, resume: bool) -> Result<File> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create the output folder {}", dir.display()))?;
    let lock = lock(dir)?;
    if !resume && dir.join(CHECKPOINT).exists() {
        return Err(FolderError::HoldsSearch {
            dir: dir.to_path_buf(),
            root: root.to_path_buf(),
        }
        .into());
    }
    if let Some(file) = (!resume).then(|| result_file_in(dir)).flatten() {
        return Err(FolderError::HoldsSchemes {
            dir: dir.to_path_buf(),
            file,
        }
        .into());
    }
    remove_stale_temp_files(dir);
    Ok(lock)
}

/// The name of a regular file in `dir` named as a search names its results (`SHAPE-rRANK.EXT`,
/// `SHAPE-rRANK-z.EXT`), if any. (A link or folder of such a name is no scheme to keep: the
/// write refuses a link, and a folder makes it fail into a rescue.)
fn result_file_in(dir: &Path) -> Option<String> {
    let files = fs::read_dir(dir).ok()?.filter_map(|e| {
        let e = e.ok()?;
        e.file_type()
            .ok()?
            .is_file()
            .then(|| e.file_name().into_string().ok())?
    });
    files.into_iter().find(|name| is_result_name(name))
}

/// Whether `name` is a result's file name: `SHAPE-rRANK.EXT` or `SHAPE-rRANK-z.EXT`.
fn is_result_name(name: &str) -> bool {
    let Some((shape, rest)) = name.split_once("-r") else {
        return false;
    };
    let Some((rank, _ext)) = rest.split_once('.') else {
        return false;
    };
    let rank = rank.strip_suffix("-z").unwrap_or(rank);
    shape.parse::<Shape>().is_ok() && !rank.is_empty() && rank.bytes().all(|b| b.is_ascii_digit())
}

/// Opens one of the folder's own files, never through a symbolic link (a link planted there
/// would make a search append to or lock another file) and only as a regular file: a FIFO or a
/// device planted there would block the search or swallow its writes (opened without blocking,
/// then refused).
fn open_own(path: &Path, options: &mut OpenOptions) -> Result<File> {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(options, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let file = options.open(path).map_err(|e| {
        let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if link {
            anyhow::anyhow!(
                "{} is a symbolic link; a search writes only its own files",
                path.display()
            )
        } else {
            anyhow::anyhow!("cannot write {}: {e}", path.display())
        }
    })?;
    if !file.metadata()?.is_file() {
        bail!(
            "{} is not a regular file; a search writes only its own regular files",
            path.display()
        );
    }
    Ok(file)
}

/// Opens the event log for appending; a last line cut by a crash is ended first, so that the
/// next event starts a line of its own (readers skip the torn one).
fn open_events(path: &Path) -> Result<File> {
    let mut file = open_own(path, OpenOptions::new().read(true).append(true).create(true))?;
    let len = file.metadata()?.len();
    if len > 0 {
        use std::io::{Read, Seek, SeekFrom};
        let mut last = [0u8];
        file.seek(SeekFrom::Start(len - 1))?;
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            tracing::warn!(
                "{}: the last line was cut (a crash?); it is kept and skipped",
                path.display()
            );
            file.write_all(b"\n")?;
        }
    }
    Ok(file)
}

/// Saves a verified scheme that the output folder could not take: into the system's temp
/// folder, or, failing that, onto standard error. Returns where it went.
///
/// The file goes into a fresh private folder (`flipgraph-rescued-XXXXXX`, made with mode 0700
/// by `tempfile`), never to a predictable name in the shared temp folder, where a planted
/// symbolic link could make the write replace another file.
pub fn rescue<F: FactorBits>(scheme: &Verified<F>) -> String {
    rescue_int(&IntScheme::from_f2(scheme), Ring::F2)
}

/// [`rescue`] for a scheme with integer coefficients meant for `ring` (a ternary search's, over
/// Z), which the caller has verified over that ring.
pub fn rescue_int(int: &IntScheme, ring: Ring) -> String {
    let (shape, rank) = (int.shape, int.rank());
    let name = format!("{shape}-r{rank}.json");
    let folder = tempfile::Builder::new().prefix("flipgraph-rescued-").tempdir();
    if let (Ok(text), Ok(folder)) = (formats::write(int, Format::PerminovJson, ring), folder) {
        let path = folder.path().join(name);
        if write_atomic(&path, text.as_bytes()).is_ok() {
            let _ = folder.keep();
            return format!("saved it to {} instead", path.display());
        }
        // The folder goes with `folder` here: nothing empty is left behind.
    }
    let letter = formats::write(int, Format::Letter, ring).unwrap_or_default();
    eprintln!("--- the verified scheme of rank {rank} ({shape}), letter format ---\n{letter}---");
    "printed it above instead".to_owned()
}

impl Output {
    /// Opens (creating it if needed) the output folder. A folder that already holds a checkpoint
    /// is only reused with `resume`, so a new search never mixes with an old one.
    pub fn open(dir: &Path, formats: Vec<Format>, resume: bool) -> Result<Output> {
        if dir.exists() && !dir.is_dir() {
            return Err(FolderError::NotAFolder { dir: dir.to_path_buf() }.into());
        }
        let lock = take_folder(dir, dir, resume)?;
        let events = open_events(&dir.join(EVENTS))?;
        Ok(Output {
            dir: dir.to_path_buf(),
            formats,
            events: Some(events),
            _lock: lock,
        })
    }

    /// The folder it writes into.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Opens the folder of island `index` (> 0) of a job writing into `root`: its checkpoint
    /// only, since island 0 writes the results and the events.
    pub fn open_island(root: &Path, index: usize, resume: bool) -> Result<Output> {
        let dir = island_dir(root, index);
        let lock = take_folder(&dir, root, resume)?;
        Ok(Output {
            dir,
            formats: Vec::new(),
            events: None,
            _lock: lock,
        })
    }

    /// Removes the checkpoints of islands `islands..` (a job resumed with fewer islands, whose
    /// pools and counters the remaining islands took over), and their folders when empty.
    pub fn retire_islands(&self, islands: usize) {
        for (index, _) in island_checkpoint_paths(&self.dir).filter(|&(i, _)| i >= islands) {
            let dir = island_dir(&self.dir, index);
            for file in [CHECKPOINT, LOCK] {
                let _ = fs::remove_file(dir.join(file));
            }
            let _ = fs::remove_dir(&dir);
        }
    }

    /// Writes a verified scheme in every chosen format; returns the paths. A text larger than
    /// any scheme file is read back ([`formats::MAX_SCHEME_BYTES`]) goes in the compact seed
    /// format instead (a rank-65,536 8x8x8 start made a 27 MB json that no reader took), and
    /// said; what is written is read back.
    pub fn write_scheme<F: FactorBits>(&self, scheme: &Verified<F>) -> Result<Vec<PathBuf>> {
        self.write_int(&IntScheme::from_f2(scheme), Ring::F2)
    }

    /// [`Output::write_scheme`] for a scheme with integer coefficients meant for `ring` (a
    /// ternary search's, over Z), which the caller has verified over that ring.
    pub fn write_int(&self, int: &IntScheme, ring: Ring) -> Result<Vec<PathBuf>> {
        let (shape, rank) = (int.shape, int.rank());
        let mut paths = Vec::new();
        for &chosen in &self.formats {
            let mut format = chosen;
            let mut text = formats::write(int, format, ring)?;
            if text.len() as u64 > formats::MAX_SCHEME_BYTES && format != Format::Seed {
                format = Format::Seed;
                text = formats::write(int, format, ring)?;
                tracing::warn!(
                    "{} rank {}: too large for a {chosen} file that can be read back; written as {format}",
                    shape,
                    rank
                );
            }
            if text.len() as u64 > formats::MAX_SCHEME_BYTES {
                tracing::warn!(
                    "{} rank {}: too large for any scheme file that can be read back; kept in the checkpoint only",
                    shape,
                    rank
                );
                continue;
            }
            let path = self.dir.join(format!("{}-r{}.{}", shape, rank, format.extension()));
            replace_own_file(&path, text.as_bytes())?;
            paths.push(path);
        }
        Ok(paths)
    }

    /// Where the lift to Z of a verified scheme goes, and in which format: beside the scheme,
    /// named `SHAPE-rRANK-z.EXT`.
    pub fn lift_path<F: FactorBits>(&self, scheme: &Verified<F>) -> (PathBuf, Format) {
        let format = self.formats.first().copied().unwrap_or(Format::PerminovJson);
        let name = format!("{}-r{}-z.{}", scheme.shape(), scheme.rank(), format.extension());
        (self.dir.join(name), format)
    }

    /// Appends one JSON line to the event log.
    pub fn event(&mut self, event: &serde_json::Value) -> Result<()> {
        let Some(events) = &mut self.events else {
            return Ok(());
        };
        injected_disk_full().context("cannot append to the event log")?;
        writeln!(events, "{event}").context("cannot append to the event log")?;
        events.flush().context("cannot append to the event log")
    }

    pub fn checkpoint(&self, checkpoint: &Checkpoint) -> Result<()> {
        let text = serde_json::to_vec(checkpoint)?;
        replace_own_file(&self.dir.join(CHECKPOINT), &text)
    }
}

#[cfg(test)]
mod tests {
    use super::{is_result_name, rescue, FolderError, Output};
    use flipgraph_core::formats::{self, Format};
    use flipgraph_core::verify::Verified;
    use flipgraph_core::{Scheme, Shape};

    #[test]
    fn a_new_search_refuses_a_folder_of_scheme_files_it_would_write_over() {
        for name in ["2x2x2-r7.json", "4x4x4-r47-z.m", "3x3x3-r23.txt"] {
            assert!(is_result_name(name), "{name}");
        }
        for name in ["notes-r7.json", "2x2x2-r.json", "2x2x2-r7", "2x2x2-rx.json", "plot.svg"] {
            assert!(!is_result_name(name), "{name}");
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        assert!(Output::open(dir.path(), vec![Format::PerminovJson], false).is_ok());
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("2x2x2-r7.json"), "mine").unwrap();
        let err = Output::open(dir.path(), vec![Format::PerminovJson], false)
            .err()
            .unwrap();
        assert!(
            matches!(err.downcast_ref(), Some(FolderError::HoldsSchemes { file, .. }) if file == "2x2x2-r7.json"),
            "{err:#}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("2x2x2-r7.json")).unwrap(),
            "mine"
        );
    }

    /// Audit item 9: a scheme whose json is larger than the readers take is written as a seed,
    /// which reads back whole.
    #[test]
    fn a_result_too_large_for_its_format_is_written_so_that_it_reads_back() {
        let shape = Shape::square(8).unwrap();
        let mut terms = Scheme::naive(shape).into_terms();
        let first = terms[0];
        terms.extend(std::iter::repeat_n(first, 40_000));
        let huge = Verified::new(Scheme::new(shape, terms).unwrap()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = Output::open(dir.path(), vec![Format::PerminovJson], false).unwrap();
        let paths = out.write_scheme(&huge).unwrap();
        assert_eq!(paths.len(), 1);
        assert_eq!(paths[0].extension().unwrap(), "b32", "{paths:?}");
        let back = formats::read_path(&paths[0]).unwrap().f2::<u64>().unwrap();
        assert_eq!(back.rank(), huge.rank());
    }

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
        let back = flipgraph_core::formats::read_path(&path)
            .unwrap()
            .scheme
            .mod2::<u64>()
            .unwrap();
        assert_eq!(flipgraph_core::verify::verify(&back), Ok(()));
        assert_eq!(std::fs::read_to_string(victim.path()).unwrap(), "precious");
        let _ = std::fs::remove_file(&planted);
        let _ = std::fs::remove_dir_all(folder);
    }
}
