//! `pathbench links`: the Moving AI queries of each map searched with and without links
//! (seeded teleporter pairs and one-way drops), by A* and jump point search side by side, with
//! the costs over links checked against each other and against the costs without.

use crate::random::SeededRandom;
use crate::scen_run::load;
use crate::suite::{map_pairs, shipped_maps};
use astar_grid::{Cell, Grid, JpsOptions, JumpGrid, Link, SearchOptions, Searcher};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `pathbench links`.
#[derive(Debug, Args)]
pub struct LinksArgs {
    /// Directory searched for `NAME.map` files with `NAME.map.scen` beside them (default: the
    /// repository's `assets/maps`).
    pub dir: Option<PathBuf>,
    /// Links added to each map: two-way teleporters, and one in four a one-way drop.
    #[arg(long, default_value_t = 8)]
    pub links: usize,
    /// Queries per map, spread evenly over its scenario.
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    /// Seed of the links.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The relative difference below which two costs count as equal.
const SAME_COST: f64 = 1e-9;

/// Per-query microseconds of one search of one map, and the costs found.
#[derive(Debug, Default)]
struct Timings {
    micros: Vec<f64>,
    costs: Vec<Option<f64>>,
}

impl Timings {
    fn median(&self) -> f64 {
        let mut sorted = self.micros.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
    }

    fn mean(&self) -> f64 {
        self.micros.iter().sum::<f64>() / self.micros.len().max(1) as f64
    }
}

/// What one map gave.
#[derive(Debug, Default)]
struct MapRun {
    plain_astar: Timings,
    linked_astar: Timings,
    plain_jps: Timings,
    linked_jps: Timings,
    /// Queries where A* and jump point search over links disagree, or where a cost over links
    /// exceeds the cost without them.
    mismatches: usize,
    /// Queries made cheaper by the links.
    shortened: usize,
}

/// `count` links between walkable cells of `grid`, drawn from `random`: teleporters both ways
/// costing 1 to 10, and every fourth a one-way drop costing 1.
fn add_links(grid: &mut Grid, count: usize, random: &mut SeededRandom) -> Result<(), String> {
    let walkable: Vec<Cell> = grid
        .cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect();
    if walkable.is_empty() {
        return Ok(());
    }
    let mut pick = || walkable[random.below(walkable.len() as u64) as usize];
    for number in 0..count {
        let (from, to) = (pick(), pick());
        let link = if number % 4 == 3 {
            Link::new(from, to, 1.0).one_way()
        } else {
            Link::new(from, to, f64::from(1 + (number as u32 * 7) % 10))
        };
        grid.add_link(link).map_err(|error| error.to_string())?;
    }
    Ok(())
}

/// Times `search` on each query, keeping the costs.
fn time_queries(
    queries: &[(Cell, Cell)],
    mut search: impl FnMut(Cell, Cell) -> Result<Option<f64>, String>,
) -> Result<Timings, String> {
    let mut timings = Timings::default();
    for &(start, goal) in queries {
        let began = Instant::now();
        let cost = search(start, goal)?;
        timings.micros.push(began.elapsed().as_secs_f64() * 1e6);
        timings.costs.push(cost);
    }
    Ok(timings)
}

/// Runs one map: its queries without links and with `links` of them, by A* and jump point
/// search.
fn run_map(map: &Path, scen: &Path, args: &LinksArgs, seed: u64) -> Result<MapRun, String> {
    let (plain, scenario) = load(map, scen)?;
    let step = (scenario.queries.len() / args.queries.max(1)).max(1);
    let queries: Vec<(Cell, Cell)> = scenario
        .queries
        .iter()
        .step_by(step)
        .take(args.queries)
        .map(|query| (query.start, query.goal))
        .collect();
    let mut linked = plain.clone();
    add_links(&mut linked, args.links, &mut SeededRandom::new(seed))?;
    let mut searcher = Searcher::new();
    let options = SearchOptions::default();
    let mut astar = |grid: &Grid| {
        time_queries(&queries, |start, goal| {
            let result = searcher
                .find_path(grid, start, goal, &options)
                .map_err(|error| error.to_string())?;
            Ok(result.found().map(|path| path.cost))
        })
    };
    let plain_astar = astar(&plain)?;
    let linked_astar = astar(&linked)?;
    let mut searcher = Searcher::new();
    let jps_options = JpsOptions::default().with_full_path(false);
    let mut jps = |grid: &Grid| {
        let jump_grid = JumpGrid::new(grid).map_err(|error| error.to_string())?;
        time_queries(&queries, |start, goal| {
            let result = searcher
                .find_path_jps(&jump_grid, start, goal, &jps_options)
                .map_err(|error| error.to_string())?;
            Ok(result.found().map(|path| path.cost))
        })
    };
    let plain_jps = jps(&plain)?;
    let linked_jps = jps(&linked)?;
    let mut run = MapRun {
        plain_astar,
        linked_astar,
        plain_jps,
        linked_jps,
        ..MapRun::default()
    };
    for k in 0..queries.len() {
        let (without, with, by_jumps) = (
            run.plain_astar.costs[k],
            run.linked_astar.costs[k],
            run.linked_jps.costs[k],
        );
        let agree = match (with, by_jumps) {
            (Some(a), Some(b)) => (a - b).abs() <= SAME_COST * a.max(1.0),
            (a, b) => a == b,
        };
        let no_dearer = match (without, with) {
            (Some(without), Some(with)) => with <= without * (1.0 + SAME_COST),
            (Some(_), None) => false,
            (None, _) => true,
        };
        run.mismatches += usize::from(!(agree && no_dearer));
        let cheaper = match (without, with) {
            (Some(without), Some(with)) => with < without * (1.0 - SAME_COST),
            (None, Some(_)) => true,
            _ => false,
        };
        run.shortened += usize::from(cheaper);
    }
    Ok(run)
}

pub fn run(args: &LinksArgs) -> Result<bool, String> {
    let dir = args.dir.clone().unwrap_or_else(shipped_maps);
    let pairs = map_pairs(&dir)?;
    println!(
        "{:<28} {:>7} {:>9} {:>20} {:>20} {:>20} {:>20}",
        "map", "queries", "shortened", "A* us med/mean", "A*+links", "JPS us med/mean", "JPS+links"
    );
    let mut all = MapRun::default();
    for (number, (map, scen)) in pairs.iter().enumerate() {
        let run = run_map(map, scen, args, args.seed.wrapping_add(number as u64))?;
        let name = map
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
        let cell = |timings: &Timings| format!("{:.1}/{:.1}", timings.median(), timings.mean());
        println!(
            "{:<28} {:>7} {:>9} {:>20} {:>20} {:>20} {:>20}",
            name,
            run.plain_astar.micros.len(),
            run.shortened,
            cell(&run.plain_astar),
            cell(&run.linked_astar),
            cell(&run.plain_jps),
            cell(&run.linked_jps)
        );
        for (into, from) in [
            (&mut all.plain_astar, run.plain_astar),
            (&mut all.linked_astar, run.linked_astar),
            (&mut all.plain_jps, run.plain_jps),
            (&mut all.linked_jps, run.linked_jps),
        ] {
            into.micros.extend(from.micros);
        }
        all.mismatches += run.mismatches;
        all.shortened += run.shortened;
    }
    let ratio = |linked: &Timings, plain: &Timings| linked.median() / plain.median().max(1e-9);
    println!(
        "all: {} queries, {} shortened by links, {} mismatches; median A* {:.1} us, with links {:.1} us ({:.2}x); JPS {:.1} us, with links {:.1} us ({:.2}x)",
        all.plain_astar.micros.len(),
        all.shortened,
        all.mismatches,
        all.plain_astar.median(),
        all.linked_astar.median(),
        ratio(&all.linked_astar, &all.plain_astar),
        all.plain_jps.median(),
        all.linked_jps.median(),
        ratio(&all.linked_jps, &all.plain_jps),
    );
    let summary = serde_json::json!({
        "command": "links",
        "maps": pairs.len(),
        "links_per_map": args.links,
        "queries": all.plain_astar.micros.len(),
        "shortened": all.shortened,
        "mismatches": all.mismatches,
        "astar_us": {"median": all.plain_astar.median(), "mean": all.plain_astar.mean()},
        "astar_links_us": {"median": all.linked_astar.median(), "mean": all.linked_astar.mean()},
        "jps_us": {"median": all.plain_jps.median(), "mean": all.plain_jps.mean()},
        "jps_links_us": {"median": all.linked_jps.median(), "mean": all.linked_jps.mean()},
        "seed": args.seed,
    });
    println!("{summary}");
    Ok(all.mismatches == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searches_over_links_agree_and_links_never_make_a_query_dearer() {
        let dao = shipped_maps().join("dao");
        let args = LinksArgs {
            dir: None,
            links: 6,
            queries: 40,
            seed: 7,
        };
        let run = run_map(
            &dao.join("arena.map"),
            &dao.join("arena.map.scen"),
            &args,
            args.seed,
        )
        .expect("the shipped map reads");
        assert_eq!(run.plain_astar.micros.len(), 40);
        assert_eq!(run.mismatches, 0);
        // The same queries, every one of them found with and without the links.
        assert!(run.plain_astar.costs.iter().all(Option::is_some));
        assert!(run.linked_jps.costs.iter().all(Option::is_some));
        assert!(
            run.shortened > 0,
            "six teleporters on a 49x49 arena shorten some query"
        );
    }

    #[test]
    fn the_links_drawn_for_a_seed_are_the_same_every_time() {
        let draw = || {
            let mut grid = Grid::new(20, 20);
            add_links(&mut grid, 8, &mut SeededRandom::new(3)).expect("valid links");
            grid
        };
        assert_eq!(draw(), draw());
        assert_eq!(draw().links().len(), 8);
    }
}
