//! Where a format of a campaign stands, read from its folder: an F2 search's checkpoint, a
//! ternary search's event log.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use flipgraph_core::known::{best_known_rank, best_known_zt_rank};
use flipgraph_core::Shape;

use super::CampaignError;
use crate::output::{Checkpoint, CHECKPOINT, EVENTS};
use crate::session::recipe::Ring;

/// Where one format of the campaign stands.
#[derive(Clone, Debug)]
pub struct Standing {
    /// The format.
    pub shape: Shape,
    /// Its best known rank over the campaign's ring.
    pub best_known: Option<usize>,
    /// Best rank reached and total search time, once the format has been searched.
    pub reached: Option<(usize, Duration)>,
    /// Whether its search reached its target.
    pub done: bool,
    /// Whether its search walks invariant schemes (a symmetric search takes no construction).
    pub symmetric: bool,
    /// The construction it started from in this run, if any.
    pub start: Option<String>,
    /// Why the format failed in this run, if it did.
    pub failed: Option<String>,
}

impl Standing {
    /// A format not started, its best known rank over `ring`.
    pub fn new(shape: Shape, ring: Ring) -> Standing {
        Standing {
            shape,
            best_known: known_rank(shape, ring),
            reached: None,
            done: false,
            symmetric: false,
            start: None,
            failed: None,
        }
    }

    /// A format whose turn failed, as `why` says.
    pub fn failed(shape: Shape, ring: Ring, why: String) -> Standing {
        Standing {
            failed: Some(why),
            ..Standing::new(shape, ring)
        }
    }

    /// This turn's standing, with the construction an `earlier` turn started from when this
    /// one started from none.
    pub fn after(self, earlier: Option<Standing>) -> Standing {
        Standing {
            start: self.start.or(earlier.and_then(|e| e.start)),
            ..self
        }
    }

    /// Where the format's folder under `out` stands (not started where it holds no search
    /// or cannot be read).
    pub fn on_disk(shape: Shape, ring: Ring, out: &Path) -> Standing {
        let dir = out.join(shape.to_string());
        previous(shape, ring, &dir)
            .ok()
            .flatten()
            .unwrap_or_else(|| Standing::new(shape, ring))
    }
}

/// The best known rank of `shape` over `ring` (the F2 or the ZT table).
pub(super) fn known_rank(shape: Shape, ring: Ring) -> Option<usize> {
    match ring {
        Ring::F2 => best_known_rank(shape),
        Ring::Zt => best_known_zt_rank(shape),
    }
}

/// Where the search in `dir` stands, if the folder holds one: an F2 search's checkpoint
/// ([`standing`]), a ternary search's event log ([`zt_standing`]).
pub(super) fn previous(shape: Shape, ring: Ring, dir: &Path) -> Result<Option<Standing>> {
    match ring {
        Ring::F2 => dir.join(CHECKPOINT).exists().then(|| standing(shape, dir)).transpose(),
        Ring::Zt => dir.join(EVENTS).exists().then(|| zt_standing(shape, dir)).transpose(),
    }
}

fn best_rank(cp: &Checkpoint) -> Result<usize> {
    cp.schemes::<u128>()?
        .iter()
        .map(|s| s.rank())
        .min()
        .context("the checkpoint's pool is empty")
}

/// The refusal of a format's folder `dir` that holds a search of `held`, not of `shape`.
fn other_shape(dir: &Path, held: impl ToString, shape: Shape) -> anyhow::Error {
    CampaignError::OtherShape {
        dir: dir.to_path_buf(),
        held: held.to_string(),
        shape,
    }
    .into()
}

/// Where the search in `dir` stands, from its checkpoint; an error when the checkpoint is of
/// another shape (a folder of the campaign holding some other search).
fn standing(shape: Shape, dir: &Path) -> Result<Standing> {
    let cp = Checkpoint::read(dir)?;
    let held = cp.shape()?;
    if held != shape {
        return Err(other_shape(dir, held, shape));
    }
    let best = best_rank(&cp)?;
    Ok(Standing {
        reached: Some((best, cp.elapsed())),
        done: best <= cp.target,
        symmetric: cp.symmetric.is_some() || !cp.cubes.is_empty(),
        ..Standing::new(shape, Ring::F2)
    })
}

/// The lower of two ranks, either of which may be missing.
fn lower(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Where the ternary search in `dir` stands, from its event log (a ternary search keeps no
/// checkpoint): its best rank (its starts' and improvements'), its time (its runs' ends), and
/// whether its last run's target is reached. An error where the log is of another shape or
/// holds no ternary search.
fn zt_standing(shape: Shape, dir: &Path) -> Result<Standing> {
    let path = dir.join(EVENTS);
    let log = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let (mut best, mut target, mut seconds) = (None::<usize>, None, 0.0);
    for (i, line) in log.lines().enumerate() {
        // A line cut short by a crash is passed over.
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if event["ring"] != "zt" {
            anyhow::bail!("{}:{}: not an event of a search over ZT", path.display(), i + 1);
        }
        let rank = |key: &str| event[key].as_u64().map(|r| r as usize);
        match event["event"].as_str() {
            Some("start") => {
                if event["shape"] != shape.to_string().as_str() {
                    return Err(other_shape(
                        dir,
                        event["shape"].as_str().unwrap_or("another shape"),
                        shape,
                    ));
                }
                target = rank("target");
                best = lower(best, rank("rank"));
            }
            Some("improved") => best = lower(best, rank("rank")),
            // The walk's time, and its ladder's climb before it.
            Some("end") => {
                seconds += event["seconds"].as_f64().unwrap_or(0.0) + event["climb"]["seconds"].as_f64().unwrap_or(0.0)
            }
            _ => {}
        }
    }
    let best = best.with_context(|| format!("{}: no start of a search over ZT", path.display()))?;
    Ok(Standing {
        reached: Some((best, Duration::from_secs_f64(seconds))),
        done: target.is_some_and(|t| best <= t),
        ..Standing::new(shape, Ring::Zt)
    })
}

#[cfg(test)]
mod tests {
    use super::{zt_standing, EVENTS};
    use flipgraph_core::Shape;

    /// A folder whose event log is `lines`.
    fn logged(lines: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(EVENTS), lines.join("\n")).unwrap();
        dir
    }

    #[test]
    fn a_ternary_format_stands_where_its_event_log_says() {
        let s = Shape::square(3).unwrap();
        let start = r#"{"event":"start","ring":"zt","shape":"3x3x3","rank":27,"target":23}"#;
        let dir = logged(&[
            start,
            r#"{"event":"improved","ring":"zt","rank":25,"seconds":0.1}"#,
            r#"{"event":"progress","ring":"zt","best_rank":25}"#,
            r#"{"event":"end","ring":"zt","best_rank":25,"seconds":2.5}"#,
            // A second run, resumed, cut short by a crash in its last line.
            r#"{"event":"start","ring":"zt","shape":"3x3x3","rank":25,"target":24}"#,
            // A rung of its ladder: another shape's rank, not this format's; its climb's time is.
            r#"{"event":"rung","ring":"zt","shape":"2x3x3","from":18,"rank":15,"seconds":0.5}"#,
            r#"{"event":"improved","ring":"zt","rank":24,"seconds":1.0}"#,
            r#"{"event":"end","ring":"zt","best_rank":24,"seconds":1.5,"climb":{"seconds":0.5}}"#,
            r#"{"event":"improved","ring":"zt","ra"#,
        ]);
        let standing = zt_standing(s, dir.path()).unwrap();
        assert_eq!(standing.reached.map(|(r, t)| (r, t.as_secs_f64())), Some((24, 4.5)));
        assert!(standing.done, "the last run's target, 24, is reached");
        assert_eq!(standing.best_known, Some(23), "the ZT table's rank");
        // Another shape's log, or an F2 search's, is named, not taken.
        let other = logged(&[&start.replace("3x3x3", "2x2x2")]);
        let said = format!("{:#}", zt_standing(s, other.path()).err().unwrap());
        assert!(said.contains("holds a search of 2x2x2, not 3x3x3"), "{said}");
        let f2 = logged(&[r#"{"event":"start","shape":"3x3x3","rank":27}"#]);
        let said = format!("{:#}", zt_standing(s, f2.path()).err().unwrap());
        assert!(said.contains(":1: not an event of a search over ZT"), "{said}");
    }
}
