//! The random walks on the flip graph (the host's reference walks), in one folder: the plain
//! walk ([`Walker`], `plain`: every scheme, factors of any width, sparse walkers, scanned
//! reductions and generalized flips) and the symmetric walk ([`SymmetricWalker`], `symmetric`:
//! the schemes invariant under a group, orbit by orbit, one walk for every group).
//!
//! Each step picks a random group of terms that share a factor, flips a random pair of it, and
//! takes the reductions the flip allows; after a plateau of steps without a reduction it takes
//! a plus move. The two walks share every piece but their step: the index from factor value to
//! the terms holding it (`index`: a step is O(1) expected, and every picked flip a real one),
//! the plateau clock ([`crate::plateau`]), the dependency bases (`bases`), the moves
//! ([`crate::moves`]) and the [`Walk`] trait the engines drive. Why two steps and not one
//! generic over the group: the symmetric step keys an orbit's factors through its group's
//! action and moves every image of a term at once, and its trivial case walks plain schemes
//! about 1.6 times slower than the plain step (work lists and in-place updates of orbits, not
//! terms), without sparse walkers or 128-bit factors; so the engines walk plain schemes with
//! the plain step, and the kernels (one `Warp<S, G, P>` for every group) are where the two are
//! one.

mod bases;
pub(crate) mod index;
mod pending;
mod plain;
mod symmetric;
pub(crate) mod table;
mod ternary;

pub use crate::plateau::Plateau;
use crate::scheme::Scheme;
pub use crate::sparsity::Sparsity;
use crate::term::FactorBits;
pub(crate) use bases::{three_are_dependent, Bases};
pub use plain::Walker;
pub use symmetric::SymmetricWalker;
pub use ternary::{TernaryC3Walker, TernaryWalker};

pub use crate::counters::Counters;

/// Settings of a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkConfig {
    /// Steps without a reduction after which a plus move is taken: fixed (0: never) or adaptive.
    pub plateau: Plateau,
    /// Reduce dependent groups of three or more terms by generalized flips.
    pub generalized: bool,
    /// No plus move is taken at this rank or above.
    pub max_rank: usize,
    /// Which walkers walk sparse ([`crate::sparsity`]). An engine resolves it for each walk's
    /// style ([`Sparsity::for_style`]); a lone walker walks sparse only with [`Sparsity::All`].
    pub sparsity: Sparsity,
    /// How the walk finds the reductions its moves make possible.
    pub reductions: Reductions,
}

/// How a walker finds the reductions that its moves make possible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reductions {
    /// After every move the groups it changed are checked: every merge and (with generalized
    /// flips) every dependent group it made is taken at once. The cost of a step grows with
    /// the sizes of the groups it touches.
    #[default]
    Scan,
    /// The walk finds them: a flip of two terms that share two factors zeroes one, which is
    /// a merge; nothing else is checked. A step costs the same at any rank, and a reduction
    /// waits until the walk meets it (Moosbauer and Poole's symmetric walk finds its
    /// reductions so; the GPU kernels' default).
    Walk,
}

impl Default for WalkConfig {
    fn default() -> WalkConfig {
        WalkConfig {
            plateau: Plateau::Adaptive {
                floor: crate::plateau::CPU_FLOOR,
            },
            generalized: true,
            max_rank: usize::MAX,
            sparsity: Sparsity::Off,
            reductions: Reductions::Scan,
        }
    }
}

/// Steps `walker` by `step` until it took `steps` steps or its `rank` is at most `target`;
/// returns the steps taken. Every walker's `walk` (generic, so a walker's own calls its step
/// without a dispatch per step).
#[inline(always)]
pub(crate) fn walk_until<W: ?Sized>(
    walker: &mut W,
    steps: u64,
    target: usize,
    rank: impl Fn(&W) -> usize,
    mut step: impl FnMut(&mut W) -> bool,
) -> u64 {
    for done in 0..steps {
        if rank(walker) <= target {
            return done;
        }
        step(walker);
    }
    steps
}

/// A random walk on the flip graph as the engines drive it: the plain [`Walker`] or the
/// symmetric one ([`crate::walk::SymmetricWalker`]), on factors of `F`. Ranks are those of
/// the plain schemes.
pub trait Walk<F: FactorBits = u64>: Send {
    /// One step: a move (with the reductions it allows) or, on a plateau, a plus move.
    /// Returns true when it reached a new scheme.
    fn step(&mut self) -> bool;
    /// Takes `steps` steps, or fewer when the rank reaches `target`; returns the steps taken.
    fn walk(&mut self, steps: u64, target: usize) -> u64 {
        walk_until(self, steps, target, |w| w.rank(), |w| w.step())
    }
    /// The rank of the scheme the walker holds now.
    fn rank(&self) -> usize;
    /// The lowest rank reached.
    fn best_rank(&self) -> usize;
    /// The scheme of the lowest rank reached.
    fn best(&self) -> Scheme<F>;
    /// The scheme the walker holds now.
    fn scheme(&self) -> Scheme<F>;
    /// What the walk has done so far.
    fn counters(&self) -> Counters;
    /// The plateau limit in force (steps without a reduction before a plus move).
    fn plateau_limit(&self) -> u64;
}

/// Implements [`Walk`] for a walker type by its inherent methods of the same names, and `walk`
/// too where the walker has its own loop (`walk_by_inherent_methods!(T, walk)`); the walker's
/// factor width is `F`, bound by `Moves` (`walk_by_inherent_methods!(@F, Walker<F>)`) or `u64`.
macro_rules! walk_by_inherent_methods {
    ($(@$f:ident,)? $walker:ty $(, $walk:ident)?) => {
        impl$(<$f: $crate::moves::Moves>)? $crate::walk::Walk$(<$f>)? for $walker {
            fn step(&mut self) -> bool {
                <$walker>::step(self)
            }
            $(
                fn $walk(&mut self, steps: u64, target: usize) -> u64 {
                    <$walker>::$walk(self, steps, target)
                }
            )?
            fn rank(&self) -> usize {
                <$walker>::rank(self)
            }
            fn best_rank(&self) -> usize {
                <$walker>::best_rank(self)
            }
            fn best(&self) -> $crate::scheme::Scheme$(<$f>)? {
                <$walker>::best(self)
            }
            fn scheme(&self) -> $crate::scheme::Scheme$(<$f>)? {
                <$walker>::scheme(self)
            }
            fn counters(&self) -> Counters {
                <$walker>::counters(self)
            }
            fn plateau_limit(&self) -> u64 {
                <$walker>::plateau_limit(self)
            }
        }
    };
}
pub(crate) use walk_by_inherent_methods;
