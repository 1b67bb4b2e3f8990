//! Reading a map and its scenario, and running every query of it with one algorithm, each
//! length checked against the file's: below the commands that report on scenarios.

use crate::algorithm::SearchArgs;
use crate::scen_report::ScenReport;
use crate::tolerance::{LengthPrecision, printed_decimals};
use astar_grid::{Algorithm, Grid, Scenario};
use std::path::Path;
use std::time::Instant;

/// `grid` in ASCII (`#` blocked, `.` walkable) with the cells of `path` drawn `*`.
pub fn draw_path(grid: &Grid, path: Option<&astar_grid::Path>) -> String {
    let cells: std::collections::HashSet<_> = path
        .map(|path| path.cells.iter().copied().collect())
        .unwrap_or_default();
    grid.to_ascii_with(|cell| cells.contains(&cell).then_some('*'))
        .replace(|c: char| c.is_ascii_digit(), ".")
}

/// Whether `path` runs from `start` to `goal` by steps that `movement` allows on `grid` (or open
/// links), and costs what its steps cost.
pub fn is_legal(
    grid: &Grid,
    path: &astar_grid::Path,
    (start, goal): (astar_grid::Cell, astar_grid::Cell),
    (movement, cost): (astar_grid::Movement, astar_grid::CostModel),
) -> bool {
    let joins = path.cells.first() == Some(&start) && path.cells.last() == Some(&goal);
    let steps: Option<f64> = path
        .cells
        .windows(2)
        .map(|step| grid.step_cost(step[0], step[1], movement, cost))
        .sum();
    joins && steps.is_some_and(|total| (total - path.cost).abs() <= 1e-6 * total.max(1.0))
}

/// Reads a map and its scenario, naming the file in any error.
pub fn load(map: &Path, scen: &Path) -> Result<(Grid, Scenario), String> {
    load_with_precision(map, scen).map(|(grid, scenario, _)| (grid, scenario))
}

/// Reads a map and its scenario, with the decimals the scenario prints its lengths with,
/// naming the file in any error.
pub fn load_with_precision(
    map: &Path,
    scen: &Path,
) -> Result<(Grid, Scenario, LengthPrecision), String> {
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))
    };
    let grid = astar_grid::parse_map(&read(map)?)
        .map_err(|error| format!("{}: {error}", map.display()))?;
    let text = read(scen)?;
    let scenario = astar_grid::parse_scenario(&text)
        .map_err(|error| format!("{}: {error}", scen.display()))?;
    let decimals = printed_decimals(&text);
    if decimals.len() != scenario.queries.len() {
        return Err(format!(
            "{}: {} queries but {} lengths",
            scen.display(),
            scenario.queries.len(),
            decimals.len()
        ));
    }
    Ok((grid, scenario, LengthPrecision::from_printed(decimals)))
}

/// Runs every query and checks its length at the file's `precision`; `on_query` sees each
/// index and found path.
pub fn run_scenario(
    grid: &Grid,
    scenario: &Scenario,
    precision: LengthPrecision,
    args: &SearchArgs,
    mut on_query: impl FnMut(usize, Option<&astar_grid::Path>),
) -> Result<ScenReport, String> {
    if args.algo == Algorithm::FlowField {
        return crate::flow::run_scenario(grid, scenario, precision, args, on_query);
    }
    // Made outside the timing: the jump grid of jump point search is built here.
    let mut engine = args.engine(grid).map_err(|error| error.to_string())?;
    let mut report = ScenReport::new(precision, scenario.queries.len());
    report.bounded = !args.algo.is_optimal();
    report.hierarchy = engine.hierarchy().map(|hierarchy| {
        (
            hierarchy.sector_count(),
            hierarchy.node_count(),
            hierarchy.memory_bytes(),
        )
    });
    let rules = (engine.options().movement, engine.options().cost);
    for (index, query) in scenario.queries.iter().enumerate() {
        let started = Instant::now();
        let result = engine.find_path(query.start, query.goal);
        let elapsed = started.elapsed().as_secs_f64() * 1e6;
        let (found, expanded) = match &result {
            Ok(result) => (result.found(), result.stats.expanded),
            Err(error) => {
                return Err(format!(
                    "query {index} ({} -> {}): {error}",
                    query.start, query.goal
                ));
            }
        };
        report.record(elapsed, u64::from(expanded), found, query.optimal_length);
        if let Some(path) = found
            && !is_legal(grid, path, (query.start, query.goal), rules)
        {
            report.illegal += 1;
        }
        on_query(index, found);
    }
    if args.algo == Algorithm::JumpPoint {
        // Untimed, after the timed loop so that it does not disturb the caches.
        let options = *engine.options();
        let mut expansions = 0;
        for query in &scenario.queries {
            let result = engine
                .searcher_mut()
                .find_path(grid, query.start, query.goal, &options)
                .map_err(|error| format!("A* {} -> {}: {error}", query.start, query.goal))?;
            expansions += u64::from(result.stats.expanded);
        }
        report.astar_expansions = Some(expansions);
    }
    Ok(report)
}
