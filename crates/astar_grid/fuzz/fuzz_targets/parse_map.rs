//! cargo-fuzz target `parse_map`: the body in `bodies/parse_map.rs`, which `tests/fuzz.rs` also runs on
//! stable.

#![no_main]

#[path = "../bodies/parse_map.rs"]
mod body;
#[path = "../bodies/text_checks.rs"]
mod text_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
