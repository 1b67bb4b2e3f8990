//! Headless property test of the whole plugin: random map edits, request changes and despawns
//! every frame never leave an illegal path in place, and the agents settle on the paths an
//! independent Dijkstra finds.

pub mod common;

use bevy::prelude::*;
use bevy_astar::prelude::*;
use common::closest_cell::{self, ClosestExpectation};
use common::footprint;
use common::reference_search::ReferenceGraph;
use common::{
    app_with_grid, current_grid, illegal_walk, path, path_check, random_grid, reference_cost,
    settle, spawn,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

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
    closest: Vec<bool>,
    /// Each agent's kind: a profile (0 the default, 1 `profile`, 2 the flyer) and a size.
    kinds: Vec<(usize, u8)>,
    /// The game's own terrain profile.
    profile: TerrainProfile,
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
        closest in prop::collection::vec(any::<bool>(), AGENTS),
        kinds in prop::collection::vec(
            prop_oneof![2 => Just((0usize, 1u8)), 3 => (0usize..3, 1u8..=3)],
            AGENTS,
        ),
        profile in random_grid::terrain_profile(),
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
            closest,
            kinds,
            profile,
            starts,
            goal,
            frames,
        }
    }
}

/// The game's request for agent `index` from `(x, y)` to `goal`.
fn game_request(
    game: &Game,
    ids: &[ProfileId; 3],
    index: usize,
    start: (u32, u32),
    goal: (u32, u32),
) -> PathRequest {
    let options = SearchOptions::default()
        .with_movement(game.movement)
        .with_cost(game.cost)
        .with_closest_reachable(game.closest[index]);
    let (profile, size) = game.kinds[index];
    PathRequest::new(Cell::from(start), Cell::from(goal))
        .with_options(options)
        .with_algorithm(game.algorithms[index])
        .with_profile(ids[profile])
        .with_size(size)
}

/// The grid the reference searches for a request's agent kind: the terrain
/// itself for one-cell agents of the default profile, else the terrain eroded by the footprint
/// with the profile's costs written in (brute force, without the crate's agent code).
fn reference_grid(app: &App, request: &PathRequest) -> Grid {
    let terrain = current_grid(app);
    let profiles = app.world().resource::<TerrainProfiles>();
    let profile = *profiles
        .get(request.profile)
        .expect("the game registered it");
    if request.profile == ProfileId::DEFAULT && request.size == 1 {
        terrain
    } else {
        footprint::eroded_grid(&terrain, &profile, request.size)
    }
}

/// Registers the game's profiles; returns their ids: the default, the game's own, the flyer.
fn register_profiles(app: &mut App, game: &Game) -> [ProfileId; 3] {
    let mut profiles = app.world_mut().resource_mut::<TerrainProfiles>();
    // A drawn profile may pass no terrain; agents of it then use the default.
    let own = profiles
        .add("own", game.profile)
        .unwrap_or(ProfileId::DEFAULT);
    let flyer = profiles
        .add("flyer", TerrainProfile::flyer())
        .expect("a fresh name");
    [ProfileId::DEFAULT, own, flyer]
}

/// Every found or partial path of every agent is a legal walk on the grid as it is now, as its
/// agent kind sees it.
fn check_found_paths_are_legal(app: &mut App, frame: usize) -> Result<(), TestCaseError> {
    let mut agents = app.world_mut().query::<(Entity, &PathRequest, &Path)>();
    let walks: Vec<(Entity, PathRequest, Path)> = agents
        .iter(app.world())
        .filter(|(_, _, found)| found.is_found() || found.is_partial())
        .map(|(entity, request, found)| (entity, *request, found.clone()))
        .collect();
    for (entity, request, found) in walks {
        {
            let grid = reference_grid(app, &request);
            let illegal = illegal_walk(&grid, &found.cells(), request.options.movement);
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
    let ids = register_profiles(&mut app, game);
    let mut agents: Vec<Entity> = game
        .starts
        .iter()
        .enumerate()
        .map(|(index, &start)| spawn(&mut app, game_request(game, &ids, index, start, game.goal)))
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
                    let request = game_request(game, &ids, agent, (x, y), game.goal);
                    agents[agent] = spawn(&mut app, request);
                }
            }
        }
        app.update();
        check_found_paths_are_legal(&mut app, frame)?;
    }
    settle(&mut app, &agents);
    check_found_paths_are_legal(&mut app, game.frames.len())?;
    for &agent in &agents {
        let request = *app.world().get::<PathRequest>(agent).expect("agent alive");
        let grid = reference_grid(&app, &request);
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
    let closest = options.closest_reachable && grid.is_walkable(start);
    if !grid.is_walkable(start) || !grid.is_walkable(goal) && !closest {
        prop_assert!(
            matches!(
                found.status,
                PathStatus::Invalid(_) | PathStatus::InvalidKind(_)
            ),
            "{request:?}: {:?}",
            found.status
        );
        return Ok(());
    }
    let Some(cheapest) = grid
        .is_walkable(goal)
        .then(|| reference_cost(grid, request))
        .flatten()
    else {
        prop_assert_eq!(found.status, PathStatus::NoPath, "{:?}", request);
        if closest {
            return check_closest_path(grid, request, found, optimal);
        }
        prop_assert!(found.cells().is_empty(), "{request:?}");
        return Ok(());
    };
    prop_assert!(found.is_found(), "{request:?}: {:?}", found.status);
    let walk = astar_grid::Path {
        cells: found.cells().to_vec(),
        cost: found.cost(),
    };
    let legal = path_check::check_path(grid, &walk, start, goal, options.movement, options.cost);
    prop_assert!(legal.is_ok(), "{request:?}: {legal:?}");
    if optimal {
        prop_assert!(
            path_check::costs_match(found.cost(), cheapest),
            "{request:?}: cost {} against {cheapest}",
            found.cost()
        );
    } else {
        prop_assert!(
            found.cost() >= cheapest * (1.0 - 1e-9),
            "{request:?} beat the optimum"
        );
    }
    Ok(())
}

/// A settled path to the closest reachable cell ends at the distance from the goal that the
/// documented rule picks, legally; at the cell and cost the rule picks when `optimal`, and
/// otherwise no cheaper than the optimum to its end.
fn check_closest_path(
    grid: &Grid,
    request: &PathRequest,
    found: &Path,
    optimal: bool,
) -> Result<(), TestCaseError> {
    let options = request.options;
    let expected = ClosestExpectation::new(
        grid,
        options.movement,
        options.cost,
        request.start,
        request.goal,
    );
    prop_assert!(found.is_partial(), "{request:?}");
    let cells = found.cells();
    let end = *cells.last().expect("a partial path");
    let illegal = illegal_walk(grid, &cells, options.movement);
    prop_assert!(illegal.is_none(), "{request:?}: {illegal:?}");
    prop_assert_eq!(cells.first(), Some(&request.start));
    let distance = closest_cell::cell_distance(options.movement.neighborhood, end, request.goal);
    prop_assert_eq!(
        distance,
        expected.distance,
        "{:?} ended at {}",
        request,
        end
    );
    if optimal {
        prop_assert!(
            expected.tied.iter().any(|&(cell, _)| cell == end),
            "{request:?} ended at {end}, expected {:?}",
            expected.tied
        );
        prop_assert!(
            path_check::costs_match(found.cost(), expected.cost),
            "{request:?}: cost {} against {}",
            found.cost(),
            expected.cost
        );
    } else {
        let cheapest = ReferenceGraph::new(grid, options.movement, options.cost)
            .cost(request.start, end)
            .expect("the end is reachable");
        prop_assert!(
            found.cost() >= cheapest * (1.0 - 1e-9),
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
