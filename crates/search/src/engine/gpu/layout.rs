//! Where a walker's terms sit in device memory and how many fit: the slots per walker, what
//! they hold, the layout of their factors in 64-bit words, and the checks of the caps and of
//! the device's memory.

use anyhow::{bail, Context, Result};
use flipgraph_core::device::{factor_index, scheme_words, MAX_CAP};
use flipgraph_core::group::orbits;
use flipgraph_core::term::FactorBits;
use flipgraph_core::{Position, Scheme, Shape, Term};

use super::{Group, STATE_WORDS};
use crate::engine::Refusal;

/// Term slots per walker (a multiple of 32) for walks that start at most at `start_rank` (the
/// naive rank if None) and may climb `slack` (at most 64) above it (or above `slack_from`, if
/// higher), with a free slot for a plus move. A symmetric walk's slots hold free orbits: as
/// many fewer as the group has elements. Sized by the start, not by the shape: near a record a walker of the naive
/// rank's slots would hold mostly empty ones, which its lanes offer to matches in vain.
pub(super) fn walker_cap(
    shape: Shape,
    slack: usize,
    symmetry: Group,
    start_rank: Option<usize>,
    slack_from: Option<usize>,
) -> usize {
    let from = start_rank.unwrap_or_else(|| shape.naive_rank());
    let rank = from.max(slack_from.unwrap_or(0)) + slack.min(64);
    let slots = rank / symmetry.order();
    (slots + 1).div_ceil(32) * 32
}

/// A walker's terms: those its slots hold, and a symmetric walker's fixed terms.
pub(super) type Walked<F> = (Vec<Term<F>>, Vec<Term<F>>);

/// What a walker's slots hold for `scheme`: its terms, or in a symmetric walk (64-bit factors)
/// one representative per free orbit and, apart, the terms of the other orbits (equal ones
/// cancelled in pairs, as core's walker does: the rest stays invariant).
pub(super) fn walked_terms<F: FactorBits>(scheme: &Scheme<F>, symmetry: Group) -> Result<Walked<F>> {
    if symmetry == Group::Trivial {
        return Ok((scheme.terms().to_vec(), Vec::new()));
    }
    let scheme: Scheme = scheme.to_width()?;
    let orbits = orbits(symmetry, &scheme).context(Refusal::NotInvariant { group: symmetry })?;
    let mut fixed: Vec<Term> = Vec::new();
    for t in orbits.fixed {
        match fixed.iter().position(|&x| x == t) {
            Some(i) => {
                fixed.swap_remove(i);
            }
            None => fixed.push(t),
        }
    }
    let widened = |terms: Vec<Term>| terms.iter().map(Term::to_width).collect();
    Ok((widened(orbits.free), widened(fixed)))
}

/// 64-bit words per factor of `F` in the device's global memory (one, or two for `u128`, low
/// word first).
pub(super) const fn words_per_factor<F: FactorBits>() -> usize {
    F::BITS / 64
}

/// A walker's `slots` in the device layout (core's `factor_index`): the factors at A of every
/// slot, then at B, then at C, each as [`words_per_factor`] 64-bit words, low word first.
pub(super) fn device_words<F: FactorBits>(slots: &[Term<F>]) -> Vec<u64> {
    let each = words_per_factor::<F>();
    let mut words = Vec::with_capacity(3 * slots.len() * each);
    for pos in Position::ALL {
        for t in slots {
            let bits = t.get(pos).to_u128();
            words.extend((0..each).map(|k| (bits >> (64 * k)) as u64));
        }
    }
    words
}

/// The `cap` slots of a walker that [`device_words`] laid out in `words`.
pub(super) fn slots_from_words<F: FactorBits>(words: &[u64], cap: usize) -> Vec<Term<F>> {
    let each = words_per_factor::<F>();
    let factor = |pos, slot| {
        let at = factor_index(cap, pos, slot) * each;
        let bits = words[at..at + each]
            .iter()
            .rev()
            .fold(0u128, |f, &w| f << 64 | w as u128);
        F::from_u128(bits)
    };
    (0..cap)
        .map(|s| Term::from_factors(factor(0, s), factor(1, s), factor(2, s)))
        .collect()
}

/// Refuses walkers of `cap` slots (from a start of `start_rank` terms, with `slack` above it)
/// where the kernels' per-lane masks of rows cannot hold them.
pub(super) fn check_cap(shape: Shape, cap: usize, start_rank: usize, slack: usize) -> Result<()> {
    if cap > MAX_CAP {
        bail!(
            "a {shape} walk from rank {start_rank} with {slack} ranks of slack needs {cap} term slots per walker; \
             the GPU kernels hold at most {MAX_CAP}: start from a scheme of lower rank, or run it on the CPU"
        );
    }
    Ok(())
}

/// Refuses `walkers` walkers of `cap` slots with move logs of `log_entries` where their buffers
/// (terms and best terms, states, logs) would take more than half of `total_mem` bytes.
pub(super) fn check_memory(
    shape: Shape,
    walkers: usize,
    (cap, factor_words): (usize, usize),
    log_entries: usize,
    total_mem: usize,
) -> Result<()> {
    // The move log takes two 32-bit words an entry: one u64.
    let need = (2 * walkers * scheme_words(cap) * factor_words + walkers * (STATE_WORDS + log_entries)) * 8;
    if need > total_mem / 2 {
        bail!(
            "{walkers} walkers of {shape} need {} MiB of GPU memory; this GPU has {} MiB (at most about {} walkers)",
            need >> 20,
            total_mem >> 20,
            walkers * (total_mem / 2) / need
        );
    }
    Ok(())
}
