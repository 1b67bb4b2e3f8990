//! The words of the status bar: what the last search found (or why it found nothing) and what
//! the search knew about the cell under the cursor.

use crate::endpoints::Endpoints;
use crate::jump_points::JpsOutcome;
use crate::terrain::{joined, passable_terrains, terrain_name, terrain_words};
use bevy::prelude::*;
use bevy_astar::KindError;
use bevy_astar::astar_grid::agent::{AgentError, FootprintProblem};
use bevy_astar::astar_grid::{SearchStatus, SearchTrace, TracedCell};
use bevy_astar::prelude::*;
use core::time::Duration;

/// How a status line should look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// What to do next.
    Hint,
    /// Work in progress.
    Busy,
    /// A path was found.
    Good,
    /// A limit stopped the search.
    Warning,
    /// No path, or a request the search refused.
    Error,
}

/// One line of the status bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusLine {
    /// How it looks.
    pub tone: Tone,
    /// What it says.
    pub text: String,
}

impl StatusLine {
    fn new(tone: Tone, text: impl Into<String>) -> Self {
        Self {
            tone,
            text: text.into(),
        }
    }
}

/// Formats a cost: whole numbers for integer cost models, two decimals otherwise.
pub fn format_cost(cost: f64, model: CostModel) -> String {
    match model {
        CostModel::Integer { .. } => format!("{cost:.0}"),
        CostModel::Octile => format!("{cost:.2}"),
    }
}

/// Formats a search time in microseconds or milliseconds.
pub fn format_duration(duration: Duration) -> String {
    let micros = duration.as_secs_f64() * 1e6;
    if micros < 1000.0 {
        format!("{micros:.0} µs")
    } else {
        format!("{:.2} ms", micros / 1000.0)
    }
}

/// The length of the drawn path in cells (waypoint to waypoint, so smoothing shortens it).
fn drawn_length(path: &Path, cell_size: f32) -> f32 {
    // A fold from +0: an empty sum of floats is -0, which would print as "-0.0".
    let total = path
        .waypoints()
        .windows(2)
        .fold(0.0, |total, pair| total + pair[0].distance(pair[1]));
    total / cell_size.max(f32::EPSILON)
}

/// The agent kind a search was for, and the map it was asked on: what a refusal names.
#[derive(Clone, Copy, Debug)]
pub struct KindOnMap<'a> {
    /// The kind's terrain profile name ("walker", "boat", ...).
    pub name: &'a str,
    /// The kind's terrain profile.
    pub profile: &'a TerrainProfile,
    /// The terrain grid.
    pub grid: &'a Grid,
}

/// Why the kind cannot search, in a player's words: the cell in the way, its terrain, and the
/// terrain the kind's profile enters. "The boat cannot go there: the goal (3, 36) is ground, not
/// water (the "boat" terrain profile enters only water)."
pub fn kind_refusal(error: &KindError, kind: KindOnMap) -> String {
    let KindError::Agent(AgentError::FootprintDoesNotFit {
        endpoint,
        cell,
        size,
        problem,
    }) = *error
    else {
        return format!("Cannot search for the {}: {error}.", kind.name);
    };
    let name = kind.name;
    let opening = if size == 1 {
        format!("The {name} cannot go there: the {endpoint} {cell}")
    } else {
        format!("The {name} ({size}x{size}) does not fit at the {endpoint} {cell}: its cell")
    };
    let blocked = match problem {
        FootprintProblem::OutsideMap => {
            return format!(
                "The {name} ({size}x{size}) does not fit at the {endpoint} {cell}: its \
                 footprint reaches outside the map."
            );
        }
        FootprintProblem::Impassable(blocked) => blocked,
    };
    let at = if size == 1 {
        String::new()
    } else {
        format!(" {blocked}")
    };
    let value = kind.grid.value(blocked);
    let allowed = passable_terrains(kind.profile);
    if value == 0 || allowed.is_empty() {
        return format!("{opening}{at} is {}.", terrain_words(value));
    }
    format!(
        "{opening}{at} is {}, not {} (the \"{name}\" terrain profile enters only {}).",
        terrain_words(value),
        joined(&allowed, "or"),
        joined(&allowed, "and"),
    )
}

/// The cell that keeps a request from being searched, to be marked on the map: a blocked start
/// or goal, or the cell of the agent's footprint its kind cannot enter.
pub fn cell_in_the_way(status: &PathStatus) -> Option<Cell> {
    match *status {
        PathStatus::Invalid(SearchError::StartBlocked(cell) | SearchError::GoalBlocked(cell))
        | PathStatus::InvalidKind(KindError::Agent(AgentError::FootprintDoesNotFit {
            problem: FootprintProblem::Impassable(cell),
            ..
        })) => Some(cell),
        _ => None,
    }
}

/// The status a jump point search run by the visualiser stands for, when it did not run.
pub fn jps_refusal_status(outcome: &JpsOutcome) -> Option<PathStatus> {
    match *outcome {
        JpsOutcome::Refused(error) => Some(PathStatus::Invalid(error)),
        JpsOutcome::Kind(error) => Some(PathStatus::InvalidKind(KindError::Agent(error))),
        JpsOutcome::Searched(_) => None,
    }
}

/// What the last search found, or what to do before there is one.
///
/// `expanded` is the number of cells the search expanded (from its trace), `cell_size` the world
/// size of a cell, `model` the cost model the costs are in, `kind` the agent kind searched for.
pub fn result_line(
    endpoints: &Endpoints,
    path: Option<&Path>,
    expanded: Option<usize>,
    cell_size: f32,
    model: CostModel,
    kind: KindOnMap,
) -> StatusLine {
    let (Some(start), Some(goal)) = (endpoints.start, endpoints.goal) else {
        let which = if endpoints.start.is_none() {
            "start"
        } else {
            "goal"
        };
        return StatusLine::new(
            Tone::Hint,
            format!(
                "Left-click a free cell to place the {which}. Right-click or drag to toggle walls."
            ),
        );
    };
    let Some(path) = path.filter(|path| !path.status.is_pending()) else {
        return StatusLine::new(Tone::Busy, "Searching...");
    };
    let work = match expanded {
        Some(count) => format!(
            "{count} cells expanded in {}",
            format_duration(path.search_time)
        ),
        None => format!("searched in {}", format_duration(path.search_time)),
    };
    let partial = |path: &Path| {
        if path.cells().is_empty() {
            String::new()
        } else {
            format!(
                " The gold line is the best partial path, to {}.",
                path.cells().last().copied().unwrap_or(start)
            )
        }
    };
    match path.status {
        PathStatus::Found => StatusLine::new(
            Tone::Good,
            format!(
                "Path cost {} · length {} steps ({:.1} cells drawn) · {work}",
                format_cost(path.cost(), model),
                path.cells().len().saturating_sub(1),
                drawn_length(path, cell_size),
            ),
        ),
        PathStatus::NoPath if path.is_partial() => StatusLine::new(
            Tone::Warning,
            format!(
                "Unreachable: the gold line leads to {}, the reachable cell closest to {goal} \
                 ({work}).",
                path.cells().last().copied().unwrap_or(start)
            ),
        ),
        PathStatus::NoPath => StatusLine::new(
            Tone::Error,
            format!(
                "Unreachable: no path leads from {start} to {goal}; the search ran out of cells \
                 to try ({work})."
            ),
        ),
        PathStatus::LimitReached(Limit::Window) => StatusLine::new(
            Tone::Warning,
            format!(
                "No path inside the search window: the goal {goal} lies outside it or every way \
                 there leaves it ({work}).{}",
                partial(path)
            ),
        ),
        PathStatus::LimitReached(Limit::Expansions) => StatusLine::new(
            Tone::Warning,
            format!(
                "Stopped at the expansion limit before reaching {goal} ({work}).{}",
                partial(path)
            ),
        ),
        PathStatus::Invalid(error) => {
            StatusLine::new(Tone::Error, format!("Cannot search: {error}."))
        }
        PathStatus::InvalidKind(error) => StatusLine::new(Tone::Error, kind_refusal(&error, kind)),
        PathStatus::Queued | PathStatus::Searching | PathStatus::WaitingForMap => {
            StatusLine::new(Tone::Busy, "Searching...")
        }
        PathStatus::Cancelled => StatusLine::new(Tone::Warning, "The request was withdrawn."),
    }
}

/// What the replay shows: the step while one runs, else how to start one.
pub fn replay_line(active: bool, playing: bool, step: u32, total: u32) -> String {
    if !active {
        return "Replay: Space (or Play) shows the search one expansion at a time; arrows step."
            .to_owned();
    }
    if step >= total {
        return format!(
            "Replay paused after the last of {total} expansions (Space plays it again, Left \
             steps back, End finishes)."
        );
    }
    let state = if playing { "playing" } else { "paused" };
    format!(
        "Replay {state} at expansion {step} of {total}: the path appears when the search ends \
         (Space play/pause, arrows step, End finish)."
    )
}

/// The replay line while JPS is selected: it records no trace to replay.
pub const JPS_REPLAY_LINE: &str =
    "Replay: JPS records no trace; pick A*, Dijkstra or weighted A* to watch a search expand.";

/// What the last jump point search found, or why it could not run.
pub fn jps_result_line(
    endpoints: &Endpoints,
    outcome: Option<&JpsOutcome>,
    model: CostModel,
    kind: KindOnMap,
) -> StatusLine {
    let (Some(start), Some(goal)) = (endpoints.start, endpoints.goal) else {
        return result_line(endpoints, None, None, 1.0, model, kind);
    };
    let run = match outcome {
        None => return StatusLine::new(Tone::Busy, "Searching..."),
        Some(JpsOutcome::Refused(error)) => {
            return StatusLine::new(Tone::Error, format!("JPS cannot search: {error}."));
        }
        Some(JpsOutcome::Kind(error)) => {
            return StatusLine::new(Tone::Error, kind_refusal(&KindError::Agent(*error), kind));
        }
        Some(JpsOutcome::Searched(run)) => run,
    };
    let work = format!(
        "{} jump points expanded in {} (A* expands {} cells)",
        run.expanded,
        format_duration(run.search_time),
        run.astar_expanded
    );
    match run.status {
        SearchStatus::Found => StatusLine::new(
            Tone::Good,
            format!(
                "Path cost {} · length {} steps through {} waypoints · {work}",
                format_cost(run.cost, model),
                run.cells.len().saturating_sub(1),
                run.waypoints.len(),
            ),
        ),
        SearchStatus::NoPath => StatusLine::new(
            Tone::Error,
            format!("Unreachable: no path leads from {start} to {goal} ({work})."),
        ),
        SearchStatus::LimitReached(_) => StatusLine::new(
            Tone::Warning,
            format!("Stopped at the expansion limit before reaching {goal} ({work})."),
        ),
    }
}

/// Where a traced cell stood after `step` expansions (or at the end of the search).
fn state_at(traced: &TracedCell, step: Option<u32>, total: usize) -> String {
    match (traced.closed_at, step) {
        (_, Some(step)) if traced.opened_at > step => "not reached yet at this step".to_owned(),
        (Some(closed), Some(step)) if closed < step => {
            format!("expanded #{} of {total}", closed + 1)
        }
        (Some(closed), None) => format!("expanded #{} of {total}", closed + 1),
        _ => "open (on the frontier)".to_owned(),
    }
}

/// What the search knew about `cell`: its g, h and f values and whether it was open or closed.
/// `value` is the cell's raw grid value; `traced` its record in `trace`, if the search touched
/// it; `step` the replay step shown, if any.
pub fn cell_line(
    cell: Cell,
    value: u8,
    trace: Option<&SearchTrace>,
    traced: Option<&TracedCell>,
    step: Option<u32>,
    model: CostModel,
) -> String {
    let terrain = match (value, terrain_name(value)) {
        (0, _) => return format!("Cell {cell} · wall"),
        (_, Some(name)) => format!(" · {name}"),
        (1, None) => String::new(),
        (cost, None) => format!(" · terrain cost x{cost}"),
    };
    let Some(trace) = trace else {
        return format!("Cell {cell}{terrain}");
    };
    let Some(traced) = traced else {
        return format!("Cell {cell}{terrain} · not reached by the search");
    };
    let cost = |value: f64| format_cost(value, model);
    format!(
        "Cell {cell}{terrain} · g {} · h {} · f {} · {}",
        cost(traced.g),
        cost(traced.h),
        cost(traced.f),
        state_at(traced, step, trace.expansions.len()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jump_points::JpsRun;
    use crate::terrain::KindChoice;
    use bevy_astar::astar_grid::AgentGrid;
    use bevy_astar::astar_grid::agent::moving_ai::WATER;

    const WALKER: TerrainProfile = KindChoice::Walker.profile();

    fn map() -> Grid {
        Grid::new(10, 10)
    }

    fn walker(grid: &Grid) -> KindOnMap<'_> {
        KindOnMap {
            name: "walker",
            profile: &WALKER,
            grid,
        }
    }

    /// The refusal of a search for `kind` of `size` from `start` to `goal` on `grid`, as the
    /// plugin's check of the endpoints words it.
    fn refusal(grid: &Grid, kind: KindChoice, size: u8, start: Cell, goal: Cell) -> String {
        let profile = kind.profile();
        let kind_grid = AgentGrid::new(grid, &profile, size).expect("the kind fits the map");
        let error = kind_grid
            .check_endpoints(start, goal)
            .expect_err("an endpoint does not fit");
        let shown = KindOnMap {
            name: kind.name(),
            profile: &profile,
            grid,
        };
        kind_refusal(&KindError::Agent(error), shown)
    }

    fn endpoints() -> Endpoints {
        let mut endpoints = Endpoints::default();
        endpoints.place(Cell::new(1, 1));
        endpoints.place(Cell::new(8, 3));
        endpoints
    }

    fn path(status: PathStatus) -> Path {
        let mut path = Path::default();
        path.status = status;
        path
    }

    #[test]
    fn missing_endpoints_ask_for_a_click() {
        let grid = Grid::new(4, 4);
        let line = result_line(
            &Endpoints::default(),
            None,
            None,
            16.0,
            CostModel::Octile,
            walker(&grid),
        );
        assert_eq!(line.tone, Tone::Hint);
        assert!(line.text.contains("start"), "{}", line.text);
    }

    #[test]
    fn an_unreachable_goal_says_so() {
        let line = result_line(
            &endpoints(),
            Some(&path(PathStatus::NoPath)),
            Some(42),
            16.0,
            CostModel::Octile,
            walker(&map()),
        );
        assert_eq!(line.tone, Tone::Error);
        assert!(line.text.starts_with("Unreachable"), "{}", line.text);
        assert!(line.text.contains("42 cells expanded"), "{}", line.text);
    }

    #[test]
    fn a_found_path_reports_cost_length_and_work() {
        let mut found = Path::with_cells(
            [Cell::new(1, 1), Cell::new(2, 2), Cell::new(3, 2)],
            [Vec2::ZERO, Vec2::new(16.0, 16.0), Vec2::new(32.0, 16.0)],
            24.0,
        );
        found.search_time = Duration::from_micros(1500);
        let line = result_line(
            &endpoints(),
            Some(&found),
            Some(7),
            16.0,
            CostModel::INTEGER_10_14,
            walker(&map()),
        );
        assert_eq!(line.tone, Tone::Good);
        assert_eq!(
            line.text,
            "Path cost 24 · length 2 steps (2.4 cells drawn) · 7 cells expanded in 1.50 ms"
        );
    }

    #[test]
    fn refused_requests_and_limits_are_explained() {
        let blocked = result_line(
            &endpoints(),
            Some(&path(PathStatus::Invalid(SearchError::GoalBlocked(
                Cell::new(8, 3),
            )))),
            None,
            16.0,
            CostModel::Octile,
            walker(&map()),
        );
        assert_eq!(blocked.tone, Tone::Error);
        assert!(blocked.text.contains("(8, 3)"), "{}", blocked.text);
        let window = result_line(
            &endpoints(),
            Some(&path(PathStatus::LimitReached(Limit::Window))),
            Some(3),
            16.0,
            CostModel::Octile,
            walker(&map()),
        );
        assert_eq!(window.tone, Tone::Warning);
        assert!(window.text.contains("search window"), "{}", window.text);
    }

    #[test]
    fn a_kind_sent_onto_terrain_it_cannot_enter_is_told_which_and_why() {
        // Ground on the left, a column of water, ground on the right, a wall at the bottom right.
        let mut grid = Grid::new(6, 4);
        grid.fill_rect(Cell::new(2, 0), Cell::new(2, 3), WATER);
        grid.fill_rect(Cell::new(5, 3), Cell::new(5, 3), 0);
        let (ground, water) = (Cell::new(0, 0), Cell::new(2, 1));
        assert_eq!(
            refusal(&grid, KindChoice::Boat, 1, water, ground),
            "The boat cannot go there: the goal (0, 0) is ground, not water (the \"boat\" \
             terrain profile enters only water)."
        );
        assert_eq!(
            refusal(&grid, KindChoice::Walker, 1, water, ground),
            "The walker cannot go there: the start (2, 1) is water, not ground or swamp (the \
             \"walker\" terrain profile enters only ground and swamp)."
        );
        assert_eq!(
            refusal(&grid, KindChoice::Walker, 2, ground, Cell::new(1, 2)),
            "The walker (2x2) does not fit at the goal (1, 2): its cell (2, 2) is water, not \
             ground or swamp (the \"walker\" terrain profile enters only ground and swamp)."
        );
        assert_eq!(
            refusal(&grid, KindChoice::Flyer, 2, Cell::new(4, 2), ground),
            "The flyer (2x2) does not fit at the start (4, 2): its cell (5, 3) is a wall."
        );
        assert_eq!(
            refusal(&grid, KindChoice::Walker, 2, ground, Cell::new(5, 0)),
            "The walker (2x2) does not fit at the goal (5, 0): its footprint reaches outside \
             the map."
        );
        let status = PathStatus::InvalidKind(KindError::Agent(AgentError::FootprintDoesNotFit {
            endpoint: bevy_astar::astar_grid::agent::Endpoint::Goal,
            cell: Cell::new(2, 1),
            size: 1,
            problem: FootprintProblem::Impassable(Cell::new(2, 1)),
        }));
        let line = result_line(
            &endpoints(),
            Some(&path(status)),
            None,
            16.0,
            CostModel::Octile,
            walker(&grid),
        );
        assert_eq!(line.tone, Tone::Error);
        assert!(
            line.text.contains("is water, not ground or swamp"),
            "{}",
            line.text
        );
    }

    #[test]
    fn the_cell_in_the_way_is_the_blocked_endpoint_or_the_footprint_cell() {
        let mut grid = Grid::new(6, 4);
        grid.fill_rect(Cell::new(2, 0), Cell::new(2, 3), WATER);
        let kind_grid = AgentGrid::new(&grid, &WALKER, 2).expect("fits");
        let error = kind_grid
            .check_endpoints(Cell::new(0, 0), Cell::new(1, 1))
            .expect_err("the footprint at the goal covers water");
        assert_eq!(
            cell_in_the_way(&PathStatus::InvalidKind(KindError::Agent(error))),
            Some(Cell::new(2, 1))
        );
        let blocked = PathStatus::Invalid(SearchError::StartBlocked(Cell::new(4, 4)));
        assert_eq!(cell_in_the_way(&blocked), Some(Cell::new(4, 4)));
        let jps = JpsOutcome::Refused(SearchError::GoalBlocked(Cell::new(5, 1)));
        assert_eq!(
            jps_refusal_status(&jps).as_ref().and_then(cell_in_the_way),
            Some(Cell::new(5, 1))
        );
        assert_eq!(cell_in_the_way(&PathStatus::NoPath), None);
    }

    #[test]
    fn the_replay_line_shows_the_step_during_a_replay() {
        assert!(!replay_line(false, false, 3, 10).contains("expansion 3"));
        let line = replay_line(true, false, 3, 10);
        assert!(
            line.starts_with("Replay paused at expansion 3 of 10"),
            "{line}"
        );
        let end = replay_line(true, false, 10, 10);
        assert!(
            end.starts_with("Replay paused after the last of 10"),
            "{end}"
        );
    }

    #[test]
    fn an_empty_path_is_drawn_zero_cells_long() {
        let here = Path::with_cells([Cell::new(1, 1)], [Vec2::ZERO], 0.0);
        let line = result_line(
            &endpoints(),
            Some(&here),
            Some(1),
            16.0,
            CostModel::Octile,
            walker(&map()),
        );
        assert!(line.text.contains("(0.0 cells drawn)"), "{}", line.text);
    }

    #[test]
    fn jump_point_search_reports_its_work_beside_astars_or_why_it_refused() {
        let run = JpsRun {
            status: SearchStatus::Found,
            waypoints: vec![Cell::new(1, 1), Cell::new(3, 3), Cell::new(8, 3)],
            cells: (0..8).map(|x| Cell::new(x, 0)).collect(),
            cost: 7.83,
            expanded: 3,
            astar_expanded: 40,
            search_time: Duration::from_micros(12),
        };
        let line = jps_result_line(
            &endpoints(),
            Some(&JpsOutcome::Searched(run.clone())),
            CostModel::Octile,
            walker(&map()),
        );
        assert_eq!(line.tone, Tone::Good);
        assert_eq!(
            line.text,
            "Path cost 7.83 · length 7 steps through 3 waypoints · 3 jump points expanded in \
             12 µs (A* expands 40 cells)"
        );
        let unreachable = JpsRun {
            status: SearchStatus::NoPath,
            waypoints: Vec::new(),
            cells: Vec::new(),
            ..run
        };
        let line = jps_result_line(
            &endpoints(),
            Some(&JpsOutcome::Searched(unreachable)),
            CostModel::Octile,
            walker(&map()),
        );
        assert_eq!(line.tone, Tone::Error);
        assert!(line.text.starts_with("Unreachable"), "{}", line.text);
        let refused = jps_result_line(
            &endpoints(),
            Some(&JpsOutcome::Refused(SearchError::Unsupported("no windows"))),
            CostModel::Octile,
            walker(&map()),
        );
        assert_eq!(refused.tone, Tone::Error);
        assert!(refused.text.contains("no windows"), "{}", refused.text);
    }

    #[test]
    fn hovered_cells_show_their_state_at_the_replay_step() {
        let traced = TracedCell {
            cell: Cell::new(2, 2),
            g: 2.5,
            h: 1.0,
            f: 3.5,
            parent: Cell::new(1, 1),
            opened_at: 3,
            closed_at: Some(5),
        };
        let trace = SearchTrace {
            cells: vec![traced],
            expansions: vec![Cell::new(0, 0); 9],
        };
        let line = |step| {
            cell_line(
                traced.cell,
                1,
                Some(&trace),
                Some(&traced),
                step,
                CostModel::Octile,
            )
        };
        assert!(line(Some(2)).ends_with("not reached yet at this step"));
        assert!(line(Some(4)).ends_with("open (on the frontier)"));
        assert!(line(Some(6)).ends_with("expanded #6 of 9"));
        assert_eq!(
            line(None),
            "Cell (2, 2) · g 2.50 · h 1.00 · f 3.50 · expanded #6 of 9"
        );
        assert_eq!(
            cell_line(traced.cell, 0, None, None, None, CostModel::Octile),
            "Cell (2, 2) · wall"
        );
    }
}
