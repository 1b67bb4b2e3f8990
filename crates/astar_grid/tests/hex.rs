//! Hexagonal grids checked against an independent model (`common::hex_reference`): A*, the
//! engine's algorithms, weighted and inadmissible searches, time slicing, flow fields, goal trees
//! and goal batches, closest-reachable searches, repair, connectivity and the tower check, links,
//! smoothing and line of sight (against an exact geometric oracle), the hex heuristics,
//! `HexMap`'s offset layouts, and agents whose footprint is a disc of hexes.

pub mod common;

use astar_grid::agent::Footprint;
use astar_grid::hex::{HexLayout, HexMap, hex_distance};
use astar_grid::{AgentGrid, TerrainProfile};
use astar_grid::{
    Algorithm, Cell, Components, CornerRule, CostField, CostModel, Engine, FieldCost, FieldGrowth,
    FlowField, GoalPaths, GoalTree, Grid, Heuristic, Hierarchy, HierarchyError, HierarchyOptions,
    JpsOptions, Link, Movement, Neighborhood, ReachedPath, Repair, RepairError, RepairOptions,
    SearchError, SearchOptions, SearchResult, SearchStatus, Searcher, SmoothingError,
    SmoothingOptions, Step, TreeGrowth, Waypoint, Weighting, line_of_sight, line_of_sight_within,
    smooth_path, smooth_path_cells,
};
use common::hex_reference::{
    HEX_STEPS, HexGraph, centre_distance, close, closest_reachable, displacement, hex_neighbours,
    hex_sight, hex_steps, segment_meets_hex, straight_price,
};
use core::fmt::Debug;
use core::num::NonZeroUsize;
use proptest::prelude::*;
use proptest::sample::Index;

/// The heuristics that never overestimate on a hexagonal grid.
const ADMISSIBLE: [Heuristic; 4] = [
    Heuristic::Octile,
    Heuristic::Euclidean,
    Heuristic::Chebyshev,
    Heuristic::Zero,
];

/// A test failure carrying `error`'s debug form.
fn fail(error: impl Debug) -> TestCaseError {
    TestCaseError::fail(format!("{error:?}"))
}

/// A grid of 1 to `max_side` by 1 to `max_side` cells whose cells are walls with a probability
/// from 0 to 0.5, and otherwise cost 1, or with terrain a cost from 1 to 9.
fn hex_grid(max_side: u32) -> impl Strategy<Value = Grid> {
    hex_grid_with(max_side, 0.5)
}

/// [`hex_grid`] with walls at most `max_density` of the cells.
fn hex_grid_with(max_side: u32, max_density: f64) -> impl Strategy<Value = Grid> {
    (1..=max_side, 1..=max_side, 0.0..max_density, any::<bool>()).prop_flat_map(
        |(width, height, density, terrain)| {
            prop::collection::vec((0.0..1.0f64, 1u8..=9), (width * height) as usize).prop_map(
                move |rolls| {
                    Grid::from_fn(width, height, |cell| {
                        let (roll, cost) = rolls[(cell.y * width + cell.x) as usize];
                        if roll < density {
                            0
                        } else if terrain {
                            cost
                        } else {
                            1
                        }
                    })
                },
            )
        },
    )
}

/// The octile model, or integer costs from 1 to 20 (a diagonal cheaper than a straight step
/// drawn on purpose as well: it must not matter on a hexagonal grid).
fn cost_model() -> impl Strategy<Value = CostModel> {
    let integer = |(straight, diagonal)| CostModel::Integer { straight, diagonal };
    prop_oneof![
        1 => Just(CostModel::Octile),
        2 => (1u32..=20, 1u32..=20).prop_map(integer),
        1 => (2u32..=20).prop_flat_map(|straight| (Just(straight), 1..straight)).prop_map(integer),
    ]
}

/// Hexagonal movement with any corner rule, which must be ignored.
fn hex_movement() -> impl Strategy<Value = Movement> {
    prop::sample::select(vec![CornerRule::Both, CornerRule::One, CornerRule::Any]).prop_map(
        |corners| Movement {
            neighborhood: Neighborhood::Hex,
            corners,
        },
    )
}

/// The walkable cells of `grid`, row-major.
fn walkable_cells(grid: &Grid) -> Vec<Cell> {
    grid.cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect()
}

/// Every cell of `grid`, row-major.
fn all_cells(grid: &Grid) -> Vec<Cell> {
    grid.cells().map(|(cell, _)| cell).collect()
}

/// Runs a search a `budget` of expansions at a time.
fn run_sliced(
    searcher: &mut Searcher,
    grid: &Grid,
    (start, goal): (Cell, Cell),
    options: &SearchOptions,
    budget: u32,
) -> Result<SearchResult, SearchError> {
    let mut search = searcher.begin(grid, start, goal, options)?;
    loop {
        match search.advance(budget) {
            Step::Pending(more) => search = more,
            Step::Done(result) => return Ok(result),
        }
    }
}

/// Checks that `result` found a legal path from `start` to `goal` costing `expected`, or no path
/// when `expected` is `None`.
fn expect_optimal(
    graph: &HexGraph,
    result: &SearchResult,
    ends: (Cell, Cell),
    expected: Option<f64>,
    what: &str,
) -> Result<(), TestCaseError> {
    expect_bounded(graph, result, ends, expected, 1.0, what)
}

/// Checks that `result` found a legal path when one exists, costing at most `bound` times the
/// optimum (and never less than it), and no path when `expected` is `None`.
fn expect_bounded(
    graph: &HexGraph,
    result: &SearchResult,
    (start, goal): (Cell, Cell),
    expected: Option<f64>,
    bound: f64,
    what: &str,
) -> Result<(), TestCaseError> {
    let Some(optimum) = expected else {
        prop_assert_eq!(result.status, SearchStatus::NoPath, "{}", what);
        prop_assert!(
            result.path.is_none(),
            "{}: a path to an unreachable goal",
            what
        );
        return Ok(());
    };
    prop_assert_eq!(result.status, SearchStatus::Found, "{}", what);
    let path = result
        .found()
        .ok_or_else(|| fail(format!("{what}: no path")))?;
    let sum = graph
        .path_cost(&path.cells, start, goal)
        .map_err(|error| fail(format!("{what}: {error}")))?;
    prop_assert!(
        close(sum, path.cost),
        "{}: cost {} but its steps add up to {}",
        what,
        path.cost,
        sum
    );
    let within = if bound == 1.0 {
        close(path.cost, optimum)
    } else {
        path.cost >= optimum * (1.0 - 1e-9)
            && (bound.is_infinite() || path.cost <= bound * optimum * (1.0 + 1e-9))
    };
    prop_assert!(
        within,
        "{}: cost {} outside [{}, {} x {}]",
        what,
        path.cost,
        optimum,
        bound,
        optimum
    );
    Ok(())
}

/// Checks a path that ends short of an unreachable goal: legal from `start`, ending at the
/// expected closest cell at its optimal cost.
fn expect_closest(
    graph: &HexGraph,
    cells: &[Cell],
    cost: f64,
    start: Cell,
    (end, optimum): (Cell, f64),
    what: &str,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        cells.last().copied(),
        Some(end),
        "{}: wrong closest cell",
        what
    );
    check_walk(graph, cells, (start, end), (cost, optimum), what)
}

/// Checks that `cells`, a walk from `from` to `end`, costs `cost` by the sum of its steps, and
/// that `cost` is the optimum.
fn check_walk(
    graph: &HexGraph,
    cells: &[Cell],
    (from, end): (Cell, Cell),
    (cost, optimum): (f64, f64),
    what: &str,
) -> Result<(), TestCaseError> {
    let sum = graph
        .path_cost(cells, from, end)
        .map_err(|error| fail(format!("{what}: {error}")))?;
    prop_assert!(close(sum, cost), "{}: cost {} vs steps {}", what, cost, sum);
    prop_assert!(
        close(cost, optimum),
        "{}: cost {}, optimum {}",
        what,
        cost,
        optimum
    );
    Ok(())
}

/// Checks every cell of a field (flow field or goal tree) against the reference costs to the
/// walkable `goals`: its cost, whether it is a goal, and that its next step is a legal step
/// onto a cell cheaper by exactly that step.
fn check_field<C: FieldCost>(
    graph: &HexGraph,
    field: &CostField<C>,
    expected: &[Option<f64>],
    goals: &[Cell],
    what: &str,
) -> Result<(), TestCaseError> {
    for (index, cell) in graph.cells().enumerate() {
        let cost = field.cost_at(cell);
        match (cost, expected[index]) {
            (None, None) => {}
            (Some(cost), Some(optimum)) => prop_assert!(
                close(cost, optimum),
                "{}: {} costs {}, optimum {}",
                what,
                cell,
                cost,
                optimum
            ),
            (cost, optimum) => {
                return Err(fail(format!(
                    "{what}: {cell} costs {cost:?}, expected {optimum:?}"
                )));
            }
        }
        let goal = goals.contains(&cell) && graph.walkable(cell);
        prop_assert_eq!(field.is_goal(cell), goal, "{}: is {} a goal", what, cell);
        let next = field.next_step(cell);
        match expected[index] {
            Some(optimum) if !goal => {
                let next = next.ok_or_else(|| fail(format!("{what}: no next step at {cell}")))?;
                let step = graph
                    .step_cost(cell, next)
                    .ok_or_else(|| fail(format!("{what}: {cell} -> {next} is no step")))?;
                let rest = graph
                    .index(next)
                    .and_then(|slot| expected[slot])
                    .ok_or_else(|| fail(format!("{what}: next step {next} reaches no goal")))?;
                prop_assert!(
                    close(step + rest, optimum),
                    "{}: {} -> {} costs {} + {}, optimum {}",
                    what,
                    cell,
                    next,
                    step,
                    rest,
                    optimum
                );
            }
            _ => prop_assert_eq!(next, None, "{}: next step at {}", what, cell),
        }
    }
    Ok(())
}

/// Checks a path read from a field: legal from `cell` to one of `goals`, its cost adding up to
/// the reference cost of `cell`.
fn check_field_path(
    graph: &HexGraph,
    cells: &[Cell],
    cost: f64,
    cell: Cell,
    goals: &[Cell],
    optimum: f64,
    what: &str,
) -> Result<(), TestCaseError> {
    let end = *cells
        .last()
        .ok_or_else(|| fail(format!("{what}: empty path")))?;
    prop_assert!(
        goals.contains(&end),
        "{}: path from {} ends at {}",
        what,
        cell,
        end
    );
    check_walk(graph, cells, (cell, end), (cost, optimum), what)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A* with every admissible heuristic (and the default), whole and time-sliced, and the
    /// engine's A*, Dijkstra and flow field find optimal legal paths; weighted searches stay
    /// within their bounds; Manhattan, inadmissible here, still finds legal paths.
    #[test]
    fn searches_find_optimal_hex_paths(
        grid in hex_grid(20),
        cost in cost_model(),
        movement in hex_movement(),
        picks in prop::collection::vec((any::<Index>(), any::<Index>()), 1..=3),
        budget in 1u32..40,
    ) {
        let graph = HexGraph::new(&grid, cost);
        let open = walkable_cells(&grid);
        prop_assume!(!open.is_empty());
        let mut searcher = Searcher::new();
        let base = SearchOptions::default().with_movement(movement).with_cost(cost);
        prop_assert_eq!(base.resolved_heuristic(), Heuristic::Octile);
        for (a, b) in &picks {
            let query = (*a.get(&open), *b.get(&open));
            let expected = graph.cost_between(query.0, query.1);
            let mut variants = vec![("default".to_owned(), base)];
            variants.extend(ADMISSIBLE.map(|h| (format!("{h:?}"), base.with_heuristic(h))));
            for (name, options) in &variants {
                prop_assert!(options.is_optimal(), "{} should be optimal", name);
                let whole = searcher.find_path(&grid, query.0, query.1, options).map_err(fail)?;
                expect_optimal(&graph, &whole, query, expected, &format!("A* {name} {query:?}"))?;
                let sliced = run_sliced(&mut searcher, &grid, query, options, budget)
                    .map_err(fail)?;
                prop_assert_eq!(sliced.status, whole.status, "sliced {}", name);
                prop_assert_eq!(&sliced.path, &whole.path, "sliced {}", name);
            }
            for algorithm in [Algorithm::AStar, Algorithm::Dijkstra, Algorithm::FlowField] {
                let mut engine = Engine::new(&grid, algorithm, &base).map_err(fail)?;
                let result = engine.find_path(query.0, query.1).map_err(fail)?;
                expect_optimal(&graph, &result, query, expected, &format!("{algorithm} {query:?}"))?;
            }
            for heuristic in [Heuristic::Octile, Heuristic::Euclidean, Heuristic::Chebyshev] {
                for weighting in [
                    Weighting::Static(1.5),
                    Weighting::Static(3.0),
                    Weighting::Dynamic { epsilon: 0.5 },
                    Weighting::Dynamic { epsilon: 2.0 },
                ] {
                    let mut options = base.with_heuristic(heuristic);
                    options.weighting = weighting;
                    let bound = match weighting {
                        Weighting::Static(weight) => weight,
                        Weighting::Dynamic { epsilon } => 1.0 + epsilon,
                    };
                    let result = searcher.find_path(&grid, query.0, query.1, &options)
                        .map_err(fail)?;
                    let what = format!("{heuristic:?} {weighting:?} {query:?}");
                    expect_bounded(&graph, &result, query, expected, bound, &what)?;
                }
            }
            let manhattan = base.with_heuristic(Heuristic::Manhattan);
            prop_assert!(!manhattan.is_optimal());
            let result = searcher.find_path(&grid, query.0, query.1, &manhattan).map_err(fail)?;
            let what = format!("Manhattan {query:?}");
            expect_bounded(&graph, &result, query, expected, f64::INFINITY, &what)?;
        }
    }

    /// Flow fields and goal trees, built whole or a slice at a time and brought up to date after
    /// edits, hold each cell's reference cost to its nearest goal; their paths are legal and
    /// optimal; goal batches (`paths_to_goal`, `GoalPaths`) give each start its optimal path.
    #[test]
    fn flow_fields_and_goal_trees_match_the_reference(
        grid in hex_grid(18),
        cost in cost_model(),
        movement in hex_movement(),
        goal_picks in prop::collection::vec(any::<Index>(), 1..=3),
        start_picks in prop::collection::vec(any::<Index>(), 1..=6),
        budget in 1usize..60,
        edits in prop::collection::vec((any::<Index>(), 0u8..=9), 0..=6),
    ) {
        let open = walkable_cells(&grid);
        prop_assume!(!open.is_empty());
        let every = all_cells(&grid);
        let graph = HexGraph::new(&grid, cost);
        let goals: Vec<Cell> = goal_picks.iter().map(|pick| *pick.get(&open)).collect();
        let expected = graph.costs_to(&goals);

        let field = FlowField::build(&grid, &goals, movement, cost).map_err(fail)?;
        check_field(&graph, &field, &expected, &goals, "flow field")?;
        let tree = GoalTree::build(&grid, &goals, movement, cost).map_err(fail)?;
        check_field(&graph, &tree, &expected, &goals, "goal tree")?;
        for (index, cell) in graph.cells().enumerate() {
            let from_field = field.path_from(cell);
            let from_tree = tree.path_from(&grid, cell).map_err(fail)?;
            match expected[index] {
                Some(optimum) => {
                    let path = from_field.ok_or_else(|| fail(format!("no field path at {cell}")))?;
                    check_field_path(&graph, &path.cells, path.cost, cell, &goals, optimum, "field path")?;
                    let path = from_tree.ok_or_else(|| fail(format!("no tree path at {cell}")))?;
                    check_field_path(&graph, &path.cells, path.cost, cell, &goals, optimum, "tree path")?;
                }
                None => {
                    prop_assert!(from_field.is_none(), "field path from unreachable {}", cell);
                    prop_assert!(from_tree.is_none(), "tree path from unreachable {}", cell);
                }
            }
        }

        let mut growth = FieldGrowth::new(&grid, &goals, movement, cost).map_err(fail)?;
        while !growth.advance(budget) {}
        check_field(&graph, &growth.finish(), &expected, &goals, "grown field")?;
        let mut growth = TreeGrowth::new(&grid, &goals, movement, cost).map_err(fail)?;
        while !growth.advance(budget) {}
        check_field(&graph, &growth.finish(), &expected, &goals, "grown tree")?;

        // Goal batches towards the first goal, from any cells (blocked ones get no path).
        let goal = goals[0];
        let to_goal = graph.costs_to(&[goal]);
        let starts: Vec<Cell> = start_picks.iter().map(|pick| *pick.get(&every)).collect();
        let expect_batch = |paths: &[Option<astar_grid::Path>], what: &str| -> Result<(), TestCaseError> {
            prop_assert_eq!(paths.len(), starts.len(), "{}", what);
            for (&start, path) in starts.iter().zip(paths) {
                let optimum = graph.index(start).and_then(|slot| to_goal[slot]);
                match (path, optimum) {
                    (None, None) => {}
                    (Some(path), Some(optimum)) => check_field_path(
                        &graph, &path.cells, path.cost, start, &[goal], optimum, what,
                    )?,
                    (path, optimum) => {
                        return Err(fail(format!("{what}: from {start}: {path:?}, optimum {optimum:?}")));
                    }
                }
            }
            Ok(())
        };
        let batch = FlowField::paths_to_goal(&grid, &starts, goal, movement, cost).map_err(fail)?;
        expect_batch(&batch, "paths_to_goal")?;
        let half = starts.len() / 2;
        let mut paths = GoalPaths::new(&grid, &starts[..half], goal, movement, cost).map_err(fail)?;
        while !paths.advance(budget) {}
        for (number, &start) in starts[..half].iter().enumerate() {
            let optimum = graph.index(start).and_then(|slot| to_goal[slot]);
            prop_assert_eq!(paths.settled(number).is_some(), optimum.is_some(), "settled {}", start);
        }
        let later = paths.add_starts(&starts[half..]);
        prop_assert_eq!(later, half..starts.len());
        while !paths.advance(budget) {}
        let settled: Vec<_> = (0..starts.len()).map(|number| paths.settled(number)).collect();
        expect_batch(&settled, "GoalPaths::settled")?;
        expect_batch(&paths.finish(), "GoalPaths::finish")?;

        // Edits, then incremental updates against a fresh reference.
        let mut edited = grid.clone();
        let mut changed = Vec::new();
        for (pick, value) in &edits {
            let cell = *pick.get(&every);
            edited.set_cost(cell, *value).map_err(fail)?;
            changed.push(cell);
        }
        let graph = HexGraph::new(&edited, cost);
        let goals_now: Vec<Cell> = goals.iter().copied().filter(|&g| edited.is_walkable(g)).collect();
        let expected = graph.costs_to(&goals_now);
        let mut field = field;
        field.update(&edited, &changed).map_err(fail)?;
        check_field(&graph, &field, &expected, &goals_now, "updated field")?;
        let mut tree = tree;
        tree.update(&edited, &changed).map_err(fail)?;
        check_field(&graph, &tree, &expected, &goals_now, "updated tree")?;
        for (index, cell) in graph.cells().enumerate() {
            if let (Some(optimum), Some(path)) = (expected[index], field.path_from(cell)) {
                check_field_path(&graph, &path.cells, path.cost, cell, &goals_now, optimum, "updated path")?;
            }
        }
    }

    /// With `closest_reachable`, every search answers a reachable goal optimally and an
    /// unreachable or blocked one with the optimal path to the reachable cell closest to it by
    /// hex distance, ties broken by cost and then `(y, x)`.
    #[test]
    fn closest_reachable_cells_follow_the_rule(
        grid in hex_grid(16),
        cost in cost_model(),
        movement in hex_movement(),
        start_picks in prop::collection::vec(any::<Index>(), 1..=4),
        goal_pick in any::<Index>(),
        second_goal in any::<Index>(),
    ) {
        let open = walkable_cells(&grid);
        prop_assume!(!open.is_empty());
        let every = all_cells(&grid);
        let graph = HexGraph::new(&grid, cost);
        let goal = *goal_pick.get(&every);
        let base = SearchOptions::default()
            .with_movement(movement)
            .with_cost(cost)
            .with_closest_reachable(true);
        let mut searcher = Searcher::new();
        let starts: Vec<Cell> = start_picks.iter().map(|pick| *pick.get(&open)).collect();
        for &start in &starts {
            let costs = graph.costs_from(start);
            let reached = graph.index(goal).and_then(|slot| costs[slot]);
            let closest = closest_reachable(&graph, &costs, &[goal])
                .ok_or_else(|| fail("the start reaches itself"))?;
            let check = |result: &SearchResult, what: &str| -> Result<(), TestCaseError> {
                if reached.is_some() {
                    return expect_optimal(&graph, result, (start, goal), reached, what);
                }
                prop_assert_eq!(result.status, SearchStatus::NoPath, "{}", what);
                prop_assert!(result.found().is_none(), "{}", what);
                let path = result.partial().ok_or_else(|| fail(format!("{what}: no path")))?;
                expect_closest(&graph, &path.cells, path.cost, start, closest, what)
            };
            for heuristic in ADMISSIBLE {
                let options = base.with_heuristic(heuristic);
                let result = searcher.find_path(&grid, start, goal, &options).map_err(fail)?;
                check(&result, &format!("A* {heuristic:?} {start} -> {goal}"))?;
            }
            for algorithm in [Algorithm::AStar, Algorithm::Dijkstra, Algorithm::FlowField] {
                let mut engine = Engine::new(&grid, algorithm, &base).map_err(fail)?;
                let result = engine.find_path(start, goal).map_err(fail)?;
                check(&result, &format!("{algorithm} {start} -> {goal}"))?;
            }
        }
        // The flow-field readers: one goal (possibly blocked) for a batch, two for a field.
        let batch = FlowField::closest_paths_to_goal(&grid, &starts, goal, movement, cost)
            .map_err(fail)?;
        for (&start, answer) in starts.iter().zip(&batch) {
            let costs = graph.costs_from(start);
            let what = format!("closest_paths_to_goal {start} -> {goal}");
            match (answer, graph.index(goal).and_then(|slot| costs[slot])) {
                (Some(ReachedPath::Goal(path)), Some(optimum)) => {
                    check_field_path(&graph, &path.cells, path.cost, start, &[goal], optimum, &what)?;
                }
                (Some(ReachedPath::Closest(path)), None) => {
                    let closest = closest_reachable(&graph, &costs, &[goal])
                        .ok_or_else(|| fail("the start reaches itself"))?;
                    expect_closest(&graph, &path.cells, path.cost, start, closest, &what)?;
                }
                (answer, optimum) => {
                    return Err(fail(format!("{what}: {answer:?}, optimum {optimum:?}")));
                }
            }
        }
        let goals: Vec<Cell> = [goal, *second_goal.get(&every)]
            .into_iter()
            .filter(|&cell| grid.is_walkable(cell))
            .collect();
        if !goals.is_empty() {
            let field = FlowField::build(&grid, &goals, movement, cost).map_err(fail)?;
            let to_goals = graph.costs_to(&goals);
            for &start in &starts {
                let what = format!("path_or_closest_from {start} -> {goals:?}");
                let answer = field.path_or_closest_from(&grid, start).map_err(fail)?;
                let slot = graph.index(start).ok_or_else(|| fail("start on the grid"))?;
                match (answer, to_goals[slot]) {
                    (Some(ReachedPath::Goal(path)), Some(optimum)) => {
                        check_field_path(&graph, &path.cells, path.cost, start, &goals, optimum, &what)?;
                    }
                    (Some(ReachedPath::Closest(path)), None) => {
                        let closest = closest_reachable(&graph, &graph.costs_from(start), &goals)
                            .ok_or_else(|| fail("the start reaches itself"))?;
                        expect_closest(&graph, &path.cells, path.cost, start, closest, &what)?;
                    }
                    (answer, optimum) => {
                    return Err(fail(format!("{what}: {answer:?}, optimum {optimum:?}")));
                }
                }
            }
        }
    }

    /// Local repair after cells are blocked: an untouched path is returned as it was exactly when
    /// none of its cells was blocked (no corner rule applies on a hexagonal grid); a repaired
    /// path is legal and costs at least the new optimum, exactly it after a full search; an
    /// unreachable goal is reported.
    #[test]
    fn repaired_paths_are_legal_and_full_searches_optimal(
        grid in hex_grid(18),
        cost in cost_model(),
        movement in hex_movement(),
        query in (any::<Index>(), any::<Index>()),
        blocks in prop::collection::vec((any::<Index>(), any::<bool>()), 1..=8),
        margin in 0u32..6,
    ) {
        let open = walkable_cells(&grid);
        prop_assume!(!open.is_empty());
        let (start, goal) = (*query.0.get(&open), *query.1.get(&open));
        let options = SearchOptions::default().with_movement(movement).with_cost(cost);
        let mut searcher = Searcher::new();
        let found = searcher.find_path(&grid, start, goal, &options).map_err(fail)?;
        let Some(path) = found.found().cloned() else {
            return Ok(());
        };
        let repair_options = RepairOptions::new(options).with_splice_margin(margin);
        let same = searcher
            .repair_path(&grid, &path.cells, &repair_options.with_optimal_input(true))
            .map_err(fail)?;
        prop_assert_eq!(same.repair, Repair::Untouched);
        prop_assert!(same.optimal);
        let kept = same.path.ok_or_else(|| fail("untouched without a path"))?;
        prop_assert_eq!(&kept.cells, &path.cells);
        prop_assert!(close(kept.cost, path.cost));

        let mut edited = grid.clone();
        for (pick, on_path) in &blocks {
            // Half of the blocks fall on the path, the others anywhere.
            let cell = if *on_path { *pick.get(&path.cells) } else { *pick.get(&open) };
            if cell != start && cell != goal {
                edited.set_blocked(cell, true).map_err(fail)?;
            }
        }
        let graph = HexGraph::new(&edited, cost);
        let optimum = graph.cost_between(start, goal);
        let broken = path.cells.iter().any(|&cell| !edited.is_walkable(cell));
        for (name, splice_expansions) in [("local", 4096), ("full", 0)] {
            let what = format!("{name} repair {start} -> {goal}");
            let repaired = searcher
                .repair_path(&edited, &path.cells, &repair_options.with_splice_expansions(splice_expansions))
                .map_err(fail)?;
            if !broken {
                prop_assert_eq!(repaired.repair, Repair::Untouched, "{}", what);
                let kept = repaired.path.ok_or_else(|| fail(format!("{what}: no path")))?;
                prop_assert_eq!(&kept.cells, &path.cells, "{}", what);
                prop_assert!(close(kept.cost, path.cost), "{}", what);
                continue;
            }
            prop_assert_ne!(repaired.repair, Repair::Untouched, "{}", what);
            let Some(optimum) = optimum else {
                prop_assert_eq!(repaired.repair, Repair::NoPath, "{}", what);
                prop_assert!(repaired.path.is_none(), "{}", what);
                continue;
            };
            let new_path = repaired.path.as_ref().ok_or_else(|| fail(format!("{what}: no path")))?;
            let sum = graph.path_cost(&new_path.cells, start, goal).map_err(|error| fail(format!("{what}: {error}")))?;
            prop_assert!(close(sum, new_path.cost), "{}: cost {} vs steps {}", what, new_path.cost, sum);
            prop_assert!(new_path.cost >= optimum * (1.0 - 1e-9), "{}: below the optimum", what);
            match repaired.repair {
                Repair::FullSearch => {
                    prop_assert!(repaired.optimal, "{}", what);
                    prop_assert!(close(new_path.cost, optimum), "{}: cost {}, optimum {}", what, new_path.cost, optimum);
                }
                Repair::Spliced { .. } => {
                    prop_assert!(splice_expansions > 0, "{}: spliced without a budget", what);
                    prop_assert!(!repaired.optimal, "{}", what);
                }
                other => return Err(fail(format!("{what}: {other:?} for a reachable goal"))),
            }
        }
    }

    /// Connectivity labels under hexagonal movement (with links joining their ends) say two
    /// cells share a component exactly when the reference reaches one from the other, before
    /// and after edits.
    #[test]
    fn components_match_the_reference(
        grid in hex_grid(16),
        movement in hex_movement(),
        links in prop::collection::vec((any::<Index>(), any::<Index>(), any::<bool>(), any::<bool>()), 0..=2),
        edits in prop::collection::vec((any::<Index>(), any::<bool>()), 0..=6),
    ) {
        let open = walkable_cells(&grid);
        prop_assume!(!open.is_empty());
        let every = all_cells(&grid);
        let mut grid = with_links(grid, &open, &links)?;
        let mut components = Components::new(&grid, movement);
        prop_assert_eq!(components.movement(), movement);
        check_components(&grid, &components, "built")?;
        for (pick, blocked) in &edits {
            let cell = *pick.get(&every);
            if grid.links().iter().any(|(_, link)| link.from == cell || link.to == cell) {
                continue; // keep link ends walkable
            }
            components.set_blocked(&mut grid, cell, *blocked).map_err(fail)?;
        }
        check_components(&grid, &components, "after edits")?;
    }

    /// The tower check under hexagonal movement reports what blocking cells would really cut
    /// off from the goal, by the reference components with and without them.
    #[test]
    fn the_tower_check_matches_the_reference(
        grid in hex_grid(16),
        movement in hex_movement(),
        links in prop::collection::vec((any::<Index>(), any::<Index>(), any::<bool>(), any::<bool>()), 0..=2),
        towers in prop::collection::vec((any::<Index>(), any::<bool>()), 1..=6),
        points in prop::collection::vec((any::<Index>(), any::<bool>()), 1..=4),
        goal_pick in any::<Index>(),
    ) {
        let open = walkable_cells(&grid);
        prop_assume!(!open.is_empty());
        let every = all_cells(&grid);
        let grid = with_links(grid, &open, &links)?;
        let components = Components::new(&grid, movement);
        let goal = *goal_pick.get(&open);
        // Towers around the goal (they may wall it in) or anywhere; points on walkable cells
        // or anywhere.
        let ring: Vec<Cell> = HEX_STEPS
            .iter()
            .filter_map(|&(dq, dr)| goal.offset(dq as i32, dr as i32))
            .filter(|&cell| grid.contains(cell))
            .collect();
        let towers: Vec<Cell> = towers
            .iter()
            .map(|(pick, near)| *pick.get(if *near && !ring.is_empty() { &ring } else { &every }))
            .collect();
        let points: Vec<Cell> = points
            .iter()
            .map(|(pick, walkable)| *pick.get(if *walkable { &open } else { &every }))
            .collect();
        let check = components.check_blocking(&towers, &points, goal).map_err(fail)?;
        let (cut_off, unreachable, covered) = tower_reference(&grid, &towers, &points, goal)?;
        let what = format!("towers {towers:?}, points {points:?}, goal {goal}");
        prop_assert_eq!(&check.already_unreachable, &unreachable, "already unreachable: {}", what);
        prop_assert_eq!(&check.cut_off, &cut_off, "cut off: {}", what);
        prop_assert_eq!(&check.covered, &covered, "covered: {}", what);
        let disconnects = !cut_off.is_empty() || covered.iter().any(|cell| !unreachable.contains(cell));
        prop_assert_eq!(check.disconnects(), disconnects, "{}", what);
        prop_assert_eq!(
            components.would_disconnect(&towers, &points, goal).map_err(fail)?,
            disconnects,
            "{}", what
        );
    }

    /// Links on a hexagonal grid: A* with every admissible heuristic and flow fields follow
    /// them at their own cost, and smoothing keeps link steps whole.
    #[test]
    fn links_on_a_hex_grid_match_the_reference(
        grid in hex_grid(14),
        cost in cost_model(),
        movement in hex_movement(),
        links in prop::collection::vec(
            (any::<Index>(), any::<Index>(), prop_oneof![
                Just(0.0), Just(0.5), Just(1.0), Just(3.0), Just(25.0), 0.0..40.0f64,
            ], any::<bool>(), any::<bool>()),
            1..=4,
        ),
        picks in prop::collection::vec((any::<Index>(), any::<Index>()), 1..=3),
    ) {
        let open = walkable_cells(&grid);
        prop_assume!(open.len() >= 2);
        let mut grid = grid;
        for (from, to, link_cost, one_way, link_open) in &links {
            let (from, to) = (*from.get(&open), *to.get(&open));
            if from == to {
                continue;
            }
            let mut link = Link::new(from, to, *link_cost).with_open(*link_open || links.len() == 1);
            if *one_way {
                link = link.one_way();
            }
            grid.add_link(link).map_err(fail)?;
        }
        let graph = HexGraph::new(&grid, cost);
        let base = SearchOptions::default().with_movement(movement).with_cost(cost);
        let mut searcher = Searcher::new();
        for (a, b) in &picks {
            let query = (*a.get(&open), *b.get(&open));
            let expected = graph.cost_between(query.0, query.1);
            for heuristic in ADMISSIBLE {
                let options = base.with_heuristic(heuristic);
                let result = searcher.find_path(&grid, query.0, query.1, &options).map_err(fail)?;
                let what = format!("linked A* {heuristic:?} {query:?}");
                expect_optimal(&graph, &result, query, expected, &what)?;
                let Some(path) = result.found() else { continue };
                let kept = smooth_path_cells(&grid, &path.cells, movement, SmoothingOptions::default())
                    .map_err(fail)?;
                let positions = positions_in(&path.cells, &kept)
                    .ok_or_else(|| fail(format!("{what}: {kept:?} is not a subsequence")))?;
                for pair in positions.windows(2) {
                    let (i, j) = (pair[0], pair[1]);
                    let crosses_link = (i..j).any(|k| {
                        !hex_neighbours(path.cells[k], path.cells[k + 1])
                            && graph.has_link(path.cells[k], path.cells[k + 1])
                    });
                    if crosses_link {
                        prop_assert_eq!(j, i + 1, "{}: a segment crosses a link step", what);
                        continue;
                    }
                    let limit = path.cells[i..=j].iter().map(|&cell| grid.value(cell)).max().unwrap_or(0);
                    prop_assert!(
                        hex_sight(&grid, path.cells[i], path.cells[j], limit),
                        "{}: no sight from {} to {}", what, path.cells[i], path.cells[j]
                    );
                }
            }
            let field = FlowField::build(&grid, &[query.1], movement, cost).map_err(fail)?;
            check_field(&graph, &field, &graph.costs_to(&[query.1]), &[query.1], "linked field")?;
        }
    }

    /// Smoothing on a hexagonal grid: the kept cells are path cells in order, first and last
    /// included; each segment is in sight by the geometric oracle within the costliest cell of
    /// the stretch it replaces, no longer than the segment limit, and the farthest such; the
    /// smoothed route is no longer than the path.
    #[test]
    fn smoothed_hex_paths_keep_sight(
        grid in hex_grid(20),
        movement in hex_movement(),
        query in (any::<Index>(), any::<Index>()),
        max_segment in prop_oneof![Just(None), (1.5..6.0f64).prop_map(Some), Just(Some(2f64.sqrt()))],
        lookahead in prop_oneof![Just(None), (1usize..10).prop_map(Some)],
    ) {
        let open = walkable_cells(&grid);
        prop_assume!(!open.is_empty());
        let (start, goal) = (*query.0.get(&open), *query.1.get(&open));
        let options = SearchOptions::default().with_movement(movement);
        let result = Searcher::new().find_path(&grid, start, goal, &options).map_err(fail)?;
        let Some(path) = result.found() else {
            return Ok(());
        };
        let smoothing = SmoothingOptions {
            max_segment,
            max_lookahead: lookahead.and_then(NonZeroUsize::new),
        };
        let kept = smooth_path_cells(&grid, &path.cells, movement, smoothing).map_err(fail)?;
        let waypoints = smooth_path(&grid, &path.cells, movement, smoothing).map_err(fail)?;
        let centres: Vec<Waypoint> = kept.iter().map(|&cell| Waypoint::center_of(cell)).collect();
        prop_assert_eq!(waypoints, centres);
        let positions = positions_in(&path.cells, &kept)
            .ok_or_else(|| fail(format!("{kept:?} is not a subsequence of {:?}", path.cells)))?;
        prop_assert_eq!(positions.first().copied(), Some(0));
        prop_assert_eq!(positions.last().copied(), Some(path.cells.len() - 1));
        let limit = max_segment.unwrap_or(f64::INFINITY);
        let last = path.cells.len() - 1;
        let stretch_max = |i: usize, j: usize| {
            path.cells[i..=j].iter().map(|&cell| grid.value(cell)).max().unwrap_or(0)
        };
        let allowed = |i: usize, j: usize| {
            centre_distance(path.cells[i], path.cells[j]) <= limit
                && hex_sight(&grid, path.cells[i], path.cells[j], stretch_max(i, j))
        };
        let mut length = 0.0;
        for pair in positions.windows(2) {
            let (i, j) = (pair[0], pair[1]);
            prop_assert!(j > i);
            length += centre_distance(path.cells[i], path.cells[j]);
            prop_assert!(allowed(i, j), "segment {} -> {} not allowed", path.cells[i], path.cells[j]);
            let reach = last.min(i.saturating_add(lookahead.unwrap_or(usize::MAX)));
            if let Some(k) = (j + 1..=reach).find(|&k| allowed(i, k)) {
                return Err(fail(format!(
                    "from {} the farthest cell in sight is not {} but {} or beyond",
                    path.cells[i], path.cells[j], path.cells[k]
                )));
            }
        }
        prop_assert!(length <= path.steps() as f64 + 1e-9, "smoothed {} > {} steps", length, path.steps());
    }

    /// `line_of_sight` and `line_of_sight_within` on hexagonal grids agree with the exact
    /// geometric oracle, both ways, whatever the corner rule.
    #[test]
    fn line_of_sight_matches_the_geometry(
        grid in hex_grid_with(14, 0.25),
        movement in hex_movement(),
        pairs in prop::collection::vec((any::<Index>(), any::<Index>(), 0u8..=10), 1..=40),
        strays in prop::collection::vec((0u32..16, 0u32..16, 0u32..16, 0u32..16), 0..=4),
    ) {
        let every = all_cells(&grid);
        let inside = pairs.iter().map(|(a, b, max_cost)| (*a.get(&every), *b.get(&every), *max_cost));
        // Pairs anywhere, off the grid too.
        let anywhere = strays.iter().map(|&(ax, ay, bx, by)| (Cell::new(ax, ay), Cell::new(bx, by), 9));
        for (a, b, max_cost) in inside.chain(anywhere) {
            let sight = hex_sight(&grid, a, b, u8::MAX);
            prop_assert_eq!(line_of_sight(&grid, a, b, movement), sight, "{} -> {}", a, b);
            prop_assert_eq!(line_of_sight(&grid, b, a, movement), sight, "{} -> {}", b, a);
            let within = hex_sight(&grid, a, b, max_cost);
            prop_assert_eq!(
                line_of_sight_within(&grid, a, b, movement, max_cost), within,
                "{} -> {} within {}", a, b, max_cost
            );
            prop_assert_eq!(
                line_of_sight_within(&grid, b, a, movement, max_cost), within,
                "{} -> {} within {}", b, a, max_cost
            );
        }
    }

    /// The hex heuristics, step costs and neighbour rules, from their definitions: the octile
    /// heuristic is the exact open-ground cost (checked by the reference Dijkstra on an open
    /// grid), the others bound it, all are consistent along every step.
    #[test]
    fn hex_heuristics_steps_and_neighbours(
        side in (1u32..=16, 1u32..=16),
        a in (0u32..16, 0u32..16),
        b in (0u32..16, 0u32..16),
        cost in cost_model(),
    ) {
        let (a, b) = (
            Cell::new(a.0 % side.0, a.1 % side.1),
            Cell::new(b.0 % side.0, b.1 % side.1),
        );
        let hex = Neighborhood::Hex;
        let straight = straight_price(cost);
        let steps = hex_steps(a, b);
        prop_assert_eq!(hex_distance(a, b), steps);
        let open = HexGraph::new(&Grid::new(side.0, side.1), cost);
        prop_assert_eq!(open.cost_between(a, b), Some(straight * steps as f64));
        let octile = Heuristic::Octile.estimate(a, b, hex, cost);
        prop_assert_eq!(octile, straight * steps as f64);
        let (dq, dr) = displacement(a, b);
        let euclid = straight * ((dq * dq + dq * dr + dr * dr) as f64).sqrt();
        let euclidean = Heuristic::Euclidean.estimate(a, b, hex, cost);
        prop_assert!(close(euclidean, euclid) && euclidean <= octile, "{} vs {}", euclidean, euclid);
        let chebyshev = Heuristic::Chebyshev.estimate(a, b, hex, cost);
        prop_assert_eq!(chebyshev, straight * dq.abs().max(dr.abs()) as f64);
        prop_assert_eq!(Heuristic::Zero.estimate(a, b, hex, cost), 0.0);
        prop_assert_eq!(Heuristic::default_for(hex), Heuristic::Octile);
        prop_assert!(!Heuristic::Manhattan.is_admissible(hex, cost));
        for heuristic in ADMISSIBLE {
            prop_assert!(heuristic.is_admissible(hex, cost) && heuristic.is_consistent(hex, cost));
            let h = heuristic.estimate(a, b, hex, cost);
            prop_assert_eq!(heuristic.estimate(b, a, hex, cost), h, "{:?} not symmetric", heuristic);
            prop_assert!(h <= octile * (1.0 + 1e-12), "{:?} overestimates", heuristic);
            for (dx, dy) in HEX_STEPS {
                let Some(next) = a.offset(dx as i32, dy as i32) else { continue };
                let h_next = heuristic.estimate(next, b, hex, cost);
                prop_assert!(h <= straight + h_next + 1e-9, "{:?} inconsistent at {}", heuristic, a);
            }
        }
        for dx in -2..=2 {
            for dy in -2..=2 {
                let Some(other) = a.offset(dx, dy) else { continue };
                let neighbours = HEX_STEPS.contains(&(i64::from(dx), i64::from(dy)));
                prop_assert_eq!(hex.are_neighbours(a, other), neighbours, "({}, {})", dx, dy);
                prop_assert!(!hex.is_diagonal(dx, dy));
                if neighbours {
                    prop_assert_eq!(cost.step(hex, dx, dy), straight);
                    for corners in [CornerRule::Both, CornerRule::One, CornerRule::Any] {
                        let movement = Movement { neighborhood: hex, corners };
                        prop_assert!(movement.allows_step(dx, dy, false, false));
                    }
                } else if (dx, dy) != (0, 0) && dx.abs() <= 1 && dy.abs() <= 1 {
                    prop_assert!(!Movement::HEX.allows_step(dx, dy, true, true));
                }
            }
        }
    }

    /// `HexMap` in every layout: tiles and cells convert both ways, cells sit at the axial
    /// coordinates of the offset rules, centres are where the layout draws them and map back to
    /// their hex (as do points inside it), and tiles that are neighbours by the offset parity
    /// rules are exactly the hex neighbours among cells.
    #[test]
    fn hex_maps_convert_in_every_layout(
        layout in prop::sample::select(HexLayout::ALL.to_vec()),
        columns in 1u32..=12,
        rows in 1u32..=12,
        seed in 0u32..10,
        points in prop::collection::vec((-1.0..14.0f64, -1.0..14.0f64), 10),
    ) {
        let map = HexMap::new(layout, columns, rows).map_err(fail)?;
        prop_assert_eq!(map.layout(), layout);
        prop_assert_eq!(map.tiles(), (columns, rows));
        let tile_cost = |(column, row): (u32, u32)| ((column * 7 + row * 13 + seed) % 10) as u8;
        let grid = map.grid_from_tiles(tile_cost).map_err(fail)?;
        prop_assert_eq!((grid.width(), grid.height()), map.grid_size());
        let tiles: Vec<(u32, u32)> = (0..rows).flat_map(|row| (0..columns).map(move |column| (column, row))).collect();
        let origin = map.cell_of((0, 0)).ok_or_else(|| fail("tile (0, 0)"))?;
        let mut cells = Vec::new();
        for &tile in &tiles {
            let cell = map.cell_of(tile).ok_or_else(|| fail(format!("no cell for {tile:?}")))?;
            prop_assert!(grid.contains(cell));
            prop_assert_eq!(map.tile_of(cell), Some(tile));
            prop_assert_eq!(displacement(origin, cell), axial_of(layout, tile), "{:?}", tile);
            prop_assert_eq!(grid.value(cell), tile_cost(tile));
            let (x, y) = map.center(cell);
            let (ex, ey) = centre_of(layout, tile);
            prop_assert!((x - ex).abs() < 1e-12 && (y - ey).abs() < 1e-12, "centre of {:?}: ({}, {}) not ({}, {})", tile, x, y, ex, ey);
            prop_assert_eq!(map.cell_at((x, y)), Some(cell));
            let around = neighbour_offsets(layout);
            for (index, &(nx, ny)) in around.iter().enumerate() {
                let (vx, vy) = around[(index + 1) % 6];
                for point in [
                    (x + 0.45 * nx, y + 0.45 * ny),
                    (x + 0.3 * (nx + vx), y + 0.3 * (ny + vy)),
                ] {
                    prop_assert_eq!(map.cell_at(point), Some(cell), "{:?} near {:?}", point, tile);
                }
            }
            cells.push(cell);
        }
        prop_assert_eq!(map.cell_of((columns, 0)), None);
        prop_assert_eq!(map.cell_of((0, rows)), None);
        let held = grid.cells().filter(|&(cell, _)| map.tile_of(cell).is_some()).count();
        prop_assert_eq!(held, tiles.len());
        for (cell, value) in grid.cells() {
            if map.tile_of(cell).is_none() {
                prop_assert_eq!(value, 0, "{} holds no tile", cell);
            }
        }
        for (i, &first) in tiles.iter().enumerate() {
            for (j, &second) in tiles.iter().enumerate() {
                let expected = offset_neighbours(layout, first, second);
                prop_assert_eq!(
                    Neighborhood::Hex.are_neighbours(cells[i], cells[j]), expected,
                    "{} {:?} {:?}", layout, first, second
                );
                prop_assert_eq!(hex_neighbours(cells[i], cells[j]), expected);
            }
        }
        // Any point: the hex `cell_at` names contains it; when it names none, no hex of the
        // grid has it inside.
        for point in points {
            let axial = axial_point(layout, point);
            let inside = |cell: Cell, margin: f64| {
                let (dq, dr) = displacement(origin, cell);
                within_hex(axial, (dq as f64, dr as f64), margin)
            };
            match map.cell_at(point) {
                Some(cell) => {
                    prop_assert!(grid.contains(cell));
                    prop_assert!(inside(cell, 1e-9), "{:?} is not in the hex of {}", point, cell);
                }
                None => {
                    for (cell, _) in grid.cells() {
                        prop_assert!(!inside(cell, -1e-9), "{:?} is inside {} yet maps to none", point, cell);
                    }
                }
            }
        }
    }
}

/// `grid` with links of cost 1 between the walkable cells `links` pick: `(from, to, one way,
/// open)`; a link from a cell to itself is left out.
fn with_links(
    mut grid: Grid,
    open: &[Cell],
    links: &[(Index, Index, bool, bool)],
) -> Result<Grid, TestCaseError> {
    for (from, to, one_way, link_open) in links {
        let (from, to) = (*from.get(open), *to.get(open));
        if from == to {
            continue;
        }
        let mut link = Link::new(from, to, 1.0).with_open(*link_open);
        if *one_way {
            link = link.one_way();
        }
        grid.add_link(link).map_err(fail)?;
    }
    Ok(grid)
}

/// Positions in `path` of the cells of `kept`, in order, or `None` when `kept` is not a
/// subsequence of `path`.
fn positions_in(path: &[Cell], kept: &[Cell]) -> Option<Vec<usize>> {
    let mut positions = Vec::with_capacity(kept.len());
    let mut from = 0;
    for &cell in kept {
        let at = from + path[from..].iter().position(|&other| other == cell)?;
        positions.push(at);
        from = at + 1;
    }
    Some(positions)
}

/// Checks `components` against the reference labels of `grid`: the same partition of the
/// walkable cells, the same count and sizes, blocked cells in none.
fn check_components(grid: &Grid, components: &Components, what: &str) -> Result<(), TestCaseError> {
    let graph = HexGraph::new(grid, CostModel::Octile);
    let (labels, count) = graph.components();
    prop_assert_eq!(
        components.component_count(),
        count,
        "{}: component count",
        what
    );
    let mut ids = vec![None; count + 1];
    for (index, cell) in graph.cells().enumerate() {
        let id = components.component(cell);
        if labels[index] == 0 {
            prop_assert_eq!(id, None, "{}: blocked {} has a component", what, cell);
            continue;
        }
        let id = id.ok_or_else(|| fail(format!("{what}: walkable {cell} has no component")))?;
        match ids[labels[index]] {
            None => {
                prop_assert!(
                    !ids.contains(&Some(id)),
                    "{}: {} shares a component with a cell it cannot reach",
                    what,
                    cell
                );
                ids[labels[index]] = Some(id);
                let size = labels
                    .iter()
                    .filter(|&&label| label == labels[index])
                    .count();
                prop_assert_eq!(
                    components.component_size(id),
                    size,
                    "{}: size at {}",
                    what,
                    cell
                );
            }
            Some(known) => prop_assert_eq!(
                id,
                known,
                "{}: {} is split from cells it reaches",
                what,
                cell
            ),
        }
    }
    Ok(())
}

/// The tower check written from its definition: `(cut_off, already_unreachable, covered)`.
type TowerAnswer = (Vec<Cell>, Vec<Cell>, Vec<Cell>);

/// What blocking `towers` does to `points` and `goal`, from the reference components of the grid
/// as it is and with the walkable towers blocked.
fn tower_reference(
    grid: &Grid,
    towers: &[Cell],
    points: &[Cell],
    goal: Cell,
) -> Result<TowerAnswer, TestCaseError> {
    let graph = HexGraph::new(grid, CostModel::Octile);
    let (labels, _) = graph.components();
    let label = |labels: &[usize], cell: Cell| graph.index(cell).map_or(0, |slot| labels[slot]);
    let reaches_now =
        |cell: Cell| label(&labels, goal) != 0 && label(&labels, cell) == label(&labels, goal);
    let candidate = |cell: Cell| towers.contains(&cell) && grid.is_walkable(cell);
    let mut blocked = grid.clone();
    for &tower in towers {
        if grid.is_walkable(tower) {
            blocked.set_blocked(tower, true).map_err(fail)?;
        }
    }
    let (after, _) = HexGraph::new(&blocked, CostModel::Octile).components();
    let mut covered: Vec<Cell> = points.iter().copied().filter(|&p| candidate(p)).collect();
    let unreachable = points
        .iter()
        .copied()
        .filter(|&p| !reaches_now(p))
        .collect();
    let cut_off = points
        .iter()
        .copied()
        .filter(|&p| reaches_now(p) && !candidate(p))
        .filter(|&p| candidate(goal) || label(&after, p) != label(&after, goal))
        .collect();
    if candidate(goal) {
        covered.push(goal);
    }
    Ok((cut_off, unreachable, covered))
}

/// Tile `(column, row)`'s position along its line (its row in row layouts, its column in
/// column layouts) in half hexes, from the parity rules: axial layouts shift each line half a
/// hex further than the last, "odd" layouts shift odd lines half a hex forwards, "even" ones
/// even lines. Returns `(line, position)`.
fn offset_position(layout: HexLayout, (column, row): (u32, u32)) -> (i64, i64) {
    let (line, along) = if layout.is_row() {
        (i64::from(row), i64::from(column))
    } else {
        (i64::from(column), i64::from(row))
    };
    let shift = match layout {
        HexLayout::Row | HexLayout::Column => line,
        HexLayout::RowOdd | HexLayout::ColumnOdd => line & 1,
        HexLayout::RowEven | HexLayout::ColumnEven => 1 - (line & 1),
    };
    (line, 2 * along + shift)
}

/// Whether two tiles are neighbours by the offset rules: beside each other in one line, or in
/// adjacent lines half a hex apart.
fn offset_neighbours(layout: HexLayout, a: (u32, u32), b: (u32, u32)) -> bool {
    let (line_a, position_a) = offset_position(layout, a);
    let (line_b, position_b) = offset_position(layout, b);
    match (line_a - line_b).abs() {
        0 => (position_a - position_b).abs() == 2,
        1 => (position_a - position_b).abs() == 1,
        _ => false,
    }
}

/// The axial coordinates of a tile relative to tile `(0, 0)`: the line is one coordinate, and
/// the position along it, less half a hex per line, the other.
fn axial_of(layout: HexLayout, tile: (u32, u32)) -> (i64, i64) {
    let (line, position) = offset_position(layout, tile);
    let (_, origin) = offset_position(layout, (0, 0));
    let along = (position - origin - line) / 2;
    if layout.is_row() {
        (along, line)
    } else {
        (line, along)
    }
}

/// Where the layout draws tile `(column, row)`, tile `(0, 0)` at the origin: lines 0.75 apart,
/// hexes one apart along a line (shifted by the offset rules).
fn centre_of(layout: HexLayout, tile: (u32, u32)) -> (f64, f64) {
    let (line, position) = offset_position(layout, tile);
    let (_, origin) = offset_position(layout, (0, 0));
    let along = (position - origin) as f64 / 2.0;
    let across = 0.75 * line as f64;
    if layout.is_row() {
        (along, across)
    } else {
        (across, along)
    }
}

/// The six offsets from a hex's centre to its neighbours' centres, in turning order.
fn neighbour_offsets(layout: HexLayout) -> [(f64, f64); 6] {
    let row = [
        (1.0, 0.0),
        (0.5, 0.75),
        (-0.5, 0.75),
        (-1.0, 0.0),
        (-0.5, -0.75),
        (0.5, -0.75),
    ];
    if layout.is_row() {
        row
    } else {
        row.map(|(along, across)| (across, along))
    }
}

/// The fractional axial coordinates (relative to tile `(0, 0)`) of a point drawn as
/// [`centre_of`] draws centres.
fn axial_point(layout: HexLayout, (x, y): (f64, f64)) -> (f64, f64) {
    let (along, across) = if layout.is_row() { (x, y) } else { (y, x) };
    let line = across / 0.75;
    let other = along - line / 2.0;
    if layout.is_row() {
        (other, line)
    } else {
        (line, other)
    }
}

/// Whether the axial point `p` lies in the hex centred on `c`, widened by `margin`: in cube
/// coordinates each of `q - r`, `r - s` and `s - q` differs by at most 1.
fn within_hex(p: (f64, f64), c: (f64, f64), margin: f64) -> bool {
    let forms = |(q, r): (f64, f64)| [q - r, q + 2.0 * r, -2.0 * q - r];
    let (fp, fc) = (forms(p), forms(c));
    (0..3).all(|k| (fp[k] - fc[k]).abs() <= 1.0 + margin)
}

/// The geometric oracle itself, on cases worked out by hand from the hexagon's shape.
#[test]
fn the_oracle_knows_which_hexes_a_segment_meets() {
    // A step between neighbours crosses the middle of their shared edge: only those two hexes.
    for (dq, dr) in HEX_STEPS {
        for q in -2..=2 {
            for r in -2..=2 {
                let (touches, enters) = segment_meets_hex((0, 0), (dq, dr), (q, r));
                let ends = (q, r) == (0, 0) || (q, r) == (dq, dr);
                assert_eq!(
                    (touches, enters),
                    (ends, ends),
                    "step {dq},{dr} hex {q},{r}"
                );
            }
        }
    }
    // (0, 0) to (1, 1) runs along the edge between (1, 0) and (0, 1): touched, not entered.
    assert_eq!(segment_meets_hex((0, 0), (1, 1), (1, 0)), (true, false));
    assert_eq!(segment_meets_hex((0, 0), (1, 1), (0, 1)), (true, false));
    assert_eq!(segment_meets_hex((0, 0), (1, 1), (1, 1)), (true, true));
    assert_eq!(segment_meets_hex((0, 0), (1, 1), (2, -1)), (false, false));
    // Two steps along q pass through the middle hex.
    assert_eq!(segment_meets_hex((0, 0), (2, 0), (1, 0)), (true, true));
    assert_eq!(segment_meets_hex((0, 0), (2, 0), (1, -1)), (false, false));
    // (0, 0) to (2, 1) crosses the edge between (1, 0) and (1, 1), entering both.
    assert_eq!(segment_meets_hex((0, 0), (2, 1), (1, 0)), (true, true));
    assert_eq!(segment_meets_hex((0, 0), (2, 1), (1, 1)), (true, true));
    assert_eq!(segment_meets_hex((0, 0), (2, 1), (0, 1)), (false, false));
    // On an open grid everything is in sight; a wall beside an edge-running segment is not.
    let open = Grid::new(4, 4);
    assert!(hex_sight(&open, Cell::new(0, 0), Cell::new(3, 3), 1));
    let mut walled = Grid::new(4, 4);
    walled
        .set_blocked(Cell::new(1, 0), true)
        .expect("on the grid");
    assert!(!hex_sight(&walled, Cell::new(0, 0), Cell::new(1, 1), 1));
    assert!(hex_sight(&walled, Cell::new(0, 1), Cell::new(1, 1), 1));
}

/// Jump point search and the sector hierarchy refuse hexagonal grids, as options, as engines
/// and directly, whatever the corner rule and even on uniform terrain.
#[test]
fn jump_points_and_the_hierarchy_refuse_hex_grids() {
    let grid = Grid::new(24, 24);
    for corners in [CornerRule::Both, CornerRule::One, CornerRule::Any] {
        let movement = Movement {
            neighborhood: Neighborhood::Hex,
            corners,
        };
        let options = SearchOptions::default().with_movement(movement);
        assert!(matches!(
            JpsOptions::try_from(&options),
            Err(SearchError::Unsupported(_))
        ));
        for algorithm in [Algorithm::JumpPoint, Algorithm::Hierarchical] {
            assert!(
                matches!(
                    Engine::new(&grid, algorithm, &options),
                    Err(SearchError::Unsupported(_))
                ),
                "{algorithm} {corners:?}"
            );
        }
        assert!(matches!(
            Engine::hierarchical(&grid, &options, HierarchyOptions::default()),
            Err(SearchError::Unsupported(_))
        ));
        let hierarchy = HierarchyOptions::default().with_movement(movement);
        assert_eq!(
            Hierarchy::new(&grid, hierarchy).err(),
            Some(HierarchyError::HexGrid)
        );
        assert_eq!(
            Hierarchy::build(&grid, hierarchy).err(),
            Some(HierarchyError::HexGrid)
        );
        for algorithm in [Algorithm::AStar, Algorithm::Dijkstra, Algorithm::FlowField] {
            let mut engine = Engine::new(&grid, algorithm, &options).expect("supported");
            let path = engine
                .find_path(Cell::new(0, 23), Cell::new(23, 0))
                .expect("valid query");
            assert_eq!(path.cost(), Some(23.0), "{algorithm}");
        }
    }
}

/// Steps that are no hex step, such as `(1, 1)`, are refused by smoothing and repair on a
/// hexagonal grid, even on open ground; the `(1, -1)` diagonal is accepted between two walled
/// corners, which no corner rule guards on a hexagonal grid.
#[test]
fn paths_with_non_hex_steps_are_refused() {
    let open = Grid::new(3, 3);
    let square = [Cell::new(1, 1), Cell::new(2, 2)];
    assert_eq!(
        smooth_path_cells(&open, &square, Movement::HEX, SmoothingOptions::default()),
        Err(SmoothingError::NotAdjacent { index: 0 })
    );
    let repair = RepairOptions::new(SearchOptions::default().with_movement(Movement::HEX));
    assert_eq!(
        Searcher::new().repair_path(&open, &square, &repair).err(),
        Some(RepairError::NotAdjacent { index: 0 })
    );
    // The square-grid corners of the step (0, 1) -> (1, 0) are (0, 0) and (1, 1): both walls.
    let walled = Grid::from_ascii(
        "#.
         .#",
    )
    .expect("grid");
    let slant = [Cell::new(0, 1), Cell::new(1, 0)];
    assert_eq!(
        smooth_path_cells(&walled, &slant, Movement::HEX, SmoothingOptions::default()),
        Ok(slant.to_vec())
    );
    assert!(line_of_sight(&walled, slant[0], slant[1], Movement::HEX));
    let repaired = Searcher::new()
        .repair_path(&walled, &slant, &repair)
        .expect("a legal path");
    assert_eq!(repaired.repair, Repair::Untouched);
    assert_eq!(repaired.path.map(|path| path.cost), Some(1.0));
}

/// Two cells that touch only through a hex diagonal `(1, -1)`, with both square-grid corner
/// cells walled, are one component on a hexagonal grid: a search walks between them.
#[test]
fn a_hex_diagonal_joins_components() {
    let grid = Grid::from_ascii(
        "#.
         .#",
    )
    .expect("grid");
    let (a, b) = (Cell::new(1, 0), Cell::new(0, 1));
    let path = Searcher::new()
        .find_path(
            &grid,
            a,
            b,
            &SearchOptions::default().with_movement(Movement::HEX),
        )
        .expect("valid query");
    assert_eq!(path.cost(), Some(1.0));
    let components = Components::new(&grid, Movement::HEX);
    assert!(
        components.same_component(a, b),
        "a search walks from {a} to {b}, but the labels split them"
    );
    assert_eq!(components.component_count(), 1);
    let check = components
        .check_blocking(&[], &[a], b)
        .expect("cells on the grid");
    assert!(check.already_unreachable.is_empty(), "{check:?}");
}

/// The derived value of a hex agent of `size` centred on `anchor`, from the rule written out:
/// every hex within `size - 1` steps on the map and passable under `profile`, and then the
/// dearest of their profile costs; 0 otherwise.
fn hex_footprint_value(terrain: &Grid, profile: &TerrainProfile, size: u8, anchor: Cell) -> u8 {
    let reach = u64::from(size) - 1;
    let mut dearest = 0;
    for y in 0..terrain.height() {
        for x in 0..terrain.width() {
            let cell = Cell::new(x, y);
            if hex_steps(anchor, cell) > reach {
                continue;
            }
            match profile.cost(terrain.value(cell)) {
                Some(cost) => dearest = dearest.max(cost),
                None => return 0,
            }
        }
    }
    // Hexes of the disc past the map's edge: the disc reaches `reach` columns and rows either
    // way.
    let (x, y, r) = (u64::from(anchor.x), u64::from(anchor.y), reach);
    let inside = x >= r
        && y >= r
        && x + r < u64::from(terrain.width())
        && y + r < u64::from(terrain.height());
    if inside { dearest } else { 0 }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// A hex agent's derived grid is the rule applied to every centre, before and after edits;
    /// its searches are the reference's on that rule.
    #[test]
    fn hex_agents_stand_on_discs_of_hexes(
        grid in hex_grid_with(14, 0.25),
        size in 1u8..=3,
        forbid_value in 1u8..=9,
        edits in prop::collection::vec((any::<Index>(), 0u8..=9), 0..6),
        pick in any::<(Index, Index)>(),
    ) {
        let profile = TerrainProfile::identity().with_impassable(forbid_value);
        let mut terrain = grid;
        let built = AgentGrid::with_footprint(&terrain, &profile, size, Footprint::Hex);
        let span = 2 * u32::from(size) - 1;
        let Ok(mut agent) = built else {
            // Only a map narrower or lower than the agent's disc is refused.
            prop_assert!(span > terrain.width() || span > terrain.height());
            return Ok(());
        };
        prop_assert!(span <= terrain.width() && span <= terrain.height());
        let check = |agent: &AgentGrid, terrain: &Grid| -> Result<(), TestCaseError> {
            for (cell, value) in agent.grid().cells() {
                let expected = hex_footprint_value(terrain, &profile, size, cell);
                prop_assert_eq!(value, expected, "size {} at {}", size, cell);
                prop_assert_eq!(agent.fits(cell), expected != 0);
            }
            Ok(())
        };
        check(&agent, &terrain)?;
        let cells = all_cells(&terrain);
        for (index, value) in edits {
            let cell = cells[index.index(cells.len())];
            terrain.set_cost(cell, value).map_err(fail)?;
            let changed = agent.update(&terrain, &[cell]).map_err(fail)?;
            check(&agent, &terrain)?;
            prop_assert!(changed.iter().all(|&anchor| hex_steps(anchor, cell) < u64::from(size)));
        }
        prop_assert_eq!(
            &agent,
            &AgentGrid::with_footprint(&terrain, &profile, size, Footprint::Hex).map_err(fail)?
        );
        let open = walkable_cells(agent.grid());
        if open.is_empty() {
            return Ok(());
        }
        let (start, goal) = (open[pick.0.index(open.len())], open[pick.1.index(open.len())]);
        let options = SearchOptions::default().with_movement(Movement::HEX);
        let found = Searcher::new().find_path(agent.grid(), start, goal, &options).map_err(fail)?;
        let reference = HexGraph::new(agent.grid(), CostModel::Octile).cost_between(start, goal);
        prop_assert_eq!(found.cost().is_some(), reference.is_some());
        if let (Some(found), Some(reference)) = (found.cost(), reference) {
            prop_assert!(close(found, reference), "{} against {}", found, reference);
        }
        for anchor in open.iter().take(3) {
            let covered: Vec<Cell> = agent.footprint(*anchor).collect();
            prop_assert!(covered.iter().all(|&cell| hex_steps(*anchor, cell) < u64::from(size)));
            prop_assert_eq!(covered.len() as u64, 1 + 3 * u64::from(size) * (u64::from(size) - 1));
        }
    }
}
