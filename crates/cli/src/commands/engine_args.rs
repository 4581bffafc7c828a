//! The engine's command-line flags, shared by `search`, `bench` and `campaign`: they give the
//! library's [`Recipe`] ([`EngineArgs::recipe`]), which settles what they leave open; the
//! engine's choices get their command-line names and help here, not in the library.

use std::time::Duration;

use super::choices::{
    BackendArg, FixedTermsArg, HintsArg, LadderArg, PartnersArg, ReductionsArg, RestartsArg, RingArg, SparsityArg,
    SymmetryArg,
};
use super::duration::parse_positive_duration;
use super::preset::PresetArg;
use crate::engine::GpuTuning;
use crate::session::recipe::{check_cube, Recipe, Schedule, SymmetricStart, Walk};

/// The engine's flags, shared by `search`, `bench` and `campaign`.
#[derive(clap::Args, Clone, Debug)]
pub struct EngineArgs {
    /// The engine: auto (the GPU when one is usable, else the CPU), cpu or gpu.
    ///
    ///  The engine: auto takes the GPU when one is usable, else the CPU, and says which.
    ///
    /// On a GPU every visible device runs its own walkers (CUDA_VISIBLE_DEVICES picks the devices).
    #[arg(help_heading = "Engine", long, default_value = "auto")]
    pub backend: BackendArg,
    /// The coefficients of the schemes walked: f2, or zt ({-1,0,1}, valid over Z).
    ///
    /// zt walks plain schemes on one GPU (the CPU's threads with --backend cpu, or without a
    /// GPU): the naive scheme (climbing a ladder on a GPU, as f2 does) or --from files read as
    /// they are (refused where a coefficient is outside {-1,0,1} or the file is not valid over
    /// Z); every scheme written is verified over Z.
    #[arg(help_heading = "Engine", long, value_enum, default_value = "f2")]
    pub ring: RingArg,
    /// With --ring zt: walk over F2 and lift each new best scheme to Z.
    ///
    /// The walk is F2's (every engine, group and preset: c3 and c6 on a GPU, the ladder), into
    /// OUT/f2; each new best is lifted to Z (Hensel lifting) and, where the lift has coefficients
    /// in {-1,0,1}, verified over Z and written as the ternary search's own. Schemes of symmetric
    /// walks lift readily, plain walks' rarely. Where the F2 walk ends at the target without a
    /// lift, another seed walks again. The ZT presets of 5x5x5 and 6x6x6 take it.
    #[arg(help_heading = "Engine", long)]
    pub lift: bool,
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
    /// Percent of the walkers a new best leaves behind that restart from it at once (default
    /// 100).
    ///
    ///  Percent of the walkers a better scheme of the pool leaves behind that restart from it at
    /// once (default 100: all, so every walker hunts the next rank from the new best's lineage).
    /// The others walk their own lineage on until their patience ends (--restarts pool only).
    #[arg(help_heading = "Schedule", long, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub follow: Option<u32>,
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
    /// The islands of a job climb together, rung by rung, each into its own folder
    /// (OUT/island-K/ladder); `on` with --from, symmetric walks or cubes is refused; a search
    /// killed during its climb climbs again on --resume (unless `off`).
    #[arg(help_heading = "Schedule", long)]
    pub ladder: Option<LadderArg>,
    /// How long a rung of the ladder may go without a better scheme before the next rung starts
    /// from its best (default 60s).
    ///
    ///  How long a rung of the ladder may go without a better scheme (and at least as long as it
    /// took to its last one) before the next rung starts from its best schemes: 90s, 10m, or plain
    /// seconds (default 60s; each rung takes at most half the time left).
    #[arg(help_heading = "Schedule", long, value_parser = parse_positive_duration)]
    pub rung_stall: Option<Duration>,
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

/// A diagonal pattern of `--cubes`: digits 0 and 1, at least one 1.
pub fn parse_diagonal(s: &str) -> Result<String, String> {
    check_cube(s).map(|()| s.to_owned())
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
    /// The recipe these flags give: each flag's choice, and `None` where the flag is absent and
    /// the library decides.
    pub fn recipe(&self) -> Recipe {
        Recipe {
            backend: self.backend.into(),
            threads: self.threads,
            gpu: self.gpu,
            walkers: self.walkers,
            gpu_tuning: GpuTuning {
                round_ms: self.gpu_round_ms,
                match_rounds: self.gpu_rounds,
                flips: self.gpu_flips,
                hints: self.gpu_hints.into(),
            },
            gpu_partners: self.gpu_partners.map(Into::into),
            walk: Walk {
                ring: self.ring.into(),
                plateau: self.plateau,
                plus_slack: self.plus_slack,
                plus_cap: self.plus_cap,
                generalized: !self.no_generalized_flips,
                sparsity: self.sparse.map(Into::into),
                seed: self.seed,
                round_steps: self.round_steps,
                reductions: self.reductions.map(Into::into),
                lift: self.lift,
            },
            schedule: Schedule {
                patience: self.patience,
                restarts: self.restarts.map(Into::into),
                follow: self.follow,
                pool_ranks: self.pool_ranks,
                ladder: self.ladder.map(Into::into),
                rung_stall: self.rung_stall,
                presets: self.preset != Some(PresetArg::Off),
            },
            symmetric: SymmetricStart {
                symmetry: self.symmetry.map(Into::into),
                cubes: self.cubes.clone(),
                fixed_terms: self.fixed_terms.map(Into::into),
            },
            ..Recipe::default()
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use clap::Parser;
    use flipgraph_core::device::Partners;
    use flipgraph_core::sparsity::Sparsity;

    use super::EngineArgs;
    use crate::driver::Patience;
    use crate::engine::gpu::Hints;
    use crate::engine::{Group, Reductions, StartKind};
    use crate::session::recipe::Recipe;

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

    /// The recipe that these command-line flags give.
    fn recipe<S: AsRef<str>>(args: &[S]) -> Recipe {
        engine(args).recipe()
    }

    #[test]
    fn a_new_search_of_5x5x5_or_6x6x6_takes_its_measured_preset_unless_told_otherwise() {
        use crate::session::preset::Preset;
        use flipgraph_core::Shape;
        let (five, six) = (Shape::square(5).unwrap(), Shape::square(6).unwrap());
        let mut args = recipe::<&str>(&[]);
        let preset = args.take_preset(six, |_| true).unwrap();
        assert_eq!(preset, Preset::of(six).unwrap());
        assert_eq!(args.symmetric.symmetry, Some(Group::C6));
        assert_eq!(args.symmetric.cubes, ["110000", "001100", "000011"]);
        assert_eq!(args.walk.plus_cap, Some(216));
        assert_eq!(
            preset.describe(),
            "c6 from the cubes 110000,001100,000011, plus moves up to rank 216"
        );
        let mut args = recipe::<&str>(&[]);
        assert_eq!(args.take_preset(five, |_| true).map(|p| p.symmetry), Some(Group::C3));
        assert_eq!(args.walk.plus_cap, None);
        // 6x6x6's not on the CPU, 5x5x5's there too; not for other shapes, and not against a
        // flag it would set.
        let mut args = recipe::<&str>(&[]);
        assert_eq!(args.take_preset(six, |_| false), None);
        assert_eq!(args.symmetric.symmetry, None);
        let mut args = recipe::<&str>(&[]);
        assert_eq!(args.take_preset(five, |_| false).map(|p| p.symmetry), Some(Group::C3));
        assert_eq!(
            recipe::<&str>(&[]).take_preset(Shape::square(4).unwrap(), |_| true),
            None
        );
        for given in [
            &["--preset", "off"][..],
            &["--symmetry", "none"],
            &["--symmetry", "c3"],
            &["--plus-slack", "4"],
            &["--cubes", "100000,010000"],
        ] {
            let mut args = recipe(given);
            let before = format!("{args:?}");
            let asked = args.take_preset(six, |_| panic!("{given:?}: no need to ask for a GPU"));
            assert_eq!(asked, None, "{given:?}");
            assert_eq!(format!("{args:?}"), before, "{given:?}");
        }
    }

    #[test]
    fn the_library_defaults_are_the_command_lines() {
        assert_eq!(recipe::<&str>(&[]).spec(), crate::engine::EngineSpec::default());
    }

    #[test]
    fn cubes_start_at_their_rank_with_frozen_fixed_terms_and_the_slack_from_there() {
        use crate::driver::Restarts;
        use crate::session::recipe::{CUBE_PATIENCE, CUBE_PLATEAU};
        use flipgraph_core::symmetry::{is_c3_invariant, FixedTerms};
        use flipgraph_core::Shape;
        let args = recipe(&["--symmetry", "c3", "--cubes", "10001,01010,00100"]);
        let start = args.naive_start::<u64>(Shape::square(5).unwrap()).unwrap();
        assert_eq!(start.rank(), 135);
        assert!(is_c3_invariant(&start));
        let spec = args.spec_from(start.rank(), StartKind::Naive);
        assert_eq!((spec.fixed_terms, spec.slack_from), (FixedTerms::Frozen, Some(135)));
        // Moosbauer and Poole's settings, unless flags say otherwise.
        assert_eq!((spec.plateau, spec.plus_slack), (Some(CUBE_PLATEAU), 0));
        // An absolute cap replaces the slack, for every start.
        let capped = recipe(&C6_6X6X6);
        let spec = capped.spec_from(231, StartKind::Naive);
        assert_eq!((spec.slack_from, spec.plus_slack), (Some(216), 0));
        assert_eq!(capped.spec().slack_from, Some(216));
        assert_eq!(
            (args.patience(), args.restarts()),
            (Patience::Fixed(CUBE_PATIENCE), Restarts::Independent)
        );
        // One walker per CPU thread; a GPU keeps its own default (every warp it holds).
        assert_eq!((spec.walkers, spec.walkers_per_thread), (None, 1));
        let told = recipe(&[
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
        assert_eq!(told.pool_ranks(), crate::driver::POOL_RANKS);
        assert_eq!(recipe(&["--pool-ranks", "3"]).pool_ranks(), 3);
        assert_eq!(recipe(&["--follow", "30"]).schedule.follow, Some(30));
        let plain = recipe(&["--symmetry", "c3"]);
        assert_eq!(
            (plain.patience(), plain.restarts()),
            (Patience::Growing(crate::driver::PATIENCE), Restarts::Pool)
        );
        let free = recipe(&["--symmetry", "c3", "--cubes", "101", "--fixed-terms", "free"]).spec();
        assert_eq!(free.fixed_terms, FixedTerms::Free);
        // A symmetric walk on the GPU keeps its fixed terms; a plain walk has none to keep.
        let on_gpu = |args: &[&str]| recipe(args).spec().fixed_terms;
        assert_eq!(on_gpu(&["--symmetry", "c3", "--backend", "gpu"]), FixedTerms::Frozen);
        assert_eq!(on_gpu(&["--backend", "gpu"]), FixedTerms::Free);
        let naive = recipe(&["--symmetry", "c3"]);
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
        let refused = |args: &[&str], from_files| {
            recipe(args)
                .refuse_conflicts(from_files)
                .map_err(|e| crate::flags::in_flags(&e.into()))
        };
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
            recipe::<&str>(&[]).spec_from(64, StartKind::Naive).sparsity,
            Sparsity::Half
        );
        assert_eq!(
            recipe::<&str>(&[]).spec_from(47, StartKind::Given).sparsity,
            Sparsity::Off
        );
        let chosen = recipe(&["--sparse", "half"]);
        assert_eq!(chosen.spec_from(47, StartKind::Given).sparsity, Sparsity::Half);
        assert_eq!(
            recipe(&["--sparse", "off"]).spec_from(64, StartKind::Naive).sparsity,
            Sparsity::Off
        );
    }

    #[test]
    fn a_given_start_of_a_plain_walk_finds_partners_by_groups_unless_told() {
        assert_eq!(
            recipe::<&str>(&[]).spec_from(64, StartKind::Naive).gpu_partners,
            Partners::Sample
        );
        assert_eq!(
            recipe::<&str>(&[]).spec_from(47, StartKind::Given).gpu_partners,
            Partners::Groups
        );
        // The GPU walks symmetric schemes by sampling only.
        let symmetric = recipe(&["--symmetry", "c3"]).spec_from(23, StartKind::Given);
        assert_eq!(symmetric.gpu_partners, Partners::Sample);
        let told = recipe(&["--gpu-partners", "sample"]).spec_from(47, StartKind::Given);
        assert_eq!(told.gpu_partners, Partners::Sample);
        let told = recipe(&["--gpu-partners", "groups"]).spec_from(64, StartKind::Naive);
        assert_eq!(told.gpu_partners, Partners::Groups);
    }

    #[test]
    fn gpu_rounds_are_timed_unless_steps_are_given() {
        let default = recipe::<&str>(&[]).spec();
        assert_eq!(default.steps_per_round(true, 16), u64::MAX);
        assert_eq!(default.gpu_round_us(), 100_000);
        assert_eq!(default.steps_per_round(false, 16), 1 << 16);
        let steps = recipe(&["--round-steps", "500", "--gpu-round-ms", "20"]).spec();
        assert_eq!(steps.steps_per_round(true, 16), 500);
        assert_eq!(steps.gpu_round_us(), 0);
        assert_eq!(recipe(&["--gpu-round-ms", "20"]).spec().gpu_round_us(), 20_000);
        assert!(Cli::try_parse_from(["flipgraph", "--gpu-round-ms", "0"]).is_err());
    }

    #[test]
    fn the_flags_name_each_choice_of_the_recipe() {
        use crate::engine::Backend;
        let spec = recipe(&["--backend", "cpu", "--reductions", "walk", "--gpu-hints", "off"]).spec();
        assert_eq!(
            (spec.backend, spec.reductions, spec.gpu_tuning.hints),
            (Backend::Cpu, Some(Reductions::Walk), Hints::Off)
        );
        // The older name still reads.
        assert_eq!(
            recipe(&["--gpu-reductions", "scan"]).spec().reductions,
            Some(Reductions::Scan)
        );
        let spec = recipe::<&str>(&[]).spec();
        assert_eq!(
            (spec.backend, spec.reductions, spec.gpu_tuning.hints),
            (Backend::Auto, None, Hints::Auto)
        );
        assert!(Cli::try_parse_from(["flipgraph", "--backend", "tpu"]).is_err());
    }
}
