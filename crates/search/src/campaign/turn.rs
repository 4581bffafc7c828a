//! One format's turn in a campaign: skipped at its target, or searched (fresh, from a
//! construction or the public best, or resumed), and where it stands afterwards.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use flipgraph_core::algebra;
use flipgraph_core::construction::{Construction, Plan};
use flipgraph_core::formats::Format;
use flipgraph_core::known::proven_optimal_rank;
use flipgraph_core::ternary::TernaryScheme;
use flipgraph_core::{IntScheme, Shape};

use super::standing::{known_rank, previous};
use super::{Campaign, Reporter, Standing};
use crate::output::rendered::Rendered;
use crate::results::{best_construction, ours};
use crate::schemes::{read_valid, Bests};
use crate::session::preset::Preset;
use crate::session::recipe::{Recipe, Ring};
use crate::session::Search;

/// What a format's turn runs on: its lane's recipe (a GPU of its own, or a share of the
/// cores) and how long it may take.
pub(super) struct Assignment<'a> {
    pub recipe: &'a Recipe,
    pub time: Option<Duration>,
    /// Which pass of how many, when there are several.
    pub pass: Option<(u32, u32)>,
    /// Whether other formats are searched beside it (progress in log lines, then).
    pub side_by_side: bool,
    /// The best of each format under the campaign's `from` (a hunt from the public best).
    pub public: Option<&'a Bests>,
}

/// A start of a format's search: its file, how it was made (in words), its rank.
type Start = (PathBuf, String, usize);

/// Searches one format of the campaign (or skips it, at its target already), says how its
/// search ended through `reporter`, and says where it stands.
pub(super) fn run_turn(
    campaign: &Campaign,
    turn: &Assignment,
    shape: Shape,
    (stop, process_start): (&AtomicBool, Instant),
    reporter: &dyn Reporter,
) -> Result<Standing> {
    let dir = campaign.out.join(shape.to_string());
    let ring = campaign.ring();
    let previous = previous(shape, ring, &dir)?;
    let resume = previous.is_some();
    let symmetric = previous.as_ref().is_some_and(|p| p.symmetric);
    let known = known_rank(shape, ring);
    let best_so_far = previous.as_ref().and_then(|p| p.reached).map(|(best, _)| best);
    let at_known = best_so_far.is_some_and(|best| known.is_some_and(|known| best <= known));
    // A hunt below a rank proven optimal is in vain.
    let proven = campaign.hunt && best_so_far.is_some_and(|best| Some(best) <= proven_optimal_rank(shape));
    if let Some(done) = previous.filter(|p| ((p.done || at_known) && !campaign.hunt) || proven) {
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
    let start = start(campaign, turn, shape, wanted, resume)?;
    let mut search = turn_search(campaign, turn, shape, resume);
    let walks_preset = ring == Ring::F2
        && match resume {
            true => symmetric,
            false => start.is_none() && turn.recipe.clone().take_preset(shape, |r| r.spec().on_gpu()).is_some(),
        };
    if walks_preset {
        search.stall = preset_stall(shape, search.stall);
    }
    if let (true, Some(best)) = (at_known && campaign.hunt, best_so_far) {
        tracing::info!("{shape}: at its best known rank or below ({best}); hunting below it");
        search.target = Some(best - 1);
    }
    if let Some((path, _, rank)) = &start {
        search.from = vec![path.clone()];
        if !resume {
            // Aimed at the best known rank, as a search from naive is: a start already there
            // ends at once (a search from a record would aim below it); a hunt aims below the
            // lower of the two, unless that is proven optimal.
            search.shape = None;
            let floor = known.map_or(*rank, |known| known.min(*rank));
            search.target = match campaign.hunt && Some(floor) > proven_optimal_rank(shape) {
                true => Some(floor - 1),
                false => known,
            };
        }
    }
    // A lift walks over F2 from the naive scheme or cubes: a ternary format resumed, or started
    // from a file, walks its ternary schemes instead.
    if resume || !search.from.is_empty() {
        search.recipe.walk.lift = false;
    }
    if !reporter.ended(&search.run(stop, process_start, None)?) {
        anyhow::bail!("its folder could not take every result (said above)");
    }
    Ok(Standing {
        start: start.map(|(_, how, _)| how),
        ..self::previous(shape, ring, &dir)?.with_context(|| format!("{}: no search after its turn", dir.display()))?
    })
}

/// The start of a format's turn, if not its own: the lower of a construction (as `wanted`) and,
/// for a new format, the public best (a construction on a tie: the campaign's own results).
fn start(campaign: &Campaign, turn: &Assignment, shape: Shape, wanted: Wanted, resume: bool) -> Result<Option<Start>> {
    // The constructions read and build F2 schemes: none over ZT.
    let constructed = match campaign.constructions && campaign.ring() == Ring::F2 {
        true => constructed_start(campaign, shape, wanted)?,
        false => None,
    };
    let public = match resume {
        false => public_start(campaign, turn, shape)?,
        true => None,
    };
    Ok(match (constructed, public) {
        (Some(c), Some(p)) if p.2 < c.2 => Some(p),
        (c, p) => c.or(p),
    })
}

/// The stall limit of a format whose search walks its preset: at least the preset's quiet
/// spell, since a preset's walk goes minutes without improving on its way (6x6x6's c6) and the
/// stall limit must not end it there.
fn preset_stall(shape: Shape, stall: Option<Duration>) -> Option<Duration> {
    match (Preset::of(shape), stall) {
        (Some(preset), Some(stall)) if stall < preset.quiet_spell => {
            tracing::info!(
                "{shape}: its preset's walk went {} s without improving on its way; --stall taken as that",
                preset.quiet_spell.as_secs()
            );
            Some(preset.quiet_spell)
        }
        _ => stall,
    }
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

/// The search one format of the campaign runs: fresh, or resumed from its folder.
fn turn_search(campaign: &Campaign, turn: &Assignment, shape: Shape, resume: bool) -> Search {
    let dir = campaign.out.join(shape.to_string());
    let mut recipe = turn.recipe.clone();
    // A resumed format keeps the cubes its checkpoint records (a resume refuses cubes).
    if resume {
        recipe.symmetric.cubes.clear();
    }
    Search {
        recipe,
        shape: (!resume).then_some(shape),
        from: Vec::new(),
        resume: resume.then(|| dir.clone()),
        target: None,
        best_known: None,
        time: turn.time,
        stall: campaign.stall,
        out: Some(dir),
        formats: campaign.formats.clone(),
        checkpoint_every: campaign.checkpoint_every,
        json: campaign.json,
        quiet: campaign.quiet,
        in_lines: turn.side_by_side,
        best_schemes: None,
    }
}

/// A start for `shape` built from the campaign's results so far, when its best construction
/// is `wanted` (a composite such as 4x4x8 = 47 + 47): written, verified, to `OUT/starts/`, with
/// the construction in words. None otherwise: the search starts as usual.
fn constructed_start(campaign: &Campaign, shape: Shape, wanted: Wanted) -> Result<Option<Start>> {
    if matches!(wanted, Wanted::None) || !campaign.out.is_dir() {
        return Ok(None);
    }
    let found = ours(std::slice::from_ref(&campaign.out))?;
    let Some((built, plan)) = best_construction(shape, &found) else {
        return Ok(None);
    };
    if !wanted.takes(&plan, built.rank()) {
        return Ok(None);
    }
    let path = write_start(campaign, &built, "constructed start")?;
    let how = format!("the {} (rank {})", plan.construction, built.rank());
    tracing::info!("{shape}: starts from {how}, built from the campaign's results");
    Ok(Some((path, how, built.rank())))
}

/// Writes `start` (mod 2, verified; over ZT as it is, verified over Z) to
/// `OUT/starts/SHAPE-rRANK.json`, named as results are so that the constructions of later
/// formats read it.
fn write_start(campaign: &Campaign, start: &IntScheme, what: &str) -> Result<PathBuf> {
    let zt = campaign.ring() == Ring::Zt;
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
    let path = campaign
        .out
        .join("starts")
        .join(format!("{}-r{rank}.json", start.shape));
    std::fs::create_dir_all(path.parent().expect("a folder"))?;
    Rendered::new(start, Format::PerminovJson, !zt, what)?.write(Some(&path))?;
    Ok(path)
}

/// A start for a new `shape` from the best scheme of its format under the campaign's `from`:
/// oriented to `shape`, mod 2, verified and written to `OUT/starts/`, with where it came from.
fn public_start(campaign: &Campaign, turn: &Assignment, shape: Shape) -> Result<Option<Start>> {
    let Some((rank, file)) = turn.public.and_then(|bests| bests.get(&shape.sorted_dims())) else {
        return Ok(None);
    };
    let scheme = read_valid(file)?;
    let oriented = algebra::orient(&scheme, shape)
        .with_context(|| format!("{}: its {} does not orient to {shape}", file.display(), scheme.shape))?;
    let path = write_start(campaign, &oriented, "public start")?;
    let over = match campaign.ring() {
        Ring::F2 => "mod 2",
        Ring::Zt => "over ZT",
    };
    let how = format!("the public best (rank {rank} {over}, {})", file.display());
    tracing::info!("{shape}: starts from {how}");
    Ok(Some((path, how, *rank)))
}

#[cfg(test)]
mod tests {
    use super::{Construction, Plan, Wanted};
    use flipgraph_core::algebra::Dim;
    use flipgraph_core::Shape;

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
