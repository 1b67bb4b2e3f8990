//! Headless tests of the search engines through the plugin: jump points, shared flow fields
//! (and how long they live), goal batches, local repair, and the closest reachable cell.

pub mod common;

use astar_grid::{CostModel, Movement};
use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{
    Seen, app_with_grid, assert_found_by, assert_legal_and_optimal, assert_valid_path, block,
    current_grid, illegal_walk, path, path_depends_on, settle, spawn, spawn_all, stats,
    walled_grid,
};
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestRng};

/// Blocks `cell` through the plugin's grid resource.
#[test]
fn jump_point_requests_get_optimal_paths_and_follow_map_edits() {
    let grid = Grid::new(40, 30);
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let goal = Cell::new(39, 15);
    let starts = [Cell::new(0, 0), Cell::new(0, 15), Cell::new(0, 29)];
    let request = |start| PathRequest::new(start, goal).with_algorithm(PathAlgorithm::JumpPoint);
    let agents: Vec<Entity> = starts.map(|start| spawn(&mut app, request(start))).into();
    settle(&mut app, &agents);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_valid_path(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::JumpPoint);
    }

    // A wall across the middle with one gap: the jump point grid follows the edit.
    for y in 0..30 {
        if y != 3 {
            block(&mut app, Cell::new(20, y));
        }
    }
    settle(&mut app, &agents);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_valid_path(&current_grid(&app), &found, start, goal);
        assert!(found.cells().contains(&Cell::new(20, 3)));
        assert_eq!(found.algorithm, PathAlgorithm::JumpPoint);
    }

    // Terrain costs: jump point search cannot honour them, so A* answers, optimally.
    app.world_mut()
        .resource_mut::<NavGrid>()
        .set_cost(Cell::new(20, 3), 5)
        .expect("inside the grid");
    settle(&mut app, &agents);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_valid_path(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::AStar);
    }

    // The terrain cost taken back: jump point search answers again.
    app.world_mut()
        .resource_mut::<NavGrid>()
        .set_cost(Cell::new(20, 3), 1)
        .expect("inside the grid");
    ask_again(&mut app, &agents);
    settle(&mut app, &agents);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_valid_path(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::JumpPoint);
    }
}

#[test]
fn flow_field_requests_to_one_goal_share_one_field() {
    let grid = walled_grid();
    let mut app = app_with_grid(AStarPlugin::default(), grid.clone());
    let goal = Cell::new(9, 0);
    let starts: Vec<Cell> = grid
        .cells()
        .filter(|&(cell, value)| value != 0 && cell != goal && cell.x < 5)
        .map(|(cell, _)| cell)
        .collect();
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&start| {
            let request = PathRequest::new(start, goal).with_algorithm(PathAlgorithm::FlowField);
            spawn(&mut app, request)
        })
        .collect();
    settle(&mut app, &agents);
    assert_found_by(
        &app,
        &grid,
        &agents,
        &starts,
        goal,
        PathAlgorithm::FlowField,
    );
    assert_eq!(stats(&app).flow_fields_built, 1);
    assert_eq!(stats(&app).flow_fields, 1);

    // Blocking a cell some paths use: the field is updated, not rebuilt, and only the agents
    // whose paths crossed the cell get new ones, still optimal.
    let crossed = Cell::new(5, 3);
    let cut: Vec<Entity> = agents
        .iter()
        .copied()
        .filter(|&agent| path_depends_on(&path(&app, agent).cells(), crossed, Movement::EIGHT))
        .collect();
    assert!(!cut.is_empty() && cut.len() < agents.len());
    let revisions: Vec<u64> = agents
        .iter()
        .map(|&agent| path(&app, agent).revision)
        .collect();
    block(&mut app, crossed);
    settle(&mut app, &agents);
    let grid = current_grid(&app);
    for ((&agent, &start), revision) in agents.iter().zip(&starts).zip(revisions) {
        let found = path(&app, agent);
        assert_valid_path(&grid, &found, start, goal);
        assert_eq!(found.revision > revision, cut.contains(&agent));
    }
    assert_eq!(stats(&app).flow_fields_built, 1);
    assert_eq!(stats(&app).flow_fields_updated, 1);
}

#[test]
fn a_crowd_heading_for_one_goal_is_answered_by_one_search() {
    let grid = walled_grid();
    let goal = Cell::new(9, 0);
    let starts: Vec<Cell> = grid
        .cells()
        .filter(|&(cell, value)| value != 0 && cell != goal && cell.x < 5)
        .map(|(cell, _)| cell)
        .collect();
    let (blocked, outside) = (Cell::new(1, 1), Cell::new(40, 0));
    let run = |plugin: AStarPlugin| {
        let mut app = app_with_grid(plugin, grid.clone());
        let agents: Vec<Entity> = starts
            .iter()
            .chain([&blocked, &outside, &starts[0]])
            .map(|&start| spawn(&mut app, PathRequest::new(start, goal)))
            .collect();
        settle(&mut app, &agents);
        (app, agents)
    };

    let (app, agents) = run(AStarPlugin::default());
    let distinct = starts.len() + 2;
    assert!(distinct >= PathfindingSettings::default().goal_batch_min);
    let batched = stats(&app);
    assert_eq!(batched.searches_started, 1);
    assert_eq!(batched.goal_batches, 1);
    assert_eq!(batched.batched_requests, distinct as u64);
    // The last agent repeats the first one's request and shares its answer.
    assert_eq!(batched.shared_searches, 1);
    assert_found_by(
        &app,
        &grid,
        &agents,
        &starts,
        goal,
        PathAlgorithm::FlowField,
    );
    assert_eq!(
        path(&app, agents[distinct]).cells(),
        path(&app, agents[0]).cells()
    );
    // Bad requests in the batch fail as their own searches would.
    assert_eq!(
        path(&app, agents[starts.len()]).status,
        PathStatus::Invalid(SearchError::StartBlocked(blocked))
    );
    assert_eq!(
        path(&app, agents[starts.len() + 1]).status,
        PathStatus::Invalid(SearchError::StartOutOfBounds(outside))
    );

    // Without batching, each different request is its own A* search, at the same costs.
    let (app, agents) = run(AStarPlugin::default().with_goal_batch_min(0));
    let searched = stats(&app);
    assert_eq!(searched.searches_started, distinct as u64);
    assert_eq!(searched.goal_batches, 0);
    assert_found_by(&app, &grid, &agents, &starts, goal, PathAlgorithm::AStar);
}

#[test]
fn flow_field_requests_fail_like_searches() {
    let grid = walled_grid();
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    let flow = |start, goal| PathRequest::new(start, goal).with_algorithm(PathAlgorithm::FlowField);
    let blocked_goal = spawn(&mut app, flow(Cell::new(0, 0), Cell::new(1, 1)));
    let outside = spawn(&mut app, flow(Cell::new(40, 0), Cell::new(0, 0)));
    // The goal (7, 3) is walled in once the five open cells around it are blocked.
    for cell in [(7, 2), (8, 2), (6, 4), (7, 4), (8, 4)] {
        block(&mut app, Cell::from(cell));
    }
    let unreachable = spawn(&mut app, flow(Cell::new(0, 0), Cell::new(7, 3)));
    settle(&mut app, &[blocked_goal, outside, unreachable]);
    assert_eq!(
        path(&app, blocked_goal).status,
        PathStatus::Invalid(SearchError::GoalBlocked(Cell::new(1, 1)))
    );
    assert_eq!(
        path(&app, outside).status,
        PathStatus::Invalid(SearchError::StartOutOfBounds(Cell::new(40, 0)))
    );
    assert_eq!(path(&app, unreachable).status, PathStatus::NoPath);
    assert!(path(&app, unreachable).cells().is_empty());
    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.failed.len(), 3);
}

#[test]
fn cut_paths_are_repaired_locally_when_asked_and_never_cached() {
    let grid = Grid::new(40, 20);
    let mut app = app_with_grid(AStarPlugin::default().with_path_repair(true), grid);
    let goal = Cell::new(39, 10);
    let starts: Vec<Cell> = (0..20).map(|y| Cell::new(0, y)).collect();
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&start| spawn(&mut app, PathRequest::new(start, goal)))
        .collect();
    settle(&mut app, &agents);
    let searched = stats(&app).searches_started;

    // A short wall in front of the goal cuts the paths that pass through it.
    let wall: Vec<Cell> = (8..=12).map(|y| Cell::new(35, y)).collect();
    let cut: Vec<Entity> = agents
        .iter()
        .copied()
        .filter(|&agent| {
            let cells = path(&app, agent).cells();
            wall.iter()
                .any(|&cell| path_depends_on(&cells, cell, Movement::EIGHT))
        })
        .collect();
    assert!(!cut.is_empty());
    for &cell in &wall {
        block(&mut app, cell);
    }
    settle(&mut app, &agents);
    let grid = current_grid(&app);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let repaired = path(&app, agent);
        assert_eq!(repaired.status, PathStatus::Found);
        assert_eq!(repaired.cells().first(), Some(&start));
        assert_eq!(repaired.cells().last(), Some(&goal));
        assert!(repaired.cells().iter().all(|&cell| grid.is_walkable(cell)));
        assert_eq!(
            illegal_walk(&grid, &repaired.cells(), Movement::EIGHT),
            None
        );
    }
    assert_eq!(stats(&app).paths_repaired, cut.len() as u64);
    assert_eq!(stats(&app).searches_started, searched + cut.len() as u64);

    // A repaired path may be dearer than the best one, so a new identical request searches.
    let first_cut = path(&app, cut[0]);
    let start = first_cut.cells()[0];
    let fresh = spawn(&mut app, PathRequest::new(start, goal));
    settle(&mut app, &[fresh]);
    assert_valid_path(&grid, &path(&app, fresh), start, goal);
    assert_eq!(
        stats(&app).searches_started,
        searched + cut.len() as u64 + 1
    );
}

/// Agents that each ask for a flow field to a random goal and live `lifetime` frames, spawned
/// `per_frame` at a time for `frames` frames on a static map; then all of them are despawned.
fn churn_flow_field_requests(
    app: &mut App,
    (frames, per_frame, lifetime): (usize, usize, usize),
    mut each_frame: impl FnMut(&App),
) {
    let mut rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let grid = current_grid(app);
    let walkable: Vec<Cell> = grid
        .cells()
        .filter(|&(_, value)| value != 0)
        .map(|(cell, _)| cell)
        .collect();
    let mut alive: Vec<(usize, Entity)> = Vec::new();
    for frame in 0..frames {
        for _ in 0..per_frame {
            let start = walkable[rng.random_range(0..walkable.len())];
            let goal = walkable[rng.random_range(0..walkable.len())];
            let request = PathRequest::new(start, goal).with_algorithm(PathAlgorithm::FlowField);
            alive.push((frame, spawn(app, request)));
        }
        alive.retain(|&(born, agent)| {
            let keep = frame - born < lifetime;
            if !keep {
                app.world_mut().despawn(agent);
            }
            keep
        });
        app.update();
        each_frame(app);
    }
    for (_, agent) in alive {
        app.world_mut().despawn(agent);
    }
}

#[test]
fn flow_fields_are_let_go_of_once_no_request_needs_them() {
    let grid = Grid::from_fn(48, 40, |cell| u8::from(cell.x % 8 != 4 || cell.y % 10 == 0));
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    churn_flow_field_requests(&mut app, (300, 10, 20), |_| {});
    let during = stats(&app);
    assert!(during.flow_fields_built > 100, "{during:?}");
    for _ in 0..30 {
        app.update();
    }
    let after = stats(&app);
    assert_eq!(after.flow_fields, 0, "{after:?}");
    assert_eq!(after.flow_fields_dropped, after.flow_fields_built);
}

#[test]
fn flow_fields_needed_by_live_agents_stay_within_the_capacity() {
    let grid = Grid::new(24, 24);
    let capacity = 4;
    let mut app = app_with_grid(AStarPlugin::default().with_max_flow_fields(capacity), grid);
    let requests: Vec<PathRequest> = (0..12)
        .map(|i| {
            PathRequest::new(Cell::new(0, i), Cell::new(23, 2 * i))
                .with_algorithm(PathAlgorithm::FlowField)
        })
        .collect();
    let agents: Vec<Entity> = spawn_all(&mut app, &requests);
    settle(&mut app, &agents);
    app.update();
    assert!(stats(&app).flow_fields <= capacity, "{:?}", stats(&app));
    // Twelve goals asked for in one frame: four fields, eight requests searched alone.
    assert_eq!(stats(&app).flow_field_fallbacks, 8, "{:?}", stats(&app));
    let grid = current_grid(&app);
    for (&agent, request) in agents.iter().zip(&requests) {
        assert_legal_and_optimal(&grid, &path(&app, agent), request);
    }
    // After a map change the agents it cut read fields kept or built again, still optimal.
    block(&mut app, Cell::new(12, 12));
    settle(&mut app, &agents);
    let grid = current_grid(&app);
    for (&agent, request) in agents.iter().zip(&requests) {
        assert_legal_and_optimal(&grid, &path(&app, agent), request);
    }
    app.update();
    assert!(stats(&app).flow_fields <= capacity, "{:?}", stats(&app));
}

#[test]
fn the_flow_field_cap_holds_at_every_frame_with_builds_in_flight() {
    let grid = Grid::from_fn(48, 40, |cell| u8::from(cell.x % 8 != 4 || cell.y % 10 == 0));
    for capacity in [0, 1, 8] {
        let plugin = AStarPlugin::default().with_max_flow_fields(capacity);
        let mut app = app_with_grid(plugin, grid.clone());
        let mut most = 0;
        churn_flow_field_requests(&mut app, (120, 10, 20), |app| {
            most = most.max(stats(app).flow_fields);
        });
        let after = stats(&app);
        assert!(
            most <= capacity,
            "{most} fields held, {capacity} allowed: {after:?}"
        );
        assert!(after.flow_field_fallbacks > 0, "{after:?}");
        if capacity == 0 {
            assert_eq!(after.flow_fields_built, 0, "{after:?}");
        }
    }
}

#[test]
fn a_flow_field_request_over_the_cap_gets_the_path_its_field_would_give() {
    let grid = walled_grid();
    let mut app = app_with_grid(AStarPlugin::default().with_max_flow_fields(0), grid.clone());
    // Options a field does not honour: A* searches without them, as the field would.
    let options = SearchOptions::default()
        .with_weight(3.0)
        .with_max_expansions(2);
    let request = PathRequest::new(Cell::new(0, 4), Cell::new(9, 0))
        .with_algorithm(PathAlgorithm::FlowField)
        .with_options(options);
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    let found = path(&app, agent);
    assert_eq!(found.algorithm, PathAlgorithm::AStar);
    assert_legal_and_optimal(
        &grid,
        &found,
        &request.with_options(SearchOptions::default()),
    );
    assert_eq!(stats(&app).flow_field_fallbacks, 1);
}

#[test]
fn flow_fields_are_let_go_of_in_a_schedule_that_runs_less_often_than_frames() {
    let mut app = common::app_with(AStarPlugin::default().in_schedule(FixedUpdate));
    // One fixed step every few frames: despawns may fall between two runs of the plugin.
    app.insert_resource(Time::<Fixed>::from_duration(common::FRAME * 5))
        .insert_resource(NavGrid::new(Grid::new(16, 16)));
    let agents: Vec<Entity> = (0..6)
        .map(|y| {
            let request = PathRequest::new(Cell::new(0, y), Cell::new(15, 2 * y))
                .with_algorithm(PathAlgorithm::FlowField);
            spawn(&mut app, request)
        })
        .collect();
    settle(&mut app, &agents);
    assert_eq!(stats(&app).flow_fields, 6);
    for agent in agents {
        app.world_mut().despawn(agent);
        app.update();
    }
    for _ in 0..600 {
        app.update();
    }
    assert_eq!(stats(&app).flow_fields, 0, "{:?}", stats(&app));
}

/// Every engine with `closest_reachable`, to a goal walled off (and to a blocked one): the path
/// ends at the cell the documented rule picks, at the reference's cost; it is re-searched when
/// a wall cuts it, and becomes a found path once the wall opens. Ten A* agents share the goal,
/// more than a goal batch needs, and are still answered one by one.
#[test]
fn requests_for_the_closest_reachable_cell_get_it_from_every_engine() {
    use common::closest_cell::ClosestExpectation;
    let grid = Grid::from_ascii(
        "..........
         ..........
         ......#...
         ......#...
         ......#...
         ......#...",
    )
    .expect("a valid map");
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    // Wall the goal column off completely: x = 6 is blocked from top to bottom.
    for y in 0..2 {
        block(&mut app, Cell::new(6, y));
    }
    let goal = Cell::new(9, 3);
    let closest = |start: Cell, goal, algorithm| {
        let request = PathRequest::new(start, goal).with_algorithm(algorithm);
        request.with_options(request.options.with_closest_reachable(true))
    };
    let algorithms = [
        PathAlgorithm::AStar,
        PathAlgorithm::JumpPoint,
        PathAlgorithm::FlowField,
    ];
    let mut agents: Vec<(Entity, PathRequest)> = Vec::new();
    for algorithm in algorithms {
        for start in [Cell::new(0, 0), Cell::new(2, 5)] {
            let request = closest(start, goal, algorithm);
            agents.push((spawn(&mut app, request), request));
        }
        // A blocked goal.
        let request = closest(Cell::new(0, 5), Cell::new(6, 3), algorithm);
        agents.push((spawn(&mut app, request), request));
    }
    for y in 0..6 {
        let request = closest(Cell::new(y / 2, y), goal, PathAlgorithm::AStar);
        agents.push((spawn(&mut app, request), request));
    }
    let entities: Vec<Entity> = agents.iter().map(|&(entity, _)| entity).collect();
    settle(&mut app, &entities);
    let check_closest = |app: &App| {
        let grid = current_grid(app);
        for (agent, request) in &agents {
            let path = path(app, *agent);
            let expected = ClosestExpectation::new(
                &grid,
                request.options.movement,
                request.options.cost,
                request.start,
                request.goal,
            );
            assert_eq!(path.status, PathStatus::NoPath, "{request:?}");
            assert!(path.is_partial(), "{request:?}");
            let end = *path.cells().last().expect("a partial path");
            assert!(
                expected.tied.iter().any(|&(cell, _)| cell == end),
                "{request:?} ended at {end}, expected {:?}",
                expected.tied
            );
            assert!((path.cost() - expected.cost).abs() < 1e-9, "{request:?}");
            assert_eq!(
                illegal_walk(&grid, &path.cells(), request.options.movement),
                None
            );
        }
    };
    check_closest(&app);
    assert_eq!(stats(&app).goal_batches, 0);
    // A wall across the partial paths, with a gap at (4, 5): each is searched again.
    for y in 0..6 {
        block(&mut app, Cell::new(4, y));
    }
    app.world_mut()
        .resource_mut::<NavGrid>()
        .set_cost(Cell::new(4, 5), 1)
        .expect("inside the grid");
    settle(&mut app, &entities);
    check_closest(&app);
    // The wall at x = 6 opens: every request that can now reach its goal finds it.
    for y in 0..6 {
        app.world_mut()
            .resource_mut::<NavGrid>()
            .set_cost(Cell::new(6, y), 1)
            .expect("inside the grid");
    }
    settle(&mut app, &entities);
    let grid = current_grid(&app);
    for (agent, request) in &agents {
        let path = path(&app, *agent);
        assert_eq!(path.status, PathStatus::Found, "{request:?}");
        assert!(!path.is_partial());
        assert_legal_and_optimal(&grid, &path, request);
    }
}

#[test]
fn a_goal_s_later_crowd_resumes_the_dijkstra_of_its_first_on_the_same_map_only() {
    let grid = walled_grid();
    let goal = Cell::new(9, 0);
    let starts: Vec<Cell> = grid
        .cells()
        .filter(|&(cell, value)| value != 0 && cell != goal)
        .map(|(cell, _)| cell)
        .collect();
    let (near, far) = starts.split_at(starts.len() / 2);
    assert!(near.len().min(far.len()) >= PathfindingSettings::default().goal_batch_min);
    // No shared goal tree: the goal's 35 agents reach `shared_goal_min_agents` once a second
    // of frames has passed, which a loaded machine's slower batches may take, and the third
    // crowd would then be answered off the tree instead of a batch.
    let settings = PathfindingSettings {
        shared_goal_min_agents: 0,
        ..PathfindingSettings::default()
    };
    let mut app = app_with_grid(AStarPlugin::default().with_settings(settings), grid.clone());
    // Smoothed requests are other requests, which the cache does not answer.
    let crowd = |app: &mut App, starts: &[Cell], smoothing: bool| -> Vec<Entity> {
        let agents: Vec<Entity> = starts
            .iter()
            .map(|&start| spawn(app, PathRequest::new(start, goal).with_smoothing(smoothing)))
            .collect();
        settle(app, &agents);
        agents
    };
    let first = crowd(&mut app, near, false);
    assert_eq!(
        (stats(&app).goal_batches, stats(&app).goal_batches_resumed),
        (1, 0)
    );
    // The far starts are not settled by the first Dijkstra: resumed, it goes on to them.
    let second = crowd(&mut app, far, false);
    assert_eq!(
        (stats(&app).goal_batches, stats(&app).goal_batches_resumed),
        (2, 1)
    );
    let agents: Vec<Entity> = first.iter().chain(&second).copied().collect();
    assert_found_by(
        &app,
        &grid,
        &agents,
        &starts,
        goal,
        PathAlgorithm::FlowField,
    );

    // A wall on the bottom row: the next crowd (with the agents it cut) searches the new map
    // afresh, and every path is optimal there.
    block(&mut app, Cell::new(3, 4));
    let open: Vec<Cell> = far
        .iter()
        .copied()
        .filter(|&cell| cell != Cell::new(3, 4))
        .collect();
    let third = crowd(&mut app, &open, true);
    settle(&mut app, &agents);
    let stats = stats(&app);
    assert!(stats.goal_batches >= 3, "{stats:?}");
    assert_eq!(stats.goal_batches_resumed, 1, "{stats:?}");
    let walled = current_grid(&app);
    assert_found_by(&app, &walled, &third, &open, goal, PathAlgorithm::FlowField);
}

/// A 160 x 120 city of blocks between streets: long routes across several 64-cell sectors.
fn city_grid() -> Grid {
    city_grid_of(160, 120)
}

/// [`city_grid`]'s blocks and streets over `width` x `height` cells.
fn city_grid_of(width: u32, height: u32) -> Grid {
    Grid::from_fn(width, height, |cell| {
        let (x, y) = (cell.x % 20, cell.y % 15);
        // Blocks of 16 x 11 between streets 4 wide; every third block has an alley through it.
        let in_block = x >= 4 && y >= 4;
        let alley = (cell.x / 20 + cell.y / 15) % 3 == 0 && x == 11;
        u8::from(!in_block || alley)
    })
}

/// `found` is a legal walk from `start` to `goal` on `grid`, priced as its steps, no cheaper
/// than the reference's optimum and within a tenth of it.
fn assert_legal_and_near_optimal(grid: &Grid, found: &Path, start: Cell, goal: Cell) {
    assert_eq!(found.status, PathStatus::Found);
    let cells = found.cells();
    assert_eq!((cells.first(), cells.last()), (Some(&start), Some(&goal)));
    assert_eq!(illegal_walk(grid, &cells, Movement::EIGHT), None);
    let walked: f64 = cells
        .windows(2)
        .map(|step| {
            grid.walk_cost(step[0], step[1], Movement::EIGHT, CostModel::Octile)
                .expect("a legal step")
        })
        .sum();
    assert!(
        (walked - found.cost()).abs() < 1e-6,
        "{walked} vs {}",
        found.cost()
    );
    let optimal = common::reference_cost(grid, &PathRequest::new(start, goal)).expect("reachable");
    assert!(
        found.cost() >= optimal - 1e-6,
        "{} below the optimum {optimal}",
        found.cost()
    );
    assert!(
        found.cost() <= optimal * 1.1,
        "{} far above the optimum {optimal}",
        found.cost()
    );
}

/// Marks the request of every one of `agents` changed, so that each is searched again.
fn ask_again(app: &mut App, agents: &[Entity]) {
    for &agent in agents {
        let mut request = app
            .world_mut()
            .get_mut::<PathRequest>(agent)
            .expect("alive");
        request.set_changed();
    }
}

/// A request for a hierarchical path from `start` to `goal`.
fn hierarchical(start: Cell, goal: Cell) -> PathRequest {
    PathRequest::new(start, goal).with_algorithm(PathAlgorithm::Hierarchical)
}

/// An agent asking for a hierarchical path from each of `starts` to `goal`.
fn spawn_hierarchical(app: &mut App, starts: &[Cell], goal: Cell) -> Vec<Entity> {
    starts
        .iter()
        .map(|&start| spawn(app, hierarchical(start, goal)))
        .collect()
}

/// Has `agents` ask again, once every 200 frames, until the hierarchy's background build has
/// landed and answers them all (at most 50 times: on a loaded machine the build takes longer
/// than a fixed number of frames), and waits for their answers.
fn search_again_once_built(app: &mut App, agents: &[Entity]) {
    for _ in 0..50 {
        for _ in 0..200 {
            app.update();
        }
        ask_again(app, agents);
        settle(app, agents);
        let answered = |&agent: &Entity| path(app, agent).algorithm == PathAlgorithm::Hierarchical;
        if agents.iter().all(answered) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A cell three quarters along the first agent's path, on the paths of at least two of
/// `agents`: where a tower cuts the crowd.
fn tower_on_routes(app: &App, agents: &[Entity]) -> Cell {
    let cells = path(app, agents[0]).cells().to_vec();
    let tower = cells[cells.len() * 3 / 4];
    let crossing = agents
        .iter()
        .filter(|&&agent| path(app, agent).cells().contains(&tower))
        .count();
    assert!(crossing >= 2, "{crossing} paths cross the tower");
    tower
}

/// Runs frames until `goals` goals' sector fields have been renewed for the agents on them
/// since `renewed` renewals were counted (at most 50 rounds of 200 frames: renewals run in the
/// background).
fn wait_for_renewals(app: &mut App, renewed: u64, goals: u64) {
    for _ in 0..50 {
        for _ in 0..200 {
            app.update();
            if stats(app).sector_routes_renewed >= renewed + goals {
                return;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the goal's field was not renewed");
}

#[test]
fn hierarchical_requests_for_one_goal_share_a_batch_while_the_hierarchy_is_built() {
    let grid = city_grid();
    let goal = Cell::new(158, 105);
    let starts: Vec<Cell> = (0..12).map(|i| Cell::new(0, i * 9)).collect();
    assert!(starts.len() >= PathfindingSettings::default().goal_batch_min);
    let mut app = app_with_grid(AStarPlugin::default().with_cache_capacity(0), grid);
    let agents = spawn_hierarchical(&mut app, &starts, goal);
    settle(&mut app, &agents);
    // The hierarchy is not built yet: one search from the goal answers the crowd, optimally,
    // instead of an A* search each.
    let early = stats(&app);
    assert_eq!((early.searches_started, early.goal_batches), (1, 1));
    let now = current_grid(&app);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_legal_and_near_optimal(&now, &found, start, goal);
        let optimal =
            common::reference_cost(&now, &PathRequest::new(start, goal)).expect("reachable");
        assert!(
            (found.cost() - optimal).abs() < 1e-6,
            "{} vs {optimal}",
            found.cost()
        );
        assert_eq!(found.algorithm, PathAlgorithm::FlowField);
    }
    // Once it is built, each request searches the hierarchy.
    search_again_once_built(&mut app, &agents);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_legal_and_near_optimal(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::Hierarchical);
    }
}

/// Creeps that stream to one goal, one request a frame, while the hierarchy is being built:
/// the first `goal_batch_min - 1` run A* each, the next shares a search from the goal, and the
/// later ones, and two crowds after them, wait for it to land rather than each growing another
/// over the whole map (they then resume it, or read the goal's sector field once the
/// hierarchy is built).
#[test]
fn hierarchical_requests_streaming_one_a_frame_share_the_goal_s_search_while_the_hierarchy_builds()
{
    // On the main thread with no time to spare, queued work runs one slice a frame, oldest
    // first: the 49 sectors take 13 slices or more to build, so every request below is
    // gathered before the hierarchy is.
    let settings = PathfindingSettings {
        stage_budget: core::time::Duration::ZERO,
        ..main_thread_settings()
    };
    let least = settings.goal_batch_min;
    let mut app = app_with_grid(
        AStarPlugin::default().with_settings(settings),
        city_grid_of(448, 448),
    );
    let goal = Cell::new(441, 300);
    let starts: Vec<Cell> = (0..least + 2)
        .map(|i| Cell::new(0, i as u32 * 15))
        .collect();
    let mut agents = Vec::new();
    for &start in &starts {
        agents.push(spawn(&mut app, hierarchical(start, goal)));
        app.update();
        assert!(stats(&app).hierarchy_sectors_waiting > 0, "still building");
    }
    // Then two crowds of `least` in two frames: they too wait for the goal's search.
    let crowds: Vec<Cell> = (0..2 * least)
        .map(|i| Cell::new(1 + i as u32 % least as u32, 30 * (i / least) as u32 + 180))
        .collect();
    for crowd in crowds.chunks(least) {
        let spawned = spawn_hierarchical(&mut app, crowd, goal);
        app.update();
        assert!(stats(&app).hierarchy_sectors_waiting > 0, "still building");
        for (&agent, &start) in spawned.iter().zip(crowd) {
            let found = path(&app, agent);
            assert_ne!(found.status, PathStatus::Found, "{start}: answered at once");
        }
        agents.extend(spawned);
    }
    let starts: Vec<Cell> = starts.into_iter().chain(crowds).collect();
    settle(&mut app, &agents);
    let batches = stats(&app).goal_batches;
    assert!(
        (1..=2).contains(&batches),
        "{batches} goal batches: one, and at most one more that resumed it"
    );
    let now = current_grid(&app);
    for (number, (&agent, &start)) in agents.iter().zip(&starts).enumerate() {
        let found = path(&app, agent);
        assert_legal_and_near_optimal(&now, &found, start, goal);
        let optimal =
            common::reference_cost(&now, &PathRequest::new(start, goal)).expect("reachable");
        let asked = number + 1;
        match found.algorithm {
            PathAlgorithm::AStar => assert!(asked < least, "request {asked} searched alone"),
            PathAlgorithm::FlowField => assert!(asked >= least, "request {asked} batched"),
            PathAlgorithm::Hierarchical => assert!(asked > least, "request {asked}"),
            other => panic!("request {asked} answered by {other:?}"),
        }
        if found.algorithm != PathAlgorithm::Hierarchical {
            assert!(
                (found.cost() - optimal).abs() < 1e-6,
                "{} vs {optimal}",
                found.cost()
            );
        }
    }
    assert_eq!(
        path(&app, agents[least - 1]).algorithm,
        PathAlgorithm::FlowField
    );
}

#[test]
fn a_hierarchical_crowd_shares_its_goal_s_sector_field_and_later_agents_read_it() {
    let grid = city_grid();
    let goal = Cell::new(158, 105);
    let starts: Vec<Cell> = (0..12).map(|i| Cell::new(0, i * 9)).collect();
    let mut app = app_with_grid(AStarPlugin::default().with_cache_capacity(0), grid);
    let mut agents = spawn_hierarchical(&mut app, &starts, goal);
    settle(&mut app, &agents);
    // Asked again at once with the hierarchy built, the crowd is answered off one sector
    // field, with the hierarchy's paths.
    search_again_once_built(&mut app, &agents);
    let crowd = stats(&app);
    assert!(crowd.sector_field_batches >= 1);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_legal_and_near_optimal(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::Hierarchical);
    }
    // A later agent from a sector the field measured takes a route on it in the frame of its
    // request, with no search.
    let late_start = Cell::new(1, 50);
    let late = spawn(&mut app, hierarchical(late_start, goal));
    assert_eq!(settle(&mut app, &[late]), 1);
    let read = stats(&app);
    assert_eq!(read.sector_field_batches, crowd.sector_field_batches);
    assert_eq!(read.searches_started, crowd.searches_started);
    let found = path(&app, late);
    assert!(found.is_shared());
    assert_legal_and_near_optimal(&current_grid(&app), &found, late_start, goal);
    assert_eq!(found.algorithm, PathAlgorithm::Hierarchical);
    // Agents streaming one at a time to another goal search the hierarchy each, until the
    // goal has had goal_batch_min requests: then one batch makes its field, and the next agent,
    // from a sector it measured, takes a route on it at once.
    let other_goal = Cell::new(100, 2);
    let least = PathfindingSettings::default().goal_batch_min;
    for number in 1..=least + 1 {
        let start = Cell::new(1, 10 + 4 * number as u32);
        let lone = spawn(&mut app, hierarchical(start, other_goal));
        settle(&mut app, &[lone]);
        let fields = stats(&app).sector_field_batches - read.sector_field_batches;
        assert_eq!(fields, u64::from(number >= least), "request {number}");
        let found = path(&app, lone);
        assert_legal_and_near_optimal(&current_grid(&app), &found, start, other_goal);
        assert_eq!(found.algorithm, PathAlgorithm::Hierarchical);
        assert_eq!(found.is_shared(), number >= least, "request {number}");
    }
    agents.push(late);
    let mut starts = starts;
    starts.push(late_start);

    // A tower on the crowd's way: no agent searches again. The agents hold routes on the
    // goal's field, which is renewed once for them all in the background, round the tower.
    let tower = tower_on_routes(&app, &agents);
    let before = stats(&app);
    block(&mut app, tower);
    // Both goals' fields: the crowd's and the one the agents streaming to the other goal hold.
    wait_for_renewals(&mut app, before.sector_routes_renewed, 2);
    let after = stats(&app);
    assert_eq!(after.searches_started, before.searches_started);
    assert_eq!(after.sector_field_batches, before.sector_field_batches);
    let now = current_grid(&app);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert!(!found.cells().contains(&tower));
        assert_legal_and_near_optimal(&now, &found, start, goal);
    }
    // Asked again, they take routes on the renewed field's view at once: no batch.
    let before = stats(&app).sector_field_batches;
    search_again_once_built(&mut app, &agents);
    assert_eq!(stats(&app).sector_field_batches, before);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert!(found.is_shared() && !found.cells().contains(&tower));
        assert_legal_and_near_optimal(&now, &found, start, goal);
    }
}

/// A second edit inside sectors an earlier edit marked leaves the hierarchy's revision as it
/// was; the goal's field, made over a copy built on the grid before the second edit, must not
/// answer for the grid after it: every agent still finds the way the edits left.
#[test]
fn a_second_edit_in_a_marked_sector_is_not_answered_off_the_field_made_before_it() {
    // 256 x 128, sectors of 64: a wall at x = 100..=101 with gap A at y 20..=21 (sector (1, 0))
    // and gap B at y 100..=101.
    let grid = Grid::from_fn(256, 128, |cell| {
        let wall = (100..=101).contains(&cell.x)
            && !(20..=21).contains(&cell.y)
            && !(100..=101).contains(&cell.y);
        u8::from(!wall)
    });
    let goal = Cell::new(240, 20);
    let starts: Vec<Cell> = (0..12).map(|i| Cell::new(2, i * 5)).collect();
    let settings = PathfindingSettings {
        cache_capacity: 0,
        search_thread: SearchThread::MainThread,
        stage_budget: core::time::Duration::from_secs(30),
        ..PathfindingSettings::default()
    };
    let mut app = app_with_grid(AStarPlugin::default().with_settings(settings), grid);
    let agents = spawn_hierarchical(&mut app, &starts, goal);
    settle(&mut app, &agents);
    search_again_once_built(&mut app, &agents);
    // A tower in sector (1, 0), off the paths: the crowd, asked again, is answered off a field
    // over a copy built on this grid, through gap A, before the background build lands.
    block(&mut app, Cell::new(90, 40));
    ask_again(&mut app, &agents);
    app.update();
    let through_gap_a = |found: &Path| {
        found.cells().contains(&Cell::new(100, 20)) || found.cells().contains(&Cell::new(100, 21))
    };
    for &agent in &agents {
        let found = path(&app, agent);
        assert_eq!(found.status, PathStatus::Found);
        assert!(through_gap_a(&found));
    }
    // The next frame, before that build lands: gap A closed, inside the sector marked already.
    for y in 20..=21 {
        for x in 100..=101 {
            block(&mut app, Cell::new(x, y));
        }
    }
    ask_again(&mut app, &agents);
    settle(&mut app, &agents);
    let now = current_grid(&app);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert_legal_and_near_optimal(&now, &found, start, goal);
        assert!(!through_gap_a(&found));
    }
}

#[test]
fn hierarchical_requests_get_legal_near_optimal_paths_and_follow_towers() {
    let grid = city_grid();
    // No result cache: a request asked again searches again.
    let mut app = app_with_grid(AStarPlugin::default().with_cache_capacity(0), grid);
    let trips = [
        (Cell::new(0, 0), Cell::new(158, 105)),
        (Cell::new(2, 117), Cell::new(157, 1)),
        (Cell::new(41, 2), Cell::new(41, 118)),
    ];
    let request = |(start, goal)| hierarchical(start, goal);
    let agents: Vec<Entity> = trips.map(|trip| spawn(&mut app, request(trip))).into();
    settle(&mut app, &agents);
    // The first requests make the hierarchy and run A* while it is built in the background.
    for (&agent, &(start, goal)) in agents.iter().zip(&trips) {
        let found = path(&app, agent);
        assert_legal_and_near_optimal(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::AStar);
    }
    search_again_once_built(&mut app, &agents);
    for (&agent, &(start, goal)) in agents.iter().zip(&trips) {
        let found = path(&app, agent);
        assert_legal_and_near_optimal(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::Hierarchical);
    }

    // Towers on the first agent's path, one at a time: each cut path is searched again (or
    // repaired) around it, and every path stays legal while the hierarchy is rebuilt.
    for step in [10, 40, 80] {
        let cells = path(&app, agents[0]).cells().to_vec();
        let tower = cells[step.min(cells.len() - 2)];
        block(&mut app, tower);
        settle(&mut app, &agents);
        let now = current_grid(&app);
        for (&agent, &(start, goal)) in agents.iter().zip(&trips) {
            let found = path(&app, agent);
            assert!(!found.cells().contains(&tower));
            assert_legal_and_near_optimal(&now, &found, start, goal);
        }
    }

    // Once the background build has landed, new searches still give legal paths.
    search_again_once_built(&mut app, &agents);
    for (&agent, &(start, goal)) in agents.iter().zip(&trips) {
        let found = path(&app, agent);
        assert_legal_and_near_optimal(&current_grid(&app), &found, start, goal);
        assert_eq!(found.algorithm, PathAlgorithm::Hierarchical);
    }

    // A weight is beyond the hierarchy: A* answers.
    let weighted = request(trips[0]);
    let weighted = weighted.with_options(weighted.options.with_weight(1.5));
    let agent = spawn(&mut app, weighted);
    settle(&mut app, &[agent]);
    assert_eq!(path(&app, agent).algorithm, PathAlgorithm::AStar);
}

/// Settings that run every search on the main thread within a budget no frame spends, with no
/// cache: each frame finishes what it starts.
fn main_thread_settings() -> PathfindingSettings {
    PathfindingSettings {
        cache_capacity: 0,
        search_thread: SearchThread::MainThread,
        stage_budget: core::time::Duration::from_secs(30),
        ..PathfindingSettings::default()
    }
}

/// An app with searches on the main thread, and a crowd of 12 agents from the west edge of
/// [`city_grid`] to one goal, each holding a route on the goal's sector field (checked legal and
/// near optimal) and following it: the agents, their starts and the goal.
fn hierarchical_crowd_on_routes() -> (App, Vec<Entity>, Vec<Cell>, Cell) {
    let mut app = app_with_grid(
        AStarPlugin::default().with_settings(main_thread_settings()),
        city_grid(),
    );
    let goal = Cell::new(158, 105);
    let starts: Vec<Cell> = (0..12).map(|i| Cell::new(0, i * 9)).collect();
    let agents = spawn_hierarchical(&mut app, &starts, goal);
    settle(&mut app, &agents);
    search_again_once_built(&mut app, &agents);
    let now = current_grid(&app);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert!(found.is_shared(), "a route on the goal's field");
        assert_eq!(found.algorithm, PathAlgorithm::Hierarchical);
        assert_legal_and_near_optimal(&now, &found, start, goal);
    }
    for (&agent, &start) in agents.iter().zip(&starts) {
        let at = app.world().resource::<NavGrid>().cell_center(start);
        app.world_mut().entity_mut(agent).insert((
            PathFollower::new(300.0),
            Transform::from_translation(at.extend(0.0)),
        ));
    }
    (app, agents, starts, goal)
}

/// A hierarchical crowd answered off its goal's sector field holds routes on the field, not
/// paths of its own. A tower across the routes is answered by one renewal of the field for the
/// whole crowd, with no search for any agent (the view before, patched round the tower, at
/// once, then the field renewed), and every agent walks round it to the goal without ever
/// standing on a blocked cell.
#[test]
fn a_hierarchical_crowd_walks_its_goal_s_field_round_a_tower_with_no_search_per_agent() {
    let (mut app, agents, starts, goal) = hierarchical_crowd_on_routes();
    let tower = tower_on_routes(&app, &agents);
    let before = stats(&app);
    block(&mut app, tower);
    let mut arrived = false;
    for _ in 0..common::MAX_FRAMES {
        app.update();
        let nav = app.world().resource::<NavGrid>();
        let mut all_there = true;
        for &agent in &agents {
            let at = app.world().get::<Transform>(agent).expect("an agent");
            let at = at.translation.truncate();
            let cell = nav.world_to_cell(at);
            assert!(
                cell.is_some_and(|cell| nav.is_walkable(cell)),
                "{agent} at {at}"
            );
            all_there &= at.distance(nav.cell_center(goal)) < 1.0;
        }
        if all_there {
            arrived = true;
            break;
        }
    }
    assert!(arrived, "every agent reached the goal");
    let after = stats(&app);
    assert_eq!(after.searches_started, before.searches_started);
    assert!(after.sector_routes_renewed > before.sector_routes_renewed);
    // The view before, patched round the tower, was published first.
    assert!(after.sector_routes_patched > before.sector_routes_patched);
    assert_eq!(
        after.agents_checked_for_changes,
        before.agents_checked_for_changes
    );
    let now = current_grid(&app);
    for (&agent, &start) in agents.iter().zip(&starts) {
        let found = path(&app, agent);
        assert!(!found.cells().contains(&tower));
        assert_legal_and_near_optimal(&now, &found, start, goal);
    }
}

/// An agent still on a path of its own (answered by the goal's search while the hierarchy was
/// being built) whose path a tower cuts, beside a crowd on the goal's sector routes: its new
/// request takes a route on the goal's view patched round the tower (patched at once on the
/// main thread; in the background, the request waits for the renewal's patch), instead of
/// starting a batch that would wait for the whole renewal (a dozen frames and more on a huge
/// map). Its route is legal and near optimal, and nothing is searched.
#[test]
fn a_cut_path_of_its_own_is_answered_off_the_goal_s_patched_routes_without_a_search() {
    for search_thread in [SearchThread::MainThread, SearchThread::TaskPool] {
        let settings = PathfindingSettings {
            search_thread,
            ..main_thread_settings()
        };
        let mut app = app_with_grid(AStarPlugin::default().with_settings(settings), city_grid());
        let goal = Cell::new(158, 105);
        let starts: Vec<Cell> = (0..12).map(|i| Cell::new(0, i * 9)).collect();
        let mut agents = spawn_hierarchical(&mut app, &starts, goal);
        let loner_start = starts[6];
        let loner = spawn(&mut app, hierarchical(loner_start, goal));
        agents.push(loner);
        settle(&mut app, &agents);
        agents.pop();
        search_again_once_built(&mut app, &agents);
        assert!(agents.iter().all(|&agent| path(&app, agent).is_shared()));
        let own = path(&app, loner);
        assert!(!own.is_shared(), "a path of its own, from before the build");
        let cells = own.cells();
        let tower = cells[cells.len() / 2];
        let before = stats(&app);
        block(&mut app, tower);
        let mut frames = 0;
        while !(path(&app, loner).is_shared() || frames == common::MAX_FRAMES) {
            app.update();
            frames += 1;
        }
        let now = current_grid(&app);
        let found = path(&app, loner);
        assert!(
            found.is_shared(),
            "{search_thread:?}: a route on the patched field"
        );
        if search_thread == SearchThread::MainThread {
            assert_eq!(frames, 1, "answered in the tower's frame");
        }
        assert!(!found.cells().contains(&tower));
        assert_legal_and_near_optimal(&now, &found, loner_start, goal);
        wait_for_renewals(&mut app, before.sector_routes_renewed, 1);
        let after = stats(&app);
        assert_eq!(
            after.searches_started, before.searches_started,
            "{search_thread:?}"
        );
        assert!(after.sector_routes_patched > before.sector_routes_patched);
    }
}

/// The goal walled off under a crowd on its field's routes: the routes lead nowhere, so each
/// agent stops and searches again, and is told its goal is blocked, instead of standing
/// still with a route that leads nowhere.
#[test]
fn agents_on_a_goal_s_field_search_again_when_the_goal_is_blocked() {
    let (mut app, agents, _, goal) = hierarchical_crowd_on_routes();
    for _ in 0..5 {
        app.update();
    }
    block(&mut app, goal);
    let told = |app: &App| {
        agents
            .iter()
            .all(|&agent| path(app, agent).status.failure().is_some())
    };
    for _ in 0..common::MAX_FRAMES {
        app.update();
        if told(&app) {
            break;
        }
    }
    for &agent in &agents {
        let found = path(&app, agent);
        assert!(!found.is_shared());
        assert_eq!(
            found.status,
            PathStatus::Invalid(SearchError::GoalBlocked(goal)),
            "{agent}"
        );
    }
}

/// A walking crowd whose hierarchical requests were answered by A* paths of their own while
/// the hierarchy was being built moves onto its goal's sector routes once it is built, without
/// asking again: each agent is queued again once, takes a route on the goal's field, and then
/// a tower across the routes reads no agent's path and starts no search.
#[test]
fn agents_on_paths_given_while_the_hierarchy_builds_move_onto_the_goal_s_routes_once_built() {
    let settings = PathfindingSettings {
        shared_goal_min_agents: 0,
        ..main_thread_settings()
    };
    let mut app = app_with_grid(AStarPlugin::default().with_settings(settings), city_grid());
    let goal = Cell::new(158, 105);
    let starts: Vec<Cell> = (0..12).map(|i| Cell::new(0, i * 9)).collect();
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&start| {
            let request = hierarchical(start, goal).with_start_at_agent(true);
            let at = app.world().resource::<NavGrid>().cell_center(start);
            let agent = spawn(&mut app, request);
            app.world_mut().entity_mut(agent).insert((
                PathFollower::new(2.0),
                Transform::from_translation(at.extend(0.0)),
            ));
            agent
        })
        .collect();
    settle(&mut app, &agents);
    for &agent in &agents {
        let found = path(&app, agent);
        assert!(
            !found.is_shared(),
            "an A* path of its own while the hierarchy builds"
        );
        assert_ne!(found.algorithm, PathAlgorithm::Hierarchical);
    }
    let on_routes = |app: &App| {
        agents.iter().all(|&agent| {
            let found = path(app, agent);
            found.is_shared() && found.algorithm == PathAlgorithm::Hierarchical
        })
    };
    for _ in 0..50 {
        for _ in 0..200 {
            app.update();
        }
        if on_routes(&app) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(on_routes(&app), "every agent moved onto the goal's routes");
    let moved = stats(&app).paths_moved_onto_routes;
    assert_eq!(moved, agents.len() as u64, "each agent moved once");
    // Each route leads on from where its agent stands, not back from its first start.
    let nav = app.world().resource::<NavGrid>();
    let now = current_grid(&app);
    for &agent in &agents {
        let found = path(&app, agent);
        let at = app.world().get::<Transform>(agent).expect("an agent");
        let standing = nav
            .world_to_cell(at.translation.truncate())
            .expect("on the map");
        let cells = found.cells();
        assert!(
            cells.first().is_some_and(
                |first| first.x.abs_diff(standing.x) <= 1 && first.y.abs_diff(standing.y) <= 1
            ),
            "{agent}: route from {:?}, standing at {standing}",
            cells.first()
        );
        assert_eq!(cells.last(), Some(&goal));
        assert_eq!(illegal_walk(&now, &cells, Movement::EIGHT), None);
    }
    let tower = tower_on_routes(&app, &agents);
    let before = stats(&app);
    block(&mut app, tower);
    wait_for_renewals(&mut app, before.sector_routes_renewed, 1);
    let after = stats(&app);
    assert_eq!(after.searches_started, before.searches_started);
    assert_eq!(
        after.agents_checked_for_changes,
        before.agents_checked_for_changes
    );
    assert_eq!(after.paths_moved_onto_routes, moved);
}

/// Each agent's [`Path`] as Dispatch left it in the last frame, before Apply wrote answers.
#[derive(Resource, Default)]
struct AfterDispatch(Vec<(Entity, Path)>);

/// Records every agent's [`Path`] in [`AfterDispatch`].
fn record_after_dispatch(paths: Query<(Entity, &Path)>, mut after: ResMut<AfterDispatch>) {
    after.0 = paths
        .iter()
        .map(|(entity, path)| (entity, path.clone()))
        .collect();
}

/// The path `agent` showed after Dispatch in the last frame.
fn after_dispatch(app: &App, agent: Entity) -> Path {
    let after = &app.world().resource::<AfterDispatch>().0;
    let found = after.iter().find(|(entity, _)| *entity == agent);
    found.expect("an agent with a path").1.clone()
}

/// An app with searches on the main thread over [`city_grid`] whose hierarchy has been built
/// whole, recording paths after Dispatch.
fn app_with_city_hierarchy() -> App {
    let mut app = app_with_grid(
        AStarPlugin::default().with_settings(main_thread_settings()),
        city_grid(),
    );
    app.init_resource::<AfterDispatch>().add_systems(
        Update,
        record_after_dispatch
            .after(PathfindingSystems::Dispatch)
            .before(PathfindingSystems::Apply),
    );
    let builder = spawn(&mut app, hierarchical(Cell::new(0, 0), Cell::new(158, 105)));
    search_again_once_built(&mut app, &[builder]);
    for _ in 0..common::MAX_FRAMES {
        if stats(&app).hierarchy_sectors_waiting == 0 {
            break;
        }
        app.update();
    }
    assert_eq!(stats(&app).hierarchy_sectors_waiting, 0);
    app
}

/// Spawns an agent following a hierarchical request from `start` to `goal` with
/// [`PathRequest::first_cells_fast`] set as `fast`.
fn spawn_follower(app: &mut App, (start, goal): (Cell, Cell), fast: bool) -> Entity {
    let at = app.world().resource::<NavGrid>().cell_center(start);
    let request = hierarchical(start, goal).with_first_cells_fast(fast);
    let follower = PathFollower::new(40.0);
    let transform = Transform::from_translation(at.extend(0.0));
    app.world_mut().spawn((request, follower, transform)).id()
}

/// A hierarchical request with `first_cells_fast`, on a hierarchy built whole, is shown the
/// first cells of its path by Dispatch, in the frame of the request: from its start out of its
/// 64-cell sector, each step legal. The whole path that follows begins with them, extends
/// their revision, and is legal and near optimal; the agent moves in the request's frame.
#[test]
fn first_cells_fast_shows_the_first_cells_in_the_frame_of_the_request() {
    let mut app = app_with_city_hierarchy();
    let grid = current_grid(&app);
    let (start, goal) = (Cell::new(2, 2), Cell::new(158, 105));
    let agent = spawn_follower(&mut app, (start, goal), true);
    app.update();
    let shown = after_dispatch(&app, agent);
    assert!(shown.shows_first_cells(), "{shown:?}");
    assert_eq!(shown.status, PathStatus::Searching);
    assert_eq!(stats(&app).first_cells_shown, 1);
    let first = shown.cells();
    assert_eq!(first.first(), Some(&start));
    assert_eq!(illegal_walk(&grid, &first, Movement::EIGHT), None);
    let in_start_sector = |cell: &Cell| cell.x < 64 && cell.y < 64;
    assert!(
        first[..first.len() - 1].iter().all(in_start_sector),
        "{first:?}"
    );
    let last = first[first.len() - 1];
    assert!(
        last.x >= 63 || last.y >= 63,
        "{first:?} ends inside the start's sector"
    );
    assert_eq!(shown.waypoints().len(), first.len());
    settle(&mut app, &[agent]);
    let whole = path(&app, agent);
    assert!(!whole.shows_first_cells());
    assert_eq!(whole.extends(), Some(shown.revision));
    assert!(whole.cells().starts_with(&first));
    assert_legal_and_near_optimal(&grid, &whole, start, goal);
    let moved = app.world().get::<Transform>(agent).expect("an agent");
    let from = app.world().resource::<NavGrid>().cell_center(start);
    assert_ne!(moved.translation.truncate(), from, "the agent waited");
}

/// With smoothing, the first cells' waypoints are smoothed on their own, and the whole path's
/// waypoints begin with them, so that the follower walks on.
#[test]
fn smoothed_first_cells_begin_the_whole_path_s_waypoints() {
    let mut app = app_with_city_hierarchy();
    let grid = current_grid(&app);
    let (start, goal) = (Cell::new(2, 2), Cell::new(158, 105));
    let agent = spawn_follower(&mut app, (start, goal), true);
    let request = hierarchical(start, goal)
        .with_first_cells_fast(true)
        .with_smoothing(true);
    app.world_mut().entity_mut(agent).insert(request);
    app.update();
    let shown = after_dispatch(&app, agent);
    assert!(shown.shows_first_cells(), "{shown:?}");
    assert!(
        shown.waypoints().len() < shown.cells().len(),
        "not smoothed"
    );
    settle(&mut app, &[agent]);
    let whole = path(&app, agent);
    assert_eq!(whole.extends(), Some(shown.revision));
    assert!(whole.cells().starts_with(&shown.cells()));
    assert!(whole.waypoints().starts_with(&shown.waypoints()));
    assert_legal_and_near_optimal(&grid, &whole, start, goal);
}

/// Without `first_cells_fast`, or where the first cells cannot be had at once (start and goal
/// in one sector), Dispatch shows no cells: the agent waits for the whole path, as before.
#[test]
fn without_first_cells_fast_or_within_one_sector_dispatch_shows_no_cells() {
    let mut app = app_with_city_hierarchy();
    let grid = current_grid(&app);
    let far = spawn_follower(&mut app, (Cell::new(2, 2), Cell::new(158, 105)), false);
    let near = spawn_follower(&mut app, (Cell::new(2, 2), Cell::new(40, 40)), true);
    app.update();
    for agent in [far, near] {
        let shown = after_dispatch(&app, agent);
        assert!(!shown.shows_first_cells());
        assert!(shown.cells().is_empty(), "{shown:?}");
    }
    assert_eq!(stats(&app).first_cells_shown, 0);
    settle(&mut app, &[far, near]);
    assert_legal_and_near_optimal(&grid, &path(&app, near), Cell::new(2, 2), Cell::new(40, 40));
    assert_eq!(path(&app, near).extends(), None);
}

/// Requests with `first_cells_fast` whose first cells cannot be had at once (start and goal in
/// one sector) are served as without it: a crowd of them for one goal shares one batch, not a
/// search each.
#[test]
fn first_cells_fast_requests_without_first_cells_still_share_their_goal_s_batch() {
    let mut app = app_with_city_hierarchy();
    let grid = current_grid(&app);
    let goal = Cell::new(158, 105);
    // In the goal's 64-cell sector (x from 128, y from 64), on the street at y = 106.
    let starts: Vec<Cell> = (0..12).map(|i| Cell::new(128 + 2 * i, 106)).collect();
    assert!(starts.len() >= PathfindingSettings::default().goal_batch_min);
    let before = stats(&app);
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&start| {
            spawn(
                &mut app,
                hierarchical(start, goal).with_first_cells_fast(true),
            )
        })
        .collect();
    settle(&mut app, &agents);
    let after = stats(&app);
    assert_eq!(after.first_cells_shown, before.first_cells_shown);
    let batches = (after.goal_batches + after.sector_field_batches)
        - (before.goal_batches + before.sector_field_batches);
    assert_eq!(batches, 1, "{after:?}");
    assert_eq!(after.searches_started - before.searches_started, 1);
    for (&agent, &start) in agents.iter().zip(&starts) {
        assert_legal_and_near_optimal(&grid, &path(&app, agent), start, goal);
    }
}
