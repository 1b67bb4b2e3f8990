//! Agent kinds checked against brute force: derived grids against the terrain eroded cell by
//! cell, every algorithm on them against the independent reference search, fat paths and lines
//! of sight against the footprint geometry, incremental updates against rebuilds, connectivity
//! and the tower check against reachability, for every movement rule and any cost model.

pub mod common;

use astar_grid::agent::{AgentError, Endpoint, FootprintProblem, MAX_AGENT_SIZE};
use astar_grid::{
    AgentGrid, Algorithm, Cell, Clearance, Components, CostModel, Engine, FlowField, Grid, Legend,
    Movement, SearchError, SearchOptions, SearchStatus, Searcher, SmoothingOptions, TerrainProfile,
    line_of_sight, parse_map, parse_map_with, smooth_path_cells, write_map,
};
use common::footprint::{check_fat_path, clearance_of, eroded_grid, fat_line_of_sight, fits};
use common::path_check::costs_match;
use common::random_grid::{
    TERRAIN_VALUES, agent_size, any_cost_model, movement, terrain_grid, terrain_profile,
};
use common::reference_search::ReferenceGraph;
use proptest::prelude::*;
use proptest::sample::Index;

/// The anchors of `grid` that are walkable, row by row.
fn walkable_anchors(grid: &Grid) -> Vec<Cell> {
    grid.cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect()
}

/// The agent grid, or the check that it was refused for being larger than the map.
fn agent_or_refusal(
    terrain: &Grid,
    profile: &TerrainProfile,
    size: u8,
) -> Result<Option<AgentGrid>, TestCaseError> {
    match AgentGrid::new(terrain, profile, size) {
        Ok(agent) => Ok(Some(agent)),
        Err(AgentError::LargerThanMap { .. })
            if u32::from(size) > terrain.width().min(terrain.height()) =>
        {
            Ok(None)
        }
        Err(AgentError::NoPassableTerrain) if !profile.has_passable_terrain() => Ok(None),
        Err(error) => Err(TestCaseError::fail(format!("refused: {error}"))),
    }
}

/// Runs every algorithm on the derived grid from `start` to `goal` and checks each against the
/// reference optimum on the eroded grid; jump points may refuse the grid or the options.
fn check_every_algorithm(
    agent: &AgentGrid,
    terrain: &Grid,
    (start, goal): (Cell, Cell),
    options: &SearchOptions,
    optimum: Option<f64>,
) -> Result<(), TestCaseError> {
    for algorithm in Algorithm::OPTIMAL {
        let mut engine = match Engine::new(agent.grid(), algorithm, options) {
            Ok(engine) => engine,
            Err(SearchError::Unsupported(_)) if algorithm == Algorithm::JumpPoint => continue,
            Err(error) => return Err(TestCaseError::fail(format!("{algorithm}: {error}"))),
        };
        let result = engine
            .find_path(start, goal)
            .map_err(|error| TestCaseError::fail(format!("{algorithm}: {error}")))?;
        match (optimum, result.found()) {
            (None, None) => prop_assert_eq!(result.status, SearchStatus::NoPath),
            (Some(optimum), Some(path)) => {
                prop_assert!(
                    costs_match(path.cost, optimum),
                    "{}: cost {} but the reference finds {}",
                    algorithm,
                    path.cost,
                    optimum
                );
                check_fat_path(
                    terrain,
                    agent.profile(),
                    agent.size(),
                    path,
                    (start, goal),
                    options.movement,
                    options.cost,
                )
                .map_err(|problem| TestCaseError::fail(format!("{algorithm}: {problem}")))?;
            }
            (optimum, found) => {
                return Err(TestCaseError::fail(format!(
                    "{algorithm}: found {:?}, the reference optimum is {optimum:?}",
                    found.map(|path| path.cost)
                )));
            }
        }
    }
    Ok(())
}

/// A goal batch on the derived grid: each start's path costs the reference optimum and is legal
/// for the fat agent.
fn check_goal_batch(
    agent: &AgentGrid,
    terrain: &Grid,
    starts: &[Cell],
    goal: Cell,
    (movement, cost): (Movement, CostModel),
    reference: &ReferenceGraph,
) -> Result<(), TestCaseError> {
    let paths = FlowField::paths_to_goal(agent.grid(), starts, goal, movement, cost)
        .map_err(|error| TestCaseError::fail(error.to_string()))?;
    let costs = reference.costs_to(goal);
    for (&start, path) in starts.iter().zip(&paths) {
        let optimum = costs[reference.index(start)];
        prop_assert_eq!(path.is_some(), optimum.is_some(), "from {}", start);
        if let (Some(path), Some(optimum)) = (path, optimum) {
            prop_assert!(costs_match(path.cost, optimum), "from {}", start);
            let (profile, size) = (agent.profile(), agent.size());
            check_fat_path(terrain, profile, size, path, (start, goal), movement, cost)
                .map_err(TestCaseError::fail)?;
        }
    }
    Ok(())
}

/// Random edits: walls, openings, cost changes and other terrain kinds, at cells given as rolls
/// to be reduced modulo the map's size.
fn edit_batches() -> impl Strategy<Value = Vec<Vec<(u32, u32, u8)>>> {
    let value = prop_oneof![
        2 => Just(0u8),
        2 => Just(1u8),
        1 => 2u8..=9,
        2 => prop::sample::select(TERRAIN_VALUES.to_vec()),
    ];
    let edit = (0u32..1000, 0u32..1000, value);
    let batch = prop_oneof![
        4 => prop::collection::vec(edit.clone(), 1..=4),
        1 => prop::collection::vec(edit, 1..=40),
    ];
    prop::collection::vec(batch, 1..=6)
}

/// The anchors whose value differs between two grids of the same size, row by row.
fn differing_cells(before: &Grid, after: &Grid) -> Vec<Cell> {
    before
        .cells()
        .filter(|&(cell, value)| after.value(cell) != value)
        .map(|(cell, _)| cell)
        .collect()
}

/// The anchors on the map whose footprint covers any of `cells`, by looking at every anchor.
fn covering_anchors(terrain: &Grid, size: u8, cells: &[Cell]) -> Vec<Cell> {
    let n = u32::from(size);
    terrain
        .cells()
        .map(|(anchor, _)| anchor)
        .filter(|anchor| {
            cells.iter().any(|cell| {
                (anchor.x..anchor.x + n).contains(&cell.x)
                    && (anchor.y..anchor.y + n).contains(&cell.y)
            })
        })
        .collect()
}

/// What the tower check should say, from reachability on the eroded grids before and after the
/// towers: the goal is taken away (it fits now and no longer would), or some point that reaches
/// the goal now would not.
fn tower_disconnects_by_brute_force(
    terrain: &Grid,
    profile: &TerrainProfile,
    size: u8,
    towers: &[Cell],
    (from, goal): (&[Cell], Cell),
    movement: Movement,
) -> bool {
    let before = eroded_grid(terrain, profile, size);
    // The towers' cells count as impassable, whatever the profile makes of their terrain.
    let mut after = before.clone();
    for anchor in covering_anchors(terrain, size, towers) {
        after.set_cost(anchor, 0).expect("an anchor of the map");
    }
    let reaches = |grid: &Grid, point: Cell| {
        grid.is_walkable(point)
            && grid.is_walkable(goal)
            && ReferenceGraph::new(grid, movement, CostModel::Octile).reachable(point, goal)
    };
    let goal_taken = before.is_walkable(goal) && !after.is_walkable(goal);
    goal_taken
        || from
            .iter()
            .any(|&point| reaches(&before, point) && !reaches(&after, point))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The derived grid is the terrain eroded by the footprint, anchor by anchor, with the
    /// highest profile cost over each footprint; the clearance is the largest square that fits;
    /// `fits` and `footprint_problem` say the same.
    #[test]
    fn derived_grids_are_the_eroded_terrain(
        terrain in terrain_grid(1, 14),
        profile in terrain_profile(),
        size in agent_size(),
    ) {
        let Some(agent) = agent_or_refusal(&terrain, &profile, size)? else {
            return Ok(());
        };
        prop_assert_eq!(agent.grid(), &eroded_grid(&terrain, &profile, size));
        for (cell, value) in agent.grid().cells() {
            let (x, y) = (i64::from(cell.x), i64::from(cell.y));
            prop_assert_eq!(agent.fits(cell), fits(&terrain, &profile, size, x, y));
            prop_assert_eq!(agent.fits(cell), value != 0);
            prop_assert_eq!(agent.footprint_problem(cell).is_none(), value != 0);
            prop_assert_eq!(
                agent.clearance().get(cell),
                clearance_of(&terrain, &profile, MAX_AGENT_SIZE, cell)
            );
        }
    }

    /// A* (with its default heuristic), Dijkstra, jump points where they apply and flow fields
    /// on the derived grid cost what the reference search finds on the eroded grid, and return
    /// paths legal for the fat agent; goal batches too.
    #[test]
    fn fat_searches_cost_what_the_reference_finds_on_the_eroded_grid(
        terrain in terrain_grid(3, 14),
        profile in terrain_profile(),
        size in agent_size(),
        movement in movement(),
        cost in any_cost_model(),
        picks in prop::collection::vec(any::<Index>(), 2..=5),
    ) {
        let Some(agent) = agent_or_refusal(&terrain, &profile, size)? else {
            return Ok(());
        };
        let eroded = eroded_grid(&terrain, &profile, size);
        let anchors = walkable_anchors(&eroded);
        if anchors.is_empty() {
            let nowhere = Cell::new(0, 0);
            let refused = Searcher::new().find_path(agent.grid(), nowhere, nowhere, &SearchOptions::default());
            prop_assert_eq!(refused, Err(SearchError::StartBlocked(nowhere)));
            prop_assert!(agent.check_endpoints(nowhere, nowhere).is_err());
            return Ok(());
        }
        let chosen: Vec<Cell> = picks.iter().map(|pick| *pick.get(&anchors)).collect();
        let (start, goal) = (chosen[0], chosen[1]);
        prop_assert_eq!(agent.check_endpoints(start, goal), Ok(()));
        let options = SearchOptions::default().with_movement(movement).with_cost(cost);
        let reference = ReferenceGraph::new(&eroded, movement, cost);
        let optimum = reference.cost(start, goal);
        check_every_algorithm(&agent, &terrain, (start, goal), &options, optimum)?;
        check_goal_batch(&agent, &terrain, &chosen[1..], start, (movement, cost), &reference)?;
    }

    /// With one-cell agents, a profile search costs what a plain search costs on the terrain
    /// with the profile's costs written in cell by cell.
    #[test]
    fn profile_searches_cost_what_the_written_in_costs_cost(
        terrain in terrain_grid(1, 14),
        profile in terrain_profile(),
        movement in movement(),
        cost in any_cost_model(),
        picks in (any::<Index>(), any::<Index>()),
    ) {
        let Some(agent) = agent_or_refusal(&terrain, &profile, 1)? else {
            return Ok(());
        };
        let written = Grid::from_fn(terrain.width(), terrain.height(), |cell| {
            profile.cost(terrain.value(cell)).unwrap_or(0)
        });
        prop_assert_eq!(agent.grid(), &written);
        let anchors = walkable_anchors(&written);
        if anchors.is_empty() {
            return Ok(());
        }
        let (start, goal) = (*picks.0.get(&anchors), *picks.1.get(&anchors));
        let options = SearchOptions::default().with_movement(movement).with_cost(cost);
        let result = Searcher::new()
            .find_path(agent.grid(), start, goal, &options)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        let optimum = ReferenceGraph::new(&written, movement, cost).cost(start, goal);
        prop_assert_eq!(result.cost().is_some(), optimum.is_some());
        if let (Some(found), Some(optimum)) = (result.cost(), optimum) {
            prop_assert!(costs_match(found, optimum), "{} against {}", found, optimum);
        }
    }

    /// After random sequences of edits (walls, openings, cost changes, other terrain kinds), the
    /// incrementally updated clearance and agent grids of every size equal a rebuild from
    /// scratch, and each update returns exactly the cells whose value changed.
    #[test]
    fn incremental_updates_equal_a_rebuild(
        mut terrain in terrain_grid(1, 12),
        profile in terrain_profile(),
        batches in edit_batches(),
    ) {
        let mut clearance = Clearance::new(&terrain, &profile);
        let mut agents: Vec<AgentGrid> = (1..=MAX_AGENT_SIZE)
            .filter_map(|size| AgentGrid::new(&terrain, &profile, size).ok())
            .collect();
        for batch in batches {
            let cells: Vec<Cell> = batch
                .iter()
                .map(|&(x, y, _)| Cell::new(x % terrain.width(), y % terrain.height()))
                .collect();
            for (&cell, &(_, _, value)) in cells.iter().zip(&batch) {
                terrain.set_cost(cell, value).expect("inside the map");
            }
            let fresh = Clearance::new(&terrain, &profile);
            let expected: Vec<Cell> = terrain
                .cells()
                .map(|(cell, _)| cell)
                .filter(|&cell| clearance.get(cell) != fresh.get(cell))
                .collect();
            prop_assert_eq!(clearance.update(&terrain, &cells), Ok(expected));
            prop_assert_eq!(&clearance, &fresh);
            for agent in &mut agents {
                let rebuilt = AgentGrid::new(&terrain, &profile, agent.size()).expect("built before");
                let expected = differing_cells(agent.grid(), rebuilt.grid());
                prop_assert_eq!(agent.update(&terrain, &cells), Ok(expected), "size {}", agent.size());
                prop_assert_eq!(&*agent, &rebuilt, "size {}", agent.size());
            }
        }
    }

    /// Connectivity labels on the derived grid join exactly the anchors the reference search
    /// connects on the eroded grid, and the tower check (towers turned into anchors by
    /// `anchors_covering`) agrees with reachability before and after the towers.
    #[test]
    fn connectivity_and_the_tower_check_agree_with_reachability_on_the_eroded_grid(
        terrain in terrain_grid(2, 12),
        profile in terrain_profile(),
        size in agent_size(),
        movement in movement(),
        towers in prop::collection::vec((0u32..1000, 0u32..1000), 1..=3),
        points in prop::collection::vec((0u32..1000, 0u32..1000), 2..=5),
    ) {
        let Some(agent) = agent_or_refusal(&terrain, &profile, size)? else {
            return Ok(());
        };
        let on_map = |&(x, y): &(u32, u32)| Cell::new(x % terrain.width(), y % terrain.height());
        let towers: Vec<Cell> = towers.iter().map(on_map).collect();
        let points: Vec<Cell> = points.iter().map(on_map).collect();
        let eroded = eroded_grid(&terrain, &profile, size);
        let labels = Components::new(agent.grid(), movement);
        let reference = ReferenceGraph::new(&eroded, movement, CostModel::Octile);
        for &source in &points {
            let costs = reference.costs_from(source);
            for (cell, value) in eroded.cells() {
                let expected = eroded.is_walkable(source)
                    && value != 0
                    && costs[reference.index(cell)].is_some();
                prop_assert_eq!(labels.same_component(source, cell), expected, "{} {}", source, cell);
            }
        }
        let blocked = agent.anchors_covering(&towers);
        prop_assert_eq!(&blocked, &covering_anchors(&terrain, size, &towers));
        // Many cells at once, with repeats: a third of the map, twice.
        let third: Vec<Cell> = terrain
            .cells()
            .map(|(cell, _)| cell)
            .filter(|cell| (cell.x + cell.y + towers[0].x).is_multiple_of(3))
            .collect();
        let many = [third.as_slice(), third.as_slice()].concat();
        prop_assert_eq!(agent.anchors_covering(&many), covering_anchors(&terrain, size, &many));
        let (goal, from) = (points[0], &points[1..]);
        let expected = tower_disconnects_by_brute_force(
            &terrain, &profile, size, &towers, (from, goal), movement,
        );
        let answer = labels.would_disconnect(&blocked, from, goal)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        prop_assert_eq!(answer, expected);
    }

    /// Line of sight on the derived grid, from an anchor to every cell, is the footprint dragged
    /// along the anchor's line, checked by exact geometry; so every segment smoothing keeps on
    /// the derived grid is one the fat agent can follow.
    #[test]
    fn line_of_sight_on_the_derived_grid_is_the_footprint_along_the_anchor_line(
        terrain in terrain_grid(1, 14),
        profile in terrain_profile(),
        size in agent_size(),
        movement in movement(),
        ends in (0u32..1000, 0u32..1000, any::<Index>(), any::<Index>()),
    ) {
        let Some(agent) = agent_or_refusal(&terrain, &profile, size)? else {
            return Ok(());
        };
        // Mostly between anchors that fit (any two cells when none does), sometimes from anywhere.
        let anchors = walkable_anchors(agent.grid());
        let anywhere = Cell::new(ends.0 % terrain.width(), ends.1 % terrain.height());
        let (a, b) = if anchors.is_empty() {
            (anywhere, Cell::new(ends.1 % terrain.width(), ends.0 % terrain.height()))
        } else if ends.0.is_multiple_of(4) {
            (anywhere, *ends.3.get(&anchors))
        } else {
            (*ends.2.get(&anchors), *ends.3.get(&anchors))
        };
        // From `a` to every cell of the map.
        for (other, _) in terrain.cells() {
            prop_assert_eq!(
                line_of_sight(agent.grid(), a, other, movement),
                fat_line_of_sight(&terrain, &profile, size, (a, other), movement),
                "{} to {}", a, other
            );
        }
        let options = SearchOptions::default().with_movement(movement);
        let Ok(result) = Searcher::new().find_path(agent.grid(), a, b, &options) else {
            return Ok(());
        };
        if let Some(path) = result.found() {
            let kept = smooth_path_cells(agent.grid(), &path.cells, movement, SmoothingOptions::default())
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
            for pair in kept.windows(2) {
                prop_assert!(fat_line_of_sight(&terrain, &profile, size, (pair[0], pair[1]), movement));
            }
        }
    }
}

/// A 2x2 agent stepping diagonally from (0, 0) to (1, 1) sweeps the 3x3 block; the block's two
/// cells outside both footprints are (2, 0) and (0, 2). One of them blocked: only the looser
/// corner rules allow the step; both blocked: only `Any`.
#[test]
fn a_fat_agent_clips_a_corner_only_under_the_looser_rules() {
    use astar_grid::CornerRule;
    let profile = TerrainProfile::identity();
    let one_corner = Grid::from_ascii("..#\n...\n...").expect("a grid");
    let both_corners = Grid::from_ascii("..#\n...\n#..").expect("a grid");
    let (from, to) = (Cell::new(0, 0), Cell::new(1, 1));
    let allowed = |terrain: &Grid, corners: CornerRule| {
        let agent = AgentGrid::new(terrain, &profile, 2).expect("fits");
        Movement::eight(corners).allows_step_on(agent.grid(), from, to)
    };
    assert!(!allowed(&one_corner, CornerRule::Both));
    assert!(allowed(&one_corner, CornerRule::One));
    assert!(allowed(&one_corner, CornerRule::Any));
    assert!(!allowed(&both_corners, CornerRule::One));
    assert!(allowed(&both_corners, CornerRule::Any));
    let open = Grid::new(3, 3);
    assert!(allowed(&open, CornerRule::Both));
}

/// A size-2 flow field reaches the goal round the 1-cell gap, as the eroded grid says.
#[test]
fn a_boss_takes_the_long_way_round_a_one_cell_gap() {
    let terrain = Grid::from_ascii(
        "...#...
         .......
         ...#...
         ...#...
         .......
         .......",
    )
    .expect("a grid");
    let boss = AgentGrid::new(&terrain, &TerrainProfile::identity(), 2).expect("fits");
    let field = FlowField::build(
        boss.grid(),
        &[Cell::new(5, 0)],
        Movement::EIGHT,
        CostModel::Octile,
    )
    .expect("a field");
    let path = field.path_from(Cell::new(0, 0)).expect("round the wall");
    assert!(path.cells.iter().any(|anchor| anchor.y >= 4), "{path:?}");
    let eroded = eroded_grid(&terrain, &TerrainProfile::identity(), 2);
    let optimum = ReferenceGraph::new(&eroded, Movement::EIGHT, CostModel::Octile)
        .cost(Cell::new(0, 0), Cell::new(5, 0))
        .expect("reachable");
    assert!(costs_match(path.cost, optimum));
    let point = AgentGrid::new(&terrain, &TerrainProfile::identity(), 1).expect("fits");
    let squeezed = FlowField::build(
        point.grid(),
        &[Cell::new(5, 0)],
        Movement::EIGHT,
        CostModel::Octile,
    )
    .expect("a field");
    assert!(squeezed.cost_at(Cell::new(0, 0)) < field.cost_at(Cell::new(0, 0)));
}

#[test]
fn each_bad_request_gets_its_typed_error() {
    let terrain = Grid::from_ascii("....\n.#..\n....").expect("a grid");
    let identity = TerrainProfile::identity();
    for size in [0, MAX_AGENT_SIZE + 1, u8::MAX] {
        assert_eq!(
            AgentGrid::new(&terrain, &identity, size),
            Err(AgentError::InvalidSize { size })
        );
    }
    assert_eq!(
        AgentGrid::new(&terrain, &TerrainProfile::impassable(), 1),
        Err(AgentError::NoPassableTerrain)
    );
    assert_eq!(
        AgentGrid::new(&terrain, &identity, 4),
        Err(AgentError::LargerThanMap {
            size: 4,
            width: 4,
            height: 3
        })
    );
    assert_eq!(
        AgentGrid::new(&Grid::new(0, 5), &identity, 1),
        Err(AgentError::LargerThanMap {
            size: 1,
            width: 0,
            height: 5
        })
    );
    let mut agent = AgentGrid::new(&terrain, &identity, 2).expect("fits");
    let before = agent.clone();
    let mismatch = AgentError::GridMismatch {
        width: 4,
        height: 3,
        found_width: 5,
        found_height: 3,
    };
    assert_eq!(agent.update(&Grid::new(5, 3), &[]), Err(mismatch));
    let mut clearance = agent.clearance().clone();
    assert_eq!(clearance.update(&Grid::new(5, 3), &[]), Err(mismatch));
    let outside = AgentError::OutOfBounds {
        cell: Cell::new(4, 0),
        width: 4,
        height: 3,
    };
    let mut edited = terrain.clone();
    edited.set_blocked(Cell::new(0, 0), true).expect("inside");
    assert_eq!(
        agent.update(&edited, &[Cell::new(0, 0), Cell::new(4, 0)]),
        Err(outside)
    );
    assert_eq!(
        clearance.update(&edited, &[Cell::new(0, 0), Cell::new(4, 0)]),
        Err(outside)
    );
    assert_eq!(agent, before, "a refused update changes nothing");
    assert_eq!(&clearance, before.clearance());
}

#[test]
fn endpoints_that_do_not_fit_name_the_cell_and_the_reason() {
    let terrain = Grid::from_ascii("....\n.#..\n....").expect("a grid");
    let agent = AgentGrid::new(&terrain, &TerrainProfile::identity(), 2).expect("fits");
    let not_fitting = |endpoint, cell, problem| {
        Err(AgentError::FootprintDoesNotFit {
            endpoint,
            cell,
            size: 2,
            problem,
        })
    };
    let (open, wall) = (Cell::new(2, 0), Cell::new(1, 1));
    assert_eq!(agent.check_endpoints(open, open), Ok(()));
    assert_eq!(
        agent.check_endpoints(Cell::new(0, 0), open),
        not_fitting(
            Endpoint::Start,
            Cell::new(0, 0),
            FootprintProblem::Impassable(wall)
        )
    );
    assert_eq!(
        agent.check_endpoints(open, Cell::new(3, 0)),
        not_fitting(
            Endpoint::Goal,
            Cell::new(3, 0),
            FootprintProblem::OutsideMap
        )
    );
    assert_eq!(
        agent.check_endpoints(Cell::new(u32::MAX, 0), open),
        not_fitting(
            Endpoint::Start,
            Cell::new(u32::MAX, 0),
            FootprintProblem::OutsideMap
        )
    );
    // The search on the derived grid refuses the same endpoints, without the reason.
    let search = Searcher::new().find_path(
        agent.grid(),
        open,
        Cell::new(0, 1),
        &SearchOptions::default(),
    );
    assert_eq!(search, Err(SearchError::GoalBlocked(Cell::new(0, 1))));
}

#[test]
fn clearance_is_one_byte_per_cell() {
    for (width, height) in [(0, 0), (0, 7), (1, 1), (5, 3), (64, 48)] {
        let terrain = Grid::new(width, height);
        let clearance = Clearance::new(&terrain, &TerrainProfile::identity());
        assert_eq!(clearance.memory_bytes(), (width * height) as usize);
        if let Ok(agent) = AgentGrid::new(&terrain, &TerrainProfile::walker(), 1) {
            assert_eq!(agent.memory_bytes(), terrain.memory_bytes() + terrain.len());
        }
    }
}

#[test]
fn the_default_kind_derives_the_terrain_itself() {
    let terrain = Grid::from_ascii("..3.\n.#..\n9...").expect("a grid");
    let agent = AgentGrid::new(&terrain, &TerrainProfile::identity(), 1).expect("fits");
    assert_eq!(agent.grid(), &terrain);
    assert!(!agent.kind().needs_derived_grid());
}

/// Every `.map` file under `assets/maps/`, with its path.
fn bundled_maps() -> Vec<(std::path::PathBuf, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/maps");
    let mut folders = vec![root];
    let mut maps = Vec::new();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a readable folder") {
            let path = entry.expect("a readable entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "map") {
                let text = std::fs::read_to_string(&path).expect("a readable map");
                maps.push((path, text));
            }
        }
    }
    maps.sort();
    maps
}

/// A map text of the Moving AI characters, `width` x `height`.
fn moving_ai_text(width: u32, height: u32, characters: &[char]) -> String {
    let mut text = format!("type octile\nheight {height}\nwidth {width}\nmap\n");
    for row in characters.chunks(width as usize) {
        text.extend(row);
        text.push('\n');
    }
    text
}

#[test]
fn every_bundled_map_reads_through_the_walker_as_with_the_benchmark_legend() {
    let maps = bundled_maps();
    assert!(maps.len() >= 5, "{} maps found", maps.len());
    let kinds = Legend::moving_ai_kinds();
    for (path, text) in maps {
        let benchmark = parse_map(&text).expect("a valid map");
        let terrain = parse_map_with(&text, &kinds).expect("a valid map");
        let walker = AgentGrid::new(&terrain, &TerrainProfile::walker(), 1).expect("fits");
        assert_eq!(walker.grid(), &benchmark, "{}", path.display());
        let written = write_map(&terrain, &kinds).expect("every value has a character");
        assert_eq!(
            parse_map_with(&written, &kinds).as_ref(),
            Ok(&terrain),
            "{}",
            path.display()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any map of the Moving AI characters: read with the kinds legend and seen by the walker it
    /// is the benchmark reading; written back with that legend it reads as the same terrain, and
    /// the flyer and boat see trees and water as passable exactly where the map has them.
    #[test]
    fn the_kinds_legend_keeps_every_character_apart_and_round_trips(
        (width, height, characters) in (1u32..=12, 1u32..=12).prop_flat_map(|(width, height)| {
            let characters = prop::collection::vec(
                prop::sample::select(vec!['.', 'G', 'S', 'T', 'W', '@', 'O']),
                (width * height) as usize,
            );
            (Just(width), Just(height), characters)
        }),
    ) {
        let text = moving_ai_text(width, height, &characters);
        let kinds = Legend::moving_ai_kinds();
        let terrain = parse_map_with(&text, &kinds).expect("a valid map");
        let walker = AgentGrid::new(&terrain, &TerrainProfile::walker(), 1).expect("fits");
        prop_assert_eq!(walker.grid(), &parse_map(&text).expect("a valid map"));
        let written = write_map(&terrain, &kinds).expect("every value has a character");
        let reread = parse_map_with(&written, &kinds);
        prop_assert_eq!(reread.as_ref(), Ok(&terrain));
        let flyer = TerrainProfile::flyer();
        let boat = TerrainProfile::boat();
        for (cell, value) in terrain.cells() {
            let character = characters[(cell.y * width + cell.x) as usize];
            prop_assert_eq!(flyer.is_passable(value), !matches!(character, '@' | 'O'));
            prop_assert_eq!(boat.is_passable(value), character == 'W');
            prop_assert_eq!(
                TerrainProfile::heavy().cost(value),
                match character {
                    'S' => Some(astar_grid::agent::HEAVY_SWAMP_COST),
                    '.' | 'G' => Some(1),
                    _ => None,
                }
            );
        }
    }
}
