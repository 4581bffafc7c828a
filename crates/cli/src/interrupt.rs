//! Ctrl-C (or SIGTERM) as a flag that the commands which search watch: a search checkpoints and
//! reports, a campaign begins no more turns, a bench starts no more runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};

/// A flag that Ctrl-C (or SIGTERM) sets; installed once per process.
pub fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)).context("cannot install the Ctrl-C handler")?;
    Ok(stop)
}
