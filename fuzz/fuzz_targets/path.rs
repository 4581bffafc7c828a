//! Fuzzes the path-file reader (`flipgraph replay`), and replays whatever it reads onto the
//! naive scheme of its shape: moves that do not apply must be errors, never panics.
#![no_main]

use flipgraph_core::path::{apply, parse};
use flipgraph_core::Scheme;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok((shape, moves)) = parse(text) {
        let mut terms = Scheme::naive(shape).terms().to_vec();
        for (i, m) in moves.iter().enumerate() {
            if apply(&mut terms, m, i).is_err() {
                break;
            }
        }
    }
});
