//! Headless runs of the building with the plugin: the routes its links make for the walkers and
//! the boss, with the door open and closed, and the walks along them.

use crate::agents::spread_goals;
use crate::layout::{Building, LinkKind};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_astar::prelude::*;
use core::time::Duration;

/// Frames after which a run gives up waiting.
const MOST_FRAMES: usize = 2000;

/// An app with the plugin's searches and followers (no window) on the building.
fn app() -> (App, Building) {
    let (building, nav) = Building::build().expect("the building is valid");
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AStarPlugin::default(), PathFollowPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            16,
        )))
        .insert_resource(nav)
        .insert_resource(building.clone());
    (app, building)
}

fn at(building: &Building, floor: u32, x: u32, y: u32) -> Cell {
    building
        .cell(FloorCell::new(floor, x, y))
        .expect("a cell of the building")
}

/// Spawns an agent of `size` walking from `start` to `goal`.
fn spawn(app: &mut App, start: Cell, goal: Cell, size: u8) -> Entity {
    let position = app
        .world()
        .resource::<NavGrid>()
        .footprint_center(start, size);
    app.world_mut()
        .spawn((
            PathRequest::new(start, goal)
                .with_size(size)
                .with_start_at_agent(true),
            PathFollower::new(160.0),
            Transform::from_translation(position.extend(0.0)),
        ))
        .id()
}

/// Runs frames until the agent's path holds a result; returns it.
fn settle(app: &mut App, agent: Entity) -> Path {
    for _ in 0..MOST_FRAMES {
        app.update();
        let path = app.world().get::<Path>(agent).expect("an agent");
        if !path.status.is_pending() {
            return path.clone();
        }
    }
    panic!("no result after {MOST_FRAMES} frames");
}

/// The kinds of the links the path of `agent` takes, in order.
fn links_taken(app: &App, building: &Building, agent: Entity) -> Vec<LinkKind> {
    let nav = app.world().resource::<NavGrid>();
    let (Some(path), Some(request)) = (
        app.world().get::<Path>(agent),
        app.world().get::<PathRequest>(agent),
    ) else {
        return Vec::new();
    };
    path.link_steps(nav, request)
        .into_iter()
        .filter_map(|(_, link)| building.kind_of(link))
        .collect()
}

fn set_door(app: &mut App, building: &Building, open: bool) {
    let mut nav = app.world_mut().resource_mut::<NavGrid>();
    nav.set_link_open(building.door, open).expect("the door");
}

#[test]
fn walkers_go_up_by_the_door_the_stairs_and_the_teleporters() {
    let (mut app, building) = app();
    let agent = spawn(&mut app, at(&building, 0, 2, 2), at(&building, 1, 5, 8), 1);
    let path = settle(&mut app, agent);
    assert!(path.is_found());
    assert_eq!(
        links_taken(&app, &building, agent),
        [LinkKind::Door, LinkKind::Stairs, LinkKind::Teleporter]
    );
}

#[test]
fn with_the_door_closed_walkers_squeeze_through_and_the_boss_has_no_path() {
    let (mut app, building) = app();
    set_door(&mut app, &building, false);
    let walker = spawn(&mut app, at(&building, 0, 2, 2), at(&building, 1, 5, 8), 1);
    let boss = spawn(&mut app, at(&building, 0, 6, 4), at(&building, 1, 4, 8), 2);
    assert!(settle(&mut app, walker).is_found());
    assert_eq!(
        links_taken(&app, &building, walker),
        [
            LinkKind::NarrowPassage,
            LinkKind::Stairs,
            LinkKind::Teleporter
        ]
    );
    assert_eq!(settle(&mut app, boss).status, PathStatus::NoPath);
    // The door opens: the boss, which could not reach its goal, searches again and goes
    // through it.
    set_door(&mut app, &building, true);
    app.update();
    let path = settle(&mut app, boss);
    assert!(path.is_found(), "{:?}", path.status);
    assert_eq!(links_taken(&app, &building, boss)[0], LinkKind::Door);
}

#[test]
fn the_drop_leads_down_only() {
    let (mut app, building) = app();
    let down = spawn(&mut app, at(&building, 1, 5, 8), at(&building, 0, 5, 8), 1);
    let up = spawn(&mut app, at(&building, 0, 5, 8), at(&building, 1, 5, 8), 1);
    assert!(settle(&mut app, down).is_found());
    assert_eq!(links_taken(&app, &building, down), [LinkKind::Drop]);
    assert!(settle(&mut app, up).is_found());
    assert!(!links_taken(&app, &building, up).contains(&LinkKind::Drop));
}

/// Walks `agent` to the end of its path, checking every frame that its footprint stands on
/// walkable cells; returns the kinds of the links it stopped at, in order.
fn walk_to_the_end(app: &mut App, building: &Building, agent: Entity, size: u8) -> Vec<LinkKind> {
    let mut crossed = Vec::new();
    for _ in 0..MOST_FRAMES {
        app.update();
        let world = app.world();
        let nav = world.resource::<NavGrid>();
        let position = world.get::<Transform>(agent).expect("an agent").translation;
        let anchor = nav
            .footprint_anchor(position.truncate(), size)
            .expect("on the grid");
        for dy in 0..u32::from(size) {
            for dx in 0..u32::from(size) {
                let cell = Cell::new(anchor.x + dx, anchor.y + dy);
                assert!(nav.is_walkable(cell), "the agent stands on the wall {cell}");
            }
        }
        let follower = world.get::<PathFollower>(agent).expect("a follower");
        let path = world.get::<Path>(agent).expect("a path");
        if let Some(crossing) = follower.crossing()
            && crossed.last() != Some(&crossing.link)
        {
            crossed.push(crossing.link);
        }
        if follower.is_finished() && path.is_found() {
            return crossed
                .into_iter()
                .filter_map(|link| building.kind_of(link))
                .collect();
        }
    }
    panic!("the agent did not arrive in {MOST_FRAMES} frames");
}

#[test]
fn the_boss_walks_through_the_door_up_the_stairs_and_through_the_teleporters() {
    let (mut app, building) = app();
    let boss = spawn(&mut app, at(&building, 0, 6, 4), at(&building, 1, 4, 8), 2);
    let crossed = walk_to_the_end(&mut app, &building, boss, 2);
    assert_eq!(
        crossed,
        [LinkKind::Door, LinkKind::Stairs, LinkKind::Teleporter]
    );
}

#[test]
fn group_goals_are_spread_in_the_clicked_room_without_overlapping() {
    let (app, building) = app();
    let nav = app.world().resource::<NavGrid>();
    // Beside the wall between the west hall and the east room, on the east side.
    let clicked = at(&building, 0, 12, 3);
    let sizes = [1, 1, 1, 2];
    let goals = spread_goals(nav, clicked, &sizes).expect("a free cell");
    let footprint = |anchor: Cell, size: u8| {
        let side = u32::from(size);
        (0..side)
            .flat_map(move |dy| (0..side).map(move |dx| Cell::new(anchor.x + dx, anchor.y + dy)))
            .collect::<Vec<_>>()
    };
    let mut covered = Vec::new();
    for (&goal, &size) in goals.iter().zip(&sizes) {
        for cell in footprint(goal, size) {
            assert!(nav.is_walkable(cell));
            assert!(cell.x >= 12, "{cell} is not in the east room");
            assert!(!covered.contains(&cell), "{cell} is covered twice");
            covered.push(cell);
        }
    }
    assert!(spread_goals(nav, at(&building, 0, 11, 5), &sizes).is_none());
}

#[test]
fn a_teleporter_holds_the_agent_while_it_charges_then_sends_it() {
    let (mut app, building) = app();
    app.add_plugins(crate::crossings::plugin);
    let walker = spawn(&mut app, at(&building, 1, 20, 8), at(&building, 1, 5, 8), 1);
    let mut held_frames = 0;
    for _ in 0..MOST_FRAMES {
        app.update();
        let follower = app.world().get::<PathFollower>(walker).expect("a follower");
        match follower.crossing() {
            Some(crossing) if crossing.held => held_frames += 1,
            Some(_) => {}
            None if held_frames > 0 => break,
            None => {}
        }
    }
    // 0.6 s of 16 ms frames, give or take the frame the hold starts and ends on.
    assert!(
        (36..=40).contains(&held_frames),
        "held {held_frames} frames"
    );
    let nav = app.world().resource::<NavGrid>();
    let position = app
        .world()
        .get::<Transform>(walker)
        .expect("an agent")
        .translation;
    let cell = nav.world_to_cell(position.truncate()).expect("on the grid");
    assert!(cell.x < 11, "{cell} is not in the west wing");
}
