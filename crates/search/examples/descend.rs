//! Embedding a search: read a scheme, descend from it for some seconds on the CPU (the defaults
//! of `flipgraph search`), write the best scheme found.
//!
//! `cargo run --release --example descend -- tests/data/3x3x8-r55-perminov.json 10 best.json`

use std::time::Duration;

use flipgraph_core::formats::{read_path, write_f2, Format};
use flipgraph_search::Descent;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, seconds, output] = &args[..] else {
        anyhow::bail!("usage: descend SCHEME SECONDS OUT.json");
    };
    let start = read_path(input.as_ref())?.f2()?;
    let limit = Duration::from_secs_f64(seconds.parse()?);
    let summary = Descent::new(start).time_limit(limit).run()?; // verified, like all results
    std::fs::write(output, write_f2(&summary.best, Format::PerminovJson)?)?;
    println!("rank {} written to {output}", summary.best.rank());
    Ok(())
}
