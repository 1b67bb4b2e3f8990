//! `pathbench scen`: one map, one scenario file, every query checked against its optimal length.

use crate::agent_queries::{AgentQueries, load_with_legend};
use crate::algorithm::SearchArgs;
use crate::kind::KindArgs;
use crate::tolerance::{LengthPrecision, RELATIVE_TOLERANCE, Tolerance, printed_decimals};
use astar_grid::{Algorithm, Engine, Grid, Scenario};
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
    #[command(flatten)]
    pub kind: KindArgs,
    /// Print query N's map with its path drawn (`#` walls, `.` free, `*` path).
    #[arg(long, value_name = "N")]
    pub ascii: Option<usize>,
}

/// What one scenario run measured.
#[derive(Clone, Debug, Default)]
pub struct ScenReport {
    /// The decimals the scenario file prints its lengths with.
    pub precision: LengthPrecision,
    pub queries: usize,
    pub mismatches: usize,
    /// Lengths checked within half a unit of the file's last printed decimal.
    pub checked_at_file_precision: usize,
    /// Lengths checked within relative 1e-4.
    pub checked_at_relative: usize,
    pub max_abs_error: f64,
    pub total_us: f64,
    pub times_us: Vec<f64>,
    pub expansions: u64,
    /// For jump point search: A*'s expansions on the same queries, for comparison.
    pub astar_expansions: Option<u64>,
}

impl ScenReport {
    /// An empty report for `queries` queries of a file printing lengths with `precision`.
    pub fn new(precision: LengthPrecision, queries: usize) -> Self {
        Self {
            precision,
            times_us: Vec::with_capacity(queries),
            ..Self::default()
        }
    }

    /// Adds one query: its time, its expansions, and whether its path matches `optimal_length`
    /// (within the file's printed precision or relative 1e-4, whichever is looser; a negative
    /// length means no path exists).
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
                let (tolerance, applied) = self.precision.tolerance(optimal_length);
                match applied {
                    Tolerance::FilePrecision => self.checked_at_file_precision += 1,
                    Tolerance::Relative => self.checked_at_relative += 1,
                }
                if error > tolerance {
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

    /// Adds the tolerance counts to a JSON summary.
    pub fn add_tolerance_counts(&self, summary: &mut serde_json::Value) {
        summary["checked_at_file_precision"] = self.checked_at_file_precision.into();
        summary["checked_at_relative"] = self.checked_at_relative.into();
    }
}

/// The line that says which tolerance the lengths were checked at.
pub fn tolerance_line(at_file_precision: usize, at_relative: usize) -> String {
    format!(
        "lengths checked: {at_file_precision} within the file's printed precision \
         (half a unit in its last decimal), {at_relative} within relative {RELATIVE_TOLERANCE:e}"
    )
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

/// `grid` in ASCII (`#` blocked, `.` walkable) with the cells of `path` drawn `*`.
fn draw_path(grid: &Grid, path: Option<&astar_grid::Path>) -> String {
    let cells: std::collections::HashSet<_> = path
        .map(|path| path.cells.iter().copied().collect())
        .unwrap_or_default();
    grid.to_ascii_with(|cell| cells.contains(&cell).then_some('*'))
        .replace(|c: char| c.is_ascii_digit(), ".")
}

/// Reads a map and its scenario, naming the file in any error.
#[cfg(feature = "compare-main-thread")]
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
    let mut engine =
        Engine::new(grid, args.algo, &args.options()).map_err(|error| error.to_string())?;
    let mut report = ScenReport::new(precision, scenario.queries.len());
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

pub fn run(args: &ScenArgs) -> Result<bool, String> {
    if args.kind.is_plain() {
        run_plain(args)
    } else {
        run_for_kind(args)
    }
}

/// The plain reading at size 1: the scenario's own lengths, no derived grid.
fn run_plain(args: &ScenArgs) -> Result<bool, String> {
    let (grid, scenario, precision) = load_with_precision(&args.map, &args.scen)?;
    let mut drawing = None;
    let report = run_scenario(&grid, &scenario, precision, &args.search, |index, path| {
        if Some(index) == args.ascii {
            drawing = Some((draw_path(&grid, path), path.map(|path| path.cost)));
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
    println!(
        "{}",
        tolerance_line(report.checked_at_file_precision, report.checked_at_relative)
    );
    let mut summary = serde_json::json!({
        "map": args.map.display().to_string(),
        "queries": report.queries,
        "mismatches": report.mismatches,
        "max_abs_error": report.max_abs_error,
        "mean_us": report.mean_us(),
        "median_us": report.median_us(),
        "expansions_mean": report.expansions_mean(),
        "file_decimals": precision.decimals(),
    });
    report.add_tolerance_counts(&mut summary);
    if let Some(astar) = report.astar_expansions_mean() {
        summary["astar_expansions_mean"] = astar.into();
    }
    println!("{summary}");
    Ok(report.mismatches == 0)
}

/// A size above 1 or a terrain profile: the queries run on the kind's derived grid, each checked
/// against the reference on the eroded map; queries whose start or goal does not fit are
/// counted apart.
fn run_for_kind(args: &ScenArgs) -> Result<bool, String> {
    let (terrain, scenario) = load_with_legend(&args.map, &args.scen, &args.kind.legend())?;
    if let Some(index) = args.ascii
        && index >= scenario.queries.len()
    {
        return Err(format!(
            "--ascii {index}: the scenario has {} queries",
            scenario.queries.len()
        ));
    }
    let options = args.search.options();
    let queries = AgentQueries::new(&terrain, &scenario, &args.kind.kind(), &options)
        .map_err(|error| format!("{}: {error}", args.map.display()))?;
    let drawn_at = args.ascii.and_then(|index| queries.position_of(index));
    let mut drawing = None;
    let mut found_unreachable = 0;
    let (report, mismatches) = queries.check(&args.search, |position, path| {
        if path.is_some() && queries.scenario.queries[position].optimal_length < 0.0 {
            found_unreachable += 1;
        }
        if Some(position) == drawn_at {
            drawing = Some((draw_path(queries.grid(), path), path.map(|path| path.cost)));
        }
    })?;
    if let Some(index) = args.ascii {
        print_kind_drawing(index, &scenario, &queries, drawing);
    }
    print_kind_report(
        args,
        &scenario,
        &queries,
        &report,
        mismatches,
        found_unreachable,
    );
    Ok(mismatches == 0)
}

/// Query `index`'s path drawn on the derived grid, or why its endpoints do not fit.
fn print_kind_drawing(
    index: usize,
    scenario: &Scenario,
    queries: &AgentQueries,
    drawing: Option<(String, Option<f64>)>,
) {
    let query = &scenario.queries[index];
    let reference = queries
        .position_of(index)
        .map(|position| queries.scenario.queries[position].optimal_length);
    let length = |length: Option<f64>| {
        length
            .filter(|&length| length >= 0.0)
            .map_or_else(|| "no path".to_owned(), |length| format!("{length:.4}"))
    };
    match (
        drawing,
        queries.agent.check_endpoints(query.start, query.goal),
    ) {
        (Some((picture, cost)), _) => {
            println!(
                "query {index}: {} -> {}, reference {}, found {}",
                query.start,
                query.goal,
                length(reference),
                length(cost)
            );
            print!("{picture}");
        }
        (None, Err(error)) => println!("query {index}: {error}"),
        (None, Ok(())) => println!(
            "query {index}: the derived grid takes its endpoints but the eroded map does not"
        ),
    }
}

/// The summary lines and JSON line of [`run_for_kind`].
fn print_kind_report(
    args: &ScenArgs,
    scenario: &Scenario,
    queries: &AgentQueries,
    report: &ScenReport,
    mismatches: usize,
    found_unreachable: usize,
) {
    println!(
        "{} ({}): {} queries, {} set apart (start or goal does not fit), {} unreachable for the \
         agent ({found_unreachable} found a path anyway), {mismatches} mismatches, max |error| \
         {:.2e}, mean {:.1} us, median {:.1} us, {:.0} expansions/query{}",
        args.map.display(),
        args.kind.label(),
        scenario.queries.len(),
        queries.not_fitting,
        queries.unreachable,
        report.max_abs_error,
        report.mean_us(),
        report.median_us(),
        report.expansions_mean(),
        report
            .astar_expansions_mean()
            .map_or_else(String::new, |astar| format!(" (A*: {astar:.0})"))
    );
    println!(
        "reference: a Dijkstra on the map eroded by brute force; {}",
        tolerance_line(report.checked_at_file_precision, report.checked_at_relative)
    );
    let cells = queries.grid().len().max(1) as f64;
    let memory = queries.agent.memory_bytes();
    println!(
        "derived grid: built in {:.2} ms, {memory} B ({:.3} B per cell, clearance {:.3} B per cell)",
        queries.build_us / 1e3,
        memory as f64 / cells,
        queries.agent.clearance().memory_bytes() as f64 / cells
    );
    let mut summary = serde_json::json!({
        "map": args.map.display().to_string(),
        "kind": args.kind.label(),
        "size": args.kind.size,
        "profile": args.kind.profile.map(crate::kind::ProfileName::name),
        "queries": scenario.queries.len(),
        "run": report.queries,
        "not_fitting": queries.not_fitting,
        "unreachable": queries.unreachable,
        "unreachable_found": found_unreachable,
        "fit_disagreements": queries.fit_disagreements,
        "mismatches": mismatches,
        "max_abs_error": report.max_abs_error,
        "mean_us": report.mean_us(),
        "median_us": report.median_us(),
        "expansions_mean": report.expansions_mean(),
        "build_ms": queries.build_us / 1e3,
        "agent_grid_bytes": memory,
    });
    report.add_tolerance_counts(&mut summary);
    if let Some(astar) = report.astar_expansions_mean() {
        summary["astar_expansions_mean"] = astar.into();
    }
    println!("{summary}");
}
