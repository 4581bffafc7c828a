//! The command line's names and help for the engine's choices (`--symmetry`, `--sparse`,
//! `--backend`, ...): the engine library knows nothing of the command line.

use clap::builder::PossibleValue;
use clap::ValueEnum;
use flipgraph_core::device::Partners;
use flipgraph_core::sparsity::Sparsity;
use flipgraph_core::symmetry::FixedTerms;

use crate::driver::Restarts;
use crate::engine::gpu::Hints;
use crate::engine::Reductions;
use crate::engine::{Backend, Group};
use crate::islands::portfolio::Portfolio;
use crate::session::recipe::{Ladder, Ring};

/// The command line's side of one of the engine's choices: an enum of the same variants with
/// their names and help (the engine library knows nothing of the command line), and the
/// conversion to the engine's own. Where core names a choice (the groups, the sparsity, the
/// partners: the names checkpoints record), the command line takes core's names.
macro_rules! choices {
    ($(#[$doc:meta])* $arg:ident => $ty:ident { $($variant:ident => $name:expr, $help:literal;)+ }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $arg {
            $($variant,)+
        }

        impl ValueEnum for $arg {
            fn value_variants<'a>() -> &'a [Self] {
                &[$($arg::$variant),+]
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(match self {
                    $($arg::$variant => PossibleValue::new($name).help($help),)+
                })
            }
        }

        impl From<$arg> for $ty {
            fn from(choice: $arg) -> $ty {
                match choice {
                    $($arg::$variant => $ty::$variant,)+
                }
            }
        }

        impl From<$ty> for $arg {
            fn from(value: $ty) -> $arg {
                match value {
                    $($ty::$variant => $arg::$variant,)+
                }
            }
        }
    };
}

choices!(
    /// `--symmetry`.
    SymmetryArg => Group {
        Trivial => Group::Trivial.name(), "Every scheme: the plain flip graph";
        C3 => Group::C3.name(), "Square shapes: only schemes invariant under a (x) b (x) c -> b (x) c (x) a, moved orbit by orbit (Moosbauer and Poole's symmetric flip graph); the start must be invariant (the naive scheme is); on a GPU the fixed terms stay frozen and reductions are merges";
        Z2 => Group::Z2.name(), "Any shape: only schemes invariant under reversing every index (A, B, C -> J A J, J B J, J C J, J the anti-identity), moved orbit by orbit, fixed terms frozen; the start must be invariant (the naive scheme is)";
        C6 => Group::C6.name(), "Square shapes: invariant under both the rotation of c3 and the reversal of z2 (the group of Moosbauer and Poole's 6x6x6 rank 153), fixed terms frozen; with --cubes the cube patterns must be mirror images of each other as a set";
    }
);

choices!(
    /// `--restarts`.
    RestartsArg => Restarts {
        Pool => "pool", "From the pool, when it improves past them or their patience ends: walkers share what any finds";
        Independent => "independent", "From the start, when their patience ends: every walker is its own run (Moosbauer and Poole's way)";
    }
);

choices!(
    /// `--portfolio`.
    PortfolioArg => Portfolio {
        On => "on", "Island K walks with the portfolio's settings K mod 4: a lone search's, plateau floors 4 times longer, plus moves up to 8 above the start, floors a quarter as long with plus moves up to 2 above; each setting only where it is not given (--plateau, --plus-slack, --plus-cap; fixed cubes keep theirs)";
        Off => "off", "Every island walks as a lone search does: they differ by their seeds";
    }
);

choices!(
    /// `--ladder`.
    LadderArg => Ladder {
        Auto => "auto", "On a GPU, shapes of 49 to 125 naive terms (4x4x4 has 64, 5x5x5 125; measured on 4x4x4, 3x4x5, 4x4x5, 4x5x5 and 5x5x5): 4x5x5 reached its best known 73 within 105 s in 13 runs of 15, which it never did from naive";
        On => "on", "Every shape of more than 48 naive terms (a ladder's foot has at most 48, such as 3x4x4), on either engine";
        Off => "off", "Start from the naive scheme";
    }
);

choices!(
    /// `--fixed-terms`.
    FixedTermsArg => FixedTerms {
        Free => "free", "Walks change the fixed terms: triples settle to them, equal ones cancel, cube reductions make them";
        Frozen => "frozen", "The fixed terms of the start never change; walks move the triples only (Moosbauer and Poole's search)";
    }
);

choices!(
    /// `--sparse`.
    SparsityArg => Sparsity {
        Off => Sparsity::Off.name(), "Every walker takes every flip it draws";
        Half => Sparsity::Half.name(), "The walks that hold their plateaus walk sparse (under a fixed plateau, the odd walkers): on 6x6x6 to 8x8x8 they descend far faster, and the free, escaping walks keep the lowest ranks of small shapes within reach";
        All => Sparsity::All.name(), "Every walker: the fastest descent on large shapes (CPU, 30 s: 7x7x7 to 310), but small shapes stall above their lowest ranks (4x4x4 at 52)";
    }
);

choices!(
    /// `--ring`.
    RingArg => Ring {
        F2 => Ring::F2.name(), "F2: coefficients 0 and 1 (every engine, group and move)";
        Zt => Ring::Zt.name(), "{-1,0,1}, valid over Z and so over every ring (the field's catalogues rank schemes so): plain schemes on one GPU or the CPU, from the naive scheme or --from files; the start and each new best written as soon as found";
    }
);

choices!(
    /// `--backend`.
    BackendArg => Backend {
        Auto => "auto", "The GPU when one is usable, else the CPU";
        Cpu => "cpu", "All (or --threads) CPU cores";
        Gpu => "gpu", "Every visible GPU; an error when none is usable";
    }
);

choices!(
    /// `--reductions`.
    ReductionsArg => Reductions {
        Scan => "scan", "After every flip, the groups it changed are checked: every merge and dependent group the flip made is taken at once (the cost of a step grows with the rank on a GPU, with the groups' sizes on the CPU)";
        Walk => "walk", "The walk finds them: a flip of two terms that share two factors zeroes one (a merge); on a GPU generalized flips also take the groups of 3 to 5 terms that a match samples. A step costs the same at any rank; a reduction may wait until the walk meets it (Moosbauer and Poole's way)";
    }
);

choices!(
    /// `--gpu-hints`.
    HintsArg => Hints {
        Auto => "auto", "On where each lane holds at least 8 slots (7x7x7 and 8x8x8 from naive), where a uniform match seldom pairs; off below";
        On => "on", "Three draws in four among the slots last seen with a partner (or changed by a flip or a plus move): more flips per match where most factors are unique, but a new pair of two unhinted terms meets only when both are drawn uniformly, so reductions may come more slowly";
        Off => "off", "Uniform draws";
    }
);

choices!(
    /// `--gpu-partners`.
    PartnersArg => Partners {
        Sample => Partners::Sample.name(), "Each step, every lane offers one of its terms (by --gpu-hints) to a match at a random position";
        Groups => Partners::Groups.name(), "The warp finds every group of equal factors at one position (a hash table in shared memory) and flips among them for a burst of as many flips as terms with a partner, then moves on; a scheme with no flip takes its plus move at once. Near the records it walks up to twice as many vertices per second, but from the naive scheme it descends more slowly (docs/BENCHMARKS-ARCHIVE.md, A given start finds its flip partners by groups)";
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a checkpoint records are the command line's: read back by core's own parsers.
    #[test]
    fn the_command_line_names_groups_sparsity_and_partners_as_core_does() {
        let name = |v: Option<PossibleValue>| v.unwrap().get_name().to_owned();
        for arg in SymmetryArg::value_variants() {
            assert_eq!(
                Group::from_name(&name(arg.to_possible_value())),
                Some(Group::from(*arg))
            );
        }
        for arg in SparsityArg::value_variants() {
            assert_eq!(
                Sparsity::from_name(&name(arg.to_possible_value())),
                Some(Sparsity::from(*arg))
            );
        }
        for arg in PartnersArg::value_variants() {
            assert_eq!(
                Partners::from_name(&name(arg.to_possible_value())),
                Some(Partners::from(*arg))
            );
        }
        assert_eq!(SymmetryArg::value_variants().len(), Group::ALL.len());
    }
}
