//! Builds crates/kernels to PTX for nvptx64-nvidia-cuda (the role of cuda_builder) and leaves
//! it in OUT_DIR for `include_str!`.
//!
//! The kernels need the pinned nightly (rust-toolchain.toml) with rust-src: `-Zbuild-std=core`,
//! fat LTO and `--emit=asm` give one PTX module with no linker at all (docs/ARCHITECTURE.md, Toolchain).
//! When that toolchain is missing the build goes on with an empty PTX and a warning, so the
//! binary still builds (and runs its CPU engine); `flipgraph` then says why there is no GPU.

use flipgraph_core::device::kernels;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../..");
    let kernels = root.join("crates/kernels");
    for watched in [
        "crates/kernels/src",
        "crates/kernels/Cargo.toml",
        "crates/core/src",
        "rust-toolchain.toml",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    println!("cargo:rerun-if-env-changed=FLIPGRAPH_SKIP_PTX");
    println!("cargo:rerun-if-env-changed=FLIPGRAPH_MAXNREG");
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    let ptx_out = out.join("flipgraph_kernels.ptx");
    let result = if env::var_os("FLIPGRAPH_SKIP_PTX").is_some() {
        Err("FLIPGRAPH_SKIP_PTX is set".to_owned())
    } else {
        // One target folder for every profile and feature set of the host build (check, test,
        // release, mpi, ...): the device build is the same for all of them, so cargo builds it
        // once and reuses it, where a folder under OUT_DIR rebuilt it (about 30 s on 2 cores)
        // for each. Cargo's own lock on the folder orders concurrent host builds.
        build_ptx(&root, &kernels, &kernels.join("target"))
    };
    match result {
        Ok(ptx) => fs::write(&ptx_out, limit_registers(ptx)).unwrap(),
        Err(why) => {
            println!("cargo:warning=GPU kernels not built ({why}); the binary will run on the CPU only");
            fs::write(&ptx_out, "").unwrap();
        }
    }
}

/// Register caps every build gives (`.maxnreg`), each kernel's reason measured: with 96
/// registers 20 warps of `walk32_groups` fit on an SM instead of 16, and from the record starts
/// it walks 10% faster at 5x5x5 r93 and 2% at 4x4x4 r47 (H100; docs/BENCHMARKS-ARCHIVE.md,
/// "Occupancy near records, and five pool ranks"), its spills
/// (64 bytes stored when that was measured) included. The other kernels lost with the same cap (`walk_groups` 8% at 8x8x8 r329,
/// where shared memory holds it at 16 warps anyway; the sampling kernels on 4x4x4, 7x7x7 and
/// 8x8x8 from naive), so they keep every register they need. `cargo xtask ptx-check` allows
/// spills only in a kernel that carries a cap.
const REGISTER_CAPS: [(&str, u32); 1] = [(kernels::WALK32_GROUPS.name, 96)];

/// Caps walk kernels' registers: [`REGISTER_CAPS`], and FLIPGRAPH_MAXNREG to tune them, `N`
/// for the `walk` kernel or `kernel=N,kernel=N` for any (0: no cap).
fn limit_registers(ptx: String) -> String {
    let mut caps: Vec<(String, u32)> = REGISTER_CAPS.iter().map(|&(k, n)| (k.to_owned(), n)).collect();
    let spec = env::var("FLIPGRAPH_MAXNREG").unwrap_or_default();
    for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (kernel, n) = entry.split_once('=').unwrap_or(("walk", entry));
        let kernel = kernel.trim();
        match n.trim().parse::<u32>() {
            // A later cap of the same kernel replaces the earlier (or the default).
            Ok(n) => {
                caps.retain(|(k, _)| k != kernel);
                caps.push((kernel.to_owned(), n));
            }
            Err(_) => println!("cargo:warning=FLIPGRAPH_MAXNREG: '{entry}' is not N or kernel=N; ignored"),
        }
    }
    caps.into_iter()
        .filter(|&(_, n)| n > 0)
        .fold(ptx, |ptx, (kernel, n)| cap_kernel(ptx, &kernel, n))
}

/// Puts `.maxnreg n` between `kernel`'s parameter list and its body.
fn cap_kernel(ptx: String, kernel: &str, n: u32) -> String {
    match ptx
        .find(&format!(".entry {kernel}("))
        .and_then(|at| ptx[at..].find("\n{").map(|b| at + b))
    {
        Some(body) => format!("{}\n.maxnreg {n}{}", &ptx[..body], &ptx[body..]),
        None => {
            println!("cargo:warning=register cap: no kernel '{kernel}' in the PTX");
            ptx
        }
    }
}

fn pinned_toolchain(root: &Path) -> Option<String> {
    let text = fs::read_to_string(root.join("rust-toolchain.toml")).ok()?;
    let line = text.lines().find(|l| l.trim_start().starts_with("channel"))?;
    Some(line.split('"').nth(1)?.to_owned())
}

fn build_ptx(root: &Path, kernels: &Path, target_dir: &Path) -> Result<String, String> {
    let mut cmd = Command::new("cargo");
    // Whatever toolchain builds the host side, the kernels use the pinned nightly.
    if let Some(channel) = pinned_toolchain(root) {
        cmd.env("RUSTUP_TOOLCHAIN", channel);
    }
    // The outer cargo's settings must not leak into the device build.
    for var in [
        "RUSTC",
        "RUSTDOC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_MAKEFLAGS",
        "CARGO_PRIMARY_PACKAGE",
    ] {
        cmd.env_remove(var);
    }
    cmd.current_dir(kernels).args([
        "rustc",
        "--release",
        "--locked",
        "--target",
        "nvptx64-nvidia-cuda",
        "-Zbuild-std=core",
        "--target-dir",
    ]);
    cmd.arg(target_dir)
        .args(["--", "--emit=asm", "-Ctarget-cpu=sm_90", "-Clinker=true"]);
    let output = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!("cargo rustc for nvptx64 failed:\n{}", tail.join("\n")));
    }
    let asm = target_dir.join("nvptx64-nvidia-cuda/release/deps/flipgraph_kernels.s");
    fs::read_to_string(&asm).map_err(|e| format!("{}: {e}", asm.display()))
}
