//! Headless tests of agent kinds through the plugin: sizes and terrain profiles on requests,
//! each kind searching its own derived grid, and the connectivity of each kind, checked against
//! the brute-force eroded grid.

pub mod common;

use bevy::prelude::*;
use bevy_astar::astar_grid::agent::moving_ai::TREES;
use bevy_astar::astar_grid::agent::{AgentError, Endpoint, FootprintProblem};
use bevy_astar::prelude::*;
use bevy_astar::{KindError, NavChange, NavConnectivity, TerrainProfiles};
use common::footprint::eroded_grid;
use common::reference_search::ReferenceGraph;
use common::{
    app_with_grid, assert_legal_and_optimal, block, current_grid, path, random_grid, settle, spawn,
    stats,
};
use proptest::prelude::*;

/// A 12x8 map: a wall of trees at x = 5 with a one-cell gap at y = 1 and a two-cell gap at
/// y = 5..=6. Walkers take the near gap, 2x2 agents the wide one, flyers fly over.
fn forest() -> Grid {
    Grid::from_fn(12, 8, |cell| {
        if cell.x == 5 && ![1, 5, 6].contains(&cell.y) {
            TREES
        } else {
            1
        }
    })
}

/// The forest as an agent of `size` under `profile` sees it, built by brute force.
fn seen_by(app: &App, profile: ProfileId, size: u8) -> Grid {
    let profiles = app.world().resource::<TerrainProfiles>();
    let profile = *profiles.get(profile).expect("registered");
    eroded_grid(&current_grid(app), &profile, size)
}

/// An app on the forest with the walker and flyer profiles registered.
fn forest_app() -> (App, ProfileId, ProfileId) {
    let mut app = app_with_grid(AStarPlugin::default(), forest());
    let mut profiles = app.world_mut().resource_mut::<TerrainProfiles>();
    let walker = profiles
        .add("walker", TerrainProfile::walker())
        .expect("new name");
    let flyer = profiles
        .add("flyer", TerrainProfile::flyer())
        .expect("new name");
    (app, walker, flyer)
}

#[test]
fn each_kind_takes_its_own_way_through_the_forest() {
    let (mut app, walker, flyer) = forest_app();
    let (start, goal) = (Cell::new(1, 1), Cell::new(9, 1));
    let algorithms = [
        PathAlgorithm::AStar,
        PathAlgorithm::JumpPoint,
        PathAlgorithm::FlowField,
    ];
    let mut agents = Vec::new();
    for algorithm in algorithms {
        for (profile, size) in [(walker, 1), (walker, 2), (flyer, 1), (flyer, 3)] {
            let request = PathRequest::new(start, goal)
                .with_algorithm(algorithm)
                .with_profile(profile)
                .with_size(size);
            agents.push((spawn(&mut app, request), request));
        }
    }
    let entities: Vec<Entity> = agents.iter().map(|&(entity, _)| entity).collect();
    settle(&mut app, &entities);
    for (agent, request) in &agents {
        let seen = seen_by(&app, request.profile, request.size);
        let found = path(&app, *agent);
        assert_legal_and_optimal(&seen, &found, request);
        // Jump points run on the navigation grid's jump grid only: other kinds run A*.
        assert_ne!(found.algorithm, PathAlgorithm::JumpPoint, "{request:?}");
    }
    let cost = |profile, size| {
        let (agent, _) = agents
            .iter()
            .find(|(_, request)| request.profile == profile && request.size == size)
            .expect("spawned");
        path(&app, *agent).cost()
    };
    // The boss goes round by the wide gap; the flyer straight over the trees.
    assert!(cost(walker, 2) > cost(walker, 1));
    assert!((cost(flyer, 1) - 8.0).abs() < 1e-9);
    // Flow-field requests of different kinds for one goal do not share a field.
    assert_eq!(stats(&app).flow_fields, 4);
}

#[test]
fn a_wall_that_narrows_a_wide_path_cuts_it() {
    let (mut app, walker, _) = forest_app();
    let request = PathRequest::new(Cell::new(1, 5), Cell::new(9, 5))
        .with_profile(walker)
        .with_size(2);
    let boss = spawn(&mut app, request);
    settle(&mut app, &[boss]);
    let before = path(&app, boss);
    assert_legal_and_optimal(&seen_by(&app, walker, 2), &before, &request);
    assert!(
        before.cells().iter().all(|cell| cell.y == 5),
        "{:?}",
        before.cells()
    );
    // The cell under the bottom row of the boss's footprint in the gap: on none of its anchors.
    block(&mut app, Cell::new(5, 6));
    assert!(!before.cells().contains(&Cell::new(5, 6)));
    settle(&mut app, &[boss]);
    let after = path(&app, boss);
    assert!(after.revision > before.revision);
    assert_eq!(after.status, PathStatus::NoPath);
    // One-cell walkers still pass the gap's top cell.
    let walker_agent = spawn(&mut app, request.with_size(1));
    settle(&mut app, &[walker_agent]);
    assert!(path(&app, walker_agent).is_found());
    assert!(stats(&app).paths_invalidated >= 1);
}

#[test]
fn fat_agents_walk_through_their_footprint_centres() {
    let (mut app, walker, _) = forest_app();
    let request = PathRequest::new(Cell::new(0, 0), Cell::new(2, 0))
        .with_profile(walker)
        .with_size(2);
    let agent = app
        .world_mut()
        .spawn((request, PathFollower::new(40.0), Transform::default()))
        .id();
    settle(&mut app, &[agent]);
    let found = path(&app, agent);
    let nav = app.world().resource::<NavGrid>();
    let centres: Vec<Vec2> = found
        .cells()
        .iter()
        .map(|&cell| nav.footprint_center(cell, 2))
        .collect();
    assert_eq!(*found.waypoints(), *centres);
    // Cells are 10 units wide: the 2x2 footprint at (2, 0) is centred on (30, 10).
    assert_eq!(centres.last(), Some(&Vec2::new(30.0, 10.0)));
    for _ in 0..200 {
        app.update();
    }
    let end = app.world().get::<Transform>(agent).expect("spawned");
    assert!(end.translation.truncate().distance(Vec2::new(30.0, 10.0)) < 1e-3);
}

#[test]
fn a_fat_agent_that_starts_at_itself_is_searched_from_its_anchor() {
    let (mut app, walker, _) = forest_app();
    let request = PathRequest::new(Cell::new(0, 0), Cell::new(9, 5))
        .with_profile(walker)
        .with_size(2)
        .with_start_at_agent(true);
    let nav = app.world().resource::<NavGrid>();
    // The footprint centre of anchor (2, 3).
    let at = nav.footprint_center(Cell::new(2, 3), 2).extend(0.0);
    let agent = app
        .world_mut()
        .spawn((request, Transform::from_translation(at)))
        .id();
    settle(&mut app, &[agent]);
    assert_eq!(path(&app, agent).cells().first(), Some(&Cell::new(2, 3)));
}

#[test]
fn bad_kinds_fail_with_the_reason() {
    let (mut app, walker, _) = forest_app();
    let mut elsewhere = TerrainProfiles::default();
    for name in ["a", "b", "c", "d"] {
        elsewhere
            .add(name, TerrainProfile::walker())
            .expect("new name");
    }
    let unknown = elsewhere.id("d").expect("added");
    let plain = PathRequest::new(Cell::new(0, 0), Cell::new(9, 1));
    let cases = [
        (
            plain.with_profile(unknown),
            KindError::UnknownProfile(unknown),
        ),
        (
            plain.with_size(0),
            KindError::Agent(AgentError::InvalidSize { size: 0 }),
        ),
        (
            plain.with_size(9),
            KindError::Agent(AgentError::InvalidSize { size: 9 }),
        ),
        // The 2x2 footprint at (4, 0) covers the trees at (5, 0).
        (
            PathRequest::new(Cell::new(4, 0), Cell::new(9, 1))
                .with_profile(walker)
                .with_size(2),
            KindError::Agent(AgentError::FootprintDoesNotFit {
                endpoint: Endpoint::Start,
                cell: Cell::new(4, 0),
                size: 2,
                problem: FootprintProblem::Impassable(Cell::new(5, 0)),
            }),
        ),
        // The 2x2 footprint at (11, 1) leaves the map.
        (
            PathRequest::new(Cell::new(0, 0), Cell::new(11, 1))
                .with_profile(walker)
                .with_size(2),
            KindError::Agent(AgentError::FootprintDoesNotFit {
                endpoint: Endpoint::Goal,
                cell: Cell::new(11, 1),
                size: 2,
                problem: FootprintProblem::OutsideMap,
            }),
        ),
    ];
    let agents: Vec<Entity> = cases
        .iter()
        .map(|(request, _)| spawn(&mut app, *request))
        .collect();
    settle(&mut app, &agents);
    for (agent, (request, error)) in agents.iter().zip(&cases) {
        assert_eq!(
            path(&app, *agent).status,
            PathStatus::InvalidKind(*error),
            "{request:?}"
        );
    }
    // Once the trees under the footprint are cut down, the boss at (4, 0) sets off.
    let fitting = agents[3];
    for y in [0, 1] {
        app.world_mut()
            .resource_mut::<NavGrid>()
            .set_cost(Cell::new(5, y), 1)
            .expect("inside the grid");
    }
    settle(&mut app, &[fitting]);
    assert!(path(&app, fitting).is_found());
    // Once the profile the first request names is registered, it is searched.
    let named_unknown = agents[0];
    let mut profiles = app.world_mut().resource_mut::<TerrainProfiles>();
    for name in ["heavy", "boat"] {
        profiles
            .add(name, TerrainProfile::heavy())
            .expect("new name");
    }
    assert!(profiles.get(unknown).is_some());
    settle(&mut app, &[named_unknown]);
    assert!(path(&app, named_unknown).is_found());
}

#[test]
fn an_agent_larger_than_the_map_fails_with_the_reason() {
    let mut app = app_with_grid(AStarPlugin::default(), Grid::new(6, 4));
    let request = PathRequest::new(Cell::new(0, 0), Cell::new(1, 0)).with_size(5);
    let agent = spawn(&mut app, request);
    settle(&mut app, &[agent]);
    assert_eq!(
        path(&app, agent).status,
        PathStatus::InvalidKind(KindError::Agent(AgentError::LargerThanMap {
            size: 5,
            width: 6,
            height: 4,
        }))
    );
}

/// One random edit of the connectivity game: a cell's terrain value, and a cell to ask about.
#[derive(Clone, Debug)]
struct Probe {
    edit: (u32, u32, u8),
    blocked: (u32, u32),
    from: (u32, u32),
}

fn probes() -> impl Strategy<Value = Vec<Probe>> {
    prop::collection::vec(
        (
            (
                0..SIDE,
                0..SIDE,
                prop_oneof![Just(0u8), Just(1u8), Just(TREES), 2u8..=4],
            ),
            (0..SIDE, 0..SIDE),
            (0..SIDE, 0..SIDE),
        )
            .prop_map(|(edit, blocked, from)| Probe {
                edit,
                blocked,
                from,
            }),
        1..30,
    )
}

const SIDE: u32 = 9;

/// Whether `from` reaches `to` on `grid` under `movement`, by the independent reference.
fn reference_reaches(grid: &Grid, movement: Movement, from: Cell, to: Cell) -> bool {
    grid.is_walkable(from)
        && grid.is_walkable(to)
        && ReferenceGraph::new(grid, movement, CostModel::Octile)
            .cost(from, to)
            .is_some()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// The plugin's connectivity of every tracked kind agrees, frame after frame of random
    /// edits, with reachability on the brute-force eroded grid; and its tower check with
    /// reachability once the cell is blocked.
    #[test]
    fn connectivity_follows_every_kind_through_random_edits(
        probes in probes(),
        movement in random_grid::movement(),
        size in 1u8..=3,
    ) {
        let mut app = app_with_grid(AStarPlugin::default(), Grid::new(SIDE, SIDE));
        let walker = app
            .world_mut()
            .resource_mut::<TerrainProfiles>()
            .add("walker", TerrainProfile::walker())
            .expect("new name");
        let kinds = [(ProfileId::DEFAULT, 1), (walker, size), (ProfileId::DEFAULT, size)];
        for (profile, size) in kinds {
            app.world_mut()
                .resource_mut::<NavConnectivity>()
                .track(profile, size, movement);
        }
        let goal = Cell::new(0, 0);
        for probe in &probes {
            let (x, y, value) = probe.edit;
            app.world_mut()
                .resource_mut::<NavGrid>()
                .set_cost(Cell::new(x, y), value)
                .expect("inside the grid");
            app.update();
            let regions = app.world().resource::<NavConnectivity>();
            let from = Cell::from(probe.from);
            let blocked = Cell::from(probe.blocked);
            for (profile, size) in kinds {
                let seen = seen_by(&app, profile, size);
                let reaches = regions.reaches(profile, size, movement, from, goal);
                prop_assert_eq!(
                    reaches,
                    Some(reference_reaches(&seen, movement, from, goal)),
                    "{:?} size {} from {}", profile, size, from
                );
                let check = regions
                    .check_blocking(profile, size, movement, &[blocked], &[from], goal)
                    .expect("tracked")
                    .expect("on the map");
                let mut walled = current_grid(&app);
                walled.set_cost(blocked, 0).expect("on the map");
                let profile_table = *app
                    .world()
                    .resource::<TerrainProfiles>()
                    .get(profile)
                    .expect("registered");
                let walled = eroded_grid(&walled, &profile_table, size);
                let still = reference_reaches(&walled, movement, from, goal);
                let now = reference_reaches(&seen, movement, from, goal);
                // The goal itself taken away counts, whoever could reach it.
                let goal_lost = seen.is_walkable(goal) && !walled.is_walkable(goal);
                prop_assert_eq!(
                    check.disconnects(),
                    now && !still || goal_lost,
                    "{:?} size {}: blocking {} between {} and {}", profile, size, blocked, from, goal
                );
            }
        }
    }
}

/// Replaces the flyer profile with the walker's on the frame it is asked to, after the map
/// change is published and before dispatch, and touches a request of another kind so that
/// dispatch builds that kind's grid in the same frame.
#[derive(Resource)]
struct ReplaceFlyerAt {
    frame: u32,
    flyer: ProfileId,
    other: Entity,
}

fn replace_flyer(
    mut at: ResMut<ReplaceFlyerAt>,
    mut profiles: ResMut<TerrainProfiles>,
    mut requests: Query<&mut PathRequest>,
) {
    at.frame = at.frame.saturating_sub(1);
    if at.frame == 1 {
        profiles
            .replace(at.flyer, TerrainProfile::walker())
            .expect("a registered profile");
        if let Ok(mut request) = requests.get_mut(at.other) {
            request.set_changed();
        }
    }
}

#[test]
fn a_profile_replaced_between_stages_re_paths_its_agents() {
    let (mut app, walker, flyer) = forest_app();
    let flyer_request = PathRequest::new(Cell::new(1, 3), Cell::new(9, 3)).with_profile(flyer);
    let flying = spawn(&mut app, flyer_request);
    let other = spawn(
        &mut app,
        PathRequest::new(Cell::new(1, 1), Cell::new(9, 1)).with_profile(walker),
    );
    settle(&mut app, &[flying, other]);
    let over_the_trees = path(&app, flying);
    assert!(over_the_trees.cells().contains(&Cell::new(5, 3)));
    app.insert_resource(ReplaceFlyerAt {
        frame: 3,
        flyer,
        other,
    })
    .add_systems(
        Update,
        replace_flyer
            .after(PathfindingSystems::Invalidate)
            .before(PathfindingSystems::Dispatch),
    );
    for _ in 0..4 {
        app.update();
    }
    settle(&mut app, &[flying, other]);
    let after = path(&app, flying);
    assert!(after.revision > over_the_trees.revision);
    assert_legal_and_optimal(&seen_by(&app, flyer, 1), &after, &flyer_request);
}

/// Replaces the navigation grid after Invalidate on the frame it is asked to.
#[derive(Resource)]
struct ReplaceGridAt(u32);

fn replace_grid(mut at: ResMut<ReplaceGridAt>, mut nav: ResMut<NavGrid>) {
    at.0 = at.0.saturating_sub(1);
    if at.0 == 1 {
        let mut walled = forest();
        for y in 0..8 {
            walled.set_cost(Cell::new(7, y), 0).expect("on the map");
        }
        nav.replace_grid(walled);
    }
}

#[test]
fn a_result_searched_on_a_replaced_grid_is_not_applied() {
    for (profile, size) in [(ProfileId::DEFAULT, 1), (ProfileId::DEFAULT, 2)] {
        let mut app = app_with_grid(AStarPlugin::default(), forest());
        // The grid is replaced in the frame the search starts, between Dispatch and Apply.
        app.insert_resource(ReplaceGridAt(2)).add_systems(
            Update,
            replace_grid
                .after(PathfindingSystems::Dispatch)
                .before(PathfindingSystems::Apply),
        );
        let request = PathRequest::new(Cell::new(0, 6), Cell::new(10, 6))
            .with_profile(profile)
            .with_size(size);
        let agent = spawn(&mut app, request);
        settle(&mut app, &[agent]);
        // Column x = 7 is walled on the new grid: no path, whatever the old grid allowed.
        assert_eq!(path(&app, agent).status, PathStatus::NoPath, "size {size}");
    }
}

/// Changes the terrain cost of the far corner of the forest every frame, between Dispatch and
/// Apply: an edit no 2x2 path near the start can depend on.
fn edit_far_corner(mut nav: ResMut<NavGrid>, mut cost: Local<u8>) {
    *cost = if *cost == 2 { 3 } else { 2 };
    let _ = nav.set_cost(Cell::new(11, 7), *cost);
}

#[test]
fn edits_elsewhere_do_not_hold_back_a_fat_agents_results() {
    let (mut app, walker, _) = forest_app();
    app.add_systems(
        Update,
        edit_far_corner
            .after(PathfindingSystems::Dispatch)
            .before(PathfindingSystems::Apply),
    );
    let request = PathRequest::new(Cell::new(0, 0), Cell::new(3, 2))
        .with_profile(walker)
        .with_size(2);
    let boss = spawn(&mut app, request);
    settle(&mut app, &[boss]);
    let found = path(&app, boss);
    assert_legal_and_optimal(&seen_by(&app, walker, 2), &found, &request);
}

/// Every [`NavChanged`] the plugin published, in order.
#[derive(Resource, Default)]
struct Published(Vec<NavChanged>);

fn record_published(mut messages: MessageReader<NavChanged>, mut published: ResMut<Published>) {
    published.0.extend(messages.read().cloned());
}

/// The published messages that tell agents of `size` cells under `profile` the whole map
/// changed.
fn whole_map_changes_for(app: &App, profile: ProfileId, size: u8) -> usize {
    app.world()
        .resource::<Published>()
        .0
        .iter()
        .filter(|message| {
            message
                .change_for(profile, size)
                .is_some_and(NavChange::is_whole_map)
        })
        .count()
}

fn recording(mut app: App) -> App {
    app.init_resource::<Published>().add_systems(
        Update,
        record_published
            .after(PathfindingSystems::Invalidate)
            .before(PathfindingSystems::Dispatch),
    );
    app
}

/// Frames enough for two sweeps of unused derived grids.
const TWO_SWEEPS: usize = 2 * 256 + 2;

#[test]
fn a_kind_no_request_names_any_more_is_told_its_grid_is_gone() {
    let (app, walker, _) = forest_app();
    let mut app = recording(app);
    let request = PathRequest::new(Cell::new(1, 6), Cell::new(9, 6)).with_size(2);
    let kept = spawn(&mut app, request.with_profile(walker));
    let dropped = spawn(&mut app, request);
    settle(&mut app, &[kept, dropped]);
    let before = whole_map_changes_for(&app, ProfileId::DEFAULT, 2);
    assert_eq!(whole_map_changes_for(&app, walker, 2), before);
    app.world_mut().entity_mut(dropped).remove::<PathRequest>();
    for _ in 0..TWO_SWEEPS {
        app.update();
    }
    // The default profile's 2x2 grid went with its last request: its kind hears the whole map
    // changed (so no cached result of it outlives the grid), once. The walker's stays.
    assert_eq!(
        whole_map_changes_for(&app, ProfileId::DEFAULT, 2),
        before + 1
    );
    assert_eq!(whole_map_changes_for(&app, walker, 2), before);
    // Asked for again, the kind's grid is built anew and its search is right.
    let again = PathRequest::new(Cell::new(1, 5), Cell::new(9, 6)).with_size(2);
    let agent = spawn(&mut app, again);
    settle(&mut app, &[agent]);
    let found = path(&app, agent);
    assert!(found.is_found());
    assert_legal_and_optimal(&seen_by(&app, ProfileId::DEFAULT, 2), &found, &again);
}

#[test]
fn removing_the_navigation_grid_tells_every_kind() {
    let (app, walker, _) = forest_app();
    let mut app = recording(app);
    let fat = spawn(
        &mut app,
        PathRequest::new(Cell::new(1, 6), Cell::new(9, 6))
            .with_size(2)
            .with_profile(walker),
    );
    settle(&mut app, &[fat]);
    let before = whole_map_changes_for(&app, walker, 2);
    app.world_mut().remove_resource::<NavGrid>();
    app.update();
    assert_eq!(whole_map_changes_for(&app, walker, 2), before + 1);
    assert_eq!(
        whole_map_changes_for(&app, ProfileId::DEFAULT, 1),
        before + 1
    );
    assert!(!path(&app, fat).is_found());
}

#[test]
fn connectivity_of_a_profile_registered_later_is_built_once_it_exists() {
    let mut app = app_with_grid(AStarPlugin::default(), forest());
    let mut spare = TerrainProfiles::default();
    let flyer = spare
        .add("flyer", TerrainProfile::flyer())
        .expect("new name");
    let eight = Movement::EIGHT;
    app.world_mut()
        .resource_mut::<NavConnectivity>()
        .track(flyer, 1, eight);
    app.update();
    let (west, east) = (Cell::new(1, 3), Cell::new(9, 3));
    let connectivity = app.world().resource::<NavConnectivity>();
    assert_eq!(connectivity.reaches(flyer, 1, eight, west, east), None);
    assert_eq!(
        connectivity.refusal(flyer, 1, eight),
        Some(KindError::UnknownProfile(flyer))
    );
    let registered = app
        .world_mut()
        .resource_mut::<TerrainProfiles>()
        .add("flyer", TerrainProfile::flyer())
        .expect("new name");
    assert_eq!(registered, flyer);
    app.update();
    let connectivity = app.world().resource::<NavConnectivity>();
    assert_eq!(connectivity.refusal(flyer, 1, eight), None);
    assert_eq!(
        connectivity.reaches(flyer, 1, eight, west, east),
        Some(true)
    );
    // Without the grid nothing is answered, and nothing is stale when it comes back.
    app.world_mut().remove_resource::<NavGrid>();
    app.update();
    let connectivity = app.world().resource::<NavConnectivity>();
    assert_eq!(connectivity.reaches(flyer, 1, eight, west, east), None);
}
