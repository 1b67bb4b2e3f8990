//! cargo-fuzz target `parse_scenario`: the body in `bodies/parse_scenario.rs`, which `tests/fuzz.rs` also runs on
//! stable.

#![no_main]

#[path = "../bodies/parse_scenario.rs"]
mod body;
#[path = "../bodies/text_checks.rs"]
#[expect(dead_code, reason = "the scenario body reports no character positions")]
mod text_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
