//! `flipgraph`: search the flip graph of matrix multiplication schemes over F2.

mod commands;
mod ended;
mod flags;
mod interrupt;
mod write;

use flipgraph_search::{driver, engine, islands, output, results, schemes, session};

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

const EXAMPLES: &str = "Examples (from the repository's root; the files are in it):
  flipgraph search --size 4                  4x4x4 from the naive scheme to the best known rank
  flipgraph verify tests/data/*.m            check schemes (exit 0 only when all are valid)
  flipgraph verify --ring z tests/data/2x2x2-r7-strassen.m   demand validity over the integers
  flipgraph convert tests/data/3x3x3-r23-laderman.m --to json -o laderman.json
  flipgraph info tests/data/6x6x6-r153-c6-flipgraph.json
  flipgraph known --results results          best known ranks beside the best found";

#[derive(Subcommand)]
enum Command {
    Verify(commands::verify::Args),
    Convert(commands::convert::Args),
    Info(commands::info::Args),
    Known(commands::known::Args),
    Search(commands::search::Args),
    Campaign(commands::campaign::Args),
    Bench(commands::bench::Args),
    Gpu(commands::gpu::Args),
    Plot(commands::plot::Args),
    Product(commands::algebra::ProductArgs),
    Sum(commands::algebra::SumArgs),
    Split(commands::algebra::SplitArgs),
    Construct(commands::algebra::ConstructArgs),
    Extend(commands::algebra::ExtendArgs),
    Project(commands::algebra::ProjectArgs),
    /// Rotate a scheme cyclically: <n,m,p> to <m,p,n>.
    Rotate(commands::algebra::SymmetryArgs),
    /// Transpose a scheme: <n,m,p> to <p,m,n>.
    Transpose(commands::algebra::SymmetryArgs),
    Additions(commands::additions::Args),
    Codegen(commands::codegen::Args),
    Lift(commands::lift::Args),
    Path(commands::path::PathArgs),
    Replay(commands::path::ReplayArgs),
}

impl Command {
    /// Whether the command's log is cut to warnings and errors: `search --quiet`. (A
    /// campaign's `--quiet` quiets its searches' progress; its own lines, a format each, stay.)
    fn quiet(&self) -> bool {
        matches!(self, Command::Search(args) if args.quiet)
    }
}

fn main() -> ExitCode {
    let process_start = std::time::Instant::now();
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Search(_) | Command::Campaign(_)) {
        // A search keeps running to checkpoint and report even when its reader has gone.
        quit_quietly_on_a_closed_pipe();
    }
    fail_cleanly_when_stdout_fails();
    init_tracing(cli.verbose, cli.command.quiet());
    let result = match cli.command {
        Command::Verify(args) => commands::verify::run(args),
        Command::Convert(args) => commands::convert::run(args),
        Command::Info(args) => commands::info::run(args),
        Command::Known(args) => commands::known::run(args),
        Command::Search(args) => commands::search::run(args, process_start),
        Command::Campaign(args) => commands::campaign::run(args, process_start),
        Command::Bench(args) => commands::bench::run(args),
        Command::Gpu(args) => commands::gpu::run(args),
        Command::Plot(args) => commands::plot::run(args),
        Command::Product(args) => commands::algebra::product(args),
        Command::Sum(args) => commands::algebra::sum(args),
        Command::Split(args) => commands::algebra::split(args),
        Command::Construct(args) => commands::algebra::construct(args),
        Command::Extend(args) => commands::algebra::extend(args),
        Command::Project(args) => commands::algebra::project(args),
        Command::Rotate(args) => commands::algebra::rotate(args),
        Command::Transpose(args) => commands::algebra::transpose(args),
        Command::Additions(args) => commands::additions::run(args),
        Command::Codegen(args) => commands::codegen::run(args),
        Command::Lift(args) => commands::lift::run(args),
        Command::Path(args) => commands::path::build(args),
        Command::Replay(args) => commands::path::replay(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", flags::in_flags(&e));
            ExitCode::FAILURE
        }
    }
}

/// `flipgraph known | head` ends like any Unix tool when the reader goes, instead of panicking
/// in `println!` (Rust ignores SIGPIPE by default).
fn quit_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring the default action of a signal, before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A command whose standard output or error fails (`> /dev/full`, a pipe closed under a
/// campaign) ends with an error line (where standard error takes it) and exit 1 rather than
/// `println!`'s panic (exit 101 and a backtrace note). Searches print their JSON lines and log
/// without panicking (`progress::json_line`, the subscriber) and run on.
fn fail_cleanly_when_stdout_fails() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied());
        let failed = |stream: &str| message?.strip_prefix(&format!("failed printing to {stream}: "));
        match (failed("stdout"), failed("stderr")) {
            (Some(why), _) => {
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "error: cannot write to standard output: {why}");
                std::process::exit(1);
            }
            (None, Some(_)) => std::process::exit(1),
            (None, None) => default(info),
        }
    }));
}

/// Colour only on a terminal, and never when NO_COLOR is set (<https://no-color.org>).
fn colour_on_stderr() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The log's level: info, debug with -v, trace with -vv; warnings and errors alone under a
/// command's `--quiet` (which asks for no progress, and the info lines are progress).
fn init_tracing(verbose: u8, quiet: bool) {
    let default = match (verbose, quiet) {
        (0, true) => "warn",
        (0, false) => "info",
        (1, _) => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour_on_stderr())
        .with_target(false)
        // A full or closed standard error loses log lines, never a search (the subscriber's
        // own report of the failure went to standard error too, and panicked there).
        .log_internal_errors(false)
        .init();
}
