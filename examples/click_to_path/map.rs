//! The map being searched: Moving AI maps from `assets/maps/`, a file given on the command line,
//! or one generated with `rand`; random obstacles scattered over it and cleared again.

use crate::VisualiserSystems;
use crate::endpoints::Endpoints;
use bevy::prelude::*;
use bevy_astar::astar_grid::agent::moving_ai::{GROUND, SWAMP, TREES, WATER};
use bevy_astar::astar_grid::{Legend, parse_map_with};
use bevy_astar::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::path::PathBuf;

/// World size of one cell. Rows grow downwards on screen (negative Y cell size) so that maps
/// look as in their files, first row on top.
pub const CELL_SIZE: f32 = 16.0;

pub(crate) fn plugin(app: &mut App) {
    app.add_message::<MapAction>()
        .init_resource::<ObstacleSettings>()
        .insert_resource(MapRng(StdRng::from_rng(&mut rand::rng())))
        .add_systems(Update, apply_map_actions.in_set(VisualiserSystems::Edit));
}

/// Where a map comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapSource {
    /// `assets/maps/dao/arena.map`, 49 x 49, from the Moving AI benchmarks (Dragon Age: Origins).
    Arena,
    /// `assets/maps/dao/den312d.map`, 65 x 81, from the same set.
    Den312d,
    /// An empty field.
    OpenField,
    /// A maze carved by a random depth-first walk, with a few extra openings.
    Maze,
    /// Caves grown by a cellular automaton; some pockets are cut off.
    Caves,
    /// A marsh: a river across the map through a lake, crossed by one ford, swamp around
    /// the shore, clumps of trees; each agent kind takes its own way across.
    Marsh,
    /// A Moving AI `.map` file.
    File(PathBuf),
}

impl MapSource {
    /// The built-in and generated maps, in menu order.
    pub const MENU: [Self; 6] = [
        Self::Arena,
        Self::Den312d,
        Self::OpenField,
        Self::Maze,
        Self::Caves,
        Self::Marsh,
    ];

    /// The name shown in the panel.
    pub fn label(&self) -> String {
        match self {
            Self::Arena => "arena (Moving AI)".to_owned(),
            Self::Den312d => "den312d (Moving AI)".to_owned(),
            Self::OpenField => "open field (64 x 48)".to_owned(),
            Self::Maze => "random maze (63 x 47)".to_owned(),
            Self::Caves => "random caves (80 x 60)".to_owned(),
            Self::Marsh => "random marsh (72 x 48)".to_owned(),
            Self::File(path) => path.display().to_string(),
        }
    }

    /// Reads or generates the grid.
    fn build(&self, rng: &mut StdRng) -> Result<Grid, String> {
        match self {
            Self::Arena => parse(include_str!("../../assets/maps/dao/arena.map")),
            Self::Den312d => parse(include_str!("../../assets/maps/dao/den312d.map")),
            Self::OpenField => Ok(Grid::new(64, 48)),
            Self::Maze => Ok(maze(63, 47, rng)),
            Self::Caves => Ok(caves(80, 60, rng)),
            Self::Marsh => Ok(marsh(72, 48, rng)),
            Self::File(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
                parse(&text).map_err(|error| format!("{}: {error}", path.display()))
            }
        }
    }
}

/// Reads a Moving AI map keeping swamp, water, trees and out-of-map cells apart, for the agent
/// kinds of [`crate::terrain`].
fn parse(text: &str) -> Result<Grid, String> {
    parse_map_with(text, &Legend::moving_ai_kinds()).map_err(|error| error.to_string())
}

/// The map as loaded, before any scattered or painted walls.
#[derive(Resource, Clone, Debug)]
pub struct LoadedMap {
    /// Where it came from.
    pub source: MapSource,
    /// Its cells as loaded.
    pub base: Grid,
    /// Why the last load failed, shown in the panel until the next load.
    pub error: Option<String>,
}

/// The obstacle density chosen in the panel.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct ObstacleSettings {
    /// Fraction of the free cells to block, 0 to 1.
    pub density: f32,
}

impl Default for ObstacleSettings {
    fn default() -> Self {
        Self { density: 0.2 }
    }
}

/// The random source of generated maps and scattered obstacles; a scripted run seeds it.
#[derive(Resource)]
pub struct MapRng(pub StdRng);

/// What the map panel (or a scripted run) asks for.
#[derive(Message, Clone, Debug, PartialEq)]
pub enum MapAction {
    /// Load or generate a map; the start and goal are cleared.
    Load(MapSource),
    /// Block this fraction of the free cells at random (never the start or goal).
    Scatter {
        /// Fraction of the free cells, 0 to 1.
        density: f32,
    },
    /// Put the map back as loaded: scattered and painted walls go.
    ClearObstacles,
}

/// Builds the navigation grid for a map: cell (0, 0) at the top left, centred on the origin.
pub fn nav_grid_for(grid: Grid) -> NavGrid {
    let size = Vec2::new(grid.width() as f32, grid.height() as f32) * CELL_SIZE;
    NavGrid::new(grid)
        .with_cell_size(Vec2::new(CELL_SIZE, -CELL_SIZE))
        .with_origin(Vec2::new(-size.x, size.y) / 2.0)
}

/// Loads the first map: the file named on the command line, else arena.
pub fn load_initial_map(mut commands: Commands, mut rng: ResMut<MapRng>) {
    let source = std::env::args()
        .nth(1)
        .map_or(MapSource::Arena, |path| MapSource::File(path.into()));
    let (source, grid, error) = match source.build(&mut rng.0) {
        Ok(grid) => (source, grid, None),
        Err(error) => {
            error!("{error}");
            let arena = MapSource::Arena;
            let grid = arena
                .build(&mut rng.0)
                .unwrap_or_else(|_| Grid::new(64, 48));
            (arena, grid, Some(error))
        }
    };
    commands.insert_resource(nav_grid_for(grid.clone()));
    commands.insert_resource(LoadedMap {
        source,
        base: grid,
        error,
    });
}

fn apply_map_actions(
    mut actions: MessageReader<MapAction>,
    mut nav: ResMut<NavGrid>,
    mut loaded: ResMut<LoadedMap>,
    mut endpoints: ResMut<Endpoints>,
    mut rng: ResMut<MapRng>,
) {
    for action in actions.read() {
        match action {
            MapAction::Load(source) => match source.build(&mut rng.0) {
                Ok(grid) => {
                    *nav = nav_grid_for(grid.clone());
                    *loaded = LoadedMap {
                        source: source.clone(),
                        base: grid,
                        error: None,
                    };
                    *endpoints = Endpoints::default();
                }
                Err(error) => {
                    error!("{error}");
                    loaded.error = Some(error);
                }
            },
            MapAction::Scatter { density } => {
                let density = f64::from(density.clamp(0.0, 1.0));
                let free: Vec<Cell> = nav
                    .grid()
                    .cells()
                    .filter(|&(cell, cost)| cost != 0 && !endpoints.contains(cell))
                    .map(|(cell, _)| cell)
                    .collect();
                for cell in free {
                    if rng.0.random_bool(density) {
                        // In bounds: the cell came from the grid.
                        let _ = nav.block(cell);
                    }
                }
            }
            MapAction::ClearObstacles => {
                nav.replace_grid(loaded.base.clone());
                for cell in endpoints.cells() {
                    let _ = nav.unblock(cell);
                }
            }
        }
    }
}

/// A maze of odd dimensions: corridors on odd cells, carved by a depth-first walk, then a few
/// walls knocked out so that there is more than one way round.
fn maze(width: u32, height: u32, rng: &mut StdRng) -> Grid {
    let mut grid = Grid::from_fn(width, height, |_| 0);
    let mut stack = vec![Cell::new(1, 1)];
    let _ = grid.set_cost(Cell::new(1, 1), 1);
    while let Some(&cell) = stack.last() {
        let mut options: Vec<(Cell, Cell)> = Vec::with_capacity(4);
        for (dx, dy) in [(2i64, 0i64), (-2, 0), (0, 2), (0, -2)] {
            let (x, y) = (i64::from(cell.x) + dx, i64::from(cell.y) + dy);
            if x <= 0 || y <= 0 || x >= i64::from(width) - 1 || y >= i64::from(height) - 1 {
                continue;
            }
            let (x, y) = (x as u32, y as u32);
            let next = Cell::new(x, y);
            if grid.value(next) == 0 {
                let between = Cell::new((cell.x + x) / 2, (cell.y + y) / 2);
                options.push((next, between));
            }
        }
        if options.is_empty() {
            stack.pop();
            continue;
        }
        let (next, between) = options[rng.random_range(0..options.len())];
        let _ = grid.set_cost(between, 1);
        let _ = grid.set_cost(next, 1);
        stack.push(next);
    }
    let openings = width * height / 40;
    for _ in 0..openings {
        let cell = Cell::new(
            rng.random_range(1..width - 1),
            rng.random_range(1..height - 1),
        );
        let _ = grid.set_cost(cell, 1);
    }
    grid
}

/// Caves: 45% random walls smoothed by five rounds of "a cell is a wall when five or more of its
/// nine-cell block are walls"; the border is solid.
fn caves(width: u32, height: u32, rng: &mut StdRng) -> Grid {
    let border =
        |cell: Cell| cell.x == 0 || cell.y == 0 || cell.x == width - 1 || cell.y == height - 1;
    let mut grid = Grid::from_fn(width, height, |cell| {
        u8::from(!(border(cell) || rng.random_bool(0.45)))
    });
    for _ in 0..5 {
        let previous = grid.clone();
        grid = Grid::from_fn(width, height, |cell| {
            if border(cell) {
                return 0;
            }
            let walls = (cell.y - 1..=cell.y + 1)
                .flat_map(|y| (cell.x - 1..=cell.x + 1).map(move |x| Cell::new(x, y)))
                .filter(|&neighbour| previous.value(neighbour) == 0)
                .count();
            u8::from(walls < 5)
        });
    }
    grid
}

/// The columns of a marsh's ford.
fn ford_columns(width: u32) -> core::ops::Range<u32> {
    width * 7 / 10..width * 7 / 10 + 3
}

/// A marsh: a river from the left edge to the right through a lake on the left, crossed by a
/// three-cell ford, a ring of swamp around the lake's shore and clumps of trees on dry ground
/// away from the banks (so that none stands in the ford).
fn marsh(width: u32, height: u32, rng: &mut StdRng) -> Grid {
    let (w, h) = (width as f32, height as f32);
    let lake = Vec2::new(w * 0.32, h * 0.5);
    let radii = Vec2::new(w * 0.16, h * 0.3);
    let ford = ford_columns(width);
    let phase = rng.random_range(0.0..core::f32::consts::TAU);
    // The river winds by less than a cell a column, so it has no diagonal gaps.
    let river = |x: f32| h * 0.5 + h * 0.1 * (x * 0.15 + phase).sin();
    let clumps: Vec<(Vec2, f32)> = (0..9)
        .map(|_| {
            let centre = Vec2::new(rng.random_range(0.0..w), rng.random_range(0.0..h));
            (centre, rng.random_range(1.5..3.5))
        })
        .collect();
    Grid::from_fn(width, height, |cell| {
        let point = Vec2::new(cell.x as f32 + 0.5, cell.y as f32 + 0.5);
        let shore = ((point - lake) / radii).length();
        let in_river = (point.y - river(point.x)).abs() < 1.6 && !ford.contains(&cell.x);
        if shore < 1.0 || in_river {
            WATER
        } else if shore < 1.35 {
            SWAMP
        } else if (point.y - river(point.x)).abs() > 4.0
            && clumps
                .iter()
                .any(|&(centre, radius)| point.distance(centre) < radius)
        {
            TREES
        } else {
            GROUND
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_astar::astar_grid::Components;

    #[test]
    fn built_in_maps_parse() {
        let mut rng = StdRng::seed_from_u64(1);
        let arena = MapSource::Arena.build(&mut rng).expect("arena parses");
        assert_eq!((arena.width(), arena.height()), (49, 49));
        let den = MapSource::Den312d.build(&mut rng).expect("den312d parses");
        assert_eq!((den.width(), den.height()), (65, 81));
    }

    #[test]
    fn a_maze_connects_every_corridor_cell() {
        let grid = maze(21, 15, &mut StdRng::seed_from_u64(7));
        let components = Components::new(&grid, Movement::FOUR);
        let first = components.component(Cell::new(1, 1));
        assert!(first.is_some());
        for y in (1..15).step_by(2) {
            for x in (1..21).step_by(2) {
                assert_eq!(components.component(Cell::new(x, y)), first, "({x}, {y})");
            }
        }
    }

    #[test]
    fn caves_have_a_solid_border() {
        let grid = caves(30, 20, &mut StdRng::seed_from_u64(3));
        for x in 0..30 {
            assert!(!grid.is_walkable(Cell::new(x, 0)));
            assert!(!grid.is_walkable(Cell::new(x, 19)));
        }
        assert!(grid.walkable_count() > 0);
    }

    #[test]
    fn a_marsh_has_a_ford_for_walkers_and_a_river_for_boats() {
        use bevy_astar::astar_grid::AgentGrid;
        for seed in 0..8 {
            let grid = marsh(72, 48, &mut StdRng::seed_from_u64(seed));
            let reach = |profile: TerrainProfile, from: Cell, to: Cell| {
                let derived = AgentGrid::new(&grid, &profile, 1).expect("the profile fits");
                let components = Components::new(derived.grid(), Movement::EIGHT);
                components.component(from).is_some()
                    && components.component(from) == components.component(to)
            };
            // The right edge, above and below the river: walkers cross at the ford.
            let edge = 71;
            let column: Vec<Cell> = (0..48).map(|y| Cell::new(edge, y)).collect();
            let north = column.iter().find(|&&cell| grid.value(cell) == GROUND);
            let south = column
                .iter()
                .rev()
                .find(|&&cell| grid.value(cell) == GROUND);
            let (Some(&north), Some(&south)) = (north, south) else {
                panic!("seed {seed}: no ground on the right edge");
            };
            assert!(reach(TerrainProfile::walker(), north, south), "seed {seed}");
            // Only at the ford: with its columns flooded, walkers cannot cross.
            let mut flooded = grid.clone();
            for x in ford_columns(72) {
                for y in 10..38 {
                    let _ = flooded.set_cost(Cell::new(x, y), WATER);
                }
            }
            let walkers = AgentGrid::new(&flooded, &TerrainProfile::walker(), 1).expect("fits");
            let components = Components::new(walkers.grid(), Movement::EIGHT);
            assert_ne!(
                components.component(north),
                components.component(south),
                "seed {seed}: walkers cross the river away from the ford"
            );
            assert!(!reach(TerrainProfile::boat(), north, south), "seed {seed}");
            // Boats sail from the lake down the river to the left edge.
            let lake = Cell::new(23, 24);
            let mouth = (0..48)
                .map(|y| Cell::new(0, y))
                .find(|&cell| grid.value(cell) == WATER);
            let mouth = mouth.expect("the river reaches the left edge");
            assert!(reach(TerrainProfile::boat(), lake, mouth), "seed {seed}");
        }
    }

    #[test]
    fn a_missing_file_is_an_error_not_a_panic() {
        let source = MapSource::File("no/such/file.map".into());
        let error = source
            .build(&mut StdRng::seed_from_u64(0))
            .expect_err("missing file");
        assert!(error.contains("no/such/file.map"), "{error}");
    }
}
