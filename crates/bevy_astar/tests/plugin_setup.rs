//! Headless tests of the plugin family's setup: every system honours the schedule chosen with
//! `AStarPlugin::in_schedule`, and every public component and resource is registered for
//! reflection (inspectors and scenes see them).

pub mod common;

use bevy::ecs::reflect::{ReflectComponent, ReflectResource};
use bevy::prelude::*;
use bevy::reflect::TypeRegistry;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use common::{FRAME, path};
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
            DebugPath,
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

#[test]
fn public_components_and_resources_are_registered_for_reflection() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AStarPlugin::default()));
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
        ("DebugPath", registered::<DebugPath>(&registry, component)),
        ("PathTrace", registered::<PathTrace>(&registry, component)),
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
        ("MapVersion", registered::<MapVersion>(&registry, resource)),
        ("NavGrid", registered::<NavGrid>(&registry, resource)),
        (
            "PathDebugSettings",
            registered::<bevy_astar::PathDebugSettings>(&registry, resource),
        ),
        (
            "TerrainProfiles",
            registered::<TerrainProfiles>(&registry, resource),
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
