//! The records of `records/` (schemes below every public source we could check): each reads,
//! verifies over its ring at the rank its name says, and is the table's entry for its format,
//! so that a search or campaign takes only a lower rank for a record.

use std::path::PathBuf;

use flipgraph_core::formats::read_path;
use flipgraph_core::known::best_known_rank;
use flipgraph_core::verify::{verify, verify_z};

#[test]
fn every_record_verifies_at_its_rank_and_is_the_tables_entry() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../records");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let file = read_path(&path).unwrap_or_else(|e| panic!("{e}"));
        let rank: usize = name
            .split("-r")
            .nth(1)
            .unwrap()
            .trim_end_matches(".json")
            .parse()
            .unwrap();
        assert_eq!(file.scheme.rank(), rank, "{name}");
        assert_eq!(
            verify(&file.scheme.mod2::<u128>().unwrap()),
            Ok(()),
            "{name}: not valid over F2"
        );
        if !file.scheme.is_binary() {
            assert_eq!(
                verify_z(&file.scheme),
                Ok(()),
                "{name}: integer coefficients, not valid over Z"
            );
        }
        assert_eq!(
            best_known_rank(file.scheme.shape),
            Some(rank),
            "{name}: the table says otherwise"
        );
        count += 1;
    }
    assert_eq!(count, 12, "the twelve records of 2026-11-28");
}

/// The construction that found them, on one of them: the base and inner schemes it needs are
/// public files not kept here, so this checks the planner on the record's own shape instead:
/// the table's ranks plan no serendipitous product of a bud-free base (4x4x4 r47) below it.
#[test]
fn a_base_without_buds_plans_the_plain_product() {
    let base = read_path(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/4x4x4-r47-flipgraph.json"))
        .unwrap()
        .scheme;
    let inner = flipgraph_core::Shape::new(2, 2, 2).unwrap();
    let plan = flipgraph_core::serendipity::plan(&base, inner, best_known_rank).unwrap();
    assert!(plan.buds.is_empty());
    assert_eq!(plan.rank, 47 * 7);
}
