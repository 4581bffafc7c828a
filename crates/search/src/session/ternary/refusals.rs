//! The choices a search over ZT does not take, refused by name rather than ignored; and an F2
//! resume of a ternary search's folder, refused saying how to resume it.

use anyhow::Result;
use flipgraph_core::formats::Format;
use flipgraph_core::group::Group;

use super::super::error::SearchError;
use super::super::Search;
use crate::engine::Backend;
use crate::islands::Place;
use crate::output;

impl Search {
    /// Refuses an F2 resume of a ternary search's folder (which has no checkpoint), saying
    /// how to resume it.
    pub(in crate::session) fn refuse_f2_resume_of_zt(&self) -> Result<()> {
        let Some(dir) = &self.resume else {
            return Ok(());
        };
        if dir.join(output::CHECKPOINT).exists() {
            return Ok(());
        }
        // Only a folder without a checkpoint has its event log read.
        let events = std::fs::read_to_string(dir.join(output::EVENTS)).unwrap_or_default();
        if events.contains("\"ring\":\"zt\"") {
            anyhow::bail!(
                "{} holds a search over ZT (it keeps no checkpoint); resume it with --ring zt --resume {}",
                dir.display(),
                dir.display()
            );
        }
        Ok(())
    }

    /// The choices a ZT search does not take yet, refused by name.
    pub(super) fn refuse_over_zt(&self, place: Option<&Place>) -> Result<()> {
        let recipe = &self.recipe;
        let group = recipe.group();
        let lifts = recipe.walk.lift;
        if lifts && (!self.from.is_empty() || self.resume.is_some()) {
            return Err(SearchError::LiftFromFiles.into());
        }
        let unsupported = [
            (place.is_some_and(|p| p.island.size() > 1), "islands"),
            (
                matches!(group, Group::Z2 | Group::C6) && !lifts,
                "a symmetric walk of the groups z2 and c6 (c3 walks on the CPU; --lift walks them over F2)",
            ),
            (
                group == Group::C3 && recipe.backend == Backend::Gpu && !lifts,
                "a symmetric walk on the GPU (c3 over ZT walks on the CPU: --backend cpu; --lift walks it over F2)",
            ),
            (
                !recipe.symmetric.cubes.is_empty() && group != Group::C3 && !lifts,
                "a start from cubes without --symmetry c3",
            ),
            (
                self.formats.contains(&Format::Seed),
                "the seed format (it holds bits only)",
            ),
        ];
        match unsupported.into_iter().find(|(asked, _)| *asked) {
            Some((_, what)) => Err(SearchError::NotOverZt { what }.into()),
            None => Ok(()),
        }
    }
}
