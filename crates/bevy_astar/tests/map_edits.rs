//! Headless tests of paths under map edits: a wall beside a diagonal step (the corner cells a
//! step may not cut) re-paths the agent, and drops the result or cache entry that relied on
//! it; flow fields live only while requests need them; and random edits, request changes and
//! despawns never leave an illegal path in place, and settle on optimal paths.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::{
    MAX_FRAMES, app_with_grid, assert_legal_and_optimal, block, current_grid, illegal_walk, path,
    path_check, random_grid, reference_cost, settle, spawn, stats,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// The diagonal of an open 6 x 6 grid, and its first step's corner.
const START: Cell = Cell::new(0, 0);
const GOAL: Cell = Cell::new(5, 5);
const FIRST_CORNER: Cell = Cell::new(1, 0);

fn diagonal() -> Vec<Cell> {
    (0..6).map(|i| Cell::new(i, i)).collect()
}

/// An app on an open 6 x 6 grid whose agent has settled on the diagonal path.
fn agent_on_the_diagonal(plugin: AStarPlugin, algorithm: PathAlgorithm) -> (App, Entity) {
    let mut app = app_with_grid(plugin, Grid::new(6, 6));
    let agent = spawn(
        &mut app,
        PathRequest::new(START, GOAL).with_algorithm(algorithm),
    );
    settle(&mut app, &[agent]);
    assert_eq!(path(&app, agent).cells, diagonal());
    (app, agent)
}

#[test]
fn a_wall_at_the_corner_of_a_diagonal_step_repaths_the_agent() {
    for algorithm in [
        PathAlgorithm::AStar,
        PathAlgorithm::JumpPoint,
        PathAlgorithm::FlowField,
    ] {
        let (mut app, agent) = agent_on_the_diagonal(AStarPlugin::default(), algorithm);
        let revision = path(&app, agent).revision;
        block(&mut app, FIRST_CORNER);
        settle(&mut app, &[agent]);
        let repathed = path(&app, agent);
        assert!(repathed.revision > revision, "{algorithm:?} kept its path");
        assert_legal_and_optimal(
            &current_grid(&app),
            &repathed,
            &PathRequest::new(START, GOAL),
        );
        assert_eq!(stats(&app).paths_invalidated, 1);
    }
}

#[test]
fn a_wall_at_a_corner_the_rule_lets_steps_cut_leaves_the_path() {
    let request = PathRequest::new(START, GOAL)
        .with_options(SearchOptions::default().with_movement(Movement::eight(CornerRule::Any)));
    let mut app = app_with_grid(AStarPlugin::default(), Grid::new(6, 6));
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    let before = path(&app, agent);
    assert_eq!(before.cells, diagonal());
    block(&mut app, FIRST_CORNER);
    settle(&mut app, &[agent]);
    assert_eq!(path(&app, agent).revision, before.revision);
    assert_eq!(stats(&app).paths_invalidated, 0);
}

/// Blocks the first step's corner once the first search was dispatched, before it is applied.
fn wall_the_corner_mid_search(stats: Res<PathfindingStats>, mut nav: ResMut<NavGrid>) {
    if stats.searches_started == 1 && nav.is_walkable(FIRST_CORNER) {
        nav.block(FIRST_CORNER).expect("inside the grid");
    }
}

#[test]
fn a_result_whose_diagonal_a_wall_cut_meanwhile_is_never_applied() {
    let mut app = app_with_grid(AStarPlugin::default(), Grid::new(6, 6));
    app.add_systems(
        Update,
        wall_the_corner_mid_search
            .after(AStarSystems::Dispatch)
            .before(AStarSystems::Apply),
    );
    let agent = spawn(&mut app, PathRequest::new(START, GOAL));
    for _ in 0..MAX_FRAMES {
        app.update();
        let current = path(&app, agent);
        if current.is_found() {
            let grid = current_grid(&app);
            assert_eq!(illegal_walk(&grid, &current.cells, Movement::EIGHT), None);
            if stats(&app).in_flight == 0 {
                break;
            }
        }
    }
    assert_legal_and_optimal(
        &current_grid(&app),
        &path(&app, agent),
        &PathRequest::new(START, GOAL),
    );
    assert_eq!(stats(&app).stale_results_dropped, 1);
}

#[test]
fn a_cached_path_whose_corner_was_walled_is_not_served_again() {
    let (mut app, agent) = agent_on_the_diagonal(AStarPlugin::default(), PathAlgorithm::AStar);
    app.world_mut().despawn(agent);
    app.update();
    block(&mut app, FIRST_CORNER);
    app.update();
    let hits = stats(&app).cache_hits;
    let newcomer = spawn(&mut app, PathRequest::new(START, GOAL));
    settle(&mut app, &[newcomer]);
    assert_legal_and_optimal(
        &current_grid(&app),
        &path(&app, newcomer),
        &PathRequest::new(START, GOAL),
    );
    assert_eq!(stats(&app).cache_hits, hits);
}

#[test]
fn a_wall_at_the_corner_of_a_diagonal_step_is_repaired_around() {
    let plugin = AStarPlugin::default().with_path_repair(true);
    let (mut app, agent) = agent_on_the_diagonal(plugin, PathAlgorithm::AStar);
    block(&mut app, FIRST_CORNER);
    settle(&mut app, &[agent]);
    let repaired = path(&app, agent);
    let grid = current_grid(&app);
    assert_eq!(illegal_walk(&grid, &repaired.cells, Movement::EIGHT), None);
    assert_eq!(
        (repaired.cells.first(), repaired.cells.last()),
        (Some(&START), Some(&GOAL))
    );
    assert_eq!(stats(&app).paths_repaired, 1);
}

/// Agents that each ask for a flow field to a random goal and live `lifetime` frames, spawned
/// `per_frame` at a time for `frames` frames on a static map; then all of them are despawned.
fn churn_flow_field_requests(app: &mut App, frames: usize, per_frame: usize, lifetime: usize) {
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
    }
    for (_, agent) in alive {
        app.world_mut().despawn(agent);
    }
}

#[test]
fn flow_fields_are_let_go_of_once_no_request_needs_them() {
    let grid = Grid::from_fn(48, 40, |cell| u8::from(cell.x % 8 != 4 || cell.y % 10 == 0));
    let mut app = app_with_grid(AStarPlugin::default(), grid);
    churn_flow_field_requests(&mut app, 300, 10, 20);
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
    let agents: Vec<Entity> = requests
        .iter()
        .map(|&request| spawn(&mut app, request))
        .collect();
    settle(&mut app, &agents);
    app.update();
    assert!(stats(&app).flow_fields <= capacity, "{:?}", stats(&app));
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

/// One frame's worth of random interference with a running game.
#[derive(Clone, Debug)]
enum Interference {
    /// Toggle a cell between blocked and walkable (or give it a terrain cost).
    Edit { x: u32, y: u32, value: u8 },
    /// Move an agent's goal.
    Retarget { agent: usize, x: u32, y: u32 },
    /// Despawn an agent and spawn a new one.
    Replace { agent: usize, x: u32, y: u32 },
}

fn interference(side: u32, agents: usize) -> impl Strategy<Value = Interference> {
    prop_oneof![
        3 => (0..side, 0..side, prop_oneof![Just(0u8), Just(1u8), 1u8..=4])
            .prop_map(|(x, y, value)| Interference::Edit { x, y, value }),
        1 => (0..agents, 0..side, 0..side)
            .prop_map(|(agent, x, y)| Interference::Retarget { agent, x, y }),
        1 => (0..agents, 0..side, 0..side)
            .prop_map(|(agent, x, y)| Interference::Replace { agent, x, y }),
    ]
}

/// A random game: settings, the agents' requests, and what happens frame by frame.
#[derive(Clone, Debug)]
struct Game {
    repair: bool,
    policy: InvalidationPolicy,
    goal_batch_min: usize,
    cache_capacity: usize,
    movement: Movement,
    cost: CostModel,
    algorithms: Vec<PathAlgorithm>,
    starts: Vec<(u32, u32)>,
    goal: (u32, u32),
    frames: Vec<Vec<Interference>>,
}

const SIDE: u32 = 10;
const AGENTS: usize = 12;

prop_compose! {
    fn game()(
        repair in any::<bool>(),
        policy in prop::sample::select(vec![
            InvalidationPolicy::TouchedCells,
            InvalidationPolicy::TouchedOrOpened,
        ]),
        goal_batch_min in prop::sample::select(vec![0usize, 2, 8]),
        cache_capacity in prop::sample::select(vec![0usize, 4, 1024]),
        movement in random_grid::movement(),
        cost in random_grid::any_cost_model(),
        algorithms in prop::collection::vec(
            prop::sample::select(vec![
                PathAlgorithm::AStar,
                PathAlgorithm::JumpPoint,
                PathAlgorithm::FlowField,
            ]),
            AGENTS,
        ),
        starts in prop::collection::vec((0..SIDE, 0..SIDE), AGENTS),
        goal in (0..SIDE, 0..SIDE),
        frames in prop::collection::vec(
            prop::collection::vec(interference(SIDE, AGENTS), 0..3),
            40,
        ),
    ) -> Game {
        Game {
            repair,
            policy,
            goal_batch_min,
            cache_capacity,
            movement,
            cost,
            algorithms,
            starts,
            goal,
            frames,
        }
    }
}

/// The game's request for agent `index` from `(x, y)` to `goal`.
fn game_request(game: &Game, index: usize, start: (u32, u32), goal: (u32, u32)) -> PathRequest {
    let options = SearchOptions::default()
        .with_movement(game.movement)
        .with_cost(game.cost);
    PathRequest::new(Cell::from(start), Cell::from(goal))
        .with_options(options)
        .with_algorithm(game.algorithms[index])
}

/// Every found path of every agent is a legal walk on the grid as it is now.
fn check_found_paths_are_legal(app: &mut App, frame: usize) -> Result<(), TestCaseError> {
    let grid = current_grid(app);
    let mut agents = app.world_mut().query::<(Entity, &PathRequest, &Path)>();
    for (entity, request, found) in agents.iter(app.world()) {
        if found.is_found() {
            let illegal = illegal_walk(&grid, &found.cells, request.options.movement);
            prop_assert!(
                illegal.is_none(),
                "frame {frame}: {entity} holds an illegal path: {illegal:?}"
            );
        }
    }
    Ok(())
}

fn play(game: &Game) -> Result<(), TestCaseError> {
    let plugin = AStarPlugin::default()
        .with_path_repair(game.repair)
        .with_invalidation(game.policy)
        .with_goal_batch_min(game.goal_batch_min)
        .with_cache_capacity(game.cache_capacity);
    let mut app = app_with_grid(plugin, Grid::new(SIDE, SIDE));
    let mut agents: Vec<Entity> = game
        .starts
        .iter()
        .enumerate()
        .map(|(index, &start)| spawn(&mut app, game_request(game, index, start, game.goal)))
        .collect();
    for (frame, events) in game.frames.iter().enumerate() {
        for event in events {
            match *event {
                Interference::Edit { x, y, value } => {
                    let mut nav = app.world_mut().resource_mut::<NavGrid>();
                    nav.set_cost(Cell::new(x, y), value)
                        .expect("inside the grid");
                }
                Interference::Retarget { agent, x, y } => {
                    let mut request = app
                        .world_mut()
                        .get_mut::<PathRequest>(agents[agent])
                        .expect("agent alive");
                    request.goal = Cell::new(x, y);
                }
                Interference::Replace { agent, x, y } => {
                    app.world_mut().despawn(agents[agent]);
                    let request = game_request(game, agent, (x, y), game.goal);
                    agents[agent] = spawn(&mut app, request);
                }
            }
        }
        app.update();
        check_found_paths_are_legal(&mut app, frame)?;
    }
    settle(&mut app, &agents);
    check_found_paths_are_legal(&mut app, game.frames.len())?;
    let grid = current_grid(&app);
    for &agent in &agents {
        let request = *app.world().get::<PathRequest>(agent).expect("agent alive");
        // Only a policy that re-searches when cells open promises the cheapest path, and only
        // without repair, whose detours may be dearer.
        let optimal = game.policy == InvalidationPolicy::TouchedOrOpened && !game.repair;
        check_settled_path(&grid, &request, &path(&app, agent), optimal)?;
    }
    Ok(())
}

/// A settled agent's path is what the reference Dijkstra says: a failure when an endpoint is
/// blocked, no path when there is none, and otherwise a legal path, as cheap as the optimum
/// when `optimal` (else no cheaper than it).
fn check_settled_path(
    grid: &Grid,
    request: &PathRequest,
    found: &Path,
    optimal: bool,
) -> Result<(), TestCaseError> {
    let PathRequest {
        start,
        goal,
        options,
        ..
    } = *request;
    if !grid.is_walkable(start) || !grid.is_walkable(goal) {
        prop_assert!(
            matches!(found.status, PathStatus::Invalid(_)),
            "{request:?}: {:?}",
            found.status
        );
        return Ok(());
    }
    let Some(cheapest) = reference_cost(grid, request) else {
        prop_assert_eq!(found.status, PathStatus::NoPath, "{:?}", request);
        return Ok(());
    };
    prop_assert!(found.is_found(), "{request:?}: {:?}", found.status);
    let walk = astar_grid::Path {
        cells: found.cells.clone(),
        cost: found.cost,
    };
    let legal = path_check::check_path(grid, &walk, start, goal, options.movement, options.cost);
    prop_assert!(legal.is_ok(), "{request:?}: {legal:?}");
    if optimal {
        prop_assert!(
            path_check::costs_match(found.cost, cheapest),
            "{request:?}: cost {} against {cheapest}",
            found.cost
        );
    } else {
        prop_assert!(
            found.cost >= cheapest * (1.0 - 1e-9),
            "{request:?} beat the optimum"
        );
    }
    Ok(())
}

#[test]
fn random_edits_never_leave_an_illegal_path_and_settle_on_optimal_ones() {
    let config = Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let result = runner.run(&game(), |game| play(&game));
    if let Err(error) = result {
        panic!("{error}");
    }
}
