//! The debug visualiser: a grid map to click paths on, every search option in a panel, the
//! search drawn by the plugin's gizmo overlay (closed set blue, open set green, path gold) and
//! replayed one expansion at a time from its recorded trace.
//!
//! ```text
//! cargo run --release --example click_to_path              # assets/maps/dao/arena.map
//! cargo run --release --example click_to_path -- FILE.map  # any Moving AI map
//! ```
//!
//! Left click places the start, then the goal; right click or drag toggles walls (or swamp,
//! water or trees, as the brush says); the wheel zooms, a middle drag pans and `F` fits the
//! map. The panel on the right picks the map, scatters and clears obstacles, sets the algorithm
//! (A*, Dijkstra, weighted A*, or jump point search run through the core), movement,
//! heuristic, costs, smoothing and limits, the agent's size and kind (walker, heavy, flyer or
//! boat, each a terrain profile), and drives the replay (also `Space` play/pause,
//! `Left`/`Right` step, `Shift` for ten, `Home` restart, `End` finish); the status bar reports
//! the result (or why no search could run, with a cross on the cell in the way) and the g, h
//! and f the search gave the cell under the cursor.

mod camera;
mod cursor;
mod endpoints;
mod jump_points;
mod map;
mod map_view;
mod panel;
mod replay;
mod script;
mod search;
mod settings;
mod status;
mod terrain;
mod walls;

#[cfg(test)]
mod headless_tests;

use bevy::prelude::*;
use bevy_astar::egui_panel::PathfindingPanelPlugin;
use bevy_astar::prelude::*;
use bevy_astar_examples::scripted_input::ScriptedInputPlugin;
use bevy_egui::EguiPlugin;

/// The visualiser's systems in `Update`, around the plugin's.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum VisualiserSystems {
    /// Read the cursor, keys and scripted commands.
    Input,
    /// Change the map and the endpoints.
    Edit,
    /// Bring the agent's request up to date.
    Request,
    /// Show the result: map image, markers, replay, camera.
    Show,
}

/// Runs the visualiser's sets around the plugin's: input, edits and the request before the
/// plugin reads them, the display after it applied its results.
fn order_systems(app: &mut App) {
    app.configure_sets(
        Update,
        (
            (
                VisualiserSystems::Input,
                VisualiserSystems::Edit,
                VisualiserSystems::Request,
            )
                .chain()
                .before(PathfindingSystems::Invalidate),
            VisualiserSystems::Show.after(PathfindingSystems::Apply),
        ),
    );
}

fn main() {
    App::new()
        .insert_resource(ClearColor(Color::srgb(0.1, 0.1, 0.12)))
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_astar: click to path".into(),
                resolution: (1280, 800).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            EguiPlugin::default(),
            PathfindingPlugins
                // Every search is shown as it ran, so none comes from the cache.
                .set(AStarPlugin::default().with_cache_capacity(0))
                // The plugin's own statistics window, opened from the Overlay section.
                .set(
                    PathfindingPanelPlugin::default()
                        .with_open(false)
                        .with_collapsed(false),
                ),
            ScriptedInputPlugin,
        ))
        .add_systems(PreStartup, map::load_initial_map)
        .add_plugins((
            map::plugin,
            map_view::plugin,
            camera::plugin,
            cursor::plugin,
            endpoints::plugin,
            walls::plugin,
            jump_points::plugin,
            search::plugin,
            replay::plugin,
            panel::plugin,
            script::plugin,
            terrain::plugin,
            order_systems,
        ))
        .run();
}
