//! `pathbench hier`'s sector flow fields: one field per goal shared by many agents, against a
//! hierarchical search for each agent: the time to each agent's first step, the walks' quality
//! and legality, the sectors measured and the memory.

use crate::scen_report::{mean_and_worst, median};
use crate::scen_run::is_legal;
use astar_grid::{Cell, Engine, Grid, Hierarchy, HierarchySearcher, Path, SectorFlowField};
use std::time::Instant;

/// What the fields measured, over all goals.
#[derive(Debug, Default)]
pub struct FieldFigures {
    /// Per agent, the microseconds to its first step (its sector measured, and the search
    /// over the nodes run as far as it needs).
    pub first_step_us: Vec<f64>,
    /// Per goal, the milliseconds to walk every agent to the goal along the field.
    pub walks_ms: Vec<f64>,
    /// Per goal, once the field has measured every agent's sectors: the milliseconds to walk
    /// every agent again, each joining the walks before it where it reaches one.
    pub joined_ms: Vec<f64>,
    /// Per goal, the same walks each stepped whole ([`SectorFlowField::forget_walks`] before
    /// each), timed after the joined ones.
    pub alone_ms: Vec<f64>,
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
    /// Per goal, after a tower on the middle of the longest walk: the milliseconds to walk
    /// every agent along the goal's field renewed ([`SectorFlowField::renewed`]).
    pub renewed_ms: Vec<f64>,
    /// Per goal, after the same tower: the milliseconds to walk every agent along a field
    /// made new, timed after the renewed one.
    pub new_after_tower_ms: Vec<f64>,
    /// Per goal, the share of the renewed field's sectors kept from the field before.
    pub reused: Vec<f64>,
    /// Renewed walks that are not legal, or whose cost is not the new field's.
    pub renewed_mismatches: usize,
    /// Per goal, after the same tower: the milliseconds to patch the view of the field before
    /// it, with every sector measured ([`astar_grid::SectorFieldView::patched`]).
    pub patched_ms: Vec<f64>,
    /// Goals whose view could not be patched.
    pub patch_refused: usize,
    /// Walks along a patched view that are not legal or do not reach the goal.
    pub patched_illegal: usize,
    /// Per walk along a patched view, its cost over the renewed field's walk, minus 1.
    pub patched_over_renewed: Vec<f64>,
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
            "field_joined_walks_median_ms": median(&self.joined_ms),
            "field_alone_walks_median_ms": median(&self.alone_ms),
            "field_searches_median_ms": median(&self.searches_ms),
            "field_sectors_measured_median": median(&self.sectors),
            "field_bytes_median": median(&self.bytes),
            "field_mean_suboptimality": mean_suboptimality,
            "field_max_suboptimality": max_suboptimality,
            "field_illegal": self.illegal,
            "field_unmatched": self.unmatched,
            "field_renewed_walks_median_ms": median(&self.renewed_ms),
            "field_new_walks_after_tower_median_ms": median(&self.new_after_tower_ms),
            "field_sectors_reused_median": median(&self.reused),
            "field_renewed_mismatches": self.renewed_mismatches,
            "field_patched_median_ms": median(&self.patched_ms),
            "field_patch_refused": self.patch_refused,
            "field_patched_illegal": self.patched_illegal,
            "field_patched_over_renewed_mean": mean_and_worst(&self.patched_over_renewed).0,
            "field_patched_over_renewed_max": mean_and_worst(&self.patched_over_renewed).1,
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
        measure_joining((grid, hierarchy), &mut field, starts, &mut figures)?;
        let clock = Instant::now();
        for &start in starts {
            searcher
                .find_path(grid, hierarchy, start, goal)
                .map_err(|error| error.to_string())?;
        }
        figures
            .searches_ms
            .push(clock.elapsed().as_secs_f64() * 1e3);
        measure_renewal((grid, hierarchy), field, (&walks, starts), &mut figures)?;
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

/// Walks every agent of `starts` along `field` (which has measured their sectors) twice, timed:
/// joining the walks before it, then each stepped whole; the walks must match.
fn measure_joining(
    (grid, hierarchy): (&Grid, &Hierarchy),
    field: &mut SectorFlowField,
    starts: &[Cell],
    figures: &mut FieldFigures,
) -> Result<(), String> {
    let error = |error: astar_grid::HierarchyError| error.to_string();
    field.forget_walks();
    let clock = Instant::now();
    let joined: Vec<Option<Path>> = starts
        .iter()
        .map(|&start| field.path_from(hierarchy, grid, start).map_err(error))
        .collect::<Result<_, _>>()?;
    figures.joined_ms.push(clock.elapsed().as_secs_f64() * 1e3);
    let clock = Instant::now();
    let alone: Vec<Option<Path>> = starts
        .iter()
        .map(|&start| {
            field.forget_walks();
            field.path_from(hierarchy, grid, start).map_err(error)
        })
        .collect::<Result<_, _>>()?;
    figures.alone_ms.push(clock.elapsed().as_secs_f64() * 1e3);
    let same = |(joined, alone): (&Option<Path>, &Option<Path>)| match (joined, alone) {
        (Some(joined), Some(alone)) => joined.cells == alone.cells,
        (None, None) => true,
        _ => false,
    };
    if joined.iter().zip(&alone).all(same) {
        Ok(())
    } else {
        Err("a joined walk differs from the same walk stepped whole".to_owned())
    }
}

/// Places a tower on the middle cell of the longest of `walks` (the agents' walks from
/// `starts` along `field`), rebuilds a copy of the hierarchy, then times every agent's walk
/// along `field` renewed, and along a field made new, checking that they cost the same.
fn measure_renewal(
    (grid, hierarchy): (&Grid, &Hierarchy),
    field: SectorFlowField,
    (walks, starts): (&[Option<Path>], &[Cell]),
    figures: &mut FieldFigures,
) -> Result<(), String> {
    let goal = field.goal();
    let tower = walks
        .iter()
        .flatten()
        .max_by_key(|walk| walk.cells.len())
        .and_then(|walk| walk.cells.get(walk.cells.len() / 2).copied())
        .filter(|&tower| tower != goal && !starts.contains(&tower));
    let Some(tower) = tower else {
        return Ok(());
    };
    let error = |error: astar_grid::HierarchyError| error.to_string();
    let before = (grid, hierarchy);
    let mut grid = grid.clone();
    grid.set_cost(tower, 0).map_err(|error| error.to_string())?;
    let patched = patched_walks(before, &field, (&grid, tower), (starts, figures))?;
    let mut hierarchy = hierarchy.clone();
    hierarchy.cells_changed([tower]);
    hierarchy.build_sectors(&grid, usize::MAX).map_err(error)?;
    let walk_all = |field: &mut SectorFlowField| -> Result<Vec<Option<Path>>, String> {
        starts
            .iter()
            .map(|&start| field.path_from(&hierarchy, &grid, start).map_err(error))
            .collect()
    };
    let clock = Instant::now();
    let mut renewed = field.renewed(&hierarchy, &grid).map_err(error)?;
    let renewed_walks = walk_all(&mut renewed)?;
    figures.renewed_ms.push(clock.elapsed().as_secs_f64() * 1e3);
    let clock = Instant::now();
    let mut fresh = SectorFlowField::new(&hierarchy, &grid, goal).map_err(error)?;
    let fresh_walks = walk_all(&mut fresh)?;
    figures
        .new_after_tower_ms
        .push(clock.elapsed().as_secs_f64() * 1e3);
    figures
        .reused
        .push(renewed.sectors_reused() as f64 / renewed.sectors_measured().max(1) as f64);
    let rules = (hierarchy.options().movement, hierarchy.options().cost);
    for ((&start, kept), new) in starts.iter().zip(&renewed_walks).zip(&fresh_walks) {
        let alike = match (kept, new) {
            (Some(kept), Some(new)) => {
                is_legal(&grid, kept, (start, goal), rules)
                    && (kept.cost - new.cost).abs() <= 1e-4 * new.cost.max(1.0)
            }
            (None, None) => true,
            _ => false,
        };
        figures.renewed_mismatches += usize::from(!alike);
    }
    for (patched, renewed) in patched.iter().zip(&renewed_walks) {
        if let (Some(patched), Some(renewed)) = (patched, renewed)
            && renewed.cost > 0.0
        {
            figures
                .patched_over_renewed
                .push(patched.cost / renewed.cost - 1.0);
        }
    }
    Ok(())
}

/// Times patching the view of `field` (over `before`, every sector measured on a copy first)
/// for `grid`, `before`'s grid with `tower` blocked, then walks every agent of `starts` along
/// the patched view, counting the walks that are not legal; the walks, or none where the view
/// could not be patched.
fn patched_walks(
    (old_grid, hierarchy): (&Grid, &Hierarchy),
    field: &SectorFlowField,
    (grid, tower): (&Grid, Cell),
    (starts, figures): (&[Cell], &mut FieldFigures),
) -> Result<Vec<Option<Path>>, String> {
    let error = |error: astar_grid::HierarchyError| error.to_string();
    let mut whole = field.clone();
    let side = hierarchy.options().sector_size;
    for y in (0..old_grid.height()).step_by(side as usize) {
        for x in (0..old_grid.width()).step_by(side as usize) {
            whole
                .cost_at(hierarchy, old_grid, Cell::new(x, y))
                .map_err(error)?;
        }
    }
    while whole
        .measure_ahead(hierarchy, old_grid, usize::MAX)
        .map_err(error)?
        > 0
    {}
    let view = whole.view(hierarchy).map_err(error)?;
    let clock = Instant::now();
    let patched = view.patched((old_grid, grid), &[tower]);
    figures.patched_ms.push(clock.elapsed().as_secs_f64() * 1e3);
    let Some(patched) = patched else {
        figures.patch_refused += 1;
        return Ok(vec![None; starts.len()]);
    };
    let rules = (hierarchy.options().movement, hierarchy.options().cost);
    let goal = field.goal();
    let walks: Vec<Option<Path>> = starts
        .iter()
        .map(|&start| patched.path_from(grid, start))
        .collect();
    for (&start, walk) in starts.iter().zip(&walks) {
        let legal = walk
            .as_ref()
            .is_some_and(|walk| is_legal(grid, walk, (start, goal), rules));
        figures.patched_illegal += usize::from(!legal && old_grid.is_walkable(start));
    }
    Ok(walks)
}
