//! Tests of the recipe: its defaults, its refusals, its resume and its islands' shares.

use std::path::Path;

use flipgraph_core::device::Partners;
use flipgraph_core::group::Group;
use flipgraph_core::sparsity::Sparsity;
use flipgraph_core::symmetry::FixedTerms;

use super::{Islands, Recipe, RecipeError, SymmetricStart, Walk};
use super::{CUBE_PLATEAU, CUBE_PLUS_SLACK};
use crate::islands::portfolio::{Portfolio, MEMBERS};
use crate::islands::{Island, Place, Sharing, ThreadPeers};
use crate::output::Recorded;

/// The places of a job of `size` islands on one host.
fn places(size: usize) -> Vec<Place> {
    ThreadPeers::board(size)
        .into_iter()
        .enumerate()
        .map(|(local_index, peers)| Place {
            island: Island::new(Box::new(peers), Sharing::default()),
            local_index,
            local_size: size,
        })
        .collect()
}

#[test]
fn islands_walk_their_portfolio_members_where_the_recipe_leaves_it_open() {
    let specs = |recipe: &Recipe| places(4).iter().map(|p| recipe.shared_by(p).spec()).collect::<Vec<_>>();
    let lone = Recipe::default().spec();
    let open = specs(&Recipe::default());
    assert_eq!(
        (open[0].plus_slack, open[0].floor_quarters),
        (lone.plus_slack, lone.floor_quarters)
    );
    for (spec, member) in open.iter().zip(MEMBERS) {
        assert_eq!(
            (spec.plus_slack, spec.floor_quarters),
            (member.plus_slack, member.floor_quarters)
        );
    }
    assert_ne!(
        open[1].walk_config(crate::engine::Kind::Gpu),
        open[0].walk_config(crate::engine::Kind::Gpu)
    );
    // Off: every island as a lone search; a given slack or fixed cubes hold on every island.
    let off = specs(&Recipe {
        islands: Islands {
            portfolio: Portfolio::Off,
            ..Islands::default()
        },
        ..Recipe::default()
    });
    assert!(off
        .iter()
        .all(|s| (s.plus_slack, s.floor_quarters) == (lone.plus_slack, lone.floor_quarters)));
    let given = specs(&Recipe {
        walk: Walk {
            plus_slack: Some(3),
            ..Walk::default()
        },
        ..Recipe::default()
    });
    assert!(given.iter().all(|s| s.plus_slack == 3));
    let cubes = specs(&Recipe {
        symmetric: SymmetricStart {
            cubes: vec!["111".into()],
            ..SymmetricStart::default()
        },
        ..Recipe::default()
    });
    assert!(cubes
        .iter()
        .all(|s| s.plus_slack == CUBE_PLUS_SLACK && s.plateau == Some(CUBE_PLATEAU)));
}

use crate::engine::EngineSpec;

#[test]
fn the_default_recipe_gives_the_default_engine() {
    assert_eq!(Recipe::default().spec(), EngineSpec::default());
}

/// An embedder's cube patterns are checked as the command line's are: a pattern that is
/// not one is refused, not read as another.
#[test]
fn a_cube_pattern_that_is_not_one_is_refused() {
    let shape = flipgraph_core::Shape::square(3).unwrap();
    let cubes = |patterns: &[&str]| Recipe {
        symmetric: SymmetricStart {
            symmetry: Some(Group::C3),
            cubes: patterns.iter().map(|&p| p.to_owned()).collect(),
            ..SymmetricStart::default()
        },
        ..Recipe::default()
    };
    for bad in ["0a1", "000"] {
        let refused = cubes(&[bad]).naive_start::<u64>(shape).unwrap_err();
        assert!(
            matches!(refused.downcast_ref::<RecipeError>(), Some(RecipeError::BadCube(_))),
            "{bad}: {refused:#}"
        );
    }
    assert_eq!(cubes(&["101", "010"]).naive_start::<u64>(shape).unwrap().shape(), shape);
}

/// A resume takes what its checkpoint records where the recipe leaves it open, and keeps
/// what the recipe chose; cubes are the checkpoint's alone.
#[test]
fn a_resume_takes_the_recorded_start_where_the_recipe_leaves_it_open() {
    let at = Path::new("run/checkpoint.json");
    let recorded = Recorded {
        sparsity: Some(Sparsity::All),
        partners: Some(Partners::Groups),
        ..Recorded::default()
    };
    let open = Recipe::default().resumed(recorded.clone(), at, false).unwrap();
    assert_eq!(
        (open.walk.sparsity, open.gpu_partners),
        (Some(Sparsity::All), Some(Partners::Groups))
    );
    let chosen = Recipe {
        walk: Walk {
            sparsity: Some(Sparsity::Off),
            ..Walk::default()
        },
        ..Recipe::default()
    };
    assert_eq!(
        chosen.resumed(recorded, at, false).unwrap().walk.sparsity,
        Some(Sparsity::Off)
    );
    let cubes = Recorded {
        cubes: vec!["10001".into(), "01010".into()],
        ..Recorded::default()
    };
    let resumed = Recipe::default().resumed(cubes.clone(), at, false).unwrap();
    assert_eq!((resumed.group(), resumed.symmetric.cubes.len()), (Group::C3, 2));
    assert_eq!(resumed.spec().fixed_terms, FixedTerms::Frozen);
    let plain = Recipe {
        symmetric: SymmetricStart {
            symmetry: Some(Group::Trivial),
            ..SymmetricStart::default()
        },
        ..Recipe::default()
    };
    let refused = plain.resumed(cubes.clone(), at, false).unwrap_err();
    assert!(matches!(
        refused.downcast_ref::<RecipeError>(),
        Some(RecipeError::PlainResumeOfCubes { .. })
    ));
    let given = Recipe {
        symmetric: SymmetricStart {
            cubes: vec!["101".into()],
            ..SymmetricStart::default()
        },
        ..Recipe::default()
    };
    let refused = given.resumed(Recorded::default(), at, false).unwrap_err();
    assert_eq!(refused.downcast_ref::<RecipeError>(), Some(&RecipeError::CubesOnResume));
    let damaged = Recorded {
        cubes: vec!["12".into()],
        ..Recorded::default()
    };
    let refused = Recipe::default().resumed(damaged, at, false).unwrap_err().to_string();
    assert!(refused.contains("damaged checkpoint"), "{refused}");
    // Schemes cannot join a cube search's resume, and its group cannot change (the
    // audit: both passed, the first said "--cubes" that nobody gave, the second nothing).
    let refused = Recipe::default().resumed(cubes, at, true).unwrap_err();
    assert!(matches!(
        refused.downcast_ref::<RecipeError>(),
        Some(RecipeError::StartsBesideResumedCubes { .. })
    ));
    let c3 = Recorded {
        symmetric: Some((Group::C3, FixedTerms::Frozen)),
        ..Recorded::default()
    };
    let z2 = Recipe {
        symmetric: SymmetricStart {
            symmetry: Some(Group::Z2),
            ..SymmetricStart::default()
        },
        ..Recipe::default()
    };
    let refused = z2.resumed(c3.clone(), at, false).unwrap_err();
    assert!(matches!(
        refused.downcast_ref::<RecipeError>(),
        Some(RecipeError::ResumedGroup {
            recorded: Group::C3,
            asked: Group::Z2,
            ..
        })
    ));
    let same = Recipe {
        symmetric: SymmetricStart {
            symmetry: Some(Group::C3),
            ..SymmetricStart::default()
        },
        ..Recipe::default()
    };
    assert_eq!(same.resumed(c3, at, false).unwrap().group(), Group::C3);
}
