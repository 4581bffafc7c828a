//! GPU tests: they need an NVIDIA GPU, so they are ignored by default (a run without a GPU, as
//! in CI, reports them as ignored rather than passed) and run with `-- --ignored` on a GPU
//! machine. Asked to run where no GPU is usable (or, for the multi-GPU test, fewer than two),
//! they fail, saying why: a skip is never reported as a pass.

mod common;

use common::{
    assert_group_search, assert_results_verify, bin, flipgraph, json_lines, json_of, logged_events, rungs_of, text,
};

/// The rows of a 2-second `bench --backend gpu --json` with `args` (what to measure and how),
/// with `CUDA_VISIBLE_DEVICES` set when given.
fn bench_rows(args: &[&str], visible: Option<&str>) -> Vec<serde_json::Value> {
    let mut cmd = bin();
    cmd.args(["bench", "--backend", "gpu", "--seconds", "2", "--json"])
        .args(args);
    if let Some(v) = visible {
        cmd.env("CUDA_VISIBLE_DEVICES", v);
    }
    let out = cmd.output().unwrap();
    let rows = json_of(&out);
    rows.as_array().unwrap().clone()
}

/// Whether a GPU is usable: `flipgraph gpu` says so, or gives the reason it is not.
fn gpu_usable() -> Result<(), String> {
    let out = flipgraph(&["gpu"]);
    if out.status.success() {
        Ok(())
    } else {
        Err(text(&out).trim().to_owned())
    }
}

/// Fails the test, with the reason, when no GPU is usable: a GPU test asked to run where it
/// cannot must not pass.
fn require_gpu() {
    if let Err(why) = gpu_usable() {
        panic!("this test needs a usable NVIDIA GPU and there is none: {why}");
    }
}

#[test]
fn without_a_gpu_the_gpu_backend_fails_clearly_and_auto_runs_on_the_cpu() {
    if gpu_usable().is_ok() {
        eprintln!("skipped: this machine has a GPU");
        return;
    }
    let out = flipgraph(&[
        "search",
        "--size",
        "2",
        "--backend",
        "gpu",
        "--out",
        "/tmp/flipgraph-no-gpu-test",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("--backend gpu") && text(&out).contains("NVIDIA"),
        "{}",
        text(&out)
    );
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["search", "--size", "2", "--backend", "auto", "--out"])
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("running on the CPU"), "{}", text(&out));
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn the_kernel_move_log_replays_exactly_in_core() {
    require_gpu();
    let out = flipgraph(&["gpu", "--self-test"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("self-test passed"));
    // The ternary walk's logs too.
    assert!(text(&out).contains("self-test 4x4x4 over ZT rank 64"), "{}", text(&out));
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn a_ternary_search_on_the_gpu_reaches_23_and_every_file_verifies_over_z() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let out = flipgraph(&[
        "search",
        "--size",
        "3",
        "--ring",
        "zt",
        "--backend",
        "gpu",
        "--time",
        "60",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("over ZT: rank 23"), "{}", text(&out));
    assert!(dir.path().join("3x3x3-r23.json").exists());
    assert_results_verify(dir.path());
}

/// Issue 69's 5x5x5 line: the ZT preset walks c3 over F2 on the GPU and lifts each new best, to
/// the best known 93 over Z, every file the search writes valid over Z.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn a_ternary_search_of_5x5x5_lifts_the_gpu_walk_to_93_over_z() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let out = flipgraph(&[
        "search",
        "--size",
        "5",
        "--ring",
        "zt",
        "--time",
        "120",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("over F2, each new best lifted to Z"),
        "{}",
        text(&out)
    );
    let best = dir.path().join("5x5x5-r93.json");
    assert!(best.exists(), "{}", text(&out));
    let verified = flipgraph(&["verify", "--ring", "z", best.to_str().unwrap()]);
    assert!(verified.status.success(), "{}", text(&verified));
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn every_scheme_the_gpu_hands_back_verifies() {
    require_gpu();
    for row in bench_rows(&["--sizes", "3,4,5"], None) {
        assert_eq!(row["walkers_invalid"], 0, "{row}");
        assert_eq!(row["rejected"], 0, "{row}");
        assert!(row["vertices"].as_u64().unwrap() > 0);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn a_kernel_trap_names_the_kernel_and_auto_carries_on_on_the_cpu() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let run = |backend: &str, name: &str| {
        // `--ladder off`: the fault in the search itself, not in a rung of its ladder (whose
        // fault leaves the GPU unusable, so that `auto` opens the CPU engine for the search).
        // `--islands 1`: one engine, on a host of several GPUs too (an island's fault ends its
        // job, whose resume carries on).
        let flags = [
            "--islands",
            "1",
            "--target-rank",
            "40",
            "--time",
            "3s",
            "--quiet",
            "--backend",
            backend,
            "--ladder",
            "off",
        ];
        search_4x4x4(&dir.path().join(name), &flags, Some("3"))
    };
    let gpu_only = run("gpu", "gpu");
    assert_eq!(gpu_only.status.code(), Some(1), "{}", text(&gpu_only));
    assert!(text(&gpu_only).contains("kernel 'walk"), "{}", text(&gpu_only));
    let auto = run("auto", "auto");
    assert!(auto.status.success(), "{}", text(&auto));
    assert!(
        text(&auto).contains("kernel 'walk") && text(&auto).contains("carrying on with the CPU"),
        "{}",
        text(&auto)
    );
    assert_results_verify(&dir.path().join("auto"));
}

/// Over ZT too: a kernel fault ends `--backend gpu` naming the kernel, and `auto` carries on with
/// the CPU from what the GPU found, to the target.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn a_ternary_kernel_trap_names_the_kernel_and_auto_carries_on_on_the_cpu() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let run = |backend: &str| {
        bin()
            .args([
                "search",
                "--size",
                "3",
                "--ring",
                "zt",
                "--time",
                "60s",
                "--backend",
                backend,
            ])
            .arg("--out")
            .arg(dir.path().join(backend))
            .env("FLIPGRAPH_GPU_TRAP", "1")
            .output()
            .unwrap()
    };
    let gpu_only = run("gpu");
    assert_eq!(gpu_only.status.code(), Some(1), "{}", text(&gpu_only));
    assert!(text(&gpu_only).contains("kernel 'walk_zt'"), "{}", text(&gpu_only));
    let auto = run("auto");
    assert!(auto.status.success(), "{}", text(&auto));
    assert!(text(&auto).contains("carrying on with the CPU"), "{}", text(&auto));
    assert!(dir.path().join("auto/3x3x3-r23.json").exists());
    assert_results_verify(&dir.path().join("auto"));
    // With a ladder (3x3x5 climbs from 3x3x4), the GPU that failed in the rung is not tried
    // again by the search after it: one warning, and the search walks on the CPU.
    let ladder = bin()
        .args([
            "search", "--size", "3x3x5", "--ring", "zt", "--ladder", "on", "--time", "20s",
        ])
        .arg("--out")
        .arg(dir.path().join("ladder"))
        .env("FLIPGRAPH_GPU_TRAP", "1")
        .output()
        .unwrap();
    assert!(ladder.status.success(), "{}", text(&ladder));
    assert_eq!(
        text(&ladder).matches("carrying on with the CPU").count(),
        1,
        "{}",
        text(&ladder)
    );
    assert_results_verify(&dir.path().join("ladder"));
}

/// `flipgraph search --size 4` with `extra` flags into `out`, checkpointing every 0.1 s; `trap`:
/// the round in which each kernel launch traps (`FLIPGRAPH_GPU_TRAP`), if any.
fn search_4x4x4(out: &std::path::Path, extra: &[&str], trap: Option<&str>) -> std::process::Output {
    let mut search = bin();
    search
        .args(["search", "--size", "4", "--checkpoint-secs", "0.1"])
        .args(extra)
        .arg("--out")
        .arg(out);
    if let Some(round) = trap {
        search.env("FLIPGRAPH_GPU_TRAP", round);
    }
    search.output().unwrap()
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn a_kernel_trap_in_a_rung_leaves_the_search_to_walk_from_naive() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let done = search_4x4x4(
        &out,
        &[
            "--islands",
            "1",
            "--target-rank",
            "40",
            "--time",
            "4s",
            "--quiet",
            "--backend",
            "auto",
            "--ladder",
            "on",
        ],
        Some("3"),
    );
    let said = text(&done);
    assert!(done.status.success(), "{said}");
    assert!(
        said.contains("the ladder failed") && said.contains("kernel 'walk"),
        "{said}"
    );
    // The search itself opens an engine after the fault (the CPU: on driver 580 the fault stays
    // with the GPU for the rest of the process) and ends with verified results and a checkpoint.
    assert!(out.join("checkpoint.json").exists());
    assert_results_verify(&out);
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn more_walkers_than_gpu_memory_holds_gives_the_limit() {
    require_gpu();
    let out = flipgraph(&[
        "bench",
        "--backend",
        "gpu",
        "--sizes",
        "8",
        "--seconds",
        "1",
        "--walkers",
        "50000000",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("MiB of GPU memory") && text(&out).contains("at most about"),
        "{}",
        text(&out)
    );
}

/// The walker count in an engine description ("gpu: ..., 4224 walkers (warps)").
fn walkers_of(engine: &str) -> u64 {
    let before = engine.split(" walkers").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn every_visible_gpu_runs_its_own_walkers() {
    require_gpu();
    let gpus = text(&flipgraph(&["gpu"]))
        .lines()
        .filter(|l| l.starts_with("GPU "))
        .count() as u64;
    assert!(
        gpus >= 2,
        "this test needs two or more GPUs and {gpus} is visible (on a one-GPU machine: --skip every_visible_gpu_runs_its_own_walkers)"
    );
    let all = &bench_rows(&["--sizes", "4"], None)[0];
    let one = &bench_rows(&["--sizes", "4"], Some("0"))[0];
    let engine = all["engine"].as_str().unwrap();
    assert!(engine.contains(&format!("{gpus} GPUs")), "{engine}");
    assert_eq!(walkers_of(engine), gpus * walkers_of(one["engine"].as_str().unwrap()));
    // Every walker of every device was audited at the end, and all hold valid schemes.
    assert_eq!(all["walkers_audited"].as_u64(), Some(walkers_of(engine)));
    assert_eq!(all["walkers_invalid"], 0, "{all}");
    assert_eq!(all["rejected"], 0, "{all}");
}

/// Kronecker products of the fixtures in `dir`: 4x4x4 r49 (Strassen squared), 6x6x6 r161
/// (Strassen x Laderman) and 8x8x8 r343 (Strassen cubed), schemes with no flip at all, whose
/// 8x8 factors repeat their upper rows in their lower ones.
fn products(dir: &std::path::Path) -> [String; 3] {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");
    let strassen = format!("{data}/2x2x2-r7-strassen.m");
    let path = |name: &str| dir.join(name).display().to_string();
    for (first, second, out) in [
        (
            strassen.clone(),
            format!("{data}/3x3x3-r23-laderman.m"),
            path("666.json"),
        ),
        (strassen.clone(), strassen.clone(), path("444.json")),
        (strassen.clone(), path("444.json"), path("888.json")),
    ] {
        let made = flipgraph(&["product", &first, &second, "--mod2", "-o", &out]);
        assert!(made.status.success(), "{}", text(&made));
    }
    [path("444.json"), path("666.json"), path("888.json")]
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn walks_from_product_schemes_apply_flips_and_replay_exactly() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let [four, six, eight] = products(dir.path());
    // The self-test fails a start whose walks apply no flip.
    let out = flipgraph(&["gpu", "--self-test", "--from", &six, "--from", &eight]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("8x8x8 rank 343"), "{}", text(&out));
    for row in bench_rows(&["--from", &six, &eight], None) {
        assert!(row["flips"].as_u64().unwrap() > 0, "{row}");
        assert_eq!(row["walkers_invalid"], 0, "{row}");
    }
    // 4x4x4 walks in `walk32_groups`, which the self-test's logged walks never run (they take
    // its checked twin): its walkers are audited and its schemes verified here.
    for row in bench_rows(&["--from", &four, "--gpu-partners", "groups"], None) {
        assert_eq!(row["walkers_invalid"], 0, "{row}");
        assert_eq!(row["rejected"], 0, "{row}");
        assert!(row["steps"].as_u64().unwrap() > 0, "{row}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn a_symmetric_start_whose_fixed_terms_cancel_hands_back_the_cancelled_scheme() {
    use flipgraph_core::formats::{write_f2, Format};
    use flipgraph_core::{Scheme, Shape, Term};
    require_gpu();
    // The naive 3x3x3 and twice the fixed term x(x)x(x)x: a C3-invariant scheme of rank 29
    // that the GPU walks at rank 27, the two cancelled.
    let naive = Scheme::naive(Shape::new(3, 3, 3).unwrap());
    let x = naive.terms()[0].a | naive.terms()[4].a;
    let twice = Term { a: x, b: x, c: x };
    let start = Scheme::new(naive.shape(), [naive.terms(), &[twice, twice]].concat()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("3x3x3-r29.json");
    std::fs::write(&file, write_f2(&start, Format::PerminovJson).unwrap()).unwrap();
    let out = bin()
        .args(["search", "--backend", "gpu", "--symmetry", "c3", "--time", "5s"])
        .args(["--target-rank", "27", "--from"])
        .arg(&file)
        .arg("--out")
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    // At the target from its first step, every walker's report is the cancelled start, read
    // from its best copy.
    assert!(!said.contains("invalid scheme"), "{said}");
    assert!(said.contains("target reached: best rank 27"), "{said}");
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn searches_under_z2_and_c6_write_verified_invariant_schemes() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let c6 = ["--size", "6", "--cubes", "110000,001100,000011", "--plus-cap", "216"];
    assert_group_search(dir.path(), "gpu", "c6", &c6);
    assert_group_search(dir.path(), "gpu", "z2", &["--size", "3x4x5"]);
}

/// Flips per step of a 2-second bench from `start` with `--gpu-partners partners`.
fn flips_per_step(start: &str, partners: &str) -> f64 {
    let args = ["--from", start, "--plateau", "1000000", "--gpu-partners", partners];
    let row = &bench_rows(&args, None)[0];
    assert_eq!(row["walkers_invalid"], 0, "{row}");
    row["flips"].as_f64().unwrap() / row["steps"].as_f64().unwrap()
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn groups_find_the_flips_that_sampling_misses_near_a_record() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let [_, six, eight] = products(dir.path());
    for start in [six, eight] {
        let (sampled, grouped) = (flips_per_step(&start, "sample"), flips_per_step(&start, "groups"));
        // A step of the group kernel draws a pair known to exist; a match of sampled terms
        // finds one in about one step of ten from these schemes.
        assert!(
            grouped > 2.0 * sampled,
            "{start}: flips per step {grouped} by groups, {sampled} by sampling"
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn a_gpu_search_of_4x4x4_climbs_from_4x3x4_by_default() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let done = search_4x4x4(&out, &["--backend", "gpu", "--time", "20s", "--json"], None);
    assert!(done.status.success(), "{}", text(&done));
    let events = json_lines(&done);
    let rung = events.iter().find(|e| e["event"] == "rung").expect("a rung event");
    assert_eq!(rung["shape"], "4x3x4", "{rung}");
    let end = events.iter().find(|e| e["event"] == "end").expect("an end event");
    assert!(end["best_rank"].as_u64().unwrap() <= 49, "{end}");
    assert_results_verify(&out);
    assert_results_verify(&out.join("ladder/4x3x4"));
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn a_ternary_gpu_search_of_4x4x4_climbs_from_3x3x4_by_default() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let args = "search --size 4 --ring zt --backend gpu --time 30s --target-rank 54 --out";
    let mut args: Vec<&str> = args.split(' ').collect();
    args.push(out.to_str().unwrap());
    let done = flipgraph(&args);
    assert!(done.status.success(), "{}", text(&done));
    let events = logged_events(&out);
    // From 3x3x4, the ZT ladder's foot, to 4x3x4, grown into 4x4x4.
    let zt = |shape: &str| (shape.to_owned(), "zt".to_owned());
    assert_eq!(rungs_of(&events), [zt("3x3x4"), zt("4x3x4")]);
    let end = events.iter().find(|e| e["event"] == "end").expect("an end event");
    assert!(end["best_rank"].as_u64().unwrap() <= 54, "{end}");
    assert!(end["climb"]["seconds"].as_f64().is_some(), "{end}");
    assert_results_verify(&out);
    assert_results_verify(&out.join("ladder/4x3x4"));
}

/// The 128-bit kernel: its self-test walks (9x9x9, 4x5x13, 2x9x10 from naive, and 9x9x9 from
/// Laderman squared) replay exactly, and a search of 9x9x9 from that product walks on the GPU
/// and writes verified schemes.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release -p flipgraph --test gpu -- --ignored"]
fn the_128_bit_kernel_replays_exactly_and_searches() {
    require_gpu();
    let dir = tempfile::tempdir().unwrap();
    let laderman = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/3x3x3-r23-laderman.m");
    let nine = dir.path().join("9x9x9.json").display().to_string();
    let made = flipgraph(&["product", laderman, laderman, "--mod2", "-o", &nine]);
    assert!(made.status.success(), "{}", text(&made));
    let out = flipgraph(&["gpu", "--self-test", "--from", &nine]);
    assert!(out.status.success(), "{}", text(&out));
    let log = text(&out);
    assert!(
        log.contains("9x9x9 rank 529 (128-bit factors") && log.contains("4x5x13 rank 260 (128-bit factors"),
        "{log}"
    );
    let results = dir.path().join("search");
    let out = flipgraph(&[
        "search",
        "--from",
        &nine,
        "--backend",
        "gpu",
        "--time",
        "5",
        "--json",
        "--out",
        results.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    // Its opening line (an info line: not under --quiet) names the engine.
    assert!(text(&out).contains("gpu: "), "{}", text(&out));
    assert_results_verify(&results);
}
