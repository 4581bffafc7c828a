//! The plateau schedule: how many steps without a reduction a walker takes before a plus move
//! (rank + 1) leaves the plateau.
//!
//! Why adaptive: the right limit is about the number of steps a reduction takes to find, and
//! that number grows with the shape and the rank by orders of magnitude (4x4x4 near rank 49
//! wants about 100 GPU steps; 7x7x7 and 8x8x8 from naive find nothing below 10,000, and a
//! walker there climbs by plus moves faster than it can come down). A fixed limit tuned on one
//! shape stops the descent on the others.
//!
//! The rule, per walker: after each reduction the limit moves halfway to [`WAIT_MULTIPLE`]
//! times the wait that reduction took (steps since the previous reduction or plus move), and
//! each time a plateau ends in a plus move the limit grows by half; always within [`MIN`] (or
//! the engine's floor) and [`MAX`].
//! Where reductions come at a rate `r` per step (the descent), the limit settles near
//! `WAIT_MULTIPLE / r`, so a plateau ends in a plus move only with chance about
//! `exp(-WAIT_MULTIPLE)` (2%): walkers come down instead of climbing. Where a walker sits at its
//! lowest rank and only a plus move brings reductions (near a record), every plateau at the
//! bottom ends in one and the quick reduction after it pulls the limit back: it settles at
//! `2 * WAIT_MULTIPLE` times that quick wait, so plus moves stay frequent there, as an escape needs, but not below the engine's
//! floor (the best fixed limit measured there: 1000 on the CPU, 100 on a GPU, on 4x4x4, where
//! a walker spends its time at its lowest rank). The CPU walk and the GPU kernel share these
//! functions.
//!
//! Why some walks hold: on large shapes (6x6x6 and up from naive) a walker descends further
//! when it never takes a plus move at all (7x7x7 on a GPU, 60 s: 329 against 337; 6x6x6 on the
//! CPU: 203 against 212), because its plus moves are undone by quick reductions that pull the
//! limit down, and it climbs to its cap instead of walking its plateau. At 4x4x4's lowest ranks
//! the same plus moves are the only way down. No rule tried on a walker's own waits told the
//! two apart (docs/BENCHMARKS-ARCHIVE.md, "The 8-minute looks, walker counts and a schedule
//! tried"), so each walk has a [`Style`]: it holds its plateau
//! ([`HOLD_FLOOR`], a plateau of millions of steps; its patience restarts it first) or escapes by
//! the rule above. The search chooses the style of each walk when it loads it, more often the
//! style whose walks have been gaining ranks (the binary's `search::styles`), and restarts from
//! the pool carry either style's progress to the other.

/// The smallest adaptive limit.
pub const MIN: u32 = 16;
/// The largest adaptive limit (a walker's patience ends long before it, by default).
pub const MAX: u32 = 1 << 26;
/// The limit an adaptive walker starts with; its first reductions move it to where its
/// reductions are.
pub const START: u32 = 256;
/// The floor of the CPU walk ([`Plateau::Adaptive`]): on 4x4x4 to rank 49 a fixed 1000 took a
/// median 0.96 s on two threads against 6.6 s with 100, and the adaptive rule without a floor
/// settled near 250 there and took 3.4 s.
pub const CPU_FLOOR: u32 = 1000;
/// The floor of the GPU walk, whose steps include matches that found no partner: on 4x4x4 to
/// rank 47 a fixed 100 took a median 6.3 s against 20 s with 1000.
pub const GPU_FLOOR: u32 = 100;

/// The floor of a walker that holds its plateau ([`walker_floor`]): 2^24 steps, longer than
/// its patience, so that it leaves a plateau by a reduction or a restart, not by a plus move.
pub const HOLD_FLOOR: u32 = 1 << 24;

/// How a walk leaves its plateaus; the search chooses it for each walk when it loads the walker
/// (more often the style whose walks have been descending, `search::styles` in the binary).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Style {
    /// By a plus move when its adaptive limit runs out, from the engine's floor up: the way
    /// down at the lowest ranks of small shapes.
    #[default]
    Escape,
    /// Only by a reduction or a restart ([`HOLD_FLOOR`]), and sparse under
    /// [`crate::sparsity::Sparsity::Half`]: the descent of large shapes.
    Hold,
}

impl Style {
    /// Both styles, [`Style::index`] order.
    pub const ALL: [Style; 2] = [Style::Escape, Style::Hold];

    /// The style of walker `walker` where no search chooses (tests, the self-test): the odd
    /// walkers hold.
    pub const fn of_walker(walker: usize) -> Style {
        if walker % 2 == 1 {
            Style::Hold
        } else {
            Style::Escape
        }
    }

    /// 0 for [`Style::Escape`], 1 for [`Style::Hold`] (the GPU contract's `WarpState::style`).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The style of [`Style::index`] `index`: [`Style::Hold`] for any index but 0.
    pub const fn from_index(index: usize) -> Style {
        if index == 0 {
            Style::Escape
        } else {
            Style::Hold
        }
    }

    /// Its name in events and status lines.
    pub const fn name(self) -> &'static str {
        match self {
            Style::Escape => "escape",
            Style::Hold => "hold",
        }
    }
}

/// The floor that a walker of `style` keeps under an engine's `floor`: a holding one
/// [`HOLD_FLOOR`], an escaping one `floor`.
#[inline(always)]
pub const fn walker_floor(floor: u32, style: Style) -> u32 {
    if matches!(style, Style::Hold) && floor < HOLD_FLOOR {
        HOLD_FLOOR
    } else {
        floor
    }
}

/// How many waits for a reduction a plateau lasts, once settled.
pub const WAIT_MULTIPLE: u32 = 4;

/// The adaptive limit after a plateau of `limit` ended in a plus move: half as long again.
/// Less than double, so that a walker at its lowest rank, whose every plus move is followed by
/// a quick reduction back, settles (at `2 * WAIT_MULTIPLE` times that quick wait) instead of
/// growing without bound.
#[inline(always)]
pub const fn grown(limit: u32) -> u32 {
    bounded(limit as u64 + limit as u64 / 2)
}

/// The adaptive limit after a reduction that took `wait` steps, not below `floor`.
#[inline(always)]
pub const fn after_wait(limit: u32, wait: u32, floor: u32) -> u32 {
    let moved = bounded((limit as u64 + WAIT_MULTIPLE as u64 * wait as u64) / 2);
    if moved < floor {
        floor
    } else {
        moved
    }
}

/// `limit` within [`MIN`] and [`MAX`].
#[inline(always)]
const fn bounded(limit: u64) -> u32 {
    if limit > MAX as u64 {
        MAX
    } else if limit < MIN as u64 {
        MIN
    } else {
        limit as u32
    }
}

/// How a walk chooses its plateau limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plateau {
    /// The same limit throughout (0: never a plus move on a plateau).
    Fixed(u64),
    /// Per walker, adapted to its waits for reductions ([`grown`], [`after_wait`]), never
    /// below `floor`, from [`START`] or `floor` if higher.
    Adaptive {
        /// The engine's floor: the limit a walker at its lowest rank, where only plus moves
        /// bring reductions, keeps at least (each engine's measured best fixed limit there).
        floor: u32,
    },
}

impl Plateau {
    /// Whether the limit adapts (no fixed `--plateau N`).
    pub const fn adapts(self) -> bool {
        matches!(self, Plateau::Adaptive { .. })
    }

    /// The limit a walker starts with.
    pub const fn initial(self) -> u64 {
        match self {
            Plateau::Fixed(limit) => limit,
            Plateau::Adaptive { floor } => (if floor > START { floor } else { START }) as u64,
        }
    }

    /// The plateau of a walker of `style`: an adaptive one with that style's floor
    /// ([`walker_floor`]); a fixed one as it is.
    pub const fn for_style(self, style: Style) -> Plateau {
        match self {
            Plateau::Fixed(_) => self,
            Plateau::Adaptive { floor } => Plateau::Adaptive {
                floor: walker_floor(floor, style),
            },
        }
    }

    /// The limit after a plateau of `limit` ended in a plus move.
    pub const fn after_plus(self, limit: u64) -> u64 {
        match self {
            Plateau::Fixed(_) => limit,
            Plateau::Adaptive { .. } => grown(bounded(limit)) as u64,
        }
    }

    /// The limit after a reduction that took `wait` steps.
    pub const fn after_reduction(self, limit: u64, wait: u64) -> u64 {
        match self {
            Plateau::Fixed(_) => limit,
            Plateau::Adaptive { floor } => {
                after_wait(bounded(limit), if wait > MAX as u64 { MAX } else { wait as u32 }, floor) as u64
            }
        }
    }
}

/// A walker's plateau clock: the steps since its last reduction against the limit in force.
/// Both CPU walkers keep one.
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    plateau: Plateau,
    limit: u64,
    since_reduction: u64,
}

#[cfg(feature = "alloc")]
impl Clock {
    /// A clock at the start of a walk.
    pub(crate) const fn new(plateau: Plateau) -> Clock {
        Clock {
            plateau,
            limit: plateau.initial(),
            since_reduction: 0,
        }
    }

    /// The limit in force (0: never a plus move).
    pub(crate) const fn limit(&self) -> u64 {
        self.limit
    }

    /// One more step without a reduction.
    #[inline]
    pub(crate) fn tick(&mut self) {
        self.since_reduction += 1;
    }

    /// Whether the plateau has lasted its limit.
    #[inline]
    pub(crate) const fn ran_out(&self) -> bool {
        self.limit > 0 && self.since_reduction >= self.limit
    }

    /// The plateau ends in a plus move: the limit moves on ([`Plateau::after_plus`]).
    pub(crate) fn plus_due(&mut self) {
        self.limit = self.plateau.after_plus(self.limit);
    }

    /// A plus move was taken: a new plateau starts.
    pub(crate) fn plus_taken(&mut self) {
        self.since_reduction = 0;
    }

    /// A reduction ended the plateau ([`Plateau::after_reduction`]).
    pub(crate) fn reduced(&mut self) {
        self.limit = self.plateau.after_reduction(self.limit, self.since_reduction);
        self.since_reduction = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adaptive_limit_grows_on_a_plus_and_moves_toward_the_waits_of_reductions() {
        let p = Plateau::Adaptive { floor: MIN };
        assert!(p.adapts());
        assert_eq!(p.after_plus(p.initial()), 3 * START as u64 / 2);
        assert_eq!(p.after_reduction(1000, 500), (1000 + 4 * 500) / 2);
        assert_eq!(p.after_reduction(1000, 0), 500);
        assert_eq!(p.after_plus(MAX as u64), MAX as u64);
        assert_eq!(p.after_reduction(MIN as u64, 1), MIN as u64);
        assert_eq!(p.after_reduction(u64::MAX, u64::MAX), MAX as u64);
        assert_eq!(grown(u32::MAX), MAX);
        // An engine's floor holds the limit up, and a floor above the start is the start.
        let floored = Plateau::Adaptive { floor: 1000 };
        assert_eq!(floored.initial(), 1000);
        assert_eq!(floored.after_reduction(1000, 1), 1000);
        assert_eq!(floored.after_reduction(1000, 2000), 4500);
    }

    #[test]
    fn a_holding_walker_keeps_its_plateau_and_an_escaping_one_its_engines_floor() {
        let p = Plateau::Adaptive { floor: GPU_FLOOR };
        assert_eq!(p.for_style(Style::Escape), p);
        let hold = p.for_style(Style::Hold);
        assert_eq!(hold, Plateau::Adaptive { floor: HOLD_FLOOR });
        // A holder starts at its floor and quick reductions never pull it below.
        assert_eq!(hold.initial(), HOLD_FLOOR as u64);
        assert_eq!(hold.after_reduction(hold.initial(), 1), HOLD_FLOOR as u64);
        assert_eq!(Plateau::Fixed(100).for_style(Style::Hold), Plateau::Fixed(100));
        assert_eq!(walker_floor(u32::MAX, Style::Hold), u32::MAX);
        // Where nobody chooses, the odd walkers hold; the index round-trips.
        assert_eq!(
            [0, 1, 6, 7].map(Style::of_walker),
            [Style::Escape, Style::Hold, Style::Escape, Style::Hold]
        );
        assert!(Style::ALL
            .iter()
            .enumerate()
            .all(|(i, s)| s.index() == i && Style::from_index(i) == *s));
    }

    #[test]
    fn a_fixed_limit_never_moves() {
        let p = Plateau::Fixed(1000);
        assert!(!p.adapts());
        assert_eq!(p.initial(), 1000);
        assert_eq!(p.after_plus(1000), 1000);
        assert_eq!(p.after_reduction(1000, 3), 1000);
    }

    #[cfg(feature = "std")]
    #[test]
    fn in_a_descent_the_limit_settles_at_a_few_waits_and_plus_moves_stay_rare() {
        // Reductions at a fixed rate r per step: the wait is exponential with mean 1 / r, and a
        // plateau whose limit comes first ends in a plus move. For rates four orders of
        // magnitude apart, the limit must settle within [1 / r, 16 / r] and fewer than one
        // plateau in ten may end in a plus move.
        let mut rng = crate::rng::WyRand::new(7);
        for r in [1e-2, 1e-4, 1e-6] {
            let p = Plateau::Adaptive { floor: MIN };
            let (mut limit, mut logs, mut plus) = (p.initial(), 0.0, 0);
            for i in 0..4000 {
                let u = ((rng.bits() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
                let wait = (-u.ln() / r) as u64;
                let expired = wait >= limit;
                limit = if expired {
                    p.after_plus(limit)
                } else {
                    p.after_reduction(limit, wait)
                };
                if i >= 2000 {
                    logs += (limit as f64).ln();
                    plus += expired as u32;
                }
            }
            let typical = (logs / 2000.0).exp();
            assert!(typical > 1.0 / r && typical < 16.0 / r, "rate {r}: limit {typical}");
            assert!(plus < 200, "rate {r}: {plus} of 2000 plateaus ended in a plus move");
        }
    }
}
