//! Fuzzes the checkpoint reader of `flipgraph search --resume` (JSON, then its checks of time,
//! shape and pool).
#![no_main]

use flipgraph_search::output::Checkpoint;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(cp) = Checkpoint::parse(data, std::path::Path::new("checkpoint.json")) {
        let _ = cp.elapsed();
        let _ = cp.shape();
    }
});
