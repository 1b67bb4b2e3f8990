//! Support shared by the `bevy_astar` examples: scripted mouse input for their unattended runs,
//! and tile sheets painted in code.
//!
//! Each example runs unattended with Bevy's `bevy_ci_testing` feature: `CI_TESTING_CONFIG`
//! names a RON file under `examples/ci/` whose events take screenshots, exit, and send `Custom`
//! strings. [`scripted_input::ScriptedInputPlugin`] turns `Custom("mouse ...")` strings into the
//! window and mouse messages a real mouse sends, so a scripted run clicks through the same code
//! as a person.

pub mod scripted_input;
pub mod tile_sheet;
