//! `flipgraph plot DIR`: best rank and vertices/s over time, from a search's event log.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use plotters::prelude::*;

use crate::search::output::EVENTS;

/// Draw a search's progress as an SVG: best rank over time, and vertices/s.
#[derive(clap::Args)]
pub struct Args {
    /// The search's output folder (it holds events.jsonl).
    dir: PathBuf,
    /// The SVG to write (default: DIR/progress.svg).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// (time in s, value) series read from the event log.
struct Series {
    rank: Vec<(f64, f64)>,
    speed: Vec<(f64, f64)>,
}

fn read_events(args: &Args) -> Result<Series> {
    let path = args.dir.join(EVENTS);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut s = Series {
        rank: Vec::new(),
        speed: Vec::new(),
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
                    s.rank.push((t, r));
                }
            }
            Some("progress") => {
                if let (Some(t), Some(v)) = (e["t"].as_f64(), e["vertices_per_s"].as_f64()) {
                    s.speed.push((t, v / 1e6));
                }
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
    let series = read_events(&args)?;
    let out = args.output.clone().unwrap_or_else(|| args.dir.join("progress.svg"));
    draw(&series, &out).map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}

fn draw(s: &Series, out: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(out, (900, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(400);
    let t_end = s.rank.iter().chain(&s.speed).map(|p| p.0).fold(1e-3, f64::max) * 1.02;
    let (r_min, r_max) = s
        .rank
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let mut chart = ChartBuilder::on(&top)
        .caption("best rank", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..t_end, (r_min - 1.0)..(r_max + 1.0))?;
    chart.configure_mesh().x_desc("seconds").y_desc("rank").draw()?;
    // A step line: the rank holds until the next improvement.
    let mut steps = Vec::new();
    for w in s.rank.windows(2) {
        steps.extend([w[0], (w[1].0, w[0].1)]);
    }
    let last = *s.rank.last().expect("non-empty");
    steps.extend([last, (t_end, last.1)]);
    chart.draw_series(LineSeries::new(steps, &BLUE))?;
    chart.draw_series(s.rank.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))?;
    let v_max = s.speed.iter().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&bottom)
        .caption("vertices/s (millions)", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..t_end, 0.0..v_max)?;
    chart.configure_mesh().x_desc("seconds").y_desc("M vertices/s").draw()?;
    chart.draw_series(LineSeries::new(s.speed.iter().copied(), &RED))?;
    root.present()?;
    Ok(())
}
