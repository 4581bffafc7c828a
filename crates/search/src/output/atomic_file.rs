//! Writing files so that a crash never leaves a truncated one: temp file, fsync, rename.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The temp files of this module: `.flipgraph-NAME.PID.tmp`, a pattern nobody else uses, so a
/// search may remove those a killed run left without touching a user's own `.tmp` files.
pub fn is_temp_file(name: &str) -> bool {
    name.starts_with(".flipgraph-") && name.ends_with(".tmp")
}

/// Writes `contents` to `path` atomically (a temp file in the same folder, then a rename).
///
/// A path that names something other than a regular file (`/dev/null`, `/dev/stdout`, a FIFO)
/// is written to directly: a rename would replace the device with a file. A symbolic link is
/// followed, so the file it points to is replaced, not the link: this is for paths the user
/// names (`-o`); a search's own folder uses [`replace_own_file`].
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
    replace(&target, contents).with_context(|| format!("cannot write {}", path.display()))
}

/// Writes `contents` to `path` atomically, refusing to write through anything but a regular
/// file or nothing: a symbolic link planted in a search's folder must not redirect its writes.
pub fn replace_own_file(path: &Path, contents: &[u8]) -> Result<()> {
    if let Ok(meta) = fs::symlink_metadata(path) {
        if !meta.is_file() {
            bail!(
                "{} is not a regular file (a symbolic link?); a search replaces only its own files",
                path.display()
            );
        }
    }
    replace(path, contents).with_context(|| format!("cannot write {}", path.display()))
}

/// Test hook: with FLIPGRAPH_DISK_FULL_AFTER=N set, every write after the first N fails as a
/// full disk would (ENOSPC), so the fault-injection tests can fill a disk without a small one.
pub fn injected_disk_full() -> std::io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let limit = LIMIT.get_or_init(|| std::env::var("FLIPGRAPH_DISK_FULL_AFTER").ok()?.parse().ok());
    match limit {
        Some(n) if WRITES.fetch_add(1, Ordering::Relaxed) >= *n => Err(std::io::Error::from_raw_os_error(28)),
        _ => Ok(()),
    }
}

/// Temp file (created new, so never through a planted link), fsync, permissions of the file it
/// replaces, rename.
fn replace(target: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".flipgraph-{name}.{}.tmp", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let result = (|| -> std::io::Result<()> {
        let mut f = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        injected_disk_full()?;
        f.write_all(contents)?;
        if let Ok(old) = fs::metadata(target) {
            f.set_permissions(old.permissions())?;
        }
        f.sync_all()?;
        fs::rename(&tmp, target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
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

    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("secret.json");
        fs::write(&file, b"old").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&file, b"new").unwrap();
        assert_eq!(fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::read(&file).unwrap(), b"new");
    }

    #[test]
    fn own_files_are_never_written_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, b"precious").unwrap();
        let link = dir.path().join("checkpoint.json");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let err = replace_own_file(&link, b"overwritten").unwrap_err();
        assert!(format!("{err:#}").contains("not a regular file"), "{err:#}");
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        // A planted link at the temp file's name is not followed either.
        let own = dir.path().join("a.json");
        let tmp = dir.path().join(format!(".flipgraph-a.json.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &tmp).unwrap();
        replace_own_file(&own, b"mine").unwrap();
        assert_eq!(fs::read(&own).unwrap(), b"mine");
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        assert!(is_temp_file(".flipgraph-a.json.12.tmp") && !is_temp_file(".notes.tmp"));
    }
}
