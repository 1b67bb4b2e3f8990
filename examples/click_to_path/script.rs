//! Scripted runs: the `Custom` events of a `bevy_ci_testing` configuration
//! (`examples/ci/click_to_path.ron`) drive the panel's controls, while `mouse ...` events click
//! the map (see `bevy_astar_examples::scripted_input`). A command this module cannot read ends
//! the run with an error.
//!
//! | Command                                        | Panel control                           |
//! |------------------------------------------------|-----------------------------------------|
//! | `map arena\|den312d\|open\|maze\|caves\|marsh` | map menu                                |
//! | `brush wall\|swamp\|water\|trees`              | what a right click paints               |
//! | `seed N`                                       | (seeds generated maps and scattering)   |
//! | `scatter DENSITY` / `clear`                    | scatter / clear obstacles               |
//! | `algorithm astar\|dijkstra\|jps` / `algorithm weighted W` | algorithm and weight          |
//! | `movement 4\|8`, `corners both\|one\|any`      | movement and diagonals                  |
//! | `heuristic default\|manhattan\|octile\|...`    | heuristic                               |
//! | `cost octile` / `cost integer DIAGONAL`        | cost model                              |
//! | `smoothing on\|off`                            | smoothing                               |
//! | `window off` / `window W H`                    | search window                           |
//! | `limit off` / `limit N`                        | expansion limit                         |
//! | `closest on\|off`                              | path to the closest cell when unreachable |
//! | `size N`                                       | agent size                              |
//! | `kind walker\|heavy\|flyer\|boat`              | agent kind (terrain profile)            |
//! | `replay restart\|play\|step N\|seek N\|end`    | replay buttons and slider               |
//! | `replay speed N`, `replay auto on\|off`        | replay speed, autoplay                  |

use crate::VisualiserSystems;
use crate::map::{MapAction, MapRng, MapSource, ObstacleSettings};
use crate::replay::{Replay, ReplayCommand};
use crate::settings::{Algorithm, CostChoice, MAX_PANEL_AGENT_SIZE, SearchSettings};
use crate::terrain::{Brush, KindChoice};
use bevy::dev_tools::ci_testing::CiTestingCustomEvent;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_astar::prelude::*;
use bevy_astar_examples::scripted_input::is_mouse_command;
use rand::SeedableRng;
use rand::rngs::StdRng;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        run_script
            .run_if(resource_exists::<Messages<CiTestingCustomEvent>>)
            .in_set(VisualiserSystems::Input),
    );
}

/// One scripted command.
#[derive(Clone, Debug, PartialEq)]
enum ScriptCommand {
    Map(MapSource),
    Seed(u64),
    Scatter(f32),
    Clear,
    Brush(Brush),
    Settings(SettingChange),
    Replay(ReplayCommand),
    ReplaySpeed(f32),
    Autoplay(bool),
}

/// A change to the search settings.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SettingChange {
    Algorithm(Algorithm, Option<f64>),
    Movement(Neighborhood),
    Corners(CornerRule),
    Heuristic(Option<Heuristic>),
    Cost(CostChoice, Option<u32>),
    Smoothing(bool),
    Window(Option<UVec2>),
    Limit(Option<u32>),
    Closest(bool),
    Size(u8),
    Kind(KindChoice),
}

impl SettingChange {
    fn apply(self, settings: &mut SearchSettings) {
        match self {
            Self::Algorithm(algorithm, weight) => {
                settings.algorithm = algorithm;
                settings.weighted = weight.is_some();
                if let Some(weight) = weight {
                    settings.weight = weight;
                }
            }
            Self::Movement(neighborhood) => settings.neighborhood = neighborhood,
            Self::Corners(rule) => settings.corners = rule,
            Self::Heuristic(heuristic) => settings.heuristic = heuristic,
            Self::Cost(cost, diagonal) => {
                settings.cost = cost;
                if let Some(diagonal) = diagonal {
                    settings.diagonal_cost = diagonal;
                }
            }
            Self::Smoothing(on) => settings.smoothing = on,
            Self::Window(window) => settings.window = window,
            Self::Limit(limit) => settings.max_expansions = limit,
            Self::Closest(on) => settings.closest_reachable = on,
            Self::Size(size) => settings.agent_size = size,
            Self::Kind(kind) => settings.kind = kind,
        }
    }
}

fn on_off(word: &str) -> Option<bool> {
    match word {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

fn number(word: &str) -> Option<f64> {
    word.parse::<f64>().ok().filter(|value| value.is_finite())
}

fn whole(word: &str) -> Option<u32> {
    word.parse().ok()
}

fn parse(text: &str) -> Option<ScriptCommand> {
    use ScriptCommand as C;
    use SettingChange as S;
    let words: Vec<&str> = text.split_whitespace().collect();
    Some(match words.as_slice() {
        ["map", name] => C::Map(match *name {
            "arena" => MapSource::Arena,
            "den312d" => MapSource::Den312d,
            "open" => MapSource::OpenField,
            "maze" => MapSource::Maze,
            "caves" => MapSource::Caves,
            "marsh" => MapSource::Marsh,
            _ => return None,
        }),
        ["brush", name] => C::Brush(Brush::from_name(name)?),
        ["kind", name] => C::Settings(S::Kind(KindChoice::from_name(name)?)),
        ["seed", seed] => C::Seed(seed.parse().ok()?),
        ["scatter", density] => C::Scatter(number(density)? as f32),
        ["clear"] => C::Clear,
        ["algorithm", "astar"] => C::Settings(S::Algorithm(Algorithm::AStar, None)),
        ["algorithm", "dijkstra"] => C::Settings(S::Algorithm(Algorithm::Dijkstra, None)),
        ["algorithm", "jps"] => C::Settings(S::Algorithm(Algorithm::JumpPoint, None)),
        ["algorithm", "weighted", weight] => C::Settings(S::Algorithm(
            Algorithm::AStar,
            Some(number(weight)?.max(1.0)),
        )),
        ["movement", "4"] => C::Settings(S::Movement(Neighborhood::Four)),
        ["movement", "8"] => C::Settings(S::Movement(Neighborhood::Eight)),
        ["corners", rule] => C::Settings(S::Corners(match *rule {
            "both" => CornerRule::Both,
            "one" => CornerRule::One,
            "any" => CornerRule::Any,
            _ => return None,
        })),
        ["heuristic", "default"] => C::Settings(S::Heuristic(None)),
        ["heuristic", name] => C::Settings(S::Heuristic(Some(name.parse().ok()?))),
        ["cost", "octile"] => C::Settings(S::Cost(CostChoice::Octile, None)),
        ["cost", "integer", diagonal] => {
            C::Settings(S::Cost(CostChoice::Integer, Some(whole(diagonal)?.max(1))))
        }
        ["smoothing", on] => C::Settings(S::Smoothing(on_off(on)?)),
        ["window", "off"] => C::Settings(S::Window(None)),
        ["window", width, height] => {
            C::Settings(S::Window(Some(UVec2::new(whole(width)?, whole(height)?))))
        }
        ["limit", "off"] => C::Settings(S::Limit(None)),
        ["limit", max] => C::Settings(S::Limit(Some(whole(max)?))),
        ["closest", on] => C::Settings(S::Closest(on_off(on)?)),
        ["size", size] => C::Settings(S::Size(
            u8::try_from(whole(size)?)
                .ok()
                .filter(|size| (1..=MAX_PANEL_AGENT_SIZE).contains(size))?,
        )),
        ["replay", "restart"] => C::Replay(ReplayCommand::Restart),
        ["replay", "play"] => C::Replay(ReplayCommand::TogglePlay),
        ["replay", "step", delta] => C::Replay(ReplayCommand::Step(delta.parse().ok()?)),
        ["replay", "seek", step] => C::Replay(ReplayCommand::Seek(whole(step)?)),
        ["replay", "end"] => C::Replay(ReplayCommand::Finish),
        ["replay", "speed", speed] => C::ReplaySpeed(number(speed)? as f32),
        ["replay", "auto", on] => C::Autoplay(on_off(on)?),
        _ => return None,
    })
}

/// The panel's state and messages that scripted commands change.
#[derive(SystemParam)]
struct PanelControls<'w> {
    settings: ResMut<'w, SearchSettings>,
    replay: ResMut<'w, Replay>,
    rng: ResMut<'w, MapRng>,
    obstacles: ResMut<'w, ObstacleSettings>,
    brush: ResMut<'w, Brush>,
    map_actions: MessageWriter<'w, MapAction>,
    replay_commands: MessageWriter<'w, ReplayCommand>,
}

fn run_script(
    mut events: MessageReader<CiTestingCustomEvent>,
    mut controls: PanelControls,
    mut exit: MessageWriter<AppExit>,
) {
    for CiTestingCustomEvent(text) in events.read() {
        if is_mouse_command(text) {
            continue;
        }
        let Some(command) = parse(text) else {
            error!("unknown scripted command `{text}` (see examples/click_to_path/script.rs)");
            exit.write(AppExit::error());
            continue;
        };
        info!("scripted: {text}");
        match command {
            ScriptCommand::Map(source) => {
                controls.map_actions.write(MapAction::Load(source));
            }
            ScriptCommand::Seed(seed) => controls.rng.0 = StdRng::seed_from_u64(seed),
            ScriptCommand::Scatter(density) => {
                controls.obstacles.density = density;
                controls.map_actions.write(MapAction::Scatter { density });
            }
            ScriptCommand::Clear => {
                controls.map_actions.write(MapAction::ClearObstacles);
            }
            ScriptCommand::Brush(brush) => *controls.brush = brush,
            ScriptCommand::Settings(change) => change.apply(&mut controls.settings),
            ScriptCommand::Replay(command) => {
                controls.replay_commands.write(command);
            }
            ScriptCommand::ReplaySpeed(speed) => controls.replay.speed = speed.max(0.0),
            ScriptCommand::Autoplay(on) => controls.replay.autoplay = on,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_into_panel_changes() {
        assert_eq!(parse("map maze"), Some(ScriptCommand::Map(MapSource::Maze)));
        assert_eq!(
            parse("algorithm jps"),
            Some(ScriptCommand::Settings(SettingChange::Algorithm(
                Algorithm::JumpPoint,
                None
            )))
        );
        assert_eq!(parse("scatter 0.25"), Some(ScriptCommand::Scatter(0.25)));
        let mut settings = SearchSettings::default();
        for text in [
            "algorithm weighted 2.5",
            "movement 4",
            "heuristic euclidean",
            "cost integer 17",
            "window 21 15",
            "limit 300",
            "smoothing on",
            "closest on",
            "size 2",
            "kind boat",
        ] {
            match parse(text) {
                Some(ScriptCommand::Settings(change)) => change.apply(&mut settings),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert_eq!(settings.algorithm, Algorithm::AStar);
        assert!(settings.is_weighted());
        assert_eq!(settings.weight, 2.5);
        assert_eq!(settings.neighborhood, Neighborhood::Four);
        assert_eq!(settings.heuristic, Some(Heuristic::Euclidean));
        assert_eq!(
            (settings.cost, settings.diagonal_cost),
            (CostChoice::Integer, 17)
        );
        assert_eq!(settings.window, Some(UVec2::new(21, 15)));
        assert_eq!(settings.max_expansions, Some(300));
        assert!(settings.smoothing);
        assert!(settings.closest_reachable);
        assert_eq!(settings.agent_size, 2);
        assert_eq!(settings.kind, KindChoice::Boat);
        assert_eq!(
            parse("map marsh"),
            Some(ScriptCommand::Map(MapSource::Marsh))
        );
        assert_eq!(
            parse("brush water"),
            Some(ScriptCommand::Brush(Brush::Water))
        );
        assert_eq!(
            parse("replay step -3"),
            Some(ScriptCommand::Replay(ReplayCommand::Step(-3)))
        );
    }

    #[test]
    fn unknown_or_malformed_commands_are_refused() {
        for text in [
            "",
            "map atlantis",
            "scatter lots",
            "algorithm bfs",
            "size 0",
            "size 5",
            "closest maybe",
            "kind dragon",
            "brush lava",
            "movement 6",
            "heuristic taxicab",
            "window 10",
            "replay speed fast",
            "smoothing maybe",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
