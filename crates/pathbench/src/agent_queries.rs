//! A scenario's queries for one agent kind: the core's derived grid to search on, and each
//! query's expected length from the reference (a Dijkstra on the brute-force erosion of the
//! map), with the queries whose start or goal does not fit set apart.

use crate::algorithm::SearchArgs;
use crate::erosion::ErodedGrid;
use crate::reference::ReferenceDijkstra;
use crate::scen_report::ScenReport;
use crate::scen_run::run_scenario;
use crate::tolerance::LengthPrecision;
use astar_grid::{AgentGrid, AgentKind, Grid, Legend, Scenario, SearchOptions};
use std::path::Path;
use std::time::Instant;

/// The queries one agent kind runs on a map, ready for
/// [`run_scenario`] on [`AgentQueries::grid`].
#[derive(Clone, Debug)]
pub struct AgentQueries {
    /// The core's derived grid of the kind.
    pub agent: AgentGrid,
    /// How long [`AgentGrid::new`] took, in microseconds.
    pub build_us: f64,
    /// The queries whose start and goal fit (on the eroded map and on the derived grid), in
    /// file order, each with the reference's optimal
    /// length (negative when the reference finds no path).
    pub scenario: Scenario,
    /// The index in the scenario file of each query of [`AgentQueries::scenario`].
    pub file_index: Vec<usize>,
    /// Queries set apart because the footprint does not fit at their start or goal.
    pub not_fitting: usize,
    /// Queries whose endpoints fit but which the reference cannot join: the search must agree.
    pub unreachable: usize,
    /// Queries whose endpoints the erosion and the derived grid disagree on (one fits, the
    /// other not): not run, each a mismatch.
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
            if !fits {
                not_fitting += 1;
            }
            if fits != derived_fits {
                // Not run: the search would refuse endpoints that do not fit its grid.
                fit_disagreements += 1;
            }
            if !fits || !derived_fits {
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

    /// Runs the kept queries on the derived grid with the algorithm of `search`, each length
    /// checked against the reference within relative 1e-4 (the reference is exact: no file
    /// rounding applies); `on_query` sees each position and found path. Returns the report and
    /// the mismatches: the report's, plus the endpoints the derived grid and the erosion
    /// disagree on.
    pub fn check(
        &self,
        search: &SearchArgs,
        on_query: impl FnMut(usize, Option<&astar_grid::Path>),
    ) -> Result<(ScenReport, usize), String> {
        let report = run_scenario(
            self.grid(),
            &self.scenario,
            LengthPrecision::default(),
            search,
            on_query,
        )?;
        let mismatches = report.mismatches + self.fit_disagreements;
        Ok((report, mismatches))
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

/// Reads a map with `legend`, naming the file in any error.
pub fn read_map(map: &Path, legend: &Legend) -> Result<Grid, String> {
    let text =
        std::fs::read_to_string(map).map_err(|error| format!("{}: {error}", map.display()))?;
    astar_grid::parse_map_with(&text, legend).map_err(|error| format!("{}: {error}", map.display()))
}

/// Reads a map with `legend` and a scenario, naming the file in any error.
pub fn load_with_legend(
    map: &Path,
    scen: &Path,
    legend: &Legend,
) -> Result<(Grid, Scenario), String> {
    let grid = read_map(map, legend)?;
    let text =
        std::fs::read_to_string(scen).map_err(|error| format!("{}: {error}", scen.display()))?;
    let scenario = astar_grid::parse_scenario(&text)
        .map_err(|error| format!("{}: {error}", scen.display()))?;
    Ok((grid, scenario))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::{Connectivity, Corners};
    use crate::suite::{map_pairs, shipped_maps};
    use astar_grid::agent::moving_ai::{GROUND, OUT_OF_MAP, SWAMP, TREES, WATER};
    use astar_grid::{
        Algorithm, Cell, CornerRule, CostModel, Engine, Movement, ScenarioQuery, TerrainProfile,
    };
    use proptest::prelude::*;
    use std::path::PathBuf;

    /// The Moving AI rules with `algo`.
    fn search(algo: Algorithm) -> SearchArgs {
        SearchArgs {
            neighborhood: Connectivity::Eight,
            corners: Corners::Both,
            algo,
            heuristic: None,
            weight: 1.0,
            sector_size: astar_grid::HierarchyOptions::default().sector_size,
            entrance_spacing: astar_grid::HierarchyOptions::default().entrance_spacing,
        }
    }

    /// The shipped dao maps (arena and den312d) with their scenarios: a small suite.
    fn dao_pairs() -> Vec<(PathBuf, PathBuf)> {
        let pairs = map_pairs(&shipped_maps().join("dao")).expect("the dao maps are shipped");
        assert_eq!(pairs.len(), 2, "{pairs:?}");
        pairs
    }

    /// A small suite for agents of side `size` on the plain reading, as `suite --size` reads it.
    fn size_queries(size: u8) -> Vec<AgentQueries> {
        dao_pairs()
            .iter()
            .map(|(map, scen)| {
                let (terrain, scenario) =
                    load_with_legend(map, scen, &Legend::moving_ai()).expect("a valid pair");
                let kind = AgentKind::new(TerrainProfile::identity(), size);
                AgentQueries::new(&terrain, &scenario, &kind, &SearchOptions::default())
                    .expect("an agent kind these maps take")
            })
            .collect()
    }

    fn mismatches(queries: &AgentQueries, algo: Algorithm) -> usize {
        queries
            .check(&search(algo), |_, _| {})
            .expect("the queries run")
            .1
    }

    #[test]
    fn the_reference_for_one_cell_walkers_gives_the_moving_ai_lengths() {
        for (map, scen) in dao_pairs() {
            let (terrain, scenario) =
                load_with_legend(&map, &scen, &Legend::moving_ai_kinds()).expect("a valid pair");
            let kind = AgentKind::new(TerrainProfile::walker(), 1);
            let queries = AgentQueries::new(&terrain, &scenario, &kind, &SearchOptions::default())
                .expect("walkers fit");
            assert_eq!(
                (queries.not_fitting, queries.unreachable),
                (0, 0),
                "{map:?}"
            );
            assert_eq!(queries.scenario.queries.len(), scenario.queries.len());
            for (ours, theirs) in queries.scenario.queries.iter().zip(&scenario.queries) {
                let error = (ours.optimal_length - theirs.optimal_length).abs();
                assert!(
                    error <= 1e-4 * theirs.optimal_length.max(1.0),
                    "{map:?} {} -> {}: reference {}, file {}",
                    theirs.start,
                    theirs.goal,
                    ours.optimal_length,
                    theirs.optimal_length
                );
            }
        }
    }

    #[test]
    fn a_size_two_suite_has_no_mismatch_and_sets_queries_apart() {
        for size in [2, 3] {
            let suite = size_queries(size);
            let not_fitting: usize = suite.iter().map(|queries| queries.not_fitting).sum();
            let run: usize = suite
                .iter()
                .map(|queries| queries.scenario.queries.len())
                .sum();
            assert!(
                not_fitting > 0 && run > 100,
                "size {size}: {not_fitting} {run}"
            );
            for queries in &suite {
                assert_eq!(queries.fit_disagreements, 0);
                for algo in [Algorithm::AStar, Algorithm::JumpPoint, Algorithm::FlowField] {
                    assert_eq!(mismatches(queries, algo), 0, "size {size}, {algo:?}");
                }
            }
        }
        // den312d has a query that a 2x2 agent cannot finish: the search agrees.
        let den = &size_queries(2)[1];
        assert_eq!(den.unreachable, 1);
    }

    #[test]
    fn a_wrong_reference_is_caught() {
        let suite = size_queries(2);
        let den = &suite[1];
        let reachable = den
            .scenario
            .queries
            .iter()
            .position(|query| query.optimal_length > 10.0)
            .expect("a long query");
        let unreachable = den
            .scenario
            .queries
            .iter()
            .position(|query| query.optimal_length < 0.0)
            .expect("the unreachable query");
        let tampered = |change: &dyn Fn(&mut ScenarioQuery)| {
            let mut wrong = den.clone();
            change(&mut wrong.scenario.queries[reachable]);
            wrong
        };
        // Longer by a hundredth, or said to be unreachable: both are mismatches.
        let longer = tampered(&|query| query.optimal_length += 0.01);
        assert_eq!(mismatches(&longer, Algorithm::AStar), 1);
        let cut_off = tampered(&|query| query.optimal_length = -1.0);
        assert_eq!(mismatches(&cut_off, Algorithm::JumpPoint), 1);
        // An unreachable query given a length: the search finds no path, a mismatch.
        let mut joined = den.clone();
        joined.scenario.queries[unreachable].optimal_length = 20.0;
        assert_eq!(mismatches(&joined, Algorithm::AStar), 1);
        // The reference of one-cell agents for the 2x2 grid: endpoints and lengths disagree.
        let (map, scen) = &dao_pairs()[1];
        let (terrain, scenario) =
            load_with_legend(map, scen, &Legend::moving_ai()).expect("a valid pair");
        let thin = ErodedGrid::new(&terrain, &TerrainProfile::identity(), 1);
        let options = SearchOptions::default();
        let wrong = AgentQueries::against(den.agent.clone(), 0.0, &thin, &scenario, &options);
        assert_eq!(wrong.fit_disagreements, den.not_fitting);
        assert!(mismatches(&wrong, Algorithm::AStar) > wrong.fit_disagreements);
    }

    /// Terrain values of the Moving AI kinds legend, ground most often, with a plain blocked
    /// cell and a plain cost multiplier.
    fn terrain_value() -> impl Strategy<Value = u8> {
        prop::sample::select(vec![
            GROUND, GROUND, GROUND, GROUND, GROUND, SWAMP, WATER, TREES, OUT_OF_MAP, 0, 3,
        ])
    }

    fn terrain() -> impl Strategy<Value = Grid> {
        (1u32..=12, 1u32..=12).prop_flat_map(|(width, height)| {
            prop::collection::vec(terrain_value(), (width * height) as usize).prop_map(
                move |values| {
                    Grid::from_fn(width, height, |cell| {
                        values[(cell.y * width + cell.x) as usize]
                    })
                },
            )
        })
    }

    fn profile() -> impl Strategy<Value = TerrainProfile> {
        prop::sample::select(vec![
            TerrainProfile::identity(),
            TerrainProfile::walker(),
            TerrainProfile::flyer(),
            TerrainProfile::heavy(),
            TerrainProfile::boat(),
        ])
    }

    fn movement() -> impl Strategy<Value = Movement> {
        prop::sample::select(vec![
            Movement::FOUR,
            Movement::eight(CornerRule::Both),
            Movement::eight(CornerRule::One),
            Movement::eight(CornerRule::Any),
        ])
    }

    /// Octile, or integer costs with diagonals below, between and above one and two straight
    /// steps.
    fn cost_model() -> impl Strategy<Value = CostModel> {
        prop_oneof![
            Just(CostModel::Octile),
            (1u32..=20, 1u32..=45)
                .prop_map(|(straight, diagonal)| CostModel::Integer { straight, diagonal }),
        ]
    }

    proptest! {
        /// The brute-force erosion is the core's derived grid cell for cell, and every algorithm
        /// on the derived grid finds the reference's optimum, or no path where it has none.
        #[test]
        fn the_reference_agrees_with_every_algorithm_on_the_derived_grid(
            terrain in terrain(),
            profile in profile(),
            size in 1u8..=4,
            movement in movement(),
            cost in cost_model(),
            queries in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..12),
        ) {
            let Ok(agent) = AgentGrid::new(&terrain, &profile, size) else {
                prop_assume!(false);
                return Ok(());
            };
            let eroded = ErodedGrid::new(&terrain, &profile, size);
            for (cell, value) in agent.grid().cells() {
                prop_assert_eq!(eroded.cost(cell), value, "{}", cell);
            }
            let options = SearchOptions { movement, cost, ..SearchOptions::default() };
            let mut reference = ReferenceDijkstra::new(&eroded, movement, cost);
            let cells: Vec<Cell> = agent.grid().cells().map(|(cell, _)| cell).collect();
            for algorithm in Algorithm::OPTIMAL {
                let Ok(mut engine) = Engine::new(agent.grid(), algorithm, &options) else {
                    continue;
                };
                for (start, goal) in &queries {
                    let (start, goal) = (*start.get(&cells), *goal.get(&cells));
                    let expected = reference.cost(start, goal);
                    let result = engine.find_path(start, goal);
                    if !eroded.fits(start) || !eroded.fits(goal) {
                        prop_assert!(result.is_err(), "{algorithm:?} {start} -> {goal}");
                        continue;
                    }
                    let found = result
                        .map_err(|error| TestCaseError::fail(error.to_string()))?
                        .found()
                        .map(|path| path.cost);
                    match (found, expected) {
                        (Some(found), Some(expected)) => prop_assert!(
                            (found - expected).abs() <= 1e-9 * expected.max(1.0),
                            "{algorithm:?} {start} -> {goal}: {found} vs {expected}"
                        ),
                        (None, None) => {}
                        _ => prop_assert!(false, "{algorithm:?} {start} -> {goal}: {found:?} vs {expected:?}"),
                    }
                }
            }
        }
    }
}
