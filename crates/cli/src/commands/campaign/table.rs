//! The table a campaign ends with: where each format stands.

use flipgraph_search::campaign::Standing;

/// Prints the table (and with `json` a `campaign` event first), with how many formats are at
/// their best known rank or below.
pub fn print_table(table: &[Standing], json: bool) {
    if json {
        let rows: Vec<_> = table
            .iter()
            .map(|s| {
                serde_json::json!({
                    "shape": s.shape.to_string(),
                    "best_known": s.best_known,
                    "reached": s.reached.map(|r| r.0),
                    "seconds": s.reached.map(|r| r.1.as_secs_f64()),
                    "target_reached": s.done,
                    "start": s.start,
                    "failed": s.failed,
                })
            })
            .collect();
        println!("{}", serde_json::json!({ "event": "campaign", "formats": rows }));
    }
    println!(
        "{:<8} {:>10} {:>8} {:>10}  status",
        "format", "best known", "reached", "time"
    );
    for s in table {
        let known = s.best_known.map_or("-".into(), |r| r.to_string());
        let (reached, time) = match s.reached {
            Some((rank, t)) => (rank.to_string(), format!("{:.1}s", t.as_secs_f64())),
            None => ("-".into(), "-".into()),
        };
        let below = |rank: usize| s.best_known.is_some_and(|known| rank < known);
        let status = match (s.reached, s.done, &s.failed) {
            (_, _, Some(_)) => "failed",
            (None, _, None) => "not started",
            (Some((rank, _)), _, None) if below(rank) => "below the best known rank",
            (Some(_), true, None) => "target reached",
            (Some((rank, _)), false, None) if s.best_known == Some(rank) => "at the best known rank, hunting below",
            (Some(_), false, None) => "unfinished",
        };
        println!(
            "{:<8} {known:>10} {reached:>8} {time:>10}  {status}",
            s.shape.to_string()
        );
    }
    for s in table {
        if let Some(how) = &s.start {
            println!("{} started from {how}", s.shape);
        }
        if let Some(why) = &s.failed {
            println!("{} failed: {why}", s.shape);
        }
    }
    let known = table.iter().filter(|s| s.best_known.is_some()).count();
    let at_known = table
        .iter()
        .filter(|s| matches!((s.reached, s.best_known), (Some((rank, _)), Some(known)) if rank <= known))
        .count();
    println!("{at_known} of {known} formats with a best known rank are at it or below");
}
