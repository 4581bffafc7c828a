//! Tests of `flipgraph bench`'s flags, seeds and reports.

use super::time_to_rank::{engine_flags, in_seed_order, lowest_rank_written, reached_summary, side_by_side, RunEnd};
use super::{median_of_runs, parse_seeds, row_over_seeds, Seeds};
use crate::commands::engine_args::tests::{engine, C6_6X6X6};
use serde_json::json;

#[test]
fn time_to_rank_runs_get_the_engine_flags_as_given() {
    for given in [
        engine::<&str>(&[]),
        engine(&[
            "--reductions",
            "scan",
            "--round-steps",
            "1000",
            "--gpu-flips",
            "3",
            "--plateau",
            "50",
            "--gpu-hints",
            "on",
            "--gpu-partners",
            "groups",
        ]),
        engine(&[
            "--backend",
            "gpu",
            "--gpu-round-ms",
            "300",
            "--no-generalized-flips",
            "--gpu",
            "1",
        ]),
        engine(&["--backend", "cpu", "--symmetry", "c3"]),
        engine(&["--symmetry", "none", "--patience", "9", "--sparse", "off"]),
        engine(&["--sparse", "all"]),
        engine(&["--ladder", "off"]),
        engine(&["--ladder", "on", "--rung-stall", "1.5s", "--follow", "25"]),
        engine(&["--symmetry", "c3", "--cubes", "10001,01010", "--fixed-terms", "free"]),
        engine(&["--symmetry", "z2", "--backend", "gpu"]),
        engine(&C6_6X6X6),
    ] {
        let passed = engine(&engine_flags(&given));
        assert_eq!(format!("{passed:?}"), format!("{given:?}"));
    }
}

#[test]
fn seeds_are_a_range_or_a_list() {
    assert_eq!(parse_seeds("1-3"), Ok(Seeds(vec![1, 2, 3])));
    assert_eq!(parse_seeds("4-4"), Ok(Seeds(vec![4])));
    assert_eq!(parse_seeds("1,2,5"), Ok(Seeds(vec![1, 2, 5])));
    assert_eq!(parse_seeds("7"), Ok(Seeds(vec![7])));
    assert_eq!(parse_seeds(" 2 , 4 "), Ok(Seeds(vec![2, 4])));
    assert_eq!(parse_seeds("1-1000").map(|s| s.0.len()), Ok(1000));
    for bad in ["3-1", "1-x", "", "1,,2", "-1", "1-", "-", "1-3,7", "1,1", "1-1001"] {
        assert!(parse_seeds(bad).is_err(), "{bad}");
    }
    // Refused before a list is made: no allocation of the range.
    let huge = parse_seeds("0-18446744073709551615").unwrap_err();
    assert!(huge.contains("more than 1000"), "{huge}");
}

#[test]
fn several_seeds_make_one_row_of_medians_with_the_runs_beside() {
    let run = |seed: u64, rank: u64, rate: f64| {
        json!({"start": "5x5x5", "seed": seed, "rank": rank, "vertices_per_s": rate,
               "steps_per_s": 2.0 * rate, "seconds": 60.0, "walkers_audited": 10,
               "walkers_invalid": 0, "rejected": 0, "vertices": seed * 100})
    };
    let row = row_over_seeds(vec![run(1, 99, 3.0), run(2, 97, 1.0), run(3, 101, 2.0)]);
    assert_eq!(row["rank"], json!(99));
    assert_eq!(row["vertices_per_s"], json!(2.0));
    assert_eq!(row["steps_per_s"], json!(4.0));
    assert_eq!(row["ranks"], json!([99, 97, 101]));
    assert_eq!(row["seeds"], json!([1, 2, 3]));
    assert_eq!(row["walkers_audited"], json!(30));
    assert_eq!(row["runs"].as_array().map(Vec::len), Some(3));
    assert!(row.get("seed").is_none(), "{row}");
    assert!(row.get("vertices").is_none(), "a count of one seed's run: {row}");
    // An even count: the mean of the middle two rates, the lower middle rank.
    let row = row_over_seeds(vec![run(1, 99, 1.0), run(2, 96, 2.0)]);
    assert_eq!(row["rank"], json!(96));
    assert_eq!(row["vertices_per_s"], json!(1.5));
}

#[test]
fn the_median_counts_the_runs_that_did_not_reach_the_rank() {
    // 10 runs, 9 reached: the median is that of the 5th and 6th fastest.
    let nine = [2.0, 3.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 22.0];
    assert_eq!(median_of_runs(&nine, 10), Some(7.5));
    // 10 runs, 5 reached: the 6th is a failure, so the median is above the timeout.
    assert_eq!(median_of_runs(&nine[..5], 10), None);
    assert_eq!(median_of_runs(&nine[..5], 9), Some(7.0));
    assert_eq!(median_of_runs(&[], 0), None);
}

#[test]
fn the_lowest_rank_written_is_read_from_the_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let shape = flipgraph_core::Shape::square(4).unwrap();
    assert_eq!(lowest_rank_written(dir.path(), shape), None);
    for name in [
        "4x4x4-r52.json",
        "4x4x4-r49.json",
        "4x4x4-r48.txt",
        "3x3x3-r23.json",
        "notes",
    ] {
        std::fs::write(dir.path().join(name), "").unwrap();
    }
    assert_eq!(lowest_rank_written(dir.path(), shape), Some(49));
}

#[test]
fn a_summary_of_no_reached_runs_says_so() {
    assert_eq!(reached_summary(&[]), "none reached it");
    assert_eq!(
        reached_summary(&[2.0, 4.0]),
        "of those that reached it: mean 3.00s, min 2.00s, max 4.00s"
    );
}

#[test]
fn runs_side_by_side_never_share_a_gpu_or_a_core() {
    let lanes = side_by_side(&engine::<&str>(&[]), 3, 4).unwrap();
    assert_eq!(
        lanes.iter().map(|l| l.gpu).collect::<Vec<_>>(),
        [Some(0), Some(1), Some(2)]
    );
    for (given, jobs, gpus) in [
        (&["--gpu", "1"][..], 2, 4),
        (&["--gpu", "0"], 2, 0),
        (&[], 5, 4),
        (&[], crate::engine::cores() + 1, 0),
    ] {
        let refused = side_by_side(&engine(given), jobs, gpus).unwrap_err().to_string();
        assert!(refused.starts_with(&format!("--jobs {jobs}")), "{refused}");
    }
}

#[test]
fn the_runs_are_reported_in_the_seeds_order_whichever_lane_ended_first() {
    let missed = RunEnd::Missed {
        lowest: Some(74),
        error: None,
    };
    let ended = vec![
        (2, 9, RunEnd::Reached(1.5)),
        (0, 5, missed.clone()),
        (1, 7, RunEnd::Reached(0.5)),
    ];
    assert_eq!(
        in_seed_order(ended),
        [(5, missed), (7, RunEnd::Reached(0.5)), (9, RunEnd::Reached(1.5))]
    );
}
