//! Tests of the GPU engine's host side: launches, caps and staging (no GPU needed).

use super::{
    check_cap, device_words, launch, slots_from_words, walked_terms, walker_cap, Buffers, GpuOptions, Group, Hints,
    PlusCap,
};
use flipgraph_core::device::{Partners, Switch, WalkPolicy, MAX_CAP};
use flipgraph_core::group::{Orbits, Reversal};
use flipgraph_core::symmetry::SymmetricScheme;
use flipgraph_core::walk::{Plateau, Reductions, Sparsity, WalkConfig};
use flipgraph_core::{Scheme, Shape, Term};

#[test]
fn a_launch_carries_the_buffers_and_settings_each_in_its_field() {
    let options = GpuOptions {
        walkers: None,
        config: WalkConfig {
            plateau: Plateau::Adaptive { floor: 100 },
            generalized: true,
            max_rank: usize::MAX,
            sparsity: Sparsity::Half,
            reductions: Reductions::Scan,
        },
        device: 0,
        log_entries: 7,
        match_rounds: 2,
        flips: 8,
        round_us: 100_000,
        hints: Hints::Auto,
        partners: Partners::Sample,
        symmetry: Group::Trivial,
        plus: PlusCap { slack: 4, from: None },
        start_rank: None,
    };
    let buffers = Buffers {
        terms: 0x1000,
        best: 0x2000,
        states: 0x3000,
        staging: 0x4000,
        log: 0x5000,
    };
    let l = launch(
        &options,
        Shape::new(3, 4, 5).unwrap(),
        (100, 544),
        buffers,
        u64::MAX,
        328,
        false,
    );
    assert_eq!(
        [l.terms, l.best, l.states, l.staging, l.log],
        [0x1000, 0x2000, 0x3000, 0x4000, 0x5000]
    );
    assert_eq!((l.warps, l.cap, l.target, l.log_cap), (100, 544, 328, 7));
    // The reversal's widths: A is 3x4, B 4x5, C (transposed) 5x3.
    assert_eq!(l.widths, [12, 20, 15]);
    assert_eq!(
        (l.match_rounds, l.flips, l.round_us, l.plateau_floor),
        (2, 8, 100_000, 100)
    );
    // Counts beyond 32 bits saturate rather than wrap.
    assert_eq!(l.steps, u32::MAX);
    // 17 slots per lane: automatic hints are on.
    let on = [
        Switch::Generalized,
        Switch::Log,
        Switch::Scan,
        Switch::Hints,
        Switch::Adaptive,
    ];
    let expected = on.iter().fold(WalkPolicy::new(), |p, &s| p.with(s, true));
    assert_eq!(l.policy, expected.with_sparsity(Sparsity::Half));
    let quiet = GpuOptions {
        log_entries: 0,
        config: WalkConfig {
            generalized: false,
            reductions: Reductions::Walk,
            plateau: Plateau::Fixed(100),
            sparsity: Sparsity::Off,
            ..options.config
        },
        ..options
    };
    let two = Shape::square(2).unwrap();
    let trapping = launch(&quiet, two, (1, 64), buffers, 10, 1, true).policy;
    assert_eq!(trapping, WalkPolicy::new().with(Switch::Trap, true));
}

#[test]
fn a_start_too_large_for_the_kernels_is_refused_and_every_naive_start_fits() {
    for n in 2..=8 {
        let shape = Shape::square(n).unwrap();
        let cap = walker_cap(shape, 64, Group::Trivial, None, None);
        assert!(check_cap(shape, cap, shape.naive_rank(), 64).is_ok(), "{shape}: {cap}");
    }
    let eight = Shape::square(8).unwrap();
    let cap = walker_cap(eight, 4, Group::Trivial, Some(1000), None);
    let err = check_cap(eight, cap, 1000, 4).unwrap_err().to_string();
    assert!(err.contains("rank 1000") && err.contains(&MAX_CAP.to_string()), "{err}");
}

#[test]
fn automatic_hints_take_the_shapes_whose_lanes_hold_eight_slots_or_more() {
    let cap = |n| walker_cap(Shape::new(n, n, n).unwrap(), 4, Group::Trivial, None, None);
    let on = |n| Hints::Auto.enabled(cap(n));
    assert_eq!(
        (3..=8).map(on).collect::<Vec<_>>(),
        [false, false, false, false, true, true]
    );
    assert!(Hints::On.enabled(cap(2)));
    assert!(!Hints::Off.enabled(cap(8)));
}

#[test]
fn a_symmetric_walker_holds_its_free_orbits_and_keeps_its_fixed_terms_apart() {
    let five = Shape::square(5).unwrap();
    // 5x5x5 from the three cubes: rank 135, 3 fixed terms and 44 triples; plus moves up to
    // 135 need 45 slots.
    let diagonal = |i: u32| 1u64 << (6 * i);
    let cubes = [diagonal(0) | diagonal(4), diagonal(1) | diagonal(3), diagonal(2)];
    let start = SymmetricScheme::naive(five)
        .unwrap()
        .with_cubes(&cubes)
        .unwrap()
        .to_scheme();
    assert_eq!(start.rank(), 135);
    let (reps, fixed) = walked_terms(&start, Group::C3).unwrap();
    assert_eq!((reps.len(), fixed.len()), (44, 3));
    assert!(fixed.iter().all(Term::is_cube));
    assert_eq!(walker_cap(five, 0, Group::C3, Some(135), Some(135)), 64);
    assert_eq!(walker_cap(five, 4, Group::Trivial, None, None), 160);
    // From 5x5x5 r93, 98 terms at most: 128 slots, none but the slack's empty at the start.
    assert_eq!(walker_cap(five, 4, Group::Trivial, Some(93), None), 128);
    // The orbits' terms with the fixed terms are the start's terms again.
    let orbits = Orbits {
        group: Group::C3,
        shape: five,
        free: reps,
        fixed,
    };
    let mut again = orbits.to_scheme().unwrap().into_terms();
    let mut terms = start.terms().to_vec();
    again.sort();
    terms.sort();
    assert_eq!(again, terms);
    // 6x6x6 under c6 from the cubes 110000,001100,000011 (Moosbauer and Poole's): the
    // reversal swaps the first and last cube and keeps the middle one, so the three stay
    // on the host and every other orbit has six terms.
    let six = Shape::square(6).unwrap();
    let pair = |i: u32| (1u64 << (7 * i)) | (1u64 << (7 * (i + 1)));
    let start = SymmetricScheme::naive(six)
        .unwrap()
        .with_cubes(&[pair(0), pair(2), pair(4)])
        .unwrap()
        .to_scheme();
    let (reps, fixed) = walked_terms(&start, Group::C6).unwrap();
    assert_eq!(fixed.len(), 3);
    assert_eq!(fixed.len() + 6 * reps.len(), start.rank());
    let reversal = Reversal::of(six);
    assert!(reps.iter().all(|&t| reversal.is_free(Group::C6, t)));
    assert_eq!(
        walker_cap(six, 6, Group::C6, Some(start.rank()), None),
        (start.rank() + 6) / 6 / 32 * 32 + 32
    );
    // A scheme that is not invariant is refused with the reason.
    let plain = Scheme::naive(Shape::new(2, 3, 4).unwrap());
    assert!(walked_terms(&plain, Group::C3).is_err());
    assert_eq!(walked_terms(&plain, Group::Trivial).unwrap().0.len(), 24);
}

/// The device layout of a walker's slots: 64-bit factors one word each, in core's
/// `factor_index` order; 128-bit ones two words each, low first; and back again.
#[test]
fn slots_cross_to_the_device_layout_and_back_at_both_widths() {
    let narrow = vec![Term::new(1, 2, 4), Term::new(u64::MAX, 0, 1 << 63), Term::default()];
    let words = device_words(&narrow);
    let cap = narrow.len();
    for (pos, slot) in (0..3).flat_map(|p| (0..cap).map(move |s| (p, s))) {
        let at = flipgraph_core::device::factor_index(cap, pos, slot);
        assert_eq!(words[at], narrow[slot].factors()[pos]);
    }
    assert_eq!(slots_from_words::<u64>(&words, cap), narrow);
    let wide: Vec<Term<u128>> = vec![
        Term::from_factors(1 << 100 | 5, u128::MAX, 1 << 64),
        Term::from_factors(u64::MAX as u128, 3, 0),
        Term::default(),
    ];
    let words = device_words(&wide);
    assert_eq!(words.len(), 2 * 3 * cap);
    let at = 2 * flipgraph_core::device::factor_index(cap, 0, 0);
    assert_eq!((words[at], words[at + 1]), (5, 1 << 36));
    assert_eq!(slots_from_words::<u128>(&words, cap), wide);
}

/// The self-test on this host's first GPU: every kernel's logged walks replayed by core. Needs a
/// GPU (`cargo test -- --ignored`); without one it fails, saying so.
#[test]
#[ignore = "needs a GPU"]
fn the_self_test_replays_every_kernels_walks_exactly_in_core() {
    if let Err(why) = super::devices() {
        panic!("no usable GPU for the self-test: {why:#}");
    }
    let mut walks = Vec::new();
    super::self_test(&[], |walk| walks.push(walk.clone())).unwrap();
    // Every group, every factor width, both ways of finding partners.
    for group in [Group::Trivial, Group::C3, Group::Z2, Group::C6] {
        assert!(walks.iter().any(|w| w.symmetry == group), "{group:?}");
    }
    for bits in [64, 128] {
        assert!(walks.iter().any(|w| w.bits == bits), "{bits}");
    }
    assert!(walks.iter().all(|w| w.moves > 0 && w.counters.flips > 0));
    // And the ternary walk (kernel walk_zt).
    assert!(walks.iter().any(|w| w.ternary && w.shape == Shape::square(6).unwrap()));
}

/// A ternary walk of a shape whose factors pass the planes' 64 entries is refused by name,
/// before any GPU is asked for (no GPU needed).
#[test]
fn a_ternary_gpu_walk_refuses_factors_past_64_entries() {
    let options = GpuOptions {
        walkers: None,
        config: WalkConfig {
            plateau: Plateau::Adaptive { floor: 100 },
            generalized: false,
            max_rank: usize::MAX,
            sparsity: Sparsity::Off,
            reductions: Reductions::Walk,
        },
        device: 0,
        log_entries: 0,
        match_rounds: 2,
        flips: 8,
        round_us: 100_000,
        hints: Hints::Off,
        partners: Partners::Sample,
        symmetry: Group::Trivial,
        plus: PlusCap { slack: 3, from: None },
        start_rank: None,
    };
    let Err(why) = super::TernaryGpu::open(Shape::square(9).unwrap(), options) else {
        panic!("a 9x9x9 ternary walk opened");
    };
    assert!(
        format!("{why:#}").contains("81 entries; a ternary walk takes at most 64"),
        "{why:#}"
    );
}
