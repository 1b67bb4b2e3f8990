//! Headless tests of the plugin family's setup: every system honours the schedule chosen with
//! `AStarPlugin::in_schedule`, each optional plugin of `PathfindingPlugins` can be left out and
//! the rest works, and every public component and resource is registered for reflection
//! (inspectors and scenes see them) by the plugin it belongs to.

pub mod common;

use bevy::ecs::reflect::{ReflectComponent, ReflectResource};
use bevy::prelude::*;
use bevy::reflect::TypeRegistry;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use common::{FRAME, headless_plugins, path};
use core::any::TypeId;
use std::time::Duration;

#[test]
fn the_plugin_runs_in_the_schedule_it_is_given() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AStarPlugin::default().in_schedule(FixedUpdate),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
    // One fixed step a second: for the first second of 16 ms frames, FixedUpdate never runs.
    .insert_resource(Time::<Fixed>::from_duration(Duration::from_secs(1)))
    .insert_resource(NavGrid::new(Grid::new(16, 16)));
    let agent = app
        .world_mut()
        .spawn((
            PathRequest::new(Cell::new(0, 0), Cell::new(15, 9)),
            PathDebug,
        ))
        .id();
    for _ in 0..30 {
        app.update();
    }
    assert_eq!(path(&app, agent).status, PathStatus::Queued);
    assert_eq!(
        app.world().resource::<PathfindingStats>().searches_started,
        0
    );
    for _ in 0..1_000 {
        app.update();
        if path(&app, agent).is_found() {
            break;
        }
    }
    assert!(path(&app, agent).is_found());
    assert!(app.world().resource::<PathfindingStats>().searches_started >= 1);
}

/// Whether `T` is registered, with the `ReflectComponent` or `ReflectResource` data `data`
/// names.
fn registered<T: 'static>(registry: &TypeRegistry, data: TypeId) -> bool {
    registry.get(TypeId::of::<T>()).is_some_and(|registration| {
        (data == TypeId::of::<ReflectComponent>()
            && registration.data::<ReflectComponent>().is_some())
            || (data == TypeId::of::<ReflectResource>()
                && registration.data::<ReflectResource>().is_some())
    })
}

/// An app of the headless plugin family without the plugins `leave_out` removes, on an open
/// 16 x 16 grid of 10-unit cells, with a walker (a follower) and an avoider (a follower with
/// [`CrowdAvoidance`]) going across it; the grid, the walker, the avoider and their goal's centre.
fn walker_and_avoider(
    leave_out: impl FnOnce(bevy::app::PluginGroupBuilder) -> bevy::app::PluginGroupBuilder,
) -> (App, Entity, Entity, Vec2) {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, leave_out(headless_plugins())))
        .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
        .insert_resource(NavGrid::new(Grid::new(16, 16)).with_cell_size(Vec2::splat(10.0)));
    let nav = app.world().resource::<NavGrid>().clone();
    let goal = Cell::new(14, 9);
    let mut spawn = |start: Cell, avoids: bool| {
        let mut agent = app.world_mut().spawn((
            PathRequest::new(start, goal),
            PathFollower::new(80.0),
            Transform::from_translation(nav.cell_center(start).extend(0.0)),
        ));
        if avoids {
            agent.insert(CrowdAvoidance::default());
        }
        agent.id()
    };
    let walker = spawn(Cell::new(0, 0), false);
    let avoider = spawn(Cell::new(0, 15), true);
    (app, walker, avoider, nav.cell_center(goal))
}

/// Runs `app` for five simulated seconds; whether each of `agents` ended within a cell of
/// `goal`, and whether each has found its path.
fn arrivals(mut app: App, agents: [Entity; 2], goal: Vec2) -> ([bool; 2], [bool; 2]) {
    for _ in 0..300 {
        app.update();
    }
    let at_goal = agents.map(|agent| {
        let position = app
            .world()
            .get::<Transform>(agent)
            .map(|t| t.translation.truncate());
        position.is_some_and(|position| position.distance(goal) < 10.0)
    });
    (at_goal, agents.map(|agent| path(&app, agent).is_found()))
}

#[test]
fn following_and_crowds_can_each_be_left_out_and_the_rest_works() {
    type LeaveOut = fn(bevy::app::PluginGroupBuilder) -> bevy::app::PluginGroupBuilder;
    // (what is left out, whether the walker arrives, whether the avoider arrives)
    let cases: [(&str, LeaveOut, bool, bool); 4] = [
        ("nothing", |plugins| plugins, true, true),
        (
            "the crowd: the avoider is followed like the walker",
            |plugins| plugins.disable::<CrowdPlugin>(),
            true,
            true,
        ),
        (
            "following: the crowd still steers the avoider",
            |plugins| plugins.disable::<PathFollowPlugin>(),
            false,
            true,
        ),
        (
            "both: paths are still found, nobody moves",
            |plugins| {
                plugins
                    .disable::<PathFollowPlugin>()
                    .disable::<CrowdPlugin>()
            },
            false,
            false,
        ),
    ];
    for (left_out, leave_out, walker_arrives, avoider_arrives) in cases {
        let (app, walker, avoider, goal) = walker_and_avoider(leave_out);
        let (at_goal, found) = arrivals(app, [walker, avoider], goal);
        assert_eq!(found, [true, true], "paths with {left_out} left out");
        assert_eq!(
            at_goal,
            [walker_arrives, avoider_arrives],
            "arrivals (walker, avoider) with {left_out} left out"
        );
    }
}

#[test]
fn the_plugin_family_runs_in_the_schedule_the_core_plugin_is_given() {
    let (mut app, walker, avoider, goal) =
        walker_and_avoider(|plugins| plugins.set(AStarPlugin::default().in_schedule(FixedUpdate)));
    // One fixed step a second: for the first second of 16 ms frames, FixedUpdate never runs,
    // and nobody moves.
    app.insert_resource(Time::<Fixed>::from_duration(Duration::from_secs(1)));
    let starts = [walker, avoider].map(|agent| app.world().get::<Transform>(agent).copied());
    for _ in 0..30 {
        app.update();
    }
    let now = [walker, avoider].map(|agent| app.world().get::<Transform>(agent).copied());
    assert_eq!(now, starts);
    // Then a fixed step of a second at a time: both arrive. The avoider's crowd step runs
    // beside the schedule and is written back in the next fixed step, so it is shown a step
    // late: one more second lets the last step it takes show.
    for _ in 0..60 {
        app.update();
    }
    let (at_goal, _) = arrivals(app, [walker, avoider], goal);
    assert_eq!(at_goal, [true, true]);
}

#[test]
fn the_core_plugin_alone_registers_neither_following_nor_crowds() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AStarPlugin::default()));
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let component = TypeId::of::<ReflectComponent>();
    assert!(registered::<PathRequest>(&registry, component));
    assert!(!registered::<PathFollower>(&registry, component));
    assert!(!registered::<CrowdAvoidance>(&registry, component));
    assert!(app.world().get_resource::<CrowdSettings>().is_none());
}

#[test]
fn public_components_and_resources_are_registered_for_reflection() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, headless_plugins()));
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let component = TypeId::of::<ReflectComponent>();
    let resource = TypeId::of::<ReflectResource>();
    let components = [
        (
            "PathRequest",
            registered::<PathRequest>(&registry, component),
        ),
        ("Path", registered::<Path>(&registry, component)),
        (
            "PathFollower",
            registered::<PathFollower>(&registry, component),
        ),
        ("PathDebug", registered::<PathDebug>(&registry, component)),
        ("PathTrace", registered::<PathTrace>(&registry, component)),
        (
            "CrowdAvoidance",
            registered::<CrowdAvoidance>(&registry, component),
        ),
        (
            "CrowdVelocity",
            registered::<CrowdVelocity>(&registry, component),
        ),
        ("NavLink", registered::<NavLink>(&registry, component)),
        (
            "NavLinkState",
            registered::<NavLinkState>(&registry, component),
        ),
    ];
    let resources = [
        (
            "PathfindingSettings",
            registered::<PathfindingSettings>(&registry, resource),
        ),
        (
            "PathfindingStats",
            registered::<PathfindingStats>(&registry, resource),
        ),
        ("NavVersion", registered::<NavVersion>(&registry, resource)),
        ("NavGrid", registered::<NavGrid>(&registry, resource)),
        (
            "PathDebugSettings",
            registered::<bevy_astar::PathDebugSettings>(&registry, resource),
        ),
        (
            "TerrainProfiles",
            registered::<TerrainProfiles>(&registry, resource),
        ),
        (
            "CrowdSettings",
            registered::<CrowdSettings>(&registry, resource),
        ),
    ];
    for (name, ok) in components.into_iter().chain(resources) {
        assert!(ok, "{name} is not registered with its reflect data");
    }
    // Settings are reflected field by field, so an inspector can edit them.
    let settings = PathfindingSettings::default();
    let reflected: &dyn Reflect = &settings;
    let bevy::reflect::ReflectRef::Struct(fields) = reflected.reflect_ref() else {
        panic!("settings are not reflected as a struct");
    };
    assert_eq!(
        fields
            .field("max_searches_per_frame")
            .and_then(|field| field.try_downcast_ref::<u32>()),
        Some(&settings.max_searches_per_frame)
    );
}

#[test]
#[expect(
    deprecated,
    reason = "the former names must keep working for one release"
)]
fn the_former_names_still_name_the_same_types() {
    use bevy_astar::{AStarSystems, Avoidance, DebugPath, MapChanged, MapVersion};
    assert_eq!(
        TypeId::of::<AStarSystems>(),
        TypeId::of::<PathfindingSystems>()
    );
    assert_eq!(AStarSystems::Dispatch, PathfindingSystems::Dispatch);
    assert_eq!(TypeId::of::<Avoidance>(), TypeId::of::<CrowdAvoidance>());
    assert_eq!(TypeId::of::<DebugPath>(), TypeId::of::<PathDebug>());
    assert_eq!(TypeId::of::<MapChanged>(), TypeId::of::<NavChanged>());
    assert_eq!(MapVersion::default(), NavVersion::default());
}
