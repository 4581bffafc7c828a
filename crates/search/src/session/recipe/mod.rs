//! A search's recipe: how it walks, as its user chose it, with every choice the library makes
//! for them left open (`None`). The library settles what is open for the shape and the start
//! ([`Recipe::spec_from`], [`Recipe::patience`], [`Recipe::naive_start`], ...): `flipgraph
//! search`, `bench` and `campaign` build one from their flags, a checkpoint records the part a
//! resume needs ([`Recorded`]), and a resume takes it back ([`Recipe::resumed`]).

mod cubes;
mod error;
#[cfg(test)]
mod tests;

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

use crate::output::Recorded;
use cubes::diagonal_factor;
pub use cubes::{check_cube, CUBE_PATIENCE, CUBE_PLATEAU, CUBE_PLUS_SLACK};
pub use error::RecipeError;

use super::preset::Preset;
use crate::driver::{Patience, Restarts, SearchConfig, PATIENCE, POOL_RANKS};
use crate::engine::GpuTuning;
use crate::engine::{cores, Member, LONE};
use crate::engine::{Backend, Engine, EngineSpec, Reductions, StartKind, WALKERS_PER_THREAD};
use crate::islands::{Place, Portfolio};

/// Whether a search from the naive scheme climbs a ladder (`--ladder`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ladder {
    /// On a GPU, for shapes of more than [`FOOT`](super::ladder::FOOT) and at most [`AUTO_UP_TO`](super::ladder::AUTO_UP_TO) naive terms. Not
    /// on the CPU: its 32 walkers stalled at 50-51 from the extensions of some rung schemes
    /// (4x4x4 to 49 on 2 threads: 5 of 10 runs within 20 s, against 10 of 10 from naive, median
    /// 2.4 s), though they reach 47, which they do not from naive.
    #[default]
    Auto,
    /// Every shape above the foot, on either engine.
    On,
    /// Never: the search starts from the naive scheme.
    Off,
}

/// The coefficients a search's schemes have (`--ring`): not the ring a file declares
/// ([`flipgraph_core::formats::Ring`]), but which flip graph it walks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ring {
    /// F2: factors as bit masks, every engine and move (the default).
    #[default]
    F2,
    /// {-1,0,1}, valid over Z ([`flipgraph_core::ternary`]): the CPU walk of plain schemes.
    Zt,
}

impl Ring {
    /// Every ring, in the order `--ring` lists them.
    pub const ALL: [Ring; 2] = [Ring::F2, Ring::Zt];

    /// The ring's name on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Ring::F2 => "f2",
            Ring::Zt => "zt",
        }
    }
}

/// How a search walks, as its user chose it: `None` (and an empty `cubes`) where the library
/// decides. [`Recipe::default`] is the command line with no flags. Its parts are held whole by
/// whoever needs them (the engine spec takes the [`GpuTuning`] as it is).
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
    /// How each walker walks.
    pub walk: Walk,
    /// How the GPU walks, beyond what it walks (held whole by the engine spec).
    pub gpu_tuning: GpuTuning,
    /// How GPU walkers find flip partners.
    pub gpu_partners: Option<Partners>,
    /// When walkers restart and from where, what the pool keeps, and how the search climbs.
    pub schedule: Schedule,
    /// Which schemes it walks, and from which cubes.
    pub symmetric: SymmetricStart,
    /// How the islands of a job differ.
    pub islands: Islands,
}

/// How each walker walks: its plateaus, plus moves, flips and reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walk {
    /// Which flip graph: F2 or ternary.
    pub ring: Ring,
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
    /// Over ZT: walk over F2 instead (every F2 engine, group and preset) and lift each new best
    /// scheme to Z, keeping the lifts with coefficients in {-1,0,1} (`--lift`).
    pub lift: bool,
}

impl Default for Walk {
    fn default() -> Walk {
        Walk {
            ring: Ring::F2,
            plateau: None,
            plus_slack: None,
            plus_cap: None,
            generalized: EngineSpec::default().generalized,
            sparsity: None,
            seed: None,
            round_steps: None,
            reductions: None,
            lift: false,
        }
    }
}

/// When walkers restart and from where, what the pool keeps, and how a search from the naive
/// scheme climbs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Steps a walker may go without improving before it restarts.
    pub patience: Option<u64>,
    /// Where walkers restart.
    pub restarts: Option<Restarts>,
    /// Percent of the walkers behind a new best that restart from it at once (None:
    /// [`FOLLOW`](crate::driver::FOLLOW)).
    pub follow: Option<u32>,
    /// Ranks the pool keeps.
    pub pool_ranks: Option<usize>,
    /// Whether a search from the naive scheme climbs a ladder.
    pub ladder: Option<Ladder>,
    /// How long a rung of the ladder may go without a better scheme (None:
    /// [`RUNG_STALL`](super::ladder::RUNG_STALL)).
    pub rung_stall: Option<Duration>,
    /// Whether a new search of a shape takes its measured preset ([`Recipe::take_preset`]).
    pub presets: bool,
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule {
            patience: None,
            restarts: None,
            follow: None,
            pool_ranks: None,
            ladder: None,
            rung_stall: None,
            presets: true,
        }
    }
}

/// Which schemes a search walks (invariant under a group), and the fixed cubes it starts from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymmetricStart {
    /// Which schemes to walk (`Some(Group::Trivial)`: plain, said so).
    pub symmetry: Option<Group>,
    /// The fixed cubes of a symmetric start, as diagonal patterns ([`check_cube`]).
    pub cubes: Vec<String>,
    /// Whether walks change the fixed terms of a symmetric scheme.
    pub fixed_terms: Option<FixedTerms>,
}

/// How the islands of a job differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Islands {
    /// Whether they walk with the portfolio's settings.
    pub portfolio: Portfolio,
    /// This island's member of the portfolio, set by [`Recipe::shared_by`]; None: a lone search's.
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
            walk: Walk::default(),
            gpu_tuning: spec.gpu_tuning,
            gpu_partners: None,
            schedule: Schedule::default(),
            symmetric: SymmetricStart::default(),
            islands: Islands::default(),
        }
    }
}

impl Recipe {
    /// The seed given, else 1.
    pub fn seed(&self) -> u64 {
        self.walk.seed.unwrap_or(1)
    }

    /// Which schemes to walk: as given, else all.
    pub fn group(&self) -> Group {
        self.symmetric.symmetry.unwrap_or(Group::Trivial)
    }

    /// True for a search from fixed cubes: Moosbauer and Poole's settings are its defaults.
    pub fn cube_search(&self) -> bool {
        !self.symmetric.cubes.is_empty()
    }

    /// The engine of this recipe from the naive scheme (where the start decides:
    /// [`Recipe::spec_from`]).
    pub fn spec(&self) -> EngineSpec {
        let cubes = self.cube_search();
        let group = self.group();
        let member = self.islands.member.unwrap_or(LONE);
        let spec = EngineSpec {
            backend: self.backend,
            threads: self.threads,
            gpu: self.gpu,
            walkers: self.walkers,
            walkers_per_thread: if cubes { 1 } else { WALKERS_PER_THREAD },
            plateau: self.walk.plateau.or(cubes.then_some(CUBE_PLATEAU)),
            plus_slack: match (self.walk.plus_cap, self.walk.plus_slack) {
                (Some(_), _) => 0,
                (None, Some(given)) => given,
                (None, None) if cubes => CUBE_PLUS_SLACK,
                (None, None) => member.plus_slack,
            },
            floor_quarters: member.floor_quarters,
            generalized: self.walk.generalized,
            round_steps: self.walk.round_steps,
            gpu_tuning: self.gpu_tuning,
            reductions: self.walk.reductions,
            symmetry: group,
            slack_from: self.walk.plus_cap,
            start_rank: None,
            fixed_terms: match (self.symmetric.fixed_terms, cubes) {
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
        spec.for_start(StartKind::Naive, self.walk.sparsity, self.gpu_partners)
    }

    /// The engine of this recipe on a search whose starts reach rank `start_rank`: GPU walkers
    /// are sized for it, and from fixed cubes the slack of plus moves counts from it (a plus cap
    /// is the rank plus moves stop at for any start). What the sparsity and the GPU's partners
    /// leave open, the start decides ([`EngineSpec::for_start`]).
    pub fn spec_from(&self, start_rank: usize, start: StartKind) -> EngineSpec {
        let spec = EngineSpec {
            slack_from: self.walk.plus_cap.or(self.cube_search().then_some(start_rank)),
            start_rank: Some(start_rank),
            ..self.spec()
        };
        spec.for_start(start, self.walk.sparsity, self.gpu_partners)
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
            follow: self.schedule.follow.unwrap_or(crate::driver::FOLLOW).min(100),
            pool_ranks: self.pool_ranks(),
            cubes: self.symmetric.cubes.clone(),
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
        if self.symmetric.fixed_terms == Some(FixedTerms::Free) && group != Group::Trivial && group != Group::C3 {
            return Err(RecipeError::FreeFixedTerms(group));
        }
        Ok(())
    }

    /// Ranks the driver's pool keeps.
    pub fn pool_ranks(&self) -> usize {
        self.schedule.pool_ranks.unwrap_or(POOL_RANKS)
    }

    /// Where the driver restarts walkers: as given; from fixed cubes, independently.
    pub fn restarts(&self) -> Restarts {
        match (self.schedule.restarts, self.cube_search()) {
            (Some(given), _) => given,
            (None, false) => Restarts::Pool,
            (None, true) => Restarts::Independent,
        }
    }

    /// Steps a walker may go without improving before it restarts: as given; from fixed cubes,
    /// Moosbauer and Poole's; else growing while the search is stalled.
    pub fn patience(&self) -> Patience {
        match (self.schedule.patience, self.cube_search()) {
            (Some(given), _) => Patience::Fixed(given),
            (None, true) => Patience::Fixed(CUBE_PATIENCE),
            (None, false) => Patience::Growing(PATIENCE),
        }
    }

    /// Whether a search of `shape` from its naive scheme climbs a ladder (a search with a start
    /// of its own, symmetric or from cubes, is the caller's to rule out).
    pub fn climbs(&self, shape: Shape) -> bool {
        self.schedule
            .ladder
            .unwrap_or_default()
            .climbs(shape, || self.spec().on_gpu())
    }

    /// The scheme a search of `shape` starts from when given none: the naive scheme, or from
    /// fixed cubes the invariant scheme with those cubes ([`SymmetricScheme::with_cubes`]).
    /// Fails with the reason when the cubes do not fit the shape or the group.
    pub fn naive_start<F: FactorBits>(&self, shape: Shape) -> Result<Scheme<F>> {
        if self.symmetric.cubes.is_empty() {
            return Ok(Scheme::try_naive(shape)?);
        }
        WidthError::check::<u64>(shape).map_err(|e| RecipeError::CubesTooWide(e.to_string()))?;
        let cubes = self.cube_factors(shape)?;
        // Invariant by construction; the search verifies it as it does every start.
        Ok(SymmetricScheme::naive(shape)?
            .with_cubes(&cubes)?
            .to_scheme()
            .to_width()?)
    }

    /// The fixed cubes of a cube search of `shape` as factors, checked: each a diagonal pattern
    /// of the shape's size, disjoint, the shape square and the group rotating.
    pub fn cube_factors(&self, shape: Shape) -> Result<Vec<Factor>, RecipeError> {
        if let Some(bad) = self.symmetric.cubes.iter().find_map(|c| check_cube(c).err()) {
            return Err(RecipeError::BadCube(bad));
        }
        if !self.group().rotates() {
            return Err(RecipeError::CubesWithoutRotation);
        }
        if !shape.is_square() {
            return Err(RecipeError::CubesNotSquare(shape));
        }
        let cubes = self
            .symmetric
            .cubes
            .iter()
            .map(|p| diagonal_factor(p, shape.n()))
            .collect::<Result<Vec<Factor>, _>>()?;
        for (i, &x) in cubes.iter().enumerate() {
            if let Some(j) = cubes[..i].iter().position(|&y| x & y != 0) {
                return Err(RecipeError::CubesOverlap(
                    self.symmetric.cubes[j].clone(),
                    self.symmetric.cubes[i].clone(),
                ));
            }
        }
        Ok(cubes)
    }

    /// Takes the preset of `shape` ([`Preset::of`]; over ZT [`Preset::over_zt`], whose ternary
    /// walks are never on a GPU asked for by name, and none where `--lift` is chosen: the F2
    /// walk then takes F2's) where the recipe allows presets and sets
    /// none of its choices (nor a plus-move limit); `on_gpu` says whether the engine walks on a
    /// GPU, where the presets were measured (asked only of a preset not measured on the CPU).
    /// Returns the preset taken.
    pub fn take_preset(&mut self, shape: Shape, on_gpu: impl FnOnce(&Recipe) -> bool) -> Option<Preset> {
        let untouched = self.symmetric.symmetry.is_none()
            && self.symmetric.cubes.is_empty()
            && self.walk.plus_slack.is_none()
            && self.walk.plus_cap.is_none()
            && self.schedule.presets;
        let preset = match self.walk.ring {
            Ring::F2 => Preset::of(shape).filter(|p| untouched && (p.on_cpu || on_gpu(self)))?,
            // The ternary walks of the ZT presets are on the CPU: not where the GPU is asked
            // for. Those that lift walk F2's engines, and where the F2 preset does.
            Ring::Zt => Preset::over_zt(shape).filter(|p| {
                untouched && !self.walk.lift && (p.lift || self.backend != Backend::Gpu) && (p.on_cpu || on_gpu(self))
            })?,
        };
        self.walk.lift |= preset.lift;
        self.symmetric.symmetry = Some(preset.symmetry);
        self.symmetric.cubes = preset.cubes.iter().map(|&c| c.to_owned()).collect();
        self.walk.plus_cap = preset.plus_cap;
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
        self.walk.sparsity = self.walk.sparsity.or(recorded.sparsity);
        if let Some(bad) = recorded.cubes.iter().find_map(|c| check_cube(c).err()) {
            anyhow::bail!("{}: {bad} (damaged checkpoint?)", checkpoint.display());
        }
        let plain = self.symmetric.symmetry == Some(Group::Trivial);
        let asked = self.symmetric.symmetry;
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
            self.symmetric.symmetry = Some(Group::C3);
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
                self.symmetric.symmetry = Some(group);
                self.symmetric.fixed_terms = self.symmetric.fixed_terms.or(Some(fixed));
            }
            None => {}
        }
        // The GPU samples the partners of symmetric walks, whatever a plain search recorded.
        if self.group() == Group::Trivial {
            self.gpu_partners = self.gpu_partners.or(recorded.partners);
        }
        self.symmetric.cubes = recorded.cubes;
        Ok(self)
    }
}

impl Recipe {
    /// This recipe on `place`'s share of the host (its cores and its own GPU, unless the
    /// recipe names them), with its member of the recipe's portfolio.
    pub fn shared_by(&self, place: &Place) -> Recipe {
        Recipe {
            threads: self.threads.or(Some((cores() / place.local_size.max(1)).max(1))),
            gpu: self.gpu.or(Some(place.local_index)),
            islands: Islands {
                member: self
                    .islands
                    .member
                    .or(Some(self.islands.portfolio.member(place.island.index()))),
                ..self.islands
            },
            ..self.clone()
        }
    }
}
