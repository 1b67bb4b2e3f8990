//! The battlefield: a generated layout of grass, rock walls, the spawn and the goal, drawn as a
//! `bevy_ecs_tilemap` tilemap (which `bevy_astar` turns into its `NavGrid`), the camera that fits
//! it between the two windows.

use crate::profile::timed;
use crate::routes::{WALKER_SIZES, creep_movement, goal_anchor, spawn_anchor};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_astar::astar_grid::agent::moving_ai::{GROUND, TREES};
use bevy_astar::astar_grid::{AgentGrid, Components};
use bevy_astar::prelude::*;
use bevy_astar::tilemap::{NavTilemap, cell_to_tile_pos};
use bevy_astar_examples::tile_sheet::tile_sheet_image;
use bevy_ecs_tilemap::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Columns of the map.
pub(crate) const MAP_WIDTH: u32 = 32;
/// Rows of the map.
pub(crate) const MAP_HEIGHT: u32 = 24;
/// Side of a tile in world units (pixels at zoom 1).
pub(crate) const TILE: f32 = 24.0;
/// Where the creeps come from.
pub(crate) const SPAWN: Cell = Cell::new(0, 12);
/// Where they go.
pub(crate) const GOAL: Cell = Cell::new(MAP_WIDTH - 1, 11);
/// Screen width kept free for the game window on the left.
pub(crate) const LEFT_RESERVE: f32 = 262.0;
/// Screen width kept free for the pathfinding window on the right.
pub(crate) const RIGHT_RESERVE: f32 = 268.0;
/// Seed of the layout: the same map every run, so scripted runs click the same tiles.
const LAYOUT_SEED: u64 = 5;

pub(crate) fn plugin(app: &mut App) {
    app.insert_resource(Layout::generate(LAYOUT_SEED))
        .add_systems(Startup, (spawn_camera, spawn_tilemap))
        .add_systems(
            PostUpdate,
            timed("fit_camera", fit_camera).before(TransformSystems::Propagate),
        );
}

/// What a tile is; its texture index in the generated tile sheet is its position here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Terrain {
    Grass,
    Meadow,
    Rock,
    Tower,
    Spawn,
    Goal,
}

impl Terrain {
    const ALL: [Self; 6] = [
        Self::Grass,
        Self::Meadow,
        Self::Rock,
        Self::Tower,
        Self::Spawn,
        Self::Goal,
    ];

    pub(crate) const fn texture(self) -> TileTextureIndex {
        TileTextureIndex(self as u32)
    }

    pub(crate) fn from_texture(texture: Option<TileTextureIndex>) -> Option<Self> {
        texture.and_then(|index| Self::ALL.get(index.0 as usize).copied())
    }

    /// The tile's terrain value in the navigation grid: rock and towers are trees
    /// ([`TREES`]), which walking creeps cannot enter and flying ones fly over; the rest is
    /// plain ground. Creeps read these values through their terrain profile, never as costs.
    pub(crate) const fn nav_value(self) -> u8 {
        match self {
            Self::Rock | Self::Tower => TREES,
            Self::Grass | Self::Meadow | Self::Spawn | Self::Goal => GROUND,
        }
    }

    /// Whether walking creeps may enter the tile.
    pub(crate) const fn is_walkable(self) -> bool {
        match self {
            Self::Rock | Self::Tower => false,
            Self::Grass | Self::Meadow | Self::Spawn | Self::Goal => true,
        }
    }

    /// What a tower may not be built on, as the refusal says it.
    pub(crate) const fn unbuildable_reason(self) -> Option<&'static str> {
        match self {
            Self::Grass | Self::Meadow => None,
            Self::Rock => Some("rock: nothing can be built there"),
            Self::Tower => Some("there is a tower there already"),
            Self::Spawn => Some("that is the creeps' spawn"),
            Self::Goal => Some("that is the goal"),
        }
    }
}

/// The map as generated, without towers.
#[derive(Resource, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    terrain: Vec<Terrain>,
}

impl Layout {
    /// Three rock walls with gaps, boulders scattered by `seed`, the spawn on the left edge and
    /// the goal on the right edge; boulders that would cut the spawn off from the goal, for
    /// walkers of any size, are left out.
    pub(crate) fn generate(seed: u64) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut layout = Self::walls(&mut rng);
        for _ in 0..40 {
            let cell = Cell::new(
                rng.random_range(0..MAP_WIDTH),
                rng.random_range(0..MAP_HEIGHT),
            );
            let near_end = |end: Cell| cell.x.abs_diff(end.x) <= 2 && cell.y.abs_diff(end.y) <= 2;
            if !layout.get(cell).is_walkable() || near_end(SPAWN) || near_end(GOAL) {
                continue;
            }
            let previous = layout.get(cell);
            layout.set(cell, Terrain::Rock);
            if !layout.joins_spawn_and_goal() {
                layout.set(cell, previous);
            }
        }
        layout
    }

    /// Grass and meadow drawn by `rng`, the three walls, the spawn and the goal.
    fn walls(rng: &mut StdRng) -> Self {
        let mut layout = Self {
            terrain: (0..MAP_WIDTH * MAP_HEIGHT)
                .map(|_| {
                    if rng.random_bool(0.25) {
                        Terrain::Meadow
                    } else {
                        Terrain::Grass
                    }
                })
                .collect(),
        };
        for (cell, _) in layout.clone().cells() {
            if is_wall(cell) {
                layout.set(cell, Terrain::Rock);
            }
        }
        layout.set(SPAWN, Terrain::Spawn);
        layout.set(GOAL, Terrain::Goal);
        layout
    }

    /// The layout of `seed` with its boulders taken away: the walls alone.
    #[cfg(test)]
    pub(crate) fn without_boulders(seed: u64) -> Self {
        let mut layout = Self::generate(seed);
        for (cell, terrain) in layout.clone().cells() {
            if terrain == Terrain::Rock && !is_wall(cell) {
                layout.set(cell, Terrain::Grass);
            }
        }
        layout
    }

    /// Whether walkers of every size get from the spawn to the goal, by the core's connected
    /// components on each size's derived grid.
    fn joins_spawn_and_goal(&self) -> bool {
        let terrain = self.nav_grid();
        let walker = TerrainProfile::walker();
        WALKER_SIZES.into_iter().all(|size| {
            AgentGrid::new(&terrain, &walker, size).is_ok_and(|seen| {
                Components::new(seen.grid(), creep_movement())
                    .same_component(spawn_anchor(size), goal_anchor(size))
            })
        })
    }

    /// The terrain values of the layout, as the tilemap gives them to the plugin.
    pub(crate) fn nav_grid(&self) -> Grid {
        Grid::from_fn(MAP_WIDTH, MAP_HEIGHT, |cell| self.get(cell).nav_value())
    }

    pub(crate) fn get(&self, cell: Cell) -> Terrain {
        self.terrain[(cell.y * MAP_WIDTH + cell.x) as usize]
    }

    fn set(&mut self, cell: Cell, terrain: Terrain) {
        self.terrain[(cell.y * MAP_WIDTH + cell.x) as usize] = terrain;
    }

    fn cells(&self) -> impl Iterator<Item = (Cell, Terrain)> + '_ {
        (0..MAP_HEIGHT).flat_map(move |y| {
            (0..MAP_WIDTH).map(move |x| {
                let cell = Cell::new(x, y);
                (cell, self.get(cell))
            })
        })
    }
}

/// The three walls: at x = 8 with a gap in rows 9 to 14, at x = 16 open above row 5 and below
/// row 18, at x = 24 with a gap in rows 8 to 13.
fn is_wall(cell: Cell) -> bool {
    match cell.x {
        8 => !(9..=14).contains(&cell.y),
        16 => (5..=18).contains(&cell.y),
        24 => !(8..=13).contains(&cell.y),
        _ => false,
    }
}

/// The tilemap entity and the generated tile sheet.
#[derive(Resource, Clone, Debug)]
pub(crate) struct Battlefield {
    pub(crate) tilemap: Entity,
}

fn spawn_camera(mut commands: Commands) {
    commands.spawn(Camera2d);
}

fn spawn_tilemap(mut commands: Commands, mut images: ResMut<Assets<Image>>, layout: Res<Layout>) {
    let texture = images.add(tile_sheet());
    let size = TilemapSize {
        x: MAP_WIDTH,
        y: MAP_HEIGHT,
    };
    let tilemap = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for (cell, terrain) in layout.cells() {
        let position = cell_to_tile_pos(cell);
        let tile = commands
            .spawn(TileBundle {
                position,
                tilemap_id: TilemapId(tilemap),
                texture_index: terrain.texture(),
                ..default()
            })
            .id();
        storage.set(&position, tile);
    }
    let tile_size = TilemapTileSize { x: TILE, y: TILE };
    commands.entity(tilemap).insert((
        TilemapBundle {
            grid_size: tile_size.into(),
            map_type: TilemapType::Square,
            size,
            storage,
            texture: TilemapTexture::Single(texture),
            tile_size,
            anchor: TilemapAnchor::Center,
            ..default()
        },
        // `bevy_astar` builds its `NavGrid` from this tilemap and follows its tile changes.
        NavTilemap,
    ));
    commands.insert_resource(Battlefield { tilemap });
}

/// A horizontal strip of one 24 x 24 tile per [`Terrain`], painted in code.
fn tile_sheet() -> Image {
    let side = TILE as u32;
    let width = side * Terrain::ALL.len() as u32;
    let mut data = Vec::with_capacity((width * side * 4) as usize);
    for y in 0..side {
        for x in 0..width {
            let terrain = Terrain::ALL[(x / side) as usize];
            let [r, g, b] = tile_pixel(terrain, x % side, y);
            data.extend([r, g, b, 255]);
        }
    }
    tile_sheet_image(width, side, data)
}

/// A cheap, repeatable per-pixel noise in 0..1.
fn noise(x: u32, y: u32, salt: u32) -> f32 {
    let mut h = x
        .wrapping_mul(374_761_393)
        .wrapping_add(y.wrapping_mul(668_265_263))
        .wrapping_add(salt.wrapping_mul(2_246_822_519));
    h = (h ^ (h >> 13)).wrapping_mul(1_274_126_177);
    (h ^ (h >> 16)) as f32 / u32::MAX as f32
}

fn tile_pixel(terrain: Terrain, x: u32, y: u32) -> [u8; 3] {
    let n = noise(x, y, terrain as u32);
    let side = TILE as u32;
    let edge = x.min(y).min(side - 1 - x).min(side - 1 - y);
    let centre = Vec2::new(x as f32 + 0.5, y as f32 + 0.5) - Vec2::splat(TILE / 2.0);
    let rgb = match terrain {
        Terrain::Grass => Vec3::new(0.20, 0.34, 0.16) * (0.88 + 0.2 * n),
        Terrain::Meadow => {
            if n > 0.93 {
                Vec3::new(0.75, 0.7, 0.35)
            } else {
                Vec3::new(0.22, 0.37, 0.17) * (0.9 + 0.2 * n)
            }
        }
        Terrain::Rock => {
            let shade = if edge < 2 { 0.7 } else { 1.0 };
            Vec3::new(0.42, 0.40, 0.38) * shade * (0.85 + 0.25 * n)
        }
        Terrain::Tower => {
            let shade = if edge < 2 { 0.65 } else { 1.0 };
            Vec3::new(0.50, 0.46, 0.38) * shade * (0.92 + 0.12 * n)
        }
        Terrain::Spawn | Terrain::Goal => {
            let ring = (centre.length() / (TILE / 2.0)).min(1.0);
            let base = if terrain == Terrain::Spawn {
                Vec3::new(0.55, 0.12, 0.16)
            } else {
                Vec3::new(0.16, 0.40, 0.70)
            };
            base * (1.3 - 0.7 * ring) * (0.95 + 0.1 * n)
        }
    };
    let byte = |value: f32| (value.clamp(0.0, 1.0) * 255.0) as u8;
    [byte(rgb.x), byte(rgb.y), byte(rgb.z)]
}

/// Zooms and moves the camera so that the whole map sits between the two windows.
fn fit_camera(
    window: Single<&Window, (With<PrimaryWindow>, Changed<Window>)>,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    let size = window.size();
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(orthographic) = &mut *projection else {
        return;
    };
    let free = Vec2::new(size.x - LEFT_RESERVE - RIGHT_RESERVE, size.y - 16.0).max(Vec2::ONE);
    let map = Vec2::new(MAP_WIDTH as f32, MAP_HEIGHT as f32) * TILE;
    let scale = (map / free).max_element();
    orthographic.scale = scale;
    let free_centre = LEFT_RESERVE + free.x / 2.0;
    transform.translation.x = -(free_centre - size.x / 2.0) * scale;
    transform.translation.y = 0.0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_map_has_its_spawn_and_goal_and_walls() {
        for seed in 0..20 {
            let layout = Layout::generate(seed);
            assert_eq!(layout.get(SPAWN), Terrain::Spawn);
            assert_eq!(layout.get(GOAL), Terrain::Goal);
            assert!(layout.joins_spawn_and_goal(), "seed {seed}");
            for (cell, terrain) in layout.cells() {
                if is_wall(cell) {
                    assert_eq!(terrain, Terrain::Rock, "seed {seed}, {cell}");
                }
            }
        }
    }

    #[test]
    fn rock_and_towers_are_trees_and_the_rest_ground() {
        for terrain in Terrain::ALL {
            let walker = TerrainProfile::walker().cost(terrain.nav_value());
            let flyer = TerrainProfile::flyer().cost(terrain.nav_value());
            assert_eq!(walker.is_some(), terrain.is_walkable(), "{terrain:?}");
            assert_eq!(flyer, Some(1), "{terrain:?}");
        }
    }

    #[test]
    fn textures_round_trip() {
        for terrain in Terrain::ALL {
            assert_eq!(
                Terrain::from_texture(Some(terrain.texture())),
                Some(terrain)
            );
        }
        assert_eq!(Terrain::from_texture(Some(TileTextureIndex(99))), None);
        assert_eq!(Terrain::from_texture(None), None);
    }
}
