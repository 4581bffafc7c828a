//! The GPU engine: the walk kernel of crates/kernels (one warp per scheme) driven through
//! cudarc. The driver library is loaded at run time, so the binary starts on machines without
//! one; there `open` fails with a clear message and `--backend auto` takes the CPU.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::{anyhow, bail, Context, Result};
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use flipgraph_core::device::kernels::WalkKernel;
use flipgraph_core::device::{log_words, scheme_words, warp_shared_bytes, Partners, WarpState, NO_LOAD};
use flipgraph_core::group::Orbits;
use flipgraph_core::plateau::Style;
use flipgraph_core::scheme::WidthError;
use flipgraph_core::term::FactorBits;
use flipgraph_core::walk::{Counters, WalkConfig};
use flipgraph_core::{Position, Scheme, Shape, Term};

use super::{refuse_wide_symmetry, Engine, Group, Kind, PlusCap, Round, WalkerStatus};

mod device;
mod launch;
mod layout;
mod multi;
mod selftest;
mod ternary;

use device::open_device;
pub use device::{device_count, devices, usable};
use launch::{launch, Buffers, LaunchArg};
use layout::{check_cap, check_memory, device_words, slots_from_words, walked_terms, walker_cap, words_per_factor};
pub use multi::MultiGpu;
pub use selftest::{self_test, Mode, Replayed};
pub use ternary::{ternary_self_test, TernaryGpu};

/// The PTX of crates/kernels, built by build.rs (empty when the toolchain was missing).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/flipgraph_kernels.ptx"));

/// The walk kernel for walks of `shape` on factors of `bits` bits: 32-bit factors where they
/// fit (half the shared memory, and compares of one instruction), else 64-bit, else 128-bit
/// (plain walks only); the symmetric kernels of the group (which sample their partners), the
/// group kernels for plain walks by groups, their checked twins for `logged` walks (the
/// self-test's).
fn walk_kernel(shape: Shape, bits: usize, symmetry: Group, partners: Partners, logged: bool) -> Result<WalkKernel> {
    refuse_wide_symmetry(symmetry, shape, bits)?;
    let narrow = Position::ALL.iter().all(|&pos| shape.factor_bits(pos) <= 32);
    let factor_bytes = match bits {
        65.. => 16,
        _ if narrow => 4,
        _ => 8,
    };
    let partners = match symmetry {
        Group::Trivial => partners,
        _ => Partners::Sample,
    };
    let checked = logged && partners == Partners::Groups;
    WalkKernel::find(factor_bytes, symmetry, partners, checked)
        .with_context(|| format!("no walk kernel of {factor_bytes}-byte factors for {symmetry} walks"))
}

/// Dynamic shared memory of a block of walkers of `kernel` with `cap` slots each: per warp,
/// its factors, its partner hints, and a group kernel's table and mates.
fn block_bytes(kernel: WalkKernel, cap: usize) -> usize {
    BLOCK_WARPS * warp_shared_bytes(cap, kernel.factor_bytes, kernel.partners)
}

/// Warps per block.
const BLOCK_WARPS: usize = 4;
/// `WarpState` as 64-bit words (cudarc moves `u64` buffers; bytemuck casts them).
const STATE_WORDS: usize = std::mem::size_of::<WarpState>() / 8;

/// Settings of the GPU engine.
#[derive(Clone, Copy, Debug)]
pub struct GpuOptions {
    /// Walkers (warps); default: as many as the GPU holds at once.
    pub walkers: Option<usize>,
    /// The walk (its `max_rank` set for each walker, from `plus`).
    pub config: WalkConfig,
    pub device: usize,
    /// Entries of the move log per warp (0: no log).
    pub log_entries: usize,
    /// Slots each lane samples per step (match.any.sync rounds) before the step gives up.
    pub match_rounds: u32,
    /// Most flips taken from the disjoint pairs that one match finds.
    pub flips: u32,
    /// When not zero, a round ends for every warp after this many microseconds (or its
    /// steps, if sooner); zero makes rounds exact step counts, and a run reproducible.
    pub round_us: u32,
    /// Whether lanes draw the slots they offer to a match by their partner hints.
    pub hints: Hints,
    /// How walkers find flip partners: by sampling, or by groups.
    pub partners: Partners,
    /// Which schemes the walkers walk: those invariant under the group, moved orbit by orbit
    /// with their fixed terms (the orbits that are not free) frozen.
    pub symmetry: Group,
    /// Where plus moves stop (the slack at most 64).
    pub plus: PlusCap,
    /// The highest rank of a scheme that walkers are loaded with (a search's starts), which
    /// sizes the walkers; None: the naive rank.
    pub start_rank: Option<usize>,
}

/// Whether a GPU walker's lanes draw the terms they offer to a match by their partner hints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hints {
    /// On where each lane holds at least 8 slots (7x7x7 and 8x8x8 from naive), where a
    /// uniform match seldom pairs; off below.
    Auto,
    /// Three draws in four among the slots last seen with a partner (or changed by a flip):
    /// more flips per match where most factors are unique, but a new pair of two unhinted
    /// terms meets only when both are drawn uniformly (one draw in four each), so reductions
    /// may come more slowly.
    On,
    /// Uniform draws.
    Off,
}

impl Hints {
    /// Whether walkers of `cap` slots take hints.
    fn enabled(self, cap: usize) -> bool {
        match self {
            Hints::Auto => cap / 32 >= HINTS_FROM_SLOTS,
            Hints::On => true,
            Hints::Off => false,
        }
    }
}

/// How the GPU engine walks beyond what it walks: its rounds, matches and flips per step, and
/// hints. Settings of speed, which a recipe and an engine spec hold whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuTuning {
    /// How long a round lasts, in milliseconds, when the rounds are not exact step counts.
    pub round_ms: u32,
    /// Slots each lane samples per step (match rounds).
    pub match_rounds: u32,
    /// Most flips taken from the pairs of one match.
    pub flips: u32,
    /// Whether lanes draw the slots they offer by their partner hints.
    pub hints: Hints,
}

impl Default for GpuTuning {
    fn default() -> GpuTuning {
        GpuTuning {
            round_ms: 100,
            match_rounds: 2,
            flips: 8,
            hints: Hints::Auto,
        }
    }
}

/// Slots per lane from which `Hints::Auto` takes hints.
const HINTS_FROM_SLOTS: usize = 8;

/// The GPU engine on one device, walking schemes with factors of `F` (one or two 64-bit words
/// each in global memory).
pub struct GpuEngine<F: FactorBits = u64> {
    shape: Shape,
    stream: Arc<CudaStream>,
    func: CudaFunction,
    kernel: WalkKernel,
    name: String,
    options: GpuOptions,
    walkers: usize,
    /// Term slots per walker (a multiple of 32).
    cap: usize,
    terms: CudaSlice<u64>,
    best: CudaSlice<u64>,
    states: CudaSlice<u64>,
    log: CudaSlice<u32>,
    host_states: Vec<WarpState>,
    /// A symmetric walker's fixed terms (kept here, not on the GPU); empty for plain walks.
    fixed: Vec<Vec<Term<F>>>,
    /// Schemes to load before the next round, in the device layout, and their index by terms.
    staged: Vec<u64>,
    staged_index: HashMap<Vec<Term<F>>, u32>,
    rounds: u64,
    /// The staged schemes of the round in flight, kept until it ends.
    staging: Option<CudaSlice<u64>>,
    /// Test hook: FLIPGRAPH_GPU_TRAP=N makes the kernel trap in round N.
    trap_round: Option<u64>,
}

fn driver(what: &str) -> impl FnOnce(cudarc::driver::DriverError) -> anyhow::Error + '_ {
    move |e| anyhow!("{what}: {e:?}")
}

impl<F: FactorBits> GpuEngine<F> {
    /// Opens device `options.device` for walks of `shape`.
    pub fn open(shape: Shape, options: GpuOptions) -> Result<GpuEngine<F>> {
        let kernel = walk_kernel(
            shape,
            F::BITS,
            options.symmetry,
            options.partners,
            options.log_entries > 0,
        )?;
        GpuEngine::open_with(shape, options, kernel)
    }

    /// Opens device `options.device` for walks of `shape` by `kernel`.
    fn open_with(shape: Shape, options: GpuOptions, kernel: WalkKernel) -> Result<GpuEngine<F>> {
        if PTX.is_empty() {
            bail!(
                "this flipgraph was built without GPU kernels (the pinned nightly toolchain was missing at build time)"
            );
        }
        device_count()?;
        let (ctx, module) = open_device(options.device)?;
        let name = ctx.name().map_err(driver("device name"))?;
        let sms = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(driver("SM count"))? as usize;
        let func = module
            .load_function(kernel.name)
            .map_err(driver(&format!("kernel '{}' missing from the PTX", kernel.name)))?;
        let cap = walker_cap(
            shape,
            options.plus.slack,
            options.symmetry,
            options.start_rank,
            options.plus.from,
        );
        let start_rank = options.start_rank.unwrap_or_else(|| shape.naive_rank());
        check_cap(shape, cap, start_rank, options.plus.slack)?;
        let block_bytes = block_bytes(kernel, cap);
        // The kernel's handle is the kept module's, shared by every engine on the device: its
        // limit is the device's, not this engine's blocks' (another engine may need more).
        let most = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .map_err(driver("shared memory per block"))?;
        if block_bytes > most as usize {
            bail!(
                "kernel '{}': a block of {BLOCK_WARPS} walkers of {cap} terms needs {block_bytes} bytes of shared memory; {name} has {most}",
                kernel.name
            );
        }
        func.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            most,
        )
        .map_err(driver(&format!("kernel '{}': shared memory per block", kernel.name)))?;
        // Default: as many warps as fit on the GPU at once (registers and shared memory).
        let blocks_per_sm = func
            .occupancy_max_active_blocks_per_multiprocessor((32 * BLOCK_WARPS) as u32, block_bytes, None)
            .map_err(driver(&format!("kernel '{}': occupancy", kernel.name)))? as usize;
        let resident = sms * blocks_per_sm.max(1) * BLOCK_WARPS;
        let walkers = options.walkers.unwrap_or(resident);
        let stream = ctx.default_stream();
        let words = walkers * scheme_words(cap) * words_per_factor::<F>();
        let total_mem = cudarc::driver::result::mem_get_info()
            .map(|(_, total)| total)
            .unwrap_or(usize::MAX);
        check_memory(
            shape,
            walkers,
            (cap, words_per_factor::<F>()),
            options.log_entries,
            total_mem,
        )?;
        let alloc = |n: usize| {
            stream
                .alloc_zeros::<u64>(n.max(1))
                .map_err(driver("GPU memory allocation"))
        };
        let terms = alloc(words)?;
        let best = alloc(words)?;
        let states = alloc(walkers * STATE_WORDS)?;
        let log = stream
            .alloc_zeros::<u32>((walkers * log_words(options.log_entries)).max(1))
            .map_err(driver("GPU memory allocation"))?;
        let host_states = vec![
            WarpState {
                load: NO_LOAD,
                ..WarpState::default()
            };
            walkers
        ];
        Ok(GpuEngine {
            shape,
            stream,
            func,
            kernel,
            name: format!("{name} ({sms} SMs)"),
            options,
            walkers,
            cap,
            terms,
            best,
            states,
            log,
            host_states,
            fixed: vec![Vec::new(); walkers],
            staged: Vec::new(),
            staged_index: HashMap::new(),
            rounds: 0,
            staging: None,
            trap_round: std::env::var("FLIPGRAPH_GPU_TRAP").ok().and_then(|v| v.parse().ok()),
        })
    }

    /// Walker `w`'s terms (or best terms) by slot, as on the device.
    fn slots(&self, buffer: &CudaSlice<u64>, w: usize) -> Result<Vec<Term<F>>> {
        let n = scheme_words(self.cap) * words_per_factor::<F>();
        let words = self
            .stream
            .clone_dtoh(&buffer.slice(w * n..(w + 1) * n))
            .map_err(driver("copy from the GPU"))?;
        Ok(slots_from_words(&words, self.cap))
    }

    /// Walker `w`'s current terms by slot (empty slots are zero terms).
    fn current_slots(&self, w: usize) -> Result<Vec<Term<F>>> {
        self.slots(&self.terms, w)
    }

    /// Walker `w`'s move log (packed entries) and how many moves it made (the log holds the
    /// first `log_entries`).
    fn move_log(&self, w: usize) -> Result<(Vec<[u32; 2]>, usize)> {
        let n = log_words(self.options.log_entries);
        let words = self
            .stream
            .clone_dtoh(&self.log.slice(w * n..(w + 1) * n))
            .map_err(driver("copy from the GPU"))?;
        let logged = self.host_states[w].logged as usize;
        Ok((
            words
                .chunks(2)
                .take(logged.min(self.options.log_entries))
                .map(|c| [c[0], c[1]])
                .collect(),
            logged,
        ))
    }

    /// The scheme of walker `w` whose slots are `slots`: its terms, or its orbits' terms with
    /// its fixed terms.
    fn scheme_from(&self, w: usize, slots: Vec<Term<F>>) -> Result<Scheme<F>> {
        let live = slots.into_iter().filter(|t| t.a != F::ZERO);
        match self.options.symmetry {
            Group::Trivial => Ok(Scheme::new(self.shape, live.collect())?),
            group => {
                // Symmetric walks are 64-bit: the orbits are read at that width.
                WidthError::check::<u64>(self.shape)?;
                let orbits = Orbits {
                    group,
                    shape: self.shape,
                    free: live.map(|t| t.to_width()).collect(),
                    fixed: self.fixed[w].iter().map(Term::to_width).collect(),
                };
                Ok(orbits.to_scheme()?.to_width()?)
            }
        }
    }

    /// The slots a staged scheme occupies: its terms (a symmetric walk's free orbits) in
    /// order, then empty ones.
    fn staged_slots(&self, scheme: &Scheme<F>) -> Result<Vec<Term<F>>> {
        Ok(self.slots_of(walked_terms(scheme, self.options.symmetry)?.0))
    }

    /// A walker's slots holding `terms`: they, then empty ones.
    fn slots_of(&self, mut terms: Vec<Term<F>>) -> Vec<Term<F>> {
        terms.resize(self.cap.max(terms.len()), Term::default());
        terms
    }
}

impl<F: FactorBits> Engine<F> for GpuEngine<F> {
    fn describe(&self) -> String {
        let symmetric = match self.options.symmetry {
            Group::Trivial => String::new(),
            group => format!(", {}-invariant schemes with fixed terms frozen", group.label()),
        };
        format!("gpu: {}, {} walkers (warps){symmetric}", self.name, self.walkers)
    }

    fn kind(&self) -> Kind {
        Kind::Gpu
    }

    fn timed_rounds(&self) -> bool {
        self.options.round_us != 0
    }

    fn adaptive_plateau(&self) -> bool {
        self.options.config.plateau.adapts()
    }

    fn walkers(&self) -> usize {
        self.walkers
    }

    fn load(&mut self, walker: usize, scheme: &Scheme<F>, seed: u64, style: Style) -> Result<()> {
        let (terms, fixed) = walked_terms(scheme, self.options.symmetry)?;
        self.load_slots(walker, terms, fixed, (seed, style))
    }

    fn run_round(&mut self, steps: u64, target: usize) -> Result<Round> {
        self.start_round(steps, target)?;
        self.finish_round()
    }

    fn best_scheme(&mut self, walker: usize) -> Result<Scheme<F>> {
        let slots = self.slots(&self.best, walker).context("reading a best scheme")?;
        self.scheme_from(walker, slots)
    }

    fn current_scheme(&mut self, walker: usize) -> Result<Scheme<F>> {
        let slots = self.current_slots(walker)?;
        self.scheme_from(walker, slots)
    }
}

impl<F: FactorBits> GpuEngine<F> {
    /// Loads walker `walker` with the slots `terms` (a symmetric walk's representatives) and a
    /// symmetric walk's `fixed` terms, with its seed and style: the scheme is staged once per
    /// round however many walkers load it.
    fn load_slots(
        &mut self,
        walker: usize,
        terms: Vec<Term<F>>,
        fixed: Vec<Term<F>>,
        (seed, style): (u64, Style),
    ) -> Result<()> {
        let plus = PlusCap {
            slack: self.options.plus.slack.min(64),
            ..self.options.plus
        };
        // Ranks count every term; a symmetric walker's slots hold a free orbit each.
        let unit = self.options.symmetry.order();
        if terms.len() + 1 > self.cap {
            bail!(
                "a scheme of rank {} does not fit the GPU walker's {} slots",
                fixed.len() + unit * terms.len(),
                self.cap
            );
        }
        let index = match self.staged_index.get(&terms) {
            Some(&i) => i,
            None => {
                let i = (self.staged.len() / (scheme_words(self.cap) * words_per_factor::<F>())) as u32;
                self.staged.extend(device_words(&self.slots_of(terms.clone())));
                self.staged_index.insert(terms.clone(), i);
                i
            }
        };
        let rank = fixed.len() + unit * terms.len();
        let full = fixed.len() + unit * (self.cap - 1);
        let max_rank = plus.for_rank(rank).min(full);
        let plateau = self.options.config.plateau.for_style(style);
        self.host_states[walker] = WarpState {
            rng: seed,
            rank: rank as u32,
            best_rank: rank as u32,
            max_rank: max_rank as u32,
            plateau: plateau.initial().min(u32::MAX as u64) as u32,
            load: index,
            fixed: fixed.len() as u32,
            style: style.index() as u32,
            ..WarpState::default()
        };
        self.fixed[walker] = fixed;
        Ok(())
    }
}

impl<F: FactorBits> GpuEngine<F> {
    /// Uploads the states and staged schemes and launches a round; returns at once, so that
    /// several GPUs run their rounds together.
    fn start_round(&mut self, steps: u64, target: usize) -> Result<()> {
        for s in &mut self.host_states {
            *s = WarpState {
                counters: Counters::default(),
                ..*s
            };
        }
        let copy = "copy to the GPU";
        self.stream
            .memcpy_htod(
                bytemuck::cast_slice::<WarpState, u64>(&self.host_states),
                &mut self.states,
            )
            .map_err(driver(copy))?;
        let staging = self
            .stream
            .clone_htod(if self.staged.is_empty() {
                &[0u64][..]
            } else {
                &self.staged
            })
            .map_err(driver(copy))?;
        self.staged.clear();
        self.staged_index.clear();
        self.rounds += 1;
        let trap = self.trap_round == Some(self.rounds);
        let config = LaunchConfig {
            grid_dim: (self.walkers.div_ceil(BLOCK_WARPS) as u32, 1, 1),
            block_dim: (32 * BLOCK_WARPS as u32, 1, 1),
            shared_mem_bytes: block_bytes(self.kernel, self.cap) as u32,
        };
        {
            // The guards record the buffers' use on the stream when the launch is queued.
            let (terms, _t) = self.terms.device_ptr_mut(&self.stream);
            let (best, _b) = self.best.device_ptr_mut(&self.stream);
            let (states, _s) = self.states.device_ptr_mut(&self.stream);
            let (staged, _g) = staging.device_ptr(&self.stream);
            let (log, _l) = self.log.device_ptr_mut(&self.stream);
            let buffers = Buffers {
                terms,
                best,
                states,
                staging: staged,
                log,
            };
            let launch = LaunchArg(launch(
                &self.options,
                self.shape,
                (self.walkers, self.cap),
                buffers,
                steps,
                target,
                trap,
            ));
            let mut builder = self.stream.launch_builder(&self.func);
            builder.arg(&launch);
            // SAFETY: `launch` holds the addresses of buffers laid out by flipgraph_core::device
            // for its walkers and slots (they live until the round is read back), and the
            // block's shared memory is what the kernel indexes.
            unsafe { builder.launch(config) }.map_err(driver(&format!("launching kernel '{}'", self.kernel.name)))?;
        }
        self.staging = Some(staging);
        Ok(())
    }

    /// Waits for the round in flight and reads the walkers' states.
    fn finish_round(&mut self) -> Result<Round> {
        let words = self
            .stream
            .clone_dtoh(&self.states)
            .map_err(driver(&format!("kernel '{}' failed", self.kernel.name)))?;
        self.host_states
            .copy_from_slice(bytemuck::cast_slice::<u64, WarpState>(&words));
        self.staging = None;
        let mut round = Round::default();
        for s in &self.host_states {
            round.counters += s.counters;
            round.walkers.push(WalkerStatus {
                rank: s.rank as usize,
                best_rank: s.best_rank as usize,
                plateau: s.plateau as u64,
            });
        }
        Ok(round)
    }
}

#[cfg(test)]
mod tests;
