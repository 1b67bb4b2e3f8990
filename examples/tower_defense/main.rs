//! Tower defense on a `bevy_ecs_tilemap` map: waves of creeps path from the spawn (left) to the
//! goal (right) with `bevy_astar`, and the towers you place reshape their routes.
//!
//! ```text
//! cargo run --release --example tower_defense
//! cargo run --release --example tower_defense -- --huge   # a 4096 x 4096 city
//! ```
//!
//! Left click a free tile to build a tower (it costs gold; kills earn gold). A tower that would
//! cut every route from the spawn to the goal, or trap a creep, for creeps of any size, is
//! refused with the reason (and whom it would cut off).
//! When one lands, only the creeps whose paths crossed its tile search again, from where they
//! stand. Build first, then send the first wave; the others follow a countdown. Beat ten waves
//! to win; creeps that reach the goal cost a life, and the game is lost with the last one.
//! Keys: `N` sends the next wave now, `Space` pauses, `D` shows the search overlay (off at the
//! start), `S` releases 2,000 stress-test creeps, `R` restarts. The left window is the game;
//! the folded one at the top right is `bevy_astar`'s own panel (`egui` feature): unfold it with
//! the arrow in its title bar.

mod creeps;
mod economy;
mod field;
mod game;
mod huge;
mod map;
mod profile;
mod routes;
mod script;
mod towers;
mod ui;
mod waves;

use bevy::prelude::*;
use bevy_astar::egui_panel::PathfindingPanelPlugin;
use bevy_astar::prelude::*;
use bevy_astar::tilemap::NavTilemapPlugin;
use bevy_astar_examples::scripted_input::ScriptedInputPlugin;
use bevy_ecs_tilemap::TilemapPlugin;
use bevy_egui::{EguiPlugin, egui};

/// The game's systems in `Update`, around the plugin's.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum GameSystems {
    /// Read the mouse, keys and scripted commands.
    Input,
    /// Build towers, spawn creeps: everything that edits the map or adds requests.
    Build,
    /// After the plugin moved the creeps: where they stand now.
    Locate,
    /// Shoot, score, count.
    Play,
    /// After the frame's play: won, lost, or on.
    Judge,
}

fn main() {
    if std::env::args().any(|argument| argument == "--huge") {
        huge::run();
        return;
    }
    App::new()
        .insert_resource(ClearColor(Color::srgb(0.07, 0.08, 0.07)))
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_astar: tower defense".into(),
                resolution: (1280, 800).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            TilemapPlugin,
            EguiPlugin::default(),
            PathfindingPlugins
                // Waves share their searches: creeps asking the same question get one answer.
                .set(
                    AStarPlugin::default()
                        .with_max_searches_per_frame(128)
                        .with_cache_capacity(8192),
                )
                // The tilemap is the map: rock and tower tiles are trees to the plugin, walls
                // to walking creeps and open sky to flying ones.
                .set(NavTilemapPlugin::default().with_rule(|_tile, texture| {
                    map::Terrain::from_texture(texture).map_or(0, map::Terrain::nav_value)
                }))
                // The plugin's own panel, pinned to the top right, folded to its title bar
                // until the player unfolds it.
                .set(
                    PathfindingPanelPlugin::default()
                        .with_anchor(egui::Align2::RIGHT_TOP, [-8.0, 8.0]),
                ),
            ScriptedInputPlugin,
        ))
        .configure_sets(
            Update,
            (
                (GameSystems::Input, GameSystems::Build)
                    .chain()
                    .before(PathfindingSystems::Invalidate),
                (GameSystems::Locate, GameSystems::Play, GameSystems::Judge)
                    .chain()
                    .after(PathfindingSystems::Follow),
            ),
        )
        .add_plugins((
            map::plugin,
            routes::plugin,
            economy::plugin,
            field::plugin,
            game::plugin,
            waves::plugin,
            creeps::plugin,
            towers::plugin,
            ui::plugin,
            script::plugin,
            profile::plugin,
        ))
        .run();
}
