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

/// `best_schemes` takes each new best and the other schemes of the best rank the pool takes:
/// every one verified, no rank above one sent before it, none twice, and the last of the rank
/// the search ended at.
#[test]
fn a_search_sends_its_best_schemes_and_others_of_their_rank_as_they_come() {
    let dir = std::env::temp_dir().join(format!("flipgraph-best-schemes-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (sender, received) = std::sync::mpsc::channel();
    let search = Search {
        out: Some(dir.clone()),
        // Below the best known: it walks the plateau of 23 until its time is up.
        target: Some(22),
        time: Some(Duration::from_secs(3)),
        best_schemes: Some(sender),
        ..Search::new(
            Shape::square(3).unwrap(),
            Recipe {
                backend: Backend::Cpu,
                threads: Some(1),
                ..Recipe::default()
            },
        )
    };
    let ended = search.run_until(&AtomicBool::new(false)).unwrap();
    drop(search);
    let sent: Vec<_> = received.iter().collect();
    assert!(sent.iter().all(|s| verify(s).is_ok()));
    assert!(sent.windows(2).all(|w| w[1].rank() <= w[0].rank()), "ranks rise");
    let distinct: std::collections::HashSet<_> = sent.iter().map(|s| s.sorted_terms()).collect();
    assert_eq!(distinct.len(), sent.len(), "a scheme sent twice");
    let last_rank = sent.last().map(|s| s.rank());
    assert_eq!(last_rank, Some(ended.best_rank));
    let of_best = sent.iter().filter(|s| s.rank() == ended.best_rank).count();
    assert!(of_best >= 2, "only {of_best} scheme of rank {}", ended.best_rank);
    std::fs::remove_dir_all(&dir).unwrap();
}
