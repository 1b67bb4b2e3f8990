//! The sector hierarchy checked against an independent Dijkstra: hierarchical paths are legal,
//! join start and goal, are found exactly when one exists, and cost at most the documented
//! detour more than optimal, for every movement rule, any cost model, terrain, links, any
//! sector size and spacing, and hierarchies built in part; exact searches cost the optimum;
//! after any edits, a hierarchy rebuilt where the edits marked it equals one built fresh.

pub mod common;

use astar_grid::{
    Cell, CostModel, Grid, Hierarchy, HierarchyError, HierarchyOptions, HierarchySearcher, Link,
    Movement, QuickFirstCells, SearchError, SearchResult, SearchStatus, SectorFlowField,
};
use common::link_directions::directions;
use common::random_grid::{any_cost_model, movement, random_grid};
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The open link directions of `grid`, as `(from, to, cost)`.
fn link_directions(grid: &Grid) -> Vec<(Cell, Cell, f64)> {
    directions(grid.links().iter().map(|(_, link)| link), |link| link.open)
}

/// Dijkstra over the reference graph's steps and the open links, with parents: an optimal path
/// from `start` to `goal`, or `None` when there is none.
fn optimal_path(
    grid: &Grid,
    movement: Movement,
    cost: CostModel,
    start: Cell,
    goal: Cell,
) -> Option<(f64, Vec<Cell>)> {
    let graph = ReferenceGraph::new(grid, movement, cost);
    let links = link_directions(grid);
    let cells = (grid.width() * grid.height()) as usize;
    let mut best = vec![f64::INFINITY; cells];
    let mut parent = vec![None; cells];
    let mut done = vec![false; cells];
    let mut heap = BinaryHeap::new();
    best[graph.index(start)] = 0.0;
    heap.push(Reverse((0f64.to_bits(), start.x, start.y)));
    while let Some(Reverse((bits, x, y))) = heap.pop() {
        let cell = Cell::new(x, y);
        let index = graph.index(cell);
        if done[index] {
            continue;
        }
        done[index] = true;
        let here = f64::from_bits(bits);
        let mut next_steps = graph.steps(cell);
        next_steps.extend(
            links
                .iter()
                .filter(|(from, to, _)| *from == cell && grid.is_walkable(*to))
                .map(|&(_, to, cost)| (to, cost)),
        );
        for (next, step) in next_steps {
            let candidate = here + step;
            let next_index = graph.index(next);
            if candidate < best[next_index] {
                best[next_index] = candidate;
                parent[next_index] = Some(cell);
                heap.push(Reverse((candidate.to_bits(), next.x, next.y)));
            }
        }
    }
    let total = best[graph.index(goal)];
    if !total.is_finite() {
        return None;
    }
    let mut path = vec![goal];
    while let Some(previous) = parent[graph.index(*path.last()?)] {
        path.push(previous);
    }
    path.reverse();
    Some((total, path))
}

/// Checks that `cells` is a legal path from `start` to `goal` (each step a legal walk or an open
/// link) and returns its cost, each step at the cheaper of its walk and its links.
fn legal_cost(
    grid: &Grid,
    movement: Movement,
    cost: CostModel,
    cells: &[Cell],
    start: Cell,
    goal: Cell,
) -> Result<f64, String> {
    if cells.first() != Some(&start) || cells.last() != Some(&goal) {
        return Err(format!(
            "runs from {:?} to {:?}",
            cells.first(),
            cells.last()
        ));
    }
    let graph = ReferenceGraph::new(grid, movement, cost);
    let links = link_directions(grid);
    let mut total = 0.0;
    for pair in cells.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let walk = graph
            .steps(from)
            .into_iter()
            .filter(|&(next, _)| next == to)
            .map(|(_, cost)| cost);
        let linked = links
            .iter()
            .filter(|&&(a, b, _)| (a, b) == (from, to) && grid.is_walkable(to))
            .map(|&(_, _, cost)| cost);
        let step = walk.chain(linked).fold(f64::INFINITY, f64::min);
        if !step.is_finite() {
            return Err(format!(
                "{from} -> {to} is neither a legal step nor an open link"
            ));
        }
        total += step;
    }
    Ok(total)
}

/// The steps of `path` from one sector into another.
fn crossings(hierarchy: &Hierarchy, path: &[Cell]) -> usize {
    path.windows(2)
        .filter(|pair| hierarchy.sector_of(pair[0]) != hierarchy.sector_of(pair[1]))
        .count()
}

fn max_terrain(grid: &Grid) -> u8 {
    grid.cells()
        .map(|(_, value)| value)
        .max()
        .unwrap_or(1)
        .max(1)
}

/// A link drawn among a grid's cells.
fn add_links(grid: &mut Grid, raw: &[(prop::sample::Index, prop::sample::Index, f64, bool)]) {
    let walkable = walkable(grid);
    if walkable.is_empty() {
        return;
    }
    for (from, to, cost, one_way) in raw {
        let link = Link::new(
            walkable[from.index(walkable.len())],
            walkable[to.index(walkable.len())],
            *cost,
        );
        let link = if *one_way { link.one_way() } else { link };
        grid.add_link(link).expect("ends walkable, cost finite");
    }
}

/// The cost of `path`'s steps, checking that it is a legal walk from `start` to `goal` and that
/// it costs what it reports, within `tolerance`.
fn walked_cost(
    grid: &Grid,
    options: &HierarchyOptions,
    path: &astar_grid::Path,
    (start, goal): (Cell, Cell),
    tolerance: f64,
) -> Result<f64, TestCaseError> {
    let cost = legal_cost(
        grid,
        options.movement,
        options.cost,
        &path.cells,
        start,
        goal,
    )
    .map_err(TestCaseError::fail)?;
    prop_assert!(
        (cost - path.cost).abs() <= tolerance,
        "reported {} but the steps cost {}",
        path.cost,
        cost
    );
    Ok(cost)
}

/// An optimal path from `start` to `goal` as the oracle finds it: its cost and cells.
type Optimal = Option<(f64, Vec<Cell>)>;

/// Checks one search's `result` against the oracle's `optimal`: found exactly when reachable
/// (with status `NoPath` otherwise), legal, costing what it reports, no cheaper than optimal
/// and at most `detour` dearer. `what` names the search in failures.
fn check_result(
    grid: &Grid,
    options: &HierarchyOptions,
    (what, result): (&str, &SearchResult),
    (start, goal): (Cell, Cell),
    (optimal, detour): (&Optimal, f64),
) -> Result<(), TestCaseError> {
    match (result.found(), optimal) {
        (None, None) => prop_assert_eq!(result.status, SearchStatus::NoPath),
        (Some(path), Some((optimal, _))) => {
            let tolerance = 1e-6 * optimal.max(1.0);
            let cost = walked_cost(grid, options, path, (start, goal), tolerance)?;
            prop_assert!(
                cost >= optimal - tolerance,
                "{}: cheaper than optimal: {} < {}",
                what,
                cost,
                optimal
            );
            prop_assert!(
                cost <= optimal + detour + tolerance,
                "{}: cost {} beyond the bound {} (optimal {})",
                what,
                cost,
                optimal + detour,
                optimal
            );
        }
        (found, optimal) => {
            return Err(TestCaseError::fail(format!(
                "{what}: found {:?}, oracle {:?}",
                found.map(|p| p.cost),
                optimal.as_ref().map(|o| o.0)
            )));
        }
    }
    Ok(())
}

/// Checks one query: found exactly when reachable, legal, and within the bound; and, when the
/// hierarchy keeps exact bounds, the exact search at the optimal cost.
fn check_query(
    grid: &Grid,
    hierarchy: &Hierarchy,
    searcher: &mut HierarchySearcher,
    start: Cell,
    goal: Cell,
) -> Result<(), TestCaseError> {
    let options = *hierarchy.options();
    let result = searcher
        .find_path(grid, hierarchy, start, goal)
        .map_err(|error| TestCaseError::fail(error.to_string()))?;
    let optimal = optimal_path(grid, options.movement, options.cost, start, goal);
    let detour = optimal.as_ref().map_or(0.0, |(_, cells)| {
        crossings(hierarchy, cells) as f64 * options.detour_per_crossing(max_terrain(grid))
    });
    let found = ("hierarchical", &result);
    check_result(grid, &options, found, (start, goal), (&optimal, detour))?;
    if options.exact_bounds {
        check_exact_query(grid, hierarchy, searcher, (start, goal), &optimal)?;
    }
    Ok(())
}

/// Checks one exact query against the oracle's `optimal`: found exactly when reachable, legal,
/// and at the optimal cost.
fn check_exact_query(
    grid: &Grid,
    hierarchy: &Hierarchy,
    searcher: &mut HierarchySearcher,
    (start, goal): (Cell, Cell),
    optimal: &Optimal,
) -> Result<(), TestCaseError> {
    let result = searcher
        .find_exact_path(grid, hierarchy, start, goal)
        .map_err(|error| TestCaseError::fail(error.to_string()))?;
    let what = format!(
        "exact ({} sectors searched)",
        searcher.exact_sectors_searched()
    );
    let found = (what.as_str(), &result);
    check_result(
        grid,
        hierarchy.options(),
        found,
        (start, goal),
        (optimal, 0.0),
    )
}

fn options() -> impl Strategy<Value = HierarchyOptions> {
    (
        2u32..=7,
        1u32..=6,
        movement(),
        any_cost_model(),
        0u8..=4,
        any::<bool>(),
        0u32..=4,
    )
        .prop_map(
            |(size, spacing, movement, cost, landmarks, exact, blocks)| {
                HierarchyOptions::default()
                    .with_sector_size(size)
                    .with_entrance_spacing(spacing)
                    .with_movement(movement)
                    .with_cost(cost)
                    .with_landmarks(landmarks)
                    .with_exact_bounds(exact)
                    .with_block_sectors(blocks)
            },
        )
}

/// Options with sectors of 6 to 12 cells, most of whose cells are not on a border.
fn large_sector_options() -> impl Strategy<Value = HierarchyOptions> {
    (options(), 6u32..=12, 2u32..=8).prop_map(|(options, size, spacing)| {
        options
            .with_sector_size(size)
            .with_entrance_spacing(spacing)
            .with_landmarks(0)
    })
}

fn raw_links() -> impl Strategy<Value = Vec<(prop::sample::Index, prop::sample::Index, f64, bool)>>
{
    prop::collection::vec(
        (
            any::<prop::sample::Index>(),
            any::<prop::sample::Index>(),
            prop_oneof![Just(0.0), Just(1.0), 0.0..30.0f64],
            any::<bool>(),
        ),
        0..=3,
    )
}

fn queries() -> impl Strategy<Value = Vec<(prop::sample::Index, prop::sample::Index)>> {
    prop::collection::vec(
        (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        1..=4,
    )
}

/// Applies `edits` to `grid` and tells `hierarchy`: each sets the cost of the cell its index
/// picks, or, when it says so and the grid has a link, opens or closes the first link.
fn apply_edits(
    grid: &mut Grid,
    hierarchy: &mut Hierarchy,
    edits: &[(prop::sample::Index, u8, bool)],
) {
    let (width, height) = (grid.width(), grid.height());
    let first_link = grid.links().iter().map(|(id, _)| id).next();
    for &(place, value, toggle_link) in edits {
        if let Some(id) = first_link.filter(|_| toggle_link) {
            let (from, to, open) = grid
                .links()
                .get(id)
                .map(|link| (link.from, link.to, link.open))
                .expect("exists");
            grid.set_link_open(id, !open).expect("exists");
            hierarchy.cells_changed([from, to]);
        } else {
            let index = place.index((width * height) as usize) as u32;
            let cell = Cell::new(index % width, index / width);
            grid.set_cost(cell, value).expect("inside");
            hierarchy.cells_changed([cell]);
        }
    }
}

/// `grid` with `links` added, its hierarchy built whole, its walkable cells, and the one of
/// them `goal` picks; `None` when a sector keeps too many nodes to be built, or no cell is
/// walkable.
fn built_with_goal(
    grid: &mut Grid,
    options: HierarchyOptions,
    links: &[(prop::sample::Index, prop::sample::Index, f64, bool)],
    goal: prop::sample::Index,
) -> Option<(Hierarchy, Vec<Cell>, Cell)> {
    add_links(grid, links);
    let hierarchy = Hierarchy::build(grid, options).expect("valid options");
    let cells = walkable(grid);
    let all_built = (0..hierarchy.sector_count()).all(|s| hierarchy.is_built(s));
    let goal = *cells.get(goal.index(cells.len().max(1)))?;
    all_built.then_some((hierarchy, cells, goal))
}

/// `field` renewed after `edits` (told to `hierarchy`, which is rebuilt), once it has walked
/// from the cells of `walked` that the indices pick; `None` when a sector keeps too many
/// nodes to be built.
fn renewed_after_edits(
    mut field: SectorFlowField,
    (grid, hierarchy): (&mut Grid, &mut Hierarchy),
    (cells, walked): (&[Cell], &[prop::sample::Index]),
    edits: &[(prop::sample::Index, u8, bool)],
) -> Option<SectorFlowField> {
    for start in walked {
        field
            .path_from(hierarchy, grid, cells[start.index(cells.len())])
            .expect("current");
    }
    apply_edits(grid, hierarchy, edits);
    hierarchy
        .build_sectors(grid, usize::MAX)
        .expect("same grid");
    let all_built = (0..hierarchy.sector_count()).all(|s| hierarchy.is_built(s));
    all_built.then(|| field.renewed(hierarchy, grid).expect("built"))
}

/// Where `renewed` and a field made new over `hierarchy` on `grid` (for `renewed`'s goal)
/// disagree on a walkable cell's cost, beyond the rounding of the `f32` costs: the first such
/// cell, with both costs.
fn first_cost_unlike_a_new_field(
    renewed: &mut SectorFlowField,
    (hierarchy, grid): (&Hierarchy, &Grid),
) -> Option<String> {
    let mut fresh = SectorFlowField::new(hierarchy, grid, renewed.goal()).expect("built");
    walkable(grid).into_iter().find_map(|cell| {
        let kept = renewed.cost_at(hierarchy, grid, cell).expect("current");
        let new = fresh.cost_at(hierarchy, grid, cell).expect("current");
        let alike = match (kept, new) {
            (Some(kept), Some(new)) => (kept - new).abs() <= 1e-5 * new.max(1.0),
            (kept, new) => kept.is_none() && new.is_none(),
        };
        (!alike).then(|| format!("at {cell:?}: renewed {kept:?} but new {new:?}"))
    })
}

/// The cost of the route over `hierarchy` between the cells of `cells` that `query` picks,
/// and those cells.
fn route_cost(
    (grid, hierarchy): (&Grid, &Hierarchy),
    searcher: &mut HierarchySearcher,
    cells: &[Cell],
    (start, goal): (prop::sample::Index, prop::sample::Index),
) -> (Option<f64>, (Cell, Cell)) {
    let (start, goal) = (
        cells[start.index(cells.len())],
        cells[goal.index(cells.len())],
    );
    let route = searcher.route(grid, hierarchy, start, goal).expect("valid");
    (route.map(|route| route.cost()), (start, goal))
}

fn walkable(grid: &Grid) -> Vec<Cell> {
    grid.cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Whole and part-built hierarchies: every query against the oracle.
    #[test]
    fn hierarchical_paths_are_legal_and_within_the_bound(
        mut grid in random_grid(22, 22),
        options in options(),
        links in raw_links(),
        built in prop_oneof![Just(usize::MAX), 0usize..12],
        queries in queries(),
    ) {
        add_links(&mut grid, &links);
        let mut hierarchy = Hierarchy::new(&grid, options).expect("valid options");
        hierarchy.build_sectors(&grid, built).expect("same grid");
        let guided = hierarchy.prepare_landmarks(&grid).expect("same grid");
        prop_assert_eq!(guided, hierarchy.has_landmarks());
        prop_assert!(!guided || hierarchy.pending() == 0);
        let cells = walkable(&grid);
        prop_assume!(!cells.is_empty());
        let mut searcher = HierarchySearcher::new();
        for (start, goal) in queries {
            let (start, goal) = (cells[start.index(cells.len())], cells[goal.index(cells.len())]);
            check_query(&grid, &hierarchy, &mut searcher, start, goal)?;
        }
    }

    /// Edits of cells and links, told to the hierarchy: searches stay right while it is partly
    /// rebuilt, and rebuilt it equals one built fresh.
    #[test]
    fn edits_rebuild_to_the_fresh_hierarchy(
        mut grid in random_grid(20, 20),
        options in options(),
        links in raw_links(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..=5, any::<bool>()), 1..=8),
        partial in 0usize..6,
        queries in queries(),
    ) {
        add_links(&mut grid, &links);
        let mut hierarchy = Hierarchy::build(&grid, options).expect("valid options");
        apply_edits(&mut grid, &mut hierarchy, &edits);
        hierarchy.build_sectors(&grid, partial).expect("same grid");
        prop_assert!(!hierarchy.has_landmarks() || hierarchy.pending() == 0);
        hierarchy.prepare_landmarks(&grid).expect("same grid");
        let cells = walkable(&grid);
        let mut searcher = HierarchySearcher::new();
        if !cells.is_empty() {
            for (start, goal) in queries {
                let (start, goal) = (cells[start.index(cells.len())], cells[goal.index(cells.len())]);
                check_query(&grid, &hierarchy, &mut searcher, start, goal)?;
            }
        }
        hierarchy.build_sectors(&grid, usize::MAX).expect("same grid");
        prop_assert_eq!(hierarchy.pending(), 0);
        prop_assert!(hierarchy == Hierarchy::build(&grid, options).expect("valid options"));
    }

    /// Rounds of edits inside sectors large enough to have inner cells, some sectors rebuilt
    /// between rounds: a rebuild keeps the costs the edits cannot have changed, and floods the
    /// rest again, so that the hierarchy equals one built fresh.
    #[test]
    fn rebuilds_that_keep_costs_equal_fresh_builds(
        mut grid in random_grid(36, 36),
        options in large_sector_options(),
        links in raw_links(),
        rounds in prop::collection::vec(
            (
                prop::collection::vec((any::<prop::sample::Index>(), 0u8..=5, any::<bool>()), 1..=4),
                0usize..10,
            ),
            1..=3,
        ),
    ) {
        add_links(&mut grid, &links);
        let mut hierarchy = Hierarchy::build(&grid, options).expect("valid options");
        for (edits, partial) in &rounds {
            apply_edits(&mut grid, &mut hierarchy, edits);
            hierarchy.build_sectors(&grid, *partial).expect("same grid");
        }
        hierarchy.build_sectors(&grid, usize::MAX).expect("same grid");
        prop_assert!(hierarchy == Hierarchy::build(&grid, options).expect("valid options"));
    }

    /// Landmarks only guide the search: the route costs what it costs without them.
    #[test]
    fn landmarks_leave_the_routes_cost_as_it_is(
        mut grid in random_grid(22, 22),
        options in options(),
        links in raw_links(),
        count in 1u8..=6,
        queries in queries(),
    ) {
        add_links(&mut grid, &links);
        let plain = Hierarchy::build(&grid, options.with_landmarks(0)).expect("valid options");
        let guided = Hierarchy::build(&grid, options.with_landmarks(count)).expect("valid options");
        prop_assert!(!plain.has_landmarks());
        let cells = walkable(&grid);
        prop_assume!(!cells.is_empty());
        let mut searcher = HierarchySearcher::new();
        for query in queries {
            let (without, _) = route_cost((&grid, &plain), &mut searcher, &cells, query);
            let (with, _) = route_cost((&grid, &guided), &mut searcher, &cells, query);
            match (without, with) {
                (Some(a), Some(b)) => prop_assert!((a - b).abs() <= 1e-5 * a.max(1.0), "{} without landmarks, {} with", a, b),
                (a, b) => prop_assert_eq!(a, b),
            }
        }
    }

    /// Blocks of sectors only shorten the search: over every kind of grid, cost model, rule and
    /// block size, on hierarchies built whole or in part, with edits waiting or rebuilt in
    /// part, the route costs what it costs without blocks, and refined leg by leg it is legal
    /// and costs what the route says.
    #[test]
    fn blocks_leave_the_routes_cost_as_it_is(
        mut grid in random_grid(34, 34),
        options in options(),
        sectors in 2u32..=4,
        blocks in 2u32..=4,
        links in raw_links(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..=5, any::<bool>()), 0..=3),
        built in prop_oneof![Just(usize::MAX), 0usize..60],
        rebuilt in prop_oneof![Just(usize::MAX), 0usize..8],
        queries in queries(),
    ) {
        add_links(&mut grid, &links);
        let options = options.with_sector_size(sectors);
        let mut plain = Hierarchy::new(&grid, options.with_block_sectors(0)).expect("valid options");
        let mut crossed = Hierarchy::new(&grid, options.with_block_sectors(blocks)).expect("valid options");
        let mut edited = grid.clone();
        for (hierarchy, grid) in [(&mut plain, &mut grid), (&mut crossed, &mut edited)] {
            // Part built (some blocks whole, others not), edited, and part rebuilt.
            hierarchy.build_sectors(grid, built).expect("same grid");
            hierarchy.prepare_landmarks(grid).expect("same grid");
            apply_edits(grid, hierarchy, &edits);
            hierarchy.build_sectors(grid, rebuilt).expect("same grid");
        }
        prop_assert_eq!(plain.built_blocks(), 0);
        let cells = walkable(&grid);
        prop_assume!(!cells.is_empty());
        let mut searcher = HierarchySearcher::new();
        for query in queries {
            let (without, (start, goal)) = route_cost((&grid, &plain), &mut searcher, &cells, query);
            let with = searcher.route(&grid, &crossed, start, goal).expect("valid");
            let Some(mut route) = with else {
                prop_assert_eq!(without, None);
                continue;
            };
            let without = without.ok_or_else(|| TestCaseError::fail("a route only with blocks"))?;
            prop_assert!((without - route.cost()).abs() <= 1e-5 * without.max(1.0), "{} without blocks, {} with", without, route.cost());
            let mut refined = vec![start];
            while !route.is_refined() {
                searcher.refine_next(&grid, &crossed, &mut route, &mut refined).expect("current");
            }
            let walked = legal_cost(&grid, options.movement, options.cost, &refined, start, goal).map_err(TestCaseError::fail)?;
            prop_assert!((walked - route.cost()).abs() <= 1e-5 * walked.max(1.0), "route {}, refined {}", route.cost(), walked);
        }
    }

    /// A route refined a leg at a time is legal, costs what the route says, and no less than
    /// the path a whole search gives (which may search a short path again); its first leg stays
    /// in the start's sector.
    #[test]
    fn a_route_refined_leg_by_leg_is_legal_and_no_cheaper_than_the_whole_path(
        grid in random_grid(22, 22),
        options in options(),
        queries in queries(),
    ) {
        let hierarchy = Hierarchy::build(&grid, options).expect("valid options");
        let cells = walkable(&grid);
        prop_assume!(!cells.is_empty());
        let mut searcher = HierarchySearcher::new();
        for (start, goal) in queries {
            let (start, goal) = (cells[start.index(cells.len())], cells[goal.index(cells.len())]);
            let whole = searcher.find_path(&grid, &hierarchy, start, goal).expect("valid");
            let route = searcher.route(&grid, &hierarchy, start, goal).expect("valid");
            prop_assert_eq!(route.is_some(), whole.found().is_some());
            if let Some(mut route) = route {
                let mut refined = vec![start];
                searcher.refine_next(&grid, &hierarchy, &mut route, &mut refined).expect("current");
                if hierarchy.is_built(hierarchy.sector_of(start).expect("inside")) {
                    prop_assert!(refined.iter().all(|&cell| hierarchy.sector_of(cell) == hierarchy.sector_of(start)));
                }
                while !route.is_refined() {
                    searcher.refine_next(&grid, &hierarchy, &mut route, &mut refined).expect("current");
                }
                let options = *hierarchy.options();
                let walked = legal_cost(&grid, options.movement, options.cost, &refined, start, goal).map_err(TestCaseError::fail)?;
                let tolerance = 1e-6 * walked.max(1.0);
                prop_assert!((walked - route.refined_cost()).abs() <= tolerance);
                let whole_cost = whole.cost().expect("found");
                prop_assert!(whole_cost <= walked + tolerance, "{} whole, {} leg by leg", whole_cost, walked);
            }
        }
    }
}

/// A grid of up to 48 x 48 cells with scattered walls and terrain, crossed by up to six long
/// walls, each with up to two gaps: detours that leave whole sectors off every optimal path.
fn walled_grid() -> impl Strategy<Value = Grid> {
    let wall = (
        any::<bool>(),
        0.0..1.0f64,
        prop::collection::vec(0.0..1.0f64, 0..=2),
    );
    (random_grid(48, 48), prop::collection::vec(wall, 0..=6)).prop_map(|(mut grid, walls)| {
        let (width, height) = (grid.width(), grid.height());
        for (across, at, gaps) in walls {
            let (length, span) = if across {
                (width, height)
            } else {
                (height, width)
            };
            let line = (at * f64::from(span)) as u32;
            let gaps: Vec<u32> = gaps
                .iter()
                .map(|g| (g * f64::from(length)) as u32)
                .collect();
            for along in (0..length).filter(|along| !gaps.contains(along)) {
                let cell = if across {
                    Cell::new(along, line)
                } else {
                    Cell::new(line, along)
                };
                grid.set_cost(cell, 0).expect("inside");
            }
        }
        grid
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Exact searches on walled maps, where the sides' bounds leave sectors out and guide the
    /// search: every query costs the optimum, for every movement rule, cost model, sector size,
    /// terrain, links, and hierarchies built in part.
    #[test]
    fn exact_paths_cost_the_optimum(
        mut grid in walled_grid(),
        options in (3u32..=12, options()).prop_map(|(size, options)| {
            options.with_sector_size(size).with_exact_bounds(true)
        }),
        links in raw_links(),
        built in prop_oneof![3 => Just(usize::MAX), 1 => 0usize..40],
        queries in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..=8),
    ) {
        add_links(&mut grid, &links);
        let mut hierarchy = Hierarchy::new(&grid, options).expect("valid options");
        hierarchy.build_sectors(&grid, built).expect("same grid");
        hierarchy.prepare_landmarks(&grid).expect("same grid");
        let cells = walkable(&grid);
        prop_assume!(!cells.is_empty());
        let mut searcher = HierarchySearcher::new();
        for (start, goal) in queries {
            let (start, goal) = (cells[start.index(cells.len())], cells[goal.index(cells.len())]);
            let optimal = optimal_path(&grid, options.movement, options.cost, start, goal);
            check_exact_query(&grid, &hierarchy, &mut searcher, (start, goal), &optimal)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A sector flow field: every walk along it is legal, reaches the goal exactly when the
    /// oracle does, costs at most what the field said at its first cell, and stays within the
    /// hierarchy's bound; a sector is measured only when a walk reaches it or the cells
    /// around; an edit told to the hierarchy makes the field refuse to answer.
    #[test]
    fn sector_flow_field_walks_are_legal_and_within_the_bound(
        mut grid in random_grid(22, 22),
        options in options(),
        links in raw_links(),
        goal in any::<prop::sample::Index>(),
        starts in prop::collection::vec(any::<prop::sample::Index>(), 1..=6),
    ) {
        add_links(&mut grid, &links);
        let mut hierarchy = Hierarchy::build(&grid, options).expect("valid options");
        let cells = walkable(&grid);
        prop_assume!(!cells.is_empty());
        let goal = cells[goal.index(cells.len())];
        let not_built = (0..hierarchy.sector_count()).filter(|&s| !hierarchy.is_built(s)).count();
        let made = SectorFlowField::new(&hierarchy, &grid, goal);
        if not_built > 0 {
            prop_assert_eq!(made.err(), Some(HierarchyError::NotBuilt(not_built)));
            return Ok(());
        }
        let mut field = made.expect("every sector built");
        prop_assert_eq!(field.sectors_measured(), 0);
        let detour = options.detour_per_crossing(max_terrain(&grid));
        for start in starts {
            let start = cells[start.index(cells.len())];
            let said = field.cost_at(&hierarchy, &grid, start).expect("current");
            let walk = field.path_from(&hierarchy, &grid, start).expect("current");
            let oracle = optimal_path(&grid, options.movement, options.cost, start, goal);
            match (walk, oracle, said) {
                (None, None, None) => {}
                (Some(walk), Some((optimal, optimal_cells)), Some(said)) => {
                    let cost = legal_cost(&grid, options.movement, options.cost, &walk.cells, start, goal)
                        .map_err(TestCaseError::fail)?;
                    let tolerance = 1e-5 * optimal.max(1.0);
                    prop_assert!((cost - walk.cost).abs() <= tolerance, "reported {} but the steps cost {}", walk.cost, cost);
                    prop_assert!(cost >= optimal - tolerance, "cheaper than optimal: {} < {}", cost, optimal);
                    prop_assert!(cost <= said + tolerance, "walk {} dearer than the field said, {}", cost, said);
                    let bound = optimal + crossings(&hierarchy, &optimal_cells) as f64 * detour;
                    prop_assert!(said <= bound + tolerance, "field {} beyond the bound {} (optimal {})", said, bound, optimal);
                }
                (walk, oracle, said) => {
                    return Err(TestCaseError::fail(format!(
                        "walk {:?}, oracle {:?}, field {:?}",
                        walk.map(|p| p.cost), oracle.map(|o| o.0), said
                    )));
                }
            }
        }
        prop_assert!(field.sectors_measured() <= hierarchy.sector_count());
        hierarchy.cells_changed([goal]);
        prop_assert_eq!(field.cost_at(&hierarchy, &grid, goal).err(), Some(HierarchyError::Changed));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A field renewed after edits of cells and links (told to the hierarchy, which is
    /// rebuilt), once or twice in a row, answers as a field made new over the rebuilt
    /// hierarchy: the same cost at every cell but for the rounding of its `f32` costs, and
    /// walks that are legal and cost at most what it says; whatever the sectors each field
    /// had measured.
    #[test]
    fn a_renewed_sector_flow_field_answers_as_a_new_one(
        mut grid in random_grid(22, 22),
        options in options(),
        links in raw_links(),
        goal in any::<prop::sample::Index>(),
        rounds in prop::collection::vec((
            prop::collection::vec(any::<prop::sample::Index>(), 0..=6),
            prop::collection::vec((any::<prop::sample::Index>(), 0u8..=5, any::<bool>()), 1..=3),
        ), 1..=2),
        starts in prop::collection::vec(any::<prop::sample::Index>(), 1..=6),
    ) {
        let Some((mut hierarchy, cells, goal)) = built_with_goal(&mut grid, options, &links, goal) else {
            return Err(TestCaseError::reject("a sector keeps too many nodes, or no cell is walkable"));
        };
        let mut renewed = SectorFlowField::new(&hierarchy, &grid, goal).expect("built");
        for (measured, edits) in rounds {
            let walked = (&cells[..], &measured[..]);
            let Some(next) = renewed_after_edits(renewed, (&mut grid, &mut hierarchy), walked, &edits) else {
                return Err(TestCaseError::reject("a sector keeps too many nodes"));
            };
            renewed = next;
        }
        if let Some(unlike) = first_cost_unlike_a_new_field(&mut renewed, (&hierarchy, &grid)) {
            return Err(TestCaseError::fail(unlike));
        }
        for start in starts {
            let start = cells[start.index(cells.len())];
            if !grid.is_walkable(start) {
                continue;
            }
            let said = renewed.cost_at(&hierarchy, &grid, start).expect("current");
            let walk = renewed.path_from(&hierarchy, &grid, start).expect("current");
            prop_assert_eq!(walk.is_some(), said.is_some());
            if let (Some(walk), Some(said)) = (walk, said) {
                let cost = legal_cost(&grid, options.movement, options.cost, &walk.cells, start, goal)
                    .map_err(TestCaseError::fail)?;
                let tolerance = 1e-5 * said.max(1.0);
                prop_assert!((cost - walk.cost).abs() <= tolerance, "reported {} but the steps cost {}", walk.cost, cost);
                prop_assert!(cost <= said + tolerance, "walk {} dearer than the field said, {}", cost, said);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Walks that join walks a field gave before (and take the rest of them) are the walks a
    /// field that gave none steps: the same cells, at the same cost but for the order of the
    /// sums; for a field made new and for one renewed after edits, whatever the order of the
    /// starts.
    #[test]
    fn walks_that_join_earlier_ones_are_the_walks_stepped_alone(
        mut grid in random_grid(22, 22),
        options in options(),
        links in raw_links(),
        goal in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..=5, any::<bool>()), 0..=3),
        before in prop::collection::vec(any::<prop::sample::Index>(), 0..=6),
        starts in prop::collection::vec(any::<prop::sample::Index>(), 2..=12),
    ) {
        let Some((mut hierarchy, cells, goal)) = built_with_goal(&mut grid, options, &links, goal) else {
            return Err(TestCaseError::reject("a sector keeps too many nodes, or no cell is walkable"));
        };
        let mut field = SectorFlowField::new(&hierarchy, &grid, goal).expect("built");
        if !edits.is_empty() {
            let walked = (&cells[..], &before[..]);
            let Some(next) = renewed_after_edits(field, (&mut grid, &mut hierarchy), walked, &edits) else {
                return Err(TestCaseError::reject("a sector keeps too many nodes"));
            };
            field = next;
        }
        let untouched = field.clone();
        for start in starts {
            let start = cells[start.index(cells.len())];
            let shared = field.path_from(&hierarchy, &grid, start).expect("current");
            let alone = untouched.clone().path_from(&hierarchy, &grid, start).expect("current");
            match (shared, alone) {
                (None, None) => {}
                (Some(shared), Some(alone)) => {
                    prop_assert_eq!(&shared.cells, &alone.cells, "from {:?}", start);
                    prop_assert!(
                        (shared.cost - alone.cost).abs() <= 1e-9 * alone.cost.max(1.0),
                        "from {:?}: {} joined, {} alone", start, shared.cost, alone.cost
                    );
                }
                (shared, alone) => {
                    return Err(TestCaseError::fail(format!(
                        "from {start:?}: joined {:?}, alone {:?}",
                        shared.map(|p| p.cost), alone.map(|p| p.cost)
                    )));
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A view answers as its field does, in the measured sectors and nowhere else; once the
    /// field measured ahead, a walk from every measured cell is answered whole, and a field
    /// renewed after edits measures again every sector the one before had measured.
    #[test]
    fn a_view_answers_as_its_field_for_every_measured_cell_and_nowhere_else(
        mut grid in random_grid(22, 22),
        options in options(),
        links in raw_links(),
        goal in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..=5, any::<bool>()), 0..=3),
        before in prop::collection::vec(any::<prop::sample::Index>(), 0..=6),
        starts in prop::collection::vec(any::<prop::sample::Index>(), 0..=4),
        ahead in any::<bool>(),
    ) {
        let Some((mut hierarchy, cells, goal)) = built_with_goal(&mut grid, options, &links, goal) else {
            return Err(TestCaseError::reject("a sector keeps too many nodes, or no cell is walkable"));
        };
        let mut field = SectorFlowField::new(&hierarchy, &grid, goal).expect("built");
        let mut measured_before = Vec::new();
        if !edits.is_empty() {
            let walked = (&cells[..], &before[..]);
            let old_grid = grid.clone();
            let Some(next) = renewed_after_edits(field, (&mut grid, &mut hierarchy), walked, &edits) else {
                return Err(TestCaseError::reject("a sector keeps too many nodes"));
            };
            // The sectors the field had measured before the edits (its walks measured them).
            let old = Hierarchy::build(&old_grid, options).expect("valid options");
            let mut replay = SectorFlowField::new(&old, &old_grid, goal).expect("built");
            for start in &before {
                replay.path_from(&old, &old_grid, cells[start.index(cells.len())]).expect("current");
            }
            let replayed = replay.view(&old).expect("current");
            measured_before = cells.iter().copied().filter(|&cell| replayed.is_measured(cell)).collect();
            field = next;
        }
        for start in &starts {
            field.path_from(&hierarchy, &grid, cells[start.index(cells.len())]).expect("current");
        }
        if ahead {
            // A few sectors at a time, as a caller spreading the work does.
            while field.measure_ahead(&hierarchy, &grid, 2).expect("current") == 2 {}
            for &cell in &measured_before {
                let view = field.view(&hierarchy).expect("current");
                prop_assert!(view.is_measured(cell), "{:?} was measured before the edits", cell);
            }
        }
        let view = field.view(&hierarchy).expect("current");
        let untouched = field.clone();
        for (cell, _) in grid.cells() {
            let measured = view.is_measured(cell);
            let read = view.cost_at(cell);
            if !measured {
                prop_assert_eq!(read, None);
                prop_assert_eq!(view.path_from(&grid, cell), None);
                continue;
            }
            // The field reads a measured sector without measuring anything more.
            let mut own = untouched.clone();
            prop_assert_eq!(read, own.cost_at(&hierarchy, &grid, cell).expect("current"));
            let next = view.next_step(&grid, cell);
            prop_assert_eq!(next, own.next_step(&hierarchy, &grid, cell).expect("current"));
            prop_assert_eq!(view.next_measured_step(cell), next);
            let walk = view.path_from(&grid, cell);
            if ahead || walk.is_some() {
                let alone = own.path_from(&hierarchy, &grid, cell).expect("current");
                prop_assert_eq!(walk.is_some(), alone.is_some(), "from {:?}", cell);
                if let (Some(walk), Some(alone)) = (walk, alone) {
                    prop_assert_eq!(&walk.cells, &alone.cells, "from {:?}", cell);
                    prop_assert!((walk.cost - alone.cost).abs() <= 1e-9 * alone.cost.max(1.0));
                }
            }
        }
    }
}

#[test]
fn a_sector_flow_field_measures_only_the_sectors_it_is_asked_about() {
    let grid = Grid::new(64, 64);
    let options = HierarchyOptions::default().with_sector_size(8);
    let hierarchy = Hierarchy::build(&grid, options).expect("valid options");
    let mut field = SectorFlowField::new(&hierarchy, &grid, Cell::new(60, 60)).expect("built");
    // A cell in the sector next to the goal's: that sector only.
    let near = field
        .cost_at(&hierarchy, &grid, Cell::new(52, 60))
        .expect("current");
    assert!(near.is_some_and(|cost| cost >= 8.0));
    assert_eq!(field.sectors_measured(), 1);
    // A walk from the far corner measures the sectors along its way and beside it, not all 64.
    let walk = field
        .path_from(&hierarchy, &grid, Cell::new(1, 1))
        .expect("current")
        .expect("open grid");
    assert_eq!(walk.cells.last(), Some(&Cell::new(60, 60)));
    let measured = field.sectors_measured();
    assert!((8..=30).contains(&measured), "{measured} sectors measured");
    // Off the grid and off the hierarchy's grid size.
    assert_eq!(
        SectorFlowField::new(&hierarchy, &grid, Cell::new(64, 0)).err(),
        Some(HierarchyError::OffGrid(Cell::new(64, 0)))
    );
    assert!(matches!(
        field.cost_at(&hierarchy, &Grid::new(10, 10), Cell::new(1, 1)),
        Err(HierarchyError::GridSize { .. })
    ));
    assert_eq!(
        field.cost_at(&hierarchy, &grid, Cell::new(99, 99)),
        Ok(None)
    );
}

#[test]
fn a_walk_that_comes_round_along_zero_cost_links_is_finished_by_a_search() {
    // Four one-way links of cost 0: ties between the sector's flood and the search over the
    // nodes send the walk from (0, 0) round (1, 2) and (1, 0) and back.
    let mut grid = Grid::new(2, 3);
    for (from, to) in [
        ((1, 0), (0, 0)),
        ((0, 0), (1, 2)),
        ((1, 0), (0, 1)),
        ((1, 2), (1, 0)),
    ] {
        let link = Link::new(Cell::new(from.0, from.1), Cell::new(to.0, to.1), 0.0).one_way();
        grid.add_link(link).expect("ends walkable");
    }
    let options = HierarchyOptions::default()
        .with_sector_size(2)
        .with_entrance_spacing(1)
        .with_movement(Movement::FOUR);
    let hierarchy = Hierarchy::build(&grid, options).expect("valid options");
    let (start, goal) = (Cell::new(0, 0), Cell::new(0, 1));
    let mut field = SectorFlowField::new(&hierarchy, &grid, goal).expect("built");
    let walk = field
        .path_from(&hierarchy, &grid, start)
        .expect("current")
        .expect("reachable");
    let cost = legal_cost(
        &grid,
        options.movement,
        options.cost,
        &walk.cells,
        start,
        goal,
    )
    .expect("legal");
    assert_eq!((cost, walk.cost), (0.0, 0.0));
}

#[test]
fn a_field_refuses_a_copy_of_its_hierarchy_built_differently() {
    let open = Grid::new(16, 8);
    let mut walled = Grid::new(16, 8);
    walled.fill_rect(Cell::new(7, 0), Cell::new(8, 6), 0);
    let options = HierarchyOptions::default()
        .with_sector_size(8)
        .with_entrance_spacing(1);
    let mut first = Hierarchy::new(&open, options).expect("valid options");
    let mut second = first.clone();
    first.build_sectors(&open, usize::MAX).expect("same size");
    second
        .build_sectors(&walled, usize::MAX)
        .expect("same size");
    let mut field = SectorFlowField::new(&first, &open, Cell::new(15, 0)).expect("built");
    assert_eq!(
        field.cost_at(&second, &walled, Cell::new(0, 0)),
        Err(HierarchyError::Changed)
    );
    // A copy made after the build is the same hierarchy.
    let copy = first.clone();
    assert!(
        field
            .cost_at(&copy, &open, Cell::new(0, 0))
            .is_ok_and(|cost| cost.is_some())
    );
}

#[test]
fn bad_options_and_grids_are_refused() {
    let grid = Grid::new(10, 10);
    let refused = |options| Hierarchy::new(&grid, options).err();
    let options = HierarchyOptions::default();
    assert_eq!(
        refused(options.with_sector_size(1)),
        Some(HierarchyError::SectorSize(1))
    );
    assert_eq!(
        refused(options.with_sector_size(129)),
        Some(HierarchyError::SectorSize(129))
    );
    assert_eq!(
        refused(options.with_entrance_spacing(0)),
        Some(HierarchyError::EntranceSpacing)
    );
    let zero = CostModel::Integer {
        straight: 0,
        diagonal: 1,
    };
    assert_eq!(
        refused(options.with_cost(zero)),
        Some(HierarchyError::InvalidCostModel)
    );

    let mut hierarchy = Hierarchy::new(&grid, options).expect("valid");
    let other = Grid::new(11, 10);
    assert_eq!(
        hierarchy.build_sectors(&other, 1),
        Err(HierarchyError::GridSize {
            expected: (10, 10),
            found: (11, 10)
        })
    );
    let mut searcher = HierarchySearcher::new();
    assert!(matches!(
        searcher.find_path(&other, &hierarchy, Cell::new(0, 0), Cell::new(1, 1)),
        Err(SearchError::Unsupported(_))
    ));
    let mut walled = grid.clone();
    walled.set_blocked(Cell::new(3, 3), true).expect("inside");
    assert_eq!(
        searcher.find_path(&walled, &hierarchy, Cell::new(3, 3), Cell::new(1, 1)),
        Err(SearchError::StartBlocked(Cell::new(3, 3)))
    );
    assert_eq!(
        searcher.find_path(&grid, &hierarchy, Cell::new(0, 0), Cell::new(10, 1)),
        Err(SearchError::GoalOutOfBounds(Cell::new(10, 1)))
    );
    // Exact searches need the sides' bounds, and refuse bad ends as the others do.
    hierarchy
        .build_sectors(&grid, usize::MAX)
        .expect("same grid");
    assert!(matches!(
        searcher.find_exact_path(&grid, &hierarchy, Cell::new(0, 0), Cell::new(1, 1)),
        Err(SearchError::Unsupported(_))
    ));
    let bounded = Hierarchy::build(&grid, options.with_exact_bounds(true)).expect("valid");
    assert_eq!(
        searcher.find_exact_path(&walled, &bounded, Cell::new(3, 3), Cell::new(1, 1)),
        Err(SearchError::StartBlocked(Cell::new(3, 3)))
    );
    assert!(
        searcher
            .find_exact_path(&grid, &bounded, Cell::new(0, 0), Cell::new(9, 9))
            .expect("open grid")
            .found()
            .is_some()
    );
}

#[test]
fn an_edit_not_told_to_the_hierarchy_is_an_error_not_an_illegal_path() {
    let mut grid = Grid::new(16, 4);
    let options = HierarchyOptions::default().with_sector_size(4);
    let hierarchy = Hierarchy::build(&grid, options).expect("valid");
    // Wall off the middle of a sector the straight route crosses, without telling.
    grid.fill_rect(Cell::new(6, 0), Cell::new(6, 3), 0);
    let mut searcher = HierarchySearcher::new();
    let result = searcher.find_path(&grid, &hierarchy, Cell::new(0, 1), Cell::new(15, 1));
    assert!(
        matches!(result, Err(SearchError::Unsupported(_))),
        "{result:?}"
    );
}

#[test]
fn an_empty_grid_is_refused_and_a_tiny_one_searched() {
    let empty = Grid::new(0, 0);
    let hierarchy = Hierarchy::build(&empty, HierarchyOptions::default()).expect("valid");
    assert_eq!(hierarchy.sector_count(), 0);
    let mut searcher = HierarchySearcher::new();
    assert_eq!(
        searcher.find_path(&empty, &hierarchy, Cell::new(0, 0), Cell::new(0, 0)),
        Err(SearchError::EmptyGrid)
    );
    let one = Grid::new(1, 1);
    let hierarchy = Hierarchy::build(&one, HierarchyOptions::default()).expect("valid");
    let result = searcher
        .find_path(&one, &hierarchy, Cell::new(0, 0), Cell::new(0, 0))
        .expect("valid");
    assert_eq!(
        result.found().map(|path| path.cells.clone()),
        Some(vec![Cell::new(0, 0)])
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A field that had searched every node, renewed after edits on a map without links (where
    /// the renewal repairs its search over the nodes instead of running it again), answers as
    /// a field made new over the rebuilt hierarchy at every cell, once or twice in a row; and
    /// its walks are legal and cost at most what it says. Small sectors put most edits on a
    /// sector's border or corner, where the steps between the sectors beside it change.
    #[test]
    fn a_sector_flow_field_repaired_after_edits_answers_as_a_new_one(
        mut grid in random_grid(20, 20),
        options in options(),
        goal in any::<prop::sample::Index>(),
        rounds in prop::collection::vec(
            prop::collection::vec((any::<prop::sample::Index>(), 0u8..=5, Just(false)), 1..=4),
            1..=2,
        ),
    ) {
        let Some((mut hierarchy, cells, goal)) = built_with_goal(&mut grid, options, &[], goal) else {
            return Err(TestCaseError::reject("a sector keeps too many nodes, or no cell is walkable"));
        };
        let mut renewed = SectorFlowField::new(&hierarchy, &grid, goal).expect("built");
        for edits in rounds {
            // Every sector measured: the search over the nodes has run out.
            for cell in walkable(&grid) {
                renewed.cost_at(&hierarchy, &grid, cell).expect("current");
            }
            let walked = (&cells[..], &[][..]);
            let Some(next) = renewed_after_edits(renewed, (&mut grid, &mut hierarchy), walked, &edits) else {
                return Err(TestCaseError::reject("a sector keeps too many nodes"));
            };
            renewed = next;
        }
        if let Some(unlike) = first_cost_unlike_a_new_field(&mut renewed, (&hierarchy, &grid)) {
            return Err(TestCaseError::fail(format!("{unlike} ({} nodes kept)", renewed.nodes_kept())));
        }
        for cell in walkable(&grid) {
            let kept = renewed.cost_at(&hierarchy, &grid, cell).expect("current");
            let said = kept.unwrap_or(f64::INFINITY);
            if let Some(walk) = renewed.path_from(&hierarchy, &grid, cell).expect("current") {
                let cost = legal_cost(&grid, options.movement, options.cost, &walk.cells, cell, goal)
                    .map_err(TestCaseError::fail)?;
                prop_assert!(cost <= said + 1e-5 * said.max(1.0), "walk {} dearer than said, {}", cost, said);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A view patched for edits (costs changed, cells blocked or opened; no links) walks legally
    /// to the goal from every cell it gives a cost, on the edited grid, at no less than the
    /// optimum there (the costs it gives are the field's ways as found before the edits, which
    /// the walks may no longer cost); cells of sectors no edit lies within a cell of keep their costs and, when
    /// they had one, a walk. Where the edits lie within a cell of no measured sector, it is
    /// given, and answers as the view.
    #[test]
    fn a_view_patched_for_edits_walks_legally_to_the_goal(
        mut grid in random_grid(20, 20),
        options in options(),
        goal in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..=5), 1..=4),
        starts in prop::collection::vec(any::<prop::sample::Index>(), 0..=4),
        everywhere in any::<bool>(),
    ) {
        let Some((hierarchy, cells, goal)) = built_with_goal(&mut grid, options, &[], goal) else {
            return Err(TestCaseError::reject("a sector keeps too many nodes, or no cell is walkable"));
        };
        let mut field = SectorFlowField::new(&hierarchy, &grid, goal).expect("built");
        let starts: Vec<Cell> = if everywhere {
            cells.clone()
        } else {
            starts.iter().map(|start| cells[start.index(cells.len())]).collect()
        };
        for &start in &starts {
            field.cost_at(&hierarchy, &grid, start).expect("current");
        }
        while field.measure_ahead(&hierarchy, &grid, 3).expect("current") == 3 {}
        let view = field.view(&hierarchy).expect("current");
        let mut edited = grid.clone();
        let (width, height) = (grid.width(), grid.height());
        let changed: Vec<Cell> = edits
            .iter()
            .map(|&(place, value)| {
                let index = place.index((width * height) as usize) as u32;
                let cell = Cell::new(index % width, index / width);
                edited.set_cost(cell, value).expect("inside");
                cell
            })
            .collect();
        let near_an_edit = |cell: Cell| {
            changed.iter().any(|edit| {
                (-1..=1).any(|dy| (-1..=1).any(|dx| {
                    edit.offset(dx, dy).and_then(|near| hierarchy.sector_of(near))
                        == hierarchy.sector_of(cell)
                }))
            })
        };
        let untouched = grid.cells().all(|(cell, _)| !view.is_measured(cell) || !near_an_edit(cell));
        let Some(patched) = view.patched((&grid, &edited), &changed) else {
            prop_assert!(!untouched, "refused though no edit lies within a cell of a measured sector");
            return Ok(());
        };
        prop_assert!(view.patched((&grid, &edited), &changed).is_some());
        prop_assert!(patched.patched((&edited, &edited), &[]).is_none(), "patched twice");
        for (cell, _) in edited.cells() {
            prop_assert_eq!(patched.is_measured(cell), view.is_measured(cell));
            let cost = patched.cost_at(cell);
            if !near_an_edit(cell) {
                prop_assert_eq!(cost, view.cost_at(cell), "at {:?}, away from the edits", cell);
            }
            if untouched {
                prop_assert_eq!(patched.next_measured_step(cell), view.next_measured_step(cell));
            }
            let Some(said) = cost else {
                continue;
            };
            let walk = patched.path_from(&edited, cell);
            let Some(walk) = walk else {
                return Err(TestCaseError::fail(format!("no walk from {cell:?}, which costs {said}")));
            };
            let walked = legal_cost(&edited, options.movement, options.cost, &walk.cells, cell, goal)
                .map_err(TestCaseError::fail)?;
            let optimum = optimal_path(&edited, options.movement, options.cost, cell, goal)
                .map(|(optimum, _)| optimum);
            prop_assert!(optimum.is_some_and(|optimum| walked >= optimum - 1e-6 * optimum.max(1.0)));
            prop_assert!(said.is_finite());
        }
    }
}

/// A tower that leaves the walks entering its sector only a way out that leads back round to
/// where they entered (the way the field had found from the top of the sector runs through the
/// sector before it): no view is patched, since its walks would come round for ever.
#[test]
fn no_view_is_patched_where_walks_would_come_round() {
    // Three 8-cell sectors a row, two rows. A corridor along y = 12 to the goal at its east
    // end, and a bypass along y = 15. In the middle lower sector, a winding way from the
    // corridor up to the sector's top, where a loop through the sectors above leads back
    // down to the corridor west of it, shorter than the winding way back.
    let rows = [
        "........................",
        "........................",
        "........................",
        "........................",
        "........................",
        "........................",
        "........................",
        ".....#####..............",
        ".....#...#######........",
        ".....#.........#........",
        ".....#..########........",
        ".....#..#...............",
        "########################",
        "#......................#",
        "#......................#",
        "########################",
    ];
    let grid = Grid::from_fn(24, 16, |cell| {
        u8::from(rows[cell.y as usize].as_bytes()[cell.x as usize] == b'#')
    });
    let options = HierarchyOptions::default().with_sector_size(8);
    let hierarchy = Hierarchy::build(&grid, options).expect("valid options");
    let goal = Cell::new(23, 12);
    let mut field = SectorFlowField::new(&hierarchy, &grid, goal).expect("built");
    for cell in walkable(&grid) {
        field.cost_at(&hierarchy, &grid, cell).expect("current");
    }
    let view = field.view(&hierarchy).expect("current");
    let tower = Cell::new(12, 12);
    let before = view
        .path_from(&grid, Cell::new(0, 12))
        .expect("along the corridor");
    assert!(before.cells.contains(&tower));
    // The top of the winding way heads up into the loop, not down the winding way.
    assert_eq!(
        view.next_step(&grid, Cell::new(9, 8)),
        Some(Cell::new(9, 7))
    );
    let mut towered = grid.clone();
    towered.set_cost(tower, 0).expect("inside");
    assert!(view.patched((&grid, &towered), &[tower]).is_none());
    // Dearer ground on the corridor past the sector cuts no walk: patched, the walks go on
    // along the corridor.
    let mut dearer = grid.clone();
    let ground = Cell::new(20, 12);
    dearer.set_cost(ground, 3).expect("inside");
    let patched = view
        .patched((&grid, &dearer), &[ground])
        .expect("no walk cut");
    let after = patched
        .path_from(&dearer, Cell::new(0, 12))
        .expect("along the corridor");
    assert_eq!(after.cells, before.cells);
    assert!((after.cost - before.cost - 2.0).abs() < 1e-9);
}

/// A wall built far from the goal, on a field that had searched every node: the renewal keeps
/// the cost and way of every node whose way to the goal does not pass the wall's sector or
/// one beside it, searches the rest from them, and answers as a field made new.
#[test]
fn a_renewal_keeps_the_nodes_whose_way_does_not_pass_an_edit() {
    let mut grid = Grid::new(96, 24);
    let options = HierarchyOptions::default().with_sector_size(8);
    let mut hierarchy = Hierarchy::build(&grid, options).expect("valid options");
    let goal = Cell::new(94, 12);
    let mut field = SectorFlowField::new(&hierarchy, &grid, goal).expect("built");
    field
        .cost_at(&hierarchy, &grid, Cell::new(1, 1))
        .expect("current");
    grid.fill_rect(Cell::new(10, 0), Cell::new(10, 20), 0);
    hierarchy.cells_changed((0..=20).map(|y| Cell::new(10, y)));
    hierarchy
        .build_sectors(&grid, usize::MAX)
        .expect("same grid");
    let mut renewed = field.renewed(&hierarchy, &grid).expect("built");
    let total_nodes: usize = (0..hierarchy.sector_count())
        .map(|sector| hierarchy.sector_nodes(sector).len())
        .sum();
    // Only the sectors the wall stands in were rebuilt: the ways of the nodes east of them
    // cross none.
    assert!(
        renewed.nodes_kept() > total_nodes / 2,
        "{} of {total_nodes}",
        renewed.nodes_kept()
    );
    assert!(renewed.nodes_kept() < total_nodes);
    assert_eq!(
        first_cost_unlike_a_new_field(&mut renewed, (&hierarchy, &grid)),
        None
    );
}

/// The only ways out of a corner sector pass the corner where four sectors meet: a diagonal
/// step into the sector across it, and steps through the corner cells of the two sectors
/// beside. Blocking the corner cell of one sector beside makes the diagonal step illegal too
/// (no corner may be cut): the renewal searches again the ways that took it, though the edit
/// lies in neither sector the step joins, and answers as a field made new.
#[test]
fn a_renewal_searches_again_the_ways_past_a_corner_that_an_edit_beside_them_closed() {
    let mut grid = Grid::from_fn(24, 24, |cell| {
        let beside =
            (cell.x >= 4 && cell.x < 8 && cell.y < 4) || (cell.x < 4 && cell.y >= 4 && cell.y < 8);
        u8::from(!beside || cell == Cell::new(4, 3) || cell == Cell::new(3, 4))
    });
    let options = HierarchyOptions::default().with_sector_size(4);
    let mut hierarchy = Hierarchy::build(&grid, options).expect("valid options");
    let goal = Cell::new(22, 22);
    let mut field = SectorFlowField::new(&hierarchy, &grid, goal).expect("built");
    for cell in walkable(&grid) {
        field.cost_at(&hierarchy, &grid, cell).expect("current");
    }
    grid.set_cost(Cell::new(4, 3), 0).expect("inside");
    hierarchy.cells_changed([Cell::new(4, 3)]);
    hierarchy
        .build_sectors(&grid, usize::MAX)
        .expect("same grid");
    let mut renewed = field.renewed(&hierarchy, &grid).expect("built");
    assert!(renewed.nodes_kept() > 0, "repaired, not searched anew");
    assert_eq!(
        first_cost_unlike_a_new_field(&mut renewed, (&hierarchy, &grid)),
        None
    );
}

/// Checks [`HierarchySearcher::first_cells`] from `start` to `goal` against the oracle: cells
/// exactly when the goal can be reached, a legal walk from the start costing what they report,
/// inside the start's sector but for the last cell, which leaves it, is the goal or is another
/// of the sector's nodes, and from which the goal can be reached.
fn check_first_cells(
    (grid, hierarchy): (&Grid, &Hierarchy),
    searcher: &mut HierarchySearcher,
    (start, goal): (Cell, Cell),
) -> Result<(), TestCaseError> {
    let options = *hierarchy.options();
    let quick = searcher
        .quick_first_cells(grid, hierarchy, start, goal)
        .map_err(|error| TestCaseError::fail(error.to_string()))?;
    let first = searcher
        .first_cells(grid, hierarchy, start, goal)
        .map_err(|error| TestCaseError::fail(error.to_string()))?;
    match &quick {
        QuickFirstCells::Cells(path) => prop_assert_eq!(Some(path), first.as_ref()),
        QuickFirstCells::Unreachable => prop_assert!(first.is_none()),
        // Only where the documented cases leave the answer to the search over the nodes.
        QuickFirstCells::NeedsRoute => prop_assert!(
            hierarchy.sector_of(start) == hierarchy.sector_of(goal)
                || hierarchy.pending() > 0
                || !grid.links().is_empty(),
            "the quick first cells from {} to {} fell back on a built hierarchy",
            start,
            goal
        ),
        _ => prop_assert!(false, "an answer the test does not know"),
    }
    let reachable = optimal_path(grid, options.movement, options.cost, start, goal).is_some();
    let Some(first) = first else {
        prop_assert!(
            !reachable,
            "no first cells from {} to {}, which it reaches",
            start,
            goal
        );
        return Ok(());
    };
    prop_assert!(
        reachable,
        "first cells from {} to {}, which it cannot reach",
        start,
        goal
    );
    let last = *first.cells.last().expect("at least the start");
    let walked = legal_cost(
        grid,
        options.movement,
        options.cost,
        &first.cells,
        start,
        last,
    )
    .map_err(TestCaseError::fail)?;
    prop_assert!(
        (walked - first.cost).abs() <= 1e-6 * walked.max(1.0),
        "reported {} but the steps cost {}",
        first.cost,
        walked
    );
    let home = hierarchy.sector_of(start);
    let before_last = &first.cells[..first.cells.len() - 1];
    prop_assert!(
        before_last
            .iter()
            .all(|&cell| hierarchy.sector_of(cell) == home),
        "{:?} leaves the start's sector before its last cell",
        first.cells
    );
    let on_border = home.is_some_and(|home| hierarchy.sector_nodes(home).contains(&last));
    prop_assert!(
        hierarchy.sector_of(last) != home || last == goal || (on_border && last != start),
        "{:?} ends inside the start's sector, short of the goal and of its nodes",
        first.cells
    );
    prop_assert!(
        optimal_path(grid, options.movement, options.cost, last, goal).is_some(),
        "the goal {} cannot be reached from the last first cell {}",
        goal,
        last
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The first cells, on walled maps (sectors split into several regions) and small random
    /// ones, for every movement rule, cost model, sector size, terrain, links, and hierarchies
    /// built in part, before and after edits rebuilt in part: against the oracle.
    #[test]
    fn first_cells_are_legal_leave_the_start_sector_and_still_reach_the_goal(
        mut grid in prop_oneof![walled_grid(), random_grid(22, 22)],
        options in (2u32..=12, options()).prop_map(|(size, options)| options.with_sector_size(size)),
        links in prop_oneof![3 => Just(Vec::new()), 1 => raw_links()],
        built in prop_oneof![3 => Just(usize::MAX), 1 => 0usize..40],
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..=3, Just(false)), 0..=12),
        rebuilt in prop_oneof![Just(usize::MAX), 0usize..12],
        queries in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..=8),
    ) {
        add_links(&mut grid, &links);
        let mut hierarchy = Hierarchy::new(&grid, options).expect("valid options");
        hierarchy.build_sectors(&grid, built).expect("same grid");
        if !edits.is_empty() {
            hierarchy.build_sectors(&grid, usize::MAX).expect("same grid");
            apply_edits(&mut grid, &mut hierarchy, &edits);
            hierarchy.build_sectors(&grid, rebuilt).expect("same grid");
        }
        let cells = walkable(&grid);
        prop_assume!(!cells.is_empty());
        let mut searcher = HierarchySearcher::new();
        for (start, goal) in queries {
            let (start, goal) = (cells[start.index(cells.len())], cells[goal.index(cells.len())]);
            check_first_cells((&grid, &hierarchy), &mut searcher, (start, goal))?;
        }
    }
}

/// The first cells go onto the region of the next sector that the route goes on, not onto a
/// pocket of that sector beside it, even when the pocket's entrance lies as near the goal.
#[test]
fn first_cells_enter_the_region_the_route_goes_on_not_a_pocket_beside_it() {
    // Two sectors of 8 x 8. The right one is cut by a wall: its top is a pocket that only the
    // left sector enters, and its bottom, where the goal is, is entered at the last row.
    let grid = Grid::from_ascii(
        "................
         ................
         ................
         ................
         ........########
         .......#........
         .......#........
         ................",
    )
    .expect("valid map");
    let options = HierarchyOptions::default()
        .with_sector_size(8)
        .with_entrance_spacing(2)
        .with_landmarks(0);
    let hierarchy = Hierarchy::build(&grid, options).expect("valid options");
    let (start, goal) = (Cell::new(0, 3), Cell::new(15, 5));
    let first = HierarchySearcher::new()
        .first_cells(&grid, &hierarchy, start, goal)
        .expect("valid query")
        .expect("the goal is reached along the bottom row");
    let last = *first.cells.last().expect("at least the start");
    assert_eq!(last.y, 7, "{:?} enters the pocket", first.cells);
    assert!(optimal_path(&grid, options.movement, options.cost, last, goal).is_some());
}

/// A sector marked by an edit and not yet rebuilt is not crossed on what it was: the first
/// cells see the edit that cut the only way through it.
#[test]
fn first_cells_see_an_edit_before_its_sector_is_rebuilt() {
    // Four sectors in a row along one corridor; the edit cuts it in the third.
    let mut grid = Grid::from_ascii(
        "################################
         ################################
         ################################
         ................................
         ################################
         ################################
         ################################
         ################################",
    )
    .expect("valid map");
    let options = HierarchyOptions::default()
        .with_sector_size(8)
        .with_landmarks(0);
    let mut hierarchy = Hierarchy::build(&grid, options).expect("valid options");
    let (start, goal) = (Cell::new(0, 3), Cell::new(31, 3));
    let mut searcher = HierarchySearcher::new();
    let before = searcher.first_cells(&grid, &hierarchy, start, goal);
    assert!(
        before.expect("valid query").is_some(),
        "the corridor is open"
    );
    let cut = Cell::new(20, 3);
    grid.set_blocked(cut, true).expect("inside");
    hierarchy.cells_changed([cut]);
    let after = searcher.first_cells(&grid, &hierarchy, start, goal);
    assert_eq!(after.expect("valid query"), None, "the corridor is cut");
}
