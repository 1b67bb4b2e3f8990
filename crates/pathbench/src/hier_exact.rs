//! `pathbench hier`'s exact searches: [`HierarchySearcher::find_exact_path`] on every query,
//! side by side in one process with the baseline (jump point search, or A* on maps with
//! terrain) and with A*: their times, whether every exact path costs the optimum, and how
//! many sectors the bounds left to search.

use crate::hier::mean;
use crate::scen_report::median;
use crate::scen_run::is_legal;
use astar_grid::{
    Algorithm, Cell, Engine, Grid, Hierarchy, HierarchyOptions, HierarchySearcher, SearchOptions,
};
use std::time::Instant;

/// Relative difference from the optimum beyond which an exact path is counted as not
/// optimal: sums of equal paths taken in different orders differ in their last bits.
const COST_TOLERANCE: f64 = 1e-9;

/// One query's figures.
#[derive(Clone, Copy, Debug)]
pub struct ExactQuery {
    /// The optimal cost, from the baseline.
    pub optimal: f64,
    /// Microseconds: the exact search, the baseline, and A*.
    pub exact_us: f64,
    pub baseline_us: f64,
    pub astar_us: f64,
    /// The share of sectors the exact search looked into (0 when the hierarchical path was
    /// optimal on its face).
    pub searched: f64,
}

/// What the exact searches measured.
#[derive(Debug, Default)]
pub struct ExactFigures {
    /// Per reachable query.
    pub queries: Vec<ExactQuery>,
    /// Paths that are not legal or do not join their start and goal.
    pub illegal: usize,
    /// Paths that do not cost the optimum, or found where the baseline found none (or the
    /// other way round).
    pub unmatched: usize,
    /// Queries answered by the hierarchical path alone (its cost equal to the bound at the
    /// start).
    pub optimal_on_its_face: usize,
    /// Seconds to build the hierarchy with the sides' bounds.
    pub build_s: f64,
}

impl ExactFigures {
    /// The figures as JSON members.
    pub fn to_json(&self) -> serde_json::Value {
        let all: Vec<&ExactQuery> = self.queries.iter().collect();
        let mut longest = all.clone();
        longest.sort_by(|a, b| b.optimal.total_cmp(&a.optimal));
        let quarter = &longest[..longest.len().div_ceil(4)];
        let values = |set: &[&ExactQuery], field: fn(&ExactQuery) -> f64| -> Vec<f64> {
            set.iter().map(|q| field(q)).collect()
        };
        let (exact, baseline, astar) = (
            mean(&values(quarter, |q| q.exact_us)),
            mean(&values(quarter, |q| q.baseline_us)),
            mean(&values(quarter, |q| q.astar_us)),
        );
        serde_json::json!({
            "exact_queries": self.queries.len(),
            "exact_build_s": self.build_s,
            "exact_illegal": self.illegal,
            "exact_unmatched": self.unmatched,
            "exact_optimal_on_its_face": self.optimal_on_its_face,
            "exact_median_us": median(&values(&all, |q| q.exact_us)),
            "exact_astar_median_us": median(&values(&all, |q| q.astar_us)),
            "exact_sectors_searched_mean": mean(&values(&all, |q| q.searched)),
            "longest_quarter_exact_mean_us": exact,
            "longest_quarter_exact_astar_mean_us": astar,
            "longest_quarter_exact_vs_baseline": baseline / exact.max(1e-9),
            "longest_quarter_exact_vs_astar": astar / exact.max(1e-9),
        })
    }
}

/// Builds a hierarchy cut as `cut` with the sides' bounds (timed), then runs every query of
/// `queries` three ways: exactly over it, with `baseline`, and with A*.
pub fn measure(
    grid: &Grid,
    cut: HierarchyOptions,
    baseline: &mut Engine,
    queries: &[(Cell, Cell)],
) -> Result<ExactFigures, String> {
    let mut figures = ExactFigures::default();
    if queries.is_empty() {
        return Ok(figures);
    }
    let clock = Instant::now();
    let hierarchy =
        Hierarchy::build(grid, cut.with_exact_bounds(true)).map_err(|error| error.to_string())?;
    figures.build_s = clock.elapsed().as_secs_f64();
    let hierarchy = &hierarchy;
    let mut astar = Engine::new(grid, Algorithm::AStar, &SearchOptions::default())
        .map_err(|error| error.to_string())?;
    let mut searcher = HierarchySearcher::new();
    let options = hierarchy.options();
    let sectors = hierarchy.sector_count().max(1) as f64;
    for &(start, goal) in queries {
        let failed = |error: astar_grid::SearchError| format!("{start} -> {goal}: {error}");
        let clock = Instant::now();
        let exact = searcher
            .find_exact_path(grid, hierarchy, start, goal)
            .map_err(failed)?;
        let exact_us = clock.elapsed().as_secs_f64() * 1e6;
        let searched = searcher.exact_sectors_searched() as f64 / sectors;
        let clock = Instant::now();
        let reference = baseline.find_path(start, goal).map_err(failed)?;
        let baseline_us = clock.elapsed().as_secs_f64() * 1e6;
        let clock = Instant::now();
        let by_astar = astar.find_path(start, goal).map_err(failed)?;
        let astar_us = clock.elapsed().as_secs_f64() * 1e6;
        match (exact.found(), reference.found(), by_astar.found()) {
            (Some(path), Some(optimal), Some(_)) => {
                if !is_legal(grid, path, (start, goal), (options.movement, options.cost)) {
                    figures.illegal += 1;
                }
                if (path.cost - optimal.cost).abs() > COST_TOLERANCE * optimal.cost.max(1.0) {
                    figures.unmatched += 1;
                }
                if searched == 0.0 {
                    figures.optimal_on_its_face += 1;
                }
                figures.queries.push(ExactQuery {
                    optimal: optimal.cost,
                    exact_us,
                    baseline_us,
                    astar_us,
                    searched,
                });
            }
            (None, None, None) => {}
            _ => figures.unmatched += 1,
        }
    }
    Ok(figures)
}
