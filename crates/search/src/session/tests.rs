//! Tests of a whole search: its target, its files and its resume.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use flipgraph_core::formats::read_path;
use flipgraph_core::verify::verify;
use flipgraph_core::Shape;

use super::recipe::Recipe;
use super::{Search, SearchError};
use crate::driver::Stop;
use crate::engine::Backend;

/// The library runs the whole search without the command line: a verified scheme at its
/// target in its folder; and a resume that contradicts it is refused in library words.
#[test]
fn a_search_writes_a_verified_scheme_at_its_target_and_its_resume_keeps_its_shape() {
    let dir = std::env::temp_dir().join(format!("flipgraph-session-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let recipe = Recipe {
        backend: Backend::Cpu,
        threads: Some(1),
        ..Recipe::default()
    };
    let search = Search {
        out: Some(dir.clone()),
        time: Some(Duration::from_secs(60)),
        ..Search::new(Shape::square(2).unwrap(), recipe)
    };
    let ended = search.run_until(&AtomicBool::new(false)).unwrap();
    assert_eq!((ended.best_rank, ended.stop), (7, Stop::Target));
    let written = read_path(&dir.join("2x2x2-r7.json")).unwrap().f2::<u64>().unwrap();
    assert!(verify(&written).is_ok());
    // What an embedder gets back: the scheme, and the file that holds it.
    assert_eq!(ended.best_file.as_deref(), Some(dir.join("2x2x2-r7.json").as_path()));
    assert_eq!(ended.best.mod2::<u64>().unwrap(), written);
    let contradicting = Search {
        resume: Some(dir.clone()),
        shape: Some(Shape::square(3).unwrap()),
        ..search
    };
    let refused = contradicting
        .run(&AtomicBool::new(false), Instant::now(), None)
        .unwrap_err();
    assert!(
        matches!(refused.kind, crate::Kind::Search(SearchError::ResumedShape { .. })),
        "{refused}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
