//! An open-addressing hash table from a factor value to a group id (linear probing with
//! backward-shift deletion, so no tombstones pile up during a walk of billions of steps).

use alloc::vec;
use alloc::vec::Vec;

use crate::term::Factor;

/// A free slot.
const EMPTY: u32 = u32::MAX;

/// Factor value to group id, for one position.
#[derive(Clone, Debug)]
pub(super) struct FactorTable {
    /// `(key, group id)`; one slot is one load.
    slots: Vec<(Factor, u32)>,
    shift: u32,
}

impl FactorTable {
    /// A table for up to `capacity` keys (kept at most half full).
    pub(super) fn with_capacity(capacity: usize) -> FactorTable {
        let slots = (capacity.max(8) * 2).next_power_of_two();
        FactorTable {
            slots: vec![(0, EMPTY); slots],
            shift: 64 - slots.trailing_zeros(),
        }
    }

    #[inline(always)]
    fn home(&self, key: Factor) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The group id of `key`, if present.
    #[inline]
    pub(super) fn get(&self, key: Factor) -> Option<u32> {
        let mut i = self.home(key);
        loop {
            let (k, id) = self.slots[i];
            if id == EMPTY {
                return None;
            }
            if k == key {
                return Some(id);
            }
            i = (i + 1) & self.mask();
        }
    }

    /// Inserts `key` (which must be absent).
    #[inline]
    pub(super) fn insert(&mut self, key: Factor, id: u32) {
        let mut i = self.home(key);
        while self.slots[i].1 != EMPTY {
            i = (i + 1) & self.mask();
        }
        self.slots[i] = (key, id);
    }

    /// Removes `key` (which must be present), shifting later entries of its run back.
    #[inline]
    pub(super) fn remove(&mut self, key: Factor) {
        let mask = self.mask();
        let mut i = self.home(key);
        while self.slots[i].0 != key || self.slots[i].1 == EMPTY {
            i = (i + 1) & mask;
        }
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            if self.slots[j].1 == EMPTY {
                break;
            }
            let home = self.home(self.slots[j].0);
            // Move j into the hole when its home is not cyclically in (hole, j].
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.slots[hole] = self.slots[j];
                hole = j;
            }
        }
        self.slots[hole].1 = EMPTY;
    }

    /// Number of slots (twice the capacity at least).
    pub(super) fn slots(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::WyRand;

    #[test]
    fn agrees_with_a_model_under_random_inserts_and_removes() {
        let mut t = FactorTable::with_capacity(64);
        let mut model = alloc::collections::BTreeMap::new();
        let mut rng = WyRand::new(9);
        for step in 0..100_000u32 {
            // Small key space, so runs collide and wrap often.
            let key = rng.below(100) as u64 * 64;
            match (model.contains_key(&key), model.len() < 64) {
                (true, _) => {
                    assert_eq!(t.get(key), model.remove(&key));
                    t.remove(key);
                }
                (false, true) => {
                    t.insert(key, step);
                    model.insert(key, step);
                }
                (false, false) => {}
            }
            assert_eq!(t.get(key), model.get(&key).copied());
        }
        for (k, v) in model {
            assert_eq!(t.get(k), Some(v));
        }
    }
}
