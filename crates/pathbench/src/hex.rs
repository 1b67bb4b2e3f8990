//! `pathbench hex`: A* on seeded hexagonal maps against square maps of the same tiles, and
//! against the `pathfinding` crate's A* on the same hexagonal graph, side by side in one process.

use crate::hier::mean;
use crate::random::SeededRandom;
use crate::scen_report::median;
use astar_grid::hex::{HexLayout, HexMap};
use astar_grid::{Cell, Components, Grid, Movement, SearchOptions, Searcher};
use clap::Args;
use std::time::Instant;

/// How many times a query's endpoints are drawn before the map is declared too blocked.
const ENDPOINT_ATTEMPTS: usize = 10_000;

/// Arguments of `pathbench hex`.
#[derive(Debug, Args)]
pub struct HexArgs {
    /// Tile columns and rows of each map.
    #[arg(long, default_value_t = 512)]
    pub size: u32,
    /// Fraction of tiles blocked, from 0 up to (not including) 1.
    #[arg(long, default_value_t = 0.25)]
    pub density: f64,
    /// Fraction of the open tiles given a random terrain cost from 2 to 5.
    #[arg(long, default_value_t = 0.2)]
    pub terrain: f64,
    /// Queries, between random tiles connected on every map.
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    /// Seed of the map and queries.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// One search's times and expansions over the queries.
#[derive(Debug, Default)]
struct Column {
    micros: Vec<f64>,
    expanded: u64,
    cost: f64,
}

impl Column {
    fn json(&self, name: &str) -> String {
        format!(
            "\"{name}\":{{\"mean_us\":{:.2},\"median_us\":{:.2},\"expanded\":{:.1},\"cost\":{:.1}}}",
            mean(&self.micros),
            median(&self.micros),
            self.expanded as f64 / self.micros.len().max(1) as f64,
            self.cost / self.micros.len().max(1) as f64
        )
    }
}

/// The tile values of a seeded map: 0 blocked, else a terrain cost.
fn tile_values(args: &HexArgs, random: &mut SeededRandom) -> Vec<u8> {
    let tiles = args.size as usize * args.size as usize;
    (0..tiles)
        .map(|_| {
            if random.unit() < args.density {
                0
            } else if random.unit() < args.terrain {
                random.between(2, 5) as u8
            } else {
                1
            }
        })
        .collect()
}

/// The three grids the queries run on: hexagonal (odd rows shifted), square with eight
/// neighbours and square with four, each of the same tile values.
struct Maps {
    hex: HexMap,
    hex_grid: Grid,
    square: Grid,
}

impl Maps {
    fn new(args: &HexArgs, values: &[u8]) -> Result<Self, String> {
        let side = args.size;
        let value = |(x, y): (u32, u32)| values[y as usize * side as usize + x as usize];
        let hex = HexMap::new(HexLayout::RowOdd, side, side).map_err(|error| error.to_string())?;
        let hex_grid = hex
            .grid_from_tiles(value)
            .map_err(|error| error.to_string())?;
        let square = Grid::from_fn(side, side, |cell| value((cell.x, cell.y)));
        Ok(Self {
            hex,
            hex_grid,
            square,
        })
    }

    /// `count` pairs of tiles connected on the hexagonal map and on both square ones.
    fn queries(
        &self,
        count: usize,
        random: &mut SeededRandom,
    ) -> Result<Vec<(Cell, Cell)>, String> {
        let hex_parts = Components::new(&self.hex_grid, Movement::HEX);
        let four_parts = Components::new(&self.square, Movement::FOUR);
        let side = u64::from(self.square.width());
        let mut draw = || Cell::new(random.below(side) as u32, random.below(side) as u32);
        let connected = |a: Cell, b: Cell| {
            let on_hex = self
                .hex
                .cell_of((a.x, a.y))
                .zip(self.hex.cell_of((b.x, b.y)));
            // Four-connected paths are eight-connected ones too.
            self.square.is_walkable(a)
                && self.square.is_walkable(b)
                && four_parts.same_component(a, b)
                && on_hex.is_some_and(|(a, b)| hex_parts.same_component(a, b))
        };
        (0..count)
            .map(|_| {
                (0..ENDPOINT_ATTEMPTS)
                    .map(|_| (draw(), draw()))
                    .find(|&(a, b)| a != b && connected(a, b))
                    .ok_or_else(|| "no connected tiles found: lower --density".to_owned())
            })
            .collect()
    }
}

/// Runs `pathbench hex`; `Ok(false)` when the `pathfinding` crate's costs differ from ours.
pub fn run(args: &HexArgs) -> Result<bool, String> {
    if !(0.0..1.0).contains(&args.density) || !(0.0..=1.0).contains(&args.terrain) {
        return Err("--density must lie in [0, 1) and --terrain in [0, 1]".to_owned());
    }
    if args.size < 2 || args.queries == 0 {
        return Err("--size must be at least 2 and --queries at least 1".to_owned());
    }
    let mut random = SeededRandom::new(args.seed);
    let values = tile_values(args, &mut random);
    let maps = Maps::new(args, &values)?;
    let queries = maps.queries(args.queries, &mut random)?;
    let mut searcher = Searcher::for_grid(&maps.hex_grid);
    let hex_options = SearchOptions::default().with_movement(Movement::HEX);
    let eight_options = SearchOptions::default();
    let four_options = SearchOptions::default().with_movement(Movement::FOUR);
    let (mut hex, mut eight, mut four) = (Column::default(), Column::default(), Column::default());
    let mut peer = PeerColumn::default();
    for (index, &(a, b)) in queries.iter().enumerate() {
        let (start, goal) = maps
            .hex
            .cell_of((a.x, a.y))
            .zip(maps.hex.cell_of((b.x, b.y)))
            .ok_or("a query tile is off the map")?;
        // The first query runs once untimed, so that none pays for the memory's first touch.
        if index == 0 {
            searcher
                .find_path(&maps.hex_grid, start, goal, &hex_options)
                .map_err(|error| error.to_string())?;
        }
        let found = measure(
            &mut searcher,
            (&maps.hex_grid, start, goal),
            &hex_options,
            &mut hex,
        )?;
        measure(
            &mut searcher,
            (&maps.square, a, b),
            &eight_options,
            &mut eight,
        )?;
        measure(
            &mut searcher,
            (&maps.square, a, b),
            &four_options,
            &mut four,
        )?;
        peer.measure(&maps.hex_grid, (start, goal), found);
    }
    let rows = [
        ("hex (6)", &hex),
        ("square (8)", &eight),
        ("square (4)", &four),
    ];
    println!(
        "{} x {} tiles, {} blocked, {} queries",
        args.size, args.size, args.density, args.queries
    );
    println!(
        "{:<16} {:>10} {:>10} {:>10}",
        "A*", "mean us", "median us", "expanded"
    );
    for (name, column) in rows {
        println!(
            "{name:<16} {:>10.1} {:>10.1} {:>10.0}",
            mean(&column.micros),
            median(&column.micros),
            column.expanded as f64 / column.micros.len() as f64
        );
    }
    let agrees = peer.report(&hex);
    println!(
        "{{\"command\":\"hex\",\"size\":{},\"density\":{},\"queries\":{},{},{},{}{}}}",
        args.size,
        args.density,
        args.queries,
        hex.json("hex"),
        eight.json("square8"),
        four.json("square4"),
        peer.json()
    );
    Ok(agrees)
}

/// Runs one timed search into `column`; returns its cost.
fn measure(
    searcher: &mut Searcher,
    (grid, start, goal): (&Grid, Cell, Cell),
    options: &SearchOptions,
    column: &mut Column,
) -> Result<f64, String> {
    let started = Instant::now();
    let result = searcher.find_path(grid, start, goal, options);
    column.micros.push(started.elapsed().as_secs_f64() * 1e6);
    let result = result.map_err(|error| error.to_string())?;
    column.expanded += u64::from(result.stats.expanded);
    let cost = result
        .cost()
        .ok_or_else(|| format!("no path from {start} to {goal}"))?;
    column.cost += cost;
    Ok(cost)
}

/// The `pathfinding` crate's A* on the same hexagonal graph, when it is built in.
#[derive(Debug, Default)]
struct PeerColumn {
    #[cfg_attr(
        not(feature = "peers"),
        expect(dead_code, reason = "filled only with the peer built in")
    )]
    column: Column,
    /// Queries whose cost differs from ours.
    #[cfg_attr(
        not(feature = "peers"),
        expect(dead_code, reason = "filled only with the peer built in")
    )]
    mismatches: usize,
}

impl PeerColumn {
    #[cfg(feature = "peers")]
    fn measure(&mut self, grid: &Grid, (start, goal): (Cell, Cell), ours: f64) {
        let started = Instant::now();
        let found = pathfinding::directed::astar::astar(
            &start,
            |&cell| hex_successors(grid, cell),
            |&cell| astar_grid::hex::hex_distance(cell, goal),
            |&cell| cell == goal,
        );
        self.column
            .micros
            .push(started.elapsed().as_secs_f64() * 1e6);
        let cost = found.map_or(f64::INFINITY, |(_, cost)| cost as f64);
        self.column.cost += cost;
        if (cost - ours).abs() > 1e-9 * ours.max(1.0) {
            self.mismatches += 1;
        }
    }

    #[cfg(not(feature = "peers"))]
    fn measure(&mut self, _grid: &Grid, _query: (Cell, Cell), _ours: f64) {}

    /// Prints the peer's row and ratio; false when its costs differ from ours.
    #[cfg(feature = "peers")]
    fn report(&self, ours: &Column) -> bool {
        println!(
            "{:<16} {:>10.1} {:>10.1} {:>10}",
            "pathfinding A*",
            mean(&self.column.micros),
            median(&self.column.micros),
            "-"
        );
        println!(
            "pathfinding's median over ours on hex: {:.2}x; costs differing: {}",
            median(&self.column.micros) / median(&ours.micros),
            self.mismatches
        );
        self.mismatches == 0
    }

    #[cfg(not(feature = "peers"))]
    fn report(&self, _ours: &Column) -> bool {
        println!("(the pathfinding crate's A* runs with --features peers)");
        true
    }

    #[cfg(feature = "peers")]
    fn json(&self) -> String {
        format!(
            ",{},\"pathfinding_mismatches\":{}",
            self.column.json("pathfinding"),
            self.mismatches
        )
    }

    #[cfg(not(feature = "peers"))]
    fn json(&self) -> String {
        String::new()
    }
}

/// The six hex neighbours of `cell` that are walkable, each with its cost: the terrain value
/// of the cell entered. Written from the axial rule, not through the crate's search code.
#[cfg(feature = "peers")]
fn hex_successors(grid: &Grid, cell: Cell) -> impl Iterator<Item = (Cell, u64)> + '_ {
    const STEPS: [(i32, i32); 6] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)];
    STEPS.iter().filter_map(move |&(dx, dy)| {
        let next = cell.offset(dx, dy)?;
        grid.cost(next).map(|cost| (next, u64::from(cost)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(size: u32) -> HexArgs {
        HexArgs {
            size,
            density: 0.2,
            terrain: 0.3,
            queries: 5,
            seed: 7,
        }
    }

    #[test]
    fn the_maps_hold_the_same_tiles() {
        let args = args(12);
        let values = tile_values(&args, &mut SeededRandom::new(3));
        let maps = Maps::new(&args, &values).expect("small");
        for y in 0..12 {
            for x in 0..12 {
                let hex_cell = maps.hex.cell_of((x, y)).expect("on the map");
                let square = maps.square.value(Cell::new(x, y));
                assert_eq!(maps.hex_grid.value(hex_cell), square, "({x}, {y})");
            }
        }
    }

    #[test]
    fn queries_join_connected_tiles_and_the_run_agrees() {
        let args = args(24);
        assert_eq!(run(&args), Ok(true));
        let blocked = HexArgs {
            density: 0.999,
            ..args
        };
        assert!(run(&blocked).is_err());
    }
}
