//! `flipgraph plot DIR`: best rank and vertices/s over time, from a search's event log.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flipgraph_core::known::best_known_rank;
use plotters::prelude::*;

use crate::search::output::{Checkpoint, EVENTS};

/// Draw a search's progress as an SVG: best rank over time, and vertices/s.
#[derive(clap::Args)]
pub struct Args {
    /// The search's output folder (it holds events.jsonl).
    dir: PathBuf,
    /// The SVG to write (default: DIR/progress.svg).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// A run of a search: (search time in s, value) points, in time order. A resumed search starts a
/// new run where its clock went back to the checkpoint (the work after it was lost in the kill).
type Runs = Vec<Vec<(f64, f64)>>;

/// What the event log says of a search.
struct Series {
    rank: Runs,
    speed: Runs,
    best_known: Option<f64>,
}

/// Adds a point to the last run, or starts a new run when time went back.
fn push(runs: &mut Runs, point: (f64, f64)) {
    match runs.last_mut() {
        Some(run) if run.last().is_none_or(|last| last.0 <= point.0) => run.push(point),
        _ => runs.push(vec![point]),
    }
}

fn read_events(args: &Args) -> Result<Series> {
    let path = args.dir.join(EVENTS);
    // A week of progress lines is some 150 MiB.
    let bytes = flipgraph_core::formats::read_bounded(&path, 1 << 30, "event log")?;
    let text = String::from_utf8_lossy(&bytes);
    let mut s = Series {
        rank: Vec::new(),
        speed: Vec::new(),
        best_known: None,
    };
    for (i, line) in text.lines().enumerate() {
        let Ok(e) = serde_json::from_str::<serde_json::Value>(line) else {
            // A line cut by a crash is skipped, not fatal.
            tracing::warn!("{}:{}: not a JSON event; skipped", path.display(), i + 1);
            continue;
        };
        match e["event"].as_str() {
            Some("improved") => {
                if let (Some(t), Some(r)) = (e["search_t"].as_f64(), e["rank"].as_f64()) {
                    push(&mut s.rank, (t, r));
                }
            }
            Some("progress") => {
                if let (Some(t), Some(v)) = (e["t"].as_f64(), e["vertices_per_s"].as_f64()) {
                    push(&mut s.speed, (t, v / 1e6));
                }
                s.best_known = e["best_known"].as_f64().or(s.best_known);
            }
            _ => {}
        }
    }
    if s.rank.is_empty() {
        bail!("{}: no improvement events to plot", path.display());
    }
    Ok(s)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let mut series = read_events(&args)?;
    let shape = Checkpoint::read(&args.dir).ok().and_then(|cp| cp.shape().ok());
    // A search too short for a progress event: the table's rank.
    series.best_known = series.best_known.or_else(|| best_known_rank(shape?).map(|r| r as f64));
    let title = shape.map_or(String::new(), |s| format!("{s}: "));
    let out = args.output.clone().unwrap_or_else(|| args.dir.join("progress.svg"));
    draw(&series, &title, &out).map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// A step line through a run's improvements: the rank holds until the next one.
fn rank_steps(run: &[(f64, f64)], until: f64) -> Vec<(f64, f64)> {
    let mut steps = Vec::new();
    for w in run.windows(2) {
        steps.extend([w[0], (w[1].0, w[0].1)]);
    }
    if let Some(&last) = run.last() {
        steps.extend([last, (until.max(last.0), last.1)]);
    }
    steps
}

fn draw(s: &Series, title: &str, out: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(out, (900, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(400);
    let points = || s.rank.iter().chain(&s.speed).flatten();
    let t_end = points().map(|p| p.0).fold(1e-3, f64::max) * 1.02;
    let ranks = s.rank.iter().flatten().map(|p| p.1).chain(s.best_known);
    let (r_min, r_max) = ranks.fold((f64::MAX, f64::MIN), |(a, b), r| (a.min(r), b.max(r)));
    let mut chart = ChartBuilder::on(&top)
        .caption(format!("{title}best rank"), ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..t_end, (r_min - 1.0)..(r_max + 1.0))?;
    chart
        .configure_mesh()
        .x_desc("seconds")
        .y_desc("rank")
        .y_label_formatter(&|r| format!("{r:.0}"))
        .draw()?;
    for (i, run) in s.rank.iter().enumerate() {
        // A run ends where the next (resumed) one starts, or at the end of the plot.
        let until = s.rank.get(i + 1).map_or(t_end, |next| next[0].0);
        chart.draw_series(LineSeries::new(rank_steps(run, until), &BLUE))?;
        chart.draw_series(run.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))?;
    }
    if let Some(known) = s.best_known {
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, known), (t_end, known)],
                6,
                4,
                BLACK.into(),
            ))?
            .label(format!("best known {known:.0}"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK));
        chart.configure_series_labels().border_style(BLACK).draw()?;
    }
    let v_max = s.speed.iter().flatten().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&bottom)
        .caption(format!("{title}vertices/s (millions)"), ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..t_end, 0.0..v_max)?;
    chart.configure_mesh().x_desc("seconds").y_desc("M vertices/s").draw()?;
    for run in &s.speed {
        chart.draw_series(LineSeries::new(run.iter().copied(), &RED))?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{push, rank_steps};

    #[test]
    fn a_clock_that_goes_back_starts_a_new_run() {
        let mut runs = Vec::new();
        for p in [(0.0, 1.0), (2.0, 2.0), (3.0, 3.0), (2.5, 4.0), (4.0, 5.0)] {
            push(&mut runs, p);
        }
        assert_eq!(
            runs,
            vec![vec![(0.0, 1.0), (2.0, 2.0), (3.0, 3.0)], vec![(2.5, 4.0), (4.0, 5.0)]]
        );
        for run in &runs {
            assert!(run.windows(2).all(|w| w[0].0 <= w[1].0));
        }
    }

    #[test]
    fn rank_steps_hold_each_rank_until_the_next() {
        let steps = rank_steps(&[(0.0, 10.0), (1.0, 9.0)], 5.0);
        assert_eq!(steps, vec![(0.0, 10.0), (1.0, 10.0), (1.0, 9.0), (5.0, 9.0)]);
    }
}
