//! Fuzzes the path-file reader (`flipgraph replay`), and replays whatever it reads onto the
//! naive scheme of its shape: moves that do not apply must be errors, never panics.
#![no_main]

use flipgraph_core::path::{parse, Replay};
use flipgraph_core::Scheme;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok((shape, moves)) = parse(text) {
        let mut replay = Replay::new(Scheme::naive(shape).terms());
        for m in &moves {
            if replay.apply(m).is_err() {
                break;
            }
        }
    }
});
