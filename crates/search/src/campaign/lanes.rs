//! Lanes: searches side by side on one host (a campaign's formats, `bench --time-to-rank`'s
//! runs), each on its own GPU or its share of the cores.

use anyhow::Result;

use crate::engine::cores;
use crate::session::recipe::Recipe;

/// Where one lane walks: its GPU and its CPU threads (None where the recipe leaves them open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    /// The GPU of this lane, by index (None: on the CPU, or every GPU as the recipe says).
    pub gpu: Option<usize>,
    /// The CPU threads of this lane (None: every core).
    pub threads: Option<usize>,
}

impl Lane {
    /// `recipe` walking on this lane.
    pub fn recipe(self, recipe: &Recipe) -> Recipe {
        Recipe {
            threads: self.threads,
            gpu: self.gpu,
            ..recipe.clone()
        }
    }
}

/// The GPUs lanes walk on: the host's, where `recipe` walks on GPUs; none on the CPU.
pub fn host_gpus(recipe: &Recipe) -> Result<usize> {
    match recipe.spec().on_gpu() {
        true => crate::engine::gpu::device_count(),
        false => Ok(0),
    }
}

/// The `of` lanes of `recipe` on a host of `gpus` GPUs ([`lane`] each).
pub fn lanes(recipe: &Recipe, of: usize, gpus: usize) -> Vec<Lane> {
    (0..of).map(|index| lane(recipe, index, of, gpus)).collect()
}

/// Lane `index` of `of` of `recipe` on a host of `gpus` GPUs (none: on the CPU): its own GPU,
/// and its share of the cores, unless the recipe names them. A lane on a GPU walks on its share
/// of the cores only where its GPU fails under the automatic backend, so that the lanes that
/// carry on on the CPU do not each take every core.
pub fn lane(recipe: &Recipe, index: usize, of: usize, gpus: usize) -> Lane {
    Lane {
        threads: recipe.threads.or((of > 1).then(|| (cores() / of).max(1))),
        gpu: match gpus {
            0 => recipe.gpu,
            _ => Some(recipe.gpu.unwrap_or(index % gpus)),
        },
    }
}

/// "on GPUs 0, 1, 2, 3", or "2 CPU threads each".
pub fn lanes_in_words(lanes: &[Lane]) -> String {
    let gpus: Vec<String> = lanes.iter().filter_map(|l| l.gpu.map(|g| g.to_string())).collect();
    match gpus.is_empty() {
        false => format!("on GPUs {}", gpus.join(", ")),
        true => match lanes[0].threads.unwrap_or_else(cores) {
            1 => "one CPU thread each".to_owned(),
            n => format!("{n} CPU threads each"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{lanes, lanes_in_words};
    use crate::session::recipe::Recipe;

    #[test]
    fn each_lane_takes_its_own_gpu_or_its_share_of_the_cores() {
        let on_gpus = lanes(&Recipe::default(), 6, 4);
        let gpus: Vec<_> = on_gpus.iter().map(|l| l.gpu).collect();
        assert_eq!(gpus, [Some(0), Some(1), Some(2), Some(3), Some(0), Some(1)]);
        assert_eq!(lanes_in_words(&on_gpus[..4]), "on GPUs 0, 1, 2, 3");
        // Each has its share of the cores for a walk on the CPU after its GPU failed.
        let share = (crate::engine::cores() / 6).max(1);
        assert!(on_gpus.iter().all(|l| l.threads == Some(share)));
        // A GPU named holds for every lane; threads named hold too.
        let named = |gpu, threads| Recipe {
            gpu,
            threads,
            ..Recipe::default()
        };
        assert!(lanes(&named(Some(2), None), 3, 4).iter().all(|l| l.gpu == Some(2)));
        let on_cpu = lanes(&named(None, Some(3)), 2, 0);
        assert!(on_cpu.iter().all(|l| l.threads == Some(3) && l.gpu.is_none()));
        assert_eq!(lanes_in_words(&on_cpu), "3 CPU threads each");
        // One lane on the CPU keeps every core (the engine's default).
        assert_eq!(lanes(&Recipe::default(), 1, 0)[0].threads, None);
    }
}
