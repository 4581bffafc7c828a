//! Writing files so that a crash never leaves a truncated one: temp file, fsync, rename.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Writes `contents` to `path` atomically (a temp file in the same folder, then a rename).
///
/// A path that names something other than a regular file (`/dev/null`, `/dev/stdout`, a FIFO)
/// is written to directly: a rename would replace the device with a file. A symbolic link is
/// followed, so the file it points to is replaced, not the link.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let exists = fs::symlink_metadata(path).is_ok();
    let target: PathBuf = match fs::canonicalize(path) {
        Ok(resolved) if resolved.is_file() => resolved,
        // A new file: created atomically where the path says.
        Err(_) if !exists => path.to_path_buf(),
        // A device, a FIFO, a pipe behind /dev/stdout: written to, never replaced.
        _ => {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            return f
                .write_all(contents)
                .with_context(|| format!("cannot write {}", path.display()));
        }
    };
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .context("output path has no file name")?
        .to_string_lossy();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()?;
        fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_files_follows_links_and_leaves_devices_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        write_atomic(&file, b"one").unwrap();
        write_atomic(&file, b"two").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"two");
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write_atomic(&link, b"three").unwrap();
        assert!(
            fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
            "the link stays a link"
        );
        assert_eq!(fs::read(&file).unwrap(), b"three");
        // A device is written to, never replaced.
        write_atomic(Path::new("/dev/null"), b"nothing").unwrap();
        assert!(!Path::new("/dev/null").is_file(), "/dev/null must stay a device");
    }
}
