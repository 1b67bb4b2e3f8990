//! `pathbench hier`'s sector flow fields: one field per goal shared by many agents, against a
//! hierarchical search for each agent: the time to each agent's first step, the walks' quality
//! and legality, the sectors measured and the memory.

use crate::scen_report::{mean_and_worst, median};
use crate::scen_run::is_legal;
use astar_grid::{Cell, Engine, Grid, Hierarchy, HierarchySearcher, SectorFlowField};
use std::time::Instant;

/// What the fields measured, over all goals.
#[derive(Debug, Default)]
pub struct FieldFigures {
    /// Per agent, the microseconds to its first step (its sector measured, and the search
    /// over the nodes run as far as it needs).
    pub first_step_us: Vec<f64>,
    /// Per goal, the milliseconds to walk every agent to the goal along the field.
    pub walks_ms: Vec<f64>,
    /// Per goal, the milliseconds of one hierarchical search per agent instead.
    pub searches_ms: Vec<f64>,
    /// Per goal, the sectors measured once every agent arrived.
    pub sectors: Vec<f64>,
    /// Per goal, the bytes the field held then.
    pub bytes: Vec<f64>,
    /// Per walk, its cost over optimal minus 1.
    pub suboptimality: Vec<f64>,
    /// Walks that are not legal or do not join their start and the goal.
    pub illegal: usize,
    /// Walks that did not reach a reachable goal, or reached one the baseline could not.
    pub unmatched: usize,
}

impl FieldFigures {
    /// The figures as JSON members.
    pub fn to_json(&self, goals: usize, agents: usize) -> serde_json::Value {
        let (mean_suboptimality, max_suboptimality) = mean_and_worst(&self.suboptimality);
        serde_json::json!({
            "field_goals": goals,
            "field_agents": agents,
            "field_first_step_median_us": median(&self.first_step_us),
            "field_first_step_p99_us": crate::hier::percentile(&self.first_step_us, 0.99),
            "field_walks_median_ms": median(&self.walks_ms),
            "field_searches_median_ms": median(&self.searches_ms),
            "field_sectors_measured_median": median(&self.sectors),
            "field_bytes_median": median(&self.bytes),
            "field_mean_suboptimality": mean_suboptimality,
            "field_max_suboptimality": max_suboptimality,
            "field_illegal": self.illegal,
            "field_unmatched": self.unmatched,
        })
    }
}

/// For each of `goals`, one field walked by an agent from each of `starts`, and one
/// hierarchical search per agent; `baseline` gives the optimal costs.
pub fn measure(
    grid: &Grid,
    hierarchy: &Hierarchy,
    baseline: &mut Engine,
    (goals, starts): (&[Cell], &[Cell]),
) -> Result<FieldFigures, String> {
    let options = *hierarchy.options();
    let mut figures = FieldFigures::default();
    let mut searcher = HierarchySearcher::new();
    for &goal in goals {
        let mut field =
            SectorFlowField::new(hierarchy, grid, goal).map_err(|error| error.to_string())?;
        for &start in starts {
            let clock = Instant::now();
            field
                .next_step(hierarchy, grid, start)
                .map_err(|error| error.to_string())?;
            figures
                .first_step_us
                .push(clock.elapsed().as_secs_f64() * 1e6);
        }
        let clock = Instant::now();
        let mut walks = Vec::with_capacity(starts.len());
        for &start in starts {
            walks.push(
                field
                    .path_from(hierarchy, grid, start)
                    .map_err(|error| error.to_string())?,
            );
        }
        figures.walks_ms.push(clock.elapsed().as_secs_f64() * 1e3);
        figures.sectors.push(field.sectors_measured() as f64);
        figures.bytes.push(field.memory_bytes() as f64);
        let clock = Instant::now();
        for &start in starts {
            searcher
                .find_path(grid, hierarchy, start, goal)
                .map_err(|error| error.to_string())?;
        }
        figures
            .searches_ms
            .push(clock.elapsed().as_secs_f64() * 1e3);
        for (&start, walk) in starts.iter().zip(&walks) {
            let optimal = baseline
                .find_path(start, goal)
                .map_err(|error| format!("{start} -> {goal}: {error}"))?;
            match (walk, optimal.cost()) {
                (Some(walk), Some(optimal)) => {
                    if !is_legal(grid, walk, (start, goal), (options.movement, options.cost)) {
                        figures.illegal += 1;
                    }
                    if optimal > 0.0 {
                        figures.suboptimality.push(walk.cost / optimal - 1.0);
                    }
                }
                (None, None) => {}
                _ => figures.unmatched += 1,
            }
        }
    }
    Ok(figures)
}
