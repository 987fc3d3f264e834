//! `cargo +nightly fuzz run decode_line corpus/decode_line` (from this folder).
//! The checks live in `yut_height_protocol::fuzzing`, which `cargo test` also runs
//! over the corpus on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    yut_height_protocol::fuzzing::decode_line_target(data);
});
