//! Scripted runs: the `Custom` events of a `bevy_ci_testing` configuration
//! (`examples/ci/tower_defense.ron`) press the game's buttons, while `mouse click left X Y` events
//! build towers through real mouse clicks (see `bevy_astar_examples::scripted_input`). A command
//! this module cannot read ends the run with an error.
//!
//! | Command            | Effect                                                   |
//! |--------------------|----------------------------------------------------------|
//! | `wave`             | the "send the next wave" button (the first waits for it) |
//! | `pause`            | the pause button (pauses, or resumes)                    |
//! | `stress N`         | releases N stress-test creeps (the button releases 2,000) |
//! | `gold N`           | sets the gold (to build a scripted defence quickly)      |
//! | `lives N`          | sets the lives (0 loses the game at once)                |
//! | `creeps KIND N`    | sends N creeps of KIND (`grunt`, `runner`, `brute`, `boss`, `flyer`) next |
//! | `overlay on\|off`  | shows or hides the search overlay                        |
//! | `trace all\|marked` | records every creep's search, or the marked ones only   |
//! | `restart`          | the restart button                                       |

use crate::GameSystems;
use crate::creeps::CreepKind;
use crate::economy::{Economy, Restart};
use crate::game::TogglePause;
use crate::profile::timed;
use crate::waves::{SendCreeps, SendWave, Stress};
use bevy::dev_tools::ci_testing::CiTestingCustomEvent;
use bevy::gizmos::config::GizmoConfigStore;
use bevy::prelude::*;
use bevy_astar::debug::PathDebugSettings;
use bevy_astar::prelude::*;
use bevy_astar_examples::scripted_input::is_mouse_command;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        timed("run_script", run_script)
            .run_if(resource_exists::<Messages<CiTestingCustomEvent>>)
            .in_set(GameSystems::Input),
    );
}

/// One scripted command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ScriptCommand {
    Wave,
    Pause,
    Stress(u32),
    Gold(u32),
    Lives(u32),
    Creeps(CreepKind, u32),
    Overlay(bool),
    TraceAll(bool),
    Restart,
}

impl ScriptCommand {
    fn parse(text: &str) -> Option<Self> {
        let words: Vec<&str> = text.split_whitespace().collect();
        Some(match words.as_slice() {
            ["wave"] => Self::Wave,
            ["pause"] => Self::Pause,
            ["stress", count] => Self::Stress(count.parse().ok()?),
            ["gold", amount] => Self::Gold(amount.parse().ok()?),
            ["lives", count] => Self::Lives(count.parse().ok()?),
            ["creeps", kind, count] => Self::Creeps(CreepKind::named(kind)?, count.parse().ok()?),
            ["overlay", "on"] => Self::Overlay(true),
            ["overlay", "off"] => Self::Overlay(false),
            ["trace", "all"] => Self::TraceAll(true),
            ["trace", "marked"] => Self::TraceAll(false),
            ["restart"] => Self::Restart,
            _ => return None,
        })
    }
}

/// The messages and resources the commands change.
#[derive(bevy::ecs::system::SystemParam)]
struct Targets<'w> {
    send: MessageWriter<'w, SendWave>,
    pause: MessageWriter<'w, TogglePause>,
    stress: MessageWriter<'w, Stress>,
    creeps: MessageWriter<'w, SendCreeps>,
    restart: MessageWriter<'w, Restart>,
    exit: MessageWriter<'w, AppExit>,
    economy: ResMut<'w, Economy>,
    gizmos: ResMut<'w, GizmoConfigStore>,
    debug: Option<ResMut<'w, PathDebugSettings>>,
}

fn run_script(mut commands: MessageReader<CiTestingCustomEvent>, mut targets: Targets) {
    for CiTestingCustomEvent(text) in commands.read() {
        if is_mouse_command(text) {
            continue;
        }
        let Some(command) = ScriptCommand::parse(text) else {
            error!("unknown scripted command `{text}` (see examples/tower_defense/script.rs)");
            targets.exit.write(AppExit::error());
            continue;
        };
        match command {
            ScriptCommand::Wave => {
                targets.send.write(SendWave);
            }
            ScriptCommand::Pause => {
                targets.pause.write(TogglePause);
            }
            ScriptCommand::Stress(count) => {
                targets.stress.write(Stress(count));
            }
            ScriptCommand::Gold(amount) => targets.economy.gold = amount,
            ScriptCommand::Lives(count) => targets.economy.lives = count,
            ScriptCommand::Creeps(kind, count) => {
                targets.creeps.write(SendCreeps(kind, count));
            }
            ScriptCommand::Overlay(on) => {
                if let Some((config, _)) = targets.gizmos.get_config_mut::<PathfindingGizmos>() {
                    config.enabled = on;
                }
            }
            ScriptCommand::TraceAll(all) => {
                if let Some(debug) = targets.debug.as_mut() {
                    debug.trace_all_agents = all;
                }
            }
            ScriptCommand::Restart => {
                targets.restart.write(Restart);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_and_typos_do_not() {
        assert_eq!(
            ScriptCommand::parse("stress 2000"),
            Some(ScriptCommand::Stress(2000))
        );
        assert_eq!(ScriptCommand::parse(" wave "), Some(ScriptCommand::Wave));
        assert_eq!(ScriptCommand::parse("pause"), Some(ScriptCommand::Pause));
        assert_eq!(
            ScriptCommand::parse("lives 0"),
            Some(ScriptCommand::Lives(0))
        );
        assert_eq!(
            ScriptCommand::parse("overlay off"),
            Some(ScriptCommand::Overlay(false))
        );
        assert_eq!(
            ScriptCommand::parse("trace all"),
            Some(ScriptCommand::TraceAll(true))
        );
        assert_eq!(
            ScriptCommand::parse("creeps boss 2"),
            Some(ScriptCommand::Creeps(CreepKind::Boss, 2))
        );
        for typo in [
            "stress",
            "stress -3",
            "gold lots",
            "lives",
            "overlay maybe",
            "waves",
            "creeps dragon 2",
            "creeps flyer",
        ] {
            assert_eq!(ScriptCommand::parse(typo), None, "{typo}");
        }
    }
}
