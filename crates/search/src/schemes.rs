//! Reading scheme files and deciding what they are valid over.

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use flipgraph_core::formats::{self, Ring, SchemeFile};
use flipgraph_core::term::FactorBits;
use flipgraph_core::ternary::TernaryScheme;
use flipgraph_core::verify::{self, Diagnosis};
use flipgraph_core::{IntScheme, Scheme};

/// A scheme file, read and verified.
pub struct Checked {
    pub file: SchemeFile,
    /// Over Z (only checked when the file has integer coefficients or declares Z).
    pub z: Option<Result<(), Diagnosis>>,
    /// Over F2 (the coefficients mod 2).
    pub f2: Result<(), Diagnosis>,
}

impl Checked {
    /// The richest ring the scheme is valid over, if any.
    pub fn ring(&self) -> Option<Ring> {
        match (&self.z, &self.f2) {
            (Some(Ok(())), _) => Some(Ring::Z),
            (_, Ok(())) => Some(Ring::F2),
            _ => None,
        }
    }

    /// The scheme mod 2 with zero terms removed; an error for a format whose factors need
    /// more than 64 bits (the engines walk 64-bit factors).
    pub fn f2_scheme<F: FactorBits>(&self) -> Result<Scheme<F>> {
        Ok(self.file.f2()?)
    }
}

/// Reads `path` and demands a scheme valid over F2 at least (integer coefficients kept).
pub fn read_valid(path: &Path) -> Result<IntScheme> {
    let checked = read_checked(path)?;
    if let Err(d) = &checked.f2 {
        bail!("{}: not a valid scheme: {d}", path.display());
    }
    Ok(checked.file.scheme)
}

/// Reads and verifies `path`. Z validity is checked unless the file declares F2 and holds
/// only 0 and 1.
pub fn read_checked(path: &Path) -> Result<Checked> {
    let file = formats::read_path(path)?;
    // Verified with 128-bit factors, which hold every format (9x9x9 and 10x10x10 included).
    let f2 = verify::verify(&file.scheme.mod2::<u128>()?);
    let integer = !file.scheme.is_binary() || file.declared_ring == Some(Ring::Z);
    let z = (integer || f2.is_ok()).then(|| verify::verify_z(&file.scheme));
    Ok(Checked { file, z, f2 })
}

/// Reads `path` as an F2 scheme that must be valid, for commands that start from it.
pub fn read_valid_f2<F: FactorBits>(path: &Path) -> Result<Scheme<F>> {
    let checked = read_checked(path)?;
    if let Err(d) = &checked.f2 {
        anyhow::bail!("{}: not a valid scheme over F2: {d}", path.display());
    }
    checked.f2_scheme().with_context(|| path.display().to_string())
}

/// The best scheme over F2 of each format among a folder's scheme files, by sorted dims: its
/// rank (coefficients mod 2, zero terms dropped) and its file ([`gather`]).
pub type Bests = std::collections::BTreeMap<[usize; 3], (usize, std::path::PathBuf)>;

/// What [`gather`] found under a folder.
#[derive(Debug, Default)]
pub struct Gathered {
    /// The best of each format.
    pub bests: Bests,
    /// Scheme files read and valid mod 2.
    pub valid: usize,
    /// Files passed over, each with why: unreadable, not a scheme, invalid mod 2 (a scheme over
    /// Q, say), or wider than 128 entries a matrix.
    pub passed_over: Vec<(std::path::PathBuf, String)>,
}

/// Folders below the one given that [`gather`] descends into: a clone of a catalogue keeps its
/// schemes a few levels down (FastMatrixMultiplication: schemes/results/ZT/).
const GATHER_DEPTH: usize = 6;

/// Every scheme file under `dir` (hidden folders such as .git skipped), read and verified mod
/// 2, and the best of each format: the starts of a hunt from the public best (a clone of
/// FastMatrixMultiplication or fmm_digest). Integer schemes count by their rank mod 2.
pub fn gather(dir: &Path) -> Result<Gathered> {
    gather_by(dir, f2_rank)
}

/// [`gather`] over ZT: the best ternary scheme valid over Z of each format, by its rank (the
/// others passed over, each with why).
pub fn gather_zt(dir: &Path) -> Result<Gathered> {
    gather_by(dir, zt_rank)
}

/// The sorted dims and rank of a scheme file, or why it is passed over.
type RankOf = fn(&Path) -> Result<([usize; 3], usize)>;

fn gather_by(dir: &Path, rank_of: RankOf) -> Result<Gathered> {
    if !dir.is_dir() {
        bail!("{}: not a folder of scheme files", dir.display());
    }
    let mut gathered = Gathered::default();
    gather_into(dir, GATHER_DEPTH, rank_of, &mut gathered)?;
    Ok(gathered)
}

fn gather_into(dir: &Path, depth: usize, rank_of: RankOf, into: &mut Gathered) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            if depth > 0 {
                gather_into(&path, depth - 1, rank_of, into)?;
            }
            continue;
        }
        match rank_of(&path) {
            Ok((dims, rank)) => {
                into.valid += 1;
                let best = into.bests.entry(dims).or_insert((rank, path.clone()));
                if rank < best.0 {
                    *best = (rank, path);
                }
            }
            Err(why) => into.passed_over.push((path, format!("{why:#}"))),
        }
    }
    Ok(())
}

/// The sorted dims and the rank mod 2 of the scheme file `path`, if it is valid mod 2.
fn f2_rank(path: &Path) -> Result<([usize; 3], usize)> {
    let checked = read_checked(path)?;
    if let Err(d) = &checked.f2 {
        bail!("not valid mod 2: {d}");
    }
    let scheme = checked.f2_scheme::<u128>()?;
    Ok((scheme.shape().sorted_dims(), scheme.rank()))
}

/// The sorted dims and the rank of the scheme file `path`, if it is a ternary scheme valid over
/// Z (read as it is: no reduction mod 2).
fn zt_rank(path: &Path) -> Result<([usize; 3], usize)> {
    let file = formats::read_path(path)?;
    let mut scheme = TernaryScheme::from_int(&file.scheme).map_err(|e| anyhow!("not ternary: {e}"))?;
    scheme.remove_zero_terms();
    scheme.verify().map_err(|d| anyhow!("not valid over Z: {d}"))?;
    Ok((scheme.shape().sorted_dims(), scheme.rank()))
}

#[cfg(test)]
mod tests {
    use super::{gather, gather_zt};
    use flipgraph_core::formats::{write, Format, Ring};
    use flipgraph_core::{IntScheme, Scheme, Shape};

    #[test]
    fn gathering_keeps_the_lowest_rank_of_each_format_in_any_orientation_and_says_what_it_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("schemes/results/ZT");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        let naive = |n, m, p, format| {
            let scheme = IntScheme::from_f2(&Scheme::<u64>::naive(Shape::new(n, m, p).unwrap()));
            write(&scheme, format, Ring::F2).unwrap()
        };
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        std::fs::copy(data.join("2x2x2-r7-strassen.m"), deep.join("strassen.m")).unwrap();
        std::fs::write(deep.join("2x2x2_naive.json"), naive(2, 2, 2, Format::PerminovJson)).unwrap();
        std::fs::write(deep.join("2x3x4.json"), naive(2, 3, 4, Format::PerminovJson)).unwrap();
        std::fs::write(dir.path().join("4x3x2.txt"), naive(4, 3, 2, Format::PerminovTxt)).unwrap();
        std::fs::write(dir.path().join("README.md"), "notes").unwrap();
        std::fs::write(dir.path().join(".git/2x2x2.json"), "hidden").unwrap();
        let gathered = gather(dir.path()).unwrap();
        assert_eq!(gathered.bests[&[2, 2, 2]].0, 7);
        assert!(gathered.bests[&[2, 2, 2]].1.ends_with("strassen.m"));
        assert_eq!(gathered.bests[&[2, 3, 4]].0, 24);
        assert_eq!(gathered.valid, 4);
        assert_eq!(gathered.passed_over.len(), 1, "{:?}", gathered.passed_over);
        assert!(gathered.passed_over[0].0.ends_with("README.md"));
        assert!(gather(&dir.path().join("README.md")).is_err());
    }

    #[test]
    fn gathering_over_zt_keeps_ternary_schemes_valid_over_z_and_passes_over_f2_ones() {
        let dir = tempfile::tempdir().unwrap();
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        for file in [
            "2x2x2-r7-strassen.m",
            "2x4x4-r26-perminov-ternary.json",
            "4x4x4-r47-flipgraph.json",
        ] {
            std::fs::copy(data.join(file), dir.path().join(file)).unwrap();
        }
        let naive = IntScheme::from_f2(&Scheme::<u64>::naive(Shape::square(2).unwrap()));
        std::fs::write(
            dir.path().join("2x2x2.json"),
            write(&naive, Format::PerminovJson, Ring::Z).unwrap(),
        )
        .unwrap();
        let gathered = gather_zt(dir.path()).unwrap();
        // Strassen's 7 (its -1s kept) beats the naive 8; 2x4x4 26 as it is.
        assert_eq!(gathered.bests[&[2, 2, 2]].0, 7);
        assert_eq!(gathered.bests[&[2, 4, 4]].0, 26);
        assert_eq!(gathered.valid, 3);
        // 4x4x4 r47 is a scheme over F2 only.
        assert!(!gathered.bests.contains_key(&[4, 4, 4]));
        assert_eq!(gathered.passed_over.len(), 1, "{:?}", gathered.passed_over);
        assert!(
            gathered.passed_over[0].1.contains("not valid over Z"),
            "{:?}",
            gathered.passed_over
        );
    }
}
