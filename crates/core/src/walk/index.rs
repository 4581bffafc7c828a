//! The index of a walk: from a factor value to the entries holding it, grouped, and the list
//! of groups with two or more entries (where the flips are), so that a step is O(1) expected.
//!
//! An entry is one factor of one slot: entry `4 * slot + k` for factor `k` ([`entry`]; a
//! stride of four, so that no step divides by three). The plain walk's
//! slots are terms and keeps a table per position (`k` is the position: only factors at one
//! position flip together); a symmetric walk's slots are free orbits, with one table for all
//! three factors where its group has the rotation (which brings each factor to every
//! position) and a table per position where it has not. A group's entries
//! form a doubly linked list through the entries.

use alloc::vec::Vec;

use super::table::FactorTable;
use crate::rng::WyRand;
use crate::term::FactorBits;

/// No entry or group.
pub(crate) const NONE: u32 = u32::MAX;

/// The entry of factor `k` (0, 1 or 2) of slot `slot`.
#[inline(always)]
pub(crate) const fn entry(slot: u32, k: usize) -> u32 {
    slot << 2 | k as u32
}

/// The slot of entry `e`.
#[inline(always)]
pub(crate) const fn slot_of(e: u32) -> u32 {
    e >> 2
}

/// The factor (0, 1 or 2) of entry `e`.
#[inline(always)]
pub(crate) const fn factor_of(e: u32) -> usize {
    (e & 3) as usize
}

/// Puts `value` at the slot of `storage` (a walk's terms or orbits, by slot) that
/// [`Index::add`] returned as `added`: a new slot grows the storage by one, a reused one is
/// overwritten. Returns the slot.
#[inline]
pub(crate) fn store<T>(storage: &mut Vec<T>, (slot, new): (u32, bool), value: T) -> u32 {
    if new {
        debug_assert_eq!(storage.len(), slot as usize, "a new slot is the next one");
        storage.push(value);
    } else {
        storage[slot as usize] = value;
    }
    slot
}

/// An entry's place in its group: a doubly linked list.
#[derive(Clone, Copy, Debug)]
struct Link {
    group: u32,
    prev: u32,
    next: u32,
}

/// The entries that share one factor value (in one table).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Group<F = u64> {
    pub(crate) key: F,
    /// Where the group's entry sits in its table.
    slot: u32,
    pub(crate) head: u32,
    pub(crate) count: u32,
    /// Index in `Index::multi` while `count >= 2`.
    multi_slot: u32,
}

/// The live slots and factor value to entries, with `TABLES` (1 or 3) tables.
#[derive(Clone, Debug)]
pub(crate) struct Index<const TABLES: usize, F = u64> {
    /// The live slots, in no order.
    live: Vec<u32>,
    /// Each slot's place in `live`, or NONE for a dead slot (dead slots are reused).
    live_at: Vec<u32>,
    free_slots: Vec<u32>,
    tables: [FactorTable<F>; TABLES],
    /// By entry.
    links: Vec<Link>,
    groups: Vec<Group<F>>,
    free_groups: Vec<u32>,
    /// Groups with two or more entries.
    multi: Vec<u32>,
}

impl<const TABLES: usize, F: FactorBits> Index<TABLES, F> {
    /// An index for about `slots` slots and `keys` values per table of `bits` bits each.
    pub(crate) fn new(slots: usize, keys: usize, bits: [usize; TABLES]) -> Self {
        const { assert!(TABLES == 1 || TABLES == 3) };
        Index {
            live: Vec::with_capacity(slots),
            live_at: Vec::with_capacity(slots),
            free_slots: Vec::new(),
            tables: bits.map(|b| FactorTable::with_capacity(keys, b)),
            links: Vec::with_capacity(4 * slots),
            groups: Vec::with_capacity(TABLES * keys),
            free_groups: Vec::new(),
            multi: Vec::with_capacity(TABLES * keys),
        }
    }

    /// The table of entry `e`.
    #[inline(always)]
    fn table(e: u32) -> usize {
        if TABLES == 1 {
            0
        } else {
            factor_of(e)
        }
    }

    /// The live slots, in no order.
    #[inline]
    pub(crate) fn live(&self) -> &[u32] {
        &self.live
    }

    /// Whether slot `slot` is live.
    #[inline]
    pub(crate) fn is_live(&self, slot: u32) -> bool {
        self.live_at[slot as usize] != NONE
    }

    /// A live slot whose three factors are `keys`, each in its group; returns the slot and
    /// whether it is new (the caller's storage grows by one) rather than a dead one reused.
    pub(crate) fn add(&mut self, keys: [F; 3]) -> (u32, bool) {
        let (slot, new) = match self.free_slots.pop() {
            Some(slot) => (slot, false),
            None => {
                let link = Link {
                    group: NONE,
                    prev: NONE,
                    next: NONE,
                };
                // The fourth entry of a slot is unused.
                self.links.extend([link; 4]);
                self.live_at.push(NONE);
                (self.live_at.len() as u32 - 1, true)
            }
        };
        self.live_at[slot as usize] = self.live.len() as u32;
        self.live.push(slot);
        for (k, key) in keys.into_iter().enumerate() {
            self.attach(entry(slot, k), key);
        }
        (slot, new)
    }

    /// Takes slot `slot`'s entries out of their groups; the slot is dead and will be reused.
    pub(crate) fn remove(&mut self, slot: u32) {
        for k in 0..3 {
            self.detach(entry(slot, k));
        }
        let at = self.live_at[slot as usize] as usize;
        let last = self.live.pop().expect("a live slot");
        if last != slot {
            self.live[at] = last;
            self.live_at[last as usize] = at as u32;
        }
        self.live_at[slot as usize] = NONE;
        self.free_slots.push(slot);
    }

    /// The group of entry `e`.
    #[inline]
    pub(crate) fn group_of(&self, e: u32) -> Group<F> {
        self.groups[self.links[e as usize].group as usize]
    }

    /// The entry after `e` in its group's list, or [`NONE`].
    #[inline]
    pub(crate) fn next(&self, e: u32) -> u32 {
        self.links[e as usize].next
    }

    /// The entries of `g`, in list order.
    pub(crate) fn entries(&self, g: Group<F>) -> impl Iterator<Item = u32> + '_ {
        let live = |e: u32| (e != NONE).then_some(e);
        core::iter::successors(live(g.head), move |&e| live(self.next(e)))
    }

    /// Whether some group has two or more entries.
    #[inline]
    pub(crate) fn has_flips(&self) -> bool {
        !self.multi.is_empty()
    }

    /// A random group of two or more entries and two distinct entries of it, in random order.
    #[inline]
    pub(crate) fn random_pair(&self, rng: &mut WyRand) -> (u32, u32) {
        let g = self.groups[self.multi[rng.below(self.multi.len())] as usize];
        if g.count == 2 {
            // The common case: the pair is the group.
            let (head, next) = (g.head, self.next(g.head));
            return if rng.bits() & 1 == 0 {
                (head, next)
            } else {
                (next, head)
            };
        }
        let (i, j) = rng.distinct_pair(g.count as usize);
        (self.member(g, i), self.member(g, j))
    }

    /// The `k`-th entry of `g`'s list.
    fn member(&self, g: Group<F>, k: usize) -> u32 {
        let mut e = g.head;
        for _ in 0..k {
            e = self.next(e);
        }
        e
    }

    /// The group of `key` in table `table`, if any entry holds it.
    pub(crate) fn find(&self, table: usize, key: F) -> Option<Group<F>> {
        self.tables[table].find(key).ok().map(|g| self.groups[g as usize])
    }

    /// Moves entry `e` to the group of `value`; returns that group's size.
    #[inline]
    pub(crate) fn rekey(&mut self, e: u32, value: F) -> u32 {
        let p = Self::table(e);
        let g = self.links[e as usize].group;
        if self.groups[g as usize].count == 1 {
            // The common case of a flip: an entry alone with its old value gets a value that no
            // other entry has. Its group is re-keyed in place: one probe, no relinking.
            if let Err(free) = self.tables[p].find(value) {
                let (tables, groups) = (&mut self.tables, &mut self.groups);
                tables[p].insert_at(free, value, g);
                let old = groups[g as usize].slot as usize;
                groups[g as usize].slot = free as u32;
                tables[p].remove_at(old, |id, to| groups[id as usize].slot = to as u32);
                groups[g as usize].key = value;
                return 1;
            }
        }
        self.detach(e);
        self.attach(e, value)
    }

    /// Puts entry `e` (in no group) into the group of `key`; returns the group's size.
    fn attach(&mut self, e: u32, key: F) -> u32 {
        let p = Self::table(e);
        let g = match self.tables[p].find(key) {
            Ok(g) => g,
            Err(free) => {
                let group = Group {
                    key,
                    slot: free as u32,
                    head: NONE,
                    count: 0,
                    multi_slot: NONE,
                };
                let g = match self.free_groups.pop() {
                    Some(g) => {
                        self.groups[g as usize] = group;
                        g
                    }
                    None => {
                        self.groups.push(group);
                        (self.groups.len() - 1) as u32
                    }
                };
                self.tables[p].insert_at(free, key, g);
                g
            }
        };
        let group = &mut self.groups[g as usize];
        let head = group.head;
        group.head = e;
        group.count += 1;
        let count = group.count;
        self.links[e as usize] = Link {
            group: g,
            prev: NONE,
            next: head,
        };
        if head != NONE {
            self.links[head as usize].prev = e;
        }
        if count == 2 {
            self.groups[g as usize].multi_slot = self.multi.len() as u32;
            self.multi.push(g);
        }
        count
    }

    /// Takes entry `e` out of its group.
    fn detach(&mut self, e: u32) {
        let Link { group: g, prev, next } = self.links[e as usize];
        if prev != NONE {
            self.links[prev as usize].next = next;
        } else {
            self.groups[g as usize].head = next;
        }
        if next != NONE {
            self.links[next as usize].prev = prev;
        }
        let group = &mut self.groups[g as usize];
        group.count -= 1;
        match group.count {
            1 => {
                let slot = group.multi_slot as usize;
                let last = self.multi.pop().expect("a multi group");
                if last != g {
                    self.multi[slot] = last;
                    self.groups[last as usize].multi_slot = slot as u32;
                }
            }
            0 => {
                let slot = group.slot as usize;
                let groups = &mut self.groups;
                self.tables[Self::table(e)].remove_at(slot, |id, to| groups[id as usize].slot = to as u32);
                self.free_groups.push(g);
            }
            _ => {}
        }
    }

    /// Checks that entry `e` sits in the group of `key`, found by its table; returns the
    /// group's size for the caller to count. Panics with the broken invariant. For tests.
    pub(crate) fn check_entry(&self, e: u32, key: F) -> u32 {
        let id = self.links[e as usize].group;
        let g = self.groups[id as usize];
        let table = &self.tables[Self::table(e)];
        assert_eq!(g.key, key, "entry {e} is in the wrong group");
        assert_eq!(table.find(key), Ok(id));
        assert_eq!(table.slot_holds(g.slot as usize), Some((key, id)), "stale slot");
        assert_eq!(g.count >= 2, self.multi.contains(&id), "the multi list");
        g.count
    }

    /// Checks that the index holds `keys` groups, and each table has room for `per_table`
    /// keys. Panics with the broken invariant. For tests.
    pub(crate) fn check_groups(&self, keys: usize, per_table: usize) {
        assert_eq!(self.groups.len() - self.free_groups.len(), keys, "groups");
        assert!(self.tables.iter().all(|t| t.holds(per_table)), "a table is too full");
    }
}
