//! Helpers shared by the end-to-end tests (tests/cli.rs, tests/gpu.rs, tests/search.rs): the
//! binary under test, run with arguments, and what it printed (as text or JSON).
#![allow(dead_code)] // each test file uses its own subset

use std::process::{Command, Output};

/// The `flipgraph` binary under test, as a command to configure.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flipgraph"))
}

/// Runs `flipgraph` with `args` to its end.
pub fn flipgraph(args: &[&str]) -> Output {
    bin().args(args).output().expect("run flipgraph")
}

/// Standard output and standard error together.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// What `out` printed on standard output, as JSON, once it is known to have succeeded.
pub fn json_of(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", text(out));
    serde_json::from_slice(&out.stdout).expect("JSON on standard output")
}
