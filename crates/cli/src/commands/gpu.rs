//! `flipgraph gpu`: which GPUs are usable, the embedded PTX, and the GPU self-test.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{ensure, Context, Result};

use crate::engine::gpu::{devices, self_test, PTX};
use crate::schemes::read_valid_f2;

/// Show the usable GPUs, or why there is none.
#[derive(clap::Args)]
#[command(after_help = "Exit status: 0 when a GPU is usable (or the dump succeeded), 1 otherwise.")]
pub struct Args {
    /// Print the embedded PTX of the kernels.
    #[arg(long)]
    dump_ptx: bool,
    /// Run the differential test: the kernel logs its moves on short walks, core replays them on
    /// the host, and the terms must agree; every scheme must verify.
    #[arg(long)]
    self_test: bool,
    /// Self-test: also walk from these schemes (valid over F2; any format up to 128 entries a
    /// matrix), in every mode.
    #[arg(long = "from", value_name = "FILE", requires = "self_test")]
    from: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.dump_ptx {
        ensure!(!PTX.is_empty(), "this flipgraph was built without GPU kernels");
        print!("{PTX}");
        return Ok(ExitCode::SUCCESS);
    }
    let found = devices().context(
        "no GPU can be used here; searches run on the CPU's cores instead (flipgraph search picks the CPU by itself)",
    )?;
    for (i, name) in found.iter().enumerate() {
        println!("GPU {i}: {name}");
    }
    if args.self_test {
        let starts = args
            .from
            .iter()
            .map(|path| read_valid_f2::<u128>(path))
            .collect::<Result<Vec<_>>>()?;
        self_test(&starts, |walk| println!("{walk}"))?;
        println!("self-test passed");
    }
    Ok(ExitCode::SUCCESS)
}
