//! cargo-fuzz target `search`: the body in `bodies/search.rs`, which `tests/fuzz.rs` also runs on
//! stable.

#![no_main]

#[path = "../bodies/search.rs"]
#[expect(
    dead_code,
    reason = "the body shares the path checker of the tests, whose other helpers it does not use"
)]
mod body;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
