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

/// The JSON lines `out` printed on standard output (`--json`), skipping any other line.
pub fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Asserts that every result file (`SHAPE-rRANK.*`) in `dir` verifies.
pub fn assert_results_verify(dir: &std::path::Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_string_lossy().contains("-r") {
            assert!(
                flipgraph(&["verify", path.to_str().unwrap()]).status.success(),
                "{}",
                path.display()
            );
        }
    }
}
