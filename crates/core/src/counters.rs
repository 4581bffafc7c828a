//! Counters of a walk, shared by the host walk and the GPU kernel (no allocation, `#[repr(C)]`).

use bytemuck::{Pod, Zeroable};

/// What a walk did. A step is one attempt to move; a vertex is a step that reached a new scheme.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct Counters {
    /// Attempts to move.
    pub steps: u64,
    /// Steps that applied a move (flip or plus, with the reductions that followed).
    pub vertices: u64,
    /// Flips applied.
    pub flips: u64,
    /// Plus moves applied.
    pub plus: u64,
    /// Terms removed by reductions (merges and generalized flips).
    pub reductions: u64,
    /// Generalized flips that removed a term.
    pub generalized: u64,
}

impl Counters {
    /// The counts since `earlier` (a snapshot of the same walk; none below zero).
    pub fn subtract(&mut self, earlier: Counters) {
        self.each(earlier, u64::saturating_sub);
    }

    /// Each count combined with `other`'s by `f`.
    fn each(&mut self, other: Counters, f: fn(u64, u64) -> u64) {
        let counts = [
            (&mut self.steps, other.steps),
            (&mut self.vertices, other.vertices),
            (&mut self.flips, other.flips),
            (&mut self.plus, other.plus),
            (&mut self.reductions, other.reductions),
            (&mut self.generalized, other.generalized),
        ];
        for (count, by) in counts {
            *count = f(*count, by);
        }
    }
}

/// Sums saturate: a search's totals (resumed from a checkpoint, summed over walkers, islands
/// and rounds) stop at `u64::MAX` rather than wrap to a small number.
impl core::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.each(o, u64::saturating_add);
    }
}

#[cfg(test)]
mod tests {
    use super::Counters;

    #[test]
    fn sums_saturate_and_differences_stop_at_zero() {
        let near = Counters {
            steps: u64::MAX - 5,
            flips: 3,
            ..Counters::default()
        };
        let mut sum = near;
        sum += Counters {
            steps: 10,
            flips: 4,
            ..Counters::default()
        };
        assert_eq!((sum.steps, sum.flips), (u64::MAX, 7));
        let mut difference = Counters::default();
        difference.subtract(near);
        assert_eq!(difference, Counters::default());
    }
}
