//! # flipgraph-core
//!
//! The mathematics of the flip graph of matrix multiplication schemes over F2, bit-packed.
//!
//! A scheme for the shape `<n,m,p>` is a list of rank-one [`Term`]s `a (x) b (x) c` whose sum
//! is the matrix multiplication tensor `sum_{i,j,k} a_ij b_jk c_ki` (the cyclic convention of
//! the field). Over F2 each factor is a bit mask: a `u64` for every format up to 8x8x8 (the
//! default, and what the engines walk), a `u128` for larger ones up to 16 with at most 128
//! entries a matrix (9x9x9, 10x10x10, 8x8x16: [`WideScheme`]); see [`term::FactorBits`].
//!
//! Layers, from the bottom:
//! - [`shape`], [`term`], [`moves`], [`plateau`], [`sparsity`] and [`rng`]: `no_std` without
//!   `alloc`, so the GPU kernels compile the very same move logic, plateau schedule and sparse
//!   walk for the nvptx64 target.
//! - [`scheme`], [`verify`], [`walk`] (feature `alloc`): schemes as vectors of terms, exact
//!   verification over F2 and Z, and the single-scheme random walk.
//! - [`group`] and [`symmetry`] (feature `alloc`): the symmetry groups (C3, Z2, C6), schemes
//!   invariant under them as orbits, their moves, and one walk generic over the group.
//! - [`ternary`]: the ring ZT ({-1,0,1}, valid over Z): factors as two bit planes, its moves
//!   (`no_std`), and, with `alloc`, its schemes verified over Z; [`walk::TernaryWalker`] walks it,
//!   and [`walk::TernaryC3Walker`] its schemes invariant under the cyclic rotation.
//! - [`formats`] (feature `std`, default): the field's scheme file formats.
//!
//! ```
//! use flipgraph_core::walk::{Walk, WalkConfig, Walker};
//! use flipgraph_core::{verify::verify, Scheme, Shape};
//!
//! // Walk the flip graph from the naive 3x3x3 scheme (rank 27) towards Laderman's rank 23.
//! let naive = Scheme::naive(Shape::square(3).unwrap());
//! let mut walker = Walker::new(&naive, WalkConfig::default(), 1);
//! walker.walk(1_000_000, 23);
//! let best = walker.best();
//! assert!(best.rank() < 27);
//! assert_eq!(verify(&best), Ok(()));
//! ```
#![cfg_attr(not(feature = "std"), no_std)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod counters;
pub mod device;
pub mod group;
pub mod known;
pub mod moves;
pub mod plateau;
pub mod rng;
pub mod shape;
pub mod sparsity;
pub mod term;
pub mod ternary;

#[cfg(feature = "alloc")]
pub mod algebra;
#[cfg(feature = "alloc")]
pub mod construction;
#[cfg(feature = "alloc")]
pub mod lift;
#[cfg(feature = "alloc")]
pub mod path;
#[cfg(feature = "alloc")]
pub mod projection;
#[cfg(feature = "alloc")]
pub mod scheme;
#[cfg(feature = "alloc")]
pub mod serendipity;
#[cfg(feature = "alloc")]
pub mod symmetry;
#[cfg(feature = "alloc")]
pub mod verify;
#[cfg(feature = "alloc")]
pub mod walk;

#[cfg(feature = "std")]
pub mod additions;
#[cfg(feature = "std")]
pub mod formats;

pub use shape::{Shape, ShapeError};
pub use term::{Factor, FactorBits, Position, Term, WideTerm};

#[cfg(feature = "alloc")]
pub use scheme::{IntScheme, IntTerm, Scheme, WideScheme};
