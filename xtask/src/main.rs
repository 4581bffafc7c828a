//! Project tasks (the cargo xtask pattern): `cargo xtask <task>`.
//!
//! - `search --n 5 [--fresh] [flags...]`: builds the release binary and runs a search with good
//!   defaults, results in ./results/5x5x5 (the folder `flipgraph search --size 5` writes; GPU
//!   when usable, else CPU), continuing the search found there unless `--fresh`. Further flags
//!   go to `flipgraph search`.
//! - `ptx-check [BINARY]`: builds the kernels (or takes the PTX a built `flipgraph` binary
//!   embeds), checks that the PTX holds match.any.sync and vote ballot instructions and, when a
//!   ptxas is at hand, that it assembles for sm_90 with no spills (but in a kernel the build
//!   caps on purpose, which must stay within its cap).
//! - `dist`: builds the release binary (what the device machine runs).

use flipgraph_core::device::kernels;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

type Result<T> = std::result::Result<T, String>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("search") if args[1..].iter().any(|a| a == "--help" || a == "-h") => {
            print!("{SEARCH_USAGE}");
            Ok(())
        }
        Some("search") => search(&args[1..]),
        Some("ptx-check") => ptx_check(args.get(1).map(PathBuf::from)),
        Some("dist") => build_release().map(|bin| println!("{}", bin.display())),
        _ => Err("usage: cargo xtask search --n 5 [flipgraph search flags] | ptx-check [BINARY] | dist".into()),
    };
    if let Err(e) = result {
        eprintln!("xtask: {e}");
        exit(1);
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed with {status}"))
    }
}

fn build_release() -> Result<PathBuf> {
    run(Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["build", "--release", "--locked", "-p", "flipgraph"]))?;
    Ok(target_dir(std::env::var_os("CARGO_TARGET_DIR")).join("release/flipgraph"))
}

/// Where cargo builds: CARGO_TARGET_DIR when set (relative to the workspace, as cargo takes
/// it), else the workspace's target/.
fn target_dir(from_env: Option<std::ffi::OsString>) -> PathBuf {
    match from_env.filter(|dir| !dir.is_empty()) {
        Some(dir) => root().join(dir),
        None => root().join("target"),
    }
}

/// `cargo xtask search --help`.
const SEARCH_USAGE: &str = "\
Builds the release binary and searches one format, from the naive scheme to its best known rank.

Usage: cargo xtask search --n SIZE [--fresh] [FLAGS of flipgraph search]

  --n SIZE   the format: 5 (5x5x5) or 4x4x5; required
  --fresh    start a new search (in results/SIZE-2, -3, ...) instead of continuing the one
             in results/SIZE
  FLAGS      passed on to `flipgraph search` (see `flipgraph search --help`), such as
             --time 10m, --seed 2, --backend cpu, --out DIR

Results, checkpoint and event log go to results/SIZE (SIZE written NxMxP, as `flipgraph
search --size` names it); a second run with the same --n continues that search where it
stopped (Ctrl-C, a kill, or its time limit). On a GPU the search runs until the best known
rank; on the CPU (no usable GPU, or --backend cpu) it stops after 5 minutes unless --time
says otherwise.
";

/// What `cargo xtask search` was asked: the size, whether to start afresh, and the flags that
/// pass through to `flipgraph search`.
#[derive(Debug, PartialEq)]
struct SearchArgs {
    size: String,
    fresh: bool,
    pass: Vec<String>,
}

impl SearchArgs {
    /// `--n 5` or `--n 4x4x5` is the size, `--fresh` a fresh start; everything else passes through.
    fn parse(args: &[String]) -> Result<SearchArgs> {
        let mut pass = Vec::new();
        let mut size = None;
        let mut fresh = false;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--n" => size = Some(it.next().ok_or("--n needs a size, like 5 or 4x4x5")?.clone()),
                "--fresh" => fresh = true,
                _ => pass.push(a.clone()),
            }
        }
        let size = size.ok_or("missing --n (the size, like 5 or 4x4x5); --help says more")?;
        Ok(SearchArgs {
            size: shape_name(&size),
            fresh,
            pass,
        })
    }
}

/// The name `flipgraph search` gives a format's folder: `5` is `5x5x5`; others as given.
fn shape_name(size: &str) -> String {
    match size.parse::<u32>() {
        Ok(n) => format!("{n}x{n}x{n}"),
        Err(_) => size.to_owned(),
    }
}

/// How long a search on the CPU runs when given no `--time`: the records of the larger shapes
/// take a GPU (or days of CPU), and the main job must end by itself on a laptop.
const CPU_TIME: &str = "5m";

/// The time limit `cargo xtask search` adds: [`CPU_TIME`] when the search runs on the CPU (no
/// usable GPU, or `--backend cpu`) and `pass` gives none.
fn cpu_time_limit(pass: &[String], gpu_usable: bool) -> Option<[&'static str; 2]> {
    let on_cpu = !gpu_usable || pass.windows(2).any(|w| w[0] == "--backend" && w[1] == "cpu");
    let timed = pass.iter().any(|a| a == "--time" || a.starts_with("--time="));
    (on_cpu && !timed).then_some(["--time", CPU_TIME])
}

/// The search in results/SIZE is continued when there is one; `--fresh` starts another beside it.
/// On the CPU it stops after [`CPU_TIME`] unless given a `--time`.
fn search(args: &[String]) -> Result<()> {
    let SearchArgs { size, fresh, pass } = SearchArgs::parse(args)?;
    let bin = build_release()?;
    let gpu_usable = Command::new(&bin).arg("gpu").output().is_ok_and(|o| o.status.success());
    let bound = cpu_time_limit(&pass, gpu_usable);
    if bound.is_some() {
        eprintln!(
            "xtask: no GPU in use, so the search runs on the CPU for at most {CPU_TIME} (--time sets another limit). \
             On one H100 the same command reaches 4x4x4's 47 in about 2 s, 5x5x5's 93 in about 6 s and \
             6x6x6's 153 in minutes (BENCHMARKS.md, Time to the best known rank)."
        );
    }
    let mut cmd = Command::new(bin);
    cmd.current_dir(root()).arg("search");
    if pass.iter().any(|a| a == "--out" || a == "--resume") {
        cmd.args(["--size", &size]);
    } else {
        let dir = results_dir(&root().join("results"), &size, fresh);
        if dir.join("checkpoint.json").exists() {
            eprintln!(
                "xtask: continuing the search in {} (--fresh starts a new one)",
                dir.display()
            );
            cmd.arg("--resume").arg(&dir);
        } else {
            cmd.args(["--size", &size]).arg("--out").arg(&dir);
        }
    }
    run(cmd.args(&pass).args(bound.iter().flatten()))
}

/// `base/SIZE`, or with `fresh` the first of `base/SIZE-2`, `-3`, ... that holds no search.
fn results_dir(base: &Path, size: &str, fresh: bool) -> PathBuf {
    let first = base.join(size);
    if !fresh || !first.join("checkpoint.json").exists() {
        return first;
    }
    (2..)
        .map(|i| base.join(format!("{size}-{i}")))
        .find(|d| !d.join("checkpoint.json").exists())
        .expect("some folder is free")
}

/// Checks the PTX that `binary` embeds; without one, builds the debug binary first (CI passes
/// the one its tests built, which spares a second build of every crate).
fn ptx_check(binary: Option<PathBuf>) -> Result<()> {
    let binary = match binary {
        Some(binary) => binary,
        None => {
            run(Command::new(env!("CARGO"))
                .current_dir(root())
                .args(["build", "-p", "flipgraph"]))?;
            root().join("target/debug/flipgraph")
        }
    };
    let out = Command::new(&binary)
        .args(["gpu", "--dump-ptx"])
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    let ptx = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || ptx.is_empty() {
        return Err(format!("no PTX embedded: {}", String::from_utf8_lossy(&out.stderr)));
    }
    for needle in [
        "match.any.sync",
        "vote.sync.ballot.b32",
        "redux.sync.add",
        "shfl.sync.idx",
        ".entry",
    ] {
        if !ptx.contains(needle) {
            return Err(format!("the PTX lacks {needle}"));
        }
        println!("ptx: has {needle}");
    }
    let Some(ptxas) = find_ptxas() else {
        println!("ptx: no ptxas found (pip install nvidia-cuda-nvcc-cu12 for one); assembly not checked");
        return Ok(());
    };
    let file = root().join("target/flipgraph_kernels.ptx");
    std::fs::write(&file, &ptx).map_err(|e| e.to_string())?;
    let out = Command::new(&ptxas)
        .args(["-arch=sm_90", "-v", "-o", "/dev/null"])
        .arg(&file)
        .output()
        .map_err(|e| format!("{}: {e}", ptxas.display()))?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    print!("{log}");
    if !out.status.success() {
        return Err("ptxas rejected the PTX".into());
    }
    for kernel in walk_registers(&log, &ptx)? {
        let WalkKernel {
            name,
            registers,
            spilled,
            ..
        } = kernel;
        match kernel.cap {
            Some(cap) => println!("ptx: {name} uses {registers} registers, capped at {cap}, {spilled} bytes of spills"),
            None => println!("ptx: assembles for sm_90 with no spills; {name} uses {registers} registers"),
        }
    }
    Ok(())
}

/// The walk kernels whose occupancy ptx-check guards: core's, but the self-test's checked twins.
const WALK_KERNELS: [&str; 13] = unchecked_kernels();

const fn unchecked_kernels() -> [&'static str; 13] {
    let mut names = [""; 13];
    let (mut i, mut n) = (0, 0);
    while i < kernels::ALL.len() {
        if !kernels::ALL[i].checked {
            names[n] = kernels::ALL[i].name;
            n += 1;
        }
        i += 1;
    }
    assert!(n == names.len(), "core's unchecked walk kernels changed in number");
    names
}

/// Spill bytes (stores and loads) a kernel with a register cap may have, its calls included:
/// `walk32_groups` at 96 registers has 188 (ptxas 12.9; 164 before the held groups and the
/// slot list; the same 188 since the self-test's checks moved to the checked twins), which cost
/// less than the warps gained. The checked twins are the self-test's, not guarded here.
const MAX_CAPPED_SPILL_BYTES: u32 = 256;

/// What ptx-check found for one walk kernel.
#[derive(Debug, PartialEq)]
struct WalkKernel {
    name: &'static str,
    registers: u32,
    /// The `.maxnreg` the build gave it, if any.
    cap: Option<u32>,
    /// Spill bytes (stores and loads), its calls included.
    spilled: u32,
}

/// From ptxas's verbose log and the PTX: each walk kernel's registers and spills, or why the
/// PTX fails the check (a spill outside a kernel that carries a register cap, or more than
/// [`MAX_CAPPED_SPILL_BYTES`] in one; a kernel missing; one above its cap or, uncapped, above
/// its [`register_budget`]).
fn walk_registers(log: &str, ptx: &str) -> Result<Vec<WalkKernel>> {
    let mut sections = log.split("Compiling entry function '");
    let before_entries = sections.next().unwrap_or("");
    // Each entry's part of the log, up to the next entry: ptxas lists under each entry every
    // function it calls, again for each caller (ptxas 12.9), so a spill there is that entry's.
    let entries: Vec<(&str, &str)> = sections
        .map(|section| (section.split('\'').next().unwrap_or(""), section))
        .collect();
    let mut spills: Vec<String> = Vec::new();
    if spill_bytes(before_entries) > 0 {
        spills.push("outside any entry".into());
    }
    for &(entry, section) in &entries {
        let spilled = spill_bytes(section);
        let allowed = if register_cap(ptx, entry).is_some() {
            MAX_CAPPED_SPILL_BYTES
        } else {
            0
        };
        if spilled > allowed {
            spills.push(format!("{entry}: {spilled} bytes, {allowed} allowed"));
        }
    }
    if !spills.is_empty() {
        return Err(format!("register spills: {spills:?}"));
    }
    // The walks' occupancy: at most 128 registers keep 16 warps on an SM (a change that raised
    // it to 166 once cut the warps to 12 and the throughput with them).
    WALK_KERNELS
        .into_iter()
        .map(|name| {
            let no_count = || format!("ptxas reported no register count for '{name}'");
            let section = entries
                .iter()
                .find_map(|&(entry, section)| (entry == name).then_some(section))
                .ok_or_else(no_count)?;
            let registers = section
                .split("Used ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse::<u32>().ok())
                .ok_or_else(no_count)?;
            let cap = register_cap(ptx, name);
            let budget = cap.unwrap_or(register_budget(name));
            if registers > budget {
                return Err(format!(
                    "the {name} kernel needs {registers} registers, above {budget} (fewer warps per SM)"
                ));
            }
            Ok(WalkKernel {
                name,
                registers,
                cap,
                spilled: spill_bytes(section),
            })
        })
        .collect()
}

/// The bytes of the `N bytes spill stores, M bytes spill loads` lines in `text`, stores and loads.
fn spill_bytes(text: &str) -> u32 {
    text.lines()
        .filter(|l| l.contains("spill stores"))
        .flat_map(|l| l.split(','))
        .filter(|part| part.contains("spill"))
        .filter_map(|part| part.split_whitespace().next()?.parse::<u32>().ok())
        .sum()
}

/// The `.maxnreg` that crates/search/build.rs gave `kernel` in the PTX, if any.
fn register_cap(ptx: &str, kernel: &str) -> Option<u32> {
    let at = ptx.find(&format!(".entry {kernel}("))?;
    let head = &ptx[at..at + ptx[at..].find("\n{")?];
    head.split(".maxnreg ").nth(1)?.split_whitespace().next()?.parse().ok()
}

/// The register budget of the walk kernels: 16 warps of 32 threads per SM (65536 registers).
const MAX_WALK_REGISTERS: u32 = 128;

/// The register budget of the 128-bit kernels (160 used, 2026-11-27): their shared memory, two
/// words a factor, holds them to fewer warps than registers would (1056 on an H100 for 8x8x8
/// against 2112 of the 64-bit kernel), and capped at 128 registers `walk128` walked no faster
/// (9x9x9 from naive 0.358-0.366 G vertices/s against 0.362-0.370; 8x8x8 at 128 bits
/// 0.696-0.698 against 0.692-0.702; BENCHMARKS.md, "The 128-bit kernel").
const WIDE_WALK_REGISTERS: u32 = 168;

/// The register budget of walk kernel `name`: the 128-bit kernels' for `walk_zt` too (128-bit
/// words; 158 registers on 2026-11-28, so 12 warps an SM on an H200, 1,584 walkers, at
/// 404-439 M vertices/s on 4x4x4: BENCHMARKS.md, "One GPU over ZT"; a cap of 128 is untried).
fn register_budget(name: &str) -> u32 {
    if name.starts_with("walk128") || name == kernels::WALK_ZT.name {
        WIDE_WALK_REGISTERS
    } else {
        MAX_WALK_REGISTERS
    }
}

/// `$PTXAS`, `ptxas` on PATH, or the one in the nvidia-cuda-nvcc-cu12 wheel.
fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(p.into());
    }
    if Command::new("ptxas")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some("ptxas".into());
    }
    let script = "import nvidia.cuda_nvcc as m, os; print(os.path.join(list(m.__path__)[0], 'bin', 'ptxas'))";
    let out = Command::new("python3").args(["-c", script]).output().ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    path.is_file().then_some(path)
}

#[cfg(test)]
mod tests {
    use super::{results_dir, walk_registers, SearchArgs, WalkKernel, WALK_KERNELS};

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn a_search_on_the_cpu_is_bounded_unless_it_has_a_time() {
        use super::{cpu_time_limit, CPU_TIME};
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(cpu_time_limit(&args(&[]), false), Some(["--time", CPU_TIME]));
        assert_eq!(cpu_time_limit(&args(&[]), true), None);
        assert_eq!(
            cpu_time_limit(&args(&["--backend", "cpu"]), true),
            Some(["--time", CPU_TIME])
        );
        assert_eq!(cpu_time_limit(&args(&["--time", "1h"]), false), None);
        assert_eq!(cpu_time_limit(&args(&["--time=1h"]), false), None);
    }

    #[test]
    fn the_binary_is_looked_for_where_cargo_builds_it() {
        use super::{root, target_dir};
        assert_eq!(target_dir(None), root().join("target"));
        assert_eq!(target_dir(Some("".into())), root().join("target"));
        assert_eq!(target_dir(Some("/tmp/t".into())), std::path::PathBuf::from("/tmp/t"));
        assert_eq!(target_dir(Some("build".into())), root().join("build"));
    }

    #[test]
    fn search_takes_the_size_and_fresh_and_passes_the_rest_on() {
        let parsed = SearchArgs::parse(&strings(&["--time", "60", "--n", "4x4x5", "--fresh", "--seed", "2"])).unwrap();
        assert_eq!(
            parsed,
            SearchArgs {
                size: "4x4x5".into(),
                fresh: true,
                pass: strings(&["--time", "60", "--seed", "2"]),
            }
        );
        assert!(SearchArgs::parse(&strings(&["--time", "60"]))
            .unwrap_err()
            .contains("missing --n"));
        assert!(SearchArgs::parse(&strings(&["--n"]))
            .unwrap_err()
            .contains("--n needs a size"));
        // The folder is named as `flipgraph search --size 4` names it.
        assert_eq!(SearchArgs::parse(&strings(&["--n", "4"])).unwrap().size, "4x4x4");
    }

    #[test]
    fn a_fresh_search_goes_beside_the_searches_already_there() {
        let base = std::env::temp_dir().join(format!("xtask-results-{}", std::process::id()));
        let search_in = |dir: &std::path::Path| {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("checkpoint.json"), "{}").unwrap();
        };
        assert_eq!(results_dir(&base, "5", true), base.join("5"));
        search_in(&base.join("5"));
        assert_eq!(results_dir(&base, "5", false), base.join("5"));
        assert_eq!(results_dir(&base, "5", true), base.join("5-2"));
        search_in(&base.join("5-2"));
        assert_eq!(results_dir(&base, "5", true), base.join("5-3"));
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A ptxas log in the shape `ptxas -v` writes, each walk kernel with the registers and spill
    /// bytes `of` gives it.
    fn log_of(of: impl Fn(&str) -> (u32, u32)) -> String {
        WALK_KERNELS
            .iter()
            .map(|k| {
                let (used, spill) = of(k);
                format!(
                    "ptxas info    : Compiling entry function '{k}' for 'sm_90'\n\
                     ptxas info    : Function properties for {k}\n    \
                     0 bytes stack frame, {spill} bytes spill stores, {spill} bytes spill loads\n\
                     ptxas info    : Used {used} registers, used 0 barriers\n"
                )
            })
            .collect()
    }

    /// The same log with `used` registers and `spill` bytes for every walk kernel.
    fn log(used: u32, spill: u32) -> String {
        log_of(|_| (used, spill))
    }

    /// PTX entries of the walk kernels, `capped` with `.maxnreg 96`.
    fn ptx(capped: &[&str]) -> String {
        WALK_KERNELS
            .iter()
            .map(|k| {
                let cap = if capped.contains(k) { "\n.maxnreg 96" } else { "" };
                format!(".visible .entry {k}(\n\t.param .u64 p\n){cap}\n{{\n\tret;\n}}\n")
            })
            .collect()
    }

    #[test]
    fn the_ptx_check_reads_each_kernels_registers_and_fails_on_spills_or_too_many() {
        let plain = ptx(&[]);
        let counts = walk_registers(&log(118, 0), &plain).unwrap();
        assert_eq!(counts.len(), WALK_KERNELS.len());
        assert!(counts
            .iter()
            .all(|k| k.registers == 118 && k.spilled == 0 && k.cap.is_none()));
        assert!(walk_registers(&log(130, 0), &plain)
            .unwrap_err()
            .contains("130 registers"));
        assert!(walk_registers(&log(100, 8), &plain).unwrap_err().contains("spills"));
        let without_groups = log(100, 0).replace("walk32_groups", "other");
        assert!(walk_registers(&without_groups, &plain)
            .unwrap_err()
            .contains("'walk32_groups'"));
    }

    #[test]
    fn a_kernel_with_a_register_cap_may_spill_a_little_but_not_pass_its_cap() {
        let capped = ptx(&["walk32_groups"]);
        let groups_at =
            |used: u32, spill: u32| log_of(move |k| if k == "walk32_groups" { (used, spill) } else { (120, 0) });
        let counts = walk_registers(&groups_at(96, 64), &capped).unwrap();
        let groups = WalkKernel {
            name: "walk32_groups",
            registers: 96,
            cap: Some(96),
            spilled: 128,
        };
        assert!(counts.contains(&groups), "{counts:?}");
        let uncapped = walk_registers(&groups_at(96, 64), &ptx(&[])).unwrap_err();
        assert!(uncapped.contains("walk32_groups: 128 bytes, 0 allowed"), "{uncapped}");
        let spilling = walk_registers(&groups_at(96, 200), &capped).unwrap_err();
        assert!(spilling.contains("400 bytes, 256 allowed"), "{spilling}");
        assert!(walk_registers(&groups_at(100, 64), &capped)
            .unwrap_err()
            .contains("above 96"));
    }

    #[test]
    fn each_capped_kernel_reports_its_own_spills() {
        let capped = ptx(&["walk_groups", "walk32_groups"]);
        let capped_groups = |k: &str| k == "walk_groups" || k == "walk32_groups";
        let spilling = log_of(|k| if capped_groups(k) { (96, 32) } else { (120, 0) });
        let kernels = walk_registers(&spilling, &capped).unwrap();
        let groups: Vec<u32> = kernels
            .iter()
            .filter(|k| capped_groups(k.name))
            .map(|k| k.spilled)
            .collect();
        assert_eq!(groups, [64, 64], "not the spills of the entries logged after it");
    }
}
