//! The huge-map mode of `tower_defense` (`-- --huge`): a 4096 x 4096 city drawn as one texture,
//! creeps streaming from the west edge to a base in the east along hierarchical paths
//! (`PathAlgorithm::Hierarchical`), towers that block streets, and a camera that pans and zooms.
//!
//! The plugin builds the sector hierarchy in the background from the first request (A* answers
//! meanwhile; the HUD counts which served the creeps' paths), and rebuilds the sectors a tower
//! touches. Keys: arrows or WASD pan, the wheel zooms, `Z` shows the whole map, `G` draws the
//! sectors. Left click builds a 4 x 4 tower on the street there, or the HUD says why not.

use bevy::asset::RenderAssetUsages;
use bevy::gizmos::config::GizmoConfigStore;
use bevy::image::ImageSampler;
use bevy::input::mouse::AccumulatedMouseScroll;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::window::PrimaryWindow;
use bevy_astar::prelude::*;
use bevy_astar_examples::scripted_input::ScriptedInputPlugin;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The map's side, in cells (one world unit each).
const SIDE: u32 = 4096;
/// Streets run every this many cells, each `STREET` cells wide.
const BLOCK: u32 = 40;
const STREET: u32 = 6;
/// Creeps on the map once they have all come in, and how many come in each second.
const CREEPS: usize = 2_000;
const ARRIVALS_PER_SECOND: f32 = 40.0;
/// A creep's speed, in cells per second.
const SPEED: f32 = 24.0;
/// A tower's side, in cells.
const TOWER: u32 = 4;

/// Runs the huge-map mode.
pub fn run() {
    App::new()
        .insert_resource(ClearColor(Color::srgb(0.05, 0.05, 0.06)))
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_astar: tower defense, huge map".into(),
                resolution: (1280, 800).into(),
                ..default()
            }),
            ..default()
        }))
        // Every creep gets a hierarchical path of its own: no goal tree shared over 16.7
        // million cells.
        .add_plugins(PathfindingPlugins.set(AStarPlugin::default().with_settings(
            PathfindingSettings {
                shared_goal_min_agents: 0,
                ..default()
            },
        )))
        .add_plugins(ScriptedInputPlugin)
        .insert_resource(city())
        .init_resource::<Arrivals>()
        .init_resource::<LastClick>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                steer_camera,
                toggle_sectors,
                build_tower,
                bring_creeps,
                recycle_creeps,
            )
                .before(PathfindingSystems::Invalidate),
        )
        .add_systems(EguiPrimaryContextPass, show_status)
        .run();
}

/// The west edge's street cells where creeps come in, the base they walk to, and the creeps
/// owed by the clock.
#[derive(Resource)]
struct Arrivals {
    spawns: Vec<Cell>,
    base: Cell,
    carry: f32,
    random: StdRng,
}

impl Default for Arrivals {
    fn default() -> Self {
        let spawn_y = (STREET / 2..SIDE).step_by(BLOCK as usize);
        Self {
            spawns: spawn_y.map(|y| Cell::new(1, y)).collect(),
            base: Cell::new(
                SIDE - 1 - BLOCK / 2,
                SIDE / 2 + STREET / 2 - (SIDE / 2) % BLOCK,
            ),
            carry: 0.0,
            random: StdRng::seed_from_u64(11),
        }
    }
}

impl Arrivals {
    /// A street cell of the west edge, at random (there is one every [`BLOCK`] cells).
    fn pick_spawn(&mut self) -> Cell {
        self.spawns[self.random.random_range(0..self.spawns.len())]
    }
}

#[derive(Component)]
struct Creep;

/// The city: a street every [`BLOCK`] cells; each block is built over, an open square, or
/// built over with an alley through it.
fn city() -> NavGrid {
    let mut grid = Grid::new(SIDE, SIDE);
    let mut random = StdRng::seed_from_u64(7);
    let blocks = SIDE / BLOCK;
    for row in 0..blocks {
        for column in 0..blocks {
            let min = Cell::new(column * BLOCK + STREET, row * BLOCK + STREET);
            let max = Cell::new(
                ((column + 1) * BLOCK - 1).min(SIDE - 1),
                ((row + 1) * BLOCK - 1).min(SIDE - 1),
            );
            let roll: f32 = random.random();
            if roll < 0.12 {
                continue; // an open square
            }
            grid.fill_rect(min, max, 0);
            if roll < 0.35 {
                let at = random.random_range(3..BLOCK - STREET - 3);
                if random.random::<bool>() {
                    grid.fill_rect(
                        Cell::new(min.x, min.y + at),
                        Cell::new(max.x, min.y + at + 1),
                        1,
                    );
                } else {
                    grid.fill_rect(
                        Cell::new(min.x + at, min.y),
                        Cell::new(min.x + at + 1, max.y),
                        1,
                    );
                }
            }
        }
    }
    NavGrid::new(grid).with_cell_size(Vec2::ONE)
}

/// The side of each texture the map is drawn in: a pixel a cell. Several textures of this
/// side stay within every device's texture size limit.
const TILE: u32 = 1024;

/// The map's tile at `(column, row)` (row 0 at the bottom) as a texture, its row 0 at the top.
fn city_tile(nav: &NavGrid, (column, row): (u32, u32)) -> Image {
    let mut data = Vec::with_capacity((TILE * TILE * 4) as usize);
    for line in 0..TILE {
        let y = (row + 1) * TILE - 1 - line;
        for x in column * TILE..(column + 1) * TILE {
            let open = nav.grid().is_walkable(Cell::new(x, y));
            let color = if open {
                [34, 37, 44, 255]
            } else {
                [96, 102, 118, 255]
            };
            data.extend_from_slice(&color);
        }
    }
    let mut image = Image::new(
        Extent3d {
            width: TILE,
            height: TILE,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        // Drawn once: the CPU copy is dropped after upload; towers are sprites on top.
        RenderAssetUsages::RENDER_WORLD,
    );
    image.sampler = ImageSampler::nearest();
    image
}

fn setup(
    mut commands: Commands,
    nav: Res<NavGrid>,
    mut images: ResMut<Assets<Image>>,
    arrivals: Res<Arrivals>,
) {
    let tile = TILE as f32;
    for row in 0..SIDE / TILE {
        for column in 0..SIDE / TILE {
            let image = images.add(city_tile(&nav, (column, row)));
            let center = (Vec2::new(column as f32, row as f32) + 0.5) * tile;
            commands.spawn((
                Sprite {
                    image,
                    custom_size: Some(Vec2::splat(tile)),
                    ..default()
                },
                Transform::from_translation(center.extend(0.0)),
            ));
        }
    }
    let base = nav.cell_center(arrivals.base);
    commands.spawn((
        Sprite::from_color(Color::srgb(0.9, 0.75, 0.2), Vec2::splat(12.0)),
        Transform::from_translation(base.extend(1.0)),
    ));
    let west = nav.cell_center(Cell::new(0, SIDE / 2));
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 0.3,
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_translation((west + Vec2::new(180.0, 0.0)).extend(10.0)),
    ));
}

/// Lets creeps in at the west edge, [`ARRIVALS_PER_SECOND`] until [`CREEPS`] walk.
fn bring_creeps(
    mut commands: Commands,
    time: Res<Time>,
    nav: Res<NavGrid>,
    mut arrivals: ResMut<Arrivals>,
    creeps: Query<(), With<Creep>>,
) {
    // The first creeps come after a second: the searches they start run on the threads that
    // also compile the renderer's shaders in the first frames.
    if time.elapsed_secs() < 1.0 {
        return;
    }
    let walking = creeps.iter().count();
    arrivals.carry += time.delta_secs() * ARRIVALS_PER_SECOND;
    while arrivals.carry >= 1.0 && walking + (arrivals.carry as usize) <= CREEPS {
        arrivals.carry -= 1.0;
        let spawn = arrivals.pick_spawn();
        let hue = arrivals.random.random_range(0.0..360.0);
        commands.spawn((
            Creep,
            PathRequest::new(spawn, arrivals.base)
                .with_algorithm(PathAlgorithm::Hierarchical)
                .with_start_at_agent(true),
            PathFollower::new(SPEED),
            Sprite::from_color(Color::hsl(hue, 0.8, 0.6), Vec2::splat(2.5)),
            Transform::from_translation(nav.cell_center(spawn).extend(2.0)),
        ));
    }
    if walking >= CREEPS {
        arrivals.carry = 0.0;
    }
}

/// A creep at the base comes in again at the west edge.
fn recycle_creeps(
    nav: Res<NavGrid>,
    mut arrivals: ResMut<Arrivals>,
    mut creeps: Query<(&mut PathRequest, &mut Transform, &PathFollower), With<Creep>>,
) {
    for (mut request, mut transform, follower) in &mut creeps {
        let at = nav.world_to_cell(transform.translation.truncate());
        if follower.is_finished() && at == Some(arrivals.base) {
            let spawn = arrivals.pick_spawn();
            request.start = spawn;
            transform.translation = nav.cell_center(spawn).extend(2.0);
        }
    }
}

/// Left click: a tower on the 4 x 4 cells from the one clicked, where every cell is open and
/// no creep stands.
fn build_tower(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    (mut nav, mut last_click): (ResMut<NavGrid>, ResMut<LastClick>),
    arrivals: Res<Arrivals>,
    creeps: Query<&Transform, With<Creep>>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    let (camera, transform) = *camera;
    let Some(clicked) = window
        .cursor_position()
        .and_then(|position| camera.viewport_to_world_2d(transform, position).ok())
        .and_then(|world| nav.world_to_cell(world))
    else {
        return;
    };
    let standing: Vec<Cell> = creeps
        .iter()
        .filter_map(|creep| nav.world_to_cell(creep.translation.truncate()))
        .collect();
    let taken = |corner: Cell, far: Cell| {
        let inside = |cell: &Cell| {
            (corner.x..=far.x).contains(&cell.x) && (corner.y..=far.y).contains(&cell.y)
        };
        standing.iter().any(inside) || inside(&arrivals.base) || arrivals.spawns.iter().any(inside)
    };
    let corner = match tower_corner_near(&nav, clicked, taken) {
        Ok(corner) => corner,
        Err(reason) => {
            last_click.0 = reason;
            return;
        }
    };
    let far = Cell::new(corner.x + TOWER - 1, corner.y + TOWER - 1);
    nav.fill_rect(corner, far, 0);
    last_click.0 = "tower built";
    let size = (TOWER as f32) * nav.cell_size();
    let center = (nav.cell_center(corner) + nav.cell_center(far)) / 2.0;
    commands.spawn((
        Sprite::from_color(Color::srgb(0.85, 0.3, 0.25), size),
        Transform::from_translation(center.extend(1.5)),
    ));
}

/// What the player's last click did, for the HUD.
#[derive(Resource)]
struct LastClick(&'static str);

impl Default for LastClick {
    fn default() -> Self {
        Self("click a street to build a tower")
    }
}

/// The corner of a tower's square near `clicked`: the square centred on it, else the nearest
/// one within a few cells that lies wholly on open street and that `taken` (creeps, spawns,
/// the base) leaves free; why there is none otherwise.
fn tower_corner_near(
    nav: &NavGrid,
    clicked: Cell,
    taken: impl Fn(Cell, Cell) -> bool,
) -> Result<Cell, &'static str> {
    const REACH: i32 = 3;
    let half = (TOWER / 2) as i32;
    let open = |corner: Cell, far: Cell| {
        (corner.y..=far.y)
            .all(|y| (corner.x..=far.x).all(|x| nav.grid().is_walkable(Cell::new(x, y))))
    };
    let mut offsets: Vec<(i32, i32)> = (-REACH..=REACH)
        .flat_map(|dy| (-REACH..=REACH).map(move |dx| (dx, dy)))
        .collect();
    offsets.sort_by_key(|&(dx, dy)| dx * dx + dy * dy);
    let mut reason = "no open street there to build on";
    for (dx, dy) in offsets {
        let Some(corner) = clicked.offset(dx - half, dy - half) else {
            continue;
        };
        let far = Cell::new(corner.x + TOWER - 1, corner.y + TOWER - 1);
        if far.x >= SIDE || far.y >= SIDE || !open(corner, far) {
            continue;
        }
        if taken(corner, far) {
            reason = "a creep, a spawn or the base stands there";
            continue;
        }
        return Ok(corner);
    }
    Err(reason)
}

/// Arrows or WASD pan, the wheel zooms, `Z` shows the whole map.
fn steer_camera(
    keys: Res<ButtonInput<KeyCode>>,
    scroll: Res<AccumulatedMouseScroll>,
    time: Res<Time>,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(orthographic) = &mut *projection else {
        return;
    };
    if keys.just_pressed(KeyCode::KeyZ) {
        orthographic.scale = SIDE as f32 / 760.0;
        transform.translation = Vec3::new(SIDE as f32 / 2.0, SIDE as f32 / 2.0, 10.0);
    }
    if scroll.delta.y != 0.0 {
        let zoom = 1.15f32.powf(-scroll.delta.y.clamp(-10.0, 10.0));
        orthographic.scale = (orthographic.scale * zoom).clamp(0.05, 8.0);
    }
    let pairs = [
        (KeyCode::ArrowLeft, KeyCode::KeyA, Vec2::NEG_X),
        (KeyCode::ArrowRight, KeyCode::KeyD, Vec2::X),
        (KeyCode::ArrowUp, KeyCode::KeyW, Vec2::Y),
        (KeyCode::ArrowDown, KeyCode::KeyS, Vec2::NEG_Y),
    ];
    let direction: Vec2 = pairs
        .iter()
        .filter(|(arrow, letter, _)| keys.pressed(*arrow) || keys.pressed(*letter))
        .map(|(_, _, direction)| *direction)
        .sum();
    // Half a screen a second, whatever the zoom.
    let speed = 640.0 * orthographic.scale;
    transform.translation += (direction * speed * time.delta_secs()).extend(0.0);
}

/// `G` draws the sectors of the hierarchy (built, waiting) and their entrances.
fn toggle_sectors(keys: Res<ButtonInput<KeyCode>>, mut store: ResMut<GizmoConfigStore>) {
    if keys.just_pressed(KeyCode::KeyG) {
        let (_, overlay) = store.config_mut::<PathfindingGizmos>();
        overlay.draw_sectors = !overlay.draw_sectors;
    }
}

/// The HUD: creeps walking, and which search served their paths.
fn show_status(
    mut contexts: EguiContexts,
    creeps: Query<&Path, With<Creep>>,
    stats: Res<PathfindingStats>,
    time: Res<Time>,
    last_click: Res<LastClick>,
) -> Result {
    let (mut hierarchical, mut batched, mut other, mut waiting) = (0, 0, 0, 0);
    for path in &creeps {
        // Not `cells()`: a creep on the base's sector routes would walk its whole route.
        match (!path.is_found(), path.algorithm) {
            (true, _) => waiting += 1,
            (false, PathAlgorithm::Hierarchical) => hierarchical += 1,
            // While the sectors build, creeps asking together share a search from the base.
            (false, PathAlgorithm::FlowField) => batched += 1,
            (false, _) => other += 1,
        }
    }
    let fps = 1.0 / time.delta_secs().max(1e-6);
    egui::Window::new("Huge map")
        .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
        .resizable(false)
        .collapsible(false)
        .show(contexts.ctx_mut()?, |ui| {
            ui.label(format!(
                "4096 x 4096 cells, {} creeps, {fps:.0} fps",
                creeps.iter().count()
            ));
            let built = stats.hierarchy_sectors - stats.hierarchy_sectors_waiting;
            ui.label(format!(
                "sector hierarchy: {built} of {} sectors built",
                stats.hierarchy_sectors
            ));
            ui.label(format!(
                "paths: {hierarchical} hierarchical; while the sectors build, {batched} shared \
                 and {other} A*; {waiting} waiting"
            ));
            ui.label(format!(
                "hierarchical paths read off the base's sector field: {} batches",
                stats.sector_field_batches
            ));
            ui.label(format!("last click: {}", last_click.0));
            ui.label("arrows/WASD pan, wheel zooms, Z whole map, G sectors, click: tower");
        });
    Ok(())
}
