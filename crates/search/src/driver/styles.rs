//! Which style each walk takes (core's `plateau::Style`: holding its plateaus and, by
//! default, sparse; or escaping by plus moves, free): more often the style whose walks have been
//! finding new ranks lately.
//!
//! Why: no fixed split suits every shape. On 7x7x7 and 8x8x8 from naive the holding, sparse
//! walkers make the descent; on 4x4x4 near rank 49 every improvement in ten runs came from the
//! escaping walkers, and making every walker escape and walk free halved the time to rank 47
//! (H200; docs/BENCHMARKS-ARCHIVE.md, "Restarts pass over sinks"). The share of walks that
//! hold follows each style's return, new ranks
//! gained per step walked (below the pool's best when the walk was loaded, which the driver
//! works out), over the last rounds ([`DECAY`]), and stays within [`MIN_SHARE`] of 0 and 1 so
//! that the other style keeps being measured. While no walk finds a new rank the returns are
//! the prior alone, and the share drifts to a half.

use flipgraph_core::plateau::Style;
use flipgraph_core::rng::WyRand;

/// The least share of walks either style keeps.
pub const MIN_SHARE: f64 = 1.0 / 8.0;

/// What a round's returns weigh against the rounds before it: about the last 20 rounds count
/// (two seconds of a GPU's rounds).
pub const DECAY: f64 = 0.95;

/// Each style's recent returns, and the share of walks that hold, from them.
#[derive(Clone, Debug)]
pub struct Styles {
    /// New ranks gained, per style, decayed by rounds.
    gained: [f64; 2],
    /// Steps walked, per style, decayed alike.
    walked: [f64; 2],
    /// Whether the search chooses (a fixed plateau has no holding walkers: then every walk
    /// keeps the style of its walker index, which only sparsity reads).
    adaptive: bool,
}

impl Styles {
    /// No returns yet: half the walks hold. With `adaptive` false, styles follow the walker index
    /// ([`Style::of_walker`]) throughout.
    pub fn new(adaptive: bool) -> Styles {
        Styles {
            gained: [0.0; 2],
            walked: [0.0; 2],
            adaptive,
        }
    }

    /// A walk of `style` walked `steps` steps this round and gained `ranks` new ranks.
    pub fn record(&mut self, style: Style, steps: u64, ranks: usize) {
        self.walked[style.index()] += steps as f64;
        self.gained[style.index()] += ranks as f64;
    }

    /// Ends a round: older returns weigh less.
    pub fn end_round(&mut self) {
        for x in self.gained.iter_mut().chain(self.walked.iter_mut()) {
            *x *= DECAY;
        }
    }

    /// The share of walks that hold: in proportion to each style's ranks gained per step (one
    /// rank of prior each, so that no style is written off before it walked), within
    /// [`MIN_SHARE`] and `1 - MIN_SHARE`; one half before either walked, and throughout where
    /// the styles follow the walkers (the odd half holds).
    pub fn hold_share(&self) -> f64 {
        if !self.adaptive || self.walked.iter().any(|&w| w <= 0.0) {
            return 0.5;
        }
        let rate = |s: Style| (self.gained[s.index()] + 1.0) / self.walked[s.index()];
        let (hold, escape) = (rate(Style::Hold), rate(Style::Escape));
        (hold / (hold + escape)).clamp(MIN_SHARE, 1.0 - MIN_SHARE)
    }

    /// The style of walker `walker`'s next walk.
    pub fn choose(&self, walker: usize, rng: &mut WyRand) -> Style {
        if !self.adaptive {
            return Style::of_walker(walker);
        }
        // 2^-53 steps: the share as a fraction of 2^53.
        let draw = (rng.bits() >> 11) as f64 / (1u64 << 53) as f64;
        if draw < self.hold_share() {
            Style::Hold
        } else {
            Style::Escape
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share_of_holds(styles: &Styles) -> f64 {
        let mut rng = WyRand::new(3);
        (0..10_000)
            .filter(|&w| styles.choose(w, &mut rng) == Style::Hold)
            .count() as f64
            / 10_000.0
    }

    #[test]
    fn the_style_that_gains_ranks_gets_more_walks_but_never_all() {
        let mut styles = Styles::new(true);
        assert_eq!(styles.hold_share(), 0.5, "no returns yet");
        for _ in 0..50 {
            styles.record(Style::Hold, 1000, 30);
            styles.record(Style::Escape, 1000, 10);
            styles.end_round();
        }
        let share = styles.hold_share();
        assert!(
            (share - 31.0 / 42.0).abs() < 0.02,
            "{share}: about 3:1 (with the prior)"
        );
        assert!((share_of_holds(&styles) - share).abs() < 0.02);
        for _ in 0..200 {
            styles.record(Style::Hold, 1000, 0);
            styles.record(Style::Escape, 1000, 40);
            styles.end_round();
        }
        assert_eq!(
            styles.hold_share(),
            MIN_SHARE,
            "recent rounds count; the loser keeps its floor"
        );
    }

    #[test]
    fn without_a_choice_the_odd_walkers_hold() {
        let mut styles = Styles::new(false);
        styles.record(Style::Escape, 1000, 100);
        styles.record(Style::Hold, 1000, 0);
        assert_eq!(styles.hold_share(), 0.5, "the odd half, whatever the returns");
        let mut rng = WyRand::new(1);
        let chosen: Vec<Style> = (0..4).map(|w| styles.choose(w, &mut rng)).collect();
        assert_eq!(chosen, [0, 1, 2, 3].map(Style::of_walker));
    }
}
