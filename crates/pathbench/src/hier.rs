//! `pathbench hier`: the sector hierarchy side by side with jump point search (or A* on maps
//! with terrain) in one process, on one map and scenario: the time to a whole path and to the
//! first cells, path quality and legality, the build, memory, the cost of an edit, and sector
//! flow fields shared by many agents ([`crate::hier_field`]), and exact searches over the
//! hierarchy ([`crate::hier_exact`]).

use crate::hier_exact;
use crate::hier_field;
use crate::random::SeededRandom;
use crate::scen_report::{mean_and_worst, median};
use crate::scen_run::{is_legal, load};
use astar_grid::{
    Algorithm, Cell, Engine, Grid, Hierarchy, HierarchyOptions, HierarchySearcher, Path,
    SearchOptions,
};
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `pathbench hier`.
#[derive(Debug, Args)]
pub struct HierArgs {
    /// The `.map` file.
    pub map: PathBuf,
    /// The `.scen` file.
    pub scen: PathBuf,
    /// The side of a sector, in cells.
    #[arg(long, default_value_t = HierarchyOptions::default().sector_size)]
    pub sector_size: u32,
    /// An entrance every this many cells along a border.
    #[arg(long, default_value_t = HierarchyOptions::default().entrance_spacing)]
    pub entrance_spacing: u32,
    /// Landmarks guiding the searches.
    #[arg(long, default_value_t = HierarchyOptions::default().landmarks)]
    pub landmarks: u8,
    /// The side of a block of sectors that route searches cross in one edge; below 2 for
    /// none. With blocks, the queries are also searched over a hierarchy without them, side by
    /// side.
    #[arg(long, default_value_t = HierarchyOptions::default().block_sectors)]
    pub block_sectors: u32,
    /// Cell edits timed: each blocks an open cell, tells the hierarchy and rebuilds what it
    /// marked, then opens the cell again.
    #[arg(long, default_value_t = 200)]
    pub edits: usize,
    /// Seed of the edited cells.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Goals given a sector flow field each (the goals of the first queries); 0 for none.
    #[arg(long, default_value_t = 10)]
    pub field_goals: usize,
    /// Agents walking to each field's goal, from the starts of the first queries.
    #[arg(long, default_value_t = 100)]
    pub field_agents: usize,
    /// Queries searched exactly (the first ones), side by side with the baseline and A*.
    #[arg(long, default_value_t = usize::MAX)]
    pub exact_queries: usize,
}

/// One query over one hierarchy: the time to the whole path and to its first cells
/// (microseconds), and the route's expansions.
#[derive(Clone, Copy, Debug)]
struct HierTimes {
    whole_us: f64,
    first_us: f64,
    /// The time to [`HierarchySearcher::first_cells`].
    fast_first_us: f64,
    expanded: f64,
}

/// Per query: the baseline's time, the hierarchy's figures, the same over the hierarchy
/// without blocks (when it has them), and the optimal length.
struct QueryTimes {
    baseline_us: f64,
    hier: HierTimes,
    without_blocks: Option<HierTimes>,
    optimal: f64,
}

pub fn run(args: &HierArgs) -> Result<bool, String> {
    let (grid, scenario) = load(&args.map, &args.scen)?;
    let cut = HierarchyOptions::default()
        .with_sector_size(args.sector_size)
        .with_entrance_spacing(args.entrance_spacing)
        .with_landmarks(args.landmarks)
        .with_block_sectors(args.block_sectors);
    let started = Instant::now();
    let mut hierarchy = Hierarchy::build(&grid, cut).map_err(|error| error.to_string())?;
    let build_s = started.elapsed().as_secs_f64();
    let bytes = hierarchy.memory_bytes();
    let flat = if hierarchy.built_blocks() > 0 {
        Some(
            Hierarchy::build(&grid, cut.with_block_sectors(0))
                .map_err(|error| error.to_string())?,
        )
    } else {
        None
    };
    let mut flat_costs_differ = 0;
    let baseline_algorithm = if grid.has_terrain_costs() {
        Algorithm::AStar
    } else {
        Algorithm::JumpPoint
    };
    let mut baseline = Engine::new(&grid, baseline_algorithm, &SearchOptions::default())
        .map_err(|error| error.to_string())?;
    let mut searcher = HierarchySearcher::new();
    let mut times = Vec::with_capacity(scenario.queries.len());
    let mut quality = PathQuality::default();
    let mut fast = PathQuality::default();
    for query in &scenario.queries {
        let (start, goal) = (query.start, query.goal);
        let clock = Instant::now();
        let reference = baseline
            .find_path(start, goal)
            .map_err(|error| format!("{start} -> {goal}: {error}"))?;
        let baseline_us = clock.elapsed().as_secs_f64() * 1e6;
        let (path, hier) = timed(&grid, &hierarchy, &mut searcher, (start, goal))?;
        let led = path_after_first_cells(&grid, &hierarchy, &mut searcher, (start, goal))?;
        fast.check(&grid, (led.as_ref(), reference.found()), (start, goal), cut);
        let without_blocks = match &flat {
            Some(flat) => {
                let (flat_path, times) = timed(&grid, flat, &mut searcher, (start, goal))?;
                let costs = (path.as_ref().map(|p| p.cost), flat_path.map(|p| p.cost));
                if !matches!(costs, (Some(a), Some(b)) if (a - b).abs() <= 1e-5 * a.max(1.0))
                    && costs != (None, None)
                {
                    flat_costs_differ += 1;
                }
                Some(times)
            }
            None => None,
        };
        quality.check(
            &grid,
            (path.as_ref(), reference.found()),
            (start, goal),
            cut,
        );
        times.push(QueryTimes {
            baseline_us,
            hier,
            without_blocks,
            optimal: reference.cost().unwrap_or(-1.0),
        });
    }
    let goals: Vec<Cell> = scenario
        .queries
        .iter()
        .map(|q| q.goal)
        .take(args.field_goals)
        .collect();
    let starts: Vec<Cell> = scenario
        .queries
        .iter()
        .map(|q| q.start)
        .take(args.field_agents)
        .collect();
    let fields = hier_field::measure(&grid, &hierarchy, &mut baseline, (&goals, &starts))?;
    let pairs: Vec<(Cell, Cell)> = scenario
        .queries
        .iter()
        .map(|q| (q.start, q.goal))
        .take(args.exact_queries)
        .collect();
    let exact = hier_exact::measure(&grid, cut, &mut baseline, &pairs)?;
    let (mark_us, rebuild_us) = timed_edits(&grid, &mut hierarchy, args)?;
    report(
        args,
        &grid,
        (&hierarchy, build_s, bytes, baseline_algorithm),
        &times,
        (&quality, flat.is_some().then_some(flat_costs_differ)),
        (mark_us, rebuild_us),
        [
            fields.to_json(goals.len(), starts.len()),
            exact.to_json(),
            fast.to_json("fast_first_"),
        ],
    );
    Ok(quality.illegal == 0
        && quality.unmatched == 0
        && fast.illegal == 0
        && fast.unmatched == 0
        && fields.illegal == 0
        && fields.unmatched == 0
        && exact.illegal == 0
        && exact.unmatched == 0)
}

/// The whole path over `hierarchy` and its figures: the path searched whole, then the route
/// and its first leg searched again.
fn timed(
    grid: &Grid,
    hierarchy: &Hierarchy,
    searcher: &mut HierarchySearcher,
    ends: (Cell, Cell),
) -> Result<(Option<Path>, HierTimes), String> {
    let (path, whole_us, expanded) = timed_whole(grid, hierarchy, searcher, ends)?;
    let first_us = timed_first(grid, hierarchy, searcher, ends)?;
    let clock = Instant::now();
    searcher
        .first_cells(grid, hierarchy, ends.0, ends.1)
        .map_err(|error| format!("{} -> {}: {error}", ends.0, ends.1))?;
    let fast_first_us = clock.elapsed().as_secs_f64() * 1e6;
    let times = HierTimes {
        whole_us,
        first_us,
        fast_first_us,
        expanded,
    };
    Ok((path, times))
}

/// The whole path, the microseconds to it, and the route's expansions.
fn timed_whole(
    grid: &Grid,
    hierarchy: &Hierarchy,
    searcher: &mut HierarchySearcher,
    (start, goal): (Cell, Cell),
) -> Result<(Option<Path>, f64, f64), String> {
    let clock = Instant::now();
    let result = searcher
        .find_path(grid, hierarchy, start, goal)
        .map_err(|error| format!("{start} -> {goal}: {error}"))?;
    let elapsed = clock.elapsed().as_secs_f64() * 1e6;
    Ok((
        result.found().cloned(),
        elapsed,
        f64::from(result.stats.expanded),
    ))
}

/// The time to the route and its first leg's cells.
fn timed_first(
    grid: &Grid,
    hierarchy: &Hierarchy,
    searcher: &mut HierarchySearcher,
    (start, goal): (Cell, Cell),
) -> Result<f64, String> {
    let clock = Instant::now();
    let route = searcher
        .route(grid, hierarchy, start, goal)
        .map_err(|error| format!("{start} -> {goal}: {error}"))?;
    let mut cells = vec![start];
    if let Some(mut route) = route {
        searcher
            .refine_next(grid, hierarchy, &mut route, &mut cells)
            .map_err(|error| format!("{start} -> {goal}: {error}"))?;
    }
    Ok(clock.elapsed().as_secs_f64() * 1e6)
}

/// The path an agent walks when it takes [`HierarchySearcher::first_cells`] first and the
/// rest by [`HierarchySearcher::find_path`] from the last of them; `None` when either finds
/// none.
fn path_after_first_cells(
    grid: &Grid,
    hierarchy: &Hierarchy,
    searcher: &mut HierarchySearcher,
    (start, goal): (Cell, Cell),
) -> Result<Option<Path>, String> {
    let failed = |error: astar_grid::SearchError| format!("{start} -> {goal}: {error}");
    let Some(first) = searcher
        .first_cells(grid, hierarchy, start, goal)
        .map_err(failed)?
    else {
        return Ok(None);
    };
    let Some(&last) = first.cells.last() else {
        return Ok(None);
    };
    let rest = searcher
        .find_path(grid, hierarchy, last, goal)
        .map_err(failed)?;
    Ok(rest.found().map(|rest| {
        let mut cells = first.cells;
        cells.extend(rest.cells.iter().skip(1));
        Path {
            cells,
            cost: first.cost + rest.cost,
        }
    }))
}

/// Paths of one kind against the baseline's: how many are illegal, how many queries one finds
/// and the other does not, and how far over optimal the others are.
#[derive(Debug, Default)]
struct PathQuality {
    illegal: usize,
    /// Queries found by one and not the other.
    unmatched: usize,
    /// Per query found by both, cost over optimal minus 1.
    suboptimality: Vec<f64>,
}

impl PathQuality {
    /// Counts one query: `found` against the baseline's `optimal`, between `ends`.
    fn check(
        &mut self,
        grid: &Grid,
        (found, optimal): (Option<&Path>, Option<&Path>),
        ends: (Cell, Cell),
        cut: HierarchyOptions,
    ) {
        match (found, optimal) {
            (Some(found), Some(optimal)) => {
                if !is_legal(grid, found, ends, (cut.movement, cut.cost)) {
                    self.illegal += 1;
                }
                if optimal.cost > 0.0 {
                    self.suboptimality.push(found.cost / optimal.cost - 1.0);
                }
            }
            (None, None) => {}
            _ => self.unmatched += 1,
        }
    }

    /// The counts and the mean and worst cost over optimal, each key starting with `prefix`.
    fn to_json(&self, prefix: &str) -> serde_json::Value {
        let (mean, worst) = mean_and_worst(&self.suboptimality);
        let figures = [
            ("illegal", serde_json::json!(self.illegal)),
            ("unmatched", serde_json::json!(self.unmatched)),
            ("mean_suboptimality", serde_json::json!(mean)),
            ("max_suboptimality", serde_json::json!(worst)),
        ];
        serde_json::Value::Object(
            figures
                .into_iter()
                .map(|(key, value)| (format!("{prefix}{key}"), value))
                .collect(),
        )
    }
}

/// Per edit, the microseconds to mark it and to rebuild what it marked: each blocks a random
/// open cell, then opens it again (both timed, the second edit undoing the first).
fn timed_edits(
    grid: &Grid,
    hierarchy: &mut Hierarchy,
    args: &HierArgs,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let open: Vec<Cell> = grid
        .cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect();
    let mut edited = grid.clone();
    let mut random = SeededRandom::new(args.seed);
    let (mut mark_us, mut rebuild_us) = (Vec::new(), Vec::new());
    for _ in 0..args.edits.min(open.len()) {
        let cell = open[random.below(open.len() as u64) as usize];
        for blocked in [true, false] {
            edited
                .set_blocked(cell, blocked)
                .map_err(|error| error.to_string())?;
            let clock = Instant::now();
            hierarchy.cells_changed([cell]);
            mark_us.push(clock.elapsed().as_secs_f64() * 1e6);
            let clock = Instant::now();
            hierarchy
                .build_sectors(&edited, usize::MAX)
                .map_err(|error| error.to_string())?;
            rebuild_us.push(clock.elapsed().as_secs_f64() * 1e6);
        }
    }
    Ok((mark_us, rebuild_us))
}

/// The mean of `values` (0 for none).
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// The value at `fraction` of the way through `values` sorted.
pub fn percentile(values: &[f64], fraction: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted.get(index).copied().unwrap_or(0.0)
}

fn report(
    args: &HierArgs,
    grid: &Grid,
    (hierarchy, build_s, bytes, baseline): (&Hierarchy, f64, usize, Algorithm),
    times: &[QueryTimes],
    (quality, costs_differ): (&PathQuality, Option<usize>),
    (mark_us, rebuild_us): (Vec<f64>, Vec<f64>),
    extra: [serde_json::Value; 3],
) {
    let mut reachable: Vec<&QueryTimes> = times.iter().filter(|t| t.optimal >= 0.0).collect();
    reachable.sort_by(|a, b| b.optimal.total_cmp(&a.optimal));
    let quarter = &reachable[..reachable.len().div_ceil(4)];
    let all_baseline: Vec<f64> = reachable.iter().map(|t| t.baseline_us).collect();
    let quarter_baseline: Vec<f64> = quarter.iter().map(|t| t.baseline_us).collect();
    let quarter_whole: Vec<f64> = quarter.iter().map(|t| t.hier.whole_us).collect();
    let cells = (grid.width() as usize * grid.height() as usize).max(1);
    let mut summary = serde_json::json!({
        "map": args.map.display().to_string(),
        "queries": times.len(),
        "sector_size": args.sector_size,
        "entrance_spacing": args.entrance_spacing,
        "baseline": baseline.name(),
        "baseline_mean_us": mean(&all_baseline),
        "baseline_median_us": median(&all_baseline),
        "longest_quarter_baseline_mean_us": mean(&quarter_baseline),
        "longest_quarter_speedup": mean(&quarter_baseline) / mean(&quarter_whole).max(1e-9),
        "block_sectors": args.block_sectors,
        "blocks": hierarchy.built_blocks(),
        "block_nodes": hierarchy.block_node_count(),
        "block_edges": hierarchy.block_edge_count(),
        "build_s": build_s,
        "nodes": hierarchy.node_count(),
        "landmarks": args.landmarks,
        "bytes_per_cell": bytes as f64 / cells as f64,
        "edit_mark_mean_us": mean(&mark_us),
        "edit_rebuild_mean_us": mean(&rebuild_us),
        "edit_rebuild_p99_us": percentile(&rebuild_us, 0.99),
    });
    let mut figures = vec![
        quality.to_json(""),
        hier_figures("", (&reachable, quarter), |t| Some(t.hier)),
    ];
    if let Some(costs_differ) = costs_differ {
        let without = hier_figures("without_blocks_", (&reachable, quarter), |t| {
            t.without_blocks
        });
        figures.push(without);
        figures.push(serde_json::json!({ "without_blocks_costs_differ": costs_differ }));
    }
    for members in figures.into_iter().chain(extra) {
        if let (Some(summary), serde_json::Value::Object(members)) =
            (summary.as_object_mut(), members)
        {
            summary.extend(members);
        }
    }
    println!("{}", headline(&summary));
    println!("{summary}");
}

/// One hierarchy's figures over the `reachable` queries (and the longest `quarter` of them),
/// each key starting with `prefix`: the whole path's time, the first cells' and the route's
/// expansions. Empty when a query has no figures for it.
fn hier_figures(
    prefix: &str,
    (reachable, quarter): (&[&QueryTimes], &[&QueryTimes]),
    of: fn(&QueryTimes) -> Option<HierTimes>,
) -> serde_json::Value {
    let pick = |set: &[&QueryTimes], field: fn(HierTimes) -> f64| -> Option<Vec<f64>> {
        set.iter().map(|t| of(t).map(field)).collect()
    };
    let (Some(whole), Some(first), Some(fast_first), Some(expanded), Some(quarter_whole)) = (
        pick(reachable, |t| t.whole_us),
        pick(reachable, |t| t.first_us),
        pick(reachable, |t| t.fast_first_us),
        pick(reachable, |t| t.expanded),
        pick(quarter, |t| t.whole_us),
    ) else {
        return serde_json::json!({});
    };
    let figures = [
        ("hier_mean_us", mean(&whole)),
        ("hier_median_us", median(&whole)),
        ("longest_quarter_hier_mean_us", mean(&quarter_whole)),
        ("first_cells_median_us", median(&first)),
        ("first_cells_p99_us", percentile(&first, 0.99)),
        ("fast_first_cells_median_us", median(&fast_first)),
        ("fast_first_cells_p99_us", percentile(&fast_first, 0.99)),
        ("route_expanded_mean", mean(&expanded)),
    ];
    serde_json::Value::Object(
        figures
            .into_iter()
            .map(|(key, value)| (format!("{prefix}{key}"), serde_json::json!(value)))
            .collect(),
    )
}

/// The line printed before the JSON: the figures a reader looks at first.
fn headline(summary: &serde_json::Value) -> String {
    let number = |key: &str| summary[key].as_f64().unwrap_or(f64::NAN);
    format!(
        "{}: {} queries, {} illegal, mean suboptimality {:.4}; longest quarter {} {:.0} us, \
         hierarchy {:.0} us ({:.2}x); first cells p99 {:.0} us ({:.0} us without blocks), by \
         first_cells median {:.1} us, p99 {:.1} us (paths {:.4} over optimal on average, {:.4} at \
         worst, {} illegal); edit {:.2} us to mark, {:.0} us \
         to rebuild; {:.2} bytes a cell; exact searches: longest quarter {:.0} us ({:.2}x the \
         baseline, {:.2}x A*), {} not optimal",
        summary["map"].as_str().unwrap_or_default(),
        summary["queries"],
        summary["illegal"],
        number("mean_suboptimality"),
        summary["baseline"].as_str().unwrap_or_default(),
        number("longest_quarter_baseline_mean_us"),
        number("longest_quarter_hier_mean_us"),
        number("longest_quarter_speedup"),
        number("first_cells_p99_us"),
        number("without_blocks_first_cells_p99_us"),
        number("fast_first_cells_median_us"),
        number("fast_first_cells_p99_us"),
        number("fast_first_mean_suboptimality"),
        number("fast_first_max_suboptimality"),
        summary["fast_first_illegal"],
        number("edit_mark_mean_us"),
        number("edit_rebuild_mean_us"),
        number("bytes_per_cell"),
        number("longest_quarter_exact_mean_us"),
        number("longest_quarter_exact_vs_baseline"),
        number("longest_quarter_exact_vs_astar"),
        summary["exact_unmatched"],
    )
}
