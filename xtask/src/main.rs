//! Project tasks (the cargo xtask pattern): `cargo xtask <task>`.
//!
//! - `search --n 5 [--fresh] [flags...]`: builds the release binary and runs a search with good
//!   defaults, results in ./results/5 (GPU when usable, else CPU), continuing the search found
//!   there unless `--fresh`. Further flags go to `flipgraph search`.
//! - `ptx-check`: builds the kernels, checks that the PTX holds match.any.sync and vote ballot
//!   instructions and, when a ptxas is at hand, that it assembles for sm_90 with no spills.
//! - `dist`: builds the release binary (what the device machine runs).

use std::path::{Path, PathBuf};
use std::process::{exit, Command};

type Result<T> = std::result::Result<T, String>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("search") => search(&args[1..]),
        Some("ptx-check") => ptx_check(),
        Some("dist") => build_release().map(|bin| println!("{}", bin.display())),
        _ => Err("usage: cargo xtask search --n 5 [flipgraph search flags] | ptx-check | dist".into()),
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
        .args(["build", "--release", "-p", "flipgraph"]))?;
    Ok(root().join("target/release/flipgraph"))
}

/// `--n 5` or `--n 4x4x5` becomes `--size`; everything else passes through. The search in
/// results/SIZE is continued when there is one; `--fresh` starts another beside it.
fn search(args: &[String]) -> Result<()> {
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
    let size = size.ok_or("missing --n (the size, like 5 or 4x4x5)")?;
    let bin = build_release()?;
    let mut cmd = Command::new(bin);
    cmd.current_dir(root()).arg("search");
    if pass.iter().any(|a| a == "--out" || a == "--resume") {
        cmd.args(["--size", &size]);
    } else {
        let dir = results_dir(&size, fresh);
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
    run(cmd.args(&pass))
}

/// results/SIZE, or with `fresh` the first of results/SIZE-2, -3, ... that holds no search.
fn results_dir(size: &str, fresh: bool) -> PathBuf {
    let base = root().join("results");
    let first = base.join(size);
    if !fresh || !first.join("checkpoint.json").exists() {
        return first;
    }
    (2..)
        .map(|i| base.join(format!("{size}-{i}")))
        .find(|d| !d.join("checkpoint.json").exists())
        .expect("some folder is free")
}

fn ptx_check() -> Result<()> {
    run(Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["build", "-p", "flipgraph"]))?;
    let out = Command::new(root().join("target/debug/flipgraph"))
        .args(["gpu", "--dump-ptx"])
        .output()
        .map_err(|e| e.to_string())?;
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
    let spills = log
        .lines()
        .filter(|l| l.contains("spill") && !l.contains(" 0 bytes spill stores, 0 bytes spill loads"));
    let spills: Vec<&str> = spills.collect();
    if !spills.is_empty() {
        return Err(format!("register spills: {spills:?}"));
    }
    // The walks' occupancy: at most 128 registers keep 16 warps on an SM (a change that raised
    // it to 166 once cut the warps to 12 and the throughput with them).
    for kernel in ["walk", "walk32", "walk_c3", "walk32_c3", "walk_groups", "walk32_groups"] {
        let registers = log
            .split(&format!("entry function '{kernel}'"))
            .nth(1)
            .and_then(|rest| rest.split("Used ").nth(1))
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<u32>().ok())
            .ok_or(format!("ptxas reported no register count for '{kernel}'"))?;
        if registers > MAX_WALK_REGISTERS {
            return Err(format!(
                "the {kernel} kernel needs {registers} registers, above {MAX_WALK_REGISTERS} (fewer warps per SM)"
            ));
        }
        println!("ptx: assembles for sm_90 with no spills; {kernel} uses {registers} registers");
    }
    Ok(())
}

/// The register budget of the walk kernels: 16 warps of 32 threads per SM (65536 registers).
const MAX_WALK_REGISTERS: u32 = 128;

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
