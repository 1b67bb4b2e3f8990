//! `pathbench suite`: every map and scenario pair under a directory, with a per-map table.

use crate::agent_queries::{AgentQueries, load_with_legend};
use crate::algorithm::SearchArgs;
use crate::kind::KindArgs;
use crate::memory::MemoryPerCell;
use crate::scen_report::{mean_and_worst, tolerance_line};
use crate::scen_run::{load_with_precision, run_scenario};
use clap::Args;
use std::path::{Path, PathBuf};

/// The maps shipped with the project, relative to the workspace root.
const SHIPPED_MAPS: &str = "assets/maps";

/// Arguments of `pathbench suite`.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// Directory searched recursively for `NAME.map` files with a `NAME.map.scen` beside them
    /// (default: the maps shipped in `assets/maps`).
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub kind: KindArgs,
    /// Times A* and jump point search side by side, query by query, for the plain reading at
    /// size 1 (no derived grid), size 1 through the derived grid, and each of these sizes
    /// (comma-separated), under --profile (default walker); every length is checked.
    #[arg(
        long,
        value_name = "SIZES",
        value_delimiter = ',',
        value_parser = crate::kind::size_parser(),
        conflicts_with_all = ["size", "algo"]
    )]
    pub sizes: Option<Vec<u8>>,
}

/// `assets/maps` under the current directory when it is there (run from the repository root),
/// else the one in the workspace this binary was built from.
pub fn shipped_maps() -> PathBuf {
    let here = Path::new(SHIPPED_MAPS);
    if here.is_dir() {
        here.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(SHIPPED_MAPS)
    }
}

/// The file name of `map`.
fn map_name(map: &Path) -> String {
    map.file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned())
}

/// Every `.map` under `dir` that has a `.map.scen` beside it, sorted by path.
pub fn map_pairs(dir: &Path) -> Result<Vec<(PathBuf, PathBuf)>, String> {
    let mut pairs = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|error| format!("{}: {error}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "map") {
                let mut scen = path.clone().into_os_string();
                scen.push(".scen");
                let scen = PathBuf::from(scen);
                if scen.is_file() {
                    pairs.push((path, scen));
                }
            }
        }
    }
    pairs.sort();
    if pairs.is_empty() {
        return Err(format!(
            "no NAME.map with NAME.map.scen under {}",
            dir.display()
        ));
    }
    Ok(pairs)
}

pub fn run(args: &SuiteArgs) -> Result<bool, String> {
    let dir = args.dir.clone().unwrap_or_else(shipped_maps);
    let pairs = map_pairs(&dir)?;
    if let Some(sizes) = &args.sizes {
        crate::side_by_side::run(&dir, &pairs, sizes, args.kind.profile, &args.search)
    } else if args.kind.is_plain() {
        run_plain(args, &dir, &pairs)
    } else {
        run_for_kind(args, &dir, &pairs)
    }
}

/// The plain reading at size 1: each scenario's own lengths, no derived grid.
fn run_plain(args: &SuiteArgs, dir: &Path, pairs: &[(PathBuf, PathBuf)]) -> Result<bool, String> {
    println!("{} maps under {}", pairs.len(), dir.display());
    let compare_astar = args.search.algo == astar_grid::Algorithm::JumpPoint;
    println!(
        "{:<28} {:>7} {:>6} {:>10} {:>10} {:>12}{}",
        "map",
        "queries",
        "wrong",
        "mean us",
        "median us",
        "expanded",
        if compare_astar { "   A* expanded" } else { "" }
    );
    let (mut queries, mut mismatches, mut total_us, mut expansions, mut max_error) =
        (0, 0, 0.0, 0, 0.0f64);
    let mut astar_expansions = 0;
    let (mut at_file_precision, mut at_relative) = (0, 0);
    let mut times = Vec::new();
    let (mut illegal, mut suboptimality) = (0, Vec::new());
    // Memory per cell of the largest map (most cells), and the most A* memory per cell.
    let mut memory: Option<(usize, String, MemoryPerCell)> = None;
    let mut most_astar = (0.0, String::new());
    for (map, scen) in pairs {
        let (grid, scenario, precision) = load_with_precision(map, scen)?;
        let report = run_scenario(&grid, &scenario, precision, &args.search, |_, _| {})?;
        let measured = MemoryPerCell::measure(&grid, &scenario)
            .map_err(|error| format!("{}: {error}", map.display()))?;
        let label = format!("{}, {}x{}", map_name(map), grid.width(), grid.height());
        if measured.astar > most_astar.0 {
            most_astar = (measured.astar, label.clone());
        }
        if memory
            .as_ref()
            .is_none_or(|(cells, ..)| grid.len() > *cells)
        {
            memory = Some((grid.len(), label, measured));
        }
        let name = map_name(map);
        println!(
            "{name:<28} {:>7} {:>6} {:>10.1} {:>10.1} {:>12.0}{}",
            report.queries,
            report.mismatches,
            report.mean_us(),
            report.median_us(),
            report.expansions_mean(),
            report
                .astar_expansions_mean()
                .map_or_else(String::new, |astar| format!(" {astar:>14.0}"))
        );
        astar_expansions += report.astar_expansions.unwrap_or(0);
        queries += report.queries;
        mismatches += report.mismatches;
        at_file_precision += report.checked_at_file_precision;
        at_relative += report.checked_at_relative;
        total_us += report.total_us;
        expansions += report.expansions;
        max_error = max_error.max(report.max_abs_error);
        illegal += report.illegal;
        suboptimality.extend_from_slice(&report.suboptimality);
        times.extend(report.times_us);
    }
    let mean_us = total_us / queries.max(1) as f64;
    let expansions_mean = expansions as f64 / queries.max(1) as f64;
    let astar_expansions_mean =
        compare_astar.then(|| astar_expansions as f64 / queries.max(1) as f64);
    println!(
        "{:<28} {queries:>7} {mismatches:>6} {mean_us:>10.1} {:>10.1} {expansions_mean:>12.0}{}",
        "all",
        crate::scen_report::median(&times),
        astar_expansions_mean.map_or_else(String::new, |astar| format!(" {astar:>14.0}"))
    );
    println!("{}", tolerance_line(at_file_precision, at_relative));
    let (_, largest, memory) = memory.unwrap_or_default();
    println!(
        "{}",
        memory.summary_line(&largest, (most_astar.0, &most_astar.1))
    );
    let (mean_suboptimality, max_suboptimality) = mean_and_worst(&suboptimality);
    let mut summary = serde_json::json!({
        "maps": pairs.len(),
        "queries": queries,
        "mismatches": mismatches,
        "max_abs_error": max_error,
        "mean_us": mean_us,
        "median_us": crate::scen_report::median(&times),
        "expansions_mean": expansions_mean,
        "memory_bytes_per_cell": memory.to_json(),
        "memory_map": largest,
        "most_astar_bytes_per_cell": most_astar.0,
        "checked_at_file_precision": at_file_precision,
        "checked_at_relative": at_relative,
        "illegal": illegal,
        "mean_suboptimality": mean_suboptimality,
        "max_suboptimality": max_suboptimality,
    });
    if let Some(astar) = astar_expansions_mean {
        summary["astar_expansions_mean"] = astar.into();
    }
    println!("{summary}");
    Ok(mismatches == 0 && illegal == 0)
}

/// Totals of a suite run for one agent kind.
#[derive(Debug, Default)]
struct KindTotals {
    queries: usize,
    run: usize,
    not_fitting: usize,
    unreachable: usize,
    mismatches: usize,
    at_relative: usize,
    total_us: f64,
    expansions: u64,
    astar_expansions: u64,
    max_error: f64,
    build_us: f64,
    times: Vec<f64>,
}

/// Memory per cell measured on the largest map (most cells) of a suite run for one agent kind.
#[derive(Debug, Default)]
struct LargestMap {
    cells: usize,
    label: String,
    /// The search contexts after the map's last query, on the derived grid.
    search: MemoryPerCell,
    /// [`astar_grid::AgentGrid::memory_bytes`] per cell.
    agent_grid: f64,
    /// The clearance's share of it.
    clearance: f64,
}

/// A size above 1 or a terrain profile: every map's queries on the kind's derived grid, checked
/// against the reference on the eroded map, with the queries whose start or goal does not fit
/// counted apart.
fn run_for_kind(
    args: &SuiteArgs,
    dir: &Path,
    pairs: &[(PathBuf, PathBuf)],
) -> Result<bool, String> {
    println!(
        "{} maps under {}, agent {}",
        pairs.len(),
        dir.display(),
        args.kind.label()
    );
    let compare_astar = args.search.algo == astar_grid::Algorithm::JumpPoint;
    println!(
        "{:<28} {:>7} {:>6} {:>7} {:>6} {:>10} {:>10} {:>12}{} {:>9}",
        "map",
        "queries",
        "no fit",
        "unreach",
        "wrong",
        "mean us",
        "median us",
        "expanded",
        if compare_astar { "   A* expanded" } else { "" },
        "build ms"
    );
    let options = args.search.options();
    let mut totals = KindTotals::default();
    // The largest map (most cells): its label, search memory and derived grid bytes per cell.
    let mut largest = LargestMap::default();
    for (map, scen) in pairs {
        let (terrain, scenario) = load_with_legend(map, scen, &args.kind.legend())?;
        let queries = AgentQueries::new(&terrain, &scenario, &args.kind.kind(), &options)
            .map_err(|error| format!("{}: {error}", map.display()))?;
        let (report, mismatches) = queries
            .check(&args.search, |_, _| {})
            .map_err(|error| format!("{}: {error}", map.display()))?;
        let name = map_name(map);
        println!(
            "{name:<28} {:>7} {:>6} {:>7} {mismatches:>6} {:>10.1} {:>10.1} {:>12.0}{} {:>9.2}",
            scenario.queries.len(),
            queries.not_fitting,
            queries.unreachable,
            report.mean_us(),
            report.median_us(),
            report.expansions_mean(),
            report
                .astar_expansions_mean()
                .map_or_else(String::new, |astar| format!(" {astar:>14.0}")),
            queries.build_us / 1e3
        );
        if terrain.len() > largest.cells {
            let cells = terrain.len() as f64;
            largest = LargestMap {
                cells: terrain.len(),
                label: format!("{name}, {}x{}", terrain.width(), terrain.height()),
                search: MemoryPerCell::measure(queries.grid(), &queries.scenario)
                    .map_err(|error| format!("{}: {error}", map.display()))?,
                agent_grid: queries.agent.memory_bytes() as f64 / cells,
                clearance: queries.agent.clearance().memory_bytes() as f64 / cells,
            };
        }
        totals.queries += scenario.queries.len();
        totals.run += report.queries;
        totals.not_fitting += queries.not_fitting;
        totals.unreachable += queries.unreachable;
        totals.mismatches += mismatches;
        totals.at_relative += report.checked_at_relative;
        totals.total_us += report.total_us;
        totals.expansions += report.expansions;
        totals.astar_expansions += report.astar_expansions.unwrap_or(0);
        totals.max_error = totals.max_error.max(report.max_abs_error);
        totals.build_us += queries.build_us;
        totals.times.extend(report.times_us);
    }
    print_kind_totals(args, pairs.len(), &totals, compare_astar, &largest);
    Ok(totals.mismatches == 0)
}

/// The closing row, lines and JSON summary of [`run_for_kind`].
fn print_kind_totals(
    args: &SuiteArgs,
    maps: usize,
    totals: &KindTotals,
    compare_astar: bool,
    largest: &LargestMap,
) {
    let run = totals.run.max(1) as f64;
    let mean_us = totals.total_us / run;
    let median_us = crate::scen_report::median(&totals.times);
    let expansions_mean = totals.expansions as f64 / run;
    let astar_expansions_mean = compare_astar.then(|| totals.astar_expansions as f64 / run);
    println!(
        "{:<28} {:>7} {:>6} {:>7} {:>6} {mean_us:>10.1} {median_us:>10.1} {expansions_mean:>12.0}{} {:>9.2}",
        "all",
        totals.queries,
        totals.not_fitting,
        totals.unreachable,
        totals.mismatches,
        astar_expansions_mean.map_or_else(String::new, |astar| format!(" {astar:>14.0}")),
        totals.build_us / 1e3
    );
    println!(
        "{} queries run ({} set apart: start or goal does not fit); reference: a Dijkstra on each \
         map eroded by brute force; {}",
        totals.run,
        totals.not_fitting,
        tolerance_line(0, totals.at_relative)
    );
    println!(
        "memory per cell on the largest map ({}): AgentGrid {:.3} B (clearance {:.3} B), \
         A* context {:.2} B, JPS context {} B",
        largest.label,
        largest.agent_grid,
        largest.clearance,
        largest.search.astar,
        largest
            .search
            .jps
            .map_or_else(|| "-".to_owned(), |jps| format!("{jps:.2}"))
    );
    let summary = kind_summary(args, maps, totals, largest, astar_expansions_mean);
    println!("{summary}");
}

/// The JSON summary of [`run_for_kind`].
fn kind_summary(
    args: &SuiteArgs,
    maps: usize,
    totals: &KindTotals,
    largest: &LargestMap,
    astar_expansions_mean: Option<f64>,
) -> serde_json::Value {
    let run = totals.run.max(1) as f64;
    let mut summary = serde_json::json!({
        "maps": maps,
        "kind": args.kind.label(),
        "size": args.kind.size,
        "profile": args.kind.profile.map(crate::kind::ProfileName::name),
        "queries": totals.queries,
        "run": totals.run,
        "not_fitting": totals.not_fitting,
        "unreachable": totals.unreachable,
        "mismatches": totals.mismatches,
        "max_abs_error": totals.max_error,
        "mean_us": totals.total_us / run,
        "median_us": crate::scen_report::median(&totals.times),
        "expansions_mean": totals.expansions as f64 / run,
        "build_ms": totals.build_us / 1e3,
        "memory_map": largest.label,
        "agent_grid_bytes_per_cell": largest.agent_grid,
        "clearance_bytes_per_cell": largest.clearance,
        "memory_bytes_per_cell": largest.search.to_json(),
        "checked_at_relative": totals.at_relative,
    });
    if let Some(astar) = astar_expansions_mean {
        summary["astar_expansions_mean"] = astar.into();
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run from the package directory (as `cargo test` does), the default finds the shipped
    /// maps through the workspace: one or more of each Moving AI family, each with its scenario.
    #[test]
    fn the_default_is_every_shipped_map() {
        assert!(
            !Path::new(SHIPPED_MAPS).is_dir(),
            "run from the package directory"
        );
        let dir = shipped_maps();
        let pairs = map_pairs(&dir).expect("maps are shipped");
        let families: std::collections::BTreeSet<String> = pairs
            .iter()
            .filter_map(|(map, _)| {
                let family = map.parent()?.strip_prefix(&dir).ok()?;
                Some(family.to_string_lossy().into_owned())
            })
            .collect();
        assert_eq!(
            families.into_iter().collect::<Vec<_>>(),
            ["dao", "mazes", "random", "rooms"]
        );
        assert!(pairs.iter().all(|(_, scen)| scen.is_file()));
    }
}
