//! The library's refusals in the command line's words: the flag that asked for what was
//! refused, and the flag that changes it.

use flipgraph_search::campaign::CampaignError;
use flipgraph_search::engine::{GpuLimit, Refusal, MAX_THREADS_PER_CORE};
use flipgraph_search::output::FolderError;
use flipgraph_search::session::recipe::RecipeError;
use flipgraph_search::session::SearchError;
use flipgraph_search::{Error, Kind};

/// `error` as `{:#}` prints it (every cause, joined by ": "), with the library's refusals
/// worded by their flags.
pub fn in_flags(error: &anyhow::Error) -> String {
    worded(Error::of_chain(error))
}

/// The library's `error` as it prints (its context, kind and causes, joined by ": "), with its
/// refusals worded by their flags.
pub fn worded(error: Error) -> String {
    let Error { kind, context, causes } = error;
    let worded = match &kind {
        Kind::Refused(r) => Some(refusal(r)),
        Kind::Recipe(error) => Some(recipe(error)),
        Kind::Search(error) => Some(search(error)),
        Kind::Folder(error) => Some(folder(error)),
        Kind::Campaign(error) => Some(campaign(error)),
        // Its causes say it all.
        Kind::Failed => None,
    };
    let parts: Vec<String> = context.into_iter().chain(worded).chain(causes).collect();
    parts.join(": ")
}

fn refusal(refusal: &Refusal) -> String {
    match *refusal {
        Refusal::FrozenWithoutGroup => {
            "frozen fixed terms need --symmetry (plain walks have no fixed terms to keep)".into()
        }
        Refusal::NotSquare { group, shape } => format!("--symmetry {group} needs a square shape; {shape} is not"),
        Refusal::GpuSymmetric { group, limit } => {
            let flag = match limit {
                GpuLimit::FreeFixedTerms => "--fixed-terms frozen, the default with --cubes",
                GpuLimit::ScanReductions => "--reductions walk",
                GpuLimit::PartnersByGroups => "--gpu-partners sample",
            };
            format!("--backend gpu --symmetry {group}: {limit} ({flag}); use --backend cpu")
        }
        Refusal::WideSymmetric { group, shape, bits } => {
            format!("--symmetry {group}: symmetric walks take factors that fit 64 bits, not {bits}-bit ones ({shape})")
        }
        Refusal::NotInvariant { group } => {
            format!("--symmetry {group} walks {}-invariant schemes only", group.label())
        }
        Refusal::TooManyThreads { threads, cores } => format!(
            "--threads {threads}: {cores} cores take at most {} ({} a core); more only take turns",
            MAX_THREADS_PER_CORE * cores,
            MAX_THREADS_PER_CORE
        ),
        Refusal::GpuEngine => "--backend gpu".into(),
    }
}

fn recipe(error: &RecipeError) -> String {
    match error {
        RecipeError::CubesBesideStarts => "--cubes and --from are two different starts; give one".into(),
        RecipeError::FreeFixedTerms(group) => {
            format!("--fixed-terms free: only c3 walks change their fixed terms; --symmetry {group} keeps them frozen")
        }
        RecipeError::BadCube(why) | RecipeError::CubesTooWide(why) => format!("--cubes: {why}"),
        RecipeError::CubesWithoutRotation => {
            "--cubes needs --symmetry c3 or c6: the cubes are the fixed terms of the cyclic symmetry".into()
        }
        RecipeError::CubesNotSquare(shape) => format!("--cubes needs a square shape; {shape} is not"),
        RecipeError::PatternLength { pattern, n, len } => format!(
            "--cubes {pattern}: a pattern of {n}x{n}x{n} has {n} digits, one per diagonal entry (not {len})"
        ),
        RecipeError::CubesOverlap(a, b) => {
            format!("--cubes {a} and {b} share a diagonal entry; the cubes must be disjoint")
        }
        RecipeError::CubesOnResume => {
            "--cubes starts a new search; a resumed one keeps the cubes of its checkpoint".into()
        }
        RecipeError::StartsBesideResumedCubes { checkpoint, cubes } => format!(
            "{checkpoint}: a search from the cubes {cubes} restarts from its cube start; --from schemes cannot join it (start a new search --from them instead)"
        ),
        RecipeError::ResumedGroup { checkpoint, recorded, asked } => format!(
            "--symmetry {asked}: the search of {checkpoint} walks {}-invariant schemes, and a resume keeps its group (leave --symmetry out, or --symmetry none to walk them as plain schemes)",
            recorded.label()
        ),
        RecipeError::PlainResumeOfCubes { checkpoint, cubes } => format!(
            "{checkpoint}: a search from the cubes {cubes} walks C3-invariant schemes; --symmetry none cannot resume it (start a new search --from one of its results instead)"
        ),
    }
}

fn search(error: &SearchError) -> String {
    match error {
        SearchError::NoStart => "give --size, --from or --resume".into(),
        SearchError::ShapeOfStarts { given, shape } => {
            format!("--size {given} does not match the shape {shape} of --from")
        }
        SearchError::LadderOnGivenStart => "--ladder on climbs from the naive scheme; a search --from a scheme, of C3-invariant schemes or from --cubes has its own start".into(),
        SearchError::ResumedShape { given, checkpoint, shape } => {
            format!("--size {given} contradicts the search in {checkpoint} ({shape}); leave --size out to resume")
        }
        SearchError::ResumedSeed { given, checkpoint, seed } => {
            format!("--seed {given} contradicts the search in {checkpoint} (seed {seed}); leave --seed out to resume")
        }
        SearchError::NotOverZt { what } => {
            format!("--ring zt: {what} is not built yet; a ternary search walks plain schemes on one GPU or the CPU (c3-invariant ones on the CPU), from --size, --cubes or --from files")
        }
        SearchError::LiftOverF2 => "--lift lifts an F2 walk's schemes to Z for a search over ZT: add --ring zt".into(),
        SearchError::LiftFromFiles => "--lift walks over F2 from --size (the naive scheme) or --cubes; --from and --resume are not built yet with it (leave --lift out: the ternary walk takes them)".into(),
        SearchError::ResumedElsewhere { out, dir } => {
            format!("--out {out} and --resume {dir} name different folders; a resumed search writes where it was")
        }
    }
}

fn campaign(error: &CampaignError) -> String {
    match error {
        CampaignError::NoTimeForATurn { total, shortest } => format!(
            "--total {:.1}s leaves no time for a turn (a turn takes at least {}s)",
            total.as_secs_f64(),
            shortest.as_secs()
        ),
        CampaignError::InsideASearch { .. } => format!("{error}; choose another --out"),
        CampaignError::NotAFolder { .. } => format!("{error}; --out names the folder the campaign writes into"),
        CampaignError::TooManyLanes { jobs, .. } => format!("--jobs {jobs}: {error}"),
        CampaignError::NoTernaryFormat => format!("--ring zt: {error}"),
        CampaignError::OtherShape { .. } => format!("{error}; move it away or choose another --out"),
    }
}

fn folder(error: &FolderError) -> String {
    let remedy = match error {
        FolderError::InUse { .. } => "wait for it to end or choose another --out".to_owned(),
        FolderError::HoldsSearch { root, .. } => {
            format!("continue it with --resume {} or choose another --out", root.display())
        }
        FolderError::NotAFolder { .. } => "--out names the folder a search writes into".to_owned(),
        FolderError::HoldsSchemes { .. } => "move them or choose another --out".to_owned(),
    };
    format!("{error}; {remedy}")
}

#[cfg(test)]
mod tests {
    use super::in_flags;
    use anyhow::Context;
    use flipgraph_core::Shape;
    use flipgraph_search::engine::{Group, Refusal};

    #[test]
    fn a_refusal_is_worded_by_its_flag_wherever_it_sits_in_the_chain() {
        let shape = Shape::new(3, 3, 4).unwrap();
        let root: anyhow::Error = Refusal::NotSquare {
            group: Group::C3,
            shape,
        }
        .into();
        assert_eq!(in_flags(&root), "--symmetry c3 needs a square shape; 3x3x4 is not");
        let inner: anyhow::Result<()> = Err(anyhow::anyhow!("orbit 3 is not closed"));
        let wrapped = inner
            .context(Refusal::NotInvariant { group: Group::C6 })
            .context("the start runs/x.json")
            .unwrap_err();
        assert_eq!(
            in_flags(&wrapped),
            "the start runs/x.json: --symmetry c6 walks C6-invariant schemes only: orbit 3 is not closed"
        );
        let plain = anyhow::anyhow!("disk full").context("writing the checkpoint");
        assert_eq!(in_flags(&plain), format!("{plain:#}"));
    }
}
