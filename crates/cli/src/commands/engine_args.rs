//! The engine's command-line flags, shared by `search` and `bench`: they resolve into the
//! engine module's plain [`EngineSpec`] ([`EngineArgs::spec`]), and the engine's choices get
//! their command-line names and help here, not in the engine. `--cubes`, which goes with
//! `--symmetry c3`, changes the naive start instead ([`EngineArgs::naive_start`]).

use anyhow::{bail, Context, Result};
use flipgraph_core::scheme::WidthError;
use flipgraph_core::symmetry::{FixedTerms, SymmetricScheme};
use flipgraph_core::term::FactorBits;
use flipgraph_core::{Factor, Scheme, Shape};

use super::choices::{
    BackendArg, FixedTermsArg, HintsArg, LadderArg, PartnersArg, ReductionsArg, RestartsArg, SparsityArg, SymmetryArg,
};
use super::preset::PresetArg;
use crate::engine::{EngineSpec, Group, StartKind, WALKERS_PER_THREAD};
use crate::search::ladder::Ladder;
use crate::search::{Patience, Restarts};

/// The engine's flags, shared by `search` and `bench`.
#[derive(clap::Args, Clone, Debug)]
pub struct EngineArgs {
    /// The engine: auto (the GPU when one is usable, else the CPU), cpu or gpu.
    ///
    ///  The engine: auto takes the GPU when one is usable, else the CPU, and says which.
    ///
    /// On a GPU every visible device runs its own walkers (CUDA_VISIBLE_DEVICES picks the devices).
    #[arg(help_heading = "Engine", long, default_value = "auto")]
    pub backend: BackendArg,
    /// CPU threads (default: all cores; in an MPI job, each process its share of its host's).
    #[arg(help_heading = "Engine", long, value_parser = at_least_one::<usize>)]
    pub threads: Option<usize>,
    /// Walk on this GPU only (its index among the visible ones) instead of on every one.
    ///
    /// In an MPI job each process takes the GPU of its index on its host unless this is given.
    #[arg(help_heading = "Engine", long)]
    pub gpu: Option<usize>,
    /// Walkers (schemes walked at once).
    ///
    /// Default: 16 per CPU thread (one with --cubes); on GPUs, as many warps as they hold (with
    /// --cubes too).
    #[arg(help_heading = "Engine", long, value_parser = at_least_one::<usize>)]
    pub walkers: Option<usize>,
    /// Steps without a reduction before a plus move leaves the plateau, fixed (0: never).
    ///
    /// Default: adaptive, per walker: after each reduction the limit moves halfway to 4 times the
    /// wait that reduction took, and a plateau that ends in a plus move makes it half as long again
    /// (up to 2^26), never below the engine's floor (1000 on the CPU, 100 on a GPU, the best fixed
    /// values on 4x4x4). Descents then take few plus moves on any shape; a walker at its lowest
    /// rank takes them about every floor steps. Those are the escaping walks; the others hold their
    /// plateaus (a floor of 2^24 steps: they leave it by a reduction or a restart), which large
    /// shapes descend by. Each restart chooses its walk's style, more often the style whose walks
    /// found more new ranks (below the pool's best at their load) per step over the last rounds
    /// (between 1/8 and 7/8 of the walks hold). The status line and the JSON progress show the
    /// median limit of the escaping walkers and the share of walks that hold. With --cubes: fixed
    /// 16667.
    #[arg(help_heading = "Walk", long)]
    pub plateau: Option<u64>,
    /// How far above its start rank a walker may climb by plus moves.
    ///
    ///  How far above its start rank a walker may climb by plus moves (default 4; with --cubes 0,
    /// counted from the search's start rank, however low the scheme it was loaded with).
    #[arg(help_heading = "Walk", long)]
    pub plus_slack: Option<usize>,
    /// An absolute cap: no plus move takes any walker above this rank.
    ///
    ///  The rank above which no plus move takes a walker, for every walker (an absolute cap, as
    /// Moosbauer and Poole's run files give one: 216 for 6x6x6); a walker above it, such as one
    /// loaded with a higher start, takes plus moves once it is below.
    ///
    /// Instead of --plus-slack.
    #[arg(help_heading = "Walk", long, value_name = "RANK", conflicts_with = "plus_slack")]
    pub plus_cap: Option<usize>,
    /// Turn generalized flips (reductions of dependent groups of 3+ terms) off.
    #[arg(help_heading = "Walk", long)]
    pub no_generalized_flips: bool,
    /// Which walkers walk sparse (turning down flips that add bits).
    ///
    ///  Which walkers walk sparse: they take a flip that adds g >= 2 bits to their factors only
    /// with  chance 2^-(g-1), and so stay where factors coincide and reductions are common (plain
    /// walks;  symmetric ones walk free).
    ///
    /// Default: half (the walks that hold their plateaus, a share the search chooses) from the
    /// naive scheme, off from a given scheme (--from), where sparse walkers turn down about a third
    /// of their flips and descend no further; a resumed search keeps its checkpoint's.
    #[arg(help_heading = "Walk", long)]
    pub sparse: Option<SparsityArg>,
    /// Random seed (default 1): the same seed, engine and walker count give the same run (on a GPU,
    /// with --round-steps).
    ///
    /// A resumed search keeps its checkpoint's.
    #[arg(help_heading = "Walk", long)]
    pub seed: Option<u64>,
    /// Steps per walker between two looks of the driver (default 65536).
    ///
    /// On a GPU, rounds last --gpu-round-ms instead unless this is given: then they are exact step
    /// counts, and the same seed gives the same run.
    #[arg(help_heading = "Walk", long, value_parser = at_least_one::<u64>)]
    pub round_steps: Option<u64>,
    /// How walkers find the reductions that their flips make possible.
    ///
    /// Default: walk on a GPU, and on the CPU in symmetric walks with frozen fixed terms (--cubes);
    /// scan in other CPU walks. (--gpu-reductions is an older name.)
    #[arg(help_heading = "Walk", long, alias = "gpu-reductions")]
    pub reductions: Option<ReductionsArg>,
    /// GPU: how long a round lasts, in milliseconds, when --round-steps is not given.
    ///
    /// Every warp walks until the same moment: with rounds of so many steps, the warps whose steps
    /// cost more hold the GPU while the others idle (docs/BENCHMARKS-ARCHIVE.md, Earlier changes, item "Rounds by time").
    #[arg(help_heading = "GPU", hide = crate::engine::gpu::PTX.is_empty(), long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=60_000))]
    pub gpu_round_ms: u32,
    /// GPU: slots each lane samples per step (match.any.sync rounds) before the step gives up.
    #[arg(help_heading = "GPU", hide = crate::engine::gpu::PTX.is_empty(), long, default_value_t = 2)]
    pub gpu_rounds: u32,
    /// GPU: most flips taken from the disjoint pairs that one match finds.
    #[arg(help_heading = "GPU", hide = crate::engine::gpu::PTX.is_empty(), long, default_value_t = 8)]
    pub gpu_flips: u32,
    /// GPU: whether lanes offer terms to a match by their partner hints.
    #[arg(help_heading = "GPU", hide = crate::engine::gpu::PTX.is_empty(), long, default_value = "auto")]
    pub gpu_hints: HintsArg,
    /// GPU: how walkers find flip partners.
    ///
    ///  GPU: how walkers find flip partners: matches of sampled slots, or the exact groups of equal
    /// factors at one position at a time.
    ///
    /// Default: sample from the naive scheme (the faster descent) and in symmetric walks (the GPU's
    /// only way there), groups from a given scheme (--from) of a plain walk, where partners are
    /// scarce and groups walk up to twice the vertices a second; a resumed plain search keeps its
    /// checkpoint's.
    #[arg(help_heading = "GPU", hide = crate::engine::gpu::PTX.is_empty(), long)]
    pub gpu_partners: Option<PartnersArg>,
    /// Steps a walker may go without improving before it restarts.
    ///
    ///  Steps a walker may go without improving before it restarts (default: 4000000, or half the
    /// steps walked since the search last improved if more, so that walks lengthen while it is
    /// stalled; with --cubes 33000000).
    ///
    /// A given N is fixed.
    #[arg(help_heading = "Schedule", long)]
    pub patience: Option<u64>,
    /// Where walkers restart (default: pool; with --cubes: independent).
    #[arg(help_heading = "Schedule", long)]
    pub restarts: Option<RestartsArg>,
    /// Ranks the pool keeps, from its best up (default 5).
    ///
    ///  Ranks the pool keeps, from its best up (default 5): a restart from the pool takes the best
    /// rank half the time and the others evenly.
    ///
    /// Three did better on the CPU on 7x7x7.
    #[arg(help_heading = "Schedule", long, value_parser = at_least_one::<usize>)]
    pub pool_ranks: Option<usize>,
    /// Whether a search from the naive scheme climbs to its shape from smaller ones.
    ///
    ///  A search from the naive scheme (search, bench --time-to-rank): whether it climbs to its
    /// shape from smaller ones, each rung's best schemes grown by a slice to start the next
    /// (default auto).
    ///
    /// Never in MPI jobs; `on` with --from, symmetric walks or cubes is refused; a search killed
    /// during its climb climbs again on --resume (unless `off`).
    #[arg(help_heading = "Schedule", long)]
    pub ladder: Option<LadderArg>,
    /// Whether a new search of 5x5x5 (or 6x6x6 on a GPU) takes its best measured method.
    ///
    ///  A new search of a shape from its naive scheme, given no --symmetry, --cubes or plus-move
    /// limit: whether it takes the best method measured for the shape (auto, the default: 5x5x5
    /// walks c3 from the cubes 10001,01010,00100, which reached 93 in a median of 5.5 s on a GPU
    /// and in about 450 CPU seconds a hit on the CPU; on a GPU 6x6x6 walks c6 from
    /// 110000,001100,000011 with --plus-cap 216, which reached 153 in 3 of 4 runs of 9 minutes,
    /// at 148, 210 and 317 s; BENCHMARKS.md, Time to the best known rank and CPU) or walks as the
    /// other flags say (off).
    #[arg(help_heading = "Symmetry", long, value_enum)]
    pub preset: Option<PresetArg>,
    /// Which schemes to walk: all (none), or those invariant under a group.
    ///
    ///  Which schemes to walk (default: none, all schemes; a resumed search: what its checkpoint
    /// records).
    #[arg(help_heading = "Symmetry", long)]
    pub symmetry: Option<SymmetryArg>,
    /// Start a symmetric walk from fixed diagonal cubes, as Moosbauer and Poole do.
    ///
    ///  With --symmetry c3: start from fixed cubes instead of the naive scheme, as Moosbauer and
    /// Poole do, with their settings unless flags say otherwise (a fixed plateau of 16667, plus
    /// moves up to the start rank, patience 33000000, independent runs, one walker per CPU thread
    /// or every warp of a GPU): `--size 5 --symmetry c3 --cubes 10001,01010,00100` reaches the best
    /// known rank 93.
    ///
    /// Each cube is a diagonal pattern of n digits, 1 where the diagonal entry is in it: 10001 is
    /// (e_11 + e_55)^3 on 5x5x5. The patterns must be disjoint; the rest of the tensor is put in as
    /// unit terms, in orbits (`--cubes 10001,01010,00100`: rank 135). The slack of plus moves then
    /// counts from this start rank, and the fixed terms are frozen.
    #[arg(help_heading = "Symmetry", long, value_delimiter = ',', value_name = "PATTERN", value_parser = parse_diagonal)]
    pub cubes: Vec<String>,
    /// Whether symmetric walks may change their fixed terms.
    ///
    ///  With --symmetry c3: whether the walks may change the fixed terms (default: frozen with
    /// --cubes or --backend gpu, else free).
    ///
    /// The GPU walks symmetric schemes with frozen fixed terms only, so that with free ones
    /// `--backend auto` runs on the CPU.
    #[arg(help_heading = "Symmetry", long)]
    pub fixed_terms: Option<FixedTermsArg>,
}

/// How far above its start rank a walker may climb by default.
const PLUS_SLACK: usize = 4;

/// A cube search's defaults: Moosbauer and Poole's settings (a plus move after 50,000 plain flips
/// without a reduction, 16,667 orbit moves; a run restarted after 10^8 plain flips without a
/// new best; plus moves up to the start rank), with which 5x5x5 reached rank 93 here
/// (BENCHMARKS.md, CPU; docs/BENCHMARKS-ARCHIVE.md, The symmetric flip graph from fixed cubes).
const CUBE_PLATEAU: u64 = 16_667;
const CUBE_PATIENCE: u64 = 33_000_000;
const CUBE_PLUS_SLACK: usize = 0;

/// A diagonal pattern of `--cubes`: digits 0 and 1, at least one 1.
pub fn parse_diagonal(s: &str) -> Result<String, String> {
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
    Ok(s.to_owned())
}

/// A count of at least one (0 threads, walkers or steps would walk nothing, forever).
pub fn at_least_one<T: std::str::FromStr + Default + PartialEq>(s: &str) -> Result<T, String> {
    match s.parse::<T>() {
        Ok(n) if n == T::default() => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{s}' is not a whole number")),
    }
}

impl EngineArgs {
    /// The seed given, else 1.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or(1)
    }

    /// The engine these flags ask for (from the naive scheme, where the start decides:
    /// [`EngineArgs::spec_from`]).
    pub fn spec(&self) -> EngineSpec {
        let spec = EngineSpec {
            backend: self.backend.into(),
            threads: self.threads,
            gpu: self.gpu,
            walkers: self.walkers,
            walkers_per_thread: if self.cube_search() { 1 } else { WALKERS_PER_THREAD },
            plateau: self.plateau.or(self.cube_search().then_some(CUBE_PLATEAU)),
            plus_slack: match (self.plus_cap, self.plus_slack) {
                (Some(_), _) => 0,
                (None, Some(given)) => given,
                (None, None) if self.cube_search() => CUBE_PLUS_SLACK,
                (None, None) => PLUS_SLACK,
            },
            generalized: !self.no_generalized_flips,
            round_steps: self.round_steps,
            gpu_round_ms: self.gpu_round_ms,
            gpu_match_rounds: self.gpu_rounds,
            gpu_flips: self.gpu_flips,
            reductions: self.reductions.map(Into::into),
            gpu_hints: self.gpu_hints.into(),
            symmetry: self.symmetry().into(),
            slack_from: self.plus_cap,
            start_rank: None,
            fixed_terms: match (self.fixed_terms, self.cubes.is_empty()) {
                (Some(given), _) => given.into(),
                // Only the CPU walks C3 with free fixed terms; the GPU and the other groups keep them.
                (None, true)
                    if self.symmetry() != SymmetryArg::Trivial
                        && (self.symmetry() != SymmetryArg::C3 || self.backend == BackendArg::Gpu) =>
                {
                    FixedTerms::Frozen
                }
                (None, true) => FixedTerms::Free,
                (None, false) => FixedTerms::Frozen,
            },
            ..EngineSpec::default()
        };
        spec.for_start(
            StartKind::Naive,
            self.sparse.map(Into::into),
            self.gpu_partners.map(Into::into),
        )
    }

    /// Which schemes to walk: as given, else all.
    pub fn symmetry(&self) -> SymmetryArg {
        self.symmetry.unwrap_or(SymmetryArg::Trivial)
    }

    /// True for a search from fixed cubes: Moosbauer and Poole's settings are its defaults.
    fn cube_search(&self) -> bool {
        !self.cubes.is_empty()
    }

    /// Refuses flags that contradict each other: --cubes beside a start from files
    /// (`from_files`: two starts), and --fixed-terms free under a group whose walks keep their
    /// fixed terms (only c3 walks change them).
    pub fn refuse_conflicts(&self, from_files: bool) -> Result<()> {
        if self.cube_search() && from_files {
            bail!("--cubes and --from are two different starts; give one");
        }
        let group = Group::from(self.symmetry());
        if self.fixed_terms == Some(FixedTermsArg::Free) && group != Group::Trivial && group != Group::C3 {
            bail!("--fixed-terms free: only c3 walks change their fixed terms; --symmetry {group} keeps them frozen");
        }
        Ok(())
    }

    /// Ranks the driver's pool keeps.
    pub fn pool_ranks(&self) -> usize {
        self.pool_ranks.unwrap_or(crate::search::POOL_RANKS)
    }

    /// Where the driver restarts walkers.
    pub fn restarts(&self) -> Restarts {
        match (self.restarts, self.cube_search()) {
            (Some(given), _) => given.into(),
            (None, false) => Restarts::Pool,
            (None, true) => Restarts::Independent,
        }
    }

    /// Whether a search of `shape` from its naive scheme climbs a ladder, as --ladder says (a
    /// search with a start of its own, symmetric or from cubes, is `search`'s to rule out).
    pub fn climbs(&self, shape: Shape) -> bool {
        let ladder = self.ladder.map_or(Ladder::default(), Ladder::from);
        ladder.climbs(shape, || self.spec().on_gpu())
    }

    /// Steps a walker may go without improving before it restarts: as given; with --cubes,
    /// Moosbauer and Poole's; else growing while the search is stalled.
    pub fn patience(&self) -> Patience {
        match (self.patience, self.cube_search()) {
            (Some(given), _) => Patience::Fixed(given),
            (None, true) => Patience::Fixed(CUBE_PATIENCE),
            (None, false) => Patience::Growing(crate::search::PATIENCE),
        }
    }

    /// The engine these flags ask for, on a search whose starts reach rank `start_rank`: GPU
    /// walkers are sized for it, and with --cubes the slack of plus moves counts from it (a
    /// --plus-cap is the rank plus moves stop at for any start). What --sparse and
    /// --gpu-partners leave open, the start decides ([`EngineSpec::for_start`]).
    pub fn spec_from(&self, start_rank: usize, start: StartKind) -> EngineSpec {
        let spec = EngineSpec {
            slack_from: self.plus_cap.or((!self.cubes.is_empty()).then_some(start_rank)),
            start_rank: Some(start_rank),
            ..self.spec()
        };
        spec.for_start(start, self.sparse.map(Into::into), self.gpu_partners.map(Into::into))
    }

    /// The scheme a search of `shape` starts from when given none: the naive scheme, or with
    /// --cubes the invariant scheme with those fixed cubes ([`SymmetricScheme::with_cubes`]).
    /// Fails with the reason when --cubes does not fit the shape or the symmetry.
    pub fn naive_start<F: FactorBits>(&self, shape: Shape) -> Result<Scheme<F>> {
        if self.cubes.is_empty() {
            return Ok(Scheme::try_naive(shape)?);
        }
        WidthError::check::<u64>(shape).context("--cubes")?;
        if !Group::from(self.symmetry()).rotates() {
            bail!("--cubes needs --symmetry c3 or c6: the cubes are the fixed terms of the cyclic symmetry");
        }
        if !shape.is_square() {
            bail!("--cubes needs a square shape; {shape} is not");
        }
        let cubes = self
            .cubes
            .iter()
            .map(|p| diagonal_factor(p, shape.n()))
            .collect::<Result<Vec<Factor>>>()?;
        for (i, &x) in cubes.iter().enumerate() {
            if let Some(j) = cubes[..i].iter().position(|&y| x & y != 0) {
                bail!(
                    "--cubes {} and {} share a diagonal entry; the cubes must be disjoint",
                    self.cubes[j],
                    self.cubes[i]
                );
            }
        }
        // Invariant by construction; the search verifies it as it does every start.
        Ok(SymmetricScheme::naive(shape)?
            .with_cubes(&cubes)?
            .to_scheme()
            .to_width()?)
    }
}

/// The factor `sum e_ii` over the diagonal entries `i` set in `pattern` (its first digit is
/// `e_11`), for `n x n` matrices.
fn diagonal_factor(pattern: &str, n: usize) -> Result<Factor> {
    if pattern.len() != n {
        bail!(
            "--cubes {pattern}: a pattern of {n}x{n}x{n} has {n} digits, one per diagonal entry (not {})",
            pattern.len()
        );
    }
    Ok(pattern
        .bytes()
        .enumerate()
        .filter(|&(_, d)| d == b'1')
        .map(|(i, _)| 1 << (i * n + i))
        .sum())
}

#[cfg(test)]
pub(crate) mod tests {
    use clap::Parser;
    use flipgraph_core::device::Partners;
    use flipgraph_core::sparsity::Sparsity;

    use super::{EngineArgs, Patience, StartKind};
    use crate::engine::gpu::Hints;
    use crate::engine::Reductions;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        engine: EngineArgs,
    }

    /// Moosbauer and Poole's 6x6x6 recipe: c6 from three cubes, plus moves capped at 216.
    pub(crate) const C6_6X6X6: [&str; 6] = [
        "--symmetry",
        "c6",
        "--cubes",
        "110000,001100,000011",
        "--plus-cap",
        "216",
    ];

    /// The engine settings that these command-line flags give.
    pub(crate) fn engine<S: AsRef<str>>(args: &[S]) -> EngineArgs {
        Cli::try_parse_from(std::iter::once("flipgraph").chain(args.iter().map(AsRef::as_ref)))
            .expect("valid flags")
            .engine
    }

    #[test]
    fn a_new_search_of_5x5x5_or_6x6x6_takes_its_measured_preset_unless_told_otherwise() {
        use super::SymmetryArg;
        use crate::commands::preset::Preset;
        use flipgraph_core::Shape;
        let (five, six) = (Shape::square(5).unwrap(), Shape::square(6).unwrap());
        let mut args = engine::<&str>(&[]);
        let preset = args.take_preset(six, |_| true).unwrap();
        assert_eq!(preset, Preset::of(six).unwrap());
        assert_eq!(args.symmetry, Some(SymmetryArg::C6));
        assert_eq!(args.cubes, ["110000", "001100", "000011"]);
        assert_eq!(args.plus_cap, Some(216));
        assert_eq!(
            preset.describe(),
            "--symmetry c6 --cubes 110000,001100,000011 --plus-cap 216"
        );
        let mut args = engine::<&str>(&[]);
        assert_eq!(
            args.take_preset(five, |_| true).map(|p| p.symmetry),
            Some(SymmetryArg::C3)
        );
        assert_eq!(args.plus_cap, None);
        // 6x6x6's not on the CPU, 5x5x5's there too; not for other shapes, and not against a
        // flag it would set.
        let mut args = engine::<&str>(&[]);
        assert_eq!(args.take_preset(six, |_| false), None);
        assert_eq!(args.symmetry, None);
        let mut args = engine::<&str>(&[]);
        assert_eq!(
            args.take_preset(five, |_| false).map(|p| p.symmetry),
            Some(SymmetryArg::C3)
        );
        assert_eq!(
            engine::<&str>(&[]).take_preset(Shape::square(4).unwrap(), |_| true),
            None
        );
        for given in [
            &["--preset", "off"][..],
            &["--symmetry", "none"],
            &["--symmetry", "c3"],
            &["--plus-slack", "4"],
            &["--cubes", "100000,010000"],
        ] {
            let mut args = engine(given);
            let before = format!("{args:?}");
            let asked = args.take_preset(six, |_| panic!("{given:?}: no need to ask for a GPU"));
            assert_eq!(asked, None, "{given:?}");
            assert_eq!(format!("{args:?}"), before, "{given:?}");
        }
    }

    #[test]
    fn the_library_defaults_are_the_command_lines() {
        assert_eq!(engine::<&str>(&[]).spec(), crate::engine::EngineSpec::default());
    }

    #[test]
    fn cubes_start_at_their_rank_with_frozen_fixed_terms_and_the_slack_from_there() {
        use super::{Restarts, CUBE_PATIENCE, CUBE_PLATEAU};
        use flipgraph_core::symmetry::{is_c3_invariant, FixedTerms};
        use flipgraph_core::Shape;
        let args = engine(&["--symmetry", "c3", "--cubes", "10001,01010,00100"]);
        let start = args.naive_start::<u64>(Shape::square(5).unwrap()).unwrap();
        assert_eq!(start.rank(), 135);
        assert!(is_c3_invariant(&start));
        let spec = args.spec_from(start.rank(), StartKind::Naive);
        assert_eq!((spec.fixed_terms, spec.slack_from), (FixedTerms::Frozen, Some(135)));
        // Moosbauer and Poole's settings, unless flags say otherwise.
        assert_eq!((spec.plateau, spec.plus_slack), (Some(CUBE_PLATEAU), 0));
        // An absolute cap replaces the slack, for every start.
        let capped = engine(&C6_6X6X6);
        let spec = capped.spec_from(231, StartKind::Naive);
        assert_eq!((spec.slack_from, spec.plus_slack), (Some(216), 0));
        assert_eq!(capped.spec().slack_from, Some(216));
        assert_eq!(
            (args.patience(), args.restarts()),
            (Patience::Fixed(CUBE_PATIENCE), Restarts::Independent)
        );
        // One walker per CPU thread; a GPU keeps its own default (every warp it holds).
        assert_eq!((spec.walkers, spec.walkers_per_thread), (None, 1));
        let told = engine(&[
            "--symmetry",
            "c3",
            "--cubes",
            "10001,01010,00100",
            "--plateau",
            "9",
            "--plus-slack",
            "2",
            "--patience",
            "7",
            "--restarts",
            "pool",
            "--threads",
            "3",
        ]);
        let spec = told.spec();
        assert_eq!((spec.plateau, spec.plus_slack, spec.threads), (Some(9), 2, Some(3)));
        assert_eq!((told.patience(), told.restarts()), (Patience::Fixed(7), Restarts::Pool));
        assert_eq!(told.pool_ranks(), crate::search::POOL_RANKS);
        assert_eq!(engine(&["--pool-ranks", "3"]).pool_ranks(), 3);
        let plain = engine(&["--symmetry", "c3"]);
        assert_eq!(
            (plain.patience(), plain.restarts()),
            (Patience::Growing(crate::search::PATIENCE), Restarts::Pool)
        );
        let free = engine(&["--symmetry", "c3", "--cubes", "101", "--fixed-terms", "free"]).spec();
        assert_eq!(free.fixed_terms, FixedTerms::Free);
        // A symmetric walk on the GPU keeps its fixed terms; a plain walk has none to keep.
        let on_gpu = |args: &[&str]| engine(args).spec().fixed_terms;
        assert_eq!(on_gpu(&["--symmetry", "c3", "--backend", "gpu"]), FixedTerms::Frozen);
        assert_eq!(on_gpu(&["--backend", "gpu"]), FixedTerms::Free);
        let naive = engine(&["--symmetry", "c3"]);
        assert_eq!(naive.naive_start::<u64>(Shape::square(5).unwrap()).unwrap().rank(), 125);
        assert_eq!(
            naive.spec_from(125, StartKind::Naive),
            crate::engine::EngineSpec {
                symmetry: crate::engine::Group::C3,
                start_rank: Some(125),
                ..Default::default()
            }
        );
    }

    /// Contradicting flags are refused with both named: --cubes beside --from, and free
    /// fixed terms under a group that keeps them (z2, c6); c3 may free them.
    #[test]
    fn contradicting_flags_are_refused() {
        let refused = |args: &[&str], from_files| engine(args).refuse_conflicts(from_files).map_err(|e| e.to_string());
        assert!(refused(&["--symmetry", "c3", "--cubes", "101"], true)
            .unwrap_err()
            .contains("--cubes and --from"));
        for group in ["z2", "c6"] {
            let e = refused(&["--symmetry", group, "--fixed-terms", "free"], false).unwrap_err();
            assert!(e.contains("--fixed-terms free") && e.contains(group), "{e}");
            assert!(refused(&["--symmetry", group, "--fixed-terms", "frozen"], false).is_ok());
            assert!(refused(&["--symmetry", group], false).is_ok());
        }
        assert!(refused(&["--symmetry", "c3", "--fixed-terms", "free"], false).is_ok());
    }

    #[test]
    fn a_given_start_walks_free_unless_sparse_is_chosen() {
        assert_eq!(
            engine::<&str>(&[]).spec_from(64, StartKind::Naive).sparsity,
            Sparsity::Half
        );
        assert_eq!(
            engine::<&str>(&[]).spec_from(47, StartKind::Given).sparsity,
            Sparsity::Off
        );
        let chosen = engine(&["--sparse", "half"]);
        assert_eq!(chosen.spec_from(47, StartKind::Given).sparsity, Sparsity::Half);
        assert_eq!(
            engine(&["--sparse", "off"]).spec_from(64, StartKind::Naive).sparsity,
            Sparsity::Off
        );
    }

    #[test]
    fn a_given_start_of_a_plain_walk_finds_partners_by_groups_unless_told() {
        assert_eq!(
            engine::<&str>(&[]).spec_from(64, StartKind::Naive).gpu_partners,
            Partners::Sample
        );
        assert_eq!(
            engine::<&str>(&[]).spec_from(47, StartKind::Given).gpu_partners,
            Partners::Groups
        );
        // The GPU walks symmetric schemes by sampling only.
        let symmetric = engine(&["--symmetry", "c3"]).spec_from(23, StartKind::Given);
        assert_eq!(symmetric.gpu_partners, Partners::Sample);
        let told = engine(&["--gpu-partners", "sample"]).spec_from(47, StartKind::Given);
        assert_eq!(told.gpu_partners, Partners::Sample);
        let told = engine(&["--gpu-partners", "groups"]).spec_from(64, StartKind::Naive);
        assert_eq!(told.gpu_partners, Partners::Groups);
    }

    #[test]
    fn gpu_rounds_are_timed_unless_steps_are_given() {
        let default = engine::<&str>(&[]).spec();
        assert_eq!(default.steps_per_round(true), u64::MAX);
        assert_eq!(default.gpu_round_us(), 100_000);
        assert_eq!(default.steps_per_round(false), 1 << 16);
        let steps = engine(&["--round-steps", "500", "--gpu-round-ms", "20"]).spec();
        assert_eq!(steps.steps_per_round(true), 500);
        assert_eq!(steps.gpu_round_us(), 0);
        assert_eq!(engine(&["--gpu-round-ms", "20"]).spec().gpu_round_us(), 20_000);
        assert!(Cli::try_parse_from(["flipgraph", "--gpu-round-ms", "0"]).is_err());
    }

    #[test]
    fn the_flags_name_each_choice_of_the_engine() {
        use crate::engine::Backend;
        let spec = engine(&["--backend", "cpu", "--reductions", "walk", "--gpu-hints", "off"]).spec();
        assert_eq!(
            (spec.backend, spec.reductions, spec.gpu_hints),
            (Backend::Cpu, Some(Reductions::Walk), Hints::Off)
        );
        // The older name still reads.
        assert_eq!(
            engine(&["--gpu-reductions", "scan"]).spec().reductions,
            Some(Reductions::Scan)
        );
        let spec = engine::<&str>(&[]).spec();
        assert_eq!(
            (spec.backend, spec.reductions, spec.gpu_hints),
            (Backend::Auto, None, Hints::Auto)
        );
        assert!(Cli::try_parse_from(["flipgraph", "--backend", "tpu"]).is_err());
    }
}
