//! The GPU engine over ZT: the kernel `walk_zt` on the F2 engine's device, buffers and rounds,
//! its schemes ternary (core's `device::ternary` lays a term out in three 128-bit words). A
//! type of its own, so that an F2 scheme never reaches a ternary walker or the reverse.

use anyhow::{anyhow, bail, ensure, Result};
use flipgraph_core::device::kernels::WALK_ZT;
use flipgraph_core::device::ternary::{replay, term_words, words_term};
use flipgraph_core::plateau::{Style, GPU_FLOOR};
use flipgraph_core::sparsity::Sparsity;
use flipgraph_core::ternary::{TernaryScheme, TernaryTerm, TRIT_BITS};
use flipgraph_core::walk::{Plateau, Reductions, WalkConfig};
use flipgraph_core::{Position, Shape, Term};

use super::{GpuEngine, GpuOptions, Hints, Mode, Replayed};
use crate::engine::{Engine, Group, Partners, PlusCap, Round};

/// GPU walkers of ternary schemes.
pub struct TernaryGpu(GpuEngine<u128>);

impl TernaryGpu {
    /// Opens device `options.device` for ternary walks of `shape` (plain walks: `options`'
    /// symmetry, partners and hints are the F2 kernels' and must be their defaults).
    pub fn open(shape: Shape, options: GpuOptions) -> Result<TernaryGpu> {
        if let Some(pos) = Position::ALL.into_iter().find(|&p| shape.factor_bits(p) > TRIT_BITS) {
            bail!(
                "{shape}: factor {pos:?} has {} entries; a ternary walk takes at most {TRIT_BITS}",
                shape.factor_bits(pos)
            );
        }
        ensure!(
            options.symmetry == Group::Trivial && options.partners == Partners::Sample,
            "the GPU walk over ZT is plain, with sampled partners"
        );
        GpuEngine::open_with(shape, options, WALK_ZT).map(TernaryGpu)
    }

    /// The device and its walkers, in words.
    pub fn describe(&self) -> String {
        format!("{} over ZT", self.0.describe())
    }

    /// Walkers (warps).
    pub fn walkers(&self) -> usize {
        self.0.walkers
    }

    /// Loads `walker` with `scheme` before the next round.
    pub fn load(&mut self, walker: usize, scheme: &TernaryScheme, seed: u64, style: Style) -> Result<()> {
        self.0
            .load_slots(walker, slots(scheme.terms()), Vec::new(), (seed, style))
    }

    /// Runs one round of `steps` steps a walker (or the engine's time), stopping walkers at
    /// `target`.
    pub fn run_round(&mut self, steps: u64, target: usize) -> Result<Round> {
        self.0.run_round(steps, target)
    }

    /// Walker `walker`'s best scheme since its load.
    pub fn best(&mut self, walker: usize) -> Result<TernaryScheme> {
        let slots = self.0.slots(&self.0.best, walker)?;
        self.scheme(slots)
    }

    /// Walker `walker`'s current scheme.
    pub fn current(&mut self, walker: usize) -> Result<TernaryScheme> {
        let slots = self.0.current_slots(walker)?;
        self.scheme(slots)
    }

    fn scheme(&self, slots: Vec<Term<u128>>) -> Result<TernaryScheme> {
        let terms = slots.into_iter().filter(|t| t.a != 0).map(term).collect();
        TernaryScheme::new(self.0.shape, terms).map_err(|e| anyhow!("a GPU walker's ternary scheme: {e}"))
    }
}

/// The device slots of `terms`.
fn slots(terms: &[TernaryTerm]) -> Vec<Term<u128>> {
    terms
        .iter()
        .map(|t| {
            let [a, b, c] = term_words(t);
            Term::from_factors(a, b, c)
        })
        .collect()
}

/// The ternary term of a device slot.
fn term(t: Term<u128>) -> TernaryTerm {
    words_term(t.factors())
}

/// The ternary side of the self-test: walkers on the naive ternary schemes of six shapes, with
/// fixed plateaus and the adaptive one, two rounds each; core replays each move log
/// (`device::ternary::replay`) and every slot must agree, every scheme verify over Z.
pub fn ternary_self_test(mut on_walk: impl FnMut(&Replayed)) -> Result<()> {
    for plateau in [Plateau::Fixed(200), Plateau::Adaptive { floor: GPU_FLOOR }] {
        for (n, m, p) in [(2, 2, 2), (3, 3, 3), (2, 3, 4), (4, 4, 4), (3, 4, 5), (6, 6, 6)] {
            let start = TernaryScheme::naive(Shape::new(n, m, p)?).map_err(|e| anyhow!("{e}"))?;
            on_walk(&ternary_walks(&start, plateau)?);
        }
    }
    Ok(())
}

/// One start of the ternary self-test.
fn ternary_walks(start: &TernaryScheme, plateau: Plateau) -> Result<Replayed> {
    const WALKERS: usize = 16;
    const LOG: usize = 1 << 14;
    const STEPS: u64 = 1000;
    let shape = start.shape();
    let options = GpuOptions {
        walkers: Some(WALKERS),
        config: WalkConfig {
            plateau,
            generalized: false,
            max_rank: usize::MAX,
            sparsity: Sparsity::Off,
            reductions: Reductions::Walk,
        },
        device: 0,
        log_entries: LOG,
        match_rounds: 2,
        flips: 4,
        // Exact step counts: the logs must not depend on timing.
        round_us: 0,
        hints: Hints::Off,
        partners: Partners::Sample,
        symmetry: Group::Trivial,
        plus: PlusCap { slack: 3, from: None },
        start_rank: None,
    };
    let mut engine = TernaryGpu::open(shape, options)?;
    for w in 0..WALKERS {
        engine.load(w, start, 2000 + w as u64, Style::of_walker(w))?;
    }
    // Two rounds: the second walks on from the terms the first left.
    let mut counters = engine.run_round(STEPS, 0)?.counters;
    let round = engine.run_round(STEPS, 0)?;
    counters += round.counters;
    let mut moves = 0;
    for w in 0..WALKERS {
        let (entries, made) = engine.0.move_log(w)?;
        ensure!(
            made <= LOG,
            "{shape} walker {w}: {made} moves overflow the {LOG}-entry log"
        );
        let mut replayed = engine
            .0
            .slots_of(slots(start.terms()))
            .into_iter()
            .map(term)
            .collect::<Vec<_>>();
        for &e in &entries {
            replay(&mut replayed, e).map_err(|e| anyhow!("{shape} walker {w} over ZT: {e}"))?;
        }
        moves += entries.len();
        let gpu: Vec<TernaryTerm> = engine.0.current_slots(w)?.into_iter().map(term).collect();
        // Zero terms compare as empty slots (a replayed merge may leave a zero term's factors).
        let empty = |t: TernaryTerm| if t.is_zero() { TernaryTerm::default() } else { t };
        if let Some(s) = (0..gpu.len()).find(|&s| empty(replayed[s]) != empty(gpu[s])) {
            bail!(
                "{shape} walker {w} over ZT: slot {s} differs after {} moves: host {:?}, GPU {:?}",
                entries.len(),
                replayed[s],
                gpu[s]
            );
        }
        let scheme = engine.current(w)?;
        ensure!(
            scheme.rank() == round.walkers[w].rank,
            "{shape} walker {w} over ZT: rank bookkeeping"
        );
        scheme
            .verify()
            .map_err(|d| anyhow!("{shape} walker {w}: invalid scheme over Z: {d}"))?;
        let best = engine.best(w)?;
        ensure!(
            best.rank() == round.walkers[w].best_rank,
            "{shape} walker {w} over ZT: best rank bookkeeping"
        );
        best.verify()
            .map_err(|d| anyhow!("{shape} walker {w}: invalid best scheme over Z: {d}"))?;
    }
    ensure!(
        counters.flips > 0,
        "{shape} over ZT: {WALKERS} walks of {} steps applied no flip ({counters:?})",
        2 * STEPS
    );
    Ok(Replayed {
        shape,
        rank: start.rank(),
        bits: 2 * TRIT_BITS,
        symmetry: Group::Trivial,
        reductions: Reductions::Walk,
        mode: Mode::Sample(Hints::Off),
        plateau,
        walkers: WALKERS,
        moves,
        counters,
        ternary: true,
    })
}
