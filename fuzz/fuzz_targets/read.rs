//! Fuzzes format detection and every reader behind it, and checks that whatever reads back
//! also verifies and writes without a panic.
#![no_main]

use flipgraph_core::formats::{self, Format, Ring};
use flipgraph_core::verify::{verify, verify_z};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(file) = formats::read(data) {
        let _ = verify(&file.scheme.mod2());
        let _ = verify_z(&file.scheme);
        for format in Format::ALL.into_iter().filter(|f| f.writable()) {
            let _ = formats::write(&file.scheme, format, Ring::Z);
        }
    }
});
