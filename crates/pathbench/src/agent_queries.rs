//! A scenario's queries for one agent kind: the core's derived grid to search on, and each
//! query's expected length from the reference (a Dijkstra on the brute-force erosion of the
//! map), with the queries whose start or goal does not fit set apart.

use crate::erosion::ErodedGrid;
use crate::reference::ReferenceDijkstra;
use astar_grid::{AgentGrid, AgentKind, Grid, Legend, Scenario, SearchOptions};
use std::path::Path;
use std::time::Instant;

/// The queries one agent kind runs on a map, ready for
/// [`run_scenario`](crate::scen::run_scenario) on [`AgentQueries::grid`].
#[derive(Clone, Debug)]
pub struct AgentQueries {
    /// The core's derived grid of the kind.
    pub agent: AgentGrid,
    /// How long [`AgentGrid::new`] took, in microseconds.
    pub build_us: f64,
    /// The queries whose start and goal fit, in file order, each with the reference's optimal
    /// length (negative when the reference finds no path).
    pub scenario: Scenario,
    /// The index in the scenario file of each query of [`AgentQueries::scenario`].
    pub file_index: Vec<usize>,
    /// Queries set apart because the footprint does not fit at their start or goal.
    pub not_fitting: usize,
    /// Queries whose endpoints fit but which the reference cannot join: the search must agree.
    pub unreachable: usize,
    /// Endpoints the erosion and the derived grid disagree on (one fits, the other not): each
    /// is a mismatch.
    pub fit_disagreements: usize,
}

impl AgentQueries {
    /// Derives the kind's grid from `terrain` (timed), erodes the map by brute force, and
    /// computes the reference length of every query whose endpoints fit, under the movement and
    /// step costs of `options`.
    pub fn new(
        terrain: &Grid,
        scenario: &Scenario,
        kind: &AgentKind,
        options: &SearchOptions,
    ) -> Result<Self, String> {
        let started = Instant::now();
        let agent = AgentGrid::for_kind(terrain, kind).map_err(|error| error.to_string())?;
        let build_us = started.elapsed().as_secs_f64() * 1e6;
        let eroded = ErodedGrid::new(terrain, &kind.profile, kind.size);
        Ok(Self::against(agent, build_us, &eroded, scenario, options))
    }

    /// The queries of `scenario` for `agent`, with their lengths from a Dijkstra on `eroded`.
    pub fn against(
        agent: AgentGrid,
        build_us: f64,
        eroded: &ErodedGrid,
        scenario: &Scenario,
        options: &SearchOptions,
    ) -> Self {
        let mut reference = ReferenceDijkstra::new(eroded, options.movement, options.cost);
        let mut kept = Scenario {
            queries: Vec::with_capacity(scenario.queries.len()),
        };
        let mut file_index = Vec::with_capacity(scenario.queries.len());
        let (mut not_fitting, mut unreachable, mut fit_disagreements) = (0, 0, 0);
        for (index, query) in scenario.queries.iter().enumerate() {
            let fits = eroded.fits(query.start) && eroded.fits(query.goal);
            let derived_fits = agent.check_endpoints(query.start, query.goal).is_ok();
            if fits != derived_fits {
                fit_disagreements += 1;
            }
            if !fits {
                not_fitting += 1;
                continue;
            }
            let optimal_length = reference.cost(query.start, query.goal).unwrap_or_else(|| {
                unreachable += 1;
                -1.0
            });
            let mut query = query.clone();
            query.optimal_length = optimal_length;
            kept.queries.push(query);
            file_index.push(index);
        }
        Self {
            agent,
            build_us,
            scenario: kept,
            file_index,
            not_fitting,
            unreachable,
            fit_disagreements,
        }
    }

    /// The grid the kind searches on.
    pub fn grid(&self) -> &Grid {
        self.agent.grid()
    }

    /// The position in [`AgentQueries::scenario`] of the query at `file_index` in the file,
    /// `None` when it was set apart.
    pub fn position_of(&self, file_index: usize) -> Option<usize> {
        self.file_index.binary_search(&file_index).ok()
    }
}

/// Reads a map with `legend` and a scenario, naming the file in any error.
pub fn load_with_legend(
    map: &Path,
    scen: &Path,
    legend: &Legend,
) -> Result<(Grid, Scenario), String> {
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))
    };
    let grid = astar_grid::parse_map_with(&read(map)?, legend)
        .map_err(|error| format!("{}: {error}", map.display()))?;
    let scenario = astar_grid::parse_scenario(&read(scen)?)
        .map_err(|error| format!("{}: {error}", scen.display()))?;
    Ok((grid, scenario))
}
