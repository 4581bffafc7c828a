//! MPI jobs (`mpirun -n K flipgraph search ...`): islands share their best schemes, island 0
//! writes the results, and a job killed the hard way resumes with any number of islands.
//!
//! Built with `--features mpi` only; needs OpenMPI's `mpirun` (`.ci/run` installs it).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

mod common;

use common::{bin, text};

/// `mpirun -n processes --oversubscribe flipgraph` (as root too, as in CI).
fn mpirun(processes: usize) -> Command {
    let mut cmd = Command::new("mpirun");
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["-n", &processes.to_string(), "--oversubscribe"])
        .arg(env!("CARGO_BIN_EXE_flipgraph"));
    cmd
}

/// `mpirun ... flipgraph search ARGS`, each island on one thread, exchanging every 0.3 s.
fn job(islands: usize, args: &[&str]) -> Command {
    let mut cmd = mpirun(islands);
    cmd.args(["search", "--threads", "1", "--exchange-every", "0.3"])
        .args(args);
    cmd
}

fn run_job(islands: usize, args: &[&str]) -> Output {
    job(islands, args)
        .output()
        .expect("mpirun (OpenMPI) must be installed for the MPI tests")
}

/// The events island 0 logged.
fn events(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The result files of a folder: every one verifies; returns the best rank among them.
fn verified_best(dir: &Path) -> usize {
    let mut best = usize::MAX;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".json") && name.contains("-r") && !name.starts_with('.') {
            let out = bin().arg("verify").arg(&path).output().unwrap();
            assert!(out.status.success(), "{name}: {}", text(&out));
            let rank: usize = name
                .split("-r")
                .nth(1)
                .unwrap()
                .trim_end_matches(".json")
                .parse()
                .unwrap();
            best = best.min(rank);
        }
    }
    best
}

/// The lowest rank of a checkpoint's pool and its step count.
fn checkpoint(path: &Path) -> (usize, u64) {
    let cp: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let best = cp["pool"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_array().unwrap().len())
        .min()
        .unwrap();
    (best, cp["steps"].as_u64().unwrap())
}

fn island_checkpoint(dir: &Path, island: usize) -> PathBuf {
    match island {
        0 => dir.join("checkpoint.json"),
        k => dir.join(format!("island-{k}")).join("checkpoint.json"),
    }
}

#[test]
fn a_scheme_found_by_island_1_reaches_island_0s_pool_and_every_result_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let run = run_job(
        2,
        &[
            "--size",
            "4",
            "--target-rank",
            "49",
            "--time",
            "120",
            "--json",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(run.status.success(), "{}", text(&run));
    let events = events(&out);
    let from_1: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["event"] == "received" && e["from"] == 1)
        .collect();
    assert!(
        !from_1.is_empty(),
        "no scheme of island 1 entered island 0's pool: {events:?}"
    );
    // The end event comes from island 0 only, with the job's work.
    let stdout = String::from_utf8_lossy(&run.stdout);
    let ends: Vec<&str> = stdout.lines().filter(|l| l.contains("\"event\":\"end\"")).collect();
    assert_eq!(ends.len(), 1, "{stdout}");
    assert!(ends[0].contains("\"stop\":\"target\""), "{}", ends[0]);
    assert!(events.iter().any(|e| e["event"] == "islands" && e["islands"] == 2));
    assert_eq!(verified_best(&out), 49);
    // Island 1 writes only its checkpoint.
    let island_1: Vec<String> = std::fs::read_dir(out.join("island-1"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(island_1, ["checkpoint.json"]);
}

/// Waits until island 0 has written a result of rank `rank` or lower.
fn wait_for_rank(dir: &Path, rank: usize, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        let reached = events(dir)
            .iter()
            .any(|e| e["event"] == "improved" && e["rank"].as_u64().is_some_and(|r| r as usize <= rank));
        if reached && island_checkpoint(dir, 1).exists() {
            return;
        }
        assert!(child.try_wait().unwrap().is_none(), "the job ended early");
        sleep(Duration::from_millis(50));
    }
    panic!("rank {rank} not reached in two minutes");
}

#[test]
fn a_job_whose_island_is_killed_ends_and_resumes_with_any_number_of_islands_losing_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out_s = out.to_str().unwrap();
    let mut child = job(
        2,
        &[
            "--size",
            "4",
            "--target-rank",
            "40",
            "--time",
            "120",
            "--checkpoint-secs",
            "0.3",
            "-q",
            "--out",
            out_s,
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .expect("mpirun (OpenMPI) must be installed for the MPI tests");
    wait_for_rank(&out, 55, &mut child);
    sleep(Duration::from_millis(700));
    // Island 1's process id is in its folder's lock.
    let pid = std::fs::read_to_string(out.join("island-1/.flipgraph.lock")).unwrap();
    let killed = Command::new("kill").args(["-9", pid.trim()]).status().unwrap();
    assert!(killed.success());
    let ended = child.wait_with_output().unwrap();
    assert!(!ended.status.success(), "the job must end when an island dies");

    let found = verified_best(&out);
    let (saved_0, steps_0) = checkpoint(&island_checkpoint(&out, 0));
    let (saved_1, steps_1) = checkpoint(&island_checkpoint(&out, 1));
    // Both islands' checkpoints hold their progress. Not necessarily the job's best: a
    // checkpoint may lag it by what one interval (0.3 s here) descends, and 4x4x4 on the CPU
    // goes from 55 to 49 in less (the bound this asserted before, within 3 ranks of the best,
    // failed in 1 of 6 runs and more often with an older style chooser). What was found is
    // in the result files, which the resumes below must not lose.
    assert!(
        found <= 55 && saved_0 < 64 && saved_1 < 64,
        "{found} {saved_0} {saved_1}"
    );

    // Three islands continue the two islands' job.
    let run = run_job(3, &["--resume", out_s, "--time", "2", "-q"]);
    assert!(run.status.success(), "{}", text(&run));
    assert!(verified_best(&out) <= found, "the resume lost a rank");
    let steps: Vec<u64> = (0..3).map(|k| checkpoint(&island_checkpoint(&out, k)).1).collect();
    assert!(steps[0] > steps_0 && steps[1] > steps_1 && steps[2] > 0, "{steps:?}");
    let total: u64 = steps.iter().sum();

    // And one process alone continues the three's: it takes over their pools and counters.
    let alone = bin()
        .args([
            "search",
            "--resume",
            out_s,
            "--time",
            "1",
            "--threads",
            "1",
            "-q",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(alone.status.success(), "{}", text(&alone));
    assert!(
        !out.join("island-1").exists() && !out.join("island-2").exists(),
        "retired islands remain"
    );
    let (best, steps_alone) = checkpoint(&island_checkpoint(&out, 0));
    assert!(steps_alone > total, "{steps_alone} <= {total}: counters lost");
    assert!(best <= found, "the pool lost a rank: {best} > {found}");
    assert!(verified_best(&out) <= found);
}

#[test]
fn a_campaign_job_shares_its_formats_across_the_processes_and_process_0_prints_one_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("campaign");
    let sizes = ["2x2x4", "2x3x3", "3x3x3", "2x3x4"];
    let run = mpirun(2)
        .args(["campaign", "--backend", "cpu", "--threads", "1", "--time", "60s"])
        .args(["--sizes", &sizes.join(","), "--out", out.to_str().unwrap()])
        .output()
        .expect("mpirun (OpenMPI) must be installed for the MPI tests");
    let all = text(&run);
    assert!(run.status.success(), "{all}");
    let tables: Vec<&str> = all
        .lines()
        .filter(|l| l.contains("formats with a best known rank"))
        .collect();
    assert_eq!(
        tables,
        ["4 of 4 formats with a best known rank are at it or below"],
        "{all}"
    );
    // Both processes searched formats, and every format's results verify at its best known rank.
    assert!(
        all.contains("{process=0 format=") && all.contains("{process=1 format="),
        "{all}"
    );
    for (shape, known) in sizes.iter().zip([14, 15, 23, 20]) {
        assert_eq!(verified_best(&out.join(shape)), known, "{shape}");
    }
    // A process is one lane: --jobs is refused, by every process, before any search.
    let jobs = mpirun(2)
        .args(["campaign", "--backend", "cpu", "--jobs", "2", "--sizes", "2x2x4"])
        .args(["--out", dir.path().join("jobs").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!jobs.status.success());
    assert!(text(&jobs).contains("--jobs: in an MPI job"), "{}", text(&jobs));
    assert!(!dir.path().join("jobs").exists());
}
