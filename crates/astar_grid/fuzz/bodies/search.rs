//! Body of the `search` fuzz target, run on stable by `tests/fuzz.rs` too: a request decoded
//! from bytes (a grid of up to 8x8 cells, endpoints that may lie outside it, any options,
//! limits, weights and cost models) goes to each public search function. Each must refuse it
//! with an error that fits it, or answer with a legal path; time-sliced searches must agree
//! with whole ones, and jump point search and flow fields with A*.

#[path = "../../tests/common/path_check.rs"]
pub mod path_check;

use astar_grid::{
    Cell, CornerRule, CostModel, FlowField, FlowFieldError, Grid, Heuristic, JpsOptions, JumpGrid,
    Movement, SearchError, SearchOptions, SearchResult, SearchStatus, SearchWindow, Searcher, Step,
    Weighting,
};
use path_check::{check_inside_window, check_path, costs_match, same_error};

/// One request, with everything each search function needs.
#[derive(Clone, Debug)]
pub struct SearchCase {
    /// The grid, possibly without cells.
    pub grid: Grid,
    /// Start cell, possibly outside the grid.
    pub start: Cell,
    /// Goal cell, possibly outside the grid.
    pub goal: Cell,
    /// Options of the A* searches.
    pub options: SearchOptions,
    /// Options of the jump point search.
    pub jps: JpsOptions,
    /// Expansions per call of `ActiveSearch::advance`, at least 1.
    pub budget: u32,
    /// Goals of the flow field, possibly none, outside the grid or blocked.
    pub goals: Vec<Cell>,
}

/// Reads fuzz input a byte at a time; past its end every byte is 0.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let (&first, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        first
    }

    fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    fn pick<T: Copy>(&mut self, choices: &[T]) -> T {
        choices[usize::from(self.byte()) % choices.len()]
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// A coordinate for a side of `size` cells: mostly inside or just outside, sometimes far.
    fn coordinate(&mut self, size: u32) -> u32 {
        match self.byte() {
            250..=252 => u32::MAX,
            253..=255 => size,
            byte => u32::from(byte) % size.max(1),
        }
    }

    fn cell(&mut self, grid: &Grid) -> Cell {
        Cell::new(
            self.coordinate(grid.width()),
            self.coordinate(grid.height()),
        )
    }

    /// A grid value: blocked, plain or any cost multiplier.
    fn terrain(&mut self) -> u8 {
        match self.byte() {
            0..=31 => 0,
            32..=191 => 1,
            byte => byte,
        }
    }

    fn cost(&mut self) -> CostModel {
        match self.byte() % 5 {
            0 => CostModel::Octile,
            1 => CostModel::INTEGER_10_14,
            2 => CostModel::Integer {
                straight: u32::from(self.byte() % 6),
                diagonal: u32::from(self.byte() % 6),
            },
            3 => CostModel::Integer {
                straight: self.u32(),
                diagonal: self.u32(),
            },
            _ => CostModel::Integer {
                straight: u32::MAX,
                diagonal: u32::MAX,
            },
        }
    }

    fn limit(&mut self) -> Option<u32> {
        match self.byte() % 3 {
            0 => None,
            1 => Some(u32::from(self.byte() % 24)),
            _ => Some(u32::MAX),
        }
    }

    /// A weight: mostly 1, sometimes larger, sometimes one that searches must refuse.
    fn weight(&mut self) -> f64 {
        match self.byte() {
            0..=159 => 1.0,
            160..=223 => 1.0 + f64::from(self.byte()) / 32.0,
            _ => self.pick(&[
                f64::NAN,
                f64::NEG_INFINITY,
                -1.0,
                0.0,
                0.5,
                1e300,
                f64::MAX,
                f64::INFINITY,
            ]),
        }
    }
}

impl SearchCase {
    /// The request that `data` spells; any bytes spell one.
    pub fn decode(data: &[u8]) -> Self {
        let mut bytes = Bytes(data);
        let (width, height) = (u32::from(bytes.byte() % 9), u32::from(bytes.byte() % 9));
        let grid = Grid::from_fn(width, height, |_| bytes.terrain());
        let (start, goal) = (bytes.cell(&grid), bytes.cell(&grid));
        let movement = bytes.pick(&[
            Movement::FOUR,
            Movement::eight(CornerRule::Both),
            Movement::eight(CornerRule::One),
            Movement::eight(CornerRule::Any),
        ]);
        let mut options = SearchOptions::default()
            .with_movement(movement)
            .with_cost(bytes.cost());
        let heuristic = usize::from(bytes.byte()) % (Heuristic::ALL.len() + 1);
        options.heuristic = Heuristic::ALL.get(heuristic).copied();
        options.weighting = if bytes.flag() {
            Weighting::Dynamic {
                epsilon: bytes.weight(),
            }
        } else {
            Weighting::Static(bytes.weight())
        };
        options.max_expansions = bytes.limit();
        options.window = (bytes.byte() % 4 == 0)
            .then(|| SearchWindow::new(bytes.cell(&grid), bytes.cell(&grid)));
        options.partial_path = bytes.flag();
        options.closest_reachable = bytes.flag();
        options.trace = bytes.flag();
        let jps = JpsOptions {
            cost: bytes.cost(),
            full_path: bytes.flag(),
            max_expansions: bytes.limit(),
            closest_reachable: bytes.flag(),
        };
        let budget = 1 + u32::from(bytes.byte() % 16);
        let goals = (0..bytes.byte() % 4).map(|_| bytes.cell(&grid)).collect();
        Self {
            grid,
            start,
            goal,
            options,
            jps,
            budget,
            goals,
        }
    }
}

/// Decodes `data` into a request and checks every search function on it.
pub fn run(data: &[u8]) {
    check(&SearchCase::decode(data));
}

/// Checks every search function on `case`; panics when one breaks a rule.
pub fn check(case: &SearchCase) {
    let result = check_astar(case);
    check_jps(case, result.as_ref());
    check_flow_field(case);
}

/// Whether the diagonal step costs less than the straight one: a model that searches may
/// either refuse or search, since no heuristic scaled to straight steps is admissible for it.
fn diagonal_is_cheaper(cost: CostModel) -> bool {
    cost.is_valid() && cost.diagonal() < cost.straight()
}

/// The errors that fit an A* request: a search must report one of them, and must run when
/// there are none.
fn astar_errors(case: &SearchCase) -> Vec<SearchError> {
    let SearchCase {
        grid, start, goal, ..
    } = case;
    let options = &case.options;
    let mut errors = endpoint_errors(grid, *start, *goal);
    // A blocked goal is searched for its closest reachable cell when that is asked for.
    errors.retain(|error| {
        !(options.closest_reachable && matches!(error, SearchError::GoalBlocked(_)))
    });
    let weight = match options.weighting {
        Weighting::Static(weight) => (!(weight.is_finite() && weight >= 1.0)).then_some(weight),
        Weighting::Dynamic { epsilon } => {
            (!(epsilon.is_finite() && epsilon >= 0.0)).then_some(epsilon)
        }
    };
    errors.extend(weight.map(SearchError::InvalidWeight));
    if !options.cost.is_valid() {
        errors.push(SearchError::InvalidCostModel);
    }
    if options
        .window
        .is_some_and(|window| !window.contains(*start))
    {
        errors.push(SearchError::StartOutsideWindow(*start));
    }
    errors
}

/// The errors an empty grid and the two endpoints deserve.
fn endpoint_errors(grid: &Grid, start: Cell, goal: Cell) -> Vec<SearchError> {
    let mut errors = Vec::new();
    if grid.is_empty() {
        errors.push(SearchError::EmptyGrid);
    }
    if !grid.contains(start) {
        errors.push(SearchError::StartOutOfBounds(start));
    } else if !grid.is_walkable(start) {
        errors.push(SearchError::StartBlocked(start));
    }
    if !grid.contains(goal) {
        errors.push(SearchError::GoalOutOfBounds(goal));
    } else if !grid.is_walkable(goal) {
        errors.push(SearchError::GoalBlocked(goal));
    }
    errors
}

/// Checks that `error` is one of `fitting`, or a refusal of a cost model whose diagonal is
/// cheaper.
fn check_fits(error: &SearchError, fitting: &[SearchError], cost: CostModel) {
    let fits = fitting.iter().any(|candidate| same_error(candidate, error))
        || (diagonal_is_cheaper(cost)
            && matches!(
                error,
                SearchError::InvalidCostModel | SearchError::Unsupported(_)
            ));
    assert!(fits, "{error:?} does not fit; expected one of {fitting:?}");
}

/// A* whole, from a fresh and a reused searcher and time-sliced; returns its result when it
/// ran.
fn check_astar(case: &SearchCase) -> Option<SearchResult> {
    let SearchCase {
        grid,
        start,
        goal,
        options,
        ..
    } = case;
    let fitting = astar_errors(case);
    let mut searcher = Searcher::new();
    let outcome = searcher.find_path(grid, *start, *goal, options);
    let free = astar_grid::find_path(grid, *start, *goal, options);
    let agree = match (&outcome, &free) {
        (Err(a), Err(b)) => same_error(a, b),
        (a, b) => a == b,
    };
    assert!(
        agree,
        "the free function answers {free:?}, a searcher {outcome:?}"
    );
    let result = match outcome {
        Err(error) => {
            check_fits(&error, &fitting, options.cost);
            assert!(searcher.begin(grid, *start, *goal, options).is_err());
            return None;
        }
        Ok(result) => result,
    };
    assert!(fitting.is_empty(), "ran although {fitting:?}");
    check_astar_result(case, &result);
    assert_eq!(
        searcher.find_path(grid, *start, *goal, options).as_ref(),
        Ok(&result),
        "a reused searcher answers differently"
    );
    assert_eq!(time_sliced(case, &mut searcher), result);
    Some(result)
}

/// The same search advanced `case.budget` expansions at a time.
fn time_sliced(case: &SearchCase, searcher: &mut Searcher) -> SearchResult {
    let mut search = searcher
        .begin(&case.grid, case.start, case.goal, &case.options)
        .expect("accepted by find_path");
    // Far more calls than any search of 64 cells needs: a search that stops progressing fails.
    for _ in 0..1_000_000 {
        match search.advance(case.budget) {
            Step::Pending(more) => search = more,
            Step::Done(result) => return result,
        }
    }
    panic!("a time-sliced search does not finish");
}

/// A result is legal: a found path reaches the goal, a partial one only when asked for (a
/// limit's partial path, or the path to the closest reachable cell), every path walks legal
/// steps inside the window and costs what its steps add up to.
fn check_astar_result(case: &SearchCase, result: &SearchResult) {
    let options = &case.options;
    assert_eq!(result.trace.is_some(), options.trace);
    let path = match (&result.status, &result.path) {
        (SearchStatus::Found, Some(path)) => path,
        (SearchStatus::NoPath, None) => return,
        (SearchStatus::LimitReached(_), None) => return,
        (SearchStatus::LimitReached(_), Some(path))
            if options.partial_path || options.closest_reachable =>
        {
            path
        }
        (SearchStatus::NoPath, Some(path)) if options.closest_reachable => path,
        (status, path) => panic!("{status:?} with {path:?}"),
    };
    let end = if result.status == SearchStatus::Found {
        case.goal
    } else {
        path.end().expect("a partial path has cells")
    };
    let legal = check_path(
        &case.grid,
        path,
        case.start,
        end,
        options.movement,
        options.cost,
    );
    assert_eq!(legal, Ok(()), "{path:?}");
    if let Some(window) = options.window {
        assert_eq!(check_inside_window(path, window), Ok(()));
    }
}

/// Jump point search with its own options and with those of the A* request, which it must
/// refuse or answer at the cost of an unlimited A* search with the same rules.
fn check_jps(case: &SearchCase, astar: Option<&SearchResult>) {
    let jump_grid = match JumpGrid::new(&case.grid) {
        Ok(jump_grid) => jump_grid,
        Err(error) => {
            assert!(case.grid.has_terrain_costs(), "{error:?}");
            return;
        }
    };
    assert!(!case.grid.has_terrain_costs());
    let mut searcher = Searcher::new();
    run_jps(case, &jump_grid, &mut searcher, &case.jps);
    let Ok(converted) = JpsOptions::try_from(&case.options) else {
        return;
    };
    let jps = run_jps(case, &jump_grid, &mut searcher, &converted);
    if let (Some(jps), Some(astar), None) = (jps, astar, case.options.max_expansions) {
        assert_eq!(jps.status, astar.status, "{jps:?} but A* {astar:?}");
        if let (Some(jps_cost), Some(astar_cost)) = (jps.cost(), astar.cost()) {
            assert!(
                costs_match(jps_cost, astar_cost),
                "{jps:?} but A* {astar:?}"
            );
        }
    }
}

/// One jump point search: refused with a fitting error, or a legal answer.
fn run_jps(
    case: &SearchCase,
    jump_grid: &JumpGrid,
    searcher: &mut Searcher,
    options: &JpsOptions,
) -> Option<SearchResult> {
    let result = match searcher.find_path_jps(jump_grid, case.start, case.goal, options) {
        Ok(result) => result,
        Err(error) => {
            let mut fitting = endpoint_errors(&case.grid, case.start, case.goal);
            fitting.retain(|fit| {
                !(options.closest_reachable && matches!(fit, SearchError::GoalBlocked(_)))
            });
            if !options.cost.is_valid() {
                fitting.push(SearchError::InvalidCostModel);
            }
            let unsupported = matches!(error, SearchError::Unsupported(_))
                && (options.cost.diagonal() < options.cost.straight()
                    || options.cost.diagonal() > 2.0 * options.cost.straight());
            assert!(
                unsupported || fitting.contains(&error),
                "{error:?} does not fit; expected one of {fitting:?}"
            );
            return None;
        }
    };
    if let (SearchStatus::Found, Some(path)) = (&result.status, &result.path) {
        assert_eq!(path.start(), Some(case.start));
        assert_eq!(path.end(), Some(case.goal));
        if options.full_path {
            let movement = Movement::eight(CornerRule::Both);
            let legal = check_path(
                &case.grid,
                path,
                case.start,
                case.goal,
                movement,
                options.cost,
            );
            assert_eq!(legal, Ok(()), "{path:?}");
        }
    } else if options.closest_reachable {
        // The path to the closest reachable cell, full or as turning points.
        if let Some(path) = &result.path {
            assert_eq!(path.start(), Some(case.start), "{result:?}");
        }
    } else {
        assert_eq!(result.path, None, "{result:?}");
    }
    Some(result)
}

/// A flow field to the case's goals: refused with a fitting error, or paths from the start
/// that are legal, and cost what Dijkstra finds for a single goal.
fn check_flow_field(case: &SearchCase) {
    let SearchCase {
        grid,
        start,
        goals,
        options,
        ..
    } = case;
    let field = match FlowField::build(grid, goals, options.movement, options.cost) {
        Ok(field) => field,
        Err(error) => {
            let fits = match error {
                FlowFieldError::EmptyGrid => grid.is_empty(),
                FlowFieldError::NoGoals => goals.is_empty(),
                FlowFieldError::GoalOutOfBounds(goal) => !grid.contains(goal),
                FlowFieldError::GoalBlocked(goal) => !grid.is_walkable(goal),
                FlowFieldError::InvalidCostModel => !options.cost.is_valid(),
                _ => false,
            };
            assert!(fits, "{error:?} for goals {goals:?}");
            return;
        }
    };
    let Some(path) = field.path_from(*start) else {
        return;
    };
    let end = path.end().expect("a path has cells");
    assert!(field.is_goal(end), "{path:?} ends off the goals");
    let legal = check_path(grid, &path, *start, end, options.movement, options.cost);
    assert_eq!(legal, Ok(()), "{path:?}");
    if let [goal] = goals[..] {
        let dijkstra = SearchOptions::default()
            .with_movement(options.movement)
            .with_cost(options.cost)
            .dijkstra();
        let found = astar_grid::find_path(grid, *start, goal, &dijkstra).expect("a valid request");
        let cost = found.cost().expect("the flow field reached the goal");
        assert!(
            costs_match(cost, path.cost),
            "Dijkstra {cost}, flow field {path:?}"
        );
    }
}
