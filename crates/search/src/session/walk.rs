//! The walk of a search once begun: its engine opened on factors of the width the shape
//! needs, its driver run, the GPU's fault carried on on the CPU where that is allowed.

use super::*;
use flipgraph_core::verify::Verified;

/// How [`Search::walk`] walks: the settled recipe, whether the resumed checkpoint was
/// climbing, the stop flag, the process's start and the island's place.
pub(super) struct Walk<'a> {
    pub(super) recipe: &'a Recipe,
    pub(super) climbing: bool,
    pub(super) stop: &'a AtomicBool,
    pub(super) process_start: Instant,
    pub(super) place: Option<Place>,
}

impl Search {
    /// The search of [`Search::run`] from `begun`, on factors of `F`.
    pub(super) fn walk<F: Width>(&self, begun: Begin<F>, walk: Walk) -> Result<Ended> {
        let Walk {
            recipe,
            climbing,
            stop,
            process_start,
            mut place,
        } = walk;
        let index = place.as_ref().map_or(0, |p| p.island.index());
        // An island climbs and walks on its own share of the host.
        let shared = place.as_ref().map(|p| recipe.shared_by(p));
        let recipe = shared.as_ref().unwrap_or(recipe);
        // Fixed cubes keep their own settings on every island.
        if let (Some(member), Portfolio::On, false) =
            (recipe.islands.member, recipe.islands.portfolio, recipe.cube_search())
        {
            tracing::info!(
                "the portfolio's member {}: {member}, where not given",
                index % MEMBERS.len()
            );
        }
        let Begin {
            shape,
            mut start,
            out_dir,
            seed,
            target,
            best_known,
            time,
        } = begun;
        let resume = self.resume.is_some();
        let open_output = || match index {
            0 => Output::open(&out_dir, self.formats.clone(), resume),
            _ => Output::open_island(&out_dir, index, resume),
        };
        let mut output = None;
        let mut climb = None;
        let mut grown = false;
        if self.climbs(recipe, shape, climbing, place.as_mut().map(|p| &mut p.island))? {
            // Before the ladder, so that another search cannot take the folder meanwhile.
            let mut out = open_output()?;
            out.checkpoint(&Checkpoint::before_climb(
                shape,
                (seed, target),
                (&start, time),
                recipe.walk.sparsity,
                recipe.gpu_partners,
            ))?;
            // An island climbs into its own folder, with a seed of its own (island 0's is a lone
            // search's), and shares its rungs' best schemes with the other islands.
            let climb_seed = seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let island = place.as_mut().map(|p| &mut p.island);
            let (starts, report) = self.climb_to(
                recipe,
                (shape, climb_seed, index == 0, time),
                (&mut out, island),
                stop,
                process_start,
            )?;
            if let Some(starts) = starts {
                let starts: Vec<Scheme<F>> = starts.iter().map(Scheme::to_width).collect::<Result<_, _>>()?;
                // The grown starts replace the naive scheme the climb began from; a resumed
                // island keeps what its pool holds below them (the other islands' walks).
                let top = starts.iter().map(Scheme::rank).max().unwrap_or(0);
                start.pool.retain(|s| s.rank() < top);
                start.pool.extend(starts);
                grown = true;
            }
            start.elapsed += report.time;
            (output, climb) = (Some(out), Some(report));
        }
        let climbed = climb.as_ref().map_or(Duration::ZERO, |c| c.time);
        let given = match !self.from.is_empty() || grown {
            true => StartKind::Given,
            false => StartKind::Naive,
        };
        let start_rank = start.pool.iter().map(|s| s.rank()).max().unwrap_or(0);
        let mut spec = recipe.spec_from(start_rank, given);
        if place.is_some() {
            // An island's walkers are sized for the shape: migrants from islands that resumed
            // elsewhere may lie above its starts.
            spec.start_rank = None;
        }
        let mut engine = spec.open_for::<F>(shape)?;
        let output = match output {
            Some(output) => output,
            None => open_output()?,
        };
        let config = SearchConfig {
            time_limit: time.map(|t| t.saturating_sub(climbed)),
            stall_limit: self.stall,
            checkpoint_every: self.checkpoint_every.max(Duration::from_millis(100)),
            best_known,
            climbing: climb.as_ref().is_some_and(|c| c.cut_short),
            ..recipe.config(shape, (target, seed), &spec, engine.as_ref())
        };
        // Island 0 speaks for the job.
        let progress = self.progress(index > 0);
        let on_gpu = engine.kind() == Kind::Gpu;
        let lone = place.is_none();
        let mut driver = Driver::new(
            engine.as_mut(),
            config.clone(),
            start,
            Some(output),
            progress,
            process_start,
        )?;
        if let Some(place) = &mut place {
            driver = driver.island(&mut place.island);
        }
        driver = self.send_best_schemes(driver);
        let summary = match driver.run(stop) {
            Ok(summary) => summary,
            // A GPU fault in a long run: with `auto`, the CPU carries on from the last
            // checkpoint (an island of a job ends the job instead, and its resume carries on).
            Err(e) if on_gpu && spec.backend == Backend::Auto && lone => {
                tracing::error!(
                    "the GPU engine failed: {}; carrying on with the CPU engine from the last checkpoint",
                    crate::Error::from(e)
                );
                let mut cpu = spec.open_cpu(shape)?;
                let config = SearchConfig {
                    steps_per_round: spec.steps_per_round(cpu.timed_rounds(), cpu.walkers()),
                    ..config
                };
                let (_, start) = resume_start(&out_dir, 0, 1, recipe)?;
                let output = Output::open(&out_dir, self.formats.clone(), true)?;
                let driver = Driver::new(
                    cpu.as_mut(),
                    config,
                    start,
                    Some(output),
                    self.progress(false),
                    process_start,
                )?;
                self.send_best_schemes(driver).run(stop)?
            }
            Err(e) => return Err(e),
        };
        Ok(Ended::new(shape, best_known, out_dir, summary, climb))
    }

    /// `driver`, sending each new best scheme and each other of the best rank to
    /// [`Search::best_schemes`] where it is set (a receiver gone is no matter to the walk).
    fn send_best_schemes<'a, F: Width>(&self, driver: Driver<'a, F>) -> Driver<'a, F> {
        let Some(sender) = &self.best_schemes else {
            return driver;
        };
        let send = |sender: Sender<WideScheme>| {
            move |best: &Verified<F>| {
                if let Ok(wide) = best.scheme().to_width() {
                    let _ = sender.send(wide);
                }
            }
        };
        driver
            .on_improvement(send(sender.clone()))
            .on_pooled_best(send(sender.clone()))
    }
}
