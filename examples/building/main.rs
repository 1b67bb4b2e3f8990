//! A building of two floors, stacked in one grid by a `FloorPlan` and joined by links: stairs
//! between the floors, a door that a key opens and closes, a narrow passage the 2x2 boss cannot
//! fit through, a one-way drop from a ledge upstairs to the hall below, and a pair of
//! teleporters. Three walkers and the boss follow their paths with `PathFollower`; at each link
//! they stop, wait its cost in time (tinted in the link's colour, a word under them saying what
//! they do) and come out at the far end; a teleporter holds them until it has charged
//! (`PathFollower::hold_crossing`, then `release_crossing`).
//!
//! ```text
//! cargo run --release --example building
//! ```
//!
//! One floor is shown at a time. Left click a free cell of the floor shown: it becomes the goal
//! of the selected agents (spread round it); a goal on the other floor sends them by the
//! stairs, the drop or the teleporters. Keys: `F` or `Tab` shows the other floor, `D` opens or
//! closes the door (a closed door cuts the paths through it, and agents that could not reach
//! their goal search again when it opens), `1`-`4` select one agent, `A` selects all. At the
//! start everyone heads for the upper floor's west wing: by the door, the stairs and the
//! teleporters. The line under the map tells each agent's floor and what it is doing: walking
//! (and the next link on its way), crossing a link, or stuck without a path.

mod agents;
mod crossings;
mod hud;
mod layout;
mod paths;
mod scenery;
mod script;

#[cfg(test)]
mod headless_tests;

use bevy::prelude::*;
use bevy_astar::egui_panel::PathfindingPanelPlugin;
use bevy_astar::prelude::*;
use bevy_astar_examples::scripted_input::ScriptedInputPlugin;
use bevy_egui::EguiGlobalSettings;
use bevy_egui::egui::Align2;
use layout::Building;

/// The example's systems in `Update`, around the plugin's.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum BuildingSystems {
    /// Keys and clicks: the door, the floor shown, the agents' goals.
    Input,
    /// After the agents moved: the camera, the sprites, the paths and the status.
    Show,
}

/// The floor the camera shows.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ShownFloor(u32);

fn main() -> AppExit {
    let (building, nav) = match Building::build() {
        Ok(built) => built,
        Err(error) => {
            eprintln!("the building cannot be built: {error}");
            return AppExit::error();
        }
    };
    App::new()
        .insert_resource(ClearColor(Color::srgb(0.09, 0.1, 0.12)))
        // The statistics window goes to the camera of the bars (`hud`), drawn last.
        .insert_resource(EguiGlobalSettings {
            auto_create_primary_context: false,
            ..default()
        })
        .add_plugins((
            DefaultPlugins.set(WindowPlugin {
                primary_window: Some(Window {
                    title: "bevy_astar: building".into(),
                    resolution: (1280, 800).into(),
                    ..default()
                }),
                ..default()
            }),
            // The statistics window folded in the bottom right corner, beside the status.
            PathfindingPlugins.set(
                PathfindingPanelPlugin::default().with_anchor(Align2::RIGHT_BOTTOM, [-8.0, -8.0]),
            ),
            ScriptedInputPlugin,
        ))
        .insert_resource(nav)
        .insert_resource(building)
        .init_resource::<ShownFloor>()
        .configure_sets(
            Update,
            (
                BuildingSystems::Input.before(PathfindingSystems::Invalidate),
                BuildingSystems::Show.after(PathfindingSystems::Follow),
            ),
        )
        .add_systems(
            Update,
            (switch_floor, toggle_door).in_set(BuildingSystems::Input),
        )
        .add_plugins((
            scenery::plugin,
            agents::plugin,
            crossings::plugin,
            paths::plugin,
            hud::plugin,
            script::plugin,
        ))
        .run()
}

/// `F` or `Tab` shows the other floor.
fn switch_floor(
    keys: Res<ButtonInput<KeyCode>>,
    building: Res<Building>,
    mut shown: ResMut<ShownFloor>,
) {
    if keys.any_just_pressed([KeyCode::KeyF, KeyCode::Tab]) {
        shown.0 = (shown.0 + 1) % building.plan.floors();
    }
}

/// `D` opens or closes the door: a change of the map, which cuts the paths through a closed
/// door and lets agents with no path search again when it opens.
fn toggle_door(keys: Res<ButtonInput<KeyCode>>, building: Res<Building>, mut nav: ResMut<NavGrid>) {
    if !keys.just_pressed(KeyCode::KeyD) {
        return;
    }
    let Some(open) = nav.grid().links().get(building.door).map(|door| door.open) else {
        return;
    };
    match nav.set_link_open(building.door, !open) {
        Ok(_) => info!("the door is {}", if open { "closed" } else { "open" }),
        Err(error) => warn!("the door cannot be moved: {error}"),
    }
}
