//! `pathbench suite --sizes`: A* and jump point search timed side by side for several agent
//! kinds, query by query in one process: the plain reading at size 1 (no derived grid), size 1
//! through the derived grid, and each size asked for, every length checked.

use crate::agent_queries::{AgentQueries, read_map};
use crate::algorithm::SearchArgs;
use crate::kind::ProfileName;
use crate::scen_report::{ScenReport, median};
use crate::scen_run::load_with_precision;
use crate::tolerance::LengthPrecision;
use astar_grid::{AgentKind, Algorithm, Engine, Grid, Legend, Scenario, SearchOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What one kind of agent searches on one map: its grid and queries, an engine per algorithm,
/// and what was measured.
struct Lane<'a> {
    label: String,
    /// The queries the lane runs (those that fit), with the lengths they are checked against.
    scenario: &'a Scenario,
    /// Position in `scenario` of each query of the file, `None` when set apart.
    positions: Vec<Option<usize>>,
    astar: Engine<'a>,
    jps: Engine<'a>,
    astar_report: ScenReport,
    jps_report: ScenReport,
    /// By file index: each algorithm's time and expansions when it found a path.
    astar_times: Vec<Option<(f64, u32)>>,
    jps_times: Vec<Option<(f64, u32)>>,
}

impl<'a> Lane<'a> {
    fn new(
        label: String,
        grid: &'a Grid,
        scenario: &'a Scenario,
        precision: LengthPrecision,
        positions: Vec<Option<usize>>,
        options: &SearchOptions,
    ) -> Result<Self, String> {
        let engine = |algorithm: Algorithm| {
            Engine::new(grid, algorithm, options)
                .map_err(|error| format!("{label}: {} does not apply: {error}", algorithm.name()))
        };
        let files = positions.len();
        Ok(Self {
            astar: engine(Algorithm::AStar)?,
            jps: engine(Algorithm::JumpPoint)?,
            astar_report: ScenReport::new(precision, scenario.queries.len()),
            jps_report: ScenReport::new(precision, scenario.queries.len()),
            astar_times: vec![None; files],
            jps_times: vec![None; files],
            label,
            scenario,
            positions,
        })
    }

    /// Runs the lane's last query (the longest in a Moving AI file) with both algorithms,
    /// untimed and unrecorded, so that no lane's first timed query pays for memory touched
    /// the first time.
    fn warm_up(&mut self) -> Result<(), String> {
        let Some(query) = self.scenario.queries.last() else {
            return Ok(());
        };
        for engine in [&mut self.astar, &mut self.jps] {
            engine
                .find_path(query.start, query.goal)
                .map_err(|error| format!("{}, warm-up: {error}", self.label))?;
        }
        Ok(())
    }

    /// Runs the file's query `index` with both algorithms, when the lane has it.
    fn run(&mut self, index: usize) -> Result<(), String> {
        let Some(position) = self.positions[index] else {
            return Ok(());
        };
        let query = &self.scenario.queries[position];
        for (engine, report, times) in [
            (
                &mut self.astar,
                &mut self.astar_report,
                &mut self.astar_times,
            ),
            (&mut self.jps, &mut self.jps_report, &mut self.jps_times),
        ] {
            let started = Instant::now();
            let result = engine.find_path(query.start, query.goal);
            let elapsed = started.elapsed().as_secs_f64() * 1e6;
            let result = result.map_err(|error| {
                format!(
                    "{}, {} query {index} ({} -> {}): {error}",
                    self.label,
                    engine.algorithm().name(),
                    query.start,
                    query.goal
                )
            })?;
            let found = result.found();
            report.record(
                elapsed,
                u64::from(result.stats.expanded),
                found,
                query.optimal_length,
            );
            times[index] = found.map(|_| (elapsed, result.stats.expanded));
        }
        Ok(())
    }
}

/// A kind's times over the plain reading's, on the queries of a map (or of several) that both
/// found a path for with both algorithms: per query, and summed.
#[derive(Debug, Default)]
struct Ratios {
    astar: Vec<f64>,
    jps: Vec<f64>,
    /// Per query, A*'s expansions over the plain reading's.
    astar_expansions: Vec<f64>,
    /// The kind's summed times and the plain reading's.
    astar_us: (f64, f64),
    jps_us: (f64, f64),
    /// The kind's summed A* expansions and the plain reading's.
    astar_expanded: (f64, f64),
}

impl Ratios {
    /// `lane` over `plain` on one map.
    fn of(lane: &Lane<'_>, plain: &Lane<'_>) -> Self {
        let mut ratios = Self::default();
        for index in 0..plain.astar_times.len() {
            let pairs = [
                (lane.astar_times[index], plain.astar_times[index]),
                (lane.jps_times[index], plain.jps_times[index]),
            ];
            let [
                (Some(astar), Some(astar_base)),
                (Some((jps, _)), Some((jps_base, _))),
            ] = pairs
            else {
                continue;
            };
            let ((astar, expanded), (astar_base, expanded_base)) = (astar, astar_base);
            let (expanded, expanded_base) = (f64::from(expanded), f64::from(expanded_base));
            ratios.astar.push(astar / astar_base.max(1e-3));
            ratios.jps.push(jps / jps_base.max(1e-3));
            ratios
                .astar_expansions
                .push(expanded / expanded_base.max(1.0));
            ratios.astar_us = (ratios.astar_us.0 + astar, ratios.astar_us.1 + astar_base);
            ratios.jps_us = (ratios.jps_us.0 + jps, ratios.jps_us.1 + jps_base);
            ratios.astar_expanded = (
                ratios.astar_expanded.0 + expanded,
                ratios.astar_expanded.1 + expanded_base,
            );
        }
        ratios
    }

    fn extend(&mut self, other: &Self) {
        self.astar.extend(&other.astar);
        self.jps.extend(&other.jps);
        self.astar_expansions.extend(&other.astar_expansions);
        self.astar_expanded = (
            self.astar_expanded.0 + other.astar_expanded.0,
            self.astar_expanded.1 + other.astar_expanded.1,
        );
        self.astar_us = (
            self.astar_us.0 + other.astar_us.0,
            self.astar_us.1 + other.astar_us.1,
        );
        self.jps_us = (
            self.jps_us.0 + other.jps_us.0,
            self.jps_us.1 + other.jps_us.1,
        );
    }

    /// The ratio of two sums (the kind's, the plain reading's).
    fn of_means((kind, plain): (f64, f64)) -> f64 {
        kind / plain.max(1e-9)
    }

    /// A*'s time per expansion over the plain reading's.
    fn astar_per_expansion(&self) -> f64 {
        let per_expansion = |us: f64, expanded: f64| us / expanded.max(1.0);
        per_expansion(self.astar_us.0, self.astar_expanded.0)
            / per_expansion(self.astar_us.1, self.astar_expanded.1).max(1e-12)
    }
}

/// One kind's figures over every map of the suite.
#[derive(Debug, Default)]
struct LaneTotals {
    label: String,
    run: usize,
    not_fitting: usize,
    unreachable: usize,
    mismatches: usize,
    astar_times: Vec<f64>,
    jps_times: Vec<f64>,
    astar_expansions: u64,
    jps_expansions: u64,
    /// Times over the plain reading's, on the queries both found a path for.
    ratios: Ratios,
    build_us: f64,
    built_cells: usize,
    /// [`astar_grid::AgentGrid::memory_bytes`] and the clearance, per cell, on the largest map.
    agent_grid_per_cell: f64,
    clearance_per_cell: f64,
}

impl LaneTotals {
    fn add(&mut self, lane: &Lane<'_>) {
        self.run += lane.astar_report.queries;
        self.mismatches += lane.astar_report.mismatches + lane.jps_report.mismatches;
        self.astar_times.extend(&lane.astar_report.times_us);
        self.jps_times.extend(&lane.jps_report.times_us);
        self.astar_expansions += lane.astar_report.expansions;
        self.jps_expansions += lane.jps_report.expansions;
    }

    fn add_derived(&mut self, queries: &AgentQueries, largest: bool) {
        self.not_fitting += queries.not_fitting;
        self.unreachable += queries.unreachable;
        self.mismatches += queries.fit_disagreements;
        self.build_us += queries.build_us;
        self.built_cells += queries.grid().len();
        if largest {
            let cells = queries.grid().len().max(1) as f64;
            self.agent_grid_per_cell = queries.agent.memory_bytes() as f64 / cells;
            self.clearance_per_cell = queries.agent.clearance().memory_bytes() as f64 / cells;
        }
    }

    fn mean(times: &[f64]) -> f64 {
        times.iter().sum::<f64>() / times.len().max(1) as f64
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "agent": self.label,
            "run": self.run,
            "not_fitting": self.not_fitting,
            "unreachable": self.unreachable,
            "mismatches": self.mismatches,
            "astar_mean_us": Self::mean(&self.astar_times),
            "astar_median_us": median(&self.astar_times),
            "jps_mean_us": Self::mean(&self.jps_times),
            "jps_median_us": median(&self.jps_times),
            "astar_expansions_mean": self.astar_expansions as f64 / self.run.max(1) as f64,
            "jps_expansions_mean": self.jps_expansions as f64 / self.run.max(1) as f64,
            "common_queries": self.ratios.astar.len(),
            "astar_ratio_of_means": Ratios::of_means(self.ratios.astar_us),
            "astar_median_ratio": median(&self.ratios.astar),
            "jps_ratio_of_means": Ratios::of_means(self.ratios.jps_us),
            "jps_median_ratio": median(&self.ratios.jps),
            "astar_expansions_median_ratio": median(&self.ratios.astar_expansions),
            "astar_per_expansion_ratio": self.ratios.astar_per_expansion(),
            "build_ms": self.build_us / 1e3,
            "build_ns_per_cell": self.build_us * 1e3 / self.built_cells.max(1) as f64,
            "agent_grid_bytes_per_cell": self.agent_grid_per_cell,
            "clearance_bytes_per_cell": self.clearance_per_cell,
        })
    }
}

/// The derived kinds of a side-by-side run: size 1, then each size asked for, once each.
fn derived_sizes(sizes: &[u8]) -> Vec<u8> {
    let mut kept = vec![1];
    for &size in sizes {
        if !kept.contains(&size) {
            kept.push(size);
        }
    }
    kept
}

/// Runs every map with the plain reading and the derived kinds of `profile` (default walker) at
/// size 1 and at `sizes`, query by query, and prints the tables.
pub fn run(
    dir: &Path,
    pairs: &[(PathBuf, PathBuf)],
    sizes: &[u8],
    profile: Option<ProfileName>,
    search: &SearchArgs,
) -> Result<bool, String> {
    let profile = profile.unwrap_or(ProfileName::Walker);
    let sizes = derived_sizes(sizes);
    let options = search.options();
    let mut totals: Vec<LaneTotals> = std::iter::once("plain".to_owned())
        .chain(
            sizes
                .iter()
                .map(|size| format!("{} {size}", profile.name())),
        )
        .map(|label| LaneTotals {
            label,
            ..LaneTotals::default()
        })
        .collect();
    print_header(dir, pairs.len(), &totals);
    let mut largest_cells = 0;
    for (map, scen) in pairs {
        let (plain_grid, scenario, precision) = load_with_precision(map, scen)?;
        let terrain = read_map(map, &Legend::moving_ai_kinds())?;
        let largest = terrain.len() > largest_cells;
        largest_cells = largest_cells.max(terrain.len());
        let derived = sizes
            .iter()
            .map(|&size| {
                AgentQueries::new(
                    &terrain,
                    &scenario,
                    &AgentKind::new(profile.profile(), size),
                    &options,
                )
                .map_err(|error| format!("{}: {error}", map.display()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let lanes = run_map(
            &plain_grid,
            &scenario,
            precision,
            &derived,
            &totals,
            &options,
        )
        .map_err(|error| format!("{}: {error}", map.display()))?;
        let ratios: Vec<Ratios> = lanes
            .iter()
            .map(|lane| Ratios::of(lane, &lanes[0]))
            .collect();
        print_map_rows(map, &lanes, &derived, &ratios);
        for (position, lane) in lanes.iter().enumerate() {
            let total = &mut totals[position];
            total.add(lane);
            total.ratios.extend(&ratios[position]);
            if let Some(queries) = position.checked_sub(1).and_then(|at| derived.get(at)) {
                total.add_derived(queries, largest);
            }
        }
    }
    print_totals(&totals);
    Ok(totals.iter().all(|lane| lane.mismatches == 0))
}

/// The lanes of one map (the plain reading first), warmed up, then each query run by every
/// lane in turn, the lane that starts moving round by one query to the next.
fn run_map<'a>(
    plain_grid: &'a Grid,
    scenario: &'a Scenario,
    precision: LengthPrecision,
    derived: &'a [AgentQueries],
    totals: &[LaneTotals],
    options: &SearchOptions,
) -> Result<Vec<Lane<'a>>, String> {
    let files = scenario.queries.len();
    let mut lanes = vec![Lane::new(
        totals[0].label.clone(),
        plain_grid,
        scenario,
        precision,
        (0..files).map(Some).collect(),
        options,
    )?];
    for (queries, total) in derived.iter().zip(&totals[1..]) {
        let positions = (0..files).map(|index| queries.position_of(index)).collect();
        lanes.push(Lane::new(
            total.label.clone(),
            queries.grid(),
            &queries.scenario,
            LengthPrecision::default(),
            positions,
            options,
        )?);
    }
    for lane in &mut lanes {
        lane.warm_up()?;
    }
    for index in 0..files {
        for offset in 0..lanes.len() {
            let count = lanes.len();
            lanes[(index + offset) % count].run(index)?;
        }
    }
    Ok(lanes)
}

/// What runs, and the per-map table's header.
fn print_header(dir: &Path, maps: usize, totals: &[LaneTotals]) {
    println!(
        "{} maps under {}: A* and JPS side by side, query by query, for {}",
        maps,
        dir.display(),
        totals
            .iter()
            .map(|lane| lane.label.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "{:<22} {:<9} {:>7} {:>6} {:>7} {:>5} {:>9} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7} {:>8}",
        "map",
        "agent",
        "queries",
        "no fit",
        "unreach",
        "wrong",
        "A* mean",
        "A* med",
        "JPS mean",
        "JPS med",
        "A* x",
        "exp x",
        "JPS x",
        "build ms"
    );
    println!(
        "(us per query on each kind's own queries; x: median over the queries the kind and plain \
         both found a path for of the per-query ratio to plain, of times, and of A* expansions)"
    );
}

/// One row per lane of a map.
fn print_map_rows(map: &Path, lanes: &[Lane<'_>], derived: &[AgentQueries], ratios: &[Ratios]) {
    let name = map
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    for (position, lane) in lanes.iter().enumerate() {
        let queries = position.checked_sub(1).and_then(|at| derived.get(at));
        let wrong = lane.astar_report.mismatches
            + lane.jps_report.mismatches
            + queries.map_or(0, |queries| queries.fit_disagreements);
        let ratio = |ratios: &[f64]| {
            if position == 0 || ratios.is_empty() {
                "-".to_owned()
            } else {
                format!("{:.3}", median(ratios))
            }
        };
        println!(
            "{:<22} {:<9} {:>7} {:>6} {:>7} {wrong:>5} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>7} {:>7} {:>7} {:>8}",
            if position == 0 { name.as_str() } else { "" },
            lane.label,
            lane.astar_report.queries,
            queries.map_or(0, |queries| queries.not_fitting),
            queries.map_or(0, |queries| queries.unreachable),
            lane.astar_report.mean_us(),
            lane.astar_report.median_us(),
            lane.jps_report.mean_us(),
            lane.jps_report.median_us(),
            ratio(&ratios[position].astar),
            ratio(&ratios[position].astar_expansions),
            ratio(&ratios[position].jps),
            queries.map_or_else(
                || "-".to_owned(),
                |queries| format!("{:.2}", queries.build_us / 1e3)
            )
        );
    }
}

/// The tables over all maps and the JSON summary.
fn print_totals(totals: &[LaneTotals]) {
    println!("all maps, each agent's own queries (us per query):");
    println!(
        "{:<9} {:>7} {:>7} {:>7} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "agent",
        "run",
        "no fit",
        "unreach",
        "wrong",
        "A* mean",
        "A* med",
        "JPS mean",
        "JPS med",
        "A* exp",
        "JPS exp"
    );
    for lane in totals {
        let run = lane.run.max(1) as f64;
        println!(
            "{:<9} {:>7} {:>7} {:>7} {:>5} {:>9.1} {:>9.1} {:>9.2} {:>9.2} {:>9.0} {:>9.0}",
            lane.label,
            lane.run,
            lane.not_fitting,
            lane.unreachable,
            lane.mismatches,
            LaneTotals::mean(&lane.astar_times),
            median(&lane.astar_times),
            LaneTotals::mean(&lane.jps_times),
            median(&lane.jps_times),
            lane.astar_expansions as f64 / run,
            lane.jps_expansions as f64 / run
        );
    }
    print_ratio_table(totals);
    let summary = serde_json::json!({
        "lanes": totals.iter().map(LaneTotals::to_json).collect::<Vec<_>>(),
        "mismatches": totals.iter().map(|lane| lane.mismatches).sum::<usize>(),
    });
    println!("{summary}");
}

/// Each kind's times over the plain reading's on the queries both found a path for, its
/// derived grids' build time and its bytes per cell.
fn print_ratio_table(totals: &[LaneTotals]) {
    println!(
        "against plain, on the queries each kind and plain both found a path for (x mean: ratio \
         of mean times; x median: median of per-query ratios; exp x med: median of per-query A* \
         expansion ratios; us/exp x: A*'s time per expansion over plain's):"
    );
    println!(
        "{:<9} {:>7} {:>10} {:>11} {:>9} {:>10} {:>11} {:>12} {:>9} {:>12} {:>11} {:>11}",
        "agent",
        "queries",
        "A* x mean",
        "A* x median",
        "exp x med",
        "us/exp x",
        "JPS x mean",
        "JPS x median",
        "build ms",
        "build ns/cell",
        "grid B/cell",
        "clear B/cell"
    );
    for lane in totals {
        let json = lane.to_json();
        let figure = |key: &str| json[key].as_f64().unwrap_or(f64::NAN);
        println!(
            "{:<9} {:>7} {:>10.3} {:>11.3} {:>9.3} {:>10.3} {:>11.3} {:>12.3} {:>9.1} {:>12.1} {:>11.3} {:>11.3}",
            lane.label,
            lane.ratios.astar.len(),
            figure("astar_ratio_of_means"),
            figure("astar_median_ratio"),
            figure("astar_expansions_median_ratio"),
            figure("astar_per_expansion_ratio"),
            figure("jps_ratio_of_means"),
            figure("jps_median_ratio"),
            figure("build_ms"),
            figure("build_ns_per_cell"),
            figure("agent_grid_bytes_per_cell"),
            figure("clearance_bytes_per_cell")
        );
    }
    println!("(grid and clearance bytes per cell: AgentGrid::memory_bytes on the largest map)");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_one_comes_first_and_sizes_are_kept_once() {
        assert_eq!(derived_sizes(&[]), [1]);
        assert_eq!(derived_sizes(&[2, 3]), [1, 2, 3]);
        assert_eq!(derived_sizes(&[3, 1, 3, 2]), [1, 3, 2]);
    }
}
