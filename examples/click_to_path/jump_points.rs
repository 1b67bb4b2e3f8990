//! Jump point search, run through the core: when the panel picks JPS, the visualiser calls
//! `Searcher::find_path_jps` on the map on screen itself (and A* on the same query, to compare
//! their work) and draws the path with the waypoints it jumped between. JPS records no trace, so
//! there is no closed or open set to draw and nothing to replay.

use crate::VisualiserSystems;
use crate::endpoints::Endpoints;
use crate::settings::SearchSettings;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy_astar::astar_grid::agent::AgentError;
use bevy_astar::astar_grid::{AgentGrid, JpsOptions, JumpGrid, SearchStatus, Searcher};
use bevy_astar::prelude::*;
use core::time::Duration;

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<JumpPointSearch>().add_systems(
        Update,
        (
            run_jump_point_search.in_set(VisualiserSystems::Request),
            draw_jump_point_path.in_set(VisualiserSystems::Show),
        ),
    );
}

/// The last jump point search, while the panel has JPS selected.
#[derive(Resource, Default)]
pub struct JumpPointSearch {
    /// What it gave, or `None` without both endpoints or with another algorithm selected.
    pub outcome: Option<JpsOutcome>,
    searcher: Searcher,
}

/// What a jump point search gave.
#[derive(Clone, Debug, PartialEq)]
pub enum JpsOutcome {
    /// The settings or the map ask for something JPS cannot do (the core's reason).
    Refused(SearchError),
    /// The agent's kind cannot search this map, or cannot stand on the start or goal (the core's
    /// reason, naming the cell in the way).
    Kind(AgentError),
    /// The search ran.
    Searched(JpsRun),
}

/// A finished jump point search, and the work plain A* needs for the same query.
#[derive(Clone, Debug, PartialEq)]
pub struct JpsRun {
    /// Found, no path, or stopped by the expansion limit.
    pub status: SearchStatus,
    /// The waypoints: start, the jump points and turns on the path, goal (empty without a path).
    pub waypoints: Vec<Cell>,
    /// Every cell of the path.
    pub cells: Vec<Cell>,
    /// The path's cost.
    pub cost: f64,
    /// Jump points expanded.
    pub expanded: u32,
    /// Cells A* expands for the same query, with the same costs.
    pub astar_expanded: u32,
    /// Time of the jump point search.
    pub search_time: Duration,
}

/// Every cell from waypoint to waypoint (each pair lies on one straight or diagonal line).
fn cells_between(waypoints: &[Cell]) -> Vec<Cell> {
    let mut cells: Vec<Cell> = waypoints.first().copied().into_iter().collect();
    for pair in waypoints.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let steps = from.x.abs_diff(to.x).max(from.y.abs_diff(to.y));
        let toward = |from: u32, to: u32, step: u32| {
            if to >= from {
                from + step.min(to - from)
            } else {
                from - step.min(from - to)
            }
        };
        cells.extend(
            (1..=steps)
                .map(|step| Cell::new(toward(from.x, to.x, step), toward(from.y, to.y, step))),
        );
    }
    cells
}

/// Runs jump point search from `start` to `goal` with `settings`, or says why it cannot.
fn search(
    searcher: &mut Searcher,
    grid: &Grid,
    start: Cell,
    goal: Cell,
    settings: &SearchSettings,
) -> JpsOutcome {
    // Partial paths are an A* display option; everything else JPS cannot honour is refused
    // with the core's reason.
    let options = settings.options(start).with_partial_path(false);
    let jps = match JpsOptions::try_from(&options) {
        Ok(jps) => jps.with_full_path(false),
        Err(error) => return JpsOutcome::Refused(error),
    };
    let jump_grid = match JumpGrid::new(grid) {
        Ok(jump_grid) => jump_grid,
        Err(error) => return JpsOutcome::Refused(error),
    };
    let began = Instant::now();
    let result = match searcher.find_path_jps(&jump_grid, start, goal, &jps) {
        Ok(result) => result,
        Err(error) => return JpsOutcome::Refused(error),
    };
    let search_time = began.elapsed();
    let astar = SearchOptions::default().with_cost(jps.cost);
    let astar_expanded = searcher
        .find_path(grid, start, goal, &astar)
        .map_or(0, |result| result.stats.expanded);
    let cost = result.cost().unwrap_or(0.0);
    let waypoints = result.path.map(|path| path.cells).unwrap_or_default();
    JpsOutcome::Searched(JpsRun {
        status: result.status,
        cells: cells_between(&waypoints),
        cost,
        waypoints,
        expanded: result.stats.expanded,
        astar_expanded,
        search_time,
    })
}

/// Runs jump point search for the settings' agent kind on `terrain`: on the kind's profile read
/// into a grid of its own, once the kind may stand on both endpoints (else the refusal names the
/// cell in the way).
fn search_for_kind(
    searcher: &mut Searcher,
    terrain: &Grid,
    start: Cell,
    goal: Cell,
    settings: &SearchSettings,
) -> JpsOutcome {
    let kind_grid = AgentGrid::new(terrain, &settings.kind.profile(), 1)
        .and_then(|kind_grid| kind_grid.check_endpoints(start, goal).map(|()| kind_grid));
    match kind_grid {
        Ok(kind_grid) => search(searcher, kind_grid.grid(), start, goal, settings),
        Err(error) => JpsOutcome::Kind(error),
    }
}

/// Searches again whenever the endpoints, the settings or the map change.
fn run_jump_point_search(
    endpoints: Res<Endpoints>,
    settings: Res<SearchSettings>,
    nav: Res<NavGrid>,
    mut jps: ResMut<JumpPointSearch>,
) {
    if !(endpoints.is_changed() || settings.is_changed() || nav.is_changed()) {
        return;
    }
    let jps = &mut *jps;
    jps.outcome = match endpoints.pair() {
        Some((start, goal)) if settings.runs_own_jump_points() => Some(search_for_kind(
            &mut jps.searcher,
            nav.grid(),
            start,
            goal,
            &settings,
        )),
        _ => None,
    };
}

/// The path in the overlay's path colour, a ring on each waypoint.
fn draw_jump_point_path(
    jps: Res<JumpPointSearch>,
    nav: Res<NavGrid>,
    mut gizmos: Gizmos<PathfindingGizmos>,
) {
    let Some(JpsOutcome::Searched(run)) = &jps.outcome else {
        return;
    };
    let color = gizmos.config_ext.path_color;
    let size = nav.cell_size().abs();
    gizmos.linestrip_2d(run.cells.iter().map(|&cell| nav.cell_center(cell)), color);
    for &cell in &run.waypoints {
        gizmos.circle_2d(nav.cell_center(cell), size.x.min(size.y) * 0.4, color);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Algorithm;

    fn settings(algorithm: Algorithm) -> SearchSettings {
        SearchSettings {
            algorithm,
            ..SearchSettings::default()
        }
    }

    fn open_grid_with_wall() -> Grid {
        let mut grid = Grid::new(12, 8);
        grid.fill_rect(Cell::new(5, 0), Cell::new(5, 6), 0);
        grid
    }

    #[test]
    fn jump_point_search_matches_astar_with_fewer_expansions() {
        let grid = open_grid_with_wall();
        let (start, goal) = (Cell::new(0, 0), Cell::new(11, 0));
        let mut searcher = Searcher::new();
        let JpsOutcome::Searched(run) = search(
            &mut searcher,
            &grid,
            start,
            goal,
            &settings(Algorithm::JumpPoint),
        ) else {
            panic!("jump point search refused a plain map");
        };
        let astar = Searcher::new()
            .find_path(&grid, start, goal, &SearchOptions::default())
            .expect("valid query");
        let astar_path = astar.found().expect("reachable");
        assert_eq!(run.status, SearchStatus::Found);
        assert!((run.cost - astar_path.cost).abs() < 1e-9);
        assert_eq!(run.cells.len(), astar_path.cells.len());
        assert_eq!(run.cells.first(), Some(&start));
        assert_eq!(run.cells.last(), Some(&goal));
        for pair in run.cells.windows(2) {
            assert!(pair[0].x.abs_diff(pair[1].x) <= 1 && pair[0].y.abs_diff(pair[1].y) <= 1);
            assert!(grid.is_walkable(pair[1]));
        }
        assert!(run.waypoints.len() < run.cells.len());
        assert_eq!(run.astar_expanded, astar.stats.expanded);
        assert!(run.expanded < run.astar_expanded);
    }

    #[test]
    fn settings_jump_point_search_cannot_honour_are_refused() {
        let grid = open_grid_with_wall();
        let mut four = settings(Algorithm::JumpPoint);
        four.neighborhood = Neighborhood::Four;
        let mut window = settings(Algorithm::JumpPoint);
        window.window = Some(UVec2::new(5, 5));
        for refused in [four, window] {
            let outcome = search(
                &mut Searcher::new(),
                &grid,
                Cell::new(0, 0),
                Cell::new(11, 0),
                &refused,
            );
            assert!(
                matches!(outcome, JpsOutcome::Refused(SearchError::Unsupported(_))),
                "{outcome:?}"
            );
        }
        let mut rough = grid.clone();
        rough.set_cost(Cell::new(2, 2), 4).expect("in bounds");
        let outcome = search(
            &mut Searcher::new(),
            &rough,
            Cell::new(0, 0),
            Cell::new(11, 0),
            &settings(Algorithm::JumpPoint),
        );
        assert!(matches!(outcome, JpsOutcome::Refused(_)), "{outcome:?}");
    }

    #[test]
    fn an_unreachable_goal_gives_no_path() {
        let mut grid = open_grid_with_wall();
        grid.fill_rect(Cell::new(5, 7), Cell::new(5, 7), 0);
        let outcome = search(
            &mut Searcher::new(),
            &grid,
            Cell::new(0, 0),
            Cell::new(11, 0),
            &settings(Algorithm::JumpPoint),
        );
        let JpsOutcome::Searched(run) = outcome else {
            panic!("refused: {outcome:?}");
        };
        assert_eq!(run.status, SearchStatus::NoPath);
        assert!(run.cells.is_empty() && run.waypoints.is_empty());
    }

    #[test]
    fn a_kind_that_cannot_stand_on_an_endpoint_is_refused_naming_the_cell() {
        use crate::terrain::KindChoice;
        use bevy_astar::astar_grid::agent::moving_ai::WATER;
        use bevy_astar::astar_grid::agent::{Endpoint, FootprintProblem};
        let mut grid = open_grid_with_wall();
        grid.fill_rect(Cell::new(0, 0), Cell::new(3, 7), WATER);
        let boat = SearchSettings {
            kind: KindChoice::Boat,
            ..settings(Algorithm::JumpPoint)
        };
        let outcome = search_for_kind(
            &mut Searcher::new(),
            &grid,
            Cell::new(0, 0),
            Cell::new(11, 0),
            &boat,
        );
        assert_eq!(
            outcome,
            JpsOutcome::Kind(AgentError::FootprintDoesNotFit {
                endpoint: Endpoint::Goal,
                cell: Cell::new(11, 0),
                size: 1,
                problem: FootprintProblem::Impassable(Cell::new(11, 0)),
            })
        );
        let on_water = search_for_kind(
            &mut Searcher::new(),
            &grid,
            Cell::new(0, 0),
            Cell::new(3, 7),
            &boat,
        );
        assert!(
            matches!(&on_water, JpsOutcome::Searched(run) if run.status == SearchStatus::Found),
            "{on_water:?}"
        );
    }

    #[test]
    fn cells_between_waypoints_fill_straight_and_diagonal_runs() {
        let waypoints = [Cell::new(0, 0), Cell::new(3, 3), Cell::new(3, 1)];
        assert_eq!(
            cells_between(&waypoints),
            [
                Cell::new(0, 0),
                Cell::new(1, 1),
                Cell::new(2, 2),
                Cell::new(3, 3),
                Cell::new(3, 2),
                Cell::new(3, 1),
            ]
        );
        assert!(cells_between(&[]).is_empty());
    }
}
