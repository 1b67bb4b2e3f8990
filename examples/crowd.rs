//! Crowds that pass each other: two halls joined by a corridor three cells wide and a door one
//! cell wide. A left click in a hall sends a squad of twelve agents from there to the same
//! place in the other hall, all heading for one goal (so they share its tree); squads from both
//! sides meet in the corridor and pass each other, each agent with `CrowdAvoidance` (local
//! avoidance, see `bevy_astar::crowd`). A right click sends a squad without avoidance, for
//! comparison: those walk through everyone. D turns density-aware routes on and off
//! (`CrowdSettings::route_density_weight`): with them on, a squad that crowds the corridor
//! sends some of its agents round through the door. The overlay draws each avoiding agent's
//! radius, its desired velocity (orange) and its actual velocity (green). The line under the
//! map shows the frames per second, the agents on the map, how many of them are stuck (have
//! not moved half a cell for four seconds) and whether routes weigh the crowd; R clears the map.
//!
//! `cargo run --release --example crowd`

use bevy::dev_tools::ci_testing::CiTestingCustomEvent;
use bevy::input::ButtonState;
use bevy::input::keyboard::{Key, KeyboardInput};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_astar::egui_panel::PathfindingPanelPlugin;
use bevy_astar::prelude::*;
use bevy_astar_examples::scripted_input::ScriptedInputPlugin;
use bevy_egui::egui::Align2;
use std::time::{Duration, Instant};

const CELL: f32 = 24.0;
const WIDTH: u32 = 44;
const HEIGHT: u32 = 24;
/// Agents a click sends.
const SQUAD: u32 = 12;
/// World units per second: three cells a second.
const SPEED: f32 = CELL * 3.0;
/// An agent that has not moved [`STUCK_DISTANCE`] in this many seconds counts as stuck.
const STUCK_AFTER: f32 = 4.0;
/// Half a cell, in world units.
const STUCK_DISTANCE: f32 = CELL * 0.5;
/// The key that clears the map.
const RESET_KEY: KeyCode = KeyCode::KeyR;
/// The key that turns density-aware routes on and off.
const DENSITY_KEY: KeyCode = KeyCode::KeyD;
/// The weight of density-aware routes when they are on: each avoiding agent on a cell adds one
/// straight step to the cost of crossing it.
const DENSITY_WEIGHT: f32 = 1.0;

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins.set(WindowPlugin {
                primary_window: Some(Window {
                    title: "bevy_astar: crowd".into(),
                    resolution: (1120, 640).into(),
                    ..default()
                }),
                ..default()
            }),
            // The statistics window folded in the bottom left corner, clear of the help line.
            PathfindingPlugins.set(
                PathfindingPanelPlugin::default().with_anchor(Align2::LEFT_BOTTOM, [8.0, -8.0]),
            ),
            ScriptedInputPlugin,
        ))
        .insert_resource(nav_grid())
        // A squad's twelve agents share their goal's tree, which density-aware routes weigh.
        .insert_resource(PathfindingSettings {
            shared_goal_min_agents: SQUAD as usize,
            ..default()
        })
        .init_resource::<FrameMeter>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                send_squads,
                leave_at_the_goal,
                reset_on_key,
                toggle_density,
                (watch_progress, measure_frames, show_status).chain(),
                press_scripted_keys.run_if(resource_exists::<Messages<CiTestingCustomEvent>>),
            ),
        )
        .run();
}

/// Two 14-cell halls at either end; between them a wall with a corridor three cells wide
/// (rows 6 to 8) and a door one cell wide (row 16).
fn nav_grid() -> NavGrid {
    let size = Vec2::new(WIDTH as f32, HEIGHT as f32) * CELL;
    let mut nav = NavGrid::new(Grid::new(WIDTH, HEIGHT))
        .with_cell_size(Vec2::new(CELL, -CELL))
        .with_origin(Vec2::new(-size.x, size.y) / 2.0);
    nav.fill_rect(Cell::new(14, 0), Cell::new(29, 5), 0);
    nav.fill_rect(Cell::new(14, 9), Cell::new(29, 15), 0);
    nav.fill_rect(Cell::new(14, 17), Cell::new(29, 23), 0);
    nav
}

/// An agent of a squad, and how long it has stood still: since it last moved
/// [`STUCK_DISTANCE`] from `mark`.
#[derive(Component)]
struct Walker {
    mark: Vec2,
    still_for: f32,
}

impl Walker {
    fn at(position: Vec2) -> Self {
        Self {
            mark: position,
            still_for: 0.0,
        }
    }

    fn is_stuck(&self) -> bool {
        self.still_for >= STUCK_AFTER
    }
}

/// The line under the map: frames per second, agents, stuck agents.
#[derive(Component)]
struct StatusLine;

/// Frames per second on the wall clock, over the last half second (game time may be driven
/// by a script).
#[derive(Resource)]
struct FrameMeter {
    since: Instant,
    frames: u32,
    fps: f64,
}

impl Default for FrameMeter {
    fn default() -> Self {
        Self {
            since: Instant::now(),
            frames: 0,
            fps: 0.0,
        }
    }
}

fn setup(mut commands: Commands, nav: Res<NavGrid>) {
    commands.spawn(Camera2d);
    let floor = Vec2::new(WIDTH as f32, HEIGHT as f32) * CELL;
    let ground = Sprite::from_color(Color::srgb(0.08, 0.09, 0.11), floor);
    commands.spawn((ground, Transform::from_xyz(0.0, 0.0, -1.0)));
    for (cell, cost) in nav.grid().cells() {
        if cost == 0 {
            let wall = Sprite::from_color(Color::srgb(0.45, 0.47, 0.52), Vec2::splat(CELL));
            commands.spawn((
                wall,
                Transform::from_translation(nav.cell_center(cell).extend(0.0)),
            ));
        }
    }
    commands.spawn((
        Text2d::new(
            "Left click: a squad that avoids others. Right click: one that does not. \
             D: density routes. R: clear.",
        ),
        TextFont::from_font_size(16.0),
        Transform::from_xyz(0.0, floor.y / 2.0 + 16.0, 2.0),
    ));
    commands.spawn((
        StatusLine,
        Text2d::default(),
        TextFont::from_font_size(16.0),
        Transform::from_xyz(0.0, -floor.y / 2.0 - 16.0, 2.0),
    ));
}

/// The cell under the cursor, if the cursor is over the map.
fn cursor_cell(
    window: &Window,
    camera: (&Camera, &GlobalTransform),
    nav: &NavGrid,
) -> Option<Cell> {
    let position = window.cursor_position()?;
    let world = camera.0.viewport_to_world_2d(camera.1, position).ok()?;
    nav.world_to_cell(world)
}

/// Where a squad sent from `cell` goes: the same place in the other hall.
fn mirror(cell: Cell) -> Cell {
    Cell::new(WIDTH - 1 - cell.x, cell.y)
}

/// The cells of a squad around `centre`: free cells of the grid, nearest first.
fn squad_cells(nav: &NavGrid, centre: Cell) -> Vec<Cell> {
    let mut cells: Vec<Cell> = nav
        .grid()
        .cells()
        .filter(|&(cell, cost)| cost != 0 && cell.x.abs_diff(centre.x) <= 3)
        .map(|(cell, _)| cell)
        .filter(|cell| cell.y.abs_diff(centre.y) <= 3)
        .collect();
    cells.sort_by_key(|cell| cell.x.abs_diff(centre.x).pow(2) + cell.y.abs_diff(centre.y).pow(2));
    cells.truncate(SQUAD as usize);
    cells
}

/// A left click sends an avoiding squad from the hall clicked to the other, a right click one
/// without avoidance.
fn send_squads(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    nav: Res<NavGrid>,
) {
    let avoiding = buttons.just_pressed(MouseButton::Left);
    if !(avoiding || buttons.just_pressed(MouseButton::Right)) {
        return;
    }
    let Some(centre) = cursor_cell(&window, *camera, &nav).filter(|&cell| nav.is_walkable(cell))
    else {
        return;
    };
    let color = if centre.x < WIDTH / 2 {
        Color::srgb(0.35, 0.7, 1.0)
    } else {
        Color::srgb(1.0, 0.55, 0.35)
    };
    let goal = mirror(centre);
    for cell in squad_cells(&nav, centre) {
        let position = nav.cell_center(cell);
        let mut agent = commands.spawn((
            Walker::at(position),
            PathRequest::new(cell, goal).with_smoothing(true),
            PathFollower::new(SPEED),
            Sprite::from_color(color, Vec2::splat(CELL * 0.7)),
            Transform::from_translation(position.extend(1.0)),
        ));
        if avoiding {
            agent.insert(CrowdAvoidance::default());
        } else {
            agent.insert(Sprite::from_color(
                color.with_alpha(0.45),
                Vec2::splat(CELL * 0.7),
            ));
        }
    }
}

/// Agents that have walked their path leave the map.
fn leave_at_the_goal(
    mut commands: Commands,
    agents: Query<(Entity, &PathFollower, &Path), With<Walker>>,
) {
    for (entity, follower, path) in &agents {
        if follower.is_finished() && path.is_found() {
            commands.entity(entity).despawn();
        }
    }
}

/// R clears the map of agents.
fn reset_on_key(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    agents: Query<Entity, With<Walker>>,
) {
    if keys.just_pressed(RESET_KEY) {
        for agent in &agents {
            commands.entity(agent).despawn();
        }
    }
}

/// D turns density-aware routes on and off.
fn toggle_density(keys: Res<ButtonInput<KeyCode>>, mut crowd: ResMut<CrowdSettings>) {
    if keys.just_pressed(DENSITY_KEY) {
        crowd.route_density_weight = if crowd.route_density_weight > 0.0 {
            0.0
        } else {
            DENSITY_WEIGHT
        };
    }
}

/// Counts how long each agent has not moved [`STUCK_DISTANCE`].
fn watch_progress(time: Res<Time>, mut agents: Query<(&mut Walker, &Transform)>) {
    for (mut walker, transform) in &mut agents {
        let position = transform.translation.truncate();
        if position.distance(walker.mark) >= STUCK_DISTANCE {
            *walker = Walker::at(position);
        } else {
            walker.still_for += time.delta_secs();
        }
    }
}

/// Measures the frames per second over half-second windows of the wall clock.
fn measure_frames(mut meter: ResMut<FrameMeter>) {
    meter.frames += 1;
    let elapsed = meter.since.elapsed();
    if elapsed >= Duration::from_millis(500) {
        meter.fps = f64::from(meter.frames) / elapsed.as_secs_f64();
        meter.frames = 0;
        meter.since = Instant::now();
    }
}

/// Writes the line under the map.
fn show_status(
    meter: Res<FrameMeter>,
    crowd: Res<CrowdSettings>,
    agents: Query<&Walker>,
    mut line: Single<&mut Text2d, With<StatusLine>>,
) {
    let stuck = agents.iter().filter(|walker| walker.is_stuck()).count();
    let density = if crowd.route_density_weight > 0.0 {
        "on"
    } else {
        "off"
    };
    let text = format!(
        "{:.0} fps   {} agents, {stuck} stuck (no progress for {STUCK_AFTER:.0} s)   \
         density-aware routes {density}",
        meter.fps,
        agents.iter().len(),
    );
    if line.0 != text {
        line.0 = text;
    }
}

/// Performs the `key K` commands of the unattended run: presses the key (a letter) and
/// releases it on the next frame, through the keyboard messages a real key sends.
fn press_scripted_keys(
    mut script: MessageReader<CiTestingCustomEvent>,
    window: Single<Entity, With<PrimaryWindow>>,
    mut keys: MessageWriter<KeyboardInput>,
    mut pressed: Local<Vec<(KeyCode, char)>>,
) {
    let mut send = |(key_code, letter): (KeyCode, char), state| {
        keys.write(KeyboardInput {
            key_code,
            logical_key: Key::Character(letter.to_string().into()),
            state,
            text: (state == ButtonState::Pressed).then(|| letter.to_string().into()),
            repeat: false,
            window: *window,
        });
    };
    for key in pressed.drain(..) {
        send(key, ButtonState::Released);
    }
    for CiTestingCustomEvent(command) in script.read() {
        let key = match command.as_str() {
            "key r" => (RESET_KEY, 'r'),
            "key d" => (DENSITY_KEY, 'd'),
            _ => continue,
        };
        send(key, ButtonState::Pressed);
        pressed.push(key);
    }
}
