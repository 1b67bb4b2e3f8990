//! `--algo flow`: every query answered from a flow field, one field per distinct goal.

use crate::algorithm::SearchArgs;
use crate::scen_report::ScenReport;
use crate::tolerance::LengthPrecision;
use astar_grid::{Algorithm, Cell, FlowField, Grid, Path, Scenario};
use std::collections::HashMap;
use std::time::Instant;

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
/// order.
pub fn run_scenario(
    grid: &Grid,
    scenario: &Scenario,
    precision: LengthPrecision,
    args: &SearchArgs,
    mut on_query: impl FnMut(usize, Option<&Path>),
) -> Result<ScenReport, String> {
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
    let mut field: Option<FlowField> = None;
    for goal in goals {
        let members = &by_goal[&goal];
        let started = Instant::now();
        let built = match field.as_mut() {
            Some(field) => field.rebuild(grid, &[goal]).map(|work| Some(work.settled)),
            None => FlowField::build(grid, &[goal], options.movement, options.cost).map(|built| {
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
            let path = field.path_from(scenario.queries[index].start);
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
