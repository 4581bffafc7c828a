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
    /// The counts since `earlier` (a snapshot of the same walk).
    pub fn subtract(&mut self, earlier: Counters) {
        self.steps -= earlier.steps;
        self.vertices -= earlier.vertices;
        self.flips -= earlier.flips;
        self.plus -= earlier.plus;
        self.reductions -= earlier.reductions;
        self.generalized -= earlier.generalized;
    }
}

impl core::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.steps += o.steps;
        self.vertices += o.vertices;
        self.flips += o.flips;
        self.plus += o.plus;
        self.reductions += o.reductions;
        self.generalized += o.generalized;
    }
}
