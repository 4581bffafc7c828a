//! The GPU self-test: a differential test of the kernels against core. Walkers log their moves
//! on short walks, core replays each log on the host, and the terms must agree slot by slot;
//! every scheme must verify, and symmetric walks must stay invariant. `flipgraph gpu
//! --self-test` runs it; so does this module's test on a GPU.

use anyhow::{bail, ensure, Result};
use flipgraph_core::device::{log, Partners};
use flipgraph_core::group::{is_invariant, Reversal};
use flipgraph_core::plateau::{Style, GPU_FLOOR};
use flipgraph_core::sparsity::Sparsity;
use flipgraph_core::symmetry::SymmetricScheme;
use flipgraph_core::verify::verify;
use flipgraph_core::walk::{Counters, Plateau, WalkConfig};
use flipgraph_core::{Scheme, Shape, WideScheme};

use super::{GpuEngine, GpuOptions, Hints};
use crate::engine::{Engine, Group, PlusCap, Reductions, Width};

/// The differential test from the naive scheme of six shapes, of three whose factors need 128
/// bits, and from `starts`, in every reduction, hint and partner mode, with fixed plateaus and
/// with the adaptive one; then symmetric walks of every group (c3, z2, c6) from the naive
/// schemes of four square shapes and from 5x5x5's three cubes, c6 from 6x6x6's three cubes,
/// and z2 from four rectangular shapes; then the ternary walk ([`super::ternary_self_test`]).
pub fn self_test(starts: &[WideScheme], mut on_walk: impl FnMut(&Replayed)) -> Result<()> {
    for (reductions, partners, adaptive) in [
        (Reductions::Scan, Mode::Sample(Hints::Off), false),
        (Reductions::Walk, Mode::Sample(Hints::Off), false),
        (Reductions::Walk, Mode::Sample(Hints::On), false),
        (Reductions::Walk, Mode::Sample(Hints::Off), true),
        (Reductions::Walk, Mode::Groups, false),
        (Reductions::Scan, Mode::Groups, true),
    ] {
        // A fixed plateau of `steps`, or the adaptive one.
        let plateau_of = |steps| match adaptive {
            true => Plateau::Adaptive { floor: GPU_FLOOR },
            false => Plateau::Fixed(steps),
        };
        for (dims, steps) in [
            ((2, 2, 2), 30),
            ((3, 3, 3), 50),
            ((2, 3, 4), 50),
            ((4, 4, 4), 200),
            ((5, 5, 5), 500),
            // Factors above 32 bits: the 64-bit kernel (the shapes above run the 32-bit one).
            ((6, 6, 6), 500),
        ] {
            let naive = Scheme::naive(Shape::new(dims.0, dims.1, dims.2)?);
            on_walk(&self_test_walks(
                &naive,
                plateau_of(steps),
                reductions,
                partners,
                Group::Trivial,
            )?);
        }
        let plateau = plateau_of(500);
        // The 128-bit kernel: 9x9x9 (81-bit factors), 4x5x13 (65) and 2x9x10 (90).
        for (n, m, p) in [(9, 9, 9), (4, 5, 13), (2, 9, 10)] {
            let naive = WideScheme::try_naive(Shape::new(n, m, p)?)?;
            on_walk(&self_test_walks(&naive, plateau, reductions, partners, Group::Trivial)?);
        }
        for start in starts {
            match start.shape().fits::<u64>() {
                true => on_walk(&self_test_walks(
                    &start.to_width::<u64>()?,
                    plateau,
                    reductions,
                    partners,
                    Group::Trivial,
                )?),
                false => on_walk(&self_test_walks(start, plateau, reductions, partners, Group::Trivial)?),
            }
        }
    }
    let diagonal = |i: u32| 1u64 << (6 * i);
    let cubes = [diagonal(0) | diagonal(4), diagonal(1) | diagonal(3), diagonal(2)];
    let mut symmetric: Vec<Scheme> = (3..=6)
        .map(|n| Shape::square(n).map(Scheme::naive))
        .collect::<Result<_, _>>()?;
    symmetric.push(
        SymmetricScheme::naive(Shape::square(5)?)?
            .with_cubes(&cubes)?
            .to_scheme(),
    );
    // The reversal's walks: rectangular shapes (z2 only) and the square ones (z2 and c6),
    // 6x6x6 from Moosbauer and Poole's cubes among them.
    let reversed: Vec<Scheme> = [(2, 3, 4), (3, 4, 5), (4, 4, 5), (3, 5, 7)]
        .into_iter()
        .map(|(n, m, p)| Shape::new(n, m, p).map(Scheme::naive))
        .collect::<Result<_, _>>()?;
    let six = Shape::square(6)?;
    let pair = |i: u32| (1u64 << (7 * i)) | (1u64 << (7 * (i + 1)));
    let six_cubes = SymmetricScheme::naive(six)?
        .with_cubes(&[pair(0), pair(2), pair(4)])?
        .to_scheme();
    for hints in [Hints::Off, Hints::On] {
        for plateau in [Plateau::Fixed(300), Plateau::Adaptive { floor: GPU_FLOOR }] {
            let mut walk = |start: &Scheme, group| {
                self_test_walks(start, plateau, Reductions::Walk, Mode::Sample(hints), group).map(|r| on_walk(&r))
            };
            for start in &symmetric {
                walk(start, Group::C3)?;
                walk(start, Group::Z2)?;
                walk(start, Group::C6)?;
            }
            walk(&six_cubes, Group::C6)?;
            for start in &reversed {
                walk(start, Group::Z2)?;
            }
        }
    }
    super::ternary_self_test(on_walk)
}

/// How a self-test's walkers find partners: by sampling (with or without hints), or by groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Sampled matches, hints on or off.
    Sample(Hints),
    /// Exact groups (the checked kernels).
    Groups,
}

/// One start of the self-test: walkers with a move log, replayed by core. A walk that applies
/// no flip at all fails the test (the walks from Kronecker products did, before 2026-11-23).
fn self_test_walks<F: Width>(
    start: &Scheme<F>,
    plateau: Plateau,
    reductions: Reductions,
    mode: Mode,
    symmetry: Group,
) -> Result<Replayed> {
    let (hints, partners) = match mode {
        Mode::Sample(hints) => (hints, Partners::Sample),
        Mode::Groups => (Hints::Off, Partners::Groups),
    };
    const WALKERS: usize = 16;
    const LOG: usize = 1 << 14;
    let shape = start.shape();
    let config = WalkConfig {
        plateau,
        generalized: true,
        max_rank: usize::MAX,
        // Sparse walkers and free ones side by side (symmetric walks walk free).
        sparsity: Sparsity::Half,
        reductions,
    };
    let options = GpuOptions {
        walkers: Some(WALKERS),
        config,
        device: 0,
        log_entries: LOG,
        match_rounds: 2,
        flips: 4,
        // Exact step counts: the logs must not depend on timing.
        round_us: 0,
        hints,
        partners,
        symmetry,
        // Three plus moves of a plain walk, two of a symmetric one (an orbit each).
        plus: PlusCap {
            slack: match symmetry {
                Group::Trivial => 3,
                group => 2 * group.order(),
            },
            from: None,
        },
        start_rank: None,
    };
    let mut engine = GpuEngine::<F>::open(shape, options)?;
    for w in 0..WALKERS {
        // Both styles side by side: the odd walkers hold (and walk sparse).
        engine.load(w, start, 1000 + w as u64, Style::of_walker(w))?;
    }
    let round = engine.run_round(2000, 0)?;
    let mut moves_replayed = 0;
    for w in 0..WALKERS {
        let (entries, made) = engine.move_log(w)?;
        ensure!(
            made <= LOG,
            "{shape} walker {w}: {made} moves overflow the {LOG}-entry log"
        );
        let mut slots = engine.staged_slots(start)?;
        for &e in &entries {
            log::replay(&mut slots, e, Reversal::of(shape)).map_err(|e| anyhow::anyhow!("{shape} walker {w}: {e}"))?;
        }
        moves_replayed += entries.len();
        let gpu = engine.current_slots(w)?;
        if let Some(s) = (0..slots.len()).find(|&s| slots[s] != gpu[s]) {
            bail!(
                "{shape} walker {w}: slot {s} differs after {} moves: host {:?}, GPU {:?}",
                entries.len(),
                slots[s],
                gpu[s]
            );
        }
        let scheme = engine.current_scheme(w)?;
        ensure!(
            scheme.rank() == round.walkers[w].rank,
            "{shape} walker {w}: rank bookkeeping"
        );
        verify(&scheme).map_err(|d| anyhow::anyhow!("{shape} walker {w}: invalid scheme: {d}"))?;
        ensure!(
            symmetry == Group::Trivial || is_invariant(symmetry, &scheme.to_width()?),
            "{shape} walker {w}: a symmetric walk left {symmetry}"
        );
        let best = engine.best_scheme(w)?;
        if round.walkers[w].best_rank < start.rank() {
            verify(&best).map_err(|d| anyhow::anyhow!("{shape} walker {w}: invalid best scheme: {d}"))?;
        }
    }
    let c = round.counters;
    ensure!(
        c.flips > 0,
        "{shape} rank {}: {WALKERS} walks of 2000 steps applied no flip ({c:?})",
        start.rank()
    );
    Ok(Replayed {
        shape,
        rank: start.rank(),
        bits: F::BITS,
        symmetry,
        reductions,
        mode,
        plateau,
        walkers: WALKERS,
        moves: moves_replayed,
        counters: c,
        ternary: false,
    })
}

/// One start's walks of the self-test, replayed by core and found identical.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The start's shape.
    pub shape: Shape,
    /// The start's rank.
    pub rank: usize,
    /// Factor bits of the walk.
    pub bits: usize,
    /// The group walked.
    pub symmetry: Group,
    /// How reductions were found.
    pub reductions: Reductions,
    /// How partners were found.
    pub mode: Mode,
    /// The plateau rule.
    pub plateau: Plateau,
    /// Walkers.
    pub walkers: usize,
    /// Logged moves replayed.
    pub moves: usize,
    /// The walks' work.
    pub counters: Counters,
    /// Whether the walks were over ZT (the kernel `walk_zt`), not F2.
    pub ternary: bool,
}

impl std::fmt::Display for Replayed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.counters;
        write!(
            f,
            "self-test {}{} rank {} ({}-bit factors; symmetry: {:?}, reductions: {:?}, partners: {:?}, plateau: {:?}): {} walkers, {} logged moves replayed by core, identical; \
             all schemes valid (steps {}, flips {}, plus {}, reductions {}, generalized {})",
            self.shape, if self.ternary { " over ZT" } else { "" }, self.rank, self.bits, self.symmetry, self.reductions, self.mode, self.plateau, self.walkers, self.moves,
            c.steps, c.flips, c.plus, c.reductions, c.generalized
        )
    }
}
