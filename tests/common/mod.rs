//! Helpers shared by the end-to-end tests (tests/cli.rs, tests/gpu.rs, tests/search.rs,
//! tests/records.rs): the binary under test, run with arguments, signalled, and what it printed
//! (as text or JSON).
#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output};
use std::time::{Duration, Instant};

/// The `flipgraph` binary under test, as a command to configure.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flipgraph"))
}

/// A file of tests/data, the schemes the tests carry.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

/// `flipgraph search` on one CPU thread, to be given the rest of its arguments.
pub fn search_on_one_thread() -> Command {
    let mut command = bin();
    command.args(["search", "--backend", "cpu", "--threads", "1"]);
    command
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

/// The events a search logged in its folder `dir` (`events.jsonl`).
pub fn logged_events(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// The `rung` events among `events`, each as its shape and ring, in order.
pub fn rungs_of(events: &[serde_json::Value]) -> Vec<(String, String)> {
    events
        .iter()
        .filter(|e| e["event"] == "rung")
        .map(|r| {
            (
                r["shape"].as_str().unwrap_or("").to_owned(),
                r["ring"].as_str().unwrap_or("").to_owned(),
            )
        })
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

/// Sends `sig` (`-INT`, `-KILL`, ...) to `child`.
pub fn signal(child: &Child, sig: &str) {
    let status = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// What `command` printed (its stdout and stderr piped), once it ends within `limit`; killed,
/// and the test failed with `hung`, where it does not.
pub fn output_within(command: &mut Command, limit: Duration, hung: &str) -> Output {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{hung}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Ctrl-C to `child`, which must still be running, and its end within `limit`: its status and
/// what it printed on standard error (which must be piped).
pub fn interrupt(child: &mut Child, limit: Duration) -> (ExitStatus, String) {
    assert!(child.try_wait().unwrap().is_none(), "it ended before the signal");
    signal(child, "-INT");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < limit, "it ran on after Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut said = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("a piped stderr"), &mut said).unwrap();
    (status, said)
}

/// Runs a 3-second search under `group` on `backend` with `args` into `dir/GROUP`, and checks
/// that it wrote more than one scheme, each verified and invariant under the group (as
/// `flipgraph info` says).
#[allow(dead_code)] // Not every test crate searches under a group.
pub fn assert_group_search(dir: &std::path::Path, backend: &str, group: &str, args: &[&str]) {
    let out_dir = dir.join(group);
    let out = bin()
        .args([
            "search",
            "--backend",
            backend,
            "--symmetry",
            group,
            "--time",
            "3s",
            "--out",
        ])
        .arg(&out_dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{group}: {}", text(&out));
    assert_results_verify(&out_dir);
    let mut written = 0;
    for entry in std::fs::read_dir(&out_dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") && path.to_string_lossy().contains("-r") {
            let info = text(&flipgraph(&["info", path.to_str().unwrap()]));
            assert!(info.contains(&format!("{group} (")), "{}: {info}", path.display());
            written += 1;
        }
    }
    assert!(written > 1, "{group}: the search wrote {written} schemes");
}
