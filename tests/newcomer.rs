//! End-to-end tests of what a newcomer stumbled on and a hostile audit found (issue 67): each
//! failed before its fix.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

mod common;

use common::{bin, data, flipgraph, interrupt, output_within, search_on_one_thread, text};

fn d(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A valid 2x2x2 scheme of `rank` terms over F2, in the letter format: Strassen's seven and
/// pairs of one equal term (which cancel), so that large valid inputs cost nothing to make.
fn padded_strassen(dir: &Path, rank: usize) -> std::path::PathBuf {
    let letter = dir.join("strassen.exp");
    let out = flipgraph(&[
        "convert",
        d(&data("2x2x2-r7-strassen.m")),
        "--mod2",
        "--to",
        "letter",
        "-o",
        d(&letter),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let mut body = std::fs::read_to_string(&letter).unwrap();
    for _ in 0..(rank - 7) / 2 {
        body += "(a11)*(b11)*(c11)\n(a11)*(b11)*(c11)\n";
    }
    let path = dir.join(format!("2x2x2-r{rank}.exp"));
    std::fs::write(&path, body).unwrap();
    path
}

#[test]
fn quiet_says_nothing_of_a_search_that_ends_well() {
    let dir = tempfile::tempdir().unwrap();
    let out = search_on_one_thread()
        .args(["--size", "2x2x3", "--seed", "1", "-q", "--out"])
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(text(&out), "", "-q printed");
    assert!(dir.path().join("run/2x2x3-r11.json").exists());
}

/// Every file the examples of `--help` name is in the repository (they named
/// `schemes/*.m` and `strassen.m`, which are nowhere).
#[test]
fn the_help_examples_name_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for command in [&["--help"][..], &["bench", "--help"]] {
        let help = text(&flipgraph(command));
        let examples = help
            .split("Example")
            .nth(1)
            .unwrap_or_else(|| panic!("{command:?}: no examples"));
        let mut named = 0;
        for word in examples.split_whitespace() {
            let is_scheme = [".m", ".exp", ".json", ".b32"].iter().any(|e| word.ends_with(e));
            if !is_scheme || !word.contains('/') {
                assert!(
                    !is_scheme || !examples.contains(&format!(" {word} ")) || examples.contains(&format!("-o {word}")),
                    "{command:?}: {word} is no file of the repository"
                );
                continue;
            }
            named += 1;
            let path = root.join(word.replace("*.m", "2x2x2-r7-strassen.m"));
            assert!(path.exists(), "{command:?}: {word} does not exist");
        }
        assert!(named > 0, "{command:?}: its examples name no file of the repository");
    }
}

#[test]
fn the_helps_give_the_limits_and_defaults_that_hold() {
    let known = text(&flipgraph(&["known", "--help"]));
    assert!(known.contains("searches walk every one of them"), "{known}");
    let search = text(&flipgraph(&["search", "--help"]));
    assert!(search.contains("[default: none"), "--time gives no default: {search}");
    let split = text(&flipgraph(&["split", "--help"]));
    assert!(
        !split.contains("--output"),
        "split offers -o, which it refuses: {split}"
    );
}

#[test]
fn known_says_which_files_of_a_results_folder_it_passed_over() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir_all(results.join("a")).unwrap();
    std::fs::copy(data("2x2x2-r7-strassen.m"), results.join("a/2x2x2-r7.m")).unwrap();
    std::fs::copy(data("2x2x2-r7-strassen.m"), results.join("a/strassen.m")).unwrap();
    std::fs::write(results.join("a/checkpoint.json"), "{}").unwrap();
    let out = flipgraph(&["known", "2x2x2", "--results", d(&results)]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("1 file(s) not named SHAPE-rRANK.EXT") && said.contains("strassen.m"),
        "{said}"
    );
}

/// A scheme to itself, or to its terms in another order, is the empty path (it was 174 moves).
#[test]
fn a_path_from_a_scheme_to_itself_has_no_move() {
    let dir = tempfile::tempdir().unwrap();
    let strassen = data("2x2x2-r7-strassen.m");
    let letter = dir.path().join("s.exp");
    let out = flipgraph(&["convert", d(&strassen), "--to", "letter", "-o", d(&letter)]);
    assert!(out.status.success(), "{}", text(&out));
    let mut lines: Vec<String> = std::fs::read_to_string(&letter)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines.reverse();
    let reversed = dir.path().join("reversed.exp");
    std::fs::write(&reversed, lines.join("\n") + "\n").unwrap();
    for other in [&strassen, &reversed] {
        let out = flipgraph(&["path", d(&strassen), d(other)]);
        assert!(out.status.success(), "{}", text(&out));
        assert!(text(&out).contains(": 0 moves"), "{}", text(&out));
    }
}

#[test]
fn gpu_without_one_says_that_searches_run_on_the_cpu() {
    let out = flipgraph(&["gpu"]);
    if out.status.success() {
        assert!(text(&out).contains("GPU 0:"), "{}", text(&out));
    } else {
        assert!(text(&out).contains("searches run on the CPU"), "{}", text(&out));
    }
}

#[test]
fn verify_passes_over_folders_and_calls_other_files_no_scheme() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let notes = dir.path().join("NOTES.md");
    std::fs::write(
        &notes,
        "# Notes\n\nThe seed block starts with BEGIN-RANK245-7X7X7-ZLIB-BASE32.\n",
    )
    .unwrap();
    let out = flipgraph(&[
        "verify",
        d(&dir.path().join("sub")),
        d(&notes),
        d(&data("2x2x2-r7-strassen.m")),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("sub: a folder, passed over"), "{said}");
    assert!(said.contains("NOTES.md:1: not a scheme file"), "{said}");
    assert!(said.contains("1 of 2 files are not valid"), "{said}");
}

#[test]
fn a_failed_lift_says_what_may_still_find_one() {
    let out = flipgraph(&["lift", d(&data("4x4x4-r47-flipgraph.json"))]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("no lift exists") && text(&out).contains("hint: "),
        "{}",
        text(&out)
    );
}

/// A resume given no --time runs for what is left of the search's own (it ran unbounded), and
/// its end line counts time as its status line does, earlier runs included.
#[test]
fn a_resume_keeps_the_time_limit_the_search_was_started_with() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut child = search_on_one_thread()
        .args(["--size", "4", "--target-rank", "30", "--time", "4s", "--out", d(&out)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let (status, said) = interrupt(&mut child, Duration::from_secs(20));
    assert!(status.success(), "{said}");
    let started = Instant::now();
    let resumed = output_within(
        bin().args(["search", "--resume", d(&out)]),
        Duration::from_secs(60),
        "the resume ran on past the search's --time",
    );
    assert!(resumed.status.success(), "{}", text(&resumed));
    let said = text(&resumed);
    assert!(said.contains("time limit: best rank"), "{said}");
    assert!(said.contains("left (--time gives this run another)"), "{said}");
    assert!(said.contains("in all, earlier runs included"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(30), "{said}");
}

#[test]
fn campaign_bounds_its_passes_and_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = |flags: &[&str]| {
        output_within(
            bin()
                .args([
                    "campaign",
                    "--sizes",
                    "2x2x2",
                    "--backend",
                    "cpu",
                    "--out",
                    d(dir.path()),
                ])
                .args(flags),
            Duration::from_secs(30),
            "the campaign took its flags and ran",
        )
    };
    let out = campaign(&["--passes", "4000000000"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    for jobs in ["18446744073709551615", "4294967296", "1000000"] {
        let out = campaign(&["--jobs", jobs]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(text(&out).contains("more only take turns"), "{}", text(&out));
    }
}

#[test]
fn islands_on_the_cpu_take_a_core_each() {
    let out = output_within(
        bin().args([
            "search",
            "--size",
            "8",
            "--backend",
            "cpu",
            "--islands",
            "1024",
            "--time",
            "3",
        ]),
        Duration::from_secs(30),
        "1024 islands set out",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("each island takes a core at least"),
        "{}",
        text(&out)
    );
}

/// Products, sums and extensions of more terms than any reader takes back are refused before
/// they are built or written (a product of two rank-60,000 schemes aborted on 259 GB).
#[test]
fn schemes_no_reader_takes_back_are_never_built_nor_written() {
    let dir = tempfile::tempdir().unwrap();
    let big = padded_strassen(dir.path(), 40_001);
    let out = output_within(
        bin().args(["product", d(&big), d(&big), "-o", d(&dir.path().join("p.json"))]),
        Duration::from_secs(60),
        "the product was built",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("more than the 65536 terms"), "{}", text(&out));
    let sum = dir.path().join("s.json");
    let out = flipgraph(&["sum", d(&big), d(&big), "--dim", "p", "-o", d(&sum)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("rank 80002 is more than"), "{}", text(&out));
    assert!(!dir.path().join("p.json").exists() && !sum.exists());
}

#[test]
fn construct_refuses_to_write_over_a_scheme_it_is_built_from() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("res/a");
    std::fs::create_dir_all(&results).unwrap();
    let input = results.join("2x2x2-r7.m");
    std::fs::copy(data("2x2x2-r7-strassen.m"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let res = dir.path().join("res");
    let out = flipgraph(&["construct", "4x4x4", "--results", d(&res), "-o", d(&input)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("the construction is built from"), "{}", text(&out));
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

/// `split` writes both parts or neither, whatever stops the second (a full device here).
#[test]
fn split_takes_its_first_part_back_when_the_second_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    let r98 = dir.path().join("r98.json");
    let strassen = data("2x2x2-r7-strassen.m");
    let r49 = dir.path().join("r49.json");
    assert!(flipgraph(&["product", d(&strassen), d(&strassen), "-o", d(&r49)])
        .status
        .success());
    assert!(flipgraph(&["sum", d(&r49), d(&r49), "--dim", "p", "-o", d(&r98)])
        .status
        .success());
    let first = dir.path().join("first.json");
    let out = flipgraph(&["split", d(&r98), "--dim", "p", "--at", "4", d(&first), "/dev/full"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("taken back"), "{}", text(&out));
    assert!(!first.exists(), "the first part stayed");
    // A first part that was there before is put back as it was.
    std::fs::write(&first, "mine").unwrap();
    let out = flipgraph(&["split", d(&r98), "--dim", "p", "--at", "4", d(&first), "/dev/full"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "mine");
}

#[test]
fn a_utf16_file_is_named_so_and_no_nul_byte_is_echoed() {
    let dir = tempfile::tempdir().unwrap();
    let utf16: Vec<u8> = "(a11)*(b11)*(c11)\n".bytes().flat_map(|b| [b, 0]).collect();
    for (name, bytes) in [
        ("plain.exp", utf16.clone()),
        ("bom.exp", [&[0xff, 0xfe][..], &utf16].concat()),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = flipgraph(&["verify", d(&path)]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            !out.stdout.contains(&0) && !out.stderr.contains(&0),
            "{name}: a NUL byte echoed"
        );
        assert!(text(&out).contains("UTF-16"), "{}", text(&out));
    }
}

/// A resumed search keeps its group (`--symmetry z2` on a c3 search was ignored), and schemes
/// cannot join a search from cubes (the refusal named `--cubes`, which nobody gave).
#[test]
fn a_resume_refuses_what_contradicts_its_checkpoint_in_its_own_words() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let out = search_on_one_thread()
        .args([
            "--size",
            "4",
            "--symmetry",
            "c3",
            "--cubes",
            "1001,0110",
            "--time",
            "0",
            "--out",
            d(&run),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = flipgraph(&["search", "--resume", d(&run), "--symmetry", "z2", "--time", "0"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("a resume keeps its group"), "{}", text(&out));
    let out = flipgraph(&[
        "search",
        "--resume",
        d(&run),
        "--from",
        d(&data("4x4x4-r47-flipgraph.json")),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(!text(&out).contains("--cubes and --from"), "{}", text(&out));
    assert!(text(&out).contains("restarts from its cube start"), "{}", text(&out));
}

/// `kill -9` of a time-to-rank bench takes its runs with it (they ran on, re-parented), and
/// the next bench removes the temp folder it left.
#[cfg(target_os = "linux")]
#[test]
fn the_runs_of_a_bench_killed_outright_end_with_it() {
    let mut bench = bin()
        .args([
            "bench",
            "--time-to-rank",
            "4x4x4:30",
            "--runs",
            "2",
            "--jobs",
            "2",
            "--timeout",
            "60s",
            "--backend",
            "cpu",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let children = |pid: u32| -> Vec<u32> {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return Vec::new();
        };
        tasks
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
            .flat_map(|c| {
                c.split_whitespace()
                    .filter_map(|p| p.parse().ok())
                    .collect::<Vec<u32>>()
            })
            .collect()
    };
    let started = Instant::now();
    let runs = loop {
        let runs = children(bench.id());
        if runs.len() == 2 {
            break runs;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the bench started no runs");
        std::thread::sleep(Duration::from_millis(50));
    };
    let tmp = std::env::temp_dir().join(format!("flipgraph-ttr-{}", bench.id()));
    bench.kill().unwrap();
    bench.wait().unwrap();
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
        })
    };
    let killed = Instant::now();
    while runs.iter().any(|&pid| alive(pid)) {
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "the runs outlived their bench"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    if tmp.exists() {
        let again = flipgraph(&["bench", "--time-to-rank", "2x2x2:7", "--runs", "1", "--backend", "cpu"]);
        assert!(again.status.success(), "{}", text(&again));
        assert!(!tmp.exists(), "the temp folder of the killed bench stayed");
    }
}

/// The second hostile pass (this session's): ways to lose a scheme or a search's files by
/// naming an output after an input, by any name.
#[test]
fn no_output_replaces_an_input_by_any_name() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    std::fs::copy(data("3x3x3-r23-laderman.m"), at("l.m")).unwrap();
    std::os::unix::fs::symlink(at("l.m"), at("link.m")).unwrap();
    let before = std::fs::read(at("l.m")).unwrap();
    let l = d(&at("l.m")).to_owned();
    let link = d(&at("link.m")).to_owned();
    let cases: [Vec<&str>; 7] = [
        vec!["extend", &l, "--dim", "p", "-o", &l],
        vec!["rotate", &l, "-o", &link],
        vec!["transpose", &l, "-o", &link],
        vec!["project", &l, "--dim", "n", "-o", &l],
        vec!["product", &l, &l, "-o", &l],
        vec!["sum", &l, &l, "--dim", "p", "-o", &link],
        vec!["path", &l, &l, "-o", &l],
    ];
    for args in cases {
        let out = flipgraph(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("that is the input"), "{args:?}: {}", text(&out));
        assert_eq!(std::fs::read(at("l.m")).unwrap(), before, "{args:?} replaced its input");
    }
    // split's two outputs, one a link to the other not yet written.
    std::os::unix::fs::symlink(at("q.json"), at("ql.json")).unwrap();
    let out = flipgraph(&[
        "split",
        &l,
        "--dim",
        "p",
        "--at",
        "1",
        d(&at("q.json")),
        d(&at("ql.json")),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(!at("q.json").exists());
    // plot through a link named .svg onto a search's checkpoint.
    let run = at("run");
    let done = search_on_one_thread()
        .args(["--size", "2", "--out", d(&run), "-q"])
        .output()
        .unwrap();
    assert!(done.status.success(), "{}", text(&done));
    let checkpoint = std::fs::read(run.join("checkpoint.json")).unwrap();
    std::os::unix::fs::symlink(run.join("checkpoint.json"), at("c.svg")).unwrap();
    let out = flipgraph(&["plot", d(&run), "-o", d(&at("c.svg"))]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(std::fs::read(run.join("checkpoint.json")).unwrap(), checkpoint);
}

#[test]
fn codegen_moves_the_signs_it_can_and_counts_the_rest() {
    for scheme in [
        "3x3x3-r23-laderman.m",
        "5x5x5-r93-c3-flipgraph-lifted.json",
        "7x7x7-r250-perminov-ternary.json",
    ] {
        let out = flipgraph(&["codegen", d(&data(scheme))]);
        assert!(out.status.success(), "{}", text(&out));
        let code = String::from_utf8_lossy(&out.stdout);
        let written = code.matches("-(").count();
        let said = String::from_utf8_lossy(&out.stderr);
        match written {
            0 => assert!(!said.contains("unary negations"), "{scheme}: {said}"),
            n => assert!(
                said.contains(&format!("{n} of them unary negations")),
                "{scheme}: {n} written: {said}"
            ),
        }
        assert!(written <= 3, "{scheme}: {written} unary negations written");
    }
}

#[test]
fn a_full_standard_output_is_named_as_such() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = bin()
        .args(["rotate", d(&data("2x2x2-r7-strassen.m"))])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("cannot write to standard output"), "{}", text(&out));
}

/// A search at its time limit waits for the lift of its record a tenth of the limit (2 s at
/// least), not until the lift ends: the lift of a 6x7x16 record held a `--time 35` search for
/// three minutes.
#[test]
fn a_timed_search_does_not_wait_long_for_the_lift_of_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = output_within(
        search_on_one_thread().args([
            "--from",
            d(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../records/16x6x7-r457.json")),
            "--best-known",
            "470",
            "--time",
            "1",
            "--out",
            d(&dir.path().join("run")),
        ]),
        Duration::from_secs(60),
        "the search waited for its lift",
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("NEW RECORD"), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("was not finished") || said.contains("lift"), "{said}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}: {said}",
        started.elapsed()
    );
}
