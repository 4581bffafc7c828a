//! Reductions after a flip: merges, and generalized flips of the groups a flip changed, found
//! by the walk (sampled groups) or by a scan (module docs of `walk`).

use super::*;

impl<S: FactorStore<Factor = F>, F: Word, const G: u8, P: Pairing> Warp<'_, S, G, P> {
    /// This lane's term in row `j` of a pass after a flip (seen from the flip's position),
    /// whether it is another than the flipped `t_slot` and `u_slot`, and which of the four
    /// changed groups (`keys`: x's factors at Q and R, then y's) it is in.
    #[inline(always)]
    pub(super) fn group_hits(
        &self,
        j: u32,
        rotation: [usize; 3],
        keys: [F; 4],
        t_slot: u32,
        u_slot: u32,
    ) -> (Term<F>, bool, [bool; 4]) {
        let s = j * 32 + self.lane;
        let z = self.term_from(s as usize, rotation);
        let other = s != t_slot && s != u_slot;
        (
            z,
            other,
            [z.b == keys[0], z.c == keys[1], z.b == keys[2], z.c == keys[3]],
        )
    }

    /// Which of the groups of three in `threes` (bits in the order of [`Warp::settle`]) may be
    /// dependent. A second pass over the terms (groups of three are rarer than flips) sums each
    /// group's factors, folded to 32 bits, at each position where a dependency can be new:
    /// both for a group that x or y joined, only the changed one for a group where it stayed
    /// (its other factors were there before the flip). A group of three is dependent exactly
    /// when such a sum is zero (two equal factors would be a merge, found before); a fold can
    /// only add false alarms, which the slow path's exact check clears.
    #[inline(always)]
    pub(super) fn dependent_threes(
        &self,
        t: usize,
        x: Term<F>,
        u: usize,
        y: Term<F>,
        rotation: [usize; 3],
        threes: u32,
    ) -> u32 {
        let keys = [x.b, x.c, y.b, y.c];
        let (t_slot, u_slot) = (t as u32, u as u32);
        let mut sums = [0u32; 6];
        for j in 0..self.k as u32 {
            let (z, other, hits) = self.group_hits(j, rotation, keys, t_slot, u_slot);
            let member = hits.map(|hit| if other && hit { u32::MAX } else { 0 });
            let (za, zb, zc) = (z.a.fold32(), z.b.fold32(), z.c.fold32());
            sums[0] ^= za & member[0];
            sums[1] ^= zc & member[0];
            sums[2] ^= zb & member[1];
            sums[3] ^= za & member[2];
            sums[4] ^= zc & member[2];
            sums[5] ^= zb & member[3];
        }
        // The others' sum equal to x's or y's own factor: the three sum to zero.
        let own = [x.a, x.c, x.b, y.a, y.c, y.b].map(Word::fold32);
        let mut dependent = 0;
        for ((sum, own), group) in sums.into_iter().zip(own).zip([0, 0, 1, 2, 2, 3]) {
            if threes & (1 << group) != 0 && warp::xor(sum) == own {
                dependent |= 1 << group;
            }
        }
        dependent
    }

    /// The slow path of [`Warp::settle`] for groups: reduces each of the four changed groups
    /// whose bit `check` sets (in the order of `settle`).
    #[inline(never)]
    pub(super) fn reduce_groups(
        &mut self,
        t: usize,
        u: usize,
        pos: Position,
        check: u32,
        work: &mut Work,
        before: u32,
    ) {
        let (q, r) = (pos.next(), pos.prev());
        for (i, (slot, at)) in [(t, q), (t, r), (u, q), (u, r)].into_iter().enumerate() {
            if check & (1 << i) != 0 && self.factor(0, slot) != F::ZERO {
                self.reduce_group(slot, at, work);
            }
        }
        self.reduce(work, before);
    }

    /// Runs a slow path on a copy of the warp: only the copy's address is taken, so the hot
    /// loop keeps its own warp in registers rather than in local memory.
    #[inline(always)]
    pub(super) fn outlined(&mut self, slow: impl FnOnce(&mut Self)) {
        let mut copy = *self;
        slow(&mut copy);
        *self = copy;
    }

    /// Takes every reduction the pending terms allow; `before` is the rank before the move.
    #[inline(never)]
    pub(super) fn reduce(&mut self, work: &mut Work, before: u32) {
        while let Some((slot, mask)) = work.pop() {
            let x = self.term(slot);
            if x.a == F::ZERO && x.b == F::ZERO && x.c == F::ZERO {
                continue;
            }
            if x.is_zero() {
                self.clear(slot);
                continue;
            }
            if Self::SYMMETRIC {
                if let Some((other, image)) = self.orbit_merge_partner(slot, x) {
                    self.merge(slot, other, image, x, work);
                }
                continue;
            }
            let scan = self.scan(slot, x);
            if let Some(other) = scan.merge {
                self.merge(slot, other, Element::IDENTITY, x, work);
                continue;
            }
            if self.p.policy.has(Switch::Generalized) {
                for pos in Position::ALL {
                    // Two others sharing the factor make a group of three to check.
                    if mask & (1 << pos.index()) != 0 && scan.sharing[pos.index()] >= 2 && self.term(slot).a != F::ZERO
                    {
                        self.reduce_group(slot, pos, work);
                    }
                }
            }
        }
        if self.st.reduced_from(before, &self.p) {
            self.save(self.global.best);
        }
    }

    /// One pass over the warp's terms against the term `x` at `slot`: a term sharing two
    /// factors with it (a merge), and how many others share each of its factors.
    pub(super) fn scan(&self, slot: usize, x: Term<F>) -> Scan {
        let mut out = Scan {
            merge: None,
            sharing: [0; 3],
        };
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            let y = self.term(s);
            let other = y.a != F::ZERO && s != slot;
            let eq = [y.a == x.a, y.b == x.b, y.c == x.c];
            let shared = eq[0] as u32 + eq[1] as u32 + eq[2] as u32;
            let hit = ballot(other && shared >= 2);
            if hit != 0 {
                out.merge = Some(j * 32 + hit.trailing_zeros() as usize);
                return out;
            }
            for (p, &e) in eq.iter().enumerate() {
                out.sharing[p] += ballot(other && e).count_ones();
            }
        }
        out
    }

    /// A representative that shares two factors with the representative `x` at `slot` in one
    /// of its images (a symmetric walk's merge), with the element of that image.
    pub(super) fn orbit_merge_partner(&self, slot: usize, x: Term<F>) -> Option<(usize, Element)> {
        let two = |y: Term<F>| (y.a == x.a) as u32 + (y.b == x.b) as u32 + (y.c == x.c) as u32 >= 2;
        let rotations = if Self::GROUP.rotates() { 3 } else { 1 };
        let reversals = if Self::GROUP.reverses() { 2 } else { 1 };
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            let y = self.term(s);
            let other = y.a != F::ZERO && s != slot;
            let mut found = None;
            for image in 0..rotations * reversals {
                let g = Element::new((image % rotations) as u8, image >= rotations);
                if found.is_none() && two(self.global.reversal.act(g, y)) {
                    found = Some(g);
                }
            }
            let hit = ballot(other && found.is_some());
            if hit != 0 {
                let lane = hit.trailing_zeros();
                let g = shuffle(found.map_or(0, Element::bits), lane);
                return Some((j * 32 + lane as usize, Element::from_bits(g)));
            }
        }
        None
    }

    /// Merges the term at `other`, seen through `g` (the identity but in a symmetric walk),
    /// into `x` at `slot`. A symmetric walk refuses a merge that leaves `X (x) X (x) X` under a
    /// rotating group, and clears one whose orbit cancels.
    pub(super) fn merge(&mut self, slot: usize, other: usize, g: Element, x: Term<F>, work: &mut Work) {
        let seen = if Self::SYMMETRIC {
            self.global.reversal.act(g, self.term(other))
        } else {
            self.term(other)
        };
        let merged = moves::merge(&x, &seen).unwrap_or_default();
        if Self::refused(merged) {
            return;
        }
        self.put(slot, merged);
        self.put(other, Term::default());
        self.log(log::MERGE, g.rotation as u32, slot, other, g.reversed as usize);
        self.st.rank -= Self::UNIT;
        self.tally.reductions += Self::UNIT;
        if merged.is_zero() || self.cancels(merged, Position::A) {
            self.clear(slot);
        } else {
            work.push(slot, ALL);
        }
    }

    /// The group of the terms whose factor at `pos` is `key`, spread over the lanes: lane `i`
    /// gets the slot of member `i` (in slot order) when `i` is below the count, returned too.
    pub(super) fn members(&self, pos: Position, key: F) -> (u32, usize) {
        let (mut n, mut mine) = (0, 0);
        for j in 0..self.k {
            let s = j * 32 + self.lane as usize;
            let hit = ballot(self.factor(0, s) != F::ZERO && self.factor(pos.index(), s) == key);
            if (n..n + hit.count_ones()).contains(&self.lane) {
                mine = j * 32 + nth_set_bit(hit, self.lane - n) as usize;
            }
            n += hit.count_ones();
        }
        (n, mine)
    }

    /// Reduces the group of `slot` at `pos` while it is dependent. Lane `i` holds member `i`;
    /// a dependent subset is found by subset XOR and a ballot for groups of up to
    /// [`MAX_SUBSET_GROUP`] terms (the preprint's method), by elimination across the lanes for
    /// larger ones (up to 32), and folded: repeated folds reach the rank optimum, since a group
    /// whose factors at Q and at R are both independent cannot lose a term.
    pub(super) fn reduce_group(&mut self, slot: usize, pos: Position, work: &mut Work) {
        loop {
            let key = self.factor(pos.index(), slot);
            if key == F::ZERO {
                return;
            }
            let (n, mine) = self.members(pos, key);
            if !(3..=32).contains(&n) {
                return;
            }
            let own = if self.lane < n {
                self.term(mine)
            } else {
                Term::default()
            };
            let found = if n as usize <= MAX_SUBSET_GROUP {
                subset_dependency(own, n, pos)
            } else {
                eliminated_dependency(own, n, pos)
            };
            let Some((subset, along)) = found else { return };
            self.fold(subset, along, own, mine, pos, work);
            self.tally.generalized += 1;
        }
    }

    /// Folds the last member of the dependent `subset` into the others by flips (as core's
    /// reference `generalized_flip_subsets` does, one flip per lane at once), which zeroes it;
    /// each lane changes its own member.
    pub(super) fn fold(
        &mut self,
        subset: u32,
        along: Position,
        own: Term<F>,
        mine: usize,
        pos: Position,
        work: &mut Work,
    ) {
        let last = 31 - subset.leading_zeros();
        let folded = shuffle(mine as u32, last) as usize;
        let gone = self.term(folded);
        let keeper = self.lane != last && subset & (1 << self.lane) != 0;
        // Along Q: flip(keep = member, other = last); along R the dual. Either way the
        // member's copy `x` holds its new value.
        let (mut x, mut y) = (own, gone);
        if along == pos.next() {
            moves::flip(&mut x, &mut y, pos);
        } else {
            moves::flip(&mut y, &mut x, pos);
        }
        if keeper {
            for (p, f) in x.factors().into_iter().enumerate() {
                // SAFETY: as in `factor`; each lane writes its own member's slot.
                unsafe { self.smem.write(factor_index(self.p.cap, p, mine), f) };
            }
        }
        warp::sync();
        let mut rest = subset & !(1 << last);
        while rest != 0 {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            let member = shuffle(mine as u32, i) as usize;
            self.pairing.changed(member, self.lane);
            let (keep, other) = if along == pos.next() {
                (member, folded)
            } else {
                (folded, member)
            };
            self.log(log::FLIP, pos as u32, keep, other, 0);
            work.push(member, ALL);
        }
        self.clear(folded);
        // A member left zero (it shared two factors with the folded one) goes too.
        let mut zero = ballot(keeper && x.is_zero());
        while zero != 0 {
            let i = zero.trailing_zeros();
            zero &= zero - 1;
            self.clear(shuffle(mine as u32, i) as usize);
        }
    }

    /// A generalized flip on the group of lanes that the lowest lane of `leaders` leads in a
    /// match (`same`: each lane's match mask, `slot`: its sampled slot), when dependent: the
    /// preprint's subset XOR on the members the match sampled, which the fold's reductions then
    /// settle. The match compared 32-bit folds: members are confirmed on the full factor.
    #[inline(never)]
    pub(super) fn reduce_sampled(&mut self, leaders: u32, same: u32, slot: usize, pos: Position, work: &mut Work) {
        let before = self.st.rank;
        let leader = leaders.trailing_zeros();
        let key = self.factor(pos.index(), shuffle(slot as u32, leader) as usize);
        let members = ballot(same & (1 << leader) != 0 && self.factor(pos.index(), slot) == key);
        let n = members.count_ones();
        if n < 3 {
            return;
        }
        let mine = shuffle(slot as u32, nth_set_bit(members, self.lane.min(n - 1))) as usize;
        let own = if self.lane < n {
            self.term(mine)
        } else {
            Term::default()
        };
        let Some((subset, along)) = subset_dependency(own, n, pos) else {
            return;
        };
        self.fold(subset, along, own, mine, pos, work);
        self.tally.generalized += 1;
        self.reduce(work, before);
    }
}

/// A dependent subset of the group (lane `i` holds member `i` of `n` <= 5) by the preprint's
/// method: lane `l` sums the factors of subset `l + 1` at Q and at R, and a ballot finds the
/// smallest subset that sums to zero. Returns it (a mask over members) and its position.
pub(super) fn subset_dependency<F: Word>(own: Term<F>, n: u32, pos: Position) -> Option<(u32, Position)> {
    let subset = warp::lane_id() + 1;
    let valid = subset < (1 << n);
    let (q, r) = (pos.next(), pos.prev());
    let (mut sq, mut sr) = (F::ZERO, F::ZERO);
    for i in 0..n {
        let (fq, fr) = (own.get(q).shuffle(i), own.get(r).shuffle(i));
        if subset & (1 << i) != 0 {
            sq ^= fq;
            sr ^= fr;
        }
    }
    let dep_q = ballot(valid && sq == F::ZERO);
    let dep_r = ballot(valid && sr == F::ZERO);
    match (dep_q, dep_r) {
        (0, 0) => None,
        (0, hits) => Some((hits.trailing_zeros() + 1, r)),
        (hits, _) => Some((hits.trailing_zeros() + 1, q)),
    }
}

/// A dependent subset of a larger group (lane `i` holds member `i` of `n` <= 32) by Gaussian
/// elimination across the lanes: member `i` in turn is broadcast; zero, it closes a dependent
/// subset (tracked as a mask); else the later members clear its leading bit.
pub(super) fn eliminated_dependency<F: Word>(own: Term<F>, n: u32, pos: Position) -> Option<(u32, Position)> {
    let lane = warp::lane_id();
    for along in [pos.next(), pos.prev()] {
        let mut v = if lane < n { own.get(along) } else { F::ZERO };
        let mut mask = 1u32 << lane;
        for i in 0..n {
            let (vi, mi) = (v.shuffle(i), shuffle(mask, i));
            if vi == F::ZERO {
                return Some((mi, along));
            }
            if lane > i && v.test(vi.leading_bit()) {
                v ^= vi;
                mask ^= mi;
            }
        }
    }
    None
}
