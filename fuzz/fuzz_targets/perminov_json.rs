//! Fuzzes the perminov_json reader: any input gives a scheme or an error, never a panic, hang or blow-up.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = flipgraph_core::formats::perminov_json::read(text);
    }
});
