//! `pathbench city`: seeded city-like maps in the style of the Moving AI street maps (blocks of
//! buildings between streets of several widths, open squares with scattered trees), written as
//! a Moving AI `.map` with a `.map.scen` of queries whose optimal lengths jump point search
//! measured: the large maps the hierarchical search is measured on.

use crate::random::SeededRandom;
use astar_grid::{
    Cell, Components, Grid, JpsOptions, JumpGrid, Legend, Movement, Scenario, ScenarioQuery,
    Searcher, write_map, write_scenario,
};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `pathbench city`.
#[derive(Debug, Args)]
pub struct CityArgs {
    /// Side of the square map, in cells (64 to 8192).
    #[arg(long, default_value_t = 1024)]
    pub size: u32,
    /// Seed of the map and the queries.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Queries in the scenario.
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    /// Folder the map and the scenario are written to (`city-SIZE-sSEED.map` and its `.scen`).
    #[arg(long, default_value = ".")]
    pub out: PathBuf,
}

/// The narrowest and widest block, in cells, streets excluded.
const BLOCK_SIDES: (u64, u64) = (8, 40);
/// The narrowest and widest street, in cells.
const STREET_WIDTHS: (u64, u64) = (2, 6);
/// One block in this many is an open square.
const SQUARE_ONE_IN: u64 = 6;
/// In a square, one cell in this many is a tree.
const TREE_ONE_IN: u64 = 20;
/// The smallest and largest side of a map.
const SIDES: (u32, u32) = (64, 8192);
/// Queries drawn for each one kept at most, before the map is declared too broken up.
const DRAWS_PER_QUERY: usize = 100;

/// The bands a side is cut into: blocks separated by streets, from a border street on.
fn bands(side: u32, random: &mut SeededRandom) -> Vec<(u32, u32)> {
    let mut blocks = Vec::new();
    let mut at = STREET_WIDTHS.0;
    let side = u64::from(side);
    loop {
        let block = BLOCK_SIDES.0 + random.below(BLOCK_SIDES.1 - BLOCK_SIDES.0 + 1);
        let street = STREET_WIDTHS.0 + random.below(STREET_WIDTHS.1 - STREET_WIDTHS.0 + 1);
        if at + block + STREET_WIDTHS.0 > side {
            break;
        }
        // Below the side: the casts are exact.
        blocks.push((at as u32, (at + block - 1) as u32));
        at += block + street;
    }
    blocks
}

/// A city of `side` x `side` cells drawn from `random`: every block a building (blocked), with
/// now and then an alley cut through it, or an open square with scattered trees; streets
/// between the blocks and round the edge are open.
pub fn city_grid(side: u32, random: &mut SeededRandom) -> Grid {
    let mut grid = Grid::new(side, side);
    let columns = bands(side, random);
    let rows = bands(side, random);
    for &(top, bottom) in &rows {
        for &(left, right) in &columns {
            if random.below(SQUARE_ONE_IN) == 0 {
                for y in top..=bottom {
                    for x in left..=right {
                        if random.below(TREE_ONE_IN) == 0 {
                            let _ = grid.set_blocked(Cell::new(x, y), true);
                        }
                    }
                }
                continue;
            }
            grid.fill_rect(Cell::new(left, top), Cell::new(right, bottom), 0);
            // An alley one cell wide across the block, one time in three.
            if random.below(3) == 0 {
                let width = u64::from(bottom - top);
                let y = top + 1 + random.below(width.saturating_sub(1).max(1)) as u32;
                grid.fill_rect(Cell::new(left, y), Cell::new(right, y), 1);
            }
        }
    }
    grid
}

/// `count` queries between walkable cells of `grid` that reach each other, drawn from
/// `random`, each with its optimal length by jump point search (8 neighbours, no corner
/// cutting, octile: the rules of the Moving AI scenarios), in buckets of 4 cells of length.
///
/// # Errors
/// When too few drawn pairs reach each other, or a search fails.
pub fn city_queries(
    grid: &Grid,
    (name, count): (&str, usize),
    random: &mut SeededRandom,
) -> Result<Scenario, String> {
    let components = Components::new(grid, Movement::EIGHT);
    let walkable: Vec<Cell> = grid
        .cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect();
    let jump_grid = JumpGrid::new(grid).map_err(|error| error.to_string())?;
    let mut searcher = Searcher::for_grid(grid);
    let mut queries = Vec::with_capacity(count);
    for _ in 0..count.saturating_mul(DRAWS_PER_QUERY) {
        if queries.len() == count || walkable.is_empty() {
            break;
        }
        let mut pick = || walkable[random.below(walkable.len() as u64) as usize];
        let (start, goal) = (pick(), pick());
        if start == goal || !components.same_component(start, goal) {
            continue;
        }
        let found = searcher
            .find_path_jps(&jump_grid, start, goal, &JpsOptions::default())
            .map_err(|error| error.to_string())?;
        let length = found
            .cost()
            .ok_or_else(|| format!("no path from {start} to {goal}, in one component"))?;
        queries.push(ScenarioQuery {
            bucket: (length / 4.0) as u32,
            map: name.to_owned(),
            map_width: grid.width(),
            map_height: grid.height(),
            start,
            goal,
            optimal_length: length,
        });
    }
    if queries.len() < count {
        return Err(format!(
            "only {} of {count} queries joined cells that reach each other",
            queries.len()
        ));
    }
    Ok(Scenario { queries })
}

/// Runs `pathbench city`: writes the map and its scenario; `Ok(true)` once both are written.
pub fn run(args: &CityArgs) -> Result<bool, String> {
    if !(SIDES.0..=SIDES.1).contains(&args.size) {
        return Err(format!(
            "--size must be between {} and {}, not {}",
            SIDES.0, SIDES.1, args.size
        ));
    }
    let mut random = SeededRandom::new(args.seed);
    let grid = city_grid(args.size, &mut random);
    let name = format!("city-{}-s{}.map", args.size, args.seed);
    let scenario = city_queries(&grid, (&name, args.queries), &mut random)?;
    let map_text = write_map(&grid, &Legend::moving_ai())
        .ok_or_else(|| "the map has a value the Moving AI legend cannot write".to_owned())?;
    let scen_text = write_scenario(&scenario).map_err(|error| error.to_string())?;
    let map_path = args.out.join(&name);
    let scen_path = args.out.join(format!("{name}.scen"));
    std::fs::write(&map_path, map_text)
        .map_err(|error| format!("{}: {error}", map_path.display()))?;
    std::fs::write(&scen_path, scen_text)
        .map_err(|error| format!("{}: {error}", scen_path.display()))?;
    let open = grid.cells().filter(|&(_, value)| value != 0).count();
    println!(
        "wrote {} and {}: {size}x{size}, {:.1}% open, {} queries",
        map_path.display(),
        scen_path.display(),
        100.0 * open as f64 / (f64::from(args.size) * f64::from(args.size)),
        scenario.queries.len(),
        size = args.size,
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::{SearchOptions, find_path, parse_map, parse_scenario};

    #[test]
    fn the_same_seed_gives_the_same_city_and_another_a_different_one() {
        let city = |seed| city_grid(256, &mut SeededRandom::new(seed));
        assert_eq!(city(3), city(3));
        assert_ne!(city(3), city(4));
    }

    #[test]
    fn a_city_is_streets_round_buildings_and_its_streets_join_up() {
        let grid = city_grid(300, &mut SeededRandom::new(7));
        let open = grid.cells().filter(|&(_, value)| value != 0).count();
        let fraction = open as f64 / (300.0 * 300.0);
        assert!(
            (0.2..0.7).contains(&fraction),
            "{fraction} of the cells open"
        );
        // The border street is open all round, and every street cell reaches it.
        let components = Components::new(&grid, Movement::EIGHT);
        let corner = Cell::new(0, 0);
        for x in 0..300 {
            for cell in [Cell::new(x, 0), Cell::new(0, x), Cell::new(x, 1)] {
                assert!(grid.is_walkable(cell), "{cell}");
                assert!(components.same_component(corner, cell), "{cell}");
            }
        }
    }

    #[test]
    fn the_scenario_names_optimal_lengths_and_reads_back() {
        let mut random = SeededRandom::new(2);
        let grid = city_grid(128, &mut random);
        let scenario = city_queries(&grid, ("city.map", 30), &mut random).unwrap();
        assert_eq!(scenario.queries.len(), 30);
        let map_text = write_map(&grid, &Legend::moving_ai()).unwrap();
        assert_eq!(parse_map(&map_text).unwrap(), grid);
        let read = parse_scenario(&write_scenario(&scenario).unwrap()).unwrap();
        for query in &read.queries {
            // A* on the map, an independent search from the jump point search that measured.
            let found =
                find_path(&grid, query.start, query.goal, &SearchOptions::default()).unwrap();
            let cost = found.found().map(|path| path.cost).unwrap();
            assert!((cost - query.optimal_length).abs() < 1e-6, "{query:?}");
            assert_eq!(query.bucket, (query.optimal_length / 4.0) as u32);
        }
    }

    #[test]
    fn bad_sizes_are_refused() {
        for size in [0, 63, 8193] {
            let args = CityArgs {
                size,
                seed: 1,
                queries: 1,
                out: PathBuf::from("."),
            };
            assert!(run(&args).is_err(), "{size}");
        }
    }
}
