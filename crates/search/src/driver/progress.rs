//! Progress of a search: a live status line on a terminal, plain log lines otherwise, or JSON
//! lines with `--json`.

use std::time::{Duration, Instant};

use flipgraph_core::Shape;

#[cfg(feature = "terminal")]
use indicatif::{ProgressBar, ProgressStyle};

/// A snapshot of a running search.
#[derive(Clone, Copy, Debug)]
pub struct Status {
    pub shape: Shape,
    pub best_rank: usize,
    pub best_known: Option<usize>,
    pub vertices_per_s: f64,
    pub steps_per_s: f64,
    /// Reductions (merges and generalized flips) per second, all walkers.
    pub reductions_per_s: f64,
    /// The walkers' median plateau limit (steps without a reduction before a plus move).
    pub plateau: u64,
    /// The walkers' ranks now: lowest, median, highest.
    pub walker_ranks: [usize; 3],
    /// The share of new walks that hold their plateaus (the rest escape by plus moves).
    pub hold_share: f64,
    pub elapsed: Duration,
    pub pool: usize,
}

impl Status {
    fn line(&self) -> String {
        let gap = match self.best_known {
            Some(k) if self.best_rank >= k => {
                format!(" (best known {k}, gap {})", self.best_rank - k)
            }
            Some(k) => format!(" (best known {k}: NEW RECORD)"),
            None => String::new(),
        };
        let [low, median, high] = self.walker_ranks;
        format!(
            "{} rank {}{gap} | {} vertices/s | {} reductions/s | plateau limit {} | {:.0}% of walks hold | walker ranks {low}/{median}/{high} (lowest/median/highest) | {:.0?} in | pool of {}",
            self.shape,
            self.best_rank,
            si(self.vertices_per_s),
            si(self.reductions_per_s),
            self.plateau,
            100.0 * self.hold_share,
            self.elapsed,
            self.pool
        )
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "event": "progress",
            "t": self.elapsed.as_secs_f64(),
            "shape": self.shape.to_string(),
            "best_rank": self.best_rank,
            "best_known": self.best_known,
            "vertices_per_s": self.vertices_per_s,
            "steps_per_s": self.steps_per_s,
            "reductions_per_s": self.reductions_per_s,
            "plateau": self.plateau,
            "walker_ranks": self.walker_ranks,
            "hold_share": self.hold_share,
            "pool": self.pool,
        })
    }
}

/// `1.23G` and the like.
pub fn si(x: f64) -> String {
    let (v, unit) = match x {
        x if x >= 1e9 => (x / 1e9, "G"),
        x if x >= 1e6 => (x / 1e6, "M"),
        x if x >= 1e3 => (x / 1e3, "k"),
        x => (x, ""),
    };
    format!("{v:.2}{unit}")
}

enum Mode {
    #[cfg(feature = "terminal")]
    Bar(ProgressBar),
    Log {
        every: Duration,
        last: Instant,
    },
    Json,
    Quiet,
}

pub struct Progress {
    mode: Mode,
}

impl Progress {
    /// A live status line on a terminal (with the feature `terminal`), log lines otherwise;
    /// `json` prints JSON lines to stdout; `quiet` nothing.
    pub fn new(json: bool, quiet: bool) -> Progress {
        Self::choose(json, quiet, true)
    }

    /// As [`Progress::new`], but log lines on a terminal too: for searches that run side by
    /// side, whose live lines would overwrite each other.
    pub fn in_lines(json: bool, quiet: bool) -> Progress {
        Self::choose(json, quiet, false)
    }

    fn choose(json: bool, quiet: bool, live: bool) -> Progress {
        let log = || Mode::Log {
            every: Duration::from_secs(10),
            last: Instant::now(),
        };
        let mode = if quiet {
            Mode::Quiet
        } else if json {
            Mode::Json
        } else if live {
            Self::on_terminal().unwrap_or_else(log)
        } else {
            log()
        };
        Progress { mode }
    }

    /// The live status line, where standard error is a terminal.
    #[cfg(feature = "terminal")]
    fn on_terminal() -> Option<Mode> {
        use std::io::IsTerminal;
        std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
            bar.enable_steady_tick(Duration::from_millis(200));
            Mode::Bar(bar)
        })
    }

    /// Without the feature `terminal`: log lines on a terminal too.
    #[cfg(not(feature = "terminal"))]
    fn on_terminal() -> Option<Mode> {
        None
    }

    pub fn update(&mut self, status: &Status) {
        match &mut self.mode {
            #[cfg(feature = "terminal")]
            Mode::Bar(bar) => bar.set_message(status.line()),
            Mode::Log { every, last } if last.elapsed() >= *every => {
                *last = Instant::now();
                tracing::info!("{}", status.line());
            }
            Mode::Json => json_line(&status.json()),
            _ => {}
        }
    }

    /// A line that must be seen (an improvement, a warning) without breaking the bar.
    pub fn note(&self, event: &serde_json::Value, text: &str) {
        match &self.mode {
            #[cfg(feature = "terminal")]
            Mode::Bar(bar) => bar.suspend(|| tracing::info!("{text}")),
            Mode::Json => json_line(event),
            Mode::Log { .. } => tracing::info!("{text}"),
            Mode::Quiet => {}
        }
    }

    pub fn finish(&self) {
        #[cfg(feature = "terminal")]
        if let Mode::Bar(bar) = &self.mode {
            bar.finish_and_clear();
        }
    }
}

/// Prints a JSON line to standard output. Once that fails (its reader went away: `| head`, a
/// closed pipe, a full disk), says so once and prints no more; the search goes on, and its
/// events.jsonl keeps every line.
pub fn json_line(line: &serde_json::Value) {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    static GONE: AtomicBool = AtomicBool::new(false);
    if GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
        if !GONE.swap(true, Ordering::Relaxed) {
            tracing::warn!("cannot print to standard output ({e}); no more JSON lines there, the search goes on");
        }
    }
}
