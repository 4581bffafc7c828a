//! `flipgraph`: search the flip graph of matrix multiplication schemes over F2.

mod commands;

use flipgraph_search::{atomic_file, engine, schemes, search};

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Search the flip graph of matrix multiplication schemes over F2, on NVIDIA GPUs and CPUs.
#[derive(Parser)]
#[command(name = "flipgraph", version, about, long_about = None, after_help = EXAMPLES)]
struct Cli {
    /// More log output (-v: debug, -vv: trace). RUST_LOG overrides it.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,

    #[command(subcommand)]
    command: Command,
}

const EXAMPLES: &str = "Examples:
  flipgraph verify schemes/*.m               check schemes (exit 0 only when all are valid)
  flipgraph verify --ring z strassen.m       demand validity over the integers
  flipgraph convert laderman.m --to json -o laderman.json
  flipgraph info 4x4x4-r47.exp";

#[derive(Subcommand)]
enum Command {
    Verify(commands::verify::Args),
    Convert(commands::convert::Args),
    Info(commands::info::Args),
    Search(commands::search::Args),
    Bench(commands::bench::Args),
    Gpu(commands::gpu::Args),
    Plot(commands::plot::Args),
    Product(commands::algebra::ProductArgs),
    Extend(commands::algebra::ExtendArgs),
    Project(commands::algebra::ProjectArgs),
    /// Rotate a scheme cyclically: <n,m,p> to <m,p,n>.
    Rotate(commands::algebra::SymmetryArgs),
    /// Transpose a scheme: <n,m,p> to <p,m,n>.
    Transpose(commands::algebra::SymmetryArgs),
    Codegen(commands::codegen::Args),
    Lift(commands::lift::Args),
    Path(commands::path::PathArgs),
    Replay(commands::path::ReplayArgs),
}

fn main() -> ExitCode {
    let process_start = std::time::Instant::now();
    let cli = Cli::parse();
    init_tracing(cli.verbose);
    let result = match cli.command {
        Command::Verify(args) => commands::verify::run(args),
        Command::Convert(args) => commands::convert::run(args),
        Command::Info(args) => commands::info::run(args),
        Command::Search(args) => commands::search::run(args, process_start),
        Command::Bench(args) => commands::bench::run(args),
        Command::Gpu(args) => commands::gpu::run(args),
        Command::Plot(args) => commands::plot::run(args),
        Command::Product(args) => commands::algebra::product(args),
        Command::Extend(args) => commands::algebra::extend(args),
        Command::Project(args) => commands::algebra::project(args),
        Command::Rotate(args) => commands::algebra::rotate(args),
        Command::Transpose(args) => commands::algebra::transpose(args),
        Command::Codegen(args) => commands::codegen::run(args),
        Command::Lift(args) => commands::lift::run(args),
        Command::Path(args) => commands::path::build(args),
        Command::Replay(args) => commands::path::replay(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "info",
        1 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}
