//! Tests of the driver: its standing, credits, restarts, patience and styles (on a scripted engine).

use super::*;
use crate::engine::{Kind, Round};
use flipgraph_core::plateau::Style;
use flipgraph_core::{Scheme, Term};

#[test]
fn the_standing_shows_the_escaping_walkers_limits_and_every_walkers_rank() {
    let status = |rank, plateau| WalkerStatus {
        rank,
        best_rank: rank,
        plateau,
    };
    let hold = HOLD_FLOOR as u64;
    let walkers = [
        status(50, 100),
        status(49, hold),
        status(52, 300),
        status(51, hold),
        status(53, 200),
    ];
    assert_eq!(
        Standing::of(&walkers),
        Standing {
            plateau: 200,
            ranks: [49, 51, 53]
        }
    );
    // With every walker holding (a fixed plateau that long), their own median.
    let holding = [status(50, hold), status(50, 2 * hold), status(50, 2 * hold)];
    assert_eq!(Standing::of(&holding).plateau, 2 * hold);
}

/// Two walkers: walker 0 finds the naive 2x2x2 scheme (rank 8) in every round, walker 1
/// stays at the start (rank 9); every load is recorded.
struct Fake {
    start: Scheme,
    found: Scheme,
    /// Each load: the walker and its style.
    loads: Vec<(usize, Style)>,
    /// Steps each walker takes a round.
    steps: u64,
    /// The round of each load of walker 1.
    reloads: Vec<u64>,
    rounds: u64,
    /// Whether its plateau adapts (else, fixed).
    adaptive: bool,
}

impl Fake {
    fn new(start: Scheme, found: Scheme, steps: u64) -> Fake {
        Fake {
            start,
            found,
            loads: Vec::new(),
            steps,
            reloads: Vec::new(),
            rounds: 0,
            adaptive: true,
        }
    }
}

impl Engine for Fake {
    fn describe(&self) -> String {
        "fake".into()
    }
    fn kind(&self) -> Kind {
        Kind::Cpu
    }
    fn walkers(&self) -> usize {
        2
    }
    fn timed_rounds(&self) -> bool {
        false
    }
    fn adaptive_plateau(&self) -> bool {
        self.adaptive
    }
    fn load(&mut self, walker: usize, _: &Scheme, _: u64, style: Style) -> Result<()> {
        self.loads.push((walker, style));
        if walker == 1 {
            self.reloads.push(self.rounds);
        }
        Ok(())
    }
    fn run_round(&mut self, _: u64, _: usize) -> Result<Round> {
        self.rounds += 1;
        let status = |rank| WalkerStatus {
            rank,
            best_rank: rank,
            plateau: 0,
        };
        Ok(Round {
            counters: Counters {
                steps: 2 * self.steps,
                ..Counters::default()
            },
            walkers: vec![status(8), status(9)],
        })
    }
    fn best_scheme(&mut self, walker: usize) -> Result<Scheme> {
        Ok(if walker == 0 {
            self.found.clone()
        } else {
            self.start.clone()
        })
    }
    fn current_scheme(&mut self, walker: usize) -> Result<Scheme> {
        self.best_scheme(walker)
    }
}

/// A search by `engine` from `start`, without output.
fn run_quietly(engine: &mut Fake, config: SearchConfig, start: Scheme) -> Summary {
    let quiet = Progress::new(false, true);
    let driver = Driver::new(engine, config, Start::from_scheme(start), None, quiet, Instant::now()).unwrap();
    driver.run(&AtomicBool::new(false)).unwrap()
}

/// The loads of walker 1 in a short search with `restarts`.
fn loads_of_the_walker_behind(restarts: Restarts) -> usize {
    let shape = Shape::square(2).unwrap();
    let found = Scheme::naive(shape);
    let mut terms = found.terms().to_vec();
    let t = terms.remove(0);
    terms.extend([Term::new(t.a, t.b, t.c ^ 2), Term::new(t.a, t.b, 2)]);
    let start = Scheme::new(shape, terms).unwrap();
    let mut engine = Fake::new(start.clone(), found, 0);
    let config = SearchConfig {
        time_limit: Some(Duration::from_millis(30)),
        restarts,
        ..SearchConfig::new(shape, 1, 1, 1, Patience::Fixed(u64::MAX))
    };
    let summary = run_quietly(&mut engine, config, start);
    assert_eq!(summary.best.rank(), 8);
    engine.loads.iter().filter(|&&(w, _)| w == 1).count()
}

#[test]
fn growing_patience_is_fixed_until_a_stall_and_half_the_stall_after() {
    assert_eq!(Patience::Fixed(10).after(1000), 10);
    assert_eq!(Patience::Growing(10).after(0), 10);
    assert_eq!(Patience::Growing(10).after(21), 10);
    assert_eq!(Patience::Growing(10).after(1000), 500);
}

/// A stalled search (after the pool's one improvement, nothing better), each walker taking
/// 100 steps a round, its plateau `adaptive` or fixed: its engine, which saw every load.
fn stalled_search(patience: Patience, adaptive: bool) -> Fake {
    let shape = Shape::square(2).unwrap();
    let start = Scheme::naive(shape);
    let mut engine = Fake {
        adaptive,
        ..Fake::new(start.clone(), start.clone(), 100)
    };
    let config = SearchConfig {
        time_limit: Some(Duration::from_millis(50)),
        ..SearchConfig::new(shape, 1, 1, 1, patience)
    };
    run_quietly(&mut engine, config, start);
    engine
}

/// The rounds between walker 1's restarts in a stalled search.
fn restart_gaps(patience: Patience) -> Vec<u64> {
    let engine = stalled_search(patience, true);
    engine.reloads.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn each_walk_gets_a_chosen_style_unless_the_styles_follow_the_walkers() {
    let chosen = stalled_search(Patience::Fixed(1000), true).loads;
    assert!(chosen.len() >= 8, "{chosen:?}");
    // Neither style gains anything here: both keep being drawn, for every walker.
    for walker in 0..2 {
        for style in Style::ALL {
            assert!(chosen.contains(&(walker, style)), "{walker} {style:?}: {chosen:?}");
        }
    }
    let fixed = stalled_search(Patience::Fixed(1000), false).loads;
    assert!(fixed.len() >= 8, "{fixed:?}");
    assert!(fixed.iter().all(|&(w, s)| s == Style::of_walker(w)), "{fixed:?}");
}

#[test]
fn walks_lengthen_while_the_search_is_stalled_unless_the_patience_is_fixed() {
    let fixed = restart_gaps(Patience::Fixed(1000));
    assert!(fixed.len() >= 3, "{fixed:?}");
    assert!(fixed.iter().all(|&g| g == 10), "{fixed:?}");
    let growing = restart_gaps(Patience::Growing(1000));
    assert!(growing.len() >= 3, "{growing:?}");
    assert_eq!(growing[0], 10, "{growing:?}");
    // Each walk about twice the one before: 10, 10, 20, 40, ... rounds.
    assert!(growing.windows(2).all(|w| w[1] >= w[0]), "{growing:?}");
    assert!(growing.last() > Some(&20), "{growing:?}");
}

#[test]
fn independent_walkers_never_restart_from_a_better_pool() {
    assert!(
        loads_of_the_walker_behind(Restarts::Pool) > 1,
        "the pool's walkers follow the best"
    );
    assert_eq!(
        loads_of_the_walker_behind(Restarts::Independent),
        1,
        "loaded once, at the start"
    );
}

/// A checkpoint names what the walk does: free fixed terms only under c3 (the other groups'
/// walks keep them), so that a resume never asks for what the walk refuses.
#[test]
fn a_checkpoint_names_the_fixed_terms_the_walk_keeps() {
    use crate::engine::Group;
    use crate::output::symmetric_name;
    use flipgraph_core::symmetry::FixedTerms;
    assert_eq!(symmetric_name((Group::C3, FixedTerms::Free)), "c3, fixed terms free");
    assert_eq!(
        symmetric_name((Group::C3, FixedTerms::Frozen)),
        "c3, fixed terms frozen"
    );
    for group in [Group::Z2, Group::C6] {
        assert_eq!(
            symmetric_name((group, FixedTerms::Free)),
            format!("{group}, fixed terms frozen")
        );
    }
}
