//! The orbit moves of a [`SymmetricScheme`]: flip, plus, merge, generalized flip, and the
//! cube moves; each keeps the scheme invariant and its tensor.

use super::*;

impl SymmetricScheme {
    fn orbit(&self, orbit: usize) -> Result<Orbit, MoveError> {
        self.orbits.get(orbit).copied().ok_or(MoveError::NoOrbit { orbit })
    }

    /// The term `at` of a triple orbit.
    fn triple_term(&self, at: OrbitTerm) -> Result<Term, MoveError> {
        let o = self.orbit(at.orbit)?;
        match o.kind() {
            OrbitKind::Triple => Ok(o.term(at.rotation)),
            OrbitKind::Fixed => Err(MoveError::Fixed { orbit: at.orbit }),
        }
    }

    /// The fixed factor of a fixed orbit.
    fn fixed_factor(&self, orbit: usize) -> Result<Factor, MoveError> {
        let o = self.orbit(orbit)?;
        match o.kind() {
            OrbitKind::Fixed => Ok(o.representative().a),
            OrbitKind::Triple => Err(MoveError::NotFixed { orbit }),
        }
    }

    /// Removes the orbits of `indices` that became zero (the others keep their order).
    fn settle(&mut self, indices: &mut [usize]) {
        indices.sort_unstable_by(|x, y| y.cmp(x));
        for (k, &i) in indices.iter().enumerate() {
            if k > 0 && indices[k - 1] == i {
                continue;
            }
            if self.orbits[i].is_zero() {
                self.orbits.remove(i);
            }
        }
    }

    /// The orbit flip: [`moves::flip`] at A between `keep` and `other` (terms of distinct
    /// triples sharing their first factor), with its images. An orbit that becomes zero is
    /// removed (later orbits move down one index); one that becomes `X^3` is fixed.
    pub fn flip(&mut self, keep: OrbitTerm, other: OrbitTerm) -> Result<(), MoveError> {
        let (mut t, mut u) = (self.triple_term(keep)?, self.triple_term(other)?);
        if keep.orbit == other.orbit {
            return Err(MoveError::SameOrbit { orbit: keep.orbit });
        }
        if t.a != u.a {
            return Err(MoveError::NoSharedFactor);
        }
        moves::flip(&mut t, &mut u, Position::A);
        self.orbits[keep.orbit] = Orbit::new(t);
        self.orbits[other.orbit] = Orbit::new(u);
        self.settle(&mut [keep.orbit, other.orbit]);
        Ok(())
    }

    /// The orbit plus move: [`moves::plus`] at A reading `reader` (a term of any orbit but
    /// `target`'s, a fixed term included) and splitting `target` (a term of a triple) into
    /// `u'` (kept at `target`'s index) and `v` (a new orbit at the end), with its images:
    /// three terms more, less what settling removes.
    pub fn plus(&mut self, reader: OrbitTerm, target: OrbitTerm) -> Result<(), MoveError> {
        let t = self.orbit(reader.orbit)?.term(reader.rotation);
        let u = self.triple_term(target)?;
        if reader.orbit == target.orbit {
            return Err(MoveError::SameOrbit { orbit: reader.orbit });
        }
        if t.a == u.a {
            return Err(MoveError::SharedFactor);
        }
        let (changed, added) = moves::plus(&t, &u, Position::A);
        self.orbits[target.orbit] = Orbit::new(changed);
        self.orbits.push(Orbit::new(added));
        Ok(())
    }

    /// The orbit reduction: [`moves::merge`] of `into` and `from` (terms of distinct triples
    /// sharing two factors), with its images. The merged orbit replaces `into` (removed if
    /// zero) and `from` is removed.
    pub fn merge(&mut self, into: OrbitTerm, from: OrbitTerm) -> Result<(), MoveError> {
        let (t, u) = (self.triple_term(into)?, self.triple_term(from)?);
        if into.orbit == from.orbit {
            return Err(MoveError::SameOrbit { orbit: into.orbit });
        }
        let merged = moves::merge(&t, &u).ok_or(MoveError::NotMergeable)?;
        self.orbits[into.orbit] = Orbit::new(merged);
        self.orbits[from.orbit] = Orbit::new(Term::default());
        self.settle(&mut [into.orbit, from.orbit]);
        Ok(())
    }

    /// The orbit generalized flip: the terms of `group` (of distinct triples, all sharing their
    /// first factor) rewritten to the fewest by [`moves::generalized_flip_rank`], with the
    /// images. Orbits that become zero are removed. Returns how much the rank dropped.
    pub fn generalized_flip(&mut self, group: &[OrbitTerm]) -> Result<usize, MoveError> {
        if group.len() < 2 {
            return Err(MoveError::GroupTooSmall);
        }
        let mut terms = Vec::with_capacity(group.len());
        for (k, &at) in group.iter().enumerate() {
            let t = self.triple_term(at)?;
            if let Some(same) = group[..k].iter().find(|g| g.orbit == at.orbit) {
                return Err(MoveError::SameOrbit { orbit: same.orbit });
            }
            if t.a != terms.first().map_or(t.a, |f: &Term| f.a) {
                return Err(MoveError::NoSharedFactor);
            }
            terms.push(t);
        }
        if !moves::group_is_reducible(&terms, Position::A) {
            return Err(MoveError::NotReducible);
        }
        let before = self.rank();
        moves::generalized_flip_rank(&mut terms, Position::A);
        for (at, t) in group.iter().zip(terms) {
            self.orbits[at.orbit] = Orbit::new(t);
        }
        let mut indices: Vec<usize> = group.iter().map(|g| g.orbit).collect();
        self.settle(&mut indices);
        Ok(before - self.rank())
    }

    /// The triple of `x (x) y (x) z` with `x + y + z = 0` becomes the three fixed terms `x^3`,
    /// `y^3`, `z^3` (rank unchanged): `x^3` at the triple's index, the others at the end.
    pub fn to_cubes(&mut self, orbit: usize) -> Result<(), MoveError> {
        let t = self.triple_term(OrbitTerm::new(orbit, 0))?;
        if t.a ^ t.b ^ t.c != 0 {
            return Err(MoveError::NotCubes { orbit });
        }
        self.orbits[orbit] = Orbit::fixed(t.a);
        self.orbits.push(Orbit::fixed(t.b));
        self.orbits.push(Orbit::fixed(t.c));
        Ok(())
    }

    /// Two distinct fixed terms `x^3 + y^3` become the triple of `x (x) y (x) (x + y)` (at
    /// `x`'s index) and the fixed term `(x + y)^3` (at `y`'s): two terms more.
    pub fn from_cubes(&mut self, x: usize, y: usize) -> Result<(), MoveError> {
        let (fx, fy) = (self.fixed_factor(x)?, self.fixed_factor(y)?);
        if x == y {
            return Err(MoveError::SameOrbit { orbit: x });
        }
        if fx == fy {
            return Err(MoveError::EqualCubes);
        }
        self.orbits[x] = Orbit::new(Term::new(fx, fy, fx ^ fy));
        self.orbits[y] = Orbit::fixed(fx ^ fy);
        Ok(())
    }

    /// Takes every reduction until none is left: equal fixed terms cancel, triples merge,
    /// and a triple whose factors sum to zero becomes fixed terms when one of them cancels.
    /// A reference implementation, quadratic in the number of orbits (the walk keeps an
    /// index). Returns how much the rank dropped.
    pub fn reduce(&mut self) -> usize {
        let before = self.rank();
        while self.cancel_fixed() || self.merge_any() || self.cubes_any() {}
        before - self.rank()
    }

    /// Removes one pair of equal fixed terms, if any.
    fn cancel_fixed(&mut self) -> bool {
        let fixed = |o: &Orbit| o.kind() == OrbitKind::Fixed;
        for i in 0..self.orbits.len() {
            if !fixed(&self.orbits[i]) {
                continue;
            }
            if let Some(j) = (i + 1..self.orbits.len()).find(|&j| self.orbits[j] == self.orbits[i]) {
                self.orbits.remove(j);
                self.orbits.remove(i);
                return true;
            }
        }
        false
    }

    /// Takes one merge of two triples, if any.
    fn merge_any(&mut self) -> bool {
        let n = self.orbits.len();
        for i in 0..n {
            for j in (i + 1)..n {
                for k in 0..3 {
                    let (into, from) = (OrbitTerm::new(i, 0), OrbitTerm::new(j, k));
                    if self.merge(into, from).is_ok() {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Takes one cube reduction (a triple whose factors sum to zero and one of whose factors is
    /// a fixed term), if any.
    fn cubes_any(&mut self) -> bool {
        let present = |s: &Self, x: Factor| s.orbits.contains(&Orbit::fixed(x));
        for i in 0..self.orbits.len() {
            let t = self.orbits[i].representative();
            if self.orbits[i].kind() == OrbitKind::Triple
                && t.a ^ t.b ^ t.c == 0
                && t.factors().iter().any(|&x| present(self, x))
            {
                self.to_cubes(i).expect("a triple whose factors sum to zero");
                return true;
            }
        }
        false
    }
}
