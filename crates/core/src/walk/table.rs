//! A table from a factor value to a group id: direct addressing for factors of up to
//! [`DIRECT_BITS`] bits (one load per lookup, nothing to probe or shift), else an
//! open-addressing hash table (linear probing with backward-shift deletion, so no tombstones
//! pile up during a walk of billions of steps).

use alloc::vec;
use alloc::vec::Vec;

use crate::term::FactorBits;

/// A free slot.
const EMPTY: u32 = u32::MAX;

/// Widest factors indexed directly: 2^16 entries of 4 bytes per position (allocated zeroed, so
/// only the pages a walk touches take memory: up to 768 KiB per walker, reached on 4x4x4 after
/// a few seconds; about 0.8 MB of resident memory per walker in a search).
pub(crate) const DIRECT_BITS: usize = 16;

/// Factor value to group id, for one position.
#[derive(Clone, Debug)]
pub(crate) enum FactorTable<F> {
    /// `group id + 1` at index `key` (0: absent).
    Direct(Vec<u32>),
    /// `(key, group id)` slots, one load each; a key's home slot is its hash `>> shift`.
    Hashed { slots: Vec<(F, u32)>, shift: u32 },
}

/// The home slot of `key` in a hashed table whose hash is shifted right by `shift`.
#[inline(always)]
fn home<F: FactorBits>(key: F, shift: u32) -> usize {
    (key.fold64().wrapping_mul(0x9e37_79b9_7f4a_7c15) >> shift) as usize
}

impl<F: FactorBits> FactorTable<F> {
    /// A table for up to `capacity` keys of `bits` bits (a hashed one is kept at most half full).
    pub(crate) fn with_capacity(capacity: usize, bits: usize) -> FactorTable<F> {
        if bits <= DIRECT_BITS {
            return FactorTable::Direct(vec![0; 1 << bits]);
        }
        let slots = (capacity.max(8) * 2).next_power_of_two();
        FactorTable::Hashed {
            slots: vec![(F::ZERO, EMPTY); slots],
            shift: 64 - slots.trailing_zeros(),
        }
    }

    /// The group id of `key`, if present.
    #[cfg(test)]
    fn get(&self, key: F) -> Option<u32> {
        self.find(key).ok()
    }

    /// One probe for `key`: its group id, or the free slot where it would go.
    #[inline]
    pub(crate) fn find(&self, key: F) -> Result<u32, usize> {
        match self {
            FactorTable::Direct(ids) => match ids[key.to_u128() as usize] {
                0 => Err(key.to_u128() as usize),
                id => Ok(id - 1),
            },
            FactorTable::Hashed { slots, shift } => {
                let mut i = home(key, *shift);
                loop {
                    let (k, id) = slots[i];
                    if id == EMPTY {
                        return Err(i);
                    }
                    if k == key {
                        return Ok(id);
                    }
                    i = (i + 1) & (slots.len() - 1);
                }
            }
        }
    }

    /// Puts `key` into the free slot `slot` that [`FactorTable::find`] returned for it.
    #[inline]
    pub(crate) fn insert_at(&mut self, slot: usize, key: F, id: u32) {
        match self {
            FactorTable::Direct(ids) => {
                debug_assert_eq!((F::from_u128(slot as u128), ids[slot]), (key, 0));
                ids[slot] = id + 1;
            }
            FactorTable::Hashed { slots, .. } => {
                debug_assert_eq!(slots[slot].1, EMPTY);
                slots[slot] = (key, id);
            }
        }
    }

    /// Empties `slot`, shifting later entries of its run back; `moved(id, slot)` hears where
    /// each shifted entry went, so holders of slot numbers stay right.
    #[inline]
    pub(crate) fn remove_at(&mut self, slot: usize, mut moved: impl FnMut(u32, usize)) {
        let (slots, shift) = match self {
            FactorTable::Direct(ids) => {
                ids[slot] = 0;
                return;
            }
            FactorTable::Hashed { slots, shift } => (slots, *shift),
        };
        let mask = slots.len() - 1;
        let mut hole = slot;
        let mut j = slot;
        loop {
            j = (j + 1) & mask;
            if slots[j].1 == EMPTY {
                break;
            }
            let home = home(slots[j].0, shift);
            // Move j into the hole when its home is not cyclically in (hole, j].
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                slots[hole] = slots[j];
                moved(slots[hole].1, hole);
                hole = j;
            }
        }
        slots[hole].1 = EMPTY;
    }

    /// The entry at `slot`, if it is occupied (for invariant checks).
    pub(crate) fn slot_holds(&self, slot: usize) -> Option<(F, u32)> {
        match self {
            FactorTable::Direct(ids) => ids
                .get(slot)
                .filter(|&&id| id != 0)
                .map(|&id| (F::from_u128(slot as u128), id - 1)),
            FactorTable::Hashed { slots, .. } => slots.get(slot).copied().filter(|e| e.1 != EMPTY),
        }
    }

    /// Whether `keys` keys fit (a hashed table stays at most half full).
    pub(crate) fn holds(&self, keys: usize) -> bool {
        match self {
            FactorTable::Direct(_) => true,
            FactorTable::Hashed { slots, .. } => slots.len() >= 2 * keys,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::WyRand;

    #[test]
    fn agrees_with_a_model_under_random_inserts_and_removes() {
        // Keys of 13 bits: indexed directly; of 17 bits: hashed.
        for bits in [13, 17] {
            agrees_with_a_model(FactorTable::<u64>::with_capacity(64, bits), |k| k);
        }
        // Keys of 100 bits that differ only in their high half: hashed by both halves.
        agrees_with_a_model(FactorTable::<u128>::with_capacity(64, 100), |k| (k as u128) << 64);
    }

    fn agrees_with_a_model<F: FactorBits>(mut t: FactorTable<F>, widen: impl Fn(u64) -> F) {
        let mut model = alloc::collections::BTreeMap::new();
        // Where each id sits, kept up to date through `moved`.
        let mut slot_of = alloc::collections::BTreeMap::new();
        let mut rng = WyRand::new(9);
        for step in 0..100_000u32 {
            // Small key space, so runs collide and wrap often.
            let key = widen(rng.below(100) as u64 * 64);
            match (t.find(key), model.len() < 64) {
                (Ok(id), _) => {
                    assert_eq!(model.remove(&key), Some(id));
                    let slot = slot_of.remove(&id).unwrap();
                    t.remove_at(slot, |moved, to| {
                        slot_of.insert(moved, to);
                    });
                }
                (Err(slot), true) => {
                    t.insert_at(slot, key, step);
                    model.insert(key, step);
                    slot_of.insert(step, slot);
                }
                (Err(_), false) => {}
            }
            assert_eq!(t.get(key), model.get(&key).copied());
        }
        for (k, v) in model {
            assert_eq!(t.get(k), Some(v));
            assert_eq!(t.slot_holds(slot_of[&v]), Some((k, v)));
        }
    }
}
