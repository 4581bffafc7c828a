//! The checkpoint: what a search writes every few seconds so that a resume carries on where it
//! stopped (its pool, its clock, its counters and the recipe it ran), read back with every
//! field checked.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use flipgraph_core::device::Partners;
use flipgraph_core::formats::{self};
use flipgraph_core::group::Group;
use flipgraph_core::sparsity::Sparsity;
use flipgraph_core::symmetry::FixedTerms;
use flipgraph_core::term::FactorBits;
use flipgraph_core::verify::Verified;
use flipgraph_core::walk::Counters;
use flipgraph_core::{Scheme, Shape, Term};
use serde::{Deserialize, Serialize};

/// Where a search starts: a fresh scheme, or a checkpoint.
pub struct Start<F: FactorBits = u64> {
    pub pool: Vec<Scheme<F>>,
    pub elapsed: Duration,
    pub counters: Counters,
    pub rounds: u64,
}

impl<F: FactorBits> Start<F> {
    /// A fresh search from `scheme`.
    pub fn from_scheme(scheme: Scheme<F>) -> Start<F> {
        Start {
            pool: vec![scheme],
            elapsed: Duration::ZERO,
            counters: Counters::default(),
            rounds: 0,
        }
    }
}

pub const CHECKPOINT: &str = "checkpoint.json";
/// The largest checkpoint read: 320 schemes (five ranks of 64 in the pool) of 8x8x8 at rank 512
/// take about 10 MiB.
const MAX_CHECKPOINT_BYTES: u64 = 64 << 20;

/// A century of walking: the longest time a checkpoint may record.
const MAX_ELAPSED_S: f64 = 3.2e9;

/// A search's time as a checkpoint records it: at most [`MAX_ELAPSED_S`], so that what is
/// written is read back (a search resumed at the limit wrote a time past it, refused next).
pub(crate) fn elapsed_s(elapsed: Duration) -> f64 {
    elapsed.as_secs_f64().min(MAX_ELAPSED_S)
}

/// What a checkpoint holds: enough to continue the search.
#[derive(Serialize, Deserialize)]
pub struct Checkpoint {
    pub shape: [usize; 3],
    pub seed: u64,
    pub target: usize,
    pub elapsed_s: f64,
    /// The search's time limit (`--time`), counted from its start, earlier runs included: a
    /// resume given no `--time` runs for what is left of it. Absent for a search without one
    /// (and in checkpoints older than the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_s: Option<f64>,
    pub steps: u64,
    pub vertices: u64,
    pub rounds: u64,
    /// Each scheme as a list of `[a, b, c]` factor bit masks.
    pub pool: Vec<Vec<[u128; 3]>>,
    /// The diagonal patterns of a search from fixed cubes (`--cubes`), so that its resume
    /// keeps that start and the settings that go with it; empty for other searches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cubes: Vec<String>,
    /// A search of invariant schemes: [`symmetric_name`] of its group and fixed terms; None
    /// for a plain search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symmetric: Option<String>,
    /// Which walkers walk sparse ([`Sparsity::name`]), so that a resume keeps it; absent in
    /// checkpoints older than the choice (their resumes take the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparse: Option<String>,
    /// How GPU walkers found flip partners ([`Partners::name`]), so that a resume keeps it;
    /// absent in checkpoints older than the choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partners: Option<String>,
    /// Written before a search climbs its ladder and replaced by its walk's first checkpoint,
    /// so that the resume of a search killed during its climb climbs again (its pool is the
    /// naive scheme meanwhile); absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub climbing: bool,
}

/// What a checkpoint records of its search's [`Recipe`](crate::session::recipe::Recipe): how it started
/// and what it walks (read without the pool's checks: [`Checkpoint::read`] does them), for
/// [`Recipe::resumed`](crate::session::recipe::Recipe::resumed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Its `--cubes` patterns (empty for a search of another start).
    pub cubes: Vec<String>,
    /// For a search of invariant schemes, its group and whether its fixed terms are frozen.
    pub symmetric: Option<(Group, FixedTerms)>,
    /// Which walkers walked sparse, if it says.
    pub sparsity: Option<Sparsity>,
    /// How GPU walkers found flip partners, if it says.
    pub partners: Option<Partners>,
    /// Whether it was killed during its climb ([`Checkpoint::climbing`]).
    pub climbing: bool,
}

#[derive(Deserialize)]
struct RecordedFields {
    #[serde(default)]
    cubes: Vec<String>,
    #[serde(default)]
    symmetric: Option<String>,
    #[serde(default)]
    sparse: Option<String>,
    #[serde(default)]
    partners: Option<String>,
    #[serde(default)]
    climbing: bool,
}

/// The setting that a checkpoint at `path` names `name` (a `what`), found by `find`; None
/// where it names none, an error where no setting has that name.
fn named<T>(path: &Path, name: Option<&str>, what: &str, find: impl Fn(&str) -> Option<T>) -> Result<Option<T>> {
    name.map(|name| {
        find(name).with_context(|| {
            format!(
                "{}: unknown {what} '{}' (damaged checkpoint?)",
                path.display(),
                shortened(name)
            )
        })
    })
    .transpose()
}

/// `text` cut to its first 60 characters (and said so): a damaged file's string echoed in an
/// error must not fill the terminal (one of 10 MB was echoed whole).
fn shortened(text: &str) -> String {
    const SHOWN: usize = 60;
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}... ({} bytes)", &text[..cut], text.len()),
        None => text.to_owned(),
    }
}

/// How a checkpoint names the group and fixed terms of a search of invariant schemes
/// (`c3, fixed terms frozen`).
pub fn symmetric_name((group, fixed): (Group, FixedTerms)) -> String {
    // What the walk does: only c3 walks free their fixed terms.
    let fixed = match fixed.for_group(group) {
        FixedTerms::Frozen => "frozen",
        FixedTerms::Free => "free",
    };
    format!("{group}, fixed terms {fixed}")
}

/// A checkpoint's `pool`: each scheme as its list of `[a, b, c]` factor masks.
pub fn pool_entries<'a, F: FactorBits>(schemes: impl IntoIterator<Item = &'a Scheme<F>>) -> Vec<Vec<[u128; 3]>> {
    schemes
        .into_iter()
        .map(|s| s.terms().iter().map(|t| t.factors().map(F::to_u128)).collect())
        .collect()
}

impl Checkpoint {
    /// The checkpoint of a search of `shape` (`seed`, `target`) about to climb its ladder:
    /// `start`'s pool (the naive scheme), time and work, and the sparsity and partners given on
    /// its command line (None: the defaults), so that its resume climbs again and walks alike.
    pub fn before_climb<F: FactorBits>(
        shape: Shape,
        (seed, target): (u64, usize),
        (start, time_limit): (&Start<F>, Option<Duration>),
        sparsity: Option<Sparsity>,
        partners: Option<Partners>,
    ) -> Checkpoint {
        Checkpoint {
            shape: shape.dims(),
            seed,
            target,
            elapsed_s: elapsed_s(start.elapsed),
            time_limit_s: time_limit.map(|t| elapsed_s(start.elapsed + t)),
            steps: start.counters.steps,
            vertices: start.counters.vertices,
            rounds: start.rounds,
            pool: pool_entries(&start.pool),
            cubes: Vec::new(),
            symmetric: None,
            sparse: sparsity.map(|s| s.name().to_owned()),
            partners: partners.map(|p| p.name().to_owned()),
            climbing: true,
        }
    }

    pub fn shape(&self) -> Result<Shape> {
        let [n, m, p] = self.shape;
        Ok(Shape::new(n, m, p)?)
    }

    /// The pool's schemes, with factors of `F` (which must fit the shape).
    pub fn schemes<F: FactorBits>(&self) -> Result<Vec<Scheme<F>>> {
        let shape = self.shape()?;
        self.pool
            .iter()
            .map(|terms| {
                // Read at full width (every factor checked against its matrix), then narrowed.
                let terms = terms.iter().map(|&[a, b, c]| Term::from_factors(a, b, c)).collect();
                Ok(Scheme::<u128>::new(shape, terms)?.to_width()?)
            })
            .collect()
    }

    /// The time the search has walked so far.
    pub fn elapsed(&self) -> Duration {
        // `read` refused any other value.
        Duration::from_secs_f64(self.elapsed_s)
    }

    /// What is left of the search's time limit, if it had one (zero once it is used up).
    pub fn time_left(&self) -> Option<Duration> {
        // `read` refused any other value.
        self.time_limit_s
            .map(|limit| Duration::from_secs_f64(limit).saturating_sub(self.elapsed()))
    }

    /// How the search in `dir` started and what it walks, from its checkpoint, whose pool is
    /// left unchecked: [`Checkpoint::read`] checks it.
    pub fn read_recorded(dir: &Path) -> Result<Recorded> {
        let path = dir.join(CHECKPOINT);
        let bytes = formats::read_bounded(&path, MAX_CHECKPOINT_BYTES, "checkpoint")?;
        let fields: RecordedFields = serde_json::from_slice(&bytes)
            .with_context(|| format!("{}: not a flipgraph checkpoint", path.display()))?;
        let symmetric = named(&path, fields.symmetric.as_deref(), "symmetry", |name| {
            Group::ALL
                .into_iter()
                .filter(|&g| g != Group::Trivial)
                .flat_map(|g| [(g, FixedTerms::Frozen), (g, FixedTerms::Free)])
                .find(|&symmetric| symmetric_name(symmetric) == name)
        })?;
        let sparsity = named(&path, fields.sparse.as_deref(), "sparsity", Sparsity::from_name)?;
        let partners = named(&path, fields.partners.as_deref(), "partners", Partners::from_name)?;
        Ok(Recorded {
            cubes: fields.cubes,
            symmetric,
            sparsity,
            partners,
            climbing: fields.climbing,
        })
    }

    /// Reads and checks `DIR/checkpoint.json`.
    pub fn read(dir: &Path) -> Result<Checkpoint> {
        let path = dir.join(CHECKPOINT);
        let bytes = formats::read_bounded(&path, MAX_CHECKPOINT_BYTES, "checkpoint")?;
        Checkpoint::parse(&bytes, &path)
    }

    /// Parses and checks a checkpoint's bytes (read from `path`, which errors name): a time a
    /// search can have run, a supported shape, a non-empty pool of valid schemes.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Checkpoint> {
        let cp: Checkpoint =
            serde_json::from_slice(bytes).with_context(|| format!("{}: not a flipgraph checkpoint", path.display()))?;
        // A century of walking: anything longer (or negative, or not a number) is a damaged file.
        let a_search_time = |s: f64| s.is_finite() && (0.0..=MAX_ELAPSED_S).contains(&s);
        if !a_search_time(cp.elapsed_s) {
            bail!(
                "{}: elapsed_s {} is not a time a search can have run (damaged checkpoint?)",
                path.display(),
                cp.elapsed_s
            );
        }
        if let Some(limit) = cp.time_limit_s.filter(|&l| !a_search_time(l)) {
            bail!(
                "{}: time_limit_s {limit:.3e} is not a time limit a search can have (damaged checkpoint?)",
                path.display()
            );
        }
        // A rank no search reaches (every walker would hold it, and verification is quadratic
        // in it): refused before any scheme is built.
        if let Some((i, scheme)) = cp.pool.iter().enumerate().find(|(_, s)| s.len() > formats::MAX_RANK) {
            bail!(
                "{}: scheme {i} of the pool has {} terms, more than the supported rank {} (damaged checkpoint?)",
                path.display(),
                scheme.len(),
                formats::MAX_RANK
            );
        }
        if !(1..=formats::MAX_RANK).contains(&cp.target) {
            bail!(
                "{}: target {} is not a rank a search aims at (1 to {}; damaged checkpoint?)",
                path.display(),
                cp.target,
                formats::MAX_RANK
            );
        }
        // Shape and pool are checked here too, so that every error names the file.
        let schemes = cp
            .schemes::<u128>()
            .with_context(|| format!("{}: damaged checkpoint", path.display()))?;
        if schemes.is_empty() {
            bail!(
                "{}: the checkpoint's pool is empty (damaged checkpoint?)",
                path.display()
            );
        }
        for (i, scheme) in schemes.into_iter().enumerate() {
            if let Err(d) = Verified::new(scheme) {
                bail!(
                    "{}: scheme {i} of the pool is not valid (damaged checkpoint?): {d}",
                    path.display()
                );
            }
        }
        Ok(cp)
    }
}

/// The folder of island `index` (> 0) of a job writing into `root`.
pub fn island_dir(root: &Path, index: usize) -> PathBuf {
    root.join(format!("island-{index}"))
}

/// The checkpoints of the islands of a job in `root` by island index: `island-K/checkpoint.json`
/// for every K > 0 there is (island 0's is `root`'s own).
pub(super) fn island_checkpoint_paths(root: &Path) -> impl Iterator<Item = (usize, PathBuf)> {
    let entries = fs::read_dir(root).into_iter().flatten().flatten();
    entries.filter_map(|entry| {
        let name = entry.file_name();
        let index: usize = name.to_str()?.strip_prefix("island-")?.parse().ok()?;
        let path = entry.path().join(CHECKPOINT);
        (index > 0 && path.is_file()).then_some((index, path))
    })
}

/// Every checkpoint of a search in `root`, by island index: its own (0) and its islands'
/// (a job's). The islands' are read only if `root`'s own is there.
pub fn read_all_checkpoints(root: &Path) -> Result<Vec<(usize, Checkpoint)>> {
    let mut all = vec![(0, Checkpoint::read(root)?)];
    for (index, path) in island_checkpoint_paths(root) {
        let bytes = formats::read_bounded(&path, MAX_CHECKPOINT_BYTES, "checkpoint")?;
        all.push((index, Checkpoint::parse(&bytes, &path)?));
    }
    all.sort_by_key(|&(i, _)| i);
    Ok(all)
}
