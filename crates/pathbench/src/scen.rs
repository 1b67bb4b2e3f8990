//! `pathbench scen`: one map, one scenario file, every query checked against its optimal length.

use crate::agent_queries::{AgentQueries, load_with_legend};
use crate::algorithm::SearchArgs;
use crate::kind::KindArgs;
use crate::scen_report::{ScenReport, tolerance_line};
use crate::scen_run::{draw_path, load_with_precision, run_scenario};
use astar_grid::Scenario;
use clap::Args;
use std::path::PathBuf;

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
    report.add_quality(&mut summary);
    if let Some(astar) = report.astar_expansions_mean() {
        summary["astar_expansions_mean"] = astar.into();
    }
    println!("{summary}");
    Ok(report.mismatches == 0 && report.illegal == 0)
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
