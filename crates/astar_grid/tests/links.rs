//! Links and floors checked against an independent Dijkstra over the grid's steps and the links:
//! A* on grids with links (one-way, two-way, closed, kind-restricted, free and dear ones), for
//! every movement rule, any cost model and agent kinds, run whole or in budgets; jump point
//! search over links; smoothing that keeps link steps; flow fields and goal trees over links,
//! built and brought up to date as links and cells change; connectivity and the tower check
//! over links; local repair of paths over links; the closest reachable cell over links; stacked
//! floors; and the refusals of bad links.

pub mod common;

use astar_grid::{
    AgentGrid, AgentKind, Cell, Components, CostModel, FloorCell, FloorPlan, FlowField, GoalTree,
    Grid, JpsOptions, JumpGrid, Link, LinkId, Movement, RepairOptions, SearchOptions, SearchStatus,
    Searcher, SmoothingOptions, Step, TerrainProfile, line_of_sight, smooth_path_cells,
};
use common::closest_cell::cell_distance;
use common::link_directions::directions;
use common::path_check::costs_match;
use common::random_grid::{
    agent_size, any_cost_model, movement, random_grid, terrain_grid, terrain_profile,
};
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A link as drawn: ends picked among the walkable cells, and its properties.
#[derive(Clone, Debug)]
struct RawLink {
    from: prop::sample::Index,
    to: prop::sample::Index,
    cost: f64,
    one_way: bool,
    open: bool,
    terrain: u8,
    max_size: u8,
}

fn raw_link() -> impl Strategy<Value = RawLink> {
    let cost = prop_oneof![Just(0.0), Just(0.5), Just(1.0), Just(25.0), (0.0..60.0f64),];
    (
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        cost,
        any::<bool>(),
        prop::bool::weighted(0.8),
        prop_oneof![3 => Just(1u8), 1 => 1u8..=255],
        prop_oneof![2 => Just(astar_grid::agent::MAX_AGENT_SIZE), 1 => 1u8..=3],
    )
        .prop_map(
            |(from, to, cost, one_way, open, terrain, max_size)| RawLink {
                from,
                to,
                cost,
                one_way,
                open,
                terrain,
                max_size,
            },
        )
}

/// Adds the drawn links between walkable cells of `grid`; returns them as added.
fn add_links(grid: &mut Grid, raw: &[RawLink]) -> Vec<Link> {
    let walkable: Vec<Cell> = grid
        .cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect();
    if walkable.is_empty() {
        return Vec::new();
    }
    let mut added = Vec::new();
    for raw in raw {
        let mut link = Link::new(*raw.from.get(&walkable), *raw.to.get(&walkable), raw.cost)
            .with_open(raw.open)
            .with_terrain(raw.terrain)
            .with_max_size(raw.max_size);
        if raw.one_way {
            link = link.one_way();
        }
        grid.add_link(link).expect("a valid link");
        added.push(link);
    }
    added
}

/// The link directions agents of `kind` may take on `grid` now, written from the documented
/// rules: open, the footprint no wider than the link allows, the profile entering its terrain,
/// and both ends walkable on `grid`.
fn usable_directions(grid: &Grid, links: &[Link], kind: &AgentKind) -> Vec<(Cell, Cell, f64)> {
    directions(links, |link| {
        link.open
            && kind.size <= link.max_size
            && kind.profile.cost(link.terrain).is_some()
            && grid.is_walkable(link.from)
            && grid.is_walkable(link.to)
    })
}

/// Dijkstra from `start` over the reference graph's steps and the link directions: the cost to
/// every cell (row-major), `None` where unreachable.
fn reference_costs(
    graph: &ReferenceGraph,
    grid: &Grid,
    directions: &[(Cell, Cell, f64)],
    start: Cell,
) -> Vec<Option<f64>> {
    let width = grid.width() as usize;
    let mut best = vec![None; grid.len()];
    let mut heap = BinaryHeap::new();
    best[graph.index(start)] = Some(0.0);
    heap.push(Reverse((0f64.to_bits(), start.x, start.y)));
    while let Some(Reverse((bits, x, y))) = heap.pop() {
        let cell = Cell::new(x, y);
        let cost = f64::from_bits(bits);
        if best[graph.index(cell)].is_some_and(|known| known < cost) {
            continue;
        }
        let links = directions
            .iter()
            .filter(|(from, _, _)| *from == cell)
            .map(|&(_, to, price)| (to, price));
        for (next, price) in graph.steps(cell).into_iter().chain(links) {
            let candidate = cost + price;
            let slot = &mut best[next.y as usize * width + next.x as usize];
            if slot.is_none_or(|known| candidate < known) {
                *slot = Some(candidate);
                heap.push(Reverse((candidate.to_bits(), next.x, next.y)));
            }
        }
    }
    best
}

/// Checks that `cells` walks from `start` to `goal` by legal steps and usable links, at `cost`.
fn check_walk(
    graph: &ReferenceGraph,
    directions: &[(Cell, Cell, f64)],
    (start, goal): (Cell, Cell),
    cells: &[Cell],
    cost: f64,
) -> Result<(), String> {
    if cells.first() != Some(&start) || cells.last() != Some(&goal) {
        return Err(format!(
            "the path does not join {start} to {goal}: {cells:?}"
        ));
    }
    let mut total = 0.0;
    for pair in cells.windows(2) {
        let step = graph
            .steps(pair[0])
            .into_iter()
            .filter(|(next, _)| *next == pair[1])
            .map(|(_, price)| price);
        let link = directions
            .iter()
            .filter(|(from, to, _)| (*from, *to) == (pair[0], pair[1]))
            .map(|&(_, _, price)| price);
        let cheapest = step.chain(link).fold(f64::INFINITY, f64::min);
        if !cheapest.is_finite() {
            return Err(format!("no step nor link from {} to {}", pair[0], pair[1]));
        }
        total += cheapest;
    }
    if !costs_match(total, cost) {
        return Err(format!("the steps cost {total}, the path says {cost}"));
    }
    Ok(())
}

/// Runs A* on `grid` from `start` to `goal`, whole or in budgets of `budget` expansions.
fn search(
    grid: &Grid,
    (start, goal): (Cell, Cell),
    options: &SearchOptions,
    budget: Option<u32>,
) -> astar_grid::SearchResult {
    let mut searcher = Searcher::new();
    let search = searcher.begin(grid, start, goal, options).expect("valid");
    let Some(budget) = budget else {
        return search.run();
    };
    let mut search = search;
    loop {
        match search.advance(budget) {
            Step::Pending(more) => search = more,
            Step::Done(result) => return result,
        }
    }
}

/// Compares A* with the reference on `grid` (which carries `links`) for agents of `kind`.
fn compare(
    grid: &Grid,
    links: &[Link],
    kind: &AgentKind,
    (start, goal): (Cell, Cell),
    (movement, cost, budget): (Movement, CostModel, Option<u32>),
) -> Result<(), TestCaseError> {
    let options = SearchOptions::default()
        .with_movement(movement)
        .with_cost(cost);
    let graph = ReferenceGraph::new(grid, movement, cost);
    let directions = usable_directions(grid, links, kind);
    let expected = reference_costs(&graph, grid, &directions, start)[graph.index(goal)];
    let result = search(grid, (start, goal), &options, budget);
    match (expected, result.found()) {
        (None, None) => prop_assert_eq!(result.status, SearchStatus::NoPath),
        (Some(expected), Some(path)) => {
            prop_assert!(
                costs_match(path.cost, expected),
                "A* {} against the reference {}",
                path.cost,
                expected
            );
            if let Err(problem) =
                check_walk(&graph, &directions, (start, goal), &path.cells, path.cost)
            {
                prop_assert!(false, "{}", problem);
            }
        }
        (expected, found) => {
            prop_assert!(
                false,
                "reference {expected:?}, A* {:?}",
                found.map(|p| p.cost)
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// On one-cell agents' grids: every search's cost equals the reference's, and its path is
    /// a legal walk by steps and links, under every movement rule and any cost model, with up
    /// to 12 links (beyond 16 directions the heuristic's bound turns constant).
    #[test]
    fn a_star_over_links_matches_the_reference(
        grid in random_grid(10, 10),
        raw in prop::collection::vec(raw_link(), 0..12),
        ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        movement in movement(),
        cost in any_cost_model(),
        budget in prop::option::of(1u32..6),
    ) {
        let mut grid = grid;
        let links = add_links(&mut grid, &raw);
        let walkable: Vec<Cell> = grid.cells().filter(|&(_, v)| v != 0).map(|(c, _)| c).collect();
        prop_assume!(!walkable.is_empty());
        let (start, goal) = (*ends.0.get(&walkable), *ends.1.get(&walkable));
        let everyone = AgentKind::new(TerrainProfile::identity(), 1);
        compare(&grid, &links, &everyone, (start, goal), (movement, cost, budget))?;
    }

    /// Agents of any kind search their derived grid, which keeps the links they may take: the
    /// same comparison, with links closed to their size or terrain left out by the reference.
    #[test]
    fn agent_kinds_take_only_the_links_they_may(
        terrain in terrain_grid(3, 9),
        raw in prop::collection::vec(raw_link(), 0..8),
        profile in terrain_profile(),
        size in agent_size(),
        ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        movement in movement(),
        cost in any_cost_model(),
    ) {
        let mut terrain = terrain;
        let links = add_links(&mut terrain, &raw);
        let kind = AgentKind::new(profile, size);
        let Ok(agent) = AgentGrid::for_kind(&terrain, &kind) else {
            return Ok(());
        };
        let grid = agent.grid();
        let anchors: Vec<Cell> = grid.cells().filter(|&(_, v)| v != 0).map(|(c, _)| c).collect();
        prop_assume!(!anchors.is_empty());
        let (start, goal) = (*ends.0.get(&anchors), *ends.1.get(&anchors));
        compare(grid, &links, &kind, (start, goal), (movement, cost, None))?;
    }
}

#[test]
fn a_teleporter_across_the_map_is_taken_and_the_search_stays_optimal() {
    // A long corridor; a teleporter from near the start to near the goal. The plain octile
    // estimate from the teleporter's far end is below the truth, but from its near end far
    // above it: only a bound that knows the link finds the cheap way first.
    let mut grid = Grid::new(200, 3);
    let teleporter = Link::new(Cell::new(2, 1), Cell::new(197, 1), 1.0).one_way();
    grid.add_link(teleporter).expect("valid");
    let result = astar_grid::find_path(
        &grid,
        Cell::new(0, 1),
        Cell::new(199, 1),
        &SearchOptions::default(),
    )
    .expect("valid");
    let path = result.found().expect("reachable");
    assert_eq!(path.cost, 2.0 + 1.0 + 2.0);
    assert_eq!(path.cells.len(), 6);
    // The far way back does not take the one-way teleporter.
    let back = astar_grid::find_path(
        &grid,
        Cell::new(199, 1),
        Cell::new(0, 1),
        &SearchOptions::default(),
    )
    .expect("valid");
    assert_eq!(back.found().map(|path| path.cost), Some(199.0));
}

#[test]
fn a_closed_door_disconnects_and_an_open_one_joins() {
    let mut grid = Grid::from_ascii("..#..\n..#..").expect("grid");
    let door = grid
        .add_link(Link::new(Cell::new(1, 0), Cell::new(3, 0), 2.0))
        .expect("valid");
    let cost = |grid: &Grid| {
        let options = SearchOptions::default();
        let result = astar_grid::find_path(grid, Cell::new(0, 1), Cell::new(4, 1), &options);
        result.expect("valid").found().map(|path| path.cost)
    };
    let through = 2f64.sqrt() + 2.0 + 2f64.sqrt();
    assert_eq!(cost(&grid), Some(through));
    grid.set_link_open(door, false).expect("known");
    assert_eq!(cost(&grid), None);
    grid.set_link_open(door, true).expect("known");
    assert_eq!(cost(&grid), Some(through));
    // A link whose end was blocked after it was added is not taken.
    grid.set_blocked(Cell::new(3, 0), true).expect("inside");
    assert_eq!(cost(&grid), None);
    grid.remove_link(door).expect("known");
    assert_eq!(
        grid.remove_link(door),
        Err(astar_grid::LinkError::Unknown(door))
    );
    assert_eq!(door, LinkId(0));
}

#[test]
fn floors_joined_by_stairs_are_searched_as_one_map() {
    let ground = Grid::from_ascii("....\n.##.\n....").expect("grid");
    let upstairs = Grid::from_ascii("....\n###.\n....").expect("grid");
    let (plan, mut grid) = FloorPlan::stack(&[ground, upstairs]).expect("same sizes");
    let at = |floor, x, y| plan.cell(FloorCell::new(floor, x, y)).expect("on the plan");
    grid.add_link(Link::new(at(0, 3, 2), at(1, 3, 2), 4.0))
        .expect("valid");
    let result = astar_grid::find_path(&grid, at(0, 0, 2), at(1, 0, 0), &SearchOptions::default())
        .expect("valid");
    let path = result.found().expect("by the stairs");
    let floors: Vec<u32> = path
        .cells
        .iter()
        .map(|&cell| plan.floor_cell(cell).expect("on a floor").floor)
        .collect();
    // Along the ground floor, up the stairs once, then along the upper floor.
    let up = floors
        .iter()
        .position(|&floor| floor == 1)
        .expect("reaches floor 1");
    assert!(floors[..up].iter().all(|&floor| floor == 0));
    assert!(floors[up..].iter().all(|&floor| floor == 1));
    // Three east below, the stairs, then two north and three west above (no corner cutting).
    assert_eq!(path.cost, 3.0 + 4.0 + 5.0);
}

/// The cost models jump point search takes: a diagonal dearer than a straight step and no
/// dearer than two.
fn jump_cost_model() -> impl Strategy<Value = CostModel> {
    prop_oneof![
        Just(CostModel::Octile),
        Just(CostModel::INTEGER_10_14),
        (1u32..=100, 0.0..=1.0f64).prop_map(|(straight, share)| CostModel::Integer {
            straight,
            diagonal: straight + 1 + (f64::from(straight - 1) * share) as u32,
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// Jump point search over links: the reference's cost, as a legal walk when it returns
    /// every cell, with the links given to the jump grid when it is built or afterwards.
    #[test]
    fn jump_point_search_over_links_matches_the_reference(
        grid in random_grid(12, 12),
        raw in prop::collection::vec(raw_link(), 0..12),
        ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        cost in jump_cost_model(),
        full_path in any::<bool>(),
        links_later in any::<bool>(),
    ) {
        let mut grid = Grid::from_fn(grid.width(), grid.height(), |cell| u8::from(grid.value(cell) != 0));
        let plain = grid.clone();
        let links = add_links(&mut grid, &raw);
        let walkable: Vec<Cell> = grid.cells().filter(|&(_, v)| v != 0).map(|(c, _)| c).collect();
        prop_assume!(!walkable.is_empty());
        let (start, goal) = (*ends.0.get(&walkable), *ends.1.get(&walkable));
        let jump_grid = if links_later {
            let mut jump_grid = JumpGrid::new(&plain).expect("no terrain costs");
            jump_grid.update_links(&grid).expect("same size");
            jump_grid
        } else {
            JumpGrid::new(&grid).expect("no terrain costs")
        };
        let options = JpsOptions::default().with_cost(cost).with_full_path(full_path);
        let result = Searcher::new().find_path_jps(&jump_grid, start, goal, &options).expect("valid");
        let graph = ReferenceGraph::new(&grid, Movement::EIGHT, cost);
        let everyone = AgentKind::new(TerrainProfile::identity(), 1);
        let directions = usable_directions(&grid, &links, &everyone);
        let expected = reference_costs(&graph, &grid, &directions, start)[graph.index(goal)];
        match (expected, result.found()) {
            (None, None) => prop_assert_eq!(result.status, SearchStatus::NoPath),
            (Some(expected), Some(path)) => {
                prop_assert!(costs_match(path.cost, expected), "JPS {} against {}", path.cost, expected);
                let walk = check_walk(&graph, &directions, (start, goal), &path.cells, path.cost);
                if full_path && let Err(problem) = walk {
                    prop_assert!(false, "{}", problem);
                }
            }
            (expected, found) => {
                prop_assert!(false, "reference {expected:?}, JPS {:?}", found.map(|p| p.cost));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Smoothing a path that takes links keeps every link step whole, as two consecutive
    /// waypoints, and joins every other pair of consecutive waypoints by a line of sight.
    #[test]
    fn smoothing_never_shortcuts_across_a_link(
        grid in random_grid(12, 12),
        raw in prop::collection::vec(raw_link(), 1..8),
        ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        movement in movement(),
    ) {
        let mut grid = grid;
        let links = add_links(&mut grid, &raw);
        let walkable: Vec<Cell> = grid.cells().filter(|&(_, v)| v != 0).map(|(c, _)| c).collect();
        prop_assume!(!walkable.is_empty());
        let (start, goal) = (*ends.0.get(&walkable), *ends.1.get(&walkable));
        let options = SearchOptions::default().with_movement(movement);
        let result = astar_grid::find_path(&grid, start, goal, &options).expect("valid");
        let Some(path) = result.found() else {
            return Ok(());
        };
        let kept = smooth_path_cells(&grid, &path.cells, movement, SmoothingOptions::default())
            .expect("a path of steps and links smooths");
        let everyone = AgentKind::new(TerrainProfile::identity(), 1);
        let directions = usable_directions(&grid, &links, &everyone);
        let is_link = |a: Cell, b: Cell| directions.iter().any(|&(from, to, _)| (from, to) == (a, b));
        let walks = |a: Cell, b: Cell| line_of_sight(&grid, a, b, movement);
        // Each kept cell is a path cell, in path order.
        let mut places = Vec::new();
        let mut next = 0;
        for cell in &kept {
            let offset = path.cells[next..].iter().position(|c| c == cell);
            prop_assert!(offset.is_some(), "{} is not on the path after cell {}", cell, next);
            next += offset.unwrap_or(0);
            places.push(next);
        }
        for (pair, place) in kept.windows(2).zip(places.windows(2)) {
            let step = place[1] == place[0] + 1 && is_link(pair[0], pair[1]);
            prop_assert!(step || walks(pair[0], pair[1]), "{} to {} neither walks nor is a link", pair[0], pair[1]);
        }
        // Every step of the path that only a link makes is kept whole.
        for (index, step) in path.cells.windows(2).enumerate() {
            if !walks(step[0], step[1]) {
                prop_assert!(places.windows(2).any(|p| p == [index, index + 1]), "link step {} lost", index);
            }
        }
    }
}

/// A change to a grid with links, as drawn.
#[derive(Clone, Debug)]
enum LinkEdit {
    /// Opens a closed link or closes an open one.
    Toggle(prop::sample::Index),
    /// Removes a link.
    Remove(prop::sample::Index),
    /// Adds a link.
    Add(RawLink),
    /// Blocks or opens a cell.
    Cell(prop::sample::Index),
    /// Blocks or opens the cell a link leaves from.
    LinkEnd(prop::sample::Index),
}

fn link_edit() -> impl Strategy<Value = LinkEdit> {
    prop_oneof![
        2 => any::<prop::sample::Index>().prop_map(LinkEdit::Toggle),
        1 => any::<prop::sample::Index>().prop_map(LinkEdit::Remove),
        2 => raw_link().prop_map(LinkEdit::Add),
        2 => any::<prop::sample::Index>().prop_map(LinkEdit::Cell),
        2 => any::<prop::sample::Index>().prop_map(LinkEdit::LinkEnd),
    ]
}

/// Applies `edit` to `grid`; returns the cells to tell a field about (a changed cell, or a
/// changed link's ends).
fn apply_edit(grid: &mut Grid, edit: &LinkEdit, goal: Cell) -> Vec<Cell> {
    let ids: Vec<(LinkId, Link)> = grid.links().iter().map(|(id, link)| (id, *link)).collect();
    match edit {
        LinkEdit::Toggle(pick) | LinkEdit::Remove(pick) if !ids.is_empty() => {
            let (id, link) = *pick.get(&ids);
            if matches!(edit, LinkEdit::Toggle(_)) {
                grid.set_link_open(id, !link.open).expect("known");
            } else {
                grid.remove_link(id).expect("known");
            }
            vec![link.from, link.to]
        }
        LinkEdit::Add(raw) => {
            let added = add_links(grid, std::slice::from_ref(raw));
            added.iter().flat_map(|link| [link.from, link.to]).collect()
        }
        LinkEdit::LinkEnd(pick) if !ids.is_empty() => {
            let cell = pick.get(&ids).1.from;
            if cell == goal {
                return Vec::new();
            }
            let blocked = grid.is_walkable(cell);
            grid.set_blocked(cell, blocked).expect("inside");
            vec![cell]
        }
        LinkEdit::Cell(pick) => {
            let cells: Vec<Cell> = grid
                .cells()
                .map(|(cell, _)| cell)
                .filter(|&c| c != goal)
                .collect();
            if cells.is_empty() {
                return Vec::new();
            }
            let cell = *pick.get(&cells);
            let blocked = grid.is_walkable(cell);
            grid.set_blocked(cell, blocked).expect("inside");
            vec![cell]
        }
        _ => Vec::new(),
    }
}

/// Checks a field's cost at every cell of `grid` against the reference, within `tolerance`
/// (relative), and that its paths are legal walks at those costs.
fn check_field(
    grid: &Grid,
    goal: Cell,
    movement: Movement,
    cost: CostModel,
    read: impl Fn(Cell) -> (Option<f64>, Option<astar_grid::Path>),
    tolerance: f64,
) -> Result<(), TestCaseError> {
    let graph = ReferenceGraph::new(grid, movement, cost);
    let links: Vec<Link> = grid.links().iter().map(|(_, link)| *link).collect();
    let everyone = AgentKind::new(TerrainProfile::identity(), 1);
    let directions = usable_directions(grid, &links, &everyone);
    for (cell, value) in grid.cells() {
        if value == 0 {
            continue;
        }
        let expected = reference_costs(&graph, grid, &directions, cell)[graph.index(goal)];
        let (field_cost, path) = read(cell);
        match (expected, field_cost, path) {
            (None, None, None) => {}
            (Some(expected), Some(found), Some(path)) => {
                prop_assert!(
                    (found - expected).abs() <= tolerance * expected.max(1.0),
                    "{}: the field says {}, the reference {}",
                    cell,
                    found,
                    expected
                );
                if let Err(problem) =
                    check_walk(&graph, &directions, (cell, goal), &path.cells, path.cost)
                {
                    prop_assert!(false, "{}: {}", cell, problem);
                }
            }
            (expected, found, path) => prop_assert!(
                false,
                "{}: reference {:?}, field {:?}, path {}",
                cell,
                expected,
                found,
                path.is_some()
            ),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// Flow fields and goal trees over links: every cell's cost is the reference's, and its
    /// path a legal walk; after links are toggled, removed and added and cells blocked, an
    /// updated field still is, as a fresh build is.
    #[test]
    fn flow_fields_and_goal_trees_follow_links_and_their_changes(
        grid in random_grid(8, 8),
        raw in prop::collection::vec(raw_link(), 0..8),
        goal in any::<prop::sample::Index>(),
        movement in movement(),
        cost in any_cost_model(),
        edits in prop::collection::vec(link_edit(), 0..6),
    ) {
        let mut grid = grid;
        add_links(&mut grid, &raw);
        let walkable: Vec<Cell> = grid.cells().filter(|&(_, v)| v != 0).map(|(c, _)| c).collect();
        prop_assume!(!walkable.is_empty());
        let goal = *goal.get(&walkable);
        let mut field = FlowField::build(&grid, &[goal], movement, cost).expect("valid");
        let mut tree = GoalTree::build(&grid, &[goal], movement, cost).expect("valid");
        let read = |cell| (field.cost_at(cell), field.path_from(cell));
        check_field(&grid, goal, movement, cost, read, 1e-9)?;
        for edit in &edits {
            let changed = apply_edit(&mut grid, edit, goal);
            field.update(&grid, &changed).expect("same grid");
            tree.update(&grid, &changed).expect("same grid");
        }
        let read = |cell| (field.cost_at(cell), field.path_from(cell));
        check_field(&grid, goal, movement, cost, read, 1e-9)?;
        let tree_read = |cell| {
            let path = tree.path_from(&grid, cell).expect("same grid");
            (tree.cost_at(cell), path)
        };
        check_field(&grid, goal, movement, cost, tree_read, 1e-5)?;
    }
}

/// Which walkable cells of `grid` are joined to `from` by steps under `movement` and open
/// links taken either way, both ends walkable: the reference for connectivity, written from
/// the documented rule.
fn weakly_joined(grid: &Grid, movement: Movement, from: Cell) -> Vec<bool> {
    let graph = ReferenceGraph::new(grid, movement, CostModel::Octile);
    let links: Vec<Link> = grid.links().iter().map(|(_, link)| *link).collect();
    let everyone = AgentKind::new(TerrainProfile::identity(), 1);
    let directions = usable_directions(grid, &links, &everyone);
    let mut joined = vec![false; grid.len()];
    if !grid.is_walkable(from) {
        return joined;
    }
    let mut stack = vec![from];
    joined[graph.index(from)] = true;
    while let Some(cell) = stack.pop() {
        let by_links = directions.iter().filter_map(|&(a, b, _)| {
            if a == cell {
                Some(b)
            } else if b == cell {
                Some(a)
            } else {
                None
            }
        });
        let stepped = graph.steps(cell).into_iter().map(|(next, _)| next);
        for next in stepped.chain(by_links) {
            if !joined[graph.index(next)] {
                joined[graph.index(next)] = true;
                stack.push(next);
            }
        }
    }
    joined
}

/// Checks `components` against [`weakly_joined`] for every pair of cells of `grid`.
fn check_components(
    grid: &Grid,
    movement: Movement,
    components: &Components,
) -> Result<(), TestCaseError> {
    let cells: Vec<Cell> = grid.cells().map(|(cell, _)| cell).collect();
    for &a in &cells {
        let joined = weakly_joined(grid, movement, a);
        for &b in &cells {
            let expected = joined[(b.y * grid.width() + b.x) as usize];
            prop_assert_eq!(components.same_component(a, b), expected, "{} and {}", a, b);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// Connectivity over links: two cells share a component exactly when steps and open links
    /// (either way) join them, through cell edits given to `update` and link changes given to
    /// `update_links`; and the tower check cuts off exactly the points that the blocked cells
    /// part from the goal.
    #[test]
    fn components_and_the_tower_check_follow_links(
        grid in random_grid(7, 7),
        raw in prop::collection::vec(raw_link(), 0..6),
        movement in movement(),
        edits in prop::collection::vec(link_edit(), 0..6),
        blocked in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
        from in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
        goal in any::<prop::sample::Index>(),
    ) {
        let mut grid = grid;
        add_links(&mut grid, &raw);
        let mut components = Components::new(&grid, movement);
        check_components(&grid, movement, &components)?;
        let nowhere = Cell::new(u32::MAX, u32::MAX);
        for edit in &edits {
            let changed = apply_edit(&mut grid, edit, nowhere);
            if matches!(edit, LinkEdit::Cell(_) | LinkEdit::LinkEnd(_)) {
                components.update(&grid, &changed).expect("same grid");
            } else {
                components.update_links(&grid).expect("same grid");
            }
            check_components(&grid, movement, &components)?;
        }
        let cells: Vec<Cell> = grid.cells().map(|(cell, _)| cell).collect();
        let blocked: Vec<Cell> = blocked.iter().map(|pick| *pick.get(&cells)).collect();
        let from: Vec<Cell> = from.iter().map(|pick| *pick.get(&cells)).collect();
        let goal = *goal.get(&cells);
        let check = components.check_blocking(&blocked, &from, goal).expect("inside");
        let mut edited = grid.clone();
        for &cell in &blocked {
            edited.set_blocked(cell, true).expect("inside");
        }
        let index = |cell: Cell| (cell.y * grid.width() + cell.x) as usize;
        let before = weakly_joined(&grid, movement, goal);
        let after = weakly_joined(&edited, movement, goal);
        let goal_covered = blocked.contains(&goal) && grid.is_walkable(goal);
        let mut expected: Vec<Cell> = from
            .iter()
            .copied()
            .filter(|&point| !(blocked.contains(&point) && grid.is_walkable(point)))
            .filter(|&point| before[index(point)] && (goal_covered || !after[index(point)]))
            .collect();
        let mut cut_off = check.cut_off.clone();
        expected.sort_unstable_by_key(|cell| (cell.y, cell.x));
        cut_off.sort_unstable_by_key(|cell| (cell.y, cell.x));
        prop_assert_eq!(cut_off, expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Local repair of a path over links, after links closed, went and came and cells were
    /// blocked: the repaired path is a legal walk by steps and open links at the cost it
    /// states, from the same start to the same goal, and a repair finds no path only where the
    /// reference finds none.
    #[test]
    fn repaired_paths_over_links_walk_legally(
        grid in random_grid(10, 10),
        raw in prop::collection::vec(raw_link(), 1..8),
        ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        movement in movement(),
        cost in any_cost_model(),
        edits in prop::collection::vec(link_edit(), 1..5),
    ) {
        let mut grid = grid;
        add_links(&mut grid, &raw);
        let walkable: Vec<Cell> = grid.cells().filter(|&(_, v)| v != 0).map(|(c, _)| c).collect();
        prop_assume!(!walkable.is_empty());
        let (start, goal) = (*ends.0.get(&walkable), *ends.1.get(&walkable));
        let options = SearchOptions::default().with_movement(movement).with_cost(cost);
        let mut searcher = Searcher::new();
        let result = searcher.find_path(&grid, start, goal, &options).expect("valid");
        let Some(path) = result.found().cloned() else {
            return Ok(());
        };
        for edit in &edits {
            apply_edit(&mut grid, edit, Cell::new(u32::MAX, u32::MAX));
        }
        prop_assume!(grid.is_walkable(start) && grid.is_walkable(goal));
        let repaired = match searcher.repair_path(&grid, &path.cells, &RepairOptions::new(options)) {
            Ok(repaired) => repaired,
            Err(astar_grid::RepairError::NotAdjacent { index }) => {
                // Only a step along a link removed since is refused.
                let (from, to) = (path.cells[index], path.cells[index + 1]);
                let known = grid.links().iter().any(|(_, link)| {
                    (link.from, link.to) == (from, to) || (link.both_ways && (link.to, link.from) == (from, to))
                });
                prop_assert!(!known, "step {} refused though a link of the grid makes it", index);
                return Ok(());
            }
            Err(error) => return Err(TestCaseError::fail(error.to_string())),
        };
        let graph = ReferenceGraph::new(&grid, movement, cost);
        let links: Vec<Link> = grid.links().iter().map(|(_, link)| *link).collect();
        let everyone = AgentKind::new(TerrainProfile::identity(), 1);
        let directions = usable_directions(&grid, &links, &everyone);
        let reachable = reference_costs(&graph, &grid, &directions, start)[graph.index(goal)].is_some();
        match repaired.path {
            Some(path) => {
                if let Err(problem) = check_walk(&graph, &directions, (start, goal), &path.cells, path.cost) {
                    prop_assert!(false, "{:?}: {}", repaired.repair, problem);
                }
            }
            None => prop_assert!(!reachable, "{:?} though a path exists", repaired.repair),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The closest reachable cell over links: A*, jump point search and a flow field, asked for
    /// a goal they cannot reach, walk legally by steps and links to a cell that the reference
    /// reaches at the same cost, and none the reference reaches lies nearer the goal.
    #[test]
    fn the_closest_reachable_cell_is_looked_for_over_links(
        grid in random_grid(9, 9),
        raw in prop::collection::vec(raw_link(), 1..6),
        ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        cost in jump_cost_model(),
    ) {
        let mut grid = Grid::from_fn(grid.width(), grid.height(), |cell| u8::from(grid.value(cell) != 0));
        let links = add_links(&mut grid, &raw);
        let walkable: Vec<Cell> = grid.cells().filter(|&(_, v)| v != 0).map(|(c, _)| c).collect();
        prop_assume!(!walkable.is_empty());
        let start = *ends.0.get(&walkable);
        let movement = Movement::EIGHT;
        let graph = ReferenceGraph::new(&grid, movement, cost);
        let everyone = AgentKind::new(TerrainProfile::identity(), 1);
        let directions = usable_directions(&grid, &links, &everyone);
        let reached = reference_costs(&graph, &grid, &directions, start);
        // A walkable goal the start cannot reach, when the grid has one.
        let unreachable: Vec<Cell> = walkable.iter().copied().filter(|&cell| reached[graph.index(cell)].is_none()).collect();
        if unreachable.is_empty() {
            return Ok(());
        }
        let goal = *ends.1.get(&unreachable);
        let nearest = grid
            .cells()
            .filter(|&(cell, _)| reached[graph.index(cell)].is_some())
            .map(|(cell, _)| cell_distance(movement.neighborhood, cell, goal))
            .fold(f64::INFINITY, f64::min);
        let options = SearchOptions::default().with_cost(cost).with_closest_reachable(true);
        let by_astar = astar_grid::find_path(&grid, start, goal, &options).expect("valid");
        let jump_grid = JumpGrid::new(&grid).expect("no terrain costs");
        let jps_options = JpsOptions::default().with_cost(cost).with_closest_reachable(true);
        let by_jumps = Searcher::new().find_path_jps(&jump_grid, start, goal, &jps_options).expect("valid");
        let field = FlowField::build(&grid, &[goal], movement, cost).expect("valid");
        let by_field = field.path_or_closest_from(&grid, start).expect("same grid").expect("walkable");
        let paths = [
            ("A*", by_astar.partial().cloned()),
            ("JPS", by_jumps.partial().cloned()),
            ("flow field", Some(by_field.path().clone())),
        ];
        for (name, path) in paths {
            prop_assert!(path.is_some(), "{} gave no path", name);
            let Some(path) = path else { continue };
            let end = path.end().expect("a path has cells");
            let expected = reached[graph.index(end)];
            prop_assert!(expected.is_some_and(|known| costs_match(known, path.cost)), "{}: {} at {}, the reference {:?}", name, end, path.cost, expected);
            prop_assert!(costs_match(cell_distance(movement.neighborhood, end, goal), nearest), "{}: {} is not nearest", name, end);
            if let Err(problem) = check_walk(&graph, &directions, (start, end), &path.cells, path.cost) {
                prop_assert!(false, "{}: {}", name, problem);
            }
        }
    }
}
