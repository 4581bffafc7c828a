//! End-to-end tests of `flipgraph search --ring zt`: the ternary search reaches its target and
//! every file it writes is valid over Z with coefficients in {-1,0,1}; what it does not take
//! yet is refused by name.

use std::path::Path;
use std::time::Duration;

mod common;

use common::{bin, data, logged_events, output_within, rungs_of, text};
use flipgraph_core::formats::{read_path, write, Format, Ring};
use flipgraph_core::ternary::{CyclicOrbits, TernaryScheme};
use flipgraph_core::Shape;

/// Every result file of `dir`, read as a ternary scheme and verified over Z; their ranks.
fn ternary_results(dir: &Path) -> Vec<usize> {
    let mut ranks = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.file_name().unwrap().to_string_lossy().contains("-r") {
            continue;
        }
        let file = read_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(file.declared_ring, Some(Ring::Z), "{}", path.display());
        let scheme = TernaryScheme::from_int(&file.scheme).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(scheme.verify(), Ok(()), "{}", path.display());
        ranks.push(scheme.rank());
    }
    ranks.sort_unstable();
    ranks
}

/// `flipgraph search --ring zt --backend cpu ARGS --out OUT`, run to its end (at most 150 s).
fn zt_search(args: &[&str], out: &Path) -> std::process::Output {
    let mut search = bin();
    search.args(["search", "--ring", "zt", "--backend", "cpu"]).args(args);
    search.arg("--out").arg(out);
    output_within(&mut search, Duration::from_secs(150), "a ternary search")
}

#[test]
fn a_ternary_search_of_3x3x3_reaches_23_on_the_cpu_and_every_file_is_valid_over_z() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zt");
    let done = zt_search(&["--size", "3", "--time", "120s", "--seed", "3"], &out);
    assert!(done.status.success(), "{}", text(&done));
    let ranks = ternary_results(&out);
    assert_eq!(ranks.first(), Some(&23), "ranks written: {ranks:?}\n{}", text(&done));
    assert!(text(&done).contains("target reached: best rank 23"), "{}", text(&done));
    let events = std::fs::read_to_string(out.join("events.jsonl")).unwrap();
    assert!(events
        .lines()
        .any(|l| l.contains("\"event\":\"end\"") && l.contains("\"stop\":\"target\"")));
}

#[test]
fn a_ternary_search_of_4x4x4_takes_c3_from_one_cube_to_49_and_every_file_is_invariant() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zt");
    // The preset (no --symmetry given); one thread: the walk is the same on every machine
    // (0.6 s here).
    let args = [
        "--size",
        "4",
        "--threads",
        "1",
        "--seed",
        "1",
        "--target-rank",
        "49",
        "--time",
        "120s",
    ];
    let done = zt_search(&args, &out);
    assert!(done.status.success(), "{}", text(&done));
    assert!(text(&done).contains("c3 from the cubes 1111"), "{}", text(&done));
    let ranks = ternary_results(&out);
    assert_eq!(ranks.first(), Some(&49), "ranks written: {ranks:?}\n{}", text(&done));
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let scheme = TernaryScheme::from_int(&read_path(&path).unwrap().scheme).unwrap();
            let orbits = CyclicOrbits::of(&scheme).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // One cube, frozen: every rank is 1 mod 3.
            assert_eq!(orbits.fixed.len(), 1, "{}", path.display());
        }
    }
}

/// 3x3x3, c3 from two cubes on one thread: a walk to 23 in well under a second.
const C3_FROM_TWO_CUBES: [&str; 8] = [
    "--size",
    "3",
    "--symmetry",
    "c3",
    "--cubes",
    "110,001",
    "--threads",
    "1",
];

#[test]
fn a_c3_ternary_search_from_two_cubes_reaches_3x3x3_rank_23() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zt");
    let done = zt_search(
        &[&C3_FROM_TWO_CUBES[..], &["--target-rank", "23", "--time", "120s"]].concat(),
        &out,
    );
    assert!(done.status.success(), "{}", text(&done));
    assert_eq!(ternary_results(&out).first(), Some(&23), "{}", text(&done));
    // Two cubes: the start is 27 - 2 + 2 + 6 = 33 terms, and every rank 2 mod 3.
    assert!(ternary_results(&out).iter().all(|r| r % 3 == 2), "{}", text(&done));
}

#[test]
fn a_ternary_search_climbs_a_ladder_and_walks_on_from_the_rung_grown() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zt");
    // 3x3x6 (54 naive terms) climbs from 3x3x4 (36, the foot) to 3x3x5, whose best is grown
    // by a slice of 9 terms.
    let done = zt_search(
        &[
            "--size",
            "3x3x6",
            "--ladder",
            "on",
            "--time",
            "16s",
            "--target-rank",
            "30",
            "--seed",
            "1",
        ],
        &out,
    );
    assert!(done.status.success(), "{}", text(&done));
    let events = logged_events(&out);
    let zt = |shape: &str| (shape.to_owned(), "zt".to_owned());
    assert_eq!(rungs_of(&events), [zt("3x3x4"), zt("3x3x5")]);
    let rung = events.iter().rfind(|e| e["event"] == "rung").expect("the last rung");
    let rung_rank = rung["rank"].as_u64().unwrap() as usize;
    assert!(rung_rank < 45, "the rung walked below its naive rank: {rung}");
    // The rung's folder holds its results, valid over Z; the search's, its naive start and the
    // rung's best grown (or lower), every file valid over Z.
    assert_eq!(ternary_results(&out.join("ladder/3x3x5")).first(), Some(&rung_rank));
    let ranks = ternary_results(&out);
    assert_eq!(ranks.last(), Some(&54), "the naive start: {ranks:?}");
    assert!(
        ranks[0] <= rung_rank + 9,
        "ranks {ranks:?} against the rung's {rung_rank} grown"
    );
    assert!(text(&done).contains("after a climb of"), "{}", text(&done));
    // Resumed with the ladder asked for again (as a campaign's next turn is): it climbed
    // already, so it walks on from its folder, and says so.
    let mut resume = bin();
    resume.args([
        "search",
        "--ring",
        "zt",
        "--backend",
        "cpu",
        "--ladder",
        "on",
        "--time",
        "1s",
        "--resume",
    ]);
    let again = output_within(resume.arg(&out), Duration::from_secs(60), "a resumed ternary search");
    assert!(again.status.success(), "{}", text(&again));
    assert!(text(&again).contains("does not climb"), "{}", text(&again));
}

#[test]
fn a_ternary_search_walks_on_from_a_ternary_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zt");
    let start = data("2x4x4-r26-perminov-ternary.json");
    let from = start.to_str().unwrap();
    let done = zt_search(
        &["--threads", "1", "--time", "3s", "--target-rank", "20", "--from", from],
        &out,
    );
    assert!(done.status.success(), "{}", text(&done));
    assert!(
        text(&done).contains("time limit: best rank 26 (2x4x4)"),
        "{}",
        text(&done)
    );
    // Nothing below the start was found: the folder holds the start, valid over Z.
    assert_eq!(ternary_results(&out), [26]);
}

/// `--lift`: the walk is F2's (here c3 from two cubes), its schemes in OUT/f2, and every scheme
/// the search itself writes is a lift, valid over Z with coefficients in {-1,0,1}, each told
/// by a `lift` event.
#[test]
fn a_lifted_ternary_search_walks_over_f2_and_writes_only_lifts_valid_over_z() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zt");
    let done = zt_search(
        &[&C3_FROM_TWO_CUBES[..], &["--lift", "--time", "120s", "--seed", "1"]].concat(),
        &out,
    );
    assert!(done.status.success(), "{}", text(&done));
    assert!(text(&done).contains("F2 walk 1"), "{}", text(&done));
    let ranks = ternary_results(&out);
    assert_eq!(ranks.first(), Some(&23), "{}", text(&done));
    // The F2 walk's own folder: schemes over F2, the lowest of the search's rank.
    let f2: Vec<usize> = std::fs::read_dir(out.join("f2"))
        .unwrap()
        .filter_map(|e| read_path(&e.unwrap().path()).ok())
        .map(|file| file.scheme.rank())
        .collect();
    assert_eq!(f2.iter().min(), Some(&23), "{f2:?}");
    let events = logged_events(&out);
    let lifted: Vec<u64> = events
        .iter()
        .filter(|e| e["event"] == "lift" && e["lifted"] == true)
        .map(|e| e["rank"].as_u64().unwrap())
        .collect();
    assert!(lifted.contains(&23), "{events:?}");
    assert!(events.iter().any(|e| e["event"] == "end" && e["stop"] == "target"));
}

/// The ZT preset of 5x5x5 lifts the F2 preset's c3 walk: the search says so and walks over F2.
#[test]
fn a_ternary_search_of_5x5x5_lifts_the_f2_preset_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zt");
    let args: Vec<&str> = "--size 5 --threads 1 --target-rank 111 --time 120s"
        .split(' ')
        .collect();
    let done = zt_search(&args, &out);
    assert!(done.status.success(), "{}", text(&done));
    assert!(
        text(&done).contains("c3 from the cubes 10001,01010,00100, over F2, each new best lifted to Z"),
        "{}",
        text(&done)
    );
    let ranks = ternary_results(&out);
    assert!(ranks.first().is_some_and(|&r| r <= 111), "{ranks:?}\n{}", text(&done));
    // c3 from three cubes: every rank a multiple of 3.
    assert!(ranks.iter().all(|r| r % 3 == 0), "{ranks:?}");
}

#[test]
fn a_ternary_search_refuses_what_it_does_not_take_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let f2_only = data("4x4x4-r47-flipgraph.json");
    let ternary = data("2x4x4-r26-perminov-ternary.json");
    let not_invariant = data("3x3x3-r23-perminov-additions58.json");
    let cases: [(&[&str], &str); 9] = [
        (&["--size", "3", "--formats", "seed"], "the seed format"),
        (
            &["--from", ternary.to_str().unwrap(), "--lift"],
            "--from and --resume are not built yet with it",
        ),
        (&["--size", "3", "--symmetry", "c6"], "groups z2 and c6"),
        (&["--size", "3", "--symmetry", "c3", "--backend", "gpu"], "on the GPU"),
        (&["--size", "3", "--cubes", "111"], "cubes without --symmetry c3"),
        (&["--size", "4", "--symmetry", "c3", "--cubes", "111"], "pattern"),
        (
            &["--from", not_invariant.to_str().unwrap(), "--symmetry", "c3"],
            "additions58.json: term 1 has a rotation that is not in the scheme",
        ),
        (
            &["--from", ternary.to_str().unwrap(), "--ladder", "on"],
            "climbs from the naive scheme",
        ),
        // An F2 scheme that is no scheme over Z.
        (&["--from", f2_only.to_str().unwrap()], "not a valid scheme over Z"),
    ];
    for (args, says) in cases {
        let out = bin()
            .args(["search", "--ring", "zt", "--time", "5s"])
            .args(args)
            .arg("--out")
            .arg(dir.path().join("refused"))
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let said = text(&out);
        assert!(said.contains(says) && !said.contains("panicked"), "{args:?}: {said}");
    }
    // A lift belongs to a search over ZT: refused by a search, and by a campaign up front.
    let campaign = dir.path().join("lift-campaign");
    let over_f2: [&[&str]; 2] = [
        &["search", "--size", "3"],
        &["campaign", "--sizes", "3x3x3", "--out", campaign.to_str().unwrap()],
    ];
    for args in over_f2 {
        let out = bin().args(args).args(["--lift", "--time", "5s"]).output().unwrap();
        let said = text(&out);
        assert!(
            !out.status.success() && said.contains("add --ring zt"),
            "{args:?}: {said}"
        );
    }
    assert!(!campaign.join("3x3x3").exists());
    // A coefficient 2: the file and the coefficient named.
    let mut two = TernaryScheme::naive(Shape::square(2).unwrap()).unwrap().to_int();
    two.terms[0].factors[0][0] = 2;
    let file = dir.path().join("two.json");
    std::fs::write(&file, write(&two, Format::PerminovJson, Ring::Z).unwrap()).unwrap();
    let out = bin()
        .args(["search", "--ring", "zt", "--time", "5s", "--from"])
        .arg(&file)
        .arg("--out")
        .arg(dir.path().join("two"))
        .output()
        .unwrap();
    let said = text(&out);
    assert!(
        !out.status.success() && said.contains("two.json") && said.contains("coefficient 2"),
        "{said}"
    );
}

#[test]
fn known_lists_the_ternary_ranks() {
    let out = bin().args(["known", "4", "--ring", "zt"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.lines()
            .any(|l| l.starts_with("4x4x4") && l.split_whitespace().nth(1) == Some("49")),
        "{said}"
    );
    let f2 = text(&bin().args(["known", "4"]).output().unwrap());
    assert!(
        f2.lines()
            .any(|l| l.starts_with("4x4x4") && l.split_whitespace().nth(1) == Some("47")),
        "{f2}"
    );
}

#[test]
fn a_ternary_campaign_leaves_out_the_formats_too_wide_for_it_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mixed");
    let mixed = zt_campaign(&["--sizes", "2x2x3,8x8x9", "--time", "5s"], &out);
    let said = text(&mixed);
    assert!(mixed.status.success(), "{said}");
    assert!(said.contains("left out: 8x8x9"), "{said}");
    assert!(
        !said.lines().any(|l| l.starts_with("8x8x9")),
        "not in the table: {said}"
    );
    let wide = zt_campaign(&["--sizes", "8x8x9", "--time", "5s"], &dir.path().join("wide"));
    let said = text(&wide);
    assert!(
        !wide.status.success() && said.contains("none of these formats"),
        "{said}"
    );
}

#[test]
fn throughput_benches_over_zt_are_refused_by_name() {
    let done = bin().args(["bench", "--ring", "zt", "--sizes", "3"]).output().unwrap();
    let said = text(&done);
    assert!(
        !done.status.success() && said.contains("--ring zt") && !said.contains("panicked"),
        "{said}"
    );
}

/// `flipgraph campaign --ring zt ARGS --backend cpu --threads 1 --out OUT`.
fn zt_campaign(args: &[&str], out: &Path) -> std::process::Output {
    bin()
        .args(["campaign", "--ring", "zt", "--backend", "cpu", "--threads", "1"])
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn a_ternary_campaign_takes_each_format_to_its_zt_rank_and_skips_it_when_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c");
    let first = zt_campaign(&["--sizes", "2x2x2,3x3x3", "--time", "120s", "--json"], &out);
    assert!(first.status.success(), "{}", text(&first));
    let said = text(&first);
    // The table over ZT: 2x2x2 at 7 and 3x3x3 at 23, each its best known ZT rank.
    assert!(
        said.contains("2 of 2 formats with a best known rank are at it or below"),
        "{said}"
    );
    for (shape, rank) in [("2x2x2", 7), ("3x3x3", 23)] {
        assert_eq!(ternary_results(&out.join(shape)).first(), Some(&rank), "{shape}");
    }
    let again = zt_campaign(&["--sizes", "2x2x2,3x3x3", "--time", "120s"], &out);
    assert!(again.status.success(), "{}", text(&again));
    assert_eq!(text(&again).matches("skipped").count(), 2, "{}", text(&again));
    assert!(text(&again).contains("target reached"), "{}", text(&again));
}

#[test]
fn a_ternary_hunt_starts_from_the_public_best_over_zt_and_resumes_from_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let public = dir.path().join("public");
    std::fs::create_dir_all(&public).unwrap();
    for file in ["2x4x4-r26-perminov-ternary.json", "4x4x4-r47-flipgraph.json"] {
        std::fs::copy(data(file), public.join(file)).unwrap();
    }
    let out = dir.path().join("hunt");
    let args = [
        "--sizes",
        "2x4x4",
        "--hunt",
        "--time",
        "2s",
        "--from",
        public.to_str().unwrap(),
    ];
    let first = zt_campaign(&args, &out);
    assert!(first.status.success(), "{}", text(&first));
    assert!(
        text(&first).contains("the public best (rank 26 over ZT"),
        "{}",
        text(&first)
    );
    // The start is in the format's folder, as it is (valid over Z), and below nothing else.
    assert_eq!(ternary_results(&out.join("2x4x4")).first(), Some(&26));
    // The next run resumes the format from its folder, aimed below its rank.
    let again = zt_campaign(&args, &out);
    assert!(again.status.success(), "{}", text(&again));
    assert!(text(&again).contains("2x4x4: resuming"), "{}", text(&again));
    assert!(text(&again).contains("hunting below it"), "{}", text(&again));
}

#[test]
fn a_ternary_search_resumes_from_its_folder_and_keeps_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zt");
    let first = zt_search(&["--size", "3", "--threads", "1", "--target-rank", "25"], &out);
    assert!(first.status.success(), "{}", text(&first));
    let before = ternary_results(&out);
    let reached = before[0];
    assert!((24..=25).contains(&reached), "{before:?}");
    // Without --resume the folder is refused; with it the search goes on from there.
    let fresh = bin()
        .args(["search", "--size", "3", "--ring", "zt", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        !fresh.status.success() && text(&fresh).contains("--out"),
        "{}",
        text(&fresh)
    );
    // An F2 resume of it says how to resume it.
    let f2 = bin()
        .args(["search", "--time", "2s", "--resume"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        !f2.status.success() && text(&f2).contains("--ring zt --resume"),
        "{}",
        text(&f2)
    );
    let done = zt_search(
        &[
            "--time",
            "120s",
            "--target-rank",
            "23",
            "--resume",
            out.to_str().unwrap(),
        ],
        &out,
    );
    assert!(done.status.success(), "{}", text(&done));
    let after = ternary_results(&out);
    assert_eq!(after.first(), Some(&23), "{after:?}");
    assert!(before.iter().all(|r| after.contains(r)), "{before:?} then {after:?}");
    let events = std::fs::read_to_string(out.join("events.jsonl")).unwrap();
    let start = format!("\"rank\":{reached},");
    assert!(
        events
            .lines()
            .any(|l| l.contains("\"resumed\":true") && l.contains(&start)),
        "{events}"
    );
}

#[test]
fn a_ternary_result_that_cannot_be_written_is_rescued_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zt");
    // Folders squatting on the result names make their renames fail (even for root).
    for rank in 20..=26 {
        std::fs::create_dir_all(out.join(format!("3x3x3-r{rank}.json"))).unwrap();
    }
    let rescue_dir = dir.path().join("tmp");
    std::fs::create_dir_all(&rescue_dir).unwrap();
    let mut search = bin();
    search.args([
        "search",
        "--ring",
        "zt",
        "--backend",
        "cpu",
        "--threads",
        "1",
        "--size",
        "3",
    ]);
    search
        .args(["--target-rank", "26", "--out"])
        .arg(&out)
        .env("TMPDIR", &rescue_dir);
    let done = output_within(
        &mut search,
        Duration::from_secs(60),
        "the ternary search into a blocked folder",
    );
    assert_eq!(done.status.code(), Some(1), "{}", text(&done));
    assert!(
        text(&done).contains("cannot write the 3x3x3 scheme of rank"),
        "{}",
        text(&done)
    );
    let rescued: Vec<_> = std::fs::read_dir(&rescue_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("flipgraph-rescued-")
        })
        .flat_map(|folder| std::fs::read_dir(folder).unwrap().map(|e| e.unwrap().path()))
        .collect();
    assert_eq!(rescued.len(), 1, "{rescued:?}");
    let file = read_path(&rescued[0]).unwrap();
    assert_eq!(file.declared_ring, Some(Ring::Z));
    let scheme = TernaryScheme::from_int(&file.scheme).unwrap();
    assert!(scheme.rank() <= 26 && scheme.verify().is_ok(), "rank {}", scheme.rank());
}
