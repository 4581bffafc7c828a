//! The driver's clock: how long the search has run (this process and the runs it resumed), when
//! its best rank last improved, and the time limits that end it.

use std::time::{Duration, Instant};

use super::SearchConfig;

pub(super) struct Clock {
    /// When this run of the search began, and the time of the runs it resumed.
    started: Instant,
    before: Duration,
    /// When the best rank last improved (or the search started).
    improved_at: Instant,
    /// When the process began (events' `t`).
    pub process_start: Instant,
    time_limit: Option<Duration>,
    stall_limit: Option<Duration>,
}

impl Clock {
    /// A clock from now, after `before` of earlier runs.
    pub fn new(config: &SearchConfig, before: Duration, process_start: Instant) -> Clock {
        let now = Instant::now();
        Clock {
            started: now,
            before,
            improved_at: now,
            process_start,
            time_limit: config.time_limit,
            stall_limit: config.stall_limit,
        }
    }

    /// The search's time, its earlier runs' included.
    pub fn elapsed(&self) -> Duration {
        self.before + self.started.elapsed()
    }

    /// Seconds since the process began.
    pub fn t(&self) -> f64 {
        self.process_start.elapsed().as_secs_f64()
    }

    /// The best rank improved now.
    pub fn improved(&mut self) {
        self.improved_at = Instant::now();
    }

    /// The time limit of the whole search, counted from its start (earlier runs included).
    pub fn whole_limit(&self) -> Option<Duration> {
        self.time_limit.map(|t| self.before + t)
    }

    /// Whether this run has used its time limit.
    pub fn out_of_time(&self) -> bool {
        self.time_limit.is_some_and(|t| self.started.elapsed() >= t)
    }

    /// Whether the best rank has gone longer without improving than the stall limit allows.
    pub fn stalled_out(&self) -> bool {
        self.stall_limit.is_some_and(|least| self.quiet_for(least))
    }

    /// Whether the best rank has gone without improving for `least`, and for at least as long
    /// as the search took to reach it.
    pub fn quiet_for(&self, least: Duration) -> bool {
        let took = self.improved_at.saturating_duration_since(self.started);
        self.improved_at.elapsed() >= least.max(took)
    }
}
