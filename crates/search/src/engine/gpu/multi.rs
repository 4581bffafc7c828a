//! Every visible GPU as one engine.

use super::*;

/// Every visible GPU as one engine: one [`GpuEngine`] (runner) per device, walkers numbered
/// across them in device order, rounds launched on all devices before any is waited for.
pub struct MultiGpu<F: FactorBits = u64> {
    runners: Vec<GpuEngine<F>>,
}

impl<F: FactorBits> MultiGpu<F> {
    /// Opens devices `0..count` for walks of `shape`; `options.walkers`, when given, is the
    /// total, split evenly.
    pub fn open(shape: Shape, options: GpuOptions, count: usize) -> Result<MultiGpu<F>> {
        let runners = (0..count)
            .map(|device| {
                let walkers = options
                    .walkers
                    .map(|total| total / count + usize::from(device < total % count));
                GpuEngine::open(
                    shape,
                    GpuOptions {
                        walkers,
                        device,
                        ..options
                    },
                )
                .with_context(|| format!("GPU {device}"))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(MultiGpu { runners })
    }

    /// The runner of walker `walker`, and its index there.
    fn locate(&mut self, walker: usize) -> Result<(&mut GpuEngine<F>, usize)> {
        let mut local = walker;
        for runner in &mut self.runners {
            if local < runner.walkers {
                return Ok((runner, local));
            }
            local -= runner.walkers;
        }
        bail!("walker {walker} is beyond the engine's walkers")
    }
}

impl<F: FactorBits> Engine<F> for MultiGpu<F> {
    fn describe(&self) -> String {
        let names: Vec<&str> = self.runners.iter().map(|r| r.name.as_str()).collect();
        format!(
            "gpu: {} GPUs ({}), {} walkers (warps)",
            names.len(),
            names.join(", "),
            self.walkers()
        )
    }

    fn walkers(&self) -> usize {
        self.runners.iter().map(|r| r.walkers).sum()
    }

    fn kind(&self) -> Kind {
        Kind::Gpu
    }

    fn timed_rounds(&self) -> bool {
        self.runners.iter().any(Engine::timed_rounds)
    }

    fn adaptive_plateau(&self) -> bool {
        self.runners.iter().any(Engine::adaptive_plateau)
    }

    fn load(&mut self, walker: usize, scheme: &Scheme<F>, seed: u64, style: Style) -> Result<()> {
        let (runner, w) = self.locate(walker)?;
        runner.load(w, scheme, seed, style)
    }

    fn run_round(&mut self, steps: u64, target: usize) -> Result<Round> {
        for (device, runner) in self.runners.iter_mut().enumerate() {
            runner
                .start_round(steps, target)
                .with_context(|| format!("GPU {device}"))?;
        }
        let mut round = Round::default();
        for (device, runner) in self.runners.iter_mut().enumerate() {
            let part = runner.finish_round().with_context(|| format!("GPU {device}"))?;
            round.counters += part.counters;
            round.walkers.extend(part.walkers);
        }
        Ok(round)
    }

    fn best_scheme(&mut self, walker: usize) -> Result<Scheme<F>> {
        let (runner, w) = self.locate(walker)?;
        runner.best_scheme(w)
    }

    fn current_scheme(&mut self, walker: usize) -> Result<Scheme<F>> {
        let (runner, w) = self.locate(walker)?;
        runner.current_scheme(w)
    }
}
