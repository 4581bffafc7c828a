//! The contract between the GPU walk kernel (crates/kernels) and its host runner: the launch
//! parameters ([`Launch`]), the per-walker state ([`WarpState`]) and the memory layout both sides
//! index by ([`scheme_words`], [`factor_index`]). `#[repr(C)]` and [`Pod`], so the host uploads
//! them as bytes; a change here is a change on both sides at once.
//!
//! Terms of walker `w` live in global memory as three arrays of `cap` factors (A, B, then C),
//! at `terms[w * scheme_words(cap) + factor_index(cap, position, slot)]`; a slot whose factor A
//! is 0 is empty. Staged schemes (loads) and best schemes use the same layout.
//!
//! Symmetric walks (the kernels `walk_c3`, `walk_z2`, `walk_c6` and their 32-bit twins) walk
//! schemes invariant under a [`crate::group::Group`] with frozen fixed terms, under the same
//! contract, but a walker's slots hold one representative per free orbit: the terms of the
//! other orbits stay on the host, counted in [`WarpState::fixed`], and every rank counts all
//! terms (`fixed + order * representatives`). Each lane offers a match the factor of an image
//! of its representative under an element of its own drawing (the reversal reads the factor
//! widths of [`Launch::widths`]); a flip between two representatives is the orbit flip at A
//! between the images that met ([`log::ORBIT_FLIP`]; under the reversal alone, a plain flip
//! after [`log::REVERSE`]); no move leaves a representative `X (x) X (x) X` under a rotating
//! group (it would settle to a fixed term), and one that the reversal fixes is cleared (its
//! orbit cancels). Reductions are merges only: the kernels ignore [`Switch::Scan`] and
//! [`Switch::Generalized`].

pub mod kernels;
pub mod ternary;

use bytemuck::{Pod, Zeroable};

use crate::counters::Counters;
use crate::plateau::Style;
use crate::sparsity::Sparsity;

/// `WarpState::load` when the walker keeps its terms.
pub const NO_LOAD: u32 = u32::MAX;

/// How the walkers of a launch walk: its [`Switch`]es and the sparsity of its walkers, packed in
/// one word ([`Launch::policy`]). Each walker reads its own ([`WalkPolicy::for_walker`]): sparse
/// or not, by its style.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(transparent)]
pub struct WalkPolicy(u32);

/// A switch of a [`WalkPolicy`] (its bit in the word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Switch {
    /// Reduce dependent groups of three or more terms by generalized flips.
    Generalized = 1,
    /// Write every elementary move to the move log (the differential test).
    Log = 2,
    /// Trap at once (a test hook for the host's handling of kernel faults).
    Trap = 4,
    /// After each flip, scan the warp's terms for every merge and dependent group the flip
    /// made. Without it, merges are the flips that zero a factor (two terms sharing two factors
    /// meet in a match), and generalized flips take the groups of 3 to 5 that a match samples:
    /// each step then costs the same whatever the rank.
    Scan = 8,
    /// Lanes draw the slots they offer to a match mostly among their partner hints (the slots
    /// last seen with a partner at the step's position, or changed by a flip since), rather than
    /// uniformly. More matches find pairs where most factors are unique; a new pair of two
    /// unhinted terms meets less often.
    Hints = 16,
    /// Each walker adapts its plateau limit ([`WarpState::plateau`]) to its reductions, by
    /// core's [`crate::plateau`] rule; without it the limit stays as loaded.
    Adaptive = 32,
}

/// The bits of the sparsity: every walker sparse, or those that hold their plateaus. A walker's
/// own policy has at most `ALL_SPARSE` (core's [`crate::sparsity`]: a flip that adds `g >= 2`
/// bits to its factors is taken with chance `2^-(g-1)`; the symmetric kernels' orbit flips
/// ignore it).
const ALL_SPARSE: u32 = 64;
const HOLDING_SPARSE: u32 = 128;

impl WalkPolicy {
    /// No switch on; no walker sparse.
    pub const fn new() -> WalkPolicy {
        WalkPolicy(0)
    }

    /// This policy with `switch` on or off.
    pub const fn with(self, switch: Switch, on: bool) -> WalkPolicy {
        match on {
            true => WalkPolicy(self.0 | switch as u32),
            false => WalkPolicy(self.0 & !(switch as u32)),
        }
    }

    /// Whether `switch` is on.
    pub const fn has(self, switch: Switch) -> bool {
        self.0 & switch as u32 != 0
    }

    /// This policy with its walkers sparse as `sparsity` says.
    pub const fn with_sparsity(self, sparsity: Sparsity) -> WalkPolicy {
        let others = self.0 & !(ALL_SPARSE | HOLDING_SPARSE);
        WalkPolicy(
            others
                | match sparsity {
                    Sparsity::Off => 0,
                    Sparsity::Half => HOLDING_SPARSE,
                    Sparsity::All => ALL_SPARSE,
                },
        )
    }

    /// Which walkers walk sparse.
    pub const fn sparsity(self) -> Sparsity {
        if self.0 & ALL_SPARSE != 0 {
            Sparsity::All
        } else if self.0 & HOLDING_SPARSE != 0 {
            Sparsity::Half
        } else {
            Sparsity::Off
        }
    }

    /// The policy a walker of `style` walks by: sparse (every walker's sparsity `All`) or not
    /// (`Off`) as the launch's sparsity says for its style; the switches as given.
    pub const fn for_walker(self, style: Style) -> WalkPolicy {
        self.with_sparsity(match self.sparsity().walks_sparse(style) {
            true => Sparsity::All,
            false => Sparsity::Off,
        })
    }

    /// Whether a walker's own policy ([`WalkPolicy::for_walker`]) walks sparse.
    pub const fn sparse(self) -> bool {
        self.0 & ALL_SPARSE != 0
    }
}

/// Bytes of shared memory that a warp keeps after its `3 * cap` factors: its partner hints,
/// one 32-bit word per position and lane (bit `j` of lane `l`'s word at a position: slot
/// `32 * j + l` had a partner there when last seen).
pub const HINT_BYTES: usize = 3 * 32 * 4;

/// Bytes of shared memory per warp for walkers of `cap` slots whose factors take
/// `factor_bytes` each: the factors (A, B, then C), the partner hints, then for the group
/// kernels ([`Partners::Groups`]) the group table and the mates ([`group_table_entries`]).
pub const fn warp_shared_bytes(cap: usize, factor_bytes: usize, partners: Partners) -> usize {
    let groups = match partners {
        Partners::Sample => 0,
        Partners::Groups => 2 * (group_table_entries(cap) + cap),
    };
    group_memory_at(cap, factor_bytes) + groups
}

/// Where a group kernel's table and mates begin in a warp's shared memory
/// ([`warp_shared_bytes`]): after the factors and the partner hints.
pub const fn group_memory_at(cap: usize, factor_bytes: usize) -> usize {
    3 * cap * factor_bytes + HINT_BYTES
}

/// How the lanes of a walk kernel find flip partners; each way is its own kernel (the names
/// with `_groups` take groups), because their shared memory differs.
///
/// - `Sample`: every step, each lane offers one of its slots to a match (match.any.sync) at
///   a position the warp draws; most matches find nothing where most factors are unique.
/// - `Groups`: the warp flips at one position at a time, a *burst*. Its start finds every group of
///   equal factors at that position exactly, by a hash table of the factors in shared memory
///   (`group_table_entries(cap)` 16-bit entries: a slot plus one, 0 empty; once a burst has found
///   its groups the table lists its mated slots, from which each flip draws), and gives each
///   grouped slot a *mate* of its group (`cap` 16-bit words after the table; `u16::MAX`: none). A
///   flip at a position keeps the factors there, so the groups hold for the whole burst; it lasts
///   as many flips as there are grouped slots (at most [`MAX_BURST`]), so that the walk stays at a
///   position in proportion to its flips, as a uniform draw among all flips would. The pass also
///   flags a slot that shares a second factor with its mate (a merge) and, on a group's first slot,
///   a group of three or more (a generalized flip may apply); the burst takes those reductions
///   first. A reduction or a plus move ends the burst; one that ran out of flips leaves its groups,
///   and the next burst's start takes them again when it comes to that position before a pass, a
///   reduction, a plus move or a burst at another position; a walker none of whose positions has a
///   pair (a *sink*) takes its plus move at once, and the burst after a plus move starts at its
///   position. While a small *cover* of the groups is known (slots of which every group holds one:
///   in `walk32_groups` the slots changed since the last sink, in `walk_groups` one per position,
///   rebuilt by each look there), a burst's start finds the groups from it alone instead of a pass
///   over all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partners {
    /// Matches of sampled slots (the kernels `walk` and `walk32`).
    Sample,
    /// Exact groups, a burst at a time (`walk_groups` and `walk32_groups`).
    Groups,
}

impl Partners {
    /// Its name on the command line and in checkpoints: `sample` or `groups`.
    pub const fn name(self) -> &'static str {
        match self {
            Partners::Sample => "sample",
            Partners::Groups => "groups",
        }
    }

    /// The way named `name` ([`Partners::name`]), if any.
    pub fn from_name(name: &str) -> Option<Partners> {
        [Partners::Sample, Partners::Groups]
            .into_iter()
            .find(|p| p.name() == name)
    }
}

/// Entries of a warp's group table for walkers of `cap` slots: a power of two at least twice
/// the slots, so that the table stays at most half full.
pub const fn group_table_entries(cap: usize) -> usize {
    (2 * cap).next_power_of_two()
}

/// Most flips of one burst of a group kernel ([`Partners::Groups`]).
pub const MAX_BURST: u32 = 64;

/// A group's mate that is no slot (`u16::MAX`).
pub const NO_MATE: u32 = 0xffff;

/// Most slots per walker: a lane keeps its rows (one per 32 slots) in 32-bit masks, of which
/// `walk32_groups` reserves one bit.
pub const MAX_CAP: usize = 31 * 32;

/// Words (factors) of one walker's scheme of `cap` slots in global memory: three arrays of
/// `cap` factors.
pub const fn scheme_words(cap: usize) -> usize {
    3 * cap
}

/// Where the factor at `position` (0 for A, 1 for B, 2 for C) of `slot` lies in a scheme of
/// `cap` slots, in global or in shared memory.
pub const fn factor_index(cap: usize, position: usize, slot: usize) -> usize {
    position * cap + slot
}

/// Words of one walker's move log of `log_cap` entries (two words an entry, [`log::pack`]).
pub const fn log_words(log_cap: usize) -> usize {
    2 * log_cap
}

/// The walk kernels' one parameter: the buffers and the settings of a launch. Pointers travel
/// as device addresses (`u64`); the kernel turns them back into pointers, and its safety
/// contract is that the host built this value with [`Launch`]'s layout rules: `warps` walkers
/// of `cap` slots in `terms`, `best` and `states`, staged schemes in the same layout in
/// `staging`, and `log_words(log_cap)` words of log per walker in `log`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct Launch {
    /// Walkers' current terms: `warps * scheme_words(cap)` factors.
    pub terms: u64,
    /// Walkers' best terms since their last load, in the same layout.
    pub best: u64,
    /// One [`WarpState`] per walker.
    pub states: u64,
    /// Staged schemes that walkers load ([`WarpState::load`]), in the same layout.
    pub staging: u64,
    /// Move logs: `log_words(log_cap)` words per walker.
    pub log: u64,
    /// Walkers (warps) in the launch.
    pub warps: u32,
    /// Term slots per walker, a multiple of 32.
    pub cap: u32,
    /// Steps per walker, at most.
    pub steps: u32,
    /// A walker stops at this rank or below.
    pub target: u32,
    /// How the walkers walk.
    pub policy: WalkPolicy,
    /// Entries of each move log.
    pub log_cap: u32,
    /// Slots each lane samples per step (match rounds) before the step gives up.
    pub match_rounds: u32,
    /// Most flips taken from the pairs of one match.
    pub flips: u32,
    /// When not zero, every walker stops after this many microseconds (or `steps`).
    pub round_us: u32,
    /// Under [`Switch::Adaptive`], the lowest plateau limit (core's `Plateau::Adaptive` floor)
    /// of the escaping walkers; the holding ones hold theirs ([`WarpState::style`],
    /// `plateau::walker_floor`). Not read without the switch (a fixed plateau is each walker's
    /// [`WarpState::plateau`]).
    pub plateau_floor: u32,
    /// The bit widths of factors A, B and C ([`crate::group::Reversal::widths`]): the
    /// reversal of the symmetric kernels whose group has it; the others do not read it.
    pub widths: [u32; 3],
    /// Unused: keeps the size a multiple of 8, so that a `Pod` has no padding.
    pub unused: u32,
}

/// The state of one walker (one warp) between launches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct WarpState {
    /// The warp's random stream ([`WyRand`](crate::rng::WyRand) state).
    pub rng: u64,
    /// Counters of the current round (the host zeroes them before each launch).
    pub counters: Counters,
    /// Current rank.
    pub rank: u32,
    /// Lowest rank since the last load; the best buffer holds the first scheme of that rank.
    pub best_rank: u32,
    /// Steps since the last reduction.
    pub since_reduction: u32,
    /// No plus move at or above this rank.
    pub max_rank: u32,
    /// Index of a staged scheme to load before walking, or [`NO_LOAD`].
    pub load: u32,
    /// Entries written to this warp's move log.
    pub logged: u32,
    /// Steps without a reduction before a plus move (0: never): fixed, or adapted by the walk
    /// under [`Switch::Adaptive`] ([`crate::plateau`]).
    pub plateau: u32,
    /// Terms of the scheme that the walker does not hold: in a symmetric walk, the terms of the
    /// orbits that are not free (kept by the host; the rank is `fixed + order *
    /// representatives`); 0 for a plain walk.
    pub fixed: u32,
    /// The walk's style ([`Style::index`]: 0 escapes, 1 holds its plateaus), set by the host
    /// with each load; read as a [`Style`] through [`WarpState::style`].
    pub style: u32,
    /// Unused: keeps the size a multiple of 8, so that a `Pod` has no padding.
    pub unused: u32,
}

impl WarpState {
    /// The walk's style.
    pub const fn style(&self) -> Style {
        Style::from_index(self.style as usize)
    }
}

/// The move log: kinds of logged moves, their encoding, and their replay.
pub mod log {
    use crate::group::{Element, Reversal};
    use crate::moves::{self, Moves};
    use crate::term::{Position, Term};

    /// `flip(keep = t, other = u, pos)`.
    pub const FLIP: u32 = 1;
    /// `t = merge(t, g u)`, `u` cleared, with `g` the element of rotation `pos` and reversal
    /// `v` (a plain walk's `pos` and `v` are 0; a symmetric walk merges representatives that
    /// share two factors after an element of its group).
    pub const MERGE: u32 = 2;
    /// `plus(t, u, pos)`: `u` changed, the added term goes to slot `v`.
    pub const PLUS: u32 = 3;
    /// Slot `t` cleared (its term became zero, or its orbit cancelled).
    pub const CLEAR: u32 = 4;
    /// The orbit flip of a symmetric walk (see the module docs): `x = g t` and `y = h u`
    /// flip at A (`flip(keep = x, other = y, A)`) and become the representatives of `t` and
    /// `u`; `g` and `h` are packed by [`orbit_flip`].
    pub const ORBIT_FLIP: u32 = 5;
    /// Slot `t` reversed ([`crate::group::Reversal`]): its orbit's other representative, in a
    /// walk whose group reverses but does not rotate (the flip that follows is a plain one).
    pub const REVERSE: u32 = 6;

    /// The `pos` field of an [`ORBIT_FLIP`] whose terms are seen from `t_rotation` and
    /// `u_rotation`.
    pub const fn orbit_rotations(t_rotation: u32, u_rotation: u32) -> u32 {
        t_rotation | u_rotation << 2
    }

    /// An [`ORBIT_FLIP`] of slots `t` and `u` seen through the elements `g` and `h`: their
    /// rotations in the `pos` field, their reversals in bits 0 and 1 of `v`.
    pub fn orbit_flip(g: Element, h: Element, t: u32, u: u32) -> [u32; 2] {
        let reversals = g.reversed as u32 | (h.reversed as u32) << 1;
        pack(
            ORBIT_FLIP,
            orbit_rotations(g.rotation as u32, h.rotation as u32),
            t,
            u,
            reversals,
        )
    }

    /// One logged move: `[kind << 28 | pos << 24 | v, t << 16 | u]`.
    pub fn pack(kind: u32, pos: u32, t: u32, u: u32, v: u32) -> [u32; 2] {
        [kind << 28 | pos << 24 | v, t << 16 | u]
    }

    /// `(kind, pos, t, u, v)` of a packed move.
    pub fn unpack(m: [u32; 2]) -> (u32, u32, u32, u32, u32) {
        (
            m[0] >> 28,
            m[0] >> 24 & 0xf,
            m[1] >> 16,
            m[1] & 0xffff,
            m[0] & 0xff_ffff,
        )
    }

    /// Why a logged move could not be replayed.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum ReplayError {
        /// A slot beyond the walker's slots.
        SlotOutOfRange,
        /// A kind no kernel logs.
        UnknownKind(u32),
        /// A move of this kind that the ring's moves refuse (so no correct kernel took it).
        Refused(u32),
    }

    impl core::fmt::Display for ReplayError {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            match self {
                ReplayError::SlotOutOfRange => write!(f, "logged slot out of range"),
                ReplayError::UnknownKind(kind) => write!(f, "unknown logged move {kind}"),
                ReplayError::Refused(kind) => write!(f, "logged move {kind} that the ring's moves refuse"),
            }
        }
    }

    #[cfg(feature = "std")]
    impl std::error::Error for ReplayError {}

    /// Applies one logged move to a walker's `slots` with core's moves: the host's side of the
    /// kernels' differential test (what the kernel did, done again by the reference).
    /// `reversal` is the shape's, for the moves of walks whose group reverses.
    pub fn replay<F: Moves>(slots: &mut [Term<F>], entry: [u32; 2], reversal: Reversal) -> Result<(), ReplayError> {
        let (kind, field, t, u, v) = unpack(entry);
        let (pos, t, u) = (Position::from_index(field as usize % 3), t as usize, u as usize);
        if t >= slots.len() || u >= slots.len() || (kind == PLUS && v as usize >= slots.len()) {
            return Err(ReplayError::SlotOutOfRange);
        }
        match kind {
            FLIP => {
                let (mut x, mut y) = (slots[t], slots[u]);
                moves::flip(&mut x, &mut y, pos);
                (slots[t], slots[u]) = (x, y);
            }
            MERGE => {
                let other = reversal.act(Element::new(field as u8, v & 1 != 0), slots[u]);
                slots[t] = moves::merge(&slots[t], &other).unwrap_or_default();
                slots[u] = Term::default();
            }
            PLUS => {
                let (changed, added) = moves::plus(&slots[t], &slots[u], pos);
                slots[u] = changed;
                slots[v as usize] = added;
            }
            CLEAR => slots[t] = Term::default(),
            ORBIT_FLIP => {
                let g = Element::new((field & 3) as u8, v & 1 != 0);
                let h = Element::new((field >> 2) as u8, v & 2 != 0);
                let (mut x, mut y) = (reversal.act(g, slots[t]), reversal.act(h, slots[u]));
                moves::flip(&mut x, &mut y, Position::A);
                (slots[t], slots[u]) = (x, y);
            }
            REVERSE => slots[t] = reversal.term(slots[t]),
            _ => return Err(ReplayError::UnknownKind(kind)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::log::{self, ReplayError};
    use super::{
        factor_index, group_memory_at, group_table_entries, scheme_words, warp_shared_bytes, Launch, Partners,
        Sparsity, Style, Switch, WalkPolicy, WarpState,
    };
    use crate::group::Reversal;
    use crate::moves;

    /// The reversal of a walk that takes none (no move below reads it).
    const PLAIN: Reversal = Reversal::from_widths([0; 3]);
    use crate::term::{Position, Term};

    #[test]
    fn a_replayed_log_applies_core_moves_to_the_logged_slots() {
        let mut slots = [Term::new(1, 2, 4), Term::new(1, 8, 16), Term::default()];
        let (mut x, mut y) = (slots[0], slots[1]);
        moves::flip(&mut x, &mut y, Position::A);
        log::replay(&mut slots, log::pack(log::FLIP, 0, 0, 1, 0), PLAIN).unwrap();
        assert_eq!(slots[..2], [x, y]);
        let (changed, added) = moves::plus(&slots[0], &slots[1], Position::B);
        log::replay(&mut slots, log::pack(log::PLUS, 1, 0, 1, 2), PLAIN).unwrap();
        assert_eq!(slots[1..], [changed, added]);
        log::replay(&mut slots, log::pack(log::CLEAR, 0, 2, 0, 0), PLAIN).unwrap();
        assert!(slots[2].is_zero());
        assert_eq!(
            log::replay(&mut slots, log::pack(log::FLIP, 0, 0, 3, 0), PLAIN),
            Err(ReplayError::SlotOutOfRange)
        );
        assert_eq!(
            log::replay(&mut slots, log::pack(9, 0, 0, 1, 0), PLAIN),
            Err(ReplayError::UnknownKind(9))
        );
    }

    #[test]
    fn a_replayed_orbit_flip_and_rotated_merge_act_on_the_rotations_that_met() {
        use crate::symmetry::rotate;
        // Factor b of `t` (its rotation 1) meets factor c of `u` (its rotation 2).
        let (t, u) = (Term::new(1, 2, 4), Term::new(8, 16, 2));
        let mut slots = [t, u];
        let (mut x, mut y) = (rotate(t, 1), rotate(u, 2));
        moves::flip(&mut x, &mut y, Position::A);
        log::replay(
            &mut slots,
            log::pack(log::ORBIT_FLIP, log::orbit_rotations(1, 2), 0, 1, 0),
            PLAIN,
        )
        .unwrap();
        assert_eq!(slots, [x, y]);
        // `u` seen from its rotation 1 shares two factors with `t`: a merge.
        let mut slots = [Term::new(1, 2, 4), Term::new(7, 1, 2)];
        log::replay(&mut slots, log::pack(log::MERGE, 1, 0, 1, 0), PLAIN).unwrap();
        assert_eq!(slots, [Term::new(1, 2, 4 ^ 7), Term::default()]);
    }

    #[test]
    fn a_launchs_sparsity_reaches_the_walkers_it_names_and_no_others() {
        for sparsity in [Sparsity::Off, Sparsity::Half, Sparsity::All] {
            let policy = WalkPolicy::new()
                .with(Switch::Generalized, true)
                .with_sparsity(sparsity);
            assert_eq!(policy.sparsity(), sparsity);
            for style in Style::ALL {
                let own = policy.for_walker(style);
                assert_eq!(own.sparse(), sparsity.walks_sparse(style), "{sparsity:?} {style:?}");
                assert!(own.has(Switch::Generalized), "the switches stay");
                assert!(!own.has(Switch::Scan));
            }
        }
    }

    #[test]
    fn each_switch_is_its_own_bit_beside_the_sparsity() {
        let all = [
            Switch::Generalized,
            Switch::Log,
            Switch::Trap,
            Switch::Scan,
            Switch::Hints,
            Switch::Adaptive,
        ];
        for (i, &on) in all.iter().enumerate() {
            let policy = WalkPolicy::new().with(on, true).with_sparsity(Sparsity::Half);
            for (j, &other) in all.iter().enumerate() {
                assert_eq!(policy.has(other), i == j, "{on:?} {other:?}");
            }
            assert_eq!(policy.sparsity(), Sparsity::Half);
            assert_eq!(policy.with(on, false), WalkPolicy::new().with_sparsity(Sparsity::Half));
        }
    }

    #[test]
    fn the_layout_puts_each_factor_in_its_own_word_and_the_contract_has_no_padding() {
        let cap = 64;
        let mut seen = [false; 3 * 64];
        for pos in 0..3 {
            for slot in 0..cap {
                let at = factor_index(cap, pos, slot);
                assert!(at < scheme_words(cap) && !seen[at]);
                seen[at] = true;
            }
        }
        // Pod derives refuse padding; the sizes the PTX parameter and the host copy rely on:
        assert_eq!(core::mem::size_of::<Launch>(), 96);
        assert_eq!(core::mem::size_of::<WarpState>() % 8, 0);
        // A group kernel's memory follows what a sampling warp has, and holds its table and
        // mates of 16-bit words.
        for factor_bytes in [4, 8] {
            let groups = group_memory_at(cap, factor_bytes);
            assert_eq!(groups, warp_shared_bytes(cap, factor_bytes, Partners::Sample));
            assert_eq!(
                warp_shared_bytes(cap, factor_bytes, Partners::Groups),
                groups + 2 * (group_table_entries(cap) + cap)
            );
        }
    }
}
