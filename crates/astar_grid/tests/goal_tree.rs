//! The goal tree (`f32` costs) against an independent Dijkstra: every cell's reachability, path
//! and cost after builds, sliced builds and incremental updates, on random maps of every
//! movement rule and cost model, on agent kinds' derived grids, and on the Moving AI maps.

pub mod common;

use astar_grid::{
    AgentGrid, Cell, CostModel, FlowField, FlowFieldError, GoalTree, Grid, Movement, Path,
    TreeGrowth, parse_map, parse_scenario,
};
use common::path_check::check_path;
use common::random_grid::{
    COST_MODELS, MOVEMENTS, TERRAIN_VALUES, any_cost_model, terrain_grid, terrain_profile,
};
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;

/// The relative precision per step that `GoalTree` documents: a path's cost (and a stored cost)
/// is within `(steps + 1) * 2^-22` of the optimum, relative.
const PRECISION_PER_STEP: f64 = 1.0 / (1u64 << 22) as f64;

/// The largest deviation from `optimum` the documented precision allows for a route of
/// `steps` steps (plus a little for sums taken in another order).
fn tolerance(optimum: f64, steps: usize) -> f64 {
    optimum * (steps as f64 + 1.0) * PRECISION_PER_STEP + 1e-9 * optimum.max(1.0)
}

/// The optimal cost from every cell (row-major) to the nearest walkable goal, by the test's
/// reference Dijkstra (one per goal).
fn oracle_costs(graph: &ReferenceGraph, goals: &[Cell]) -> Vec<Option<f64>> {
    let mut best: Option<Vec<Option<f64>>> = None;
    for &goal in goals {
        let costs = graph.costs_to(goal);
        best = Some(match best {
            None => costs,
            Some(known) => known
                .into_iter()
                .zip(costs)
                .map(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                })
                .collect(),
        });
    }
    best.unwrap_or_default()
}

/// The goals that are walkable on `grid`, without repeats: those a tree can lead to.
fn live_goals(grid: &Grid, goals: &[Cell]) -> Vec<Cell> {
    let mut live: Vec<Cell> = goals
        .iter()
        .copied()
        .filter(|&goal| grid.is_walkable(goal))
        .collect();
    live.sort_unstable();
    live.dedup();
    live
}

/// Every cell of `tree` against the reference on `grid`: reachability, a legal path to a goal
/// priced exactly and within the documented precision of the optimum, the stored cost, the
/// next step and the goal flag. Returns the largest relative excess of a path's cost.
fn check_tree(
    tree: &GoalTree,
    grid: &Grid,
    goals: &[Cell],
    movement: Movement,
    cost: CostModel,
) -> Result<f64, TestCaseError> {
    let graph = ReferenceGraph::new(grid, movement, cost);
    let live = live_goals(grid, goals);
    let optimum = oracle_costs(&graph, &live);
    let mut worst: f64 = 0.0;
    for (cell, _) in grid.cells() {
        let expected = optimum.get(graph.index(cell)).copied().flatten();
        let path = tree
            .path_from(grid, cell)
            .map_err(|error| TestCaseError::fail(format!("{cell}: {error}")))?;
        prop_assert_eq!(tree.cost_at(cell).is_some(), expected.is_some(), "{}", cell);
        prop_assert_eq!(tree.is_goal(cell), live.contains(&cell), "{}", cell);
        let (Some(expected), Some(path)) = (expected, path.clone()) else {
            prop_assert!(path.is_none(), "{}: a path where none exists", cell);
            prop_assert_eq!(tree.next_step(cell), None, "{}", cell);
            continue;
        };
        worst = worst.max(check_route(
            tree, grid, &path, &live, expected, movement, cost,
        )?);
    }
    Ok(worst)
}

/// One reachable cell's route: legal, ending at a goal, its cost the exact sum of its steps and
/// within the precision of `expected`, the stored cost too. Returns the relative excess.
fn check_route(
    tree: &GoalTree,
    grid: &Grid,
    path: &Path,
    live: &[Cell],
    expected: f64,
    movement: Movement,
    cost: CostModel,
) -> Result<f64, TestCaseError> {
    let cell = path.cells[0];
    let end = path.end().unwrap_or(cell);
    prop_assert!(
        live.contains(&end),
        "{}: the path ends at {}, no goal",
        cell,
        end
    );
    check_path(grid, path, cell, end, movement, cost)
        .map_err(|problem| TestCaseError::fail(format!("{cell}: {problem}")))?;
    let steps = path.cells.len() - 1;
    let allowed = tolerance(expected, steps);
    prop_assert!(
        path.cost >= expected - 1e-9 * expected.max(1.0) && path.cost - expected <= allowed,
        "{}: path cost {} against the optimum {} ({} steps)",
        cell,
        path.cost,
        expected,
        steps
    );
    let stored = tree.cost_at(cell).unwrap_or(f64::NAN);
    prop_assert!(
        (stored - expected).abs() <= allowed,
        "{}: stored cost {} against the optimum {}",
        cell,
        stored,
        expected
    );
    prop_assert_eq!(tree.next_step(cell), path.cells.get(1).copied(), "{}", cell);
    if matches!(cost, CostModel::Integer { .. }) && expected < f64::from(1u32 << 24) {
        // Integer costs below 2^24 are exact in an f32: the tree is exact.
        prop_assert!(
            stored == expected && path.cost == expected,
            "{}: integer costs {} and {} against the optimum {}",
            cell,
            stored,
            path.cost,
            expected
        );
    }
    Ok(if expected > 0.0 {
        (path.cost - expected) / expected
    } else {
        0.0
    })
}

/// `tree` against a fresh build on `grid`: the same reachability and costs within precision.
fn check_against_fresh(
    tree: &GoalTree,
    grid: &Grid,
    goals: &[Cell],
    movement: Movement,
    cost: CostModel,
) -> Result<(), TestCaseError> {
    let live = live_goals(grid, goals);
    if live.is_empty() {
        for (cell, _) in grid.cells() {
            prop_assert_eq!(tree.cost_at(cell), None, "{}: no goal is walkable", cell);
        }
        return Ok(());
    }
    let fresh = GoalTree::build(grid, &live, movement, cost)
        .map_err(|error| TestCaseError::fail(error.to_string()))?;
    for (cell, _) in grid.cells() {
        match (tree.cost_at(cell), fresh.cost_at(cell)) {
            (Some(updated), Some(built)) => {
                let steps = fresh
                    .path_from(grid, cell)
                    .ok()
                    .flatten()
                    .map_or(0, |path| path.cells.len() - 1);
                prop_assert!(
                    (updated - built).abs() <= tolerance(built, steps),
                    "{}: updated {} against a fresh build's {}",
                    cell,
                    updated,
                    built
                );
            }
            (updated, built) => prop_assert_eq!(updated, built, "{}", cell),
        }
    }
    Ok(())
}

/// A map of 1x1 to `max_side` x `max_side` cells: walls at a random density, and terrain all
/// 1, anything from 1 to 255, or mostly low.
fn any_map(max_side: u32) -> impl Strategy<Value = Grid> {
    (1..=max_side, 1..=max_side, 0.0..0.5f64, 0..3u8).prop_flat_map(
        |(width, height, density, terrain)| {
            let cells = (width * height) as usize;
            prop::collection::vec((0.0..1.0f64, 1u8..=255, 1u8..=4), cells).prop_map(move |rolls| {
                Grid::from_fn(width, height, |cell| {
                    let (roll, any, low) = rolls[(cell.y * width + cell.x) as usize];
                    match terrain {
                        _ if roll < density => 0,
                        0 => 1,
                        1 => any,
                        _ => low,
                    }
                })
            })
        },
    )
}

/// A movement rule: four-connected, or eight-connected with any corner rule.
fn any_movement() -> impl Strategy<Value = Movement> {
    prop::sample::select(MOVEMENTS.to_vec())
}

/// A cost model: the listed ones (octile, 10/14, 10/17, 10/25 and 10/5, a diagonal cheaper than
/// a straight step) or any valid integer model.
fn cost_model() -> impl Strategy<Value = CostModel> {
    prop_oneof![
        1 => prop::sample::select(COST_MODELS.to_vec()),
        1 => any_cost_model(),
    ]
}

/// Where an edit lands: next to (or on) the `goal`-th goal, or anywhere.
#[derive(Clone, Copy, Debug)]
enum Spot {
    NearGoal { goal: usize, dx: i32, dy: i32 },
    Anywhere { x: u32, y: u32 },
}

/// One edit: a cell set to `value` (0 blocks it, else its terrain cost).
#[derive(Clone, Copy, Debug)]
struct Edit {
    spot: Spot,
    value: u8,
}

impl Edit {
    /// The cell the edit lands on, inside a `width` x `height` map.
    fn cell(self, goals: &[Cell], width: u32, height: u32) -> Cell {
        match self.spot {
            Spot::NearGoal { goal, dx, dy } => {
                let goal = goals[goal % goals.len()];
                let x = goal.x.saturating_add_signed(dx).min(width - 1);
                let y = goal.y.saturating_add_signed(dy).min(height - 1);
                Cell::new(x, y)
            }
            Spot::Anywhere { x, y } => Cell::new(x % width, y % height),
        }
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    let spot = prop_oneof![
        1 => (0..3usize, -1..=1i32, -1..=1i32)
            .prop_map(|(goal, dx, dy)| Spot::NearGoal { goal, dx, dy }),
        2 => (any::<u32>(), any::<u32>()).prop_map(|(x, y)| Spot::Anywhere { x, y }),
    ];
    let value = prop_oneof![4 => Just(0u8), 3 => Just(1u8), 3 => 2u8..=255];
    (spot, value).prop_map(|(spot, value)| Edit { spot, value })
}

/// Batches of edits, each followed by an update.
fn edit_batches() -> impl Strategy<Value = Vec<Vec<Edit>>> {
    prop::collection::vec(prop::collection::vec(edit(), 1..=4), 1..=5)
}

/// Goal cells picked from arbitrary numbers and opened (at a random terrain cost) on `grid`.
fn place_goals(grid: &mut Grid, picks: &[(u32, u32, u8)]) -> Vec<Cell> {
    picks
        .iter()
        .map(|&(x, y, terrain)| {
            let goal = Cell::new(x % grid.width(), y % grid.height());
            if !grid.is_walkable(goal) {
                grid.set_cost(goal, terrain).expect("inside the grid");
            }
            goal
        })
        .collect()
}

fn goal_picks() -> impl Strategy<Value = Vec<(u32, u32, u8)>> {
    prop::collection::vec((any::<u32>(), any::<u32>(), 1u8..=9), 1..=3)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// A fresh tree: every cell against the reference Dijkstra.
    #[test]
    fn a_built_tree_matches_the_reference(
        mut grid in any_map(24),
        picks in goal_picks(),
        movement in any_movement(),
        cost in cost_model(),
    ) {
        let goals = place_goals(&mut grid, &picks);
        let tree = GoalTree::build(&grid, &goals, movement, cost)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        check_tree(&tree, &grid, &goals, movement, cost)?;
    }

    /// Edits (walls, openings, terrain, on and next to the goals and anywhere), each batch
    /// followed by an update: every cell against the reference and against a fresh build.
    #[test]
    fn updates_match_the_reference_and_a_fresh_build(
        mut grid in any_map(16),
        picks in goal_picks(),
        batches in edit_batches(),
        movement in any_movement(),
        cost in cost_model(),
    ) {
        let goals = place_goals(&mut grid, &picks);
        let mut tree = GoalTree::build(&grid, &goals, movement, cost)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        let (width, height) = (grid.width(), grid.height());
        for batch in batches {
            let changed: Vec<Cell> = batch
                .iter()
                .map(|&edit| {
                    let cell = edit.cell(&goals, width, height);
                    grid.set_cost(cell, edit.value).expect("inside the grid");
                    cell
                })
                .collect();
            tree.update(&grid, &changed)
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
            check_tree(&tree, &grid, &goals, movement, cost)?;
            check_against_fresh(&tree, &grid, &goals, movement, cost)?;
        }
    }

    /// A tree on an agent kind's derived grid (sizes 1 to 3, a non-identity profile), kept up
    /// to date from the derived cells `AgentGrid::update` reports after terrain edits.
    #[test]
    fn trees_of_agent_kinds_follow_their_derived_grid(
        mut terrain in terrain_grid(3, 14),
        profile in terrain_profile().prop_filter("not the identity", |profile| !profile.is_identity()),
        size in 1u8..=3,
        goal_pick in any::<usize>(),
        edits in prop::collection::vec(
            prop::collection::vec((any::<u32>(), any::<u32>(), prop::sample::select(TERRAIN_VALUES.to_vec())), 1..=3),
            1..=4,
        ),
        movement in any_movement(),
        cost in cost_model(),
    ) {
        let Ok(mut agent) = AgentGrid::new(&terrain, &profile, size) else {
            return Err(TestCaseError::reject("no passable terrain"));
        };
        let walkable: Vec<Cell> = agent
            .grid()
            .cells()
            .filter(|&(_, value)| value != 0)
            .map(|(cell, _)| cell)
            .collect();
        prop_assume!(!walkable.is_empty());
        let goals = [walkable[goal_pick % walkable.len()]];
        let mut tree = GoalTree::build(agent.grid(), &goals, movement, cost)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        check_tree(&tree, agent.grid(), &goals, movement, cost)?;
        for batch in edits {
            let cells: Vec<Cell> = batch
                .iter()
                .map(|&(x, y, value)| {
                    let cell = Cell::new(x % terrain.width(), y % terrain.height());
                    terrain.set_cost(cell, value).expect("inside the grid");
                    cell
                })
                .collect();
            let changed = agent
                .update(&terrain, &cells)
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
            tree.update(agent.grid(), &changed)
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
            check_tree(&tree, agent.grid(), &goals, movement, cost)?;
            check_against_fresh(&tree, agent.grid(), &goals, movement, cost)?;
        }
    }

    /// A tree grown a few cells at a time ends as the one built in one go, to the bit.
    #[test]
    fn sliced_growth_ends_as_a_one_go_build(
        mut grid in any_map(24),
        picks in goal_picks(),
        budgets in prop::collection::vec(0usize..40, 1..8),
        movement in any_movement(),
        cost in cost_model(),
    ) {
        let goals = place_goals(&mut grid, &picks);
        let whole = GoalTree::build(&grid, &goals, movement, cost)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        let mut growth = TreeGrowth::new(&grid, &goals, movement, cost)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        let mut slices = 0;
        while !growth.advance(budgets[slices % budgets.len()]) {
            slices += 1;
            prop_assert!(slices <= grid.len() + 1, "growth never ends");
        }
        // Finished early, the growth settles the rest itself.
        let mut early = TreeGrowth::new(&grid, &goals, movement, cost)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        early.advance(budgets[0]);
        for grown in [growth.finish(), early.finish()] {
            for (cell, _) in grid.cells() {
                prop_assert_eq!(grown.cost_at(cell).map(f64::to_bits), whole.cost_at(cell).map(f64::to_bits), "{}", cell);
                prop_assert_eq!(grown.next_step(cell), whole.next_step(cell), "{}", cell);
            }
            prop_assert_eq!(grown.goals(), whole.goals());
        }
    }
}

#[test]
fn bad_requests_get_typed_errors_and_leave_the_tree_unchanged() {
    let grid = Grid::from_ascii(
        "...
         .#.
         ...",
    )
    .expect("a valid map");
    let (movement, cost) = (Movement::EIGHT, CostModel::Octile);
    let outside = Cell::new(3, 0);
    let wall = Cell::new(1, 1);
    assert_eq!(
        GoalTree::build(&grid, &[outside], movement, cost).err(),
        Some(FlowFieldError::GoalOutOfBounds(outside))
    );
    assert_eq!(
        GoalTree::build(&grid, &[wall], movement, cost).err(),
        Some(FlowFieldError::GoalBlocked(wall))
    );
    assert_eq!(
        GoalTree::build(&grid, &[], movement, cost).err(),
        Some(FlowFieldError::NoGoals)
    );
    let zero = CostModel::Integer {
        straight: 0,
        diagonal: 1,
    };
    assert_eq!(
        GoalTree::build(&grid, &[Cell::new(0, 0)], movement, zero).err(),
        Some(FlowFieldError::InvalidCostModel)
    );
    assert!(matches!(
        TreeGrowth::new(&grid, &[wall], movement, cost),
        Err(FlowFieldError::GoalBlocked(_))
    ));

    let goal = Cell::new(2, 2);
    let mut tree = GoalTree::build(&grid, &[goal], movement, cost).expect("a walkable goal");
    let before: Vec<_> = grid.cells().map(|(cell, _)| tree.cost_at(cell)).collect();
    let wider = Grid::new(4, 3);
    let mismatch = FlowFieldError::GridMismatch {
        width: 3,
        height: 3,
        found_width: 4,
        found_height: 3,
    };
    assert_eq!(tree.update(&wider, &[goal]).err(), Some(mismatch.clone()));
    assert_eq!(
        tree.update(&grid, &[goal, outside]).err(),
        Some(FlowFieldError::CellOutOfBounds(outside))
    );
    assert_eq!(
        tree.path_from(&wider, Cell::new(0, 0)).err(),
        Some(mismatch)
    );
    let after: Vec<_> = grid.cells().map(|(cell, _)| tree.cost_at(cell)).collect();
    assert_eq!(before, after);
    assert_eq!(tree.path_from(&grid, outside), Ok(None));
    assert_eq!(tree.path_from(&grid, wall), Ok(None));
    assert_eq!(
        (tree.cost_at(outside), tree.next_step(outside)),
        (None, None)
    );
    assert_eq!(tree.goal(), goal);
}

/// A goal blocked by an update stops counting, and counts again once an update opens it.
#[test]
fn a_blocked_goal_counts_again_when_opened() {
    let mut grid = Grid::new(5, 1);
    let goal = Cell::new(4, 0);
    let mut tree =
        GoalTree::build(&grid, &[goal], Movement::FOUR, CostModel::Octile).expect("walkable");
    grid.set_blocked(goal, true).expect("inside");
    tree.update(&grid, &[goal]).expect("same size");
    assert_eq!(tree.cost_at(Cell::new(0, 0)), None);
    assert!(!tree.is_goal(goal));
    grid.set_cost(goal, 3).expect("inside");
    tree.update(&grid, &[goal]).expect("same size");
    assert!(tree.is_goal(goal));
    let path = tree.path_from(&grid, Cell::new(0, 0)).expect("same size");
    assert_eq!(path.map(|path| path.cost), Some(6.0)); // three steps of 1, the goal's 3
}

/// The tree keeps a cost and a direction a cell: 4 bytes a cell fewer than the flow field
/// built on the same grid, whose scratch memory it shares in kind.
#[test]
fn a_tree_stores_five_bytes_a_cell() {
    let grid = Grid::new(100, 60);
    let padded = 102 * 62;
    let goal = Cell::new(50, 30);
    let field =
        FlowField::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile).expect("walkable");
    let tree =
        GoalTree::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile).expect("walkable");
    assert_eq!(field.memory_bytes() - tree.memory_bytes(), 4 * padded);
    assert!(tree.memory_bytes() >= 5 * padded);
}

/// Bytes per map cell of a flow field and a goal tree built to the centre of a square map of
/// 20% walls, as `memory_bytes` counts them (storage and scratch): at 256x256 and 1024x1024.
/// The tree keeps 5 bytes a padded cell, the field 9; the queue's scratch adds under 1.
#[test]
fn memory_per_cell_at_256_and_1024() {
    let mut sweep = Sweep(0x5851_F42D_4C95_7F2D);
    for side in [256u32, 1024] {
        let mut grid = Grid::from_fn(side, side, |_| u8::from(sweep.next(5) != 0));
        let goal = Cell::new(side / 2, side / 2);
        grid.set_cost(goal, 1).expect("inside");
        let field =
            FlowField::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile).expect("walkable");
        let tree =
            GoalTree::build(&grid, &[goal], Movement::EIGHT, CostModel::Octile).expect("walkable");
        let cells = f64::from(side * side);
        let padded = f64::from((side + 2) * (side + 2));
        let (field_bytes, tree_bytes) = (field.memory_bytes() as f64, tree.memory_bytes() as f64);
        eprintln!(
            "{side}x{side}: flow field {:.3} bytes per cell, goal tree {:.3}",
            field_bytes / cells,
            tree_bytes / cells
        );
        assert!(
            tree_bytes >= 5.0 * padded && tree_bytes < 6.0 * padded,
            "{tree_bytes}"
        );
        assert!(
            field_bytes >= 9.0 * padded && field_bytes < 10.0 * padded,
            "{field_bytes}"
        );
    }
}

/// A small deterministic generator for the sweeps below.
struct Sweep(u64);

impl Sweep {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

const MOVING_AI_MAPS: [(&str, &str, &str); 6] = [
    (
        "arena",
        include_str!("../../../assets/maps/dao/arena.map"),
        include_str!("../../../assets/maps/dao/arena.map.scen"),
    ),
    (
        "den312d",
        include_str!("../../../assets/maps/dao/den312d.map"),
        include_str!("../../../assets/maps/dao/den312d.map.scen"),
    ),
    (
        "maze512-8-0",
        include_str!("../../../assets/maps/mazes/maze512-8-0.map"),
        include_str!("../../../assets/maps/mazes/maze512-8-0.map.scen"),
    ),
    (
        "random512-25-0",
        include_str!("../../../assets/maps/random/random512-25-0.map"),
        include_str!("../../../assets/maps/random/random512-25-0.map.scen"),
    ),
    (
        "32room_000",
        include_str!("../../../assets/maps/rooms/32room_000.map"),
        include_str!("../../../assets/maps/rooms/32room_000.map.scen"),
    ),
    (
        "arena (terrain 1 to 9)",
        include_str!("../../../assets/maps/dao/arena.map"),
        include_str!("../../../assets/maps/dao/arena.map.scen"),
    ),
];

/// The exact cost of the tree's path from every cell (row-major) and its number of steps,
/// summed along next steps from the goal outwards; `None` where the tree reaches no goal.
fn tree_path_costs(
    tree: &GoalTree,
    grid: &Grid,
    graph: &ReferenceGraph,
) -> Vec<Option<(f64, usize)>> {
    let mut costs: Vec<Option<(f64, usize)>> = vec![None; grid.len()];
    let mut chain = Vec::new();
    for (cell, _) in grid.cells() {
        let mut at = Some(cell);
        while let Some(cell) =
            at.filter(|&cell| costs[graph.index(cell)].is_none() && tree.cost_at(cell).is_some())
        {
            chain.push(cell);
            at = tree.next_step(cell);
        }
        while let Some(from) = chain.pop() {
            let after = tree.next_step(from).and_then(|next| {
                let price = graph
                    .steps(from)
                    .into_iter()
                    .find(|&(to, _)| to == next)
                    .map(|(_, price)| price)?;
                let (cost, steps) = costs[graph.index(next)]?;
                Some((cost + price, steps + 1))
            });
            costs[graph.index(from)] = if tree.is_goal(from) {
                Some((0.0, 0))
            } else {
                after
            };
        }
    }
    costs
}

/// How far `stored` lies from `exact`, in units in the last place of `exact` as an `f32`.
fn f32_units_off(stored: f64, exact: f64) -> f64 {
    let rounded = exact as f32;
    let unit = f64::from(rounded.next_up()) - f64::from(rounded);
    (stored - exact).abs() / unit
}

/// How close a tree came to the optimum: the largest relative excess of a path's cost and the
/// largest distance of a stored cost from the optimum, in `f32` units in the last place.
#[derive(Clone, Copy, Debug, Default)]
struct Closeness {
    excess: f64,
    units: f64,
}

impl Closeness {
    fn max(self, other: Self) -> Self {
        Self {
            excess: self.excess.max(other.excess),
            units: self.units.max(other.units),
        }
    }
}

/// Every cell's path on `tree` against the reference optimum on `grid`: reachable alike, and
/// within the documented precision.
fn check_paths_on_map(tree: &GoalTree, grid: &Grid, goal: Cell, name: &str) -> Closeness {
    let graph = ReferenceGraph::new(grid, tree.movement(), tree.cost_model());
    let optimum = graph.costs_to(goal);
    let found = tree_path_costs(tree, grid, &graph);
    let mut worst = Closeness::default();
    for (index, ((found, optimum), (cell, _))) in
        found.iter().zip(&optimum).zip(grid.cells()).enumerate()
    {
        let (Some((found, steps)), Some(optimum)) = (*found, *optimum) else {
            assert_eq!(found.is_some(), optimum.is_some(), "{name}: cell {index}");
            continue;
        };
        assert!(
            found >= optimum - 1e-9 * optimum && found - optimum <= tolerance(optimum, steps),
            "{name}: cell {index} costs {found}, optimum {optimum}, {steps} steps"
        );
        if optimum > 0.0 {
            let stored = tree.cost_at(cell).unwrap_or(f64::NAN);
            worst = worst.max(Closeness {
                excess: (found - optimum) / optimum,
                units: f32_units_off(stored, optimum),
            });
        }
    }
    worst
}

/// The Moving AI maps (and one with random terrain costs from 1 to 9), three goals each, the
/// tree as built and after two rounds of walls across its paths: every cell's path within the
/// documented precision of the reference optimum. Prints the largest excess found.
#[test]
fn moving_ai_paths_stay_within_the_documented_precision() {
    let mut sweep = Sweep(0x9E37_79B9_7F4A_7C15);
    let (mut built_worst, mut updated_worst) = (Closeness::default(), Closeness::default());
    for (name, map, scenario) in MOVING_AI_MAPS {
        let mut grid = parse_map(map).expect("a valid map");
        if name.contains("terrain") {
            let cells: Vec<Cell> = grid
                .cells()
                .filter(|&(_, value)| value != 0)
                .map(|(cell, _)| cell)
                .collect();
            for cell in cells {
                let terrain = 1 + sweep.next(9) as u8;
                grid.set_cost(cell, terrain).expect("inside");
            }
        }
        let queries = parse_scenario(scenario).expect("a valid scenario").queries;
        for pick in 0..3 {
            let goal = queries[(pick * 7919 + 13) % queries.len()].goal;
            let mut edited = grid.clone();
            let mut tree = GoalTree::build(&edited, &[goal], Movement::EIGHT, CostModel::Octile)
                .expect("walkable");
            built_worst = built_worst.max(check_paths_on_map(&tree, &edited, goal, name));
            for _ in 0..2 {
                let mut changed = Vec::new();
                for _ in 0..4 {
                    let start = queries[sweep.next(queries.len() as u64) as usize].start;
                    let path = tree.path_from(&edited, start).expect("same size");
                    if let Some(path) = path.filter(|path| path.cells.len() > 2) {
                        let cut = path.cells[path.cells.len() / 2];
                        edited.set_blocked(cut, true).expect("inside");
                        changed.push(cut);
                    }
                }
                tree.update(&edited, &changed).expect("same size");
                updated_worst = updated_worst.max(check_paths_on_map(&tree, &edited, goal, name));
            }
        }
    }
    eprintln!(
        "a goal tree on the Moving AI maps: built {built_worst:?}, updated {updated_worst:?}"
    );
    // No two routes into a cell tie once rounded on these maps: a build keeps every cost the
    // optimum rounded to nearest, and an update, whose seeds start from rounded costs, within
    // two units.
    assert!(built_worst.units <= 0.5 + 1e-6, "{built_worst:?}");
    assert!(updated_worst.units <= 2.0, "{updated_worst:?}");
}

/// A random map of `side` x `side` cells: 20% walls, terrain from 1 to 255.
fn sweep_map(sweep: &mut Sweep, side: u32) -> Grid {
    Grid::from_fn(side, side, |_| {
        if sweep.next(5) == 0 {
            0
        } else {
            1 + sweep.next(255) as u8
        }
    })
}

/// Random 48x48 maps with terrain costs from 1 to 255, every movement rule, exact octile and
/// random integer costs: every cell's path within the documented precision of the reference
/// optimum, built and after walls. Prints the closeness found.
#[test]
fn random_maps_paths_stay_within_the_documented_precision() {
    let mut sweep = Sweep(0x2545_F491_4F6C_DD1D);
    let (mut built_worst, mut updated_worst) = (Closeness::default(), Closeness::default());
    for round in 0..24 {
        let mut grid = sweep_map(&mut sweep, 48);
        let goal = Cell::new(sweep.next(48) as u32, sweep.next(48) as u32);
        grid.set_cost(goal, 1).expect("inside");
        let movement = MOVEMENTS[round % MOVEMENTS.len()];
        let cost = if round % 2 == 0 {
            CostModel::Octile
        } else {
            CostModel::Integer {
                straight: 1 + sweep.next(1000) as u32,
                diagonal: 1 + sweep.next(1000) as u32,
            }
        };
        let mut tree = GoalTree::build(&grid, &[goal], movement, cost).expect("walkable");
        built_worst = built_worst.max(check_paths_on_map(&tree, &grid, goal, "random"));
        let walls: Vec<Cell> = (0..6)
            .map(|_| Cell::new(sweep.next(48) as u32, sweep.next(48) as u32))
            .filter(|&cell| cell != goal)
            .collect();
        for &wall in &walls {
            grid.set_blocked(wall, true).expect("inside");
        }
        tree.update(&grid, &walls).expect("same size");
        updated_worst = updated_worst.max(check_paths_on_map(&tree, &grid, goal, "random"));
    }
    eprintln!("a goal tree on random maps: built {built_worst:?}, updated {updated_worst:?}");
}
