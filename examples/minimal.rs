//! The smallest complete use of `bevy_astar`: a grid with two walls, one agent that asks for a
//! path and walks it back and forth, and the debug overlay drawing each search (closed set blue,
//! open set green, path gold). It takes no input: run it and watch.
//!
//! `cargo run --release --example minimal`

use bevy::prelude::*;
use bevy_astar::prelude::*;

const CELL: f32 = 32.0;
const WIDTH: u32 = 24;
const HEIGHT: u32 = 14;

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins,
            // The pathfinding, path following, crowds, the gizmo overlay and the statistics
            // window (folded to its title bar).
            PathfindingPlugins,
        ))
        .insert_resource(nav_grid())
        .add_systems(Startup, setup)
        .add_systems(Update, turn_around)
        .run();
}

/// The map: open ground with two walls to wind around, centred on the world origin.
fn nav_grid() -> NavGrid {
    let size = Vec2::new(WIDTH as f32, HEIGHT as f32) * CELL;
    let mut nav = NavGrid::new(Grid::new(WIDTH, HEIGHT))
        .with_cell_size(Vec2::splat(CELL))
        .with_origin(-size / 2.0);
    nav.fill_rect(Cell::new(7, 0), Cell::new(8, 10), 0); // cost 0 blocks a cell
    nav.fill_rect(Cell::new(15, 3), Cell::new(16, 13), 0);
    nav
}

fn setup(mut commands: Commands, nav: Res<NavGrid>) {
    commands.spawn(Camera2d);
    let floor = Vec2::new(WIDTH as f32, HEIGHT as f32) * CELL;
    let ground = Sprite::from_color(Color::srgb(0.08, 0.09, 0.11), floor);
    commands.spawn((ground, Transform::from_xyz(0.0, 0.0, -1.0)));
    for (cell, cost) in nav.grid().cells() {
        if cost == 0 {
            let wall = Sprite::from_color(Color::srgb(0.55, 0.57, 0.62), Vec2::splat(CELL));
            commands.spawn((
                wall,
                Transform::from_translation(nav.cell_center(cell).extend(0.0)),
            ));
        }
    }
    let start = Cell::new(1, 1);
    commands.spawn((
        // The request is all an agent needs: its `Path` fills in a few frames later.
        PathRequest::new(start, Cell::new(22, 12)),
        // Walks the agent's `Transform` along the path, at world units per second.
        PathFollower::new(240.0),
        // Records this agent's searches so that the overlay can draw them.
        PathDebug,
        Sprite::from_color(Color::WHITE, Vec2::splat(CELL * 0.8)),
        Transform::from_translation(nav.cell_center(start).extend(1.0)),
    ));
}

/// Once the agent stands on its goal, send it back: changing the request queues a new search.
fn turn_around(mut agents: Query<(&mut PathRequest, &PathFollower, &Path)>) {
    for (mut request, follower, path) in &mut agents {
        if follower.is_finished() && path.cells().last() == Some(&request.goal) {
            let PathRequest { start, goal, .. } = &mut *request;
            core::mem::swap(start, goal);
        }
    }
}
