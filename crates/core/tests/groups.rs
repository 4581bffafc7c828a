//! The symmetry groups: every element keeps the tensor of every shape it acts on, the naive
//! scheme is invariant under each, orbits round-trip to the scheme, schemes that are not
//! invariant are refused, and orbit flips through any elements keep invariance and the tensor
//! (the moves the symmetric GPU walks take and the self-test replays).

use flipgraph_core::device::log;
use flipgraph_core::group::{invariant_groups, is_invariant, orbits, Element, Group, Orbits, OrbitsError, Reversal};
use flipgraph_core::moves;
use flipgraph_core::rng::WyRand;
use flipgraph_core::verify::verify;
use flipgraph_core::walk::{Walk, WalkConfig, Walker};
use flipgraph_core::{Position, Scheme, Shape, Term};
use proptest::prelude::*;

fn shape() -> impl Strategy<Value = Shape> {
    (1usize..=6, 1usize..=6, 1usize..=6).prop_map(|(n, m, p)| Shape::new(n, m, p).unwrap())
}

/// The terms sorted: a multiset to compare.
fn sorted(terms: &[Term]) -> Vec<Term> {
    let mut t = terms.to_vec();
    t.sort();
    t
}

/// Random orbit flips on `orbits`: two free representatives seen through random elements
/// flip at A when they share that factor, and the results stay (when free) or their orbits
/// go (when zero). Returns the flips taken.
fn orbit_flips(o: &mut Orbits, rng: &mut WyRand, tries: usize) -> usize {
    let reversal = Reversal::of(o.shape);
    let elements: Vec<Element> = o.group.elements().collect();
    let mut taken = 0;
    for _ in 0..tries {
        let n = o.free.len();
        if n < 2 {
            break;
        }
        let (i, j) = (rng.below(n), rng.below(n));
        let (g, h) = (elements[rng.below(elements.len())], elements[rng.below(elements.len())]);
        let (mut x, mut y) = (reversal.act(g, o.free[i]), reversal.act(h, o.free[j]));
        if i == j || x.a != y.a {
            continue;
        }
        moves::flip(&mut x, &mut y, Position::A);
        let keeps = |t: Term| t.is_zero() || reversal.is_free(o.group, t);
        if !keeps(x) || !keeps(y) {
            continue;
        }
        (o.free[i], o.free[j]) = (x, y);
        o.free.retain(|t| !t.is_zero());
        taken += 1;
    }
    taken
}

#[test]
fn the_groups_have_their_orders_and_names() {
    for g in Group::ALL {
        assert_eq!(g.elements().count(), g.order());
        assert_eq!(g.elements().next(), Some(Element::IDENTITY));
        assert_eq!(Group::from_name(g.name()), Some(g));
        assert_eq!(Group::from_index(g.index()), g);
        for e in g.elements() {
            assert_eq!(Element::from_bits(e.bits()), e);
        }
    }
    assert_eq!([1, 3, 2, 6], Group::ALL.map(Group::order));
    let rect = Shape::new(3, 4, 5).unwrap();
    assert!(Group::Z2.acts_on(rect) && !Group::C3.acts_on(rect) && !Group::C6.acts_on(rect));
}

#[test]
fn a_rectangular_scheme_refuses_the_rotation_and_a_broken_orbit_is_named() {
    let rect = Scheme::naive(Shape::new(2, 3, 4).unwrap());
    assert_eq!(
        orbits(Group::C3, &rect),
        Err(OrbitsError::NotActing {
            group: Group::C3,
            shape: rect.shape()
        })
    );
    assert_eq!(invariant_groups(&rect), [Group::Trivial, Group::Z2]);
    // Term 0 of the naive 2x3x4 (a_00 b_00 c_00) reversed is the last entry's term: drop it.
    let mut terms = rect.terms().to_vec();
    let image = Reversal::of(rect.shape()).term(terms[0]);
    terms.retain(|&t| t != image);
    let broken = Scheme::new(rect.shape(), terms).unwrap();
    assert_eq!(
        orbits(Group::Z2, &broken),
        Err(OrbitsError::NotInvariant {
            group: Group::Z2,
            term: 0,
            image
        })
    );
}

#[test]
fn zero_terms_are_left_out_of_the_orbits() {
    let naive = Scheme::naive(Shape::square(3).unwrap());
    let mut terms = naive.terms().to_vec();
    // (0, x, y) contributes nothing; its rotations are not in the scheme.
    terms.push(Term::new(0, 1, 2));
    let padded = Scheme::new(naive.shape(), terms).unwrap();
    for group in [Group::C3, Group::Z2, Group::C6] {
        let o = orbits(group, &padded).unwrap();
        assert_eq!(o.rank(), 27, "{group}");
        assert_eq!(sorted(o.to_scheme().unwrap().terms()), sorted(naive.terms()), "{group}");
    }
    assert!(flipgraph_core::symmetry::is_c3_invariant(&padded));
}

#[test]
fn the_naive_6x6x6_has_free_orbits_of_six_and_its_diagonal_cubes_pair_up() {
    let six = Scheme::naive(Shape::square(6).unwrap());
    assert_eq!(invariant_groups(&six), Group::ALL);
    let o = orbits(Group::C6, &six).unwrap();
    // The cubes e_ii^3 (6 of them) pair up under the reversal: orbits of two, kept apart.
    assert_eq!(o.fixed.len(), 6);
    assert!(o.fixed.iter().all(Term::is_cube));
    assert_eq!(o.free.len(), (216 - 6) / 6);
    assert_eq!(o.rank(), 216);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every element of every group acting on the shape maps a valid scheme to a valid one, and
    /// the naive scheme onto itself.
    #[test]
    fn every_element_keeps_the_tensor(shape in shape(), seed in any::<u64>()) {
        let naive = Scheme::naive(shape);
        // A scheme with little structure left: the naive one after a short plain walk.
        let mut walker = Walker::new(&naive, WalkConfig::default(), seed);
        walker.walk(200, 0);
        let walked = walker.scheme().into_terms();
        let reversal = Reversal::of(shape);
        for group in Group::ALL.into_iter().filter(|g| g.acts_on(shape)) {
            prop_assert!(is_invariant(group, &naive));
            for g in group.elements() {
                let image: Vec<Term> = walked.iter().map(|&t| reversal.act(g, t)).collect();
                prop_assert_eq!(verify(&Scheme::new(shape, image).unwrap()), Ok(()));
                let naive_image: Vec<Term> = naive.terms().iter().map(|&t| reversal.act(g, t)).collect();
                prop_assert_eq!(sorted(&naive_image), sorted(naive.terms()));
            }
        }
        prop_assert_eq!(reversal.term(reversal.term(walked[0])), walked[0]);
    }

    /// Orbit flips through any elements keep the scheme valid and invariant, and its orbits
    /// round-trip: the scheme rebuilt from them is the scheme, term for term as a multiset.
    #[test]
    fn orbit_flips_keep_invariance_and_the_tensor(n in 2usize..=5, m in 2usize..=5, p in 2usize..=5, seed in any::<u64>()) {
        let mut rng = WyRand::new(seed);
        let rect = Shape::new(n, m, p).unwrap();
        let square = Shape::square(n).unwrap();
        let mut taken = 0;
        for (group, shape) in [(Group::Z2, rect), (Group::C3, square), (Group::C6, square)] {
            let mut o = orbits(group, &Scheme::naive(shape)).unwrap();
            taken += orbit_flips(&mut o, &mut rng, 400);
            let scheme = o.to_scheme().unwrap();
            prop_assert_eq!(verify(&scheme), Ok(()), "{} on {}", group, shape);
            prop_assert!(is_invariant(group, &scheme));
            let again = orbits(group, &scheme).unwrap();
            prop_assert_eq!(again.rank(), scheme.rank());
            prop_assert_eq!(sorted(again.to_scheme().unwrap().terms()), sorted(scheme.terms()));
        }
        prop_assert!(taken > 0, "no orbit flip found");
    }

    /// The move log's orbit flips, merges and reversals replay as the group's moves.
    #[test]
    fn logged_orbit_moves_replay_through_their_elements(seed in any::<u64>()) {
        let shape = Shape::square(4).unwrap();
        let reversal = Reversal::of(shape);
        let mut rng = WyRand::new(seed);
        let mut term = || Term::new(rng.bits() & 0xffff, rng.bits() & 0xffff, rng.bits() & 0xffff);
        let (t, u) = (term(), term());
        let g = Element::new(1, true);
        let h = Element::new(2, false);
        // Make them meet at A through g and h.
        let mut u_seen = reversal.act(h, u);
        u_seen.a = reversal.act(g, t).a;
        let u = reversal.act(h, reversal.act(h, u_seen)); // h^-1 = h^2 on rotations
        let mut slots = [t, u];
        let (mut x, mut y) = (reversal.act(g, t), reversal.act(h, u));
        prop_assume!(x.a == y.a);
        moves::flip(&mut x, &mut y, Position::A);
        log::replay(&mut slots, log::orbit_flip(g, h, 0, 1), reversal).unwrap();
        prop_assert_eq!(slots, [x, y]);
        log::replay(&mut slots, log::pack(log::REVERSE, 0, 1, 0, 0), reversal).unwrap();
        prop_assert_eq!(slots[1], reversal.term(y));
        // A merge through the reversal: slot 1 becomes t's reversal with one factor changed.
        let mut slots = [t, reversal.term(Term::new(t.a, t.b, t.c ^ 1))];
        log::replay(&mut slots, log::pack(log::MERGE, 0, 0, 1, 1), reversal).unwrap();
        prop_assert_eq!(slots, [Term::new(t.a, t.b, 1), Term::default()]);
    }
}
