//! The library's error, for programs that embed a search. What an embedder tells apart is a
//! [`Kind`] it can match: the engine's refusal of a walk, the recipe's or the search's refusal,
//! a folder that cannot be the search's; everything else (a file that cannot be read or
//! written, a damaged checkpoint, a GPU fault) is a failure, told by its causes. Every error
//! keeps what the library was doing when it met it ([`Error::context`], outermost first) and
//! what lay under it ([`Error::causes`]), and prints as `context: ...: kind: causes`.

/// What an embedder tells apart.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Kind {
    /// The engine refuses the walk (a group the shape does not have, a GPU limit, a width).
    #[error(transparent)]
    Refused(#[from] crate::engine::Refusal),
    /// The recipe contradicts itself or its start.
    #[error(transparent)]
    Recipe(#[from] crate::session::recipe::RecipeError),
    /// The search cannot start as asked (no start, a resume that contradicts its checkpoint).
    #[error(transparent)]
    Search(#[from] crate::session::SearchError),
    /// The output folder cannot be the search's (in use, holds another search, ...).
    #[error(transparent)]
    Folder(#[from] crate::output::FolderError),
    /// The campaign cannot run as asked, or a format's folder cannot be its own.
    #[error(transparent)]
    Campaign(#[from] crate::campaign::CampaignError),
    /// Anything else: its causes say what.
    #[error("failed")]
    Failed,
}

/// An error of the library ([`crate::Search::run`], [`crate::Descent::run`],
/// [`crate::Campaign::run`]).
#[derive(Clone, Debug)]
pub struct Error {
    /// What went wrong.
    pub kind: Kind,
    /// What the library was doing, outermost first.
    pub context: Vec<String>,
    /// What lay under it, outermost first (for a failure, every cause).
    pub causes: Vec<String>,
}

impl std::error::Error for Error {}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            Kind::Failed => None,
            ref kind => Some(kind.to_string()),
        };
        let parts: Vec<&str> = self
            .context
            .iter()
            .map(String::as_str)
            .chain(kind.as_deref())
            .chain(self.causes.iter().map(String::as_str))
            .collect();
        f.write_str(&parts.join(": "))
    }
}

impl From<anyhow::Error> for Error {
    fn from(error: anyhow::Error) -> Error {
        Error::of_chain(&error)
    }
}

impl Error {
    /// The first cause of `error`'s chain that the library tells apart, with the causes above
    /// it as its context and those under it as its causes; else a failure with every cause.
    pub fn of_chain(error: &anyhow::Error) -> Error {
        let chain: Vec<String> = error.chain().map(ToString::to_string).collect();
        // anyhow finds a typed cause whether it was the error or a context added to one; its
        // place in the chain is that of its words.
        let at = |text: String| chain.iter().position(|c| *c == text);
        if let Some(inner) = error.downcast_ref::<Error>() {
            if let Some(k) = at(inner.to_string()) {
                let mut inner = inner.clone();
                inner.context.splice(0..0, chain[..k].iter().cloned());
                return inner;
            }
        }
        if let Some((kind, k)) = kind_of(error).and_then(|kind| Some((kind.clone(), at(kind.to_string())?))) {
            return Error {
                kind,
                context: chain[..k].to_vec(),
                causes: chain[k + 1..].to_vec(),
            };
        }
        Error {
            kind: Kind::Failed,
            context: Vec::new(),
            causes: chain,
        }
    }
}

/// The kind of `error`'s first cause that the library tells apart, if any.
fn kind_of(error: &anyhow::Error) -> Option<Kind> {
    use crate::campaign::CampaignError;
    use crate::engine::Refusal;
    use crate::output::FolderError;
    use crate::session::recipe::RecipeError;
    use crate::session::SearchError;
    None.or_else(|| error.downcast_ref::<Refusal>().map(|&r| Kind::Refused(r)))
        .or_else(|| error.downcast_ref::<RecipeError>().cloned().map(Kind::Recipe))
        .or_else(|| error.downcast_ref::<SearchError>().cloned().map(Kind::Search))
        .or_else(|| error.downcast_ref::<FolderError>().cloned().map(Kind::Folder))
        .or_else(|| error.downcast_ref::<CampaignError>().cloned().map(Kind::Campaign))
}

#[cfg(test)]
mod tests {
    use anyhow::Context;
    use flipgraph_core::Shape;

    use super::{Error, Kind};
    use crate::engine::{Group, Refusal};

    #[test]
    fn a_refusal_anywhere_in_the_chain_is_told_apart_with_its_context_and_causes() {
        let shape = Shape::new(3, 3, 4).unwrap();
        let refusal = Refusal::NotSquare {
            group: Group::C3,
            shape,
        };
        let chain = Err::<(), _>(anyhow::anyhow!("orbit 3 is not closed"))
            .context(refusal)
            .context("opening the engine")
            .context("searching 3x3x4")
            .unwrap_err();
        let error = Error::from(chain);
        assert!(matches!(error.kind, Kind::Refused(r) if r == refusal), "{error:?}");
        assert_eq!(error.context, ["searching 3x3x4", "opening the engine"]);
        assert_eq!(error.causes, ["orbit 3 is not closed"]);
        assert_eq!(
            error.to_string(),
            format!("searching 3x3x4: opening the engine: {refusal}: orbit 3 is not closed")
        );
        // Wrapped again (by a caller's context), it keeps its kind and gains the context.
        let again = Error::from(anyhow::Error::from(error).context("the campaign"));
        assert!(matches!(again.kind, Kind::Refused(_)));
        assert_eq!(again.context[0], "the campaign");
        let plain = Error::from(anyhow::anyhow!("disk full").context("writing"));
        assert!(matches!(plain.kind, Kind::Failed));
        assert_eq!(plain.to_string(), "writing: disk full");
    }
}
