//! `pathbench scen`: one map, one scenario file, every query checked against its optimal length.

use crate::algorithm::{SearchArgs, jump_search_for, search};
use astar_grid::{Grid, Scenario, Searcher};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `pathbench scen`.
#[derive(Debug, Args)]
pub struct ScenArgs {
    /// The `.map` file.
    pub map: PathBuf,
    /// The `.scen` file (its map column is ignored).
    pub scen: PathBuf,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Print query N's map with its path drawn (`#` walls, `.` free, `*` path).
    #[arg(long, value_name = "N")]
    pub ascii: Option<usize>,
}

/// What one scenario run measured.
#[derive(Clone, Debug, Default)]
pub struct ScenReport {
    pub queries: usize,
    pub mismatches: usize,
    pub max_abs_error: f64,
    pub total_us: f64,
    pub times_us: Vec<f64>,
    pub expansions: u64,
    /// For jump point search: A*'s expansions on the same queries, for comparison.
    pub astar_expansions: Option<u64>,
}

impl ScenReport {
    /// Adds one query: its time, its expansions, and whether its path matches `optimal_length`
    /// (relative tolerance 1e-4; a negative length means no path exists).
    pub fn record(
        &mut self,
        time_us: f64,
        expansions: u64,
        found: Option<&astar_grid::Path>,
        optimal_length: f64,
    ) {
        self.queries += 1;
        self.total_us += time_us;
        self.times_us.push(time_us);
        self.expansions += expansions;
        match (found, optimal_length >= 0.0) {
            (Some(path), true) => {
                let error = (path.cost - optimal_length).abs();
                self.max_abs_error = self.max_abs_error.max(error);
                if error > 1e-4 * optimal_length.max(1.0) {
                    self.mismatches += 1;
                }
            }
            (None, false) => {}
            _ => self.mismatches += 1,
        }
    }

    pub fn mean_us(&self) -> f64 {
        self.total_us / self.queries.max(1) as f64
    }

    pub fn median_us(&self) -> f64 {
        median(&self.times_us)
    }

    pub fn expansions_mean(&self) -> f64 {
        self.expansions as f64 / self.queries.max(1) as f64
    }

    pub fn astar_expansions_mean(&self) -> Option<f64> {
        self.astar_expansions
            .map(|expansions| expansions as f64 / self.queries.max(1) as f64)
    }
}

pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    } else {
        sorted[middle]
    }
}

/// Reads a map and its scenario, naming the file in any error.
pub fn load(map: &Path, scen: &Path) -> Result<(Grid, Scenario), String> {
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))
    };
    let grid = astar_grid::parse_map(&read(map)?)
        .map_err(|error| format!("{}: {error}", map.display()))?;
    let scenario = astar_grid::parse_scenario(&read(scen)?)
        .map_err(|error| format!("{}: {error}", scen.display()))?;
    Ok((grid, scenario))
}

/// Runs every query; `on_query` sees each index, query and found path.
pub fn run_scenario(
    grid: &Grid,
    scenario: &Scenario,
    args: &SearchArgs,
    mut on_query: impl FnMut(usize, Option<&astar_grid::Path>),
) -> Result<ScenReport, String> {
    if args.algo == crate::algorithm::Algorithm::Flow {
        return crate::flow::run_scenario(grid, scenario, args, on_query);
    }
    let options = args.options();
    let jump_search = jump_search_for(grid, args)?;
    let mut searcher = Searcher::for_grid(grid);
    let mut report = ScenReport {
        times_us: Vec::with_capacity(scenario.queries.len()),
        ..ScenReport::default()
    };
    for (index, query) in scenario.queries.iter().enumerate() {
        let started = Instant::now();
        let result = match &jump_search {
            Some((jump_grid, jps)) => {
                searcher.find_path_jps(jump_grid, query.start, query.goal, jps)
            }
            None => search(&mut searcher, grid, query.start, query.goal, &options),
        };
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
        on_query(index, found);
    }
    if jump_search.is_some() {
        // Untimed, after the timed loop so that it does not disturb the caches.
        let mut expansions = 0;
        for query in &scenario.queries {
            let result = searcher
                .find_path(grid, query.start, query.goal, &options)
                .map_err(|error| format!("A* {} -> {}: {error}", query.start, query.goal))?;
            expansions += u64::from(result.stats.expanded);
        }
        report.astar_expansions = Some(expansions);
    }
    Ok(report)
}

pub fn run(args: &ScenArgs) -> Result<bool, String> {
    let (grid, scenario) = load(&args.map, &args.scen)?;
    let mut drawing = None;
    let report = run_scenario(&grid, &scenario, &args.search, |index, path| {
        if Some(index) == args.ascii {
            let cells: std::collections::HashSet<_> = path
                .map(|path| path.cells.iter().copied().collect())
                .unwrap_or_default();
            drawing = Some((
                grid.to_ascii_with(|cell| cells.contains(&cell).then_some('*'))
                    .replace(|c: char| c.is_ascii_digit(), "."),
                path.map(|path| path.cost),
            ));
        }
    })?;
    if let (Some(index), Some((picture, cost))) = (args.ascii, drawing) {
        let query = &scenario.queries[index];
        println!(
            "query {index}: {} -> {}, optimal {:.4}, found {}",
            query.start,
            query.goal,
            query.optimal_length,
            cost.map_or_else(|| "no path".to_owned(), |cost| format!("{cost:.4}"))
        );
        print!("{picture}");
    }
    println!(
        "{}: {} queries, {} mismatches, max |error| {:.2e}, mean {:.1} us, median {:.1} us, {:.0} expansions/query{}",
        args.map.display(),
        report.queries,
        report.mismatches,
        report.max_abs_error,
        report.mean_us(),
        report.median_us(),
        report.expansions_mean(),
        report
            .astar_expansions_mean()
            .map_or_else(String::new, |astar| format!(" (A*: {astar:.0})"))
    );
    let mut summary = serde_json::json!({
        "map": args.map.display().to_string(),
        "queries": report.queries,
        "mismatches": report.mismatches,
        "max_abs_error": report.max_abs_error,
        "mean_us": report.mean_us(),
        "median_us": report.median_us(),
        "expansions_mean": report.expansions_mean(),
    });
    if let Some(astar) = report.astar_expansions_mean() {
        summary["astar_expansions_mean"] = astar.into();
    }
    println!("{summary}");
    Ok(report.mismatches == 0)
}
