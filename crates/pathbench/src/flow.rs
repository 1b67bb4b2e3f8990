//! `--algo flow`: every query answered from a flow field, one field per distinct goal.
//!
//! With the environment variable `PATHBENCH_FLOW_TREE` set (to anything), the fields are
//! goal trees (`GoalTree`, `f32` costs, 5 bytes a cell) instead of flow fields (`f64`, 9), the
//! report checking their paths' lengths alike, and each scenario ends with a line (on stderr)
//! that sets the two side by side on its map: the median build time of a goal's field, the
//! median time to update one after a wall cuts the path of the goal's first query, and the
//! bytes per map cell.

use crate::algorithm::SearchArgs;
use crate::scen_report::{ScenReport, median};
use crate::tolerance::LengthPrecision;
use astar_grid::{
    Algorithm, Cell, CostField, CostModel, FieldCost, FlowField, GoalTree, Grid, Movement, Path,
    Scenario,
};
use std::collections::HashMap;
use std::time::Instant;

/// Set to anything, `--algo flow` runs on goal trees and compares them with flow fields.
const TREE_VARIABLE: &str = "PATHBENCH_FLOW_TREE";

/// How a field of either storage answers a query.
trait ReadPath {
    /// The path from `start` to the goal, priced on `grid`.
    fn read_path(&self, grid: &Grid, start: Cell) -> Option<Path>;
}

impl ReadPath for FlowField {
    fn read_path(&self, _grid: &Grid, start: Cell) -> Option<Path> {
        self.path_from(start)
    }
}

impl ReadPath for GoalTree {
    fn read_path(&self, grid: &Grid, start: Cell) -> Option<Path> {
        self.path_from(grid, start).ok().flatten()
    }
}

/// One query's answer: its path, its time (its share of the field's build plus reading the
/// path), and its share of the cells the build settled.
struct Answer {
    path: Option<Path>,
    time_us: f64,
    settled: u64,
}

/// Groups the queries by goal, builds one field per goal (reusing the field's memory), reads
/// each query's path by following next steps from its start, and checks the lengths as
/// [`crate::scen_run::run_scenario`] does, at the file's `precision`. Queries are reported in file
/// order. Goal trees instead of flow fields with `PATHBENCH_FLOW_TREE` set, then compared.
pub fn run_scenario(
    grid: &Grid,
    scenario: &Scenario,
    precision: LengthPrecision,
    args: &SearchArgs,
    on_query: impl FnMut(usize, Option<&Path>),
) -> Result<ScenReport, String> {
    if std::env::var_os(TREE_VARIABLE).is_none() {
        return run_on::<f64>(grid, scenario, precision, args, on_query);
    }
    let report = run_on::<f32>(grid, scenario, precision, args, on_query)?;
    eprintln!("{}", side_by_side(grid, scenario, args)?);
    Ok(report)
}

/// [`run_scenario`] on fields storing their costs as `C`.
fn run_on<C: FieldCost>(
    grid: &Grid,
    scenario: &Scenario,
    precision: LengthPrecision,
    args: &SearchArgs,
    mut on_query: impl FnMut(usize, Option<&Path>),
) -> Result<ScenReport, String>
where
    CostField<C>: ReadPath,
{
    if args.heuristic.is_some() || args.weight != 1.0 {
        return Err("--heuristic and --weight do not apply to --algo flow".to_owned());
    }
    let options = args.options();
    Algorithm::FlowField
        .check_options(&options)
        .map_err(|error| error.to_string())?;
    let mut by_goal: HashMap<Cell, Vec<usize>> = HashMap::new();
    let mut goals = Vec::new();
    for (index, query) in scenario.queries.iter().enumerate() {
        if !grid.is_walkable(query.start) {
            return Err(format!(
                "query {index}: start {} is blocked or outside the grid",
                query.start
            ));
        }
        by_goal
            .entry(query.goal)
            .or_insert_with(|| {
                goals.push(query.goal);
                Vec::new()
            })
            .push(index);
    }

    let mut answers: Vec<Option<Answer>> = scenario.queries.iter().map(|_| None).collect();
    let mut field: Option<CostField<C>> = None;
    for goal in goals {
        let members = &by_goal[&goal];
        let started = Instant::now();
        let built = match field.as_mut() {
            Some(field) => field.rebuild(grid, &[goal]).map(|work| Some(work.settled)),
            None => CostField::build(grid, &[goal], options.movement, options.cost).map(|built| {
                field = Some(built);
                None
            }),
        }
        .map_err(|error| format!("goal {goal}: {error}"))?;
        let build_us = started.elapsed().as_secs_f64() * 1e6;
        let Some(field) = field.as_ref() else {
            return Err(format!("goal {goal}: no field was built"));
        };
        // A fresh build settles every cell that reaches the goal; counted outside the timing.
        let settled = built.unwrap_or_else(|| {
            grid.cells()
                .filter(|&(cell, _)| field.cost_at(cell).is_some())
                .count()
        });
        let share = members.len() as f64;
        for &index in members {
            let started = Instant::now();
            let path = field.read_path(grid, scenario.queries[index].start);
            let read_us = started.elapsed().as_secs_f64() * 1e6;
            answers[index] = Some(Answer {
                path,
                time_us: build_us / share + read_us,
                settled: (settled as f64 / share).round() as u64,
            });
        }
    }

    let mut report = ScenReport::new(precision, scenario.queries.len());
    for (index, (query, answer)) in scenario.queries.iter().zip(answers).enumerate() {
        let Some(answer) = answer else {
            return Err(format!("query {index}: no answer"));
        };
        report.record(
            answer.time_us,
            answer.settled,
            answer.path.as_ref(),
            query.optimal_length,
        );
        on_query(index, answer.path.as_ref());
    }
    Ok(report)
}

/// The scenario's distinct goals, in file order.
fn distinct_goals(scenario: &Scenario) -> Vec<Cell> {
    let mut goals: Vec<Cell> = Vec::new();
    for query in &scenario.queries {
        if !goals.contains(&query.goal) {
            goals.push(query.goal);
        }
    }
    goals
}

/// One storage's measurements on a map: build and update times (microseconds), the cells the
/// updates dropped and settled, and the most bytes a field held.
#[derive(Default)]
struct StorageTimes {
    build_us: Vec<f64>,
    update_us: Vec<f64>,
    update_cells: usize,
    bytes: usize,
}

impl StorageTimes {
    /// Builds the field of `goal` (timed), then, on a copy, updates it after `wall` is blocked
    /// in `walled` (timed).
    fn measure<C: FieldCost>(
        &mut self,
        (grid, walled): (&Grid, &Grid),
        goal: Cell,
        wall: Cell,
        (movement, cost): (Movement, CostModel),
    ) -> Result<(), String> {
        let started = Instant::now();
        let field = CostField::<C>::build(grid, &[goal], movement, cost)
            .map_err(|error| format!("goal {goal}: {error}"))?;
        self.build_us.push(started.elapsed().as_secs_f64() * 1e6);
        self.bytes = self.bytes.max(field.memory_bytes());
        let mut updated = field.clone();
        let started = Instant::now();
        let work = updated
            .update(walled, &[wall])
            .map_err(|error| format!("goal {goal}: {error}"))?;
        self.update_us.push(started.elapsed().as_secs_f64() * 1e6);
        self.update_cells += work.invalidated + work.settled;
        Ok(())
    }
}

/// Flow fields and goal trees side by side on `grid`, for every distinct goal of `scenario`
/// whose first query has a path of three cells or more: the two builds and the two updates
/// after a wall is put in the middle of that path, alternating which goes first.
fn side_by_side(grid: &Grid, scenario: &Scenario, args: &SearchArgs) -> Result<String, String> {
    let options = args.options();
    let rules = (options.movement, options.cost);
    let (mut fields, mut trees) = (StorageTimes::default(), StorageTimes::default());
    for (number, goal) in distinct_goals(scenario).into_iter().enumerate() {
        let Some(query) = scenario.queries.iter().find(|query| query.goal == goal) else {
            continue;
        };
        let field = FlowField::build(grid, &[goal], rules.0, rules.1)
            .map_err(|error| format!("goal {goal}: {error}"))?;
        let Some(path) = field
            .path_from(query.start)
            .filter(|path| path.cells.len() > 2)
        else {
            continue;
        };
        let wall = path.cells[path.cells.len() / 2];
        let mut walled = grid.clone();
        walled
            .set_blocked(wall, true)
            .map_err(|error| format!("goal {goal}: {error}"))?;
        let grids = (grid, &walled);
        if number % 2 == 0 {
            fields.measure::<f64>(grids, goal, wall, rules)?;
            trees.measure::<f32>(grids, goal, wall, rules)?;
        } else {
            trees.measure::<f32>(grids, goal, wall, rules)?;
            fields.measure::<f64>(grids, goal, wall, rules)?;
        }
    }
    let cells = (f64::from(grid.width()) * f64::from(grid.height())).max(1.0);
    let (field_build, tree_build) = (median(&fields.build_us), median(&trees.build_us));
    let (field_update, tree_update) = (median(&fields.update_us), median(&trees.update_us));
    Ok(format!(
        "{}x{}, flow field / goal tree, {} goals: build median {field_build:.1} / \
         {tree_build:.1} us (x{:.3}), update median {field_update:.1} / {tree_update:.1} us \
         (x{:.3}, cells dropped and settled {} / {}), {:.2} / {:.2} bytes per cell",
        grid.width(),
        grid.height(),
        fields.build_us.len(),
        tree_build / field_build,
        tree_update / field_update,
        fields.update_cells,
        trees.update_cells,
        fields.bytes as f64 / cells,
        trees.bytes as f64 / cells,
    ))
}
