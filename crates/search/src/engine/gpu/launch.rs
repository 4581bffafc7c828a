//! The host's side of the launch contract: a round's [`Launch`] written from the engine's
//! buffers and settings, passed to the kernels by value.

use cudarc::driver::DeviceRepr;
use flipgraph_core::device::{Launch, Switch, WalkPolicy};
use flipgraph_core::group::Reversal;
use flipgraph_core::walk::{Plateau, Reductions};
use flipgraph_core::Shape;

use super::GpuOptions;

/// The device addresses of a launch's buffers.
#[derive(Clone, Copy, Debug)]
pub(super) struct Buffers {
    pub(super) terms: u64,
    pub(super) best: u64,
    pub(super) states: u64,
    pub(super) staging: u64,
    pub(super) log: u64,
}

/// The kernels' parameter for a round of `steps` steps toward `target` by `walkers` walkers of
/// `cap` slots in `buffers`, with the settings of `options` (and a trap, the test hook, when
/// `trap`). The one place where the host writes the launch contract.
pub(super) fn launch(
    options: &GpuOptions,
    shape: Shape,
    (walkers, cap): (usize, usize),
    buffers: Buffers,
    steps: u64,
    target: usize,
    trap: bool,
) -> Launch {
    let config = options.config;
    let policy = WalkPolicy::new()
        .with(Switch::Generalized, config.generalized)
        .with(Switch::Log, options.log_entries > 0)
        .with(Switch::Scan, config.reductions == Reductions::Scan)
        .with(Switch::Hints, options.hints.enabled(cap))
        .with(Switch::Adaptive, config.plateau.adapts())
        .with(Switch::Trap, trap)
        .with_sparsity(config.sparsity);
    let clamp = |v: u64| v.min(u32::MAX as u64) as u32;
    Launch {
        terms: buffers.terms,
        best: buffers.best,
        states: buffers.states,
        staging: buffers.staging,
        log: buffers.log,
        warps: walkers as u32,
        cap: cap as u32,
        steps: clamp(steps),
        target: clamp(target as u64),
        policy,
        log_cap: options.log_entries as u32,
        match_rounds: options.match_rounds,
        flips: options.flips,
        round_us: options.round_us,
        plateau_floor: match config.plateau {
            Plateau::Adaptive { floor } => floor,
            Plateau::Fixed(_) => 0,
        },
        widths: Reversal::of(shape).widths(),
        unused: 0,
    }
}

/// [`Launch`] as a kernel argument: passed by value, as the kernels' one parameter.
#[repr(transparent)]
pub(super) struct LaunchArg(pub(super) Launch);

// SAFETY: a `#[repr(C)]` plain-old-data struct, the kernels' parameter type.
unsafe impl DeviceRepr for LaunchArg {}
