//! A hexagonal strategy map: a `bevy_ecs_tilemap` hex tilemap of grass, hills, forest, water
//! and rock, and two kinds of unit that read it differently. Infantry crosses forest cheaply;
//! cavalry is quick on open ground but pays dearly for forest and hills. Neither swims.
//!
//! - Left click a unit to select it, then left click a hex to send it there.
//! - Right click a hex to raise a rock on it (or clear one): units whose paths it cuts go round.
//!
//! The tilemap is the only map: `bevy_astar`'s tilemap sync reads its hexagonal layout and tile
//! costs and builds the hexagonal navigation grid, and every request on it searches the six
//! neighbours of each hex. The selected unit's last search is drawn (closed hexes blue, open
//! green, path gold).
//!
//! `cargo run --release --example hex_strategy`

use bevy::prelude::*;
use bevy_astar::prelude::*;
use bevy_astar::tilemap::{NavTileCost, NavTilemap, cell_to_tile};
use bevy_astar_examples::scripted_input::ScriptedInputPlugin;
use bevy_astar_examples::tile_sheet::tile_sheet_image;
use bevy_ecs_tilemap::prelude::*;

/// Tile columns and rows.
const COLUMNS: u32 = 26;
const ROWS: u32 = 17;
/// A pointy-topped hex's width and height in pixels (near the regular ratio, sqrt(3) / 2).
const HEX_WIDTH: f32 = 40.0;
const HEX_HEIGHT: f32 = 46.0;

/// The terrains, in the order of their tiles in the tile sheet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Terrain {
    Grass,
    Hills,
    Forest,
    Water,
    Rock,
}

impl Terrain {
    const ALL: [Self; 5] = [
        Self::Grass,
        Self::Hills,
        Self::Forest,
        Self::Water,
        Self::Rock,
    ];

    /// The terrain value the navigation grid holds: 0 blocks, the rest are read through each
    /// unit kind's profile.
    const fn value(self) -> u8 {
        match self {
            Self::Grass => 1,
            Self::Hills => 2,
            Self::Forest => 3,
            Self::Water => 9,
            Self::Rock => 0,
        }
    }

    const fn color(self) -> [u8; 3] {
        match self {
            Self::Grass => [96, 148, 72],
            Self::Hills => [150, 128, 84],
            Self::Forest => [38, 92, 52],
            Self::Water => [52, 98, 160],
            Self::Rock => [86, 84, 90],
        }
    }

    fn texture(self) -> TileTextureIndex {
        TileTextureIndex(Self::ALL.iter().position(|&t| t == self).unwrap_or(0) as u32)
    }

    /// The terrain of a tile, from repeatable noise: a river down the middle with two fords,
    /// forests and hills in patches.
    fn of(tile: TilePos) -> Self {
        let (x, y) = (tile.x as f32, tile.y as f32);
        let river = 12.5 + 2.0 * (y * 0.45).sin();
        if (x - river).abs() < 0.9 && tile.y != 3 && tile.y != 13 {
            return Self::Water;
        }
        let patch = (x * 0.7).sin() + (y * 0.9 + x * 0.3).cos();
        if patch > 1.3 {
            Self::Forest
        } else if patch < -1.35 {
            Self::Hills
        } else {
            Self::Grass
        }
    }
}

/// The two kinds of unit.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Infantry,
    Cavalry,
}

impl Kind {
    const fn speed(self) -> f32 {
        match self {
            Self::Infantry => 90.0,
            Self::Cavalry => 170.0,
        }
    }

    const fn color(self) -> Color {
        match self {
            Self::Infantry => Color::srgb(0.85, 0.88, 0.95),
            Self::Cavalry => Color::srgb(0.95, 0.62, 0.22),
        }
    }

    /// What each terrain costs the kind; neither enters water.
    fn profile(self) -> TerrainProfile {
        let profile = TerrainProfile::identity().with_impassable(Terrain::Water.value());
        match self {
            Self::Infantry => profile.with_cost(Terrain::Forest.value(), 2),
            Self::Cavalry => profile
                .with_cost(Terrain::Forest.value(), 6)
                .with_cost(Terrain::Hills.value(), 4),
        }
    }

    const fn name(self) -> &'static str {
        match self {
            Self::Infantry => "infantry",
            Self::Cavalry => "cavalry",
        }
    }
}

/// The unit the next left click on open ground sends.
#[derive(Resource, Default)]
struct Selected(Option<Entity>);

/// The tilemap entity.
#[derive(Resource)]
struct Board(Entity);

/// The line of text at the top.
#[derive(Component)]
struct StatusLine;

fn main() {
    App::new()
        .add_plugins((
            DefaultPlugins,
            PathfindingPlugins,
            TilemapPlugin,
            ScriptedInputPlugin,
        ))
        .init_resource::<Selected>()
        .add_systems(Startup, setup)
        .add_systems(Update, (click, mark_selected, show_status).chain())
        .run();
}

fn setup(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut profiles: ResMut<TerrainProfiles>,
) {
    commands.spawn(Camera2d);
    let texture = images.add(tile_sheet());
    let size = TilemapSize {
        x: COLUMNS,
        y: ROWS,
    };
    let tilemap = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..ROWS {
        for x in 0..COLUMNS {
            let position = TilePos { x, y };
            let terrain = Terrain::of(position);
            let tile = commands
                .spawn((
                    TileBundle {
                        position,
                        tilemap_id: TilemapId(tilemap),
                        texture_index: terrain.texture(),
                        ..default()
                    },
                    NavTileCost(terrain.value()),
                ))
                .id();
            storage.set(&position, tile);
        }
    }
    let tile_size = TilemapTileSize {
        x: HEX_WIDTH,
        y: HEX_HEIGHT,
    };
    commands.entity(tilemap).insert((
        TilemapBundle {
            grid_size: tile_size.into(),
            map_type: TilemapType::Hexagon(HexCoordSystem::RowOdd),
            size,
            storage,
            texture: TilemapTexture::Single(texture),
            tile_size,
            anchor: TilemapAnchor::Center,
            ..default()
        },
        // `bevy_astar` builds its hexagonal `NavGrid` from this tilemap and follows its tiles.
        NavTilemap,
    ));
    commands.insert_resource(Board(tilemap));

    let circle = meshes.add(Circle::new(HEX_WIDTH * 0.3));
    let units = [
        (Kind::Infantry, TilePos { x: 2, y: 3 }),
        (Kind::Infantry, TilePos { x: 3, y: 8 }),
        (Kind::Cavalry, TilePos { x: 2, y: 12 }),
        (Kind::Cavalry, TilePos { x: 5, y: 14 }),
    ];
    let map_type = TilemapType::Hexagon(HexCoordSystem::RowOdd);
    let [infantry, cavalry] = [Kind::Infantry, Kind::Cavalry].map(|kind| {
        profiles
            .add(kind.name(), kind.profile())
            .unwrap_or(ProfileId::DEFAULT)
    });
    for (kind, tile) in units {
        let profile = match kind {
            Kind::Infantry => infantry,
            Kind::Cavalry => cavalry,
        };
        let position = tile.center_in_world(
            &size,
            &tile_size.into(),
            &tile_size,
            &map_type,
            &TilemapAnchor::Center,
        );
        commands.spawn((
            kind,
            UnitProfile(profile),
            PathFollower::new(kind.speed()),
            Mesh2d(circle.clone()),
            MeshMaterial2d(materials.add(kind.color())),
            Transform::from_translation(position.extend(2.0)),
        ));
    }
    // Above the map: the map is 26 hexes wide and 17 rows of 3/4 of a hex high.
    let top = (ROWS as f32 * 0.75 + 0.5) * HEX_HEIGHT / 2.0;
    commands.spawn((
        StatusLine,
        Text2d::default(),
        TextFont::from_font_size(16.0),
        Transform::from_xyz(0.0, top + 14.0, 3.0),
    ));
}

/// The terrain profile a unit's requests name.
#[derive(Component, Clone, Copy)]
struct UnitProfile(ProfileId);

/// The hex under the cursor, if the cursor is over the map.
fn cursor_cell(
    windows: &Query<&Window>,
    cameras: &Query<(&Camera, &GlobalTransform)>,
    nav: &NavGrid,
) -> Option<Cell> {
    let cursor = windows.iter().find_map(Window::cursor_position)?;
    let (camera, camera_transform) = cameras.iter().next()?;
    let world = camera.viewport_to_world_2d(camera_transform, cursor).ok()?;
    nav.world_to_cell(world)
}

/// The units: each with where it stands and its profile.
type Units<'w, 's> = Query<'w, 's, (Entity, &'static Transform, &'static UnitProfile)>;

/// Left click: select the unit on the hex clicked, or send the selected unit there. Right
/// click: raise a rock on the hex, or clear one back to grass.
fn click(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    (nav, board): (Option<Res<NavGrid>>, Option<Res<Board>>),
    (windows, cameras): (Query<&Window>, Query<(&Camera, &GlobalTransform)>),
    (mut selected, units): (ResMut<Selected>, Units),
    (mut tiles, storages): (
        Query<(&mut NavTileCost, &mut TileTextureIndex)>,
        Query<&TileStorage>,
    ),
) {
    let (Some(nav), Some(board)) = (nav, board) else {
        return;
    };
    let left = buttons.just_pressed(MouseButton::Left);
    let right = buttons.just_pressed(MouseButton::Right);
    let Some(cell) = (left || right)
        .then(|| cursor_cell(&windows, &cameras, &nav))
        .flatten()
    else {
        return;
    };
    if right {
        let tile = cell_to_tile(&nav, cell);
        let storage = storages.get(board.0).ok();
        let entity = tile.and_then(|tile| storage?.get(&tile));
        if let Some((cost, texture)) = entity.and_then(|entity| tiles.get_mut(entity).ok()) {
            raise_or_clear(cost, texture);
        }
        return;
    }
    let on_cell = |transform: &Transform| nav.world_to_cell(transform.translation.truncate());
    if let Some((unit, ..)) = units
        .iter()
        .find(|(_, transform, _)| on_cell(transform) == Some(cell))
    {
        selected.0 = Some(unit);
        return;
    }
    let chosen = selected.0.and_then(|unit| units.get(unit).ok());
    let Some((unit, start, profile)) =
        chosen.and_then(|(unit, transform, profile)| Some((unit, on_cell(transform)?, profile)))
    else {
        return;
    };
    let mut request = PathRequest::new(start, cell).with_smoothing(true);
    request.profile = profile.0;
    // Each search starts where the unit has got to: a path a rock cuts is searched again from
    // there.
    request.start_at_agent = true;
    commands.entity(unit).insert(request);
}

/// Raises a rock on a tile, or clears a rock back to grass: the tilemap sync turns the cost
/// into a map edit, and the paths it cuts are searched again.
fn raise_or_clear(mut cost: Mut<NavTileCost>, mut texture: Mut<TileTextureIndex>) {
    let terrain = if cost.0 == Terrain::Rock.value() {
        Terrain::Grass
    } else {
        Terrain::Rock
    };
    *cost = NavTileCost(terrain.value());
    *texture = terrain.texture();
}

/// The selected unit's searches are drawn by the debug overlay.
fn mark_selected(
    mut commands: Commands,
    selected: Res<Selected>,
    units: Query<Entity, With<Kind>>,
) {
    if !selected.is_changed() {
        return;
    }
    for unit in &units {
        if Some(unit) == selected.0 {
            commands.entity(unit).insert(PathDebug);
        } else {
            commands.entity(unit).remove::<PathDebug>();
        }
    }
}

fn show_status(
    selected: Res<Selected>,
    units: Query<(&Kind, Option<&Path>)>,
    mut line: Query<&mut Text2d, With<StatusLine>>,
) {
    let Ok(mut text) = line.single_mut() else {
        return;
    };
    let unit = selected.0.and_then(|unit| units.get(unit).ok());
    let status = match unit {
        None => "Left click a unit to select it (infantry white, cavalry orange).".to_owned(),
        Some((kind, path)) => {
            let route = path.map_or_else(|| "left click a hex to send it".to_owned(), route_line);
            format!("Selected: {}, {route}.", kind.name())
        }
    };
    text.0 = format!("{status}  Right click: raise or clear a rock.");
}

/// What the status line says of a unit's path.
fn route_line(path: &Path) -> String {
    match &path.status {
        PathStatus::Found => format!(
            "path cost {:.0} over {} hexes",
            path.cost(),
            path.cells().len().saturating_sub(1)
        ),
        PathStatus::NoPath => "no way there".to_owned(),
        PathStatus::Invalid(error) => format!("cannot go there: {error}"),
        PathStatus::InvalidKind(error) => format!("cannot go there: {error}"),
        PathStatus::LimitReached(limit) => format!("search stopped: {limit:?}"),
        _ => "searching".to_owned(),
    }
}

/// A strip of pointy-topped hexagons, one per [`Terrain`], painted in code (transparent outside
/// each hexagon).
fn tile_sheet() -> Image {
    let (width, height) = (HEX_WIDTH as u32, HEX_HEIGHT as u32);
    let sheet_width = width * Terrain::ALL.len() as u32;
    let mut data = Vec::with_capacity((sheet_width * height * 4) as usize);
    for y in 0..height {
        for x in 0..sheet_width {
            let terrain = Terrain::ALL[(x / width) as usize];
            // The pixel's centre, in units of the hexagon's half width and half height.
            let u = ((x % width) as f32 + 0.5) / (width as f32 / 2.0) - 1.0;
            let v = (y as f32 + 0.5) / (height as f32 / 2.0) - 1.0;
            let inside = u.abs() <= 1.0 && v.abs() + u.abs() / 2.0 <= 1.0;
            let edge = u.abs() > 0.9 || v.abs() + u.abs() / 2.0 > 0.92;
            let [r, g, b] = terrain.color();
            let shade = |channel: u8| if edge { channel / 2 } else { channel };
            let alpha = if inside { 255 } else { 0 };
            data.extend([shade(r), shade(g), shade(b), alpha]);
        }
    }
    tile_sheet_image(sheet_width, height, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The river leaves two fords, so both banks are joined for every unit.
    #[test]
    fn the_river_has_two_fords() {
        let fords: Vec<u32> = (0..ROWS)
            .filter(|&y| (0..COLUMNS).all(|x| Terrain::of(TilePos { x, y }) != Terrain::Water))
            .collect();
        assert_eq!(fords, [3, 13]);
    }

    #[test]
    fn neither_kind_swims_and_cavalry_avoids_forest() {
        for kind in [Kind::Infantry, Kind::Cavalry] {
            assert_eq!(kind.profile().cost(Terrain::Water.value()), None);
        }
        let forest = Terrain::Forest.value();
        assert!(Kind::Cavalry.profile().cost(forest) > Kind::Infantry.profile().cost(forest));
    }

    /// A tile's texture names its terrain in the sheet's order.
    #[test]
    fn textures_follow_the_sheet() {
        for (index, terrain) in Terrain::ALL.into_iter().enumerate() {
            assert_eq!(terrain.texture(), TileTextureIndex(index as u32));
        }
    }
}
