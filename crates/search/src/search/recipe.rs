//! A search's recipe: how it walks, as its user chose it, with every choice the library makes
//! for them left open (`None`). The library settles what is open for the shape and the start
//! ([`Recipe::spec_from`], [`Recipe::patience`], [`Recipe::naive_start`], ...): `flipgraph
//! search`, `bench` and `campaign` build one from their flags, a checkpoint records the part a
//! resume needs ([`Recorded`]), and a resume takes it back ([`Recipe::resumed`]).

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use flipgraph_core::device::Partners;
use flipgraph_core::group::Group;
use flipgraph_core::scheme::WidthError;
use flipgraph_core::sparsity::Sparsity;
use flipgraph_core::symmetry::{FixedTerms, SymmetricScheme};
use flipgraph_core::term::FactorBits;
use flipgraph_core::{Factor, Scheme, Shape};

use super::ladder::Ladder;
use super::output::Recorded;
use super::portfolio::{Member, Portfolio, LONE};
use super::preset::Preset;
use super::{Patience, Restarts, SearchConfig, PATIENCE, POOL_RANKS};
use crate::engine::gpu::Hints;
use crate::engine::{Backend, Engine, EngineSpec, Reductions, StartKind, WALKERS_PER_THREAD};

/// How far above its start rank a walker may climb by default.
pub const PLUS_SLACK: usize = 4;

/// A cube search's defaults: Moosbauer and Poole's settings (a plus move after 50,000 plain flips
/// without a reduction, 16,667 orbit moves; a run restarted after 10^8 plain flips without a
/// new best; plus moves up to the start rank), with which 5x5x5 reached rank 93 here
/// (BENCHMARKS.md, CPU; docs/BENCHMARKS-ARCHIVE.md, The symmetric flip graph from fixed cubes).
pub const CUBE_PLATEAU: u64 = 16_667;
/// A cube search's patience ([`CUBE_PLATEAU`]).
pub const CUBE_PATIENCE: u64 = 33_000_000;
/// A cube search's slack of plus moves ([`CUBE_PLATEAU`]).
pub const CUBE_PLUS_SLACK: usize = 0;

/// A recipe the library refuses, in its own words (the command line words it by its flags).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RecipeError {
    /// Fixed cubes beside start schemes.
    #[error("fixed cubes and start schemes are two different starts; give one")]
    CubesBesideStarts,
    /// Free fixed terms under a group whose walks keep them.
    #[error("free fixed terms: only c3 walks change their fixed terms; {0} keeps them frozen")]
    FreeFixedTerms(Group),
    /// A cube pattern that is not one ([`check_cube`] says why).
    #[error("the cube pattern {0}")]
    BadCube(String),
    /// Fixed cubes of a shape whose factors pass 64 bits.
    #[error("fixed cubes: {0}")]
    CubesTooWide(String),
    /// Fixed cubes under a group without the rotation.
    #[error("fixed cubes need the group c3 or c6: the cubes are the fixed terms of the cyclic symmetry")]
    CubesWithoutRotation,
    /// Fixed cubes of a shape that is not square.
    #[error("fixed cubes need a square shape; {0} is not")]
    CubesNotSquare(Shape),
    /// A cube pattern of the wrong length.
    #[error("the cube {pattern}: a pattern of {n}x{n}x{n} has {n} digits, one per diagonal entry (not {len})")]
    PatternLength {
        /// The pattern.
        pattern: String,
        /// The matrices' size.
        n: usize,
        /// The pattern's length.
        len: usize,
    },
    /// Two cubes that share a diagonal entry.
    #[error("the cubes {0} and {1} share a diagonal entry; the cubes must be disjoint")]
    CubesOverlap(String, String),
    /// Fixed cubes asked of a resumed search.
    #[error("fixed cubes start a new search; a resumed one keeps the cubes of its checkpoint")]
    CubesOnResume,
    /// Start schemes beside the resume of a search from fixed cubes.
    #[error("{checkpoint}: a search from the cubes {cubes} restarts from its cube start; start schemes cannot join it (start a new search from them instead)")]
    StartsBesideResumedCubes {
        /// The checkpoint.
        checkpoint: String,
        /// Its cubes, comma separated.
        cubes: String,
    },
    /// A group other than the checkpoint's asked of a resumed symmetric search.
    #[error("{checkpoint}: the search walks {recorded}-invariant schemes; a resume keeps its group ({asked} asked)")]
    ResumedGroup {
        /// The checkpoint.
        checkpoint: String,
        /// The group its search walks.
        recorded: Group,
        /// The group asked for.
        asked: Group,
    },
    /// A plain walk asked to resume a search from fixed cubes.
    #[error("{checkpoint}: a search from the cubes {cubes} walks C3-invariant schemes; a plain walk cannot resume it (start a new search from one of its results instead)")]
    PlainResumeOfCubes {
        /// The checkpoint.
        checkpoint: String,
        /// Its cube patterns, joined by commas.
        cubes: String,
    },
}

/// How a search walks, as its user chose it: `None` (and an empty `cubes`) where the library
/// decides. [`Recipe::default`] is the command line with no flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipe {
    /// The engine.
    pub backend: Backend,
    /// CPU threads.
    pub threads: Option<usize>,
    /// One GPU of several, by index.
    pub gpu: Option<usize>,
    /// Walkers.
    pub walkers: Option<usize>,
    /// Steps a walker holds its rank before a plus move.
    pub plateau: Option<u64>,
    /// How far above the start rank plus moves may climb.
    pub plus_slack: Option<usize>,
    /// The rank plus moves stop at, for any start (replaces the slack).
    pub plus_cap: Option<usize>,
    /// Whether walkers take generalized flips.
    pub generalized: bool,
    /// Which walkers walk sparse.
    pub sparsity: Option<Sparsity>,
    /// The walkers' seed.
    pub seed: Option<u64>,
    /// Exact rounds of this many steps per walker.
    pub round_steps: Option<u64>,
    /// How reductions are found.
    pub reductions: Option<Reductions>,
    /// A GPU round's length in milliseconds.
    pub gpu_round_ms: u32,
    /// Matches per GPU step.
    pub gpu_match_rounds: u32,
    /// Flips per GPU step.
    pub gpu_flips: u32,
    /// Draws among the slots last seen with a partner.
    pub gpu_hints: Hints,
    /// How GPU walkers find flip partners.
    pub gpu_partners: Option<Partners>,
    /// Steps a walker may go without improving before it restarts.
    pub patience: Option<u64>,
    /// Where walkers restart.
    pub restarts: Option<Restarts>,
    /// Percent of the walkers behind a new best that restart from it at once (None:
    /// [`FOLLOW`](super::FOLLOW)).
    pub follow: Option<u32>,
    /// Ranks the pool keeps.
    pub pool_ranks: Option<usize>,
    /// Whether a search from the naive scheme climbs a ladder.
    pub ladder: Option<Ladder>,
    /// How long a rung of the ladder may go without a better scheme (None:
    /// [`RUNG_STALL`](super::ladder::RUNG_STALL)).
    pub rung_stall: Option<Duration>,
    /// Which schemes to walk (`Some(Group::Trivial)`: plain, said so).
    pub symmetry: Option<Group>,
    /// The fixed cubes of a symmetric start, as diagonal patterns ([`check_cube`]).
    pub cubes: Vec<String>,
    /// Whether walks change the fixed terms of a symmetric scheme.
    pub fixed_terms: Option<FixedTerms>,
    /// Whether a new search of a shape takes its measured preset ([`Recipe::take_preset`]).
    pub presets: bool,
    /// Whether the islands of a job walk with the portfolio's settings.
    pub portfolio: Portfolio,
    /// This island's member of the portfolio, set by [`Place::share`](super::island::Place::share); None: a lone search's.
    pub member: Option<Member>,
}

impl Default for Recipe {
    fn default() -> Recipe {
        let spec = EngineSpec::default();
        Recipe {
            backend: spec.backend,
            threads: None,
            gpu: None,
            walkers: None,
            plateau: None,
            plus_slack: None,
            plus_cap: None,
            generalized: spec.generalized,
            sparsity: None,
            seed: None,
            round_steps: None,
            reductions: None,
            gpu_round_ms: spec.gpu_round_ms,
            gpu_match_rounds: spec.gpu_match_rounds,
            gpu_flips: spec.gpu_flips,
            gpu_hints: spec.gpu_hints,
            gpu_partners: None,
            patience: None,
            restarts: None,
            follow: None,
            pool_ranks: None,
            ladder: None,
            rung_stall: None,
            symmetry: None,
            cubes: Vec::new(),
            fixed_terms: None,
            presets: true,
            portfolio: Portfolio::default(),
            member: None,
        }
    }
}

/// A diagonal pattern of fixed cubes: digits 0 and 1, at least one 1, 8 at most.
pub fn check_cube(s: &str) -> Result<(), String> {
    // Not echoed: a damaged checkpoint's pattern may be megabytes long.
    if s.chars().count() > 8 {
        return Err(format!(
            "a pattern of {} characters is not a diagonal pattern: one digit 0 or 1 per diagonal entry, 8 at most",
            s.chars().count()
        ));
    }
    if s.is_empty() || s.chars().any(|c| c != '0' && c != '1') {
        return Err(format!(
            "'{s}' is not a diagonal pattern: one digit 0 or 1 per diagonal entry, like 10001"
        ));
    }
    if !s.contains('1') {
        return Err(format!("'{s}' is an empty cube: a pattern needs a 1"));
    }
    Ok(())
}

impl Recipe {
    /// The seed given, else 1.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or(1)
    }

    /// Which schemes to walk: as given, else all.
    pub fn group(&self) -> Group {
        self.symmetry.unwrap_or(Group::Trivial)
    }

    /// True for a search from fixed cubes: Moosbauer and Poole's settings are its defaults.
    pub fn cube_search(&self) -> bool {
        !self.cubes.is_empty()
    }

    /// The engine of this recipe from the naive scheme (where the start decides:
    /// [`Recipe::spec_from`]).
    pub fn spec(&self) -> EngineSpec {
        let cubes = self.cube_search();
        let group = self.group();
        let member = self.member.unwrap_or(LONE);
        let spec = EngineSpec {
            backend: self.backend,
            threads: self.threads,
            gpu: self.gpu,
            walkers: self.walkers,
            walkers_per_thread: if cubes { 1 } else { WALKERS_PER_THREAD },
            plateau: self.plateau.or(cubes.then_some(CUBE_PLATEAU)),
            plus_slack: match (self.plus_cap, self.plus_slack) {
                (Some(_), _) => 0,
                (None, Some(given)) => given,
                (None, None) if cubes => CUBE_PLUS_SLACK,
                (None, None) => member.plus_slack,
            },
            floor_quarters: member.floor_quarters,
            generalized: self.generalized,
            round_steps: self.round_steps,
            gpu_round_ms: self.gpu_round_ms,
            gpu_match_rounds: self.gpu_match_rounds,
            gpu_flips: self.gpu_flips,
            reductions: self.reductions,
            gpu_hints: self.gpu_hints,
            symmetry: group,
            slack_from: self.plus_cap,
            start_rank: None,
            fixed_terms: match (self.fixed_terms, cubes) {
                (Some(given), _) => given,
                // Only the CPU walks C3 with free fixed terms; the GPU and the other groups keep them.
                (None, true) => FixedTerms::Frozen,
                (None, false) if group != Group::Trivial && (group != Group::C3 || self.backend == Backend::Gpu) => {
                    FixedTerms::Frozen
                }
                (None, false) => FixedTerms::Free,
            },
            ..EngineSpec::default()
        };
        spec.for_start(StartKind::Naive, self.sparsity, self.gpu_partners)
    }

    /// The engine of this recipe on a search whose starts reach rank `start_rank`: GPU walkers
    /// are sized for it, and from fixed cubes the slack of plus moves counts from it (a plus cap
    /// is the rank plus moves stop at for any start). What the sparsity and the GPU's partners
    /// leave open, the start decides ([`EngineSpec::for_start`]).
    pub fn spec_from(&self, start_rank: usize, start: StartKind) -> EngineSpec {
        let spec = EngineSpec {
            slack_from: self.plus_cap.or(self.cube_search().then_some(start_rank)),
            start_rank: Some(start_rank),
            ..self.spec()
        };
        spec.for_start(start, self.sparsity, self.gpu_partners)
    }

    /// The driver's settings for a search of `shape` to `target` with `seed` on `engine`,
    /// opened from `spec` (this recipe's engine for the start): the recipe's patience, restarts
    /// and pool, and what its checkpoints record of it (its cubes, group, sparsity, partners).
    pub fn config<F: FactorBits>(
        &self,
        shape: Shape,
        (target, seed): (usize, u64),
        spec: &EngineSpec,
        engine: &dyn Engine<F>,
    ) -> SearchConfig {
        let steps = spec.steps_per_round(engine.timed_rounds(), engine.walkers());
        SearchConfig {
            restarts: self.restarts(),
            follow: self.follow.unwrap_or(super::FOLLOW).min(100),
            pool_ranks: self.pool_ranks(),
            cubes: self.cubes.clone(),
            symmetric: (spec.symmetry != Group::Trivial).then_some((spec.symmetry, spec.fixed_terms)),
            sparsity: spec.sparsity,
            partners: spec.gpu_partners,
            ..SearchConfig::new(shape, target, seed, steps, self.patience())
        }
    }

    /// Refuses choices that contradict each other: fixed cubes beside start schemes
    /// (`from_schemes`), and free fixed terms under a group whose walks keep them (only c3
    /// walks change them).
    pub fn refuse_conflicts(&self, from_schemes: bool) -> Result<(), RecipeError> {
        if self.cube_search() && from_schemes {
            return Err(RecipeError::CubesBesideStarts);
        }
        let group = self.group();
        if self.fixed_terms == Some(FixedTerms::Free) && group != Group::Trivial && group != Group::C3 {
            return Err(RecipeError::FreeFixedTerms(group));
        }
        Ok(())
    }

    /// Ranks the driver's pool keeps.
    pub fn pool_ranks(&self) -> usize {
        self.pool_ranks.unwrap_or(POOL_RANKS)
    }

    /// Where the driver restarts walkers: as given; from fixed cubes, independently.
    pub fn restarts(&self) -> Restarts {
        match (self.restarts, self.cube_search()) {
            (Some(given), _) => given,
            (None, false) => Restarts::Pool,
            (None, true) => Restarts::Independent,
        }
    }

    /// Steps a walker may go without improving before it restarts: as given; from fixed cubes,
    /// Moosbauer and Poole's; else growing while the search is stalled.
    pub fn patience(&self) -> Patience {
        match (self.patience, self.cube_search()) {
            (Some(given), _) => Patience::Fixed(given),
            (None, true) => Patience::Fixed(CUBE_PATIENCE),
            (None, false) => Patience::Growing(PATIENCE),
        }
    }

    /// Whether a search of `shape` from its naive scheme climbs a ladder (a search with a start
    /// of its own, symmetric or from cubes, is the caller's to rule out).
    pub fn climbs(&self, shape: Shape) -> bool {
        self.ladder.unwrap_or_default().climbs(shape, || self.spec().on_gpu())
    }

    /// The scheme a search of `shape` starts from when given none: the naive scheme, or from
    /// fixed cubes the invariant scheme with those cubes ([`SymmetricScheme::with_cubes`]).
    /// Fails with the reason when the cubes do not fit the shape or the group.
    pub fn naive_start<F: FactorBits>(&self, shape: Shape) -> Result<Scheme<F>> {
        if self.cubes.is_empty() {
            return Ok(Scheme::try_naive(shape)?);
        }
        WidthError::check::<u64>(shape).map_err(|e| RecipeError::CubesTooWide(e.to_string()))?;
        if let Some(bad) = self.cubes.iter().find_map(|c| check_cube(c).err()) {
            return Err(RecipeError::BadCube(bad).into());
        }
        if !self.group().rotates() {
            return Err(RecipeError::CubesWithoutRotation.into());
        }
        if !shape.is_square() {
            return Err(RecipeError::CubesNotSquare(shape).into());
        }
        let cubes = self
            .cubes
            .iter()
            .map(|p| diagonal_factor(p, shape.n()))
            .collect::<Result<Vec<Factor>, _>>()?;
        for (i, &x) in cubes.iter().enumerate() {
            if let Some(j) = cubes[..i].iter().position(|&y| x & y != 0) {
                return Err(RecipeError::CubesOverlap(self.cubes[j].clone(), self.cubes[i].clone()).into());
            }
        }
        // Invariant by construction; the search verifies it as it does every start.
        Ok(SymmetricScheme::naive(shape)?
            .with_cubes(&cubes)?
            .to_scheme()
            .to_width()?)
    }

    /// Takes the preset of `shape` ([`Preset::of`]) where the recipe allows presets and sets
    /// none of its choices (nor a plus-move limit); `on_gpu` says whether the engine walks on a
    /// GPU, where the presets were measured (asked only of a preset not measured on the CPU).
    /// Returns the preset taken.
    pub fn take_preset(&mut self, shape: Shape, on_gpu: impl FnOnce(&Recipe) -> bool) -> Option<Preset> {
        let untouched = self.symmetry.is_none()
            && self.cubes.is_empty()
            && self.plus_slack.is_none()
            && self.plus_cap.is_none()
            && self.presets;
        let preset = Preset::of(shape).filter(|p| untouched && (p.on_cpu || on_gpu(self)))?;
        self.symmetry = Some(preset.symmetry);
        self.cubes = preset.cubes.iter().map(|&c| c.to_owned()).collect();
        self.plus_cap = preset.plus_cap;
        Some(preset)
    }

    /// The recipe that resumes the search whose checkpoint at `checkpoint` recorded `recorded`:
    /// this one, with what the checkpoint records of how the search started where this one
    /// leaves it open (its sparsity and GPU partners), and its symmetric start (the cubes and
    /// their group, a group and its fixed terms) so that it goes on as it started. A plain walk
    /// asked for explicitly (`Some(Group::Trivial)`) walks a symmetric search's schemes as
    /// plain ones (they are schemes like any other), except from fixed cubes.
    pub fn resumed(mut self, recorded: Recorded, checkpoint: &Path, from_schemes: bool) -> Result<Recipe> {
        if self.cube_search() {
            return Err(RecipeError::CubesOnResume.into());
        }
        self.sparsity = self.sparsity.or(recorded.sparsity);
        if let Some(bad) = recorded.cubes.iter().find_map(|c| check_cube(c).err()) {
            anyhow::bail!("{}: {bad} (damaged checkpoint?)", checkpoint.display());
        }
        let plain = self.symmetry == Some(Group::Trivial);
        let asked = self.symmetry;
        if !recorded.cubes.is_empty() {
            if plain {
                return Err(RecipeError::PlainResumeOfCubes {
                    checkpoint: checkpoint.display().to_string(),
                    cubes: recorded.cubes.join(","),
                }
                .into());
            }
            if from_schemes {
                return Err(RecipeError::StartsBesideResumedCubes {
                    checkpoint: checkpoint.display().to_string(),
                    cubes: recorded.cubes.join(","),
                }
                .into());
            }
            tracing::info!("resuming a search from the cubes {}", recorded.cubes.join(","));
            self.symmetry = Some(Group::C3);
        }
        match recorded.symmetric {
            Some((group, _)) if asked.is_some_and(|asked| !plain && asked != group) => {
                return Err(RecipeError::ResumedGroup {
                    checkpoint: checkpoint.display().to_string(),
                    recorded: group,
                    asked: asked.expect("asked"),
                }
                .into());
            }
            Some((group, _)) if plain => {
                tracing::info!(
                    "a plain walk asked for: the checkpoint's {}-invariant schemes are walked as plain schemes",
                    group.label()
                )
            }
            Some((group, fixed)) => {
                // The checkpoint's pool holds invariant schemes: the resume walks them as such.
                self.symmetry = Some(group);
                self.fixed_terms = self.fixed_terms.or(Some(fixed));
            }
            None => {}
        }
        // The GPU samples the partners of symmetric walks, whatever a plain search recorded.
        if self.group() == Group::Trivial {
            self.gpu_partners = self.gpu_partners.or(recorded.partners);
        }
        self.cubes = recorded.cubes;
        Ok(self)
    }
}

/// The factor `sum e_ii` over the diagonal entries `i` set in `pattern` (its first digit is
/// `e_11`), for `n x n` matrices.
fn diagonal_factor(pattern: &str, n: usize) -> Result<Factor, RecipeError> {
    if pattern.len() != n {
        return Err(RecipeError::PatternLength {
            pattern: pattern.to_owned(),
            n,
            len: pattern.len(),
        });
    }
    Ok(pattern
        .bytes()
        .enumerate()
        .filter(|&(_, d)| d == b'1')
        .map(|(i, _)| 1 << (i * n + i))
        .sum())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use flipgraph_core::device::Partners;
    use flipgraph_core::group::Group;
    use flipgraph_core::sparsity::Sparsity;
    use flipgraph_core::symmetry::FixedTerms;

    use super::{Recipe, RecipeError, Recorded};
    use crate::engine::EngineSpec;

    #[test]
    fn the_default_recipe_gives_the_default_engine() {
        assert_eq!(Recipe::default().spec(), EngineSpec::default());
    }

    /// An embedder's cube patterns are checked as the command line's are: a pattern that is
    /// not one is refused, not read as another.
    #[test]
    fn a_cube_pattern_that_is_not_one_is_refused() {
        let shape = flipgraph_core::Shape::square(3).unwrap();
        let cubes = |patterns: &[&str]| Recipe {
            symmetry: Some(Group::C3),
            cubes: patterns.iter().map(|&p| p.to_owned()).collect(),
            ..Recipe::default()
        };
        for bad in ["0a1", "000"] {
            let refused = cubes(&[bad]).naive_start::<u64>(shape).unwrap_err();
            assert!(
                matches!(refused.downcast_ref::<RecipeError>(), Some(RecipeError::BadCube(_))),
                "{bad}: {refused:#}"
            );
        }
        assert_eq!(cubes(&["101", "010"]).naive_start::<u64>(shape).unwrap().shape(), shape);
    }

    /// A resume takes what its checkpoint records where the recipe leaves it open, and keeps
    /// what the recipe chose; cubes are the checkpoint's alone.
    #[test]
    fn a_resume_takes_the_recorded_start_where_the_recipe_leaves_it_open() {
        let at = Path::new("run/checkpoint.json");
        let recorded = Recorded {
            sparsity: Some(Sparsity::All),
            partners: Some(Partners::Groups),
            ..Recorded::default()
        };
        let open = Recipe::default().resumed(recorded.clone(), at, false).unwrap();
        assert_eq!(
            (open.sparsity, open.gpu_partners),
            (Some(Sparsity::All), Some(Partners::Groups))
        );
        let chosen = Recipe {
            sparsity: Some(Sparsity::Off),
            ..Recipe::default()
        };
        assert_eq!(
            chosen.resumed(recorded, at, false).unwrap().sparsity,
            Some(Sparsity::Off)
        );
        let cubes = Recorded {
            cubes: vec!["10001".into(), "01010".into()],
            ..Recorded::default()
        };
        let resumed = Recipe::default().resumed(cubes.clone(), at, false).unwrap();
        assert_eq!((resumed.group(), resumed.cubes.len()), (Group::C3, 2));
        assert_eq!(resumed.spec().fixed_terms, FixedTerms::Frozen);
        let plain = Recipe {
            symmetry: Some(Group::Trivial),
            ..Recipe::default()
        };
        let refused = plain.resumed(cubes.clone(), at, false).unwrap_err();
        assert!(matches!(
            refused.downcast_ref::<RecipeError>(),
            Some(RecipeError::PlainResumeOfCubes { .. })
        ));
        let given = Recipe {
            cubes: vec!["101".into()],
            ..Recipe::default()
        };
        let refused = given.resumed(Recorded::default(), at, false).unwrap_err();
        assert_eq!(refused.downcast_ref::<RecipeError>(), Some(&RecipeError::CubesOnResume));
        let damaged = Recorded {
            cubes: vec!["12".into()],
            ..Recorded::default()
        };
        let refused = Recipe::default().resumed(damaged, at, false).unwrap_err().to_string();
        assert!(refused.contains("damaged checkpoint"), "{refused}");
        // Schemes cannot join a cube search's resume, and its group cannot change (the
        // audit: both passed, the first said "--cubes" that nobody gave, the second nothing).
        let refused = Recipe::default().resumed(cubes, at, true).unwrap_err();
        assert!(matches!(
            refused.downcast_ref::<RecipeError>(),
            Some(RecipeError::StartsBesideResumedCubes { .. })
        ));
        let c3 = Recorded {
            symmetric: Some((Group::C3, FixedTerms::Frozen)),
            ..Recorded::default()
        };
        let z2 = Recipe {
            symmetry: Some(Group::Z2),
            ..Recipe::default()
        };
        let refused = z2.resumed(c3.clone(), at, false).unwrap_err();
        assert!(matches!(
            refused.downcast_ref::<RecipeError>(),
            Some(RecipeError::ResumedGroup {
                recorded: Group::C3,
                asked: Group::Z2,
                ..
            })
        ));
        let same = Recipe {
            symmetry: Some(Group::C3),
            ..Recipe::default()
        };
        assert_eq!(same.resumed(c3, at, false).unwrap().group(), Group::C3);
    }
}
