//! The ternary walk's side of the contract (the kernel `walk_zt`): how a ZT term lies in the
//! device's factor words, and the replay of its move log.
//!
//! A factor is one `u128` word, its nonzero plane low and its negative plane high (a
//! [`Trits`] of up to [`TRIT_BITS`] entries). A term is three words in the usual layout
//! ([`super::factor_index`]): A and B in normal form and C carrying the term's sign, so that
//! A and B words are equal exactly when the factors are equal up to sign, and C's are after
//! normalizing ([`match_key`]). A slot whose A word is 0 is empty, as over F2.
//!
//! The log is core's ([`super::log::pack`]) with the ring's moves: a [`log::FLIP`] or
//! [`log::PLUS`] carries its sign choice in bit 2 of the position field ([`ternary_field`]), a
//! [`log::MERGE`] merges two plain slots, a [`log::CLEAR`] empties one.

use super::log::{self, ReplayError};
use crate::term::Position;
use crate::ternary::{self, TernaryTerm, Trits, TRIT_BITS};

/// A factor as the device stores it: `nonzero` low, `negative` high.
#[inline(always)]
pub const fn factor_word(f: Trits) -> u128 {
    f.nonzero as u128 | (f.negative as u128) << TRIT_BITS
}

/// The factor a device word holds.
#[inline(always)]
pub const fn word_factor(w: u128) -> Trits {
    Trits {
        nonzero: w as u64,
        negative: (w >> TRIT_BITS) as u64,
    }
}

/// A term as the device stores it: A and B normal, C with the term's sign in it.
#[inline(always)]
pub const fn term_words(t: &TernaryTerm) -> [u128; 3] {
    [
        factor_word(t.get(Position::A)),
        factor_word(t.get(Position::B)),
        factor_word(t.signed_factor(Position::C)),
    ]
}

/// The term that three device words hold (the zero term where one is zero).
#[inline(always)]
pub const fn words_term(w: [u128; 3]) -> TernaryTerm {
    TernaryTerm::signed([word_factor(w[0]), word_factor(w[1]), word_factor(w[2])], false)
}

/// The word two terms' factors at one position are matched by: the normal form's, equal
/// exactly when the factors are equal up to sign (only C's words carry a sign).
#[inline(always)]
pub const fn match_key(w: u128) -> u128 {
    factor_word(word_factor(w).normalized().0)
}

/// The position field of a ternary flip or plus move at `pos` with sign choice `minus`.
pub const fn ternary_field(pos: Position, minus: bool) -> u32 {
    pos as u32 | (minus as u32) << 2
}

/// Applies one logged move of the ternary walk to a walker's `slots` with core's ternary
/// moves: the host's side of the kernel's differential test. A flip or plus move the moves
/// refuse was never taken by a correct kernel: [`ReplayError::Refused`].
pub fn replay(slots: &mut [TernaryTerm], entry: [u32; 2]) -> Result<(), ReplayError> {
    let (kind, field, t, u, v) = log::unpack(entry);
    let (pos, minus) = (Position::from_index(field as usize & 3), field & 4 != 0);
    let (t, u, v) = (t as usize, u as usize, v as usize);
    if t >= slots.len() || u >= slots.len() || (kind == log::PLUS && v >= slots.len()) {
        return Err(ReplayError::SlotOutOfRange);
    }
    match kind {
        log::FLIP => {
            let (mut x, mut y) = (slots[t], slots[u]);
            if x.get(pos) != y.get(pos) || !ternary::flip(&mut x, &mut y, pos, minus) {
                return Err(ReplayError::Refused(kind));
            }
            (slots[t], slots[u]) = (x, y);
        }
        log::MERGE => {
            slots[t] = ternary::merge(&slots[t], &slots[u]).ok_or(ReplayError::Refused(kind))?;
            slots[u] = TernaryTerm::default();
        }
        log::PLUS => {
            let (changed, added) = ternary::plus(&slots[t], &slots[u], pos, minus).ok_or(ReplayError::Refused(kind))?;
            slots[u] = changed;
            slots[v] = added;
        }
        log::CLEAR => slots[t] = TernaryTerm::default(),
        _ => return Err(ReplayError::UnknownKind(kind)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ternary::TernaryTerm;

    fn trits(entries: &[i64]) -> Trits {
        entries
            .iter()
            .enumerate()
            .fold(Trits::ZERO, |f, (i, &e)| f.with(i, e).unwrap())
    }

    #[test]
    fn a_term_goes_to_words_and_back_with_its_sign_in_c() {
        let t = TernaryTerm::signed([trits(&[0, -1, 1]), trits(&[1, 1]), trits(&[1, 0, -1])], false);
        let w = term_words(&t);
        assert_eq!(words_term(w), t);
        // A and B are normal; C carries the sign: a's was moved to c.
        assert_eq!(word_factor(w[0]), trits(&[0, 1, -1]));
        assert_eq!(word_factor(w[2]), trits(&[-1, 0, 1]));
        assert_eq!(match_key(w[2]), factor_word(trits(&[1, 0, -1])));
        assert_eq!(match_key(w[0]), w[0]);
        assert!(words_term([0, w[1], w[2]]).is_zero());
    }

    #[test]
    fn a_replayed_ternary_log_applies_the_ring_moves_with_their_signs() {
        let (a, b, c) = (trits(&[1]), trits(&[1, -1]), trits(&[0, 1]));
        let mut slots = [
            TernaryTerm::new(a, b, c),
            TernaryTerm::new(a, trits(&[0, 1]), trits(&[1])),
            TernaryTerm::default(),
        ];
        let (mut x, mut y) = (slots[0], slots[1]);
        assert!(ternary::flip(&mut x, &mut y, Position::A, true));
        let flip = log::pack(log::FLIP, ternary_field(Position::A, true), 0, 1, 0);
        replay(&mut slots, flip).unwrap();
        assert_eq!(slots[..2], [x, y]);
        let (changed, added) = ternary::plus(&slots[0], &slots[1], Position::B, false).unwrap();
        replay(
            &mut slots,
            log::pack(log::PLUS, ternary_field(Position::B, false), 0, 1, 2),
        )
        .unwrap();
        assert_eq!(slots[1..], [changed, added]);
        replay(&mut slots, log::pack(log::CLEAR, 0, 2, 0, 0)).unwrap();
        assert!(slots[2].is_zero());
        // A flip of terms that share nothing at its position was never taken.
        let wrong = log::pack(log::FLIP, ternary_field(Position::C, false), 0, 1, 0);
        assert_eq!(replay(&mut slots, wrong), Err(ReplayError::Refused(log::FLIP)));
        assert_eq!(
            replay(&mut slots, log::pack(log::FLIP, 0, 0, 3, 0)),
            Err(ReplayError::SlotOutOfRange)
        );
        assert_eq!(
            replay(&mut slots, log::pack(7, 0, 0, 1, 0)),
            Err(ReplayError::UnknownKind(7))
        );
    }
}
