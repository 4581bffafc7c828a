//! The engines that walk many schemes at once: the CPU engine (threads running the core walk)
//! and the GPU engine (one warp per scheme). Both serve the search driver through [`Engine`];
//! [`EngineSpec::open`] builds the one a search asks for, from plain settings (the command
//! line's flags resolve into an [`EngineSpec`]; nothing here knows of them).

pub mod cpu;
pub mod gpu;
mod member;
mod refusal;
mod width;

use anyhow::{bail, Context, Result};
use flipgraph_core::device::Partners;
pub use flipgraph_core::group::Group;
use flipgraph_core::plateau::{Style, CPU_FLOOR, GPU_FLOOR};
use flipgraph_core::sparsity::Sparsity;
use flipgraph_core::symmetry::FixedTerms;
use flipgraph_core::term::FactorBits;
pub use flipgraph_core::walk::Reductions;
use flipgraph_core::walk::{Counters, Plateau, WalkConfig};
use flipgraph_core::{Scheme, Shape};

use cpu::{CpuEngine, Walks};
pub use gpu::GpuTuning;
use gpu::{GpuEngine, GpuOptions, MultiGpu};
pub use member::{scaled_floor, Member, LONE, PLUS_SLACK};
pub use refusal::{GpuLimit, Refusal, MAX_THREADS_PER_CORE};
pub use width::{refuse_wide_symmetry, Width};

/// Which engine a search asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The GPU when one is usable, else the CPU.
    Auto,
    Cpu,
    Gpu,
}

/// Which kind of engine walks: what [`Backend::Auto`] resolved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Cpu,
    Gpu,
}

/// Steps per walker in a round when none is given and the rounds are not timed.
const ROUND_STEPS: u64 = 1 << 16;

/// Walkers per CPU thread by default: many keep the descent from piling onto one dead end.
pub const WALKERS_PER_THREAD: usize = 16;

/// The fewest steps per walker an untimed round takes.
const MIN_ROUND_STEPS: u64 = 256;

/// Steps per walker in an untimed round of `walkers` on a host of `cores`: [`ROUND_STEPS`], or
/// fewer where the walkers outnumber [`WALKERS_PER_THREAD`] a core, so that a round takes about
/// as long however many walkers or threads there are. The stop, the clock and the checkpoints
/// are looked at between rounds: 2,000 walkers on one thread made a `--time 2` search run 18.3
/// s (500 threads on 2 cores: 230 s for `--time 3`).
fn untimed_round_steps(walkers: usize, cores: usize) -> u64 {
    let share = (WALKERS_PER_THREAD * cores.max(1)) as u64;
    let walkers = (walkers as u64).max(share);
    (ROUND_STEPS * share / walkers).max(MIN_ROUND_STEPS)
}

/// The engine a search asks for: plain settings, resolved from the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub backend: Backend,
    /// CPU threads (default: all cores).
    pub threads: Option<usize>,
    /// One GPU (its index among the visible ones, modulo their number) instead of every one.
    pub gpu: Option<usize>,
    /// Walkers (default: `walkers_per_thread` per CPU thread; on GPUs, as many warps as they
    /// hold).
    pub walkers: Option<usize>,
    /// CPU walkers per thread when `walkers` is not given.
    pub walkers_per_thread: usize,
    /// A fixed plateau limit, or the engine's adaptive one.
    pub plateau: Option<u64>,
    /// The adaptive plateau's floor, in quarters of the engine's own (4: the engine's; an
    /// island's portfolio member may change it).
    pub floor_quarters: u32,
    /// How far above its start rank a walker may climb by plus moves.
    pub plus_slack: usize,
    /// The rank `plus_slack` counts from for every walker; None: the rank of the scheme each
    /// walker is loaded with.
    pub slack_from: Option<usize>,
    /// The highest rank of a scheme that walkers are loaded with (a search's starts): GPU
    /// walkers are sized for it. None: the naive rank.
    pub start_rank: Option<usize>,
    pub generalized: bool,
    /// Which walkers walk sparse.
    pub sparsity: Sparsity,
    /// Exact rounds of this many steps (a reproducible run), instead of the engine's own.
    pub round_steps: Option<u64>,
    /// How the GPU walks, beyond what it walks (its round when `round_steps` is not given).
    pub gpu_tuning: GpuTuning,
    /// How walkers find the reductions their moves make possible; None: the engine's default
    /// ([`EngineSpec::default_reductions`]).
    pub reductions: Option<Reductions>,
    /// How GPU walkers find flip partners.
    pub gpu_partners: Partners,
    pub symmetry: Group,
    /// Whether symmetric walks may change their fixed terms.
    pub fixed_terms: FixedTerms,
}

impl Default for EngineSpec {
    /// The command line's defaults (a unit test of the flags holds them equal): the GPU when
    /// one is usable, else every core; adaptive plateaus; generalized flips.
    fn default() -> EngineSpec {
        EngineSpec {
            backend: Backend::Auto,
            threads: None,
            gpu: None,
            walkers: None,
            walkers_per_thread: WALKERS_PER_THREAD,
            plateau: None,
            floor_quarters: LONE.floor_quarters,
            plus_slack: 4,
            slack_from: None,
            start_rank: None,
            generalized: true,
            sparsity: Sparsity::Half,
            round_steps: None,
            gpu_tuning: GpuTuning::default(),
            reductions: None,
            gpu_partners: Partners::Sample,
            symmetry: Group::Trivial,
            fixed_terms: FixedTerms::Free,
        }
    }
}

/// Where a search starts, as far as the walk's defaults care: a scheme given to it (near a
/// record, typically) or the naive scheme of its shape (a long descent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartKind {
    Naive,
    Given,
}

impl EngineSpec {
    /// This engine with the defaults that depend on the start, for whatever the caller leaves
    /// unchosen (`None`): from the naive scheme half the walkers walk sparse (sparse walkers
    /// descend far faster on large shapes) and GPU walkers sample their partners; from a given
    /// scheme every walker walks free (near a record sparse walkers turn down a third of their
    /// flips and descend no further) and a plain GPU walk finds partners by groups (a match of
    /// sampled slots seldom pairs there; symmetric walks always sample). The measurements:
    /// docs/BENCHMARKS-ARCHIVE.md, "Sparse walkers", "A given start walks free" and "A given
    /// start finds its flip partners by groups". `flipgraph search` and
    /// [`crate::session::descent::Descent`] both take them from here.
    pub fn for_start(self, start: StartKind, sparsity: Option<Sparsity>, partners: Option<Partners>) -> EngineSpec {
        let given = start == StartKind::Given;
        EngineSpec {
            sparsity: sparsity.unwrap_or(if given { Sparsity::Off } else { Sparsity::Half }),
            gpu_partners: partners.unwrap_or(if given && self.symmetry == Group::Trivial {
                Partners::Groups
            } else {
                Partners::Sample
            }),
            ..self
        }
    }

    /// Steps per walker in a round of an engine of `walkers` whose rounds are `timed`
    /// ([`Engine::timed_rounds`]): then no limit; else 65,536, fewer where the walkers outnumber
    /// [`WALKERS_PER_THREAD`] a core (so that a round takes about as long however many there are).
    pub fn steps_per_round(&self, timed: bool, walkers: usize) -> u64 {
        match self.round_steps {
            Some(steps) => steps,
            None if timed => u64::MAX,
            None => untimed_round_steps(walkers, cores()),
        }
    }

    /// Where the walkers' plus moves stop: `plus_slack` above `slack_from`, or above the rank
    /// of the scheme each walker is loaded with.
    pub fn plus_cap(&self) -> PlusCap {
        PlusCap {
            slack: self.plus_slack,
            from: self.slack_from,
        }
    }

    /// The walk's settings on an engine of `kind` (whose adaptive plateau has its own floor);
    /// its `max_rank` is set by the engine for each walker ([`PlusCap`]).
    pub fn walk_config(&self, kind: Kind) -> WalkConfig {
        let floor = scaled_floor(
            match kind {
                Kind::Cpu => CPU_FLOOR,
                Kind::Gpu => GPU_FLOOR,
            },
            self.floor_quarters,
        );
        WalkConfig {
            plateau: self.plateau.map_or(Plateau::Adaptive { floor }, Plateau::Fixed),
            generalized: self.generalized,
            // Each walker's, from its engine's plus cap ([`EngineSpec::plus_cap`]).
            max_rank: usize::MAX,
            sparsity: self.sparsity,
            reductions: self.reductions.unwrap_or(self.default_reductions(kind)),
        }
    }

    /// How walkers find reductions unless told: by the walk on a GPU, and on the CPU in
    /// symmetric walks whose fixed terms are frozen (Moosbauer and Poole's way: from 5x5x5
    /// cubes, c3 reached 93 twice as often per CPU second as with scans, BENCHMARKS.md "CPU");
    /// by scans in plain CPU walks, and in c3 walks that change their fixed terms (their cube
    /// reductions are found only by a scan).
    pub fn default_reductions(&self, kind: Kind) -> Reductions {
        let frozen = self.symmetry != Group::Trivial && self.fixed_terms.for_group(self.symmetry) == FixedTerms::Frozen;
        match kind {
            Kind::Cpu if !frozen => Reductions::Scan,
            _ => Reductions::Walk,
        }
    }

    /// How long a GPU round lasts, in microseconds: 0 (rounds of exact step counts) when
    /// `round_steps` is given.
    pub fn gpu_round_us(&self) -> u32 {
        match self.round_steps {
            Some(_) => 0,
            None => self.gpu_tuning.round_ms.saturating_mul(1000),
        }
    }

    /// Whether [`EngineSpec::open`] walks plain schemes on a GPU: as the backend says, and with
    /// `Auto` when one is usable.
    pub fn on_gpu(&self) -> bool {
        match self.backend {
            Backend::Cpu => false,
            Backend::Gpu => true,
            Backend::Auto => gpu::usable(),
        }
    }

    /// Opens the engine asked for; `Auto` falls back to the CPU with a message.
    pub fn open(&self, shape: Shape) -> Result<Box<dyn Engine>> {
        self.open_for(shape)
    }

    /// Opens the engine asked for, walking factors of `F`; `Auto` falls back to the CPU with a
    /// message (always, for factors the GPU kernels do not take).
    pub fn open_for<F: Width>(&self, shape: Shape) -> Result<Box<dyn Engine<F>>> {
        let group = self.symmetry;
        if group == Group::Trivial && self.fixed_terms == FixedTerms::Frozen {
            return Err(Refusal::FrozenWithoutGroup.into());
        }
        if !group.acts_on(shape) {
            return Err(Refusal::NotSquare { group, shape }.into());
        }
        if group != Group::Trivial && self.backend != Backend::Cpu {
            if let Some(limit) = self.gpu_cannot_walk_symmetric() {
                if self.backend == Backend::Gpu {
                    return Err(Refusal::GpuSymmetric { group, limit }.into());
                }
                tracing::info!("the group {group}: running on the CPU ({limit})");
                return self.open_cpu(shape);
            }
        }
        match self.backend {
            Backend::Cpu => self.open_cpu(shape),
            Backend::Gpu => self.open_gpu::<F>(shape).context(Refusal::GpuEngine),
            Backend::Auto => self.open_gpu::<F>(shape).or_else(|e| {
                tracing::info!("no usable GPU ({e:#}); running on the CPU");
                self.open_cpu(shape)
            }),
        }
    }

    /// Why the GPU kernel cannot take this symmetric walk, if it cannot: it keeps the fixed
    /// terms frozen, finds reductions by the walk (merges; no generalized flips) and samples
    /// its partners.
    fn gpu_cannot_walk_symmetric(&self) -> Option<GpuLimit> {
        if self.fixed_terms.for_group(self.symmetry) == FixedTerms::Free {
            return Some(GpuLimit::FreeFixedTerms);
        }
        if self.reductions == Some(Reductions::Scan) {
            return Some(GpuLimit::ScanReductions);
        }
        if self.gpu_partners == Partners::Groups {
            return Some(GpuLimit::PartnersByGroups);
        }
        None
    }

    /// The CPU engine on all (or `threads`) cores, walking schemes of `shape`.
    pub fn open_cpu<F: Width>(&self, shape: Shape) -> Result<Box<dyn Engine<F>>> {
        let cores = cores();
        let threads = self.threads.unwrap_or(cores);
        if threads > MAX_THREADS_PER_CORE * cores {
            return Err(Refusal::TooManyThreads { threads, cores }.into());
        }
        let walkers = self.walkers.unwrap_or(self.walkers_per_thread * threads);
        check_cpu_memory(shape, self.start_rank, walkers, available_memory())?;
        let config = self.walk_config(Kind::Cpu);
        let walks = Walks {
            config,
            plus: self.plus_cap(),
            symmetry: self.symmetry,
            fixed_terms: self.fixed_terms,
        };
        Ok(Box::new(CpuEngine::new(threads, walkers, walks)?))
    }

    /// Every visible GPU (`CUDA_VISIBLE_DEVICES` picks them), each with its own walkers.
    fn open_gpu<F: FactorBits>(&self, shape: Shape) -> Result<Box<dyn Engine<F>>> {
        let options = GpuOptions {
            walkers: self.walkers,
            config: self.walk_config(Kind::Gpu),
            device: 0,
            log_entries: 0,
            match_rounds: self.gpu_tuning.match_rounds,
            flips: self.gpu_tuning.flips,
            hints: self.gpu_tuning.hints,
            partners: self.gpu_partners,
            round_us: self.gpu_round_us(),
            symmetry: self.symmetry,
            plus: self.plus_cap(),
            start_rank: self.start_rank,
        };
        let count = gpu::device_count()?;
        if count == 0 {
            bail!("the NVIDIA driver reports no device");
        }
        Ok(match self.gpu {
            Some(device) => Box::new(GpuEngine::<F>::open(
                shape,
                GpuOptions {
                    device: device % count,
                    ..options
                },
            )?),
            None if count == 1 => Box::new(GpuEngine::<F>::open(shape, options)?),
            None => Box::new(MultiGpu::<F>::open(shape, options, count)?),
        })
    }
}

/// This machine's cores (1 when the system does not say): the CPU engine's threads by default.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Memory a CPU walker of `shape` takes, about, on schemes of up to `start_rank` terms (None:
/// the naive rank): measured 205 KiB for 8x8x8 and 17 KiB for 3x3x3 (peak RSS of 4096 walkers
/// from naive), 400 bytes per term of the naive scheme; a start of higher rank takes as much
/// per term of its own.
fn cpu_walker_bytes(shape: Shape, start_rank: Option<usize>) -> u64 {
    let terms = start_rank.unwrap_or(0).max(shape.naive_rank());
    400 * terms as u64
}

/// Refuses more walkers than half the available memory holds, before allocating any: a huge
/// `--walkers` must end at once with a reason, not swap or abort.
fn check_cpu_memory(shape: Shape, start_rank: Option<usize>, walkers: usize, available: Option<u64>) -> Result<()> {
    let Some(available) = available else { return Ok(()) };
    let each = cpu_walker_bytes(shape, start_rank);
    let need = walkers as u64 * each;
    if need > available / 2 {
        bail!(
            "{walkers} walkers of {shape} need about {} MiB; this machine has {} MiB available, enough for about {} walkers (half of it is the limit)",
            need >> 20,
            available >> 20,
            available / 2 / each
        );
    }
    Ok(())
}

/// The memory available to new allocations (Linux: MemAvailable), if the system says.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Where a walker's plus moves stop: `slack` ranks above `from`, or above the rank of the scheme
/// it is loaded with where `from` is None.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlusCap {
    pub slack: usize,
    pub from: Option<usize>,
}

impl PlusCap {
    /// The rank no plus move reaches, for a walker loaded with a scheme of `rank`.
    pub fn for_rank(&self, rank: usize) -> usize {
        self.from.unwrap_or(rank) + self.slack
    }
}

/// What a walker did in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkerStatus {
    /// Rank at the end of the round.
    pub rank: usize,
    /// Lowest rank since the walker was last loaded.
    pub best_rank: usize,
    /// Its plateau limit now (steps without a reduction before a plus move).
    pub plateau: u64,
}

/// The result of one round over all walkers.
#[derive(Clone, Debug, Default)]
pub struct Round {
    /// Steps, vertices and moves of all walkers in this round.
    pub counters: Counters,
    /// One entry per walker.
    pub walkers: Vec<WalkerStatus>,
}

/// A set of walkers that the driver loads with schemes (of factors of `F`) and runs in rounds.
///
/// Rounds are barriers: every walker takes its steps, then the driver reads the results and
/// decides which walkers to reload. With rounds of so many steps the trajectory depends only
/// on the seeds and the walker count, never on timing, so a run is reproducible; a GPU's
/// rounds by time (its default) trade that for throughput.
pub trait Engine<F: FactorBits = u64> {
    /// Names the engine and its hardware, for logs and reports.
    fn describe(&self) -> String;
    /// Which kind of engine it is.
    fn kind(&self) -> Kind;
    /// How many walkers it runs.
    fn walkers(&self) -> usize;
    /// Whether its rounds end after a time (then `run_round`'s steps are only a cap).
    fn timed_rounds(&self) -> bool;
    /// Whether its walkers' plateau limits adapt (no `--plateau N`): only then does a walk's
    /// style choose its floor, and the search choose each walk's style by the styles' returns.
    fn adaptive_plateau(&self) -> bool;
    /// Loads `scheme` into walker `walker` with a fresh random stream from `seed`, to walk in
    /// `style` (whether it holds its plateaus, and so, by default, walks sparse).
    fn load(&mut self, walker: usize, scheme: &Scheme<F>, seed: u64, style: Style) -> Result<()>;
    /// Runs every walker for up to `steps` steps (or the engine's round time, where it has
    /// one), stopping a walker early at rank `target`.
    fn run_round(&mut self, steps: u64, target: usize) -> Result<Round>;
    /// The best scheme walker `walker` reached since it was loaded (not yet verified).
    fn best_scheme(&mut self, walker: usize) -> Result<Scheme<F>>;
    /// The scheme walker `walker` holds now (not yet verified): for audits.
    fn current_scheme(&mut self, walker: usize) -> Result<Scheme<F>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untimed_rounds_shrink_where_walkers_outnumber_the_cores_share() {
        // The default (16 walkers a thread, a thread a core) and fewer: a full round.
        assert_eq!(untimed_round_steps(32, 2), ROUND_STEPS);
        assert_eq!(untimed_round_steps(16, 2), ROUND_STEPS);
        // 2,000 walkers on 2 cores: a round of as many steps as 32 walkers' full rounds.
        assert_eq!(untimed_round_steps(2000, 2), ROUND_STEPS * 32 / 2000);
        assert_eq!(untimed_round_steps(10_000_000, 2), MIN_ROUND_STEPS);
        // Given round steps and timed rounds keep theirs.
        let exact = EngineSpec {
            round_steps: Some(5),
            ..EngineSpec::default()
        };
        assert_eq!(exact.steps_per_round(false, 2000), 5);
        assert_eq!(EngineSpec::default().steps_per_round(true, 2000), u64::MAX);
    }

    #[test]
    fn cpu_walkers_are_bounded_by_memory() {
        let eight = Shape::square(8).unwrap();
        let gib = 1u64 << 30;
        assert!(check_cpu_memory(eight, None, 4096, Some(16 * gib)).is_ok());
        let err = check_cpu_memory(eight, None, 100_000_000, Some(16 * gib)).unwrap_err();
        assert!(err.to_string().contains("enough for about 41943 walkers"), "{err}");
        assert!(check_cpu_memory(eight, None, 100_000_000, None).is_ok());
        // A start of rank 65,536 (--from): 128 times the naive 512 terms a walker (audit item 11:
        // 2000 such walkers passed the check and aborted at 8.9 GB).
        assert!(check_cpu_memory(eight, Some(512), 2000, Some(16 * gib)).is_ok());
        let err = check_cpu_memory(eight, Some(65_536), 2000, Some(16 * gib)).unwrap_err();
        assert!(err.to_string().contains("enough for about 327 walkers"), "{err}");
    }

    #[test]
    fn reductions_are_found_by_the_walk_on_gpus_and_in_frozen_symmetric_cpu_walks() {
        let spec = |symmetry, fixed_terms| EngineSpec {
            symmetry,
            fixed_terms,
            ..EngineSpec::default()
        };
        let reductions = |s: &EngineSpec, kind| s.walk_config(kind).reductions;
        let plain = spec(Group::Trivial, FixedTerms::Free);
        assert_eq!(reductions(&plain, Kind::Cpu), Reductions::Scan);
        assert_eq!(reductions(&plain, Kind::Gpu), Reductions::Walk);
        // c3 with free fixed terms finds its cube reductions by scans; z2 always keeps them.
        assert_eq!(
            reductions(&spec(Group::C3, FixedTerms::Free), Kind::Cpu),
            Reductions::Scan
        );
        for group in [Group::C3, Group::Z2, Group::C6] {
            assert_eq!(
                reductions(&spec(group, FixedTerms::Frozen), Kind::Cpu),
                Reductions::Walk
            );
        }
        assert_eq!(
            reductions(&spec(Group::Z2, FixedTerms::Free), Kind::Cpu),
            Reductions::Walk
        );
        let told = EngineSpec {
            reductions: Some(Reductions::Scan),
            ..spec(Group::C6, FixedTerms::Frozen)
        };
        assert_eq!(reductions(&told, Kind::Cpu), Reductions::Scan);
    }
}
