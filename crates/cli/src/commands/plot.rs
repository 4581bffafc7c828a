//! `flipgraph plot DIR`: best rank and the walkers' ranks, vertices/s and reductions/s, and the
//! plateau schedule over time, from a search's event log.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use flipgraph_core::known::best_known_rank;
use plotters::coord::combinators::LogCoord;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::output::{Checkpoint, EVENTS};

/// Draw a search's progress as an SVG: best rank and the walkers' ranks over time, vertices/s
/// and reductions/s, and the walkers' median plateau limit.
#[derive(clap::Args)]
pub struct Args {
    /// The search's output folder (it holds events.jsonl).
    dir: PathBuf,
    /// The SVG to write (default: DIR/progress.svg); its name must end in .svg, so that no
    /// search file (checkpoint, events, schemes) is written over.
    #[arg(short, long, value_parser = parse_svg_path)]
    output: Option<PathBuf>,
}

/// A path whose name ends in `.svg`, and not a symbolic link: a link named `c.svg` led the
/// plot onto a search's checkpoint.
fn parse_svg_path(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg")) {
        return Err(format!("{s}: plot writes SVG; give a name ending in .svg"));
    }
    if path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!(
            "{s} is a symbolic link; plot writes only to a plain file (name the file itself)"
        ));
    }
    Ok(path)
}

/// A run of a search: (search time in s, value) points, in time order. A resumed search starts a
/// new run where its clock went back to the checkpoint (the work after it was lost in the kill).
type Runs = Vec<Vec<(f64, f64)>>;

/// What the event log says of a search.
struct Series {
    rank: Runs,
    speed: Runs,
    reductions: Runs,
    /// The walkers' lowest, median and highest rank.
    walkers: [Runs; 3],
    /// The walkers' median plateau limit.
    plateau: Runs,
    best_known: Option<f64>,
}

/// Adds a point to the last run, or starts a new run when time went back.
fn push(runs: &mut Runs, point: (f64, f64)) {
    match runs.last_mut() {
        Some(run) if run.last().is_none_or(|last| last.0 <= point.0) => run.push(point),
        _ => runs.push(vec![point]),
    }
}

/// Progress points kept per series at most: a long log is thinned to every k-th progress event
/// (a week of progress lines is some 150 MiB, a million points per series, which drew a 197 MB
/// SVG), where the plot cannot show more anyway.
const MAX_PROGRESS_POINTS: usize = 4000;

/// About the bytes of one progress line, for the thinning's stride.
const PROGRESS_LINE_BYTES: u64 = 250;

/// The values a real log can hold: a time within a century, a rank within the readers' limit,
/// a rate below 10^15 per second, a plateau limit of 1 to 2^40 steps. Others (a damaged or
/// forged log) are skipped: 5e-324 or 1e308 on a log axis drew for ever.
fn plausible(v: f64, range: std::ops::RangeInclusive<f64>) -> Option<f64> {
    (v.is_finite() && range.contains(&v)).then_some(v)
}
const TIMES: std::ops::RangeInclusive<f64> = 0.0..=3.2e9;
const RANKS: std::ops::RangeInclusive<f64> = 0.0..=65_536.0;
const RATES: std::ops::RangeInclusive<f64> = 0.0..=1e15;
const PLATEAUS: std::ops::RangeInclusive<f64> = 1.0..=1_099_511_627_776.0;

fn read_events(args: &Args) -> Result<Series> {
    let path = args.dir.join(EVENTS);
    let bytes = flipgraph_core::formats::read_bounded(&path, 1 << 30, "event log")?;
    let text = String::from_utf8_lossy(&bytes);
    let stride = (bytes.len() as u64 / PROGRESS_LINE_BYTES / MAX_PROGRESS_POINTS as u64).max(1);
    let (mut progress, mut skipped) = (0u64, 0usize);
    let mut s = Series {
        rank: Vec::new(),
        speed: Vec::new(),
        reductions: Vec::new(),
        walkers: Default::default(),
        plateau: Vec::new(),
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
                let t = e["search_t"].as_f64().and_then(|t| plausible(t, TIMES));
                match (t, e["rank"].as_f64().and_then(|r| plausible(r, RANKS))) {
                    (Some(t), Some(r)) => push(&mut s.rank, (t, r)),
                    _ => skipped += 1,
                }
            }
            Some("progress") => {
                progress += 1;
                if (progress - 1) % stride != 0 {
                    continue;
                }
                let Some(t) = e["t"].as_f64().and_then(|t| plausible(t, TIMES)) else {
                    skipped += 1;
                    continue;
                };
                let mut at = |runs: &mut Runs, value: &serde_json::Value, range, scale: f64| match value
                    .as_f64()
                    .map(|v| plausible(v, range))
                {
                    Some(Some(v)) => push(runs, (t, v / scale)),
                    Some(None) => skipped += 1,
                    None => {}
                };
                at(&mut s.speed, &e["vertices_per_s"], RATES, 1e6);
                at(&mut s.reductions, &e["reductions_per_s"], RATES, 1e6);
                // A walker limit of 0 is a fixed plateau without plus moves: nothing to draw.
                if e["plateau"].as_f64() != Some(0.0) {
                    at(&mut s.plateau, &e["plateau"], PLATEAUS, 1.0);
                }
                for (i, runs) in s.walkers.iter_mut().enumerate() {
                    at(runs, &e["walker_ranks"][i], RANKS, 1.0);
                }
                let best_known = e["best_known"].as_f64().and_then(|b| plausible(b, RANKS));
                s.best_known = best_known.or(s.best_known);
            }
            _ => {}
        }
    }
    if skipped > 0 {
        tracing::warn!("{}: {skipped} values out of any real range skipped", path.display());
    }
    if stride > 1 {
        tracing::info!("{}: every {stride}th progress event drawn", path.display());
    }
    if s.rank.is_empty() {
        bail!("{}: no improvement events to plot", path.display());
    }
    Ok(s)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let mut series = read_events(&args)?;
    let shape = Checkpoint::read(&args.dir)
        .ok()
        .and_then(|cp| cp.shape().ok())
        .or_else(|| shape_of_results(&args.dir));
    // A search too short for a progress event: the table's rank.
    series.best_known = series.best_known.or_else(|| best_known_rank(shape?).map(|r| r as f64));
    let title = shape.map_or(String::new(), |s| format!("{s}: "));
    let out = args.output.clone().unwrap_or_else(|| args.dir.join("progress.svg"));
    draw(&series, &title, &out).map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// The shape of the first result an events log names (`.../6x6x6-r231.json`), for a log
/// without its checkpoint.
fn shape_of_results(dir: &std::path::Path) -> Option<flipgraph_core::Shape> {
    let log = std::fs::File::open(dir.join(EVENTS)).ok()?;
    let first = std::io::BufRead::lines(std::io::BufReader::new(log)).next()?.ok()?;
    let event: serde_json::Value = serde_json::from_str(&first).ok()?;
    let file = std::path::Path::new(event["files"][0].as_str()?)
        .file_name()?
        .to_str()?;
    file.split("-r").next()?.parse().ok()
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
    let root = SVGBackend::new(out, (900, 1000)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, rest) = root.split_vertically(400);
    let (middle, bottom) = rest.split_vertically(300);
    let time = Time::of(s);
    draw_ranks(s, title, time, &top)?;
    draw_speeds(s, title, time, &middle)?;
    draw_plateau(s, title, time, &bottom)?;
    root.present()?;
    Ok(())
}

/// The time axis: logarithmic, so that a descent of seconds and a plateau of hours both show;
/// from a little before the first point after 0 (points at 0 are drawn there) to the end.
#[derive(Clone, Copy)]
struct Time {
    start: f64,
    end: f64,
}

impl Time {
    fn of(s: &Series) -> Time {
        let times = || s.rank.iter().chain(&s.speed).flatten().map(|p| p.0);
        // The start's own rank, written at once, would stretch the axis over decades where
        // nothing else happens: the axis opens at the first progress or the first descent.
        let descents = s.rank.iter().flat_map(|run| run.iter().skip(1)).map(|p| p.0);
        let first = descents
            .chain(s.speed.iter().flatten().map(|p| p.0))
            .filter(|&t| t > 0.0)
            .fold(f64::MAX, f64::min);
        let start = if first == f64::MAX {
            1e-2
        } else {
            (first / 2.0).max(1e-3)
        };
        let end = times().fold(start * 10.0, f64::max) * 1.05;
        Time { start, end }
    }

    fn range(self) -> std::ops::Range<f64> {
        self.start..self.end
    }

    /// `p` with its time moved onto the axis.
    fn point(self, p: (f64, f64)) -> (f64, f64) {
        (p.0.clamp(self.start, self.end), p.1)
    }
}

/// Seconds as the axis writes them: 0.01, 0.5, 3, 20, 1000.
fn seconds(t: &f64) -> String {
    if *t < 1.0 {
        format!("{t:.2}")
    } else {
        format!("{t:.0}")
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// The best rank's steps, the walkers' lowest and median rank (a dot per sample), resumes, and
/// the best known rank. The highest walker rank is left out: a fresh restart from the start
/// would flatten the rest.
fn draw_ranks(s: &Series, title: &str, time: Time, area: &Area) -> Result<(), Box<dyn std::error::Error>> {
    let [lowest, median, _] = &s.walkers;
    let ranks = s.rank.iter().chain(lowest).chain(median).flatten().map(|p| p.1);
    let (r_min, r_max) = ranks
        .chain(s.best_known)
        .fold((f64::MAX, f64::MIN), |(a, b), r| (a.min(r), b.max(r)));
    let mut chart = framed(area, format!("{title}best rank, and the walkers' ranks"), false)
        .build_cartesian_2d(time.range().log_scale(), (r_min - 1.0)..(r_max + 1.0))?;
    chart
        .configure_mesh()
        .x_desc("seconds (log scale)")
        .x_label_formatter(&seconds)
        .y_desc("rank")
        .y_label_formatter(&|r| format!("{r:.0}"))
        .draw()?;
    // Dots alone: the samples are 10 s apart in a log, and a line between two would draw
    // a walk that nobody saw.
    for (runs, color, label) in [
        (median, RGBColor(230, 150, 30), "median walker (samples)"),
        (lowest, GREEN, "lowest walker (samples)"),
    ] {
        let dots = runs
            .iter()
            .flatten()
            .map(|&p| Circle::new(time.point(p), 2, color.filled()));
        chart
            .draw_series(dots)?
            .label(label)
            .legend(move |(x, y)| Circle::new((x + 10, y), 3, color.filled()));
    }
    for (i, run) in s.rank.iter().enumerate() {
        // A run ends where the next (resumed) one starts, or at the end of the plot.
        let until = s.rank.get(i + 1).map_or(time.end, |next| next[0].0);
        let steps = rank_steps(run, until).into_iter().map(|p| time.point(p));
        let drawn = chart.draw_series(LineSeries::new(steps, &BLUE))?;
        if i == 0 {
            drawn
                .label("best")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE));
        }
        chart.draw_series(run.iter().map(|&p| Circle::new(time.point(p), 3, BLUE.filled())))?;
    }
    draw_resumes(&mut chart, s, time, (r_min - 1.0, r_max + 1.0))?;
    if let Some(known) = s.best_known {
        chart
            .draw_series(DashedLineSeries::new(
                [(time.start, known), (time.end, known)],
                6,
                4,
                BLACK.into(),
            ))?
            .label(format!("best known {known:.0}"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK));
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

/// A dashed grey line where each resumed run begins (the search was stopped and continued).
fn draw_resumes(
    chart: &mut Chart,
    s: &Series,
    time: Time,
    (low, high): (f64, f64),
) -> Result<(), Box<dyn std::error::Error>> {
    let grey = RGBColor(150, 150, 150);
    for (i, run) in s.rank.iter().enumerate().skip(1) {
        let t = time.point(run[0]).0;
        let drawn = chart.draw_series(DashedLineSeries::new([(t, low), (t, high)], 4, 4, grey.into()))?;
        if i == 1 {
            drawn
                .label("resumed")
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], grey));
        }
    }
    Ok(())
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<LogCoord<f64>, RangedCoordf64>>;

/// A chart of `area` with its caption, margins and label areas (on the right too for a
/// second axis, else a margin as wide, so that the panels' time axes line up).
fn framed<'a, 'b>(area: &'a Area<'b>, caption: String, right_axis: bool) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(caption, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(55);
    if right_axis {
        builder.right_y_label_area_size(55);
    } else {
        builder.margin_right(12 + 55);
    }
    builder
}

/// The legend of the labelled series, over a white box, at `position` (where the panel's data
/// leaves room).
fn draw_legend<'b>(chart: &mut Chart<'b, 'b>, position: SeriesLabelPosition) -> Result<(), Box<dyn std::error::Error>> {
    chart
        .configure_series_labels()
        .position(position)
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    Ok(())
}

/// The runs of one series as lines of `color`, labelled once in the legend.
fn draw_runs(
    chart: &mut Chart,
    time: Time,
    runs: &Runs,
    color: RGBColor,
    label: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    for (i, run) in runs.iter().enumerate() {
        let drawn = chart.draw_series(LineSeries::new(run.iter().map(|&p| time.point(p)), color))?;
        if i == 0 {
            drawn
                .label(label)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color));
        }
    }
    Ok(())
}

/// The largest value of `runs` times `headroom`, at least 1.
fn top(runs: &Runs, headroom: f64) -> f64 {
    runs.iter().flatten().map(|p| p.1).fold(1e-3, f64::max) * headroom
}

/// Vertices/s (millions, left axis) and reductions/s (millions, right axis: a thousandth of
/// the vertices, on one axis they were a flat zero), with room above both for the legend.
fn draw_speeds(s: &Series, title: &str, time: Time, area: &Area) -> Result<(), Box<dyn std::error::Error>> {
    let mut chart = framed(
        area,
        format!("{title}vertices/s (left) and reductions/s (right), millions"),
        true,
    )
    .build_cartesian_2d(time.range().log_scale(), 0.0..top(&s.speed, 1.4))?
    .set_secondary_coord(time.range().log_scale(), 0.0..top(&s.reductions, 1.4));
    chart
        .configure_mesh()
        .x_desc("seconds (log scale)")
        .x_label_formatter(&seconds)
        .y_desc("M vertices per s")
        .draw()?;
    chart.configure_secondary_axes().y_desc("M reductions per s").draw()?;
    draw_runs(&mut chart, time, &s.speed, RED, "vertices/s")?;
    // The secondary axis has no `draw_runs` of its own: its series go through the dual chart.
    for (i, run) in s.reductions.iter().enumerate() {
        let drawn = chart.draw_secondary_series(LineSeries::new(run.iter().map(|&p| time.point(p)), GREEN))?;
        if i == 0 {
            drawn
                .label("reductions/s (right)")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], GREEN));
        }
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperMiddle)
}

/// The walkers' median plateau limit (steps without a reduction before a plus move), on a
/// log scale: the adaptive schedule moves it by orders of magnitude.
fn draw_plateau(s: &Series, title: &str, time: Time, area: &Area) -> Result<(), Box<dyn std::error::Error>> {
    let limits = s.plateau.iter().flatten().map(|p| p.1);
    let (p_min, p_max) = limits.fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p), b.max(p)));
    // A limit that never moved (a fixed --plateau, or walkers whose median stayed) is said so
    // in the caption rather than left to read off a flat line.
    let constant = match p_min == p_max {
        true => format!(": constant at {p_min:.0}"),
        false => String::new(),
    };
    let (p_min, p_max) = if p_min > p_max {
        (1.0, 10.0)
    } else {
        (p_min / 2.0, p_max * 2.0)
    };
    let mut chart = framed(area, format!("{title}median plateau limit (steps){constant}"), false)
        .build_cartesian_2d(time.range().log_scale(), (p_min..p_max).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("seconds (log scale)")
        .x_label_formatter(&seconds)
        .y_desc("steps")
        .y_label_formatter(&|p| format!("{p:.0}"))
        .draw()?;
    for run in &s.plateau {
        chart.draw_series(LineSeries::new(run.iter().map(|&p| time.point(p)), &BLUE))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{draw, push, rank_steps, read_events, Args, MAX_PROGRESS_POINTS};

    /// The series of an event log of `lines`, written into `dir`.
    fn series_of(dir: &tempfile::TempDir, lines: &[impl AsRef<str>]) -> super::Series {
        let lines: Vec<&str> = lines.iter().map(AsRef::as_ref).collect();
        std::fs::write(dir.path().join("events.jsonl"), lines.join("\n")).unwrap();
        let args = Args {
            dir: dir.path().to_path_buf(),
            output: None,
        };
        read_events(&args).unwrap()
    }

    #[test]
    fn progress_events_draw_the_walkers_ranks_and_the_schedule() {
        let dir = tempfile::tempdir().unwrap();
        let events = [
            r#"{"event":"improved","search_t":0.0,"rank":80}"#,
            r#"{"event":"progress","t":10.0,"vertices_per_s":2e9,"reductions_per_s":3e6,"plateau":640,"walker_ranks":[63,65,83],"best_known":60}"#,
            "a line cut by a crash",
            r#"{"event":"progress","t":20.0,"vertices_per_s":1.9e9,"reductions_per_s":4e6,"plateau":0,"walker_ranks":[62,64,83]}"#,
        ];
        let s = series_of(&dir, &events);
        assert_eq!(s.walkers[0], vec![vec![(10.0, 63.0), (20.0, 62.0)]]);
        assert_eq!(s.walkers[1], vec![vec![(10.0, 65.0), (20.0, 64.0)]]);
        assert_eq!(s.reductions, vec![vec![(10.0, 3.0), (20.0, 4.0)]]);
        // A limit of 0 (a fixed plateau without plus moves) is not drawn.
        assert_eq!(s.plateau, vec![vec![(10.0, 640.0)]]);
        assert_eq!(s.best_known, Some(60.0));
        let out = dir.path().join("p.svg");
        draw(&s, "4x4x5: ", &out).unwrap();
        let svg = std::fs::read_to_string(&out).unwrap();
        for part in [
            "median plateau limit",
            "seconds (log scale)",
            "lowest walker",
            "median walker",
            "reductions/s",
            "best known 60",
        ] {
            assert!(svg.contains(part), "{part} missing");
        }
    }

    /// The axis opens at the first descent or progress sample, not at the start rank written at
    /// once (the left 40% of the plot was empty), and a plateau limit that never moved is
    /// said to be constant.
    #[test]
    fn the_time_axis_opens_where_the_search_starts_to_move() {
        let dir = tempfile::tempdir().unwrap();
        let events = [
            r#"{"event":"improved","search_t":0.001,"rank":64}"#,
            r#"{"event":"improved","search_t":4.0,"rank":52}"#,
            r#"{"event":"progress","t":10.0,"vertices_per_s":2e9,"reductions_per_s":3e6,"plateau":1000,"walker_ranks":[50,52,60]}"#,
            r#"{"event":"progress","t":20.0,"vertices_per_s":2e9,"reductions_per_s":3e6,"plateau":1000,"walker_ranks":[49,51,60]}"#,
        ];
        let s = series_of(&dir, &events);
        assert_eq!(super::Time::of(&s).start, 2.0);
        let out = dir.path().join("p.svg");
        draw(&s, "", &out).unwrap();
        assert!(std::fs::read_to_string(&out).unwrap().contains("constant at 1000"));
    }

    /// Audit item 14: values no search writes (5e-324, 1e308, NaN-like strings) made the plot
    /// spin for ever on its log axis; a long log drew every point. Both end now, and small.
    #[test]
    fn absurd_values_are_skipped_and_long_logs_thinned() {
        let dir = tempfile::tempdir().unwrap();
        let mut events = vec![
            r#"{"event":"improved","search_t":0.0,"rank":80}"#.to_owned(),
            r#"{"event":"improved","search_t":1.0,"rank":1e308}"#.to_owned(),
            r#"{"event":"progress","t":1.0,"vertices_per_s":1e308,"reductions_per_s":-1,"plateau":5e-324,"walker_ranks":[-1e308,65,1e308],"best_known":1e308}"#.to_owned(),
        ];
        for i in 0..100_000 {
            events.push(format!(
                r#"{{"event":"progress","t":{}.0,"vertices_per_s":2e9,"reductions_per_s":3e6,"plateau":{},"walker_ranks":[63,65,83],"best_known":60}}"#,
                i + 2,
                1000 + i % 7
            ));
        }
        let s = series_of(&dir, &events);
        assert_eq!(s.rank, vec![vec![(0.0, 80.0)]]);
        assert_eq!(s.best_known, Some(60.0));
        let points = s.plateau.iter().map(Vec::len).sum::<usize>();
        assert!((1000..=2 * MAX_PROGRESS_POINTS).contains(&points), "{points} points");
        assert!(s.plateau.iter().flatten().all(|&(_, p)| p >= 1000.0));
        assert_eq!(s.walkers[1].iter().flatten().next(), Some(&(1.0, 65.0)));
        let out = dir.path().join("p.svg");
        draw(&s, "", &out).unwrap();
        let size = std::fs::metadata(&out).unwrap().len();
        assert!(size < 4 << 20, "an SVG of {size} bytes");
    }

    /// A resumed search (its clock went back to the checkpoint) is marked where it resumed,
    /// and a log without its checkpoint takes its shape from the result files it names.
    #[test]
    fn a_resume_is_marked_and_the_shape_read_from_the_results() {
        let dir = tempfile::tempdir().unwrap();
        let events = [
            r#"{"event":"improved","files":["/x/4x4x5-r80.json"],"search_t":0.0,"rank":80}"#,
            r#"{"event":"improved","search_t":5.0,"rank":70}"#,
            r#"{"event":"improved","search_t":4.0,"rank":69}"#,
        ];
        std::fs::write(dir.path().join("events.jsonl"), events.join("\n")).unwrap();
        assert_eq!(
            super::shape_of_results(dir.path()).map(|s| s.to_string()),
            Some("4x4x5".into())
        );
        let args = Args {
            dir: dir.path().to_path_buf(),
            output: None,
        };
        super::run(args).unwrap();
        let svg = std::fs::read_to_string(dir.path().join("progress.svg")).unwrap();
        assert!(svg.contains("resumed") && svg.contains("4x4x5: best rank"), "{svg}");
    }

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
