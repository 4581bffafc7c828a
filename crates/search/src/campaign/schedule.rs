//! The campaign's queue: which format a free lane (a GPU, or a share of the CPU's cores)
//! searches next, so that formats run side by side and a format that ends early (at its
//! target, or stalled) gives its lane to the next one at once.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

/// One search of the campaign: a format (its index in the list) in a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Turn {
    /// The pass, from 1.
    pub pass: u32,
    /// The format's index in the campaign's list.
    pub format: usize,
}

/// The turns still to take, in order (every format of pass 1, then of pass 2, ...), the
/// formats being searched, and where each format stood after its latest turn (`T`).
pub struct Schedule<T> {
    state: Mutex<State<T>>,
    freed: Condvar,
}

struct State<T> {
    waiting: VecDeque<Turn>,
    running: Vec<usize>,
    latest: Vec<Option<T>>,
}

/// What a free lane gets from the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// This turn is the lane's.
    Turn(Turn),
    /// Every waiting turn's format is being searched: ask again once one ends.
    Wait,
    /// No turn is left (or the campaign halts).
    Done,
}

impl<T> State<T> {
    fn next(&mut self, halt: bool) -> Next {
        if halt || self.waiting.is_empty() {
            return Next::Done;
        }
        let free = self.waiting.iter().position(|t| !self.running.contains(&t.format));
        match free.and_then(|at| self.waiting.remove(at)) {
            Some(turn) => {
                self.running.push(turn.format);
                Next::Turn(turn)
            }
            None => Next::Wait,
        }
    }
}

/// How long a lane waits for a running format before it looks at `halt` again.
const LOOK_AGAIN: Duration = Duration::from_millis(200);

impl<T> Schedule<T> {
    /// Every format of `formats` once in each of `passes` passes.
    pub fn new(formats: usize, passes: u32) -> Schedule<T> {
        let waiting = (1..=passes)
            .flat_map(|pass| (0..formats).map(move |format| Turn { pass, format }))
            .collect();
        Schedule {
            state: Mutex::new(State {
                waiting,
                running: Vec::new(),
                latest: (0..formats).map(|_| None).collect(),
            }),
            freed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next turn: the first waiting one whose format is not being searched (a format's
    /// later pass waits for its earlier one, which holds its folder). None once no turn is
    /// waiting, or `halt` says to stop (it is asked again while this waits).
    pub fn take(&self, halt: impl Fn() -> bool) -> Option<Turn> {
        let mut state = self.lock();
        loop {
            match state.next(halt()) {
                Next::Turn(turn) => return Some(turn),
                Next::Done => return None,
                Next::Wait => {
                    state = self
                        .freed
                        .wait_timeout(state, LOOK_AGAIN)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            }
        }
    }

    /// What [`Schedule::take`] would give now, without waiting: for a lane of another process,
    /// whose request must not hold up the others'.
    pub fn poll(&self, halt: bool) -> Next {
        self.lock().next(halt)
    }

    /// `turn` has ended with its format at `now`, given where its earlier turn left it.
    pub fn finish(&self, turn: Turn, now: impl FnOnce(Option<T>) -> T) {
        let mut state = self.lock();
        state.running.retain(|&f| f != turn.format);
        let earlier = state.latest[turn.format].take();
        state.latest[turn.format] = Some(now(earlier));
        self.freed.notify_all();
    }

    /// Where each format stood after its latest turn (None: not searched).
    pub fn into_latest(self) -> Vec<Option<T>> {
        self.state.into_inner().unwrap_or_else(PoisonError::into_inner).latest
    }
}

#[cfg(test)]
mod tests {
    use super::{Next, Schedule, Turn};
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn turns_come_in_order_and_a_format_never_twice_at_once() {
        let schedule = Schedule::<u32>::new(2, 2);
        let first = schedule.take(|| false).unwrap();
        let second = schedule.take(|| false).unwrap();
        assert_eq!(
            (first, second),
            (Turn { pass: 1, format: 0 }, Turn { pass: 1, format: 1 })
        );
        // Both formats run: the next lane waits, until halted.
        assert_eq!(schedule.take(|| true), None);
        schedule.finish(second, |_| 7);
        assert_eq!(schedule.take(|| false), Some(Turn { pass: 2, format: 1 }));
        schedule.finish(first, |_| 5);
        assert_eq!(schedule.take(|| false), Some(Turn { pass: 2, format: 0 }));
        assert_eq!(schedule.take(|| false), None, "no turn is left");
        assert_eq!(schedule.into_latest(), vec![Some(5), Some(7)]);
    }

    #[test]
    fn a_poll_never_waits() {
        let schedule = Schedule::<u32>::new(1, 2);
        let first = Turn { pass: 1, format: 0 };
        assert_eq!(schedule.poll(false), Next::Turn(first));
        // The format's second pass waits for its first, which is running.
        assert_eq!(schedule.poll(false), Next::Wait);
        assert_eq!(schedule.poll(true), Next::Done, "halted");
        schedule.finish(first, |_| 1);
        assert_eq!(schedule.poll(false), Next::Turn(Turn { pass: 2, format: 0 }));
        assert_eq!(schedule.poll(false), Next::Done);
    }

    #[test]
    fn lanes_side_by_side_take_every_turn_once() {
        let schedule = Schedule::<usize>::new(5, 3);
        let taken = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| {
                    while let Some(turn) = schedule.take(|| false) {
                        taken.fetch_add(1, Ordering::Relaxed);
                        schedule.finish(turn, |earlier| earlier.unwrap_or(0) + 1);
                    }
                });
            }
        });
        assert_eq!(taken.load(Ordering::Relaxed), 15);
        // Each format's three turns, each after the one before.
        assert!(schedule.into_latest().iter().all(|last| *last == Some(3)));
    }
}
