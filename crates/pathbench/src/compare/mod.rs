//! `pathbench compare`: the same Moving AI queries through this project's searches and through
//! the Rust libraries a user would pick instead, interleaved query by query, with speed, path
//! quality and time ratios per library.
//!
//! The peers (`pathfinding`, `grid_pathfinding`, `bevy_northstar`) are dependencies of this
//! unpublished binary only, behind its `compare` feature (off by default): `astar_grid` and the
//! plugin never depend on them, and a plain `cargo build -p pathbench` leaves them (and the Bevy
//! build `bevy_northstar` brings) out.
//!
//! Adding a contender is one adapter: a type implementing [`Contender`], listed in [`roster`].

mod grid_pathfinding;
mod measure;
pub(crate) mod northstar;
mod order;
mod ours;
mod pathfinding_crate;
mod report;

use crate::agent_queries::{AgentQueries, load_with_legend};
use crate::kind::KindArgs;
use crate::scen_run::load;
use crate::suite::map_pairs;
use astar_grid::{Cell, Grid, Scenario, SearchOptions};
use clap::Args;
use measure::check_path;
use report::{Tally, table_header, table_row};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Queries each library runs untimed on a map before its timed runs.
const WARMUP_QUERIES: usize = 20;

/// Arguments of `pathbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Directory searched recursively for `NAME.map` files with a `NAME.map.scen` beside them.
    #[arg(long, default_value = "../shared/movingai")]
    pub maps: PathBuf,
    /// Run this many queries per map, evenly spaced through its scenario (default: all).
    #[arg(long, value_name = "N")]
    pub queries: Option<usize>,
    /// Seed of the order in which each map's queries run.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Run only these contenders, by name, comma-separated (default: all); the baseline,
    /// `ours-astar`, always runs.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub libraries: Vec<String>,
    /// The agent kind (`--size`, `--profile`): every library then searches the kind's derived
    /// grid from the core (one-cell searches of the same problem), and lengths come from a
    /// Dijkstra on a brute-force erosion of the map.
    #[command(flatten)]
    pub kind: KindArgs,
}

/// What a library returned for one query.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// Microseconds spent in the library's own call (converting its path is not counted).
    pub micros: f64,
    /// The path's cells from start to goal inclusive, or `None` when it found no path.
    pub cells: Option<Vec<Cell>>,
}

/// One library under test, adapted to the benchmark's grid and queries.
pub trait Contender {
    /// Its name in the tables and the JSON.
    fn name(&self) -> &'static str;
    /// The movement rules and costs it searches with.
    fn rules(&self) -> &'static str;
    /// Builds whatever the library needs for `grid` (timed apart from the queries).
    ///
    /// # Errors
    /// When the library cannot represent `grid`.
    fn prepare(&mut self, grid: &Grid) -> Result<(), String>;
    /// Runs one query on the grid last given to [`Contender::prepare`].
    ///
    /// # Errors
    /// When the query is invalid for the library (a hard error, not "no path").
    fn query(&mut self, grid: &Grid, start: Cell, goal: Cell) -> Result<Answer, String>;
}

/// Runs `search` and returns its wall-clock time in microseconds with its result.
pub fn timed<T>(search: impl FnOnce() -> T) -> (f64, T) {
    let started = Instant::now();
    let result = std::hint::black_box(search());
    (started.elapsed().as_secs_f64() * 1e6, result)
}

/// The contenders, the baseline (this project's A*) first.
pub fn roster() -> Vec<Box<dyn Contender>> {
    vec![
        Box::new(ours::OursAstar::new()),
        Box::new(ours::OursJps::new()),
        Box::new(ours::OursHier::new()),
        Box::new(pathfinding_crate::PathfindingAstar),
        Box::new(grid_pathfinding::GridPathfindingJps::default()),
        Box::new(northstar::Northstar::new(northstar::NorthstarMode::Astar)),
        Box::new(northstar::Northstar::new(northstar::NorthstarMode::Hpa)),
    ]
}

/// Runs `pathbench compare`; `Ok(true)` unless a hard error stopped it.
pub fn run(args: &CompareArgs) -> Result<bool, String> {
    let pairs = map_pairs(&args.maps)?;
    let mut contenders = select(roster(), &args.libraries)?;
    println!("rules (the benchmark's: 8 neighbours, no corner cutting, octile lengths):");
    for contender in &contenders {
        println!("  {:<22} {}", contender.name(), contender.rules());
    }
    let mut groups: BTreeMap<String, Vec<Tally>> = BTreeMap::new();
    let mut group_maps: BTreeMap<String, usize> = BTreeMap::new();
    for (map_index, (map, scen)) in pairs.iter().enumerate() {
        let (grid, scenario) = load_for_kind(map, scen, &args.kind)?;
        if grid.has_terrain_costs() {
            return Err(format!(
                "{}: terrain costs are not supported by every library compared",
                map.display()
            ));
        }
        let mut picks = order::sample_indices(scenario.queries.len(), args.queries);
        order::shuffle(&mut picks, args.seed.wrapping_add(map_index as u64));
        let group = group_name(map, &args.maps);
        *group_maps.entry(group.clone()).or_default() += 1;
        let tallies = groups
            .entry(group)
            .or_insert_with(|| vec![Tally::default(); contenders.len()]);
        let map_tallies = run_map(&mut contenders, &grid, &scenario, &picks)
            .map_err(|error| format!("{}: {error}", map.display()))?;
        let means: Vec<String> = contenders
            .iter()
            .zip(&map_tallies)
            .map(|(contender, tally)| {
                let summary = tally.summary(&map_tallies[0]);
                format!("{} {:.1}", contender.name(), summary.mean_us)
            })
            .collect();
        eprintln!(
            "{}: {} queries; mean us: {}",
            map.display(),
            picks.len(),
            means.join(", ")
        );
        for (total, tally) in tallies.iter_mut().zip(&map_tallies) {
            total.extend(tally);
        }
    }
    let names: Vec<&str> = contenders
        .iter()
        .map(|contender| contender.name())
        .collect();
    let mut overall = vec![Tally::default(); contenders.len()];
    let mut json_groups = serde_json::Map::new();
    for (group, tallies) in &groups {
        let maps = group_maps.get(group).copied().unwrap_or_default();
        json_groups.insert(group.clone(), print_table(group, maps, &names, tallies));
        for (total, tally) in overall.iter_mut().zip(tallies) {
            total.extend(tally);
        }
    }
    let libraries = print_table("all", pairs.len(), &names, &overall);
    println!(
        "{}",
        serde_json::json!({
            "command": "compare",
            "maps": pairs.len(),
            "queries": overall[0].times_us.len(),
            "queries_per_map": args.queries,
            "seed": args.seed,
            "baseline": names[0],
            "kind": args.kind.label(),
            "libraries": libraries,
            "groups": json_groups,
        })
    );
    Ok(true)
}

/// The map and the queries a kind runs: the map as read and its scenario for the plain
/// reading; else the kind's derived grid and the queries whose endpoints fit and that the
/// reference can join, each with the reference's length (queries set apart are counted on
/// standard error).
fn load_for_kind(map: &Path, scen: &Path, kind: &KindArgs) -> Result<(Grid, Scenario), String> {
    if kind.is_plain() {
        return load(map, scen);
    }
    let (terrain, scenario) = load_with_legend(map, scen, &kind.legend())?;
    let queries = AgentQueries::new(&terrain, &scenario, &kind.kind(), &SearchOptions::default())
        .map_err(|error| format!("{}: {error}", map.display()))?;
    let reachable = Scenario {
        queries: queries
            .scenario
            .queries
            .iter()
            .filter(|query| query.optimal_length >= 0.0)
            .cloned()
            .collect(),
    };
    eprintln!(
        "{}: {}: {} queries kept, {} do not fit, {} unreachable for the kind",
        map.display(),
        kind.label(),
        reachable.queries.len(),
        queries.not_fitting + queries.fit_disagreements,
        queries.unreachable,
    );
    Ok((queries.grid().clone(), reachable))
}

/// Prepares and warms up every contender on `grid`, then runs the `picks` queries of `scenario`
/// through all of them in turn, query by query; returns their tallies in contender order.
fn run_map(
    contenders: &mut [Box<dyn Contender>],
    grid: &Grid,
    scenario: &Scenario,
    picks: &[usize],
) -> Result<Vec<Tally>, String> {
    let mut tallies = vec![Tally::default(); contenders.len()];
    for (contender, tally) in contenders.iter_mut().zip(&mut tallies) {
        let (micros, prepared) = timed(|| contender.prepare(grid));
        prepared?;
        tally.prepare_ms = micros / 1e3;
        for &index in picks.iter().take(WARMUP_QUERIES) {
            let query = &scenario.queries[index];
            contender.query(grid, query.start, query.goal)?;
        }
    }
    for (turn, &index) in picks.iter().enumerate() {
        let query = &scenario.queries[index];
        // Rotate who goes first so that no library always runs right after the same other one.
        for offset in 0..contenders.len() {
            let which = (turn + offset) % contenders.len();
            let answer = contenders[which]
                .query(grid, query.start, query.goal)
                .map_err(|error| format!("query {index}: {error}"))?;
            let check = answer
                .cells
                .as_deref()
                .map(|cells| check_path(grid, cells, query.start, query.goal));
            tallies[which].record(answer.micros, check, query.optimal_length);
        }
    }
    Ok(tallies)
}

/// The baseline and the contenders named in `names` (all of them when `names` is empty).
fn select(
    roster: Vec<Box<dyn Contender>>,
    names: &[String],
) -> Result<Vec<Box<dyn Contender>>, String> {
    let known: Vec<&str> = roster.iter().map(|contender| contender.name()).collect();
    if let Some(unknown) = names.iter().find(|name| !known.contains(&name.as_str())) {
        return Err(format!(
            "unknown library {unknown:?}; known: {}",
            known.join(", ")
        ));
    }
    Ok(roster
        .into_iter()
        .enumerate()
        .filter(|(index, contender)| {
            *index == 0 || names.is_empty() || names.iter().any(|name| name == contender.name())
        })
        .map(|(_, contender)| contender)
        .collect())
}

/// Prints one table of `tallies` (baseline first) and returns its figures as JSON, by library.
fn print_table(title: &str, maps: usize, names: &[&str], tallies: &[Tally]) -> serde_json::Value {
    let queries = tallies.first().map_or(0, |tally| tally.times_us.len());
    println!();
    println!("== {title}: {maps} maps, {queries} queries ==");
    println!("{}", table_header());
    let mut figures = serde_json::Map::new();
    for (name, tally) in names.iter().zip(tallies) {
        let summary = tally.summary(&tallies[0]);
        println!("{}", table_row(name, &summary));
        figures.insert((*name).to_owned(), summary.to_json());
    }
    serde_json::Value::Object(figures)
}

/// The group of a map: the folder it is in (`dao`, `mazes`, ...), or the maps folder's name.
fn group_name(map: &Path, root: &Path) -> String {
    map.parent()
        .filter(|parent| *parent != root)
        .or(Some(root))
        .and_then(Path::file_name)
        .map_or_else(
            || "maps".to_owned(),
            |name| name.to_string_lossy().into_owned(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::{LENGTH_TOLERANCE, PathCheck};

    /// One contender's checked paths (`None` when it found none), each with its optimal length.
    type Results = (&'static str, Vec<(Option<PathCheck>, f64)>);

    /// Runs every contender on a sample of the arena queries and returns, per contender, the
    /// checks of its paths with the optimal lengths.
    fn arena_results() -> Vec<Results> {
        let maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/maps");
        let (grid, scenario) = load(
            &maps.join("dao/arena.map"),
            &maps.join("dao/arena.map.scen"),
        )
        .unwrap();
        let picks = order::sample_indices(scenario.queries.len(), Some(40));
        roster()
            .into_iter()
            .map(|mut contender| {
                contender.prepare(&grid).unwrap();
                let results = picks
                    .iter()
                    .map(|&index| {
                        let query = &scenario.queries[index];
                        let answer = contender.query(&grid, query.start, query.goal).unwrap();
                        let check = answer
                            .cells
                            .map(|cells| check_path(&grid, &cells, query.start, query.goal));
                        (check, query.optimal_length)
                    })
                    .collect();
                (contender.name(), results)
            })
            .collect()
    }

    #[test]
    fn every_contender_finds_the_arena_paths_and_the_exact_ones_are_optimal() {
        for (name, results) in arena_results() {
            for (check, optimal) in results {
                assert!(optimal >= 0.0);
                let check = check.unwrap_or_else(|| panic!("{name} missed a path"));
                assert!(check.joins_endpoints, "{name}: {check:?}");
                let slack = LENGTH_TOLERANCE * optimal.max(1.0);
                match name {
                    "ours-astar" | "ours-jps" | "pathfinding-astar" => {
                        assert!(check.is_legal(), "{name}: {check:?}");
                        assert!(
                            (check.length - optimal).abs() <= slack,
                            "{name}: {check:?} vs {optimal}"
                        );
                    }
                    // Corner cutting can only shorten a path.
                    "grid_pathfinding-jps" => {
                        assert!(
                            check.length <= optimal + slack,
                            "{name}: {check:?} vs {optimal}"
                        );
                    }
                    // The corner rule is the benchmark's, so nothing beats the optimum.
                    _ => {
                        assert!(check.is_legal(), "{name}: {check:?}");
                        assert!(
                            check.length >= optimal - slack,
                            "{name}: {check:?} vs {optimal}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn only_grid_pathfinding_slips_between_diagonal_walls() {
        let grid = Grid::from_ascii(
            "..#
             .#.
             ...",
        )
        .unwrap();
        // From (1, 0) to (2, 1): the only diagonal squeezes between the walls at (2, 0) and
        // (1, 1); the legal way goes round through the left column and the bottom row.
        let (start, goal) = (Cell::new(1, 0), Cell::new(2, 1));
        for mut contender in roster() {
            contender.prepare(&grid).unwrap();
            let answer = contender.query(&grid, start, goal).unwrap();
            let check = check_path(&grid, &answer.cells.unwrap(), start, goal);
            if contender.name() == "grid_pathfinding-jps" {
                assert_eq!(check.illegal.corner_cuts, 1, "{check:?}");
                assert_eq!(check.illegal.total(), 1, "{check:?}");
                assert!((check.length - core::f64::consts::SQRT_2).abs() < 1e-9);
            } else {
                assert!(check.is_legal(), "{}: {check:?}", contender.name());
                assert!(check.length > 3.0, "{}: {check:?}", contender.name());
            }
        }
    }

    #[test]
    fn selection_keeps_the_baseline_and_refuses_unknown_names() {
        let names = |contenders: Vec<Box<dyn Contender>>| -> Vec<&'static str> {
            contenders
                .iter()
                .map(|contender| contender.name())
                .collect()
        };
        assert_eq!(names(select(roster(), &[]).unwrap()).len(), roster().len());
        let picked = select(roster(), &["northstar-hpa".to_owned()]).unwrap();
        assert_eq!(names(picked), ["ours-astar", "northstar-hpa"]);
        assert!(select(roster(), &["dijkstra".to_owned()]).is_err());
    }

    #[test]
    fn a_kind_runs_the_exact_contenders_on_its_derived_grid_at_the_reference_lengths() {
        let maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/maps");
        let (map, scen) = (maps.join("dao/arena.map"), maps.join("dao/arena.map.scen"));
        // The plain reading is the map and the file's lengths, as before.
        assert_eq!(
            load_for_kind(&map, &scen, &KindArgs::default()).unwrap(),
            load(&map, &scen).unwrap()
        );
        let kind = KindArgs {
            size: 2,
            ..KindArgs::default()
        };
        let (grid, scenario) = load_for_kind(&map, &scen, &kind).unwrap();
        let (_, plain) = load(&map, &scen).unwrap();
        assert!(!scenario.queries.is_empty() && scenario.queries.len() < plain.queries.len());
        let exact = ["ours-astar", "ours-jps", "pathfinding-astar"];
        for mut contender in roster()
            .into_iter()
            .filter(|contender| exact.contains(&contender.name()))
        {
            contender.prepare(&grid).unwrap();
            for query in scenario.queries.iter().step_by(7) {
                let answer = contender.query(&grid, query.start, query.goal).unwrap();
                let cells = answer.cells.expect("the reference joins it");
                let check = check_path(&grid, &cells, query.start, query.goal);
                assert!(check.is_legal(), "{}: {check:?}", contender.name());
                let slack = LENGTH_TOLERANCE * query.optimal_length.max(1.0);
                assert!(
                    (check.length - query.optimal_length).abs() <= slack,
                    "{}: {check:?} vs {}",
                    contender.name(),
                    query.optimal_length
                );
            }
        }
    }

    #[test]
    fn group_is_the_folder_under_the_maps_directory() {
        let root = Path::new("/data/movingai");
        assert_eq!(group_name(&root.join("dao/arena.map"), root), "dao");
        assert_eq!(group_name(&root.join("arena.map"), root), "movingai");
    }
}
