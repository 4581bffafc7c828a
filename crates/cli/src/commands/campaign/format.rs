//! One format's turn in a campaign: skipped at its target, or searched (fresh, from a
//! construction, or resumed), and where it stands afterwards.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use flipgraph_core::algebra;
use flipgraph_core::construction::{Construction, Plan};
use flipgraph_core::formats::Format;
use flipgraph_core::known::{best_known_rank, best_known_zt_rank, proven_optimal_rank};
use flipgraph_core::ternary::TernaryScheme;
use flipgraph_core::{IntScheme, Shape};

use super::Args;
use crate::commands::choices::RingArg;
use crate::commands::engine_args::EngineArgs;
use crate::commands::search;
use crate::islands::portfolio::Portfolio;
use crate::islands::Sharing;
use crate::output::{Checkpoint, CHECKPOINT, EVENTS};
use crate::results::{best_construction, ours};
use crate::schemes::{read_valid, Bests};
use crate::session::preset::Preset;
use crate::write::{write_verified, Encoding, WriteArgs};

/// Where one format of the campaign stands.
pub struct Standing {
    pub shape: Shape,
    pub best_known: Option<usize>,
    /// Best rank reached and total search time, once the format has a checkpoint.
    pub reached: Option<(usize, Duration)>,
    pub done: bool,
    /// Whether its search walks invariant schemes (a symmetric search takes no construction).
    pub symmetric: bool,
    /// The construction it started from in this run, if any.
    pub start: Option<String>,
    /// Why the format failed in this run, if it did.
    pub failed: Option<String>,
}

impl Standing {
    /// A format not started, its best known rank over `ring`.
    pub fn new(shape: Shape, ring: RingArg) -> Standing {
        Standing {
            shape,
            best_known: known_rank(shape, ring),
            reached: None,
            done: false,
            symmetric: false,
            start: None,
            failed: None,
        }
    }

    /// A format whose turn failed with `error`.
    pub fn failed(shape: Shape, ring: RingArg, error: &anyhow::Error) -> Standing {
        Standing::failed_with(shape, ring, crate::flags::in_flags(error))
    }

    /// A format whose turn failed, as `why` says (another process's turn, in an MPI job).
    pub fn failed_with(shape: Shape, ring: RingArg, why: String) -> Standing {
        Standing {
            failed: Some(why),
            ..Standing::new(shape, ring)
        }
    }

    /// This turn's standing, with the construction an `earlier` turn started from when this
    /// one started from none.
    pub fn after(self, earlier: Option<Standing>) -> Standing {
        Standing {
            start: self.start.or(earlier.and_then(|e| e.start)),
            ..self
        }
    }

    /// Where the format's folder under `out` stands (not started where it holds no search
    /// or cannot be read).
    pub fn on_disk(shape: Shape, ring: RingArg, out: &Path) -> Standing {
        let dir = out.join(shape.to_string());
        previous(shape, ring, &dir)
            .ok()
            .flatten()
            .unwrap_or_else(|| Standing::new(shape, ring))
    }
}

/// The best known rank of `shape` over `ring` (the F2 or the ZT table).
fn known_rank(shape: Shape, ring: RingArg) -> Option<usize> {
    match ring {
        RingArg::F2 => best_known_rank(shape),
        RingArg::Zt => best_known_zt_rank(shape),
    }
}

/// What a format's turn runs on: its engine flags (a GPU of its own, or a share of the
/// cores) and how long it may take.
pub struct Assignment<'a> {
    pub engine: &'a EngineArgs,
    pub time: Option<Duration>,
    /// Which pass of how many, when there are several.
    pub pass: Option<(u32, u32)>,
    /// Whether other formats are searched beside it (progress in log lines, then).
    pub side_by_side: bool,
    /// The best of each format under --from (a hunt from the public best).
    pub public: Option<&'a Bests>,
}

/// Where the search in `dir` stands, if the folder holds one: an F2 search's checkpoint
/// ([`standing`]), a ternary search's event log ([`zt_standing`]).
fn previous(shape: Shape, ring: RingArg, dir: &Path) -> Result<Option<Standing>> {
    match ring {
        RingArg::F2 => dir.join(CHECKPOINT).exists().then(|| standing(shape, dir)).transpose(),
        RingArg::Zt => dir.join(EVENTS).exists().then(|| zt_standing(shape, dir)).transpose(),
    }
}

/// Searches one format of the campaign (or skips it, at its target already) and says where
/// it stands.
pub fn run_format(
    args: &Args,
    turn: &Assignment,
    shape: Shape,
    stop: &AtomicBool,
    process_start: Instant,
) -> Result<Standing> {
    let dir = args.out.join(shape.to_string());
    let ring = args.engine.ring;
    let previous = previous(shape, ring, &dir)?;
    let resume = previous.is_some();
    let symmetric = previous.as_ref().is_some_and(|p| p.symmetric);
    let known = known_rank(shape, ring);
    let best_so_far = previous.as_ref().and_then(|p| p.reached).map(|(best, _)| best);
    let at_known = best_so_far.is_some_and(|best| known.is_some_and(|known| best <= known));
    // A hunt below a rank proven optimal is in vain.
    let proven = args.hunt && best_so_far.is_some_and(|best| Some(best) <= proven_optimal_rank(shape));
    if let Some(done) = previous.filter(|p| ((p.done || at_known) && !args.hunt) || proven) {
        match proven {
            true => tracing::info!("{shape}: at a rank proven optimal (no scheme has fewer terms); skipped"),
            false => tracing::info!(
                "{shape}: at its target or its best known rank in {}; skipped (--hunt searches below it)",
                dir.display()
            ),
        }
        return Ok(done);
    }
    let pass = turn
        .pass
        .map(|(pass, of)| format!(" (pass {pass} of {of})"))
        .unwrap_or_default();
    tracing::info!(
        "{shape}: {} toward {}{pass}",
        if resume { "resuming" } else { "searching" },
        known.map_or("one below the start".into(), |r| format!("rank {r}"))
    );
    let wanted = match best_so_far {
        // A resumed plain search takes any construction below its best so far (a smaller
        // format improved since), beside its pool; a symmetric one takes only invariant starts.
        Some(best) if !symmetric => Wanted::Below(best),
        Some(_) => Wanted::None,
        None => known.map_or(Wanted::None, Wanted::New),
    };
    // The constructions read and build F2 schemes: none over ZT.
    let constructed = match args.no_constructions || ring == RingArg::Zt {
        false => constructed_start(args, shape, wanted)?,
        true => None,
    };
    let public = match resume {
        false => public_start(args, turn, shape)?,
        true => None,
    };
    // The lower of the two starts (a construction on a tie: the campaign's own results).
    let start = match (constructed, public) {
        (Some(c), Some(p)) if p.2 < c.2 => Some(p),
        (c, p) => c.or(p),
    };
    let mut flags = search_args(args, turn, shape, resume);
    // A preset's walk goes minutes without improving on its way (6x6x6's c6): --stall must not
    // end it there.
    // A ternary search takes no preset.
    let walks_preset = ring == RingArg::F2
        && match resume {
            true => symmetric,
            false => start.is_none() && turn.engine.recipe().take_preset(shape, |r| r.spec().on_gpu()).is_some(),
        };
    if let (true, Some(preset), Some(stall)) = (walks_preset, Preset::of(shape), flags.stall) {
        if stall < preset.quiet_spell {
            tracing::info!(
                "{shape}: its preset's walk went {} s without improving on its way; --stall taken as that",
                preset.quiet_spell.as_secs()
            );
            flags.stall = Some(preset.quiet_spell);
        }
    }
    if let (true, Some(best)) = (at_known && args.hunt, best_so_far) {
        tracing::info!("{shape}: at its best known rank or below ({best}); hunting below it");
        flags.target_rank = Some(best - 1);
    }
    if let Some((path, _, rank)) = &start {
        flags.from = vec![path.clone()];
        if !resume {
            // Aimed at the best known rank, as a search from naive is: a start already there
            // ends at once (a search --from a record would aim below it); a hunt aims below
            // the lower of the two, unless that is proven optimal.
            flags.size = None;
            let floor = known.map_or(*rank, |known| known.min(*rank));
            flags.target_rank = match args.hunt && Some(floor) > proven_optimal_rank(shape) {
                true => Some(floor - 1),
                false => known,
            };
        }
    }
    if !search::report(&search::execute(&flags, stop, process_start, None)?, args.json, false) {
        anyhow::bail!("its folder could not take every result (said above)");
    }
    Ok(Standing {
        start: start.map(|(_, how, _)| how),
        ..self::previous(shape, ring, &dir)?.with_context(|| format!("{}: no search after its turn", dir.display()))?
    })
}

/// A new format starts from a construction this close to its best known rank, unless it is a
/// product: from farther, its walk from the naive scheme did better in a turn of 25 s
/// (docs/BENCHMARKS-ARCHIVE.md, "Formats side by side", A construction or the naive start).
const NEAR_KNOWN: usize = 3;

/// Which constructions a format's turn starts from.
#[derive(Clone, Copy, Debug)]
enum Wanted {
    None,
    /// A new format with this best known rank: a construction at it, or a sum, extension or
    /// projection within [`NEAR_KNOWN`] of it (the walk leaves those; from Strassen's square
    /// 49, a product, 4x4x4 stayed at 49 for three turns, where its walk from naive reaches 47
    /// in a second).
    New(usize),
    /// A resumed format at this best rank: any construction below it.
    Below(usize),
}

impl Wanted {
    fn takes(self, plan: &Plan, rank: usize) -> bool {
        match self {
            Wanted::None => false,
            Wanted::New(known) => {
                rank <= known
                    || (rank <= known + NEAR_KNOWN
                        && !matches!(
                            plan.construction,
                            Construction::Product(..) | Construction::Serendipitous(..)
                        ))
            }
            Wanted::Below(best) => rank < best,
        }
    }
}

/// The `search` one format of the campaign runs: fresh, or resumed from its folder.
fn search_args(args: &Args, turn: &Assignment, shape: Shape, resume: bool) -> search::Args {
    let dir = args.out.join(shape.to_string());
    search::Args {
        size: (!resume).then_some(shape),
        from: Vec::new(),
        resume: resume.then(|| dir.clone()),
        target_rank: None,
        best_known: None,
        time: turn.time,
        stall: args.stall,
        out: Some(dir),
        formats: args.formats.clone(),
        checkpoint_secs: args.checkpoint_secs,
        json: args.json,
        quiet: args.quiet,
        in_lines: turn.side_by_side,
        islands: None,
        exchange_every: Sharing::default().every,
        exchange_schemes: Sharing::default().schemes,
        portfolio: Portfolio::default().into(),
        // A resumed format keeps the cubes its checkpoint records (a resume refuses --cubes).
        engine: EngineArgs {
            cubes: if resume { Vec::new() } else { turn.engine.cubes.clone() },
            ..turn.engine.clone()
        },
    }
}

/// A start for `shape` built from the campaign's results so far, when its best construction
/// is `wanted` (a composite such as 4x4x8 = 47 + 47): written, verified, to `OUT/starts/`, with
/// the construction in words. None otherwise: the search starts as usual.
fn constructed_start(args: &Args, shape: Shape, wanted: Wanted) -> Result<Option<(PathBuf, String, usize)>> {
    if matches!(wanted, Wanted::None) || !args.out.is_dir() {
        return Ok(None);
    }
    let found = ours(std::slice::from_ref(&args.out))?;
    let Some((built, plan)) = best_construction(shape, &found) else {
        return Ok(None);
    };
    if !wanted.takes(&plan, built.rank()) {
        return Ok(None);
    }
    let path = write_start(args, &built, "constructed start")?;
    let how = format!("the {} (rank {})", plan.construction, built.rank());
    tracing::info!("{shape}: starts from {how}, built from the campaign's results");
    Ok(Some((path, how, built.rank())))
}

/// Writes `start` (mod 2, verified; over ZT as it is, verified over Z) to
/// `OUT/starts/SHAPE-rRANK.json`, named as results are so that the constructions of later
/// formats read it.
fn write_start(args: &Args, start: &IntScheme, what: &str) -> Result<PathBuf> {
    let zt = args.engine.ring == RingArg::Zt;
    // The rank the file holds: mod 2, where an integer scheme's even terms vanish.
    let rank = match zt {
        // Read as the ternary search reads it (zero terms aside): one not valid over Z is
        // refused here, not written mod 2 as an F2 scheme.
        true => {
            let mut ternary = TernaryScheme::from_int(start).map_err(|e| anyhow!("{what} of {}: {e}", start.shape))?;
            ternary
                .verify()
                .map_err(|d| anyhow!("{what} of {}: not a valid scheme over Z: {d}", start.shape))?;
            ternary.remove_zero_terms();
            ternary.rank()
        }
        false => {
            let mut f2 = start.mod2::<u128>()?;
            f2.remove_zero_terms();
            f2.rank()
        }
    };
    let path = args.out.join("starts").join(format!("{}-r{rank}.json", start.shape));
    std::fs::create_dir_all(path.parent().expect("a folder"))?;
    let write = WriteArgs {
        encoding: Encoding {
            to: Format::PerminovJson,
            mod2: !zt,
        },
        output: Some(path.clone()),
    };
    write_verified(start, &write, what)?;
    Ok(path)
}

/// A start for a new `shape` from the best scheme of its format under --from: oriented to
/// `shape`, mod 2, verified and written to `OUT/starts/`, with where it came from.
fn public_start(args: &Args, turn: &Assignment, shape: Shape) -> Result<Option<(PathBuf, String, usize)>> {
    let Some((rank, file)) = turn.public.and_then(|bests| bests.get(&shape.sorted_dims())) else {
        return Ok(None);
    };
    let scheme = read_valid(file)?;
    let oriented = algebra::orient(&scheme, shape)
        .with_context(|| format!("{}: its {} does not orient to {shape}", file.display(), scheme.shape))?;
    let path = write_start(args, &oriented, "public start")?;
    let over = match args.engine.ring {
        RingArg::F2 => "mod 2",
        RingArg::Zt => "over ZT",
    };
    let how = format!("the public best (rank {rank} {over}, {})", file.display());
    tracing::info!("{shape}: starts from {how}");
    Ok(Some((path, how, *rank)))
}

fn best_rank(cp: &Checkpoint) -> Result<usize> {
    cp.schemes::<u128>()?
        .iter()
        .map(|s| s.rank())
        .min()
        .context("the checkpoint's pool is empty")
}

/// Where the search in `dir` stands, from its checkpoint; an error when the checkpoint is of
/// another shape (a folder of the campaign holding some other search).
fn standing(shape: Shape, dir: &Path) -> Result<Standing> {
    let cp = Checkpoint::read(dir)?;
    let held = cp.shape()?;
    if held != shape {
        anyhow::bail!(
            "{} holds a search of {held}, not {shape}; move it away or choose another --out",
            dir.display()
        );
    }
    let best = best_rank(&cp)?;
    Ok(Standing {
        reached: Some((best, cp.elapsed())),
        done: best <= cp.target,
        symmetric: cp.symmetric.is_some() || !cp.cubes.is_empty(),
        ..Standing::new(shape, RingArg::F2)
    })
}

/// The lower of two ranks, either of which may be missing.
fn lower(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Where the ternary search in `dir` stands, from its event log (a ternary search keeps no
/// checkpoint): its best rank (its starts' and improvements'), its time (its runs' ends), and
/// whether its last run's target is reached. An error where the log is of another shape or
/// holds no ternary search.
fn zt_standing(shape: Shape, dir: &Path) -> Result<Standing> {
    let path = dir.join(EVENTS);
    let log = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let (mut best, mut target, mut seconds) = (None::<usize>, None, 0.0);
    for (i, line) in log.lines().enumerate() {
        // A line cut short by a crash is passed over.
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if event["ring"] != "zt" {
            anyhow::bail!("{}:{}: not an event of a search over ZT", path.display(), i + 1);
        }
        let rank = |key: &str| event[key].as_u64().map(|r| r as usize);
        match event["event"].as_str() {
            Some("start") => {
                if event["shape"] != shape.to_string().as_str() {
                    anyhow::bail!(
                        "{} holds a search of {}, not {shape}; move it away or choose another --out",
                        dir.display(),
                        event["shape"].as_str().unwrap_or("another shape")
                    );
                }
                target = rank("target");
                best = lower(best, rank("rank"));
            }
            Some("improved") => best = lower(best, rank("rank")),
            // The walk's time, and its ladder's climb before it.
            Some("end") => {
                seconds += event["seconds"].as_f64().unwrap_or(0.0) + event["climb"]["seconds"].as_f64().unwrap_or(0.0)
            }
            _ => {}
        }
    }
    let best = best.with_context(|| format!("{}: no start of a search over ZT", path.display()))?;
    Ok(Standing {
        reached: Some((best, Duration::from_secs_f64(seconds))),
        done: target.is_some_and(|t| best <= t),
        ..Standing::new(shape, RingArg::Zt)
    })
}

#[cfg(test)]
mod tests {
    use super::{zt_standing, Construction, Plan, Wanted, EVENTS};
    use flipgraph_core::algebra::Dim;
    use flipgraph_core::Shape;

    /// A folder whose event log is `lines`.
    fn logged(lines: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(EVENTS), lines.join("\n")).unwrap();
        dir
    }

    #[test]
    fn a_ternary_format_stands_where_its_event_log_says() {
        let s = Shape::square(3).unwrap();
        let start = r#"{"event":"start","ring":"zt","shape":"3x3x3","rank":27,"target":23}"#;
        let dir = logged(&[
            start,
            r#"{"event":"improved","ring":"zt","rank":25,"seconds":0.1}"#,
            r#"{"event":"progress","ring":"zt","best_rank":25}"#,
            r#"{"event":"end","ring":"zt","best_rank":25,"seconds":2.5}"#,
            // A second run, resumed, cut short by a crash in its last line.
            r#"{"event":"start","ring":"zt","shape":"3x3x3","rank":25,"target":24}"#,
            // A rung of its ladder: another shape's rank, not this format's; its climb's time is.
            r#"{"event":"rung","ring":"zt","shape":"2x3x3","from":18,"rank":15,"seconds":0.5}"#,
            r#"{"event":"improved","ring":"zt","rank":24,"seconds":1.0}"#,
            r#"{"event":"end","ring":"zt","best_rank":24,"seconds":1.5,"climb":{"seconds":0.5}}"#,
            r#"{"event":"improved","ring":"zt","ra"#,
        ]);
        let standing = zt_standing(s, dir.path()).unwrap();
        assert_eq!(standing.reached.map(|(r, t)| (r, t.as_secs_f64())), Some((24, 4.5)));
        assert!(standing.done, "the last run's target, 24, is reached");
        assert_eq!(standing.best_known, Some(23), "the ZT table's rank");
        // Another shape's log, or an F2 search's, is named, not taken.
        let other = logged(&[&start.replace("3x3x3", "2x2x2")]);
        let said = format!("{:#}", zt_standing(s, other.path()).err().unwrap());
        assert!(said.contains("holds a search of 2x2x2, not 3x3x3"), "{said}");
        let f2 = logged(&[r#"{"event":"start","shape":"3x3x3","rank":27}"#]);
        let said = format!("{:#}", zt_standing(s, f2.path()).err().unwrap());
        assert!(said.contains(":1: not an event of a search over ZT"), "{said}");
    }

    #[test]
    fn a_new_format_starts_from_a_near_sum_but_not_from_a_near_product() {
        let s = |n, m, p| Shape::new(n, m, p).unwrap();
        let product = Plan {
            construction: Construction::Product(s(2, 2, 2), s(2, 2, 2)),
            rank: 49,
        };
        let sum = Plan {
            construction: Construction::Sum(s(3, 3, 2), s(3, 3, 4), Dim::P),
            rank: 44,
        };
        // 4x4x4 (best known 47) and 3x3x6 (42).
        assert!(!Wanted::New(47).takes(&product, 49));
        assert!(
            Wanted::New(47).takes(&product, 47),
            "a construction at the best known rank"
        );
        assert!(Wanted::New(42).takes(&sum, 44));
        assert!(!Wanted::New(42).takes(&sum, 46), "4 above the best known rank");
        // A resumed format: anything below its best so far; a symmetric one nothing.
        assert!(Wanted::Below(50).takes(&product, 49) && !Wanted::Below(49).takes(&product, 49));
        assert!(!Wanted::None.takes(&sum, 1));
    }
}
