//! `pathbench generated`: seeded random maps of chosen sizes and obstacle density, with long
//! connected queries (from near one corner to near the opposite one), run through A* and jump
//! point search, for comparison with published figures for other implementations on such maps.

use crate::random::SeededRandom;
use astar_grid::{
    Cell, Components, Grid, JpsOptions, JumpGrid, Movement, SearchOptions, SearchStatus, Searcher,
};
use clap::Args;
use std::time::Instant;

/// Times (milliseconds per query) reported for a Lua A* on square maps of these sizes with 30%
/// of their cells blocked, printed beside this project's times.
const LUA_REFERENCE_MS: [(u32, f64); 4] = [(20, 0.3), (50, 1.8), (100, 7.5), (200, 32.0)];

/// How many times a query's endpoints are drawn on one map before the map is set aside.
const ENDPOINT_ATTEMPTS: usize = 1_000;

/// How many maps are drawn for one slot before the density is declared too high.
const MAP_ATTEMPTS: usize = 100;

/// Arguments of `pathbench generated`.
#[derive(Debug, Args)]
pub struct GeneratedArgs {
    /// Side lengths of the square maps, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "20,50,100,200")]
    pub sizes: Vec<u32>,
    /// Fraction of cells blocked, from 0 up to (not including) 1.
    #[arg(long, default_value_t = 0.3)]
    pub density: f64,
    /// Random maps generated per size.
    #[arg(long, default_value_t = 10)]
    pub maps: usize,
    /// Queries per map.
    #[arg(long, default_value_t = 50)]
    pub queries: usize,
    /// Seed of the maps and queries.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The mean of `values` (0 for none).
fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// A `size` x `size` grid with each cell blocked with probability `density`.
fn random_grid(size: u32, density: f64, random: &mut SeededRandom) -> Grid {
    Grid::from_fn(size, size, |_| u8::from(random.unit() >= density))
}

/// A walkable cell in the `corner` x `corner` square at the top left (`far` false) or bottom
/// right (`far` true) of a `size` x `size` grid.
fn corner_cell(size: u32, corner: u32, far: bool, random: &mut SeededRandom) -> Cell {
    let offset = if far { size - corner } else { 0 };
    let mut draw = || offset + random.below(u64::from(corner)) as u32;
    Cell::new(draw(), draw())
}

/// `count` queries on `grid`, each from near the top-left corner to near the bottom-right one
/// (within a fifth of the side), between walkable cells connected under the benchmark's
/// movement; `None` when some query finds no such pair in [`ENDPOINT_ATTEMPTS`] draws.
fn corner_queries(
    grid: &Grid,
    count: usize,
    random: &mut SeededRandom,
) -> Option<Vec<(Cell, Cell)>> {
    let size = grid.width();
    let corner = (size / 5).max(1);
    let components = Components::new(grid, Movement::EIGHT);
    (0..count)
        .map(|_| {
            (0..ENDPOINT_ATTEMPTS)
                .map(|_| {
                    (
                        corner_cell(size, corner, false, random),
                        corner_cell(size, corner, true, random),
                    )
                })
                .find(|&(start, goal)| {
                    grid.is_walkable(start)
                        && grid.is_walkable(goal)
                        && components.same_component(start, goal)
                })
        })
        .collect()
}

/// A random map with `count` corner-to-corner queries: maps whose corners are not connected
/// are drawn again, up to [`MAP_ATTEMPTS`] times.
fn map_with_queries(
    size: u32,
    density: f64,
    count: usize,
    random: &mut SeededRandom,
) -> Result<(Grid, Vec<(Cell, Cell)>), String> {
    for _ in 0..MAP_ATTEMPTS {
        let grid = random_grid(size, density, random);
        if let Some(queries) = corner_queries(&grid, count, random) {
            return Ok((grid, queries));
        }
    }
    Err(format!(
        "no {size}x{size} map with {density} of its cells blocked connected its corners in \
         {MAP_ATTEMPTS} draws; lower --density"
    ))
}

/// What one size measured.
#[derive(Debug, Default)]
struct SizeReport {
    astar_us: Vec<f64>,
    jps_us: Vec<f64>,
    astar_expanded: u64,
    jps_expanded: u64,
    length_total: f64,
    /// Queries where A* and jump point search disagree on the length (or on finding a path).
    disagreements: usize,
}

impl SizeReport {
    fn queries(&self) -> usize {
        self.astar_us.len()
    }

    fn per_query(&self, total: f64) -> f64 {
        total / self.queries().max(1) as f64
    }
}

/// Runs `pathbench generated`; `Ok(false)` when A* and jump point search disagreed anywhere.
pub fn run(args: &GeneratedArgs) -> Result<bool, String> {
    if !(0.0..1.0).contains(&args.density) {
        return Err(format!(
            "--density {} is outside [0, 1): it is the fraction of cells blocked",
            args.density
        ));
    }
    if let Some(size) = args.sizes.iter().find(|&&size| size < 2) {
        return Err(format!("--sizes: {size} is too small (at least 2)"));
    }
    if args.maps == 0 || args.queries == 0 {
        return Err("--maps and --queries must be at least 1".to_owned());
    }
    let mut random = SeededRandom::new(args.seed);
    let astar_options = SearchOptions::default();
    let jps_options = JpsOptions::default().with_full_path(true);
    println!(
        "{:>5} {:>7} {:>8} | {:>10} {:>10} {:>9} | {:>10} {:>10} {:>9} | {:>8} {:>9}",
        "size",
        "queries",
        "length",
        "A* mean us",
        "median us",
        "expanded",
        "JPS mean",
        "median us",
        "expanded",
        "Lua ms",
        "Lua / A*"
    );
    let mut json_sizes = Vec::new();
    let mut all_agree = true;
    for &size in &args.sizes {
        let mut report = SizeReport::default();
        for _ in 0..args.maps {
            let (grid, queries) = map_with_queries(size, args.density, args.queries, &mut random)?;
            let jump_grid = JumpGrid::new(&grid).map_err(|error| error.to_string())?;
            let mut searcher = Searcher::for_grid(&grid);
            // One untimed run of each search first, so that no timed query pays for the first
            // touch of the searcher's memory.
            if let Some(&(start, goal)) = queries.first() {
                searcher
                    .find_path(&grid, start, goal, &astar_options)
                    .and_then(|_| searcher.find_path_jps(&jump_grid, start, goal, &jps_options))
                    .map_err(|error| error.to_string())?;
            }
            for &(start, goal) in &queries {
                let started = Instant::now();
                let astar = searcher.find_path(&grid, start, goal, &astar_options);
                let astar_us = started.elapsed().as_secs_f64() * 1e6;
                let astar = astar.map_err(|error| error.to_string())?;
                let started = Instant::now();
                let jps = searcher.find_path_jps(&jump_grid, start, goal, &jps_options);
                let jps_us = started.elapsed().as_secs_f64() * 1e6;
                let jps = jps.map_err(|error| error.to_string())?;
                report.astar_us.push(astar_us);
                report.jps_us.push(jps_us);
                report.astar_expanded += u64::from(astar.stats.expanded);
                report.jps_expanded += u64::from(jps.stats.expanded);
                let agree = match (astar.cost(), jps.cost()) {
                    (Some(a), Some(j)) => (a - j).abs() <= 1e-6 * a.max(1.0),
                    _ => false,
                };
                if !agree || astar.status != SearchStatus::Found {
                    report.disagreements += 1;
                }
                report.length_total += astar.cost().unwrap_or(0.0);
            }
        }
        all_agree &= report.disagreements == 0;
        let lua_ms = LUA_REFERENCE_MS
            .iter()
            .find(|(lua_size, _)| *lua_size == size)
            .map(|&(_, ms)| ms)
            .filter(|_| (args.density - 0.3).abs() < 1e-9);
        let astar_mean = mean(&report.astar_us);
        let jps_mean = mean(&report.jps_us);
        println!(
            "{size:>5} {:>7} {:>8.1} | {astar_mean:>10.2} {:>10.2} {:>9.0} | {jps_mean:>10.2} {:>10.2} {:>9.0} | {:>8} {:>9}",
            report.queries(),
            report.per_query(report.length_total),
            crate::scen_report::median(&report.astar_us),
            report.per_query(report.astar_expanded as f64),
            crate::scen_report::median(&report.jps_us),
            report.per_query(report.jps_expanded as f64),
            lua_ms.map_or_else(|| "-".to_owned(), |ms| format!("{ms:.1}")),
            lua_ms.map_or_else(
                || "-".to_owned(),
                |ms| format!("{:.0}x", ms * 1e3 / astar_mean.max(1e-9))
            ),
        );
        if report.disagreements > 0 {
            eprintln!(
                "{size}x{size}: A* and jump point search disagree on {} queries",
                report.disagreements
            );
        }
        json_sizes.push(serde_json::json!({
            "size": size,
            "queries": report.queries(),
            "mean_length": report.per_query(report.length_total),
            "astar_mean_us": astar_mean,
            "astar_median_us": crate::scen_report::median(&report.astar_us),
            "astar_expanded_mean": report.per_query(report.astar_expanded as f64),
            "jps_mean_us": jps_mean,
            "jps_median_us": crate::scen_report::median(&report.jps_us),
            "jps_expanded_mean": report.per_query(report.jps_expanded as f64),
            "lua_reference_ms": lua_ms,
            "disagreements": report.disagreements,
        }));
    }
    println!(
        "{}",
        serde_json::json!({
            "command": "generated",
            "density": args.density,
            "maps_per_size": args.maps,
            "queries_per_map": args.queries,
            "seed": args.seed,
            "sizes": json_sizes,
        })
    );
    Ok(all_agree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_maps_and_queries() {
        let draw = |seed| map_with_queries(30, 0.3, 5, &mut SeededRandom::new(seed)).unwrap();
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7).0, draw(8).0);
    }

    #[test]
    fn density_is_close_to_the_requested_fraction() {
        let mut random = SeededRandom::new(3);
        let grid = random_grid(200, 0.3, &mut random);
        let blocked = grid.len() - grid.walkable_count();
        let fraction = blocked as f64 / grid.len() as f64;
        assert!((fraction - 0.3).abs() < 0.01, "{fraction}");
    }

    #[test]
    fn queries_join_connected_cells_near_opposite_corners() {
        let (grid, queries) = map_with_queries(50, 0.3, 20, &mut SeededRandom::new(11)).unwrap();
        let components = Components::new(&grid, Movement::EIGHT);
        for (start, goal) in queries {
            assert!(start.x < 10 && start.y < 10, "{start:?}");
            assert!(goal.x >= 40 && goal.y >= 40, "{goal:?}");
            assert!(components.same_component(start, goal));
            let mut searcher = Searcher::new();
            let result = searcher
                .find_path(&grid, start, goal, &SearchOptions::default())
                .unwrap();
            assert_eq!(result.status, SearchStatus::Found);
        }
    }

    #[test]
    fn maps_too_blocked_to_cross_are_an_error_not_a_hang() {
        let grid = Grid::from_fn(10, 10, |_| 0);
        assert!(corner_queries(&grid, 1, &mut SeededRandom::new(1)).is_none());
        assert!(map_with_queries(10, 0.95, 1, &mut SeededRandom::new(1)).is_err());
    }

    #[test]
    fn bad_arguments_are_refused() {
        let args = |density, sizes: Vec<u32>| GeneratedArgs {
            sizes,
            density,
            maps: 1,
            queries: 1,
            seed: 1,
        };
        assert!(run(&args(1.0, vec![20])).is_err());
        assert!(run(&args(-0.1, vec![20])).is_err());
        assert!(run(&args(0.3, vec![1])).is_err());
    }
}
