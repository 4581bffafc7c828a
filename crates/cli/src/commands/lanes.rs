//! Lanes: searches side by side on one host (`campaign`'s formats, `bench --time-to-rank`'s
//! runs), each on its own GPU or its share of the cores.

use anyhow::Result;

use super::engine_args::EngineArgs;
use crate::engine::cores;

/// The GPUs lanes walk on: the host's, where `engine` walks on GPUs; none on the CPU.
pub fn host_gpus(engine: &EngineArgs) -> Result<usize> {
    match engine.recipe().spec().on_gpu() {
        true => crate::engine::gpu::device_count(),
        false => Ok(0),
    }
}

/// The engine flags of `of` lanes on a host of `gpus` GPUs ([`lane`] each).
pub fn lanes(engine: &EngineArgs, of: usize, gpus: usize) -> Vec<EngineArgs> {
    (0..of).map(|index| lane(engine, index, of, gpus)).collect()
}

/// The engine flags of lane `index` of `of` on a host of `gpus` GPUs (none: on the CPU): its
/// own GPU, and its share of the cores, unless the flags name them. A lane on a GPU walks on
/// its share of the cores only where its GPU fails under `--backend auto`, so that the lanes
/// that carry on on the CPU do not each take every core.
pub fn lane(engine: &EngineArgs, index: usize, of: usize, gpus: usize) -> EngineArgs {
    EngineArgs {
        threads: engine.threads.or((of > 1).then(|| (cores() / of).max(1))),
        gpu: match gpus {
            0 => engine.gpu,
            _ => Some(engine.gpu.unwrap_or(index % gpus)),
        },
        ..engine.clone()
    }
}

/// "on GPUs 0, 1, 2, 3", or "2 CPU threads each".
pub fn lanes_in_words(lanes: &[EngineArgs]) -> String {
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
    use crate::commands::engine_args::tests::engine;

    #[test]
    fn each_lane_takes_its_own_gpu_or_its_share_of_the_cores() {
        let on_gpus = lanes(&engine::<&str>(&[]), 6, 4);
        let gpus: Vec<_> = on_gpus.iter().map(|l| l.gpu).collect();
        assert_eq!(gpus, [Some(0), Some(1), Some(2), Some(3), Some(0), Some(1)]);
        assert_eq!(lanes_in_words(&on_gpus[..4]), "on GPUs 0, 1, 2, 3");
        // Each has its share of the cores for a walk on the CPU after its GPU failed.
        let share = (crate::engine::cores() / 6).max(1);
        assert!(on_gpus.iter().all(|l| l.threads == Some(share)));
        // A GPU named holds for every lane; threads named hold too.
        assert!(lanes(&engine(&["--gpu", "2"]), 3, 4).iter().all(|l| l.gpu == Some(2)));
        let on_cpu = lanes(&engine(&["--threads", "3"]), 2, 0);
        assert!(on_cpu.iter().all(|l| l.threads == Some(3) && l.gpu.is_none()));
        assert_eq!(lanes_in_words(&on_cpu), "3 CPU threads each");
        // One lane on the CPU keeps every core (the engine's default).
        assert_eq!(lanes(&engine::<&str>(&[]), 1, 0)[0].threads, None);
    }
}
