//! The building drawn with sprites: floors, walls, the door (open or shut), the narrow passage
//! and pads at the ends of the stairs, the drop and the teleporters. The plugin's overlay draws
//! the links themselves as arcs.

use crate::BuildingSystems;
use crate::layout::{Building, CELL, DOOR_CELLS, LinkKind, NARROW_CELL};
use bevy::prelude::*;
use bevy_astar::prelude::*;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(Startup, (spawn_floors, spawn_link_marks))
        .add_systems(Update, show_door.in_set(BuildingSystems::Show));
}

const FLOOR_COLOR: Color = Color::srgb(0.16, 0.17, 0.2);
const WALL_COLOR: Color = Color::srgb(0.5, 0.52, 0.58);
const MARK_FONT_SIZE: f32 = 11.0;

/// A sprite of the door's wall cells: solid while the door is shut, a frame while it is open.
#[derive(Component)]
struct DoorLeaf;

/// The floors and the walls (the row between the floors included).
fn spawn_floors(mut commands: Commands, nav: Res<NavGrid>, building: Res<Building>) {
    for floor in 0..building.plan.floors() {
        let ground = Sprite::from_color(FLOOR_COLOR, building.floor_size());
        let center = building.floor_center(&nav, floor);
        commands.spawn((ground, Transform::from_translation(center.extend(-1.0))));
    }
    let doorway = |cell: Cell| {
        DOOR_CELLS
            .iter()
            .chain([&NARROW_CELL])
            .any(|&at| building.cell(at) == Some(cell))
    };
    for (cell, cost) in nav.grid().cells() {
        if cost == 0 && !doorway(cell) {
            let wall = Sprite::from_color(WALL_COLOR, Vec2::splat(CELL));
            commands.spawn((
                wall,
                Transform::from_translation(nav.cell_center(cell).extend(0.0)),
            ));
        }
    }
}

/// The door's leaves, the narrow passage, and a pad under each end of the other links, the
/// size of the boss's footprint, named.
fn spawn_link_marks(mut commands: Commands, nav: Res<NavGrid>, building: Res<Building>) {
    for cell in DOOR_CELLS.iter().filter_map(|&at| building.cell(at)) {
        commands.spawn((
            DoorLeaf,
            Sprite::from_color(LinkKind::Door.color(), Vec2::splat(CELL)),
            Transform::from_translation(nav.cell_center(cell).extend(0.5)),
        ));
    }
    if let Some(cell) = building.cell(NARROW_CELL) {
        let walls = Sprite::from_color(WALL_COLOR, Vec2::new(CELL, CELL));
        let gap = Sprite::from_color(LinkKind::NarrowPassage.color(), Vec2::new(CELL, CELL * 0.3));
        commands
            .spawn((
                walls,
                Transform::from_translation(nav.cell_center(cell).extend(0.0)),
            ))
            .with_child((gap, Transform::from_xyz(0.0, 0.0, 0.1)));
    }
    for (id, kind) in building.links() {
        let Some(link) = nav.grid().links().get(id) else {
            continue;
        };
        let Some((near, far)) = pad_names(kind, &building, link) else {
            continue;
        };
        for (anchor, name) in [(link.from, near), (link.to, far)] {
            spawn_pad(&mut commands, &nav, anchor, kind, name);
        }
    }
}

/// The names of the pads at a link's `from` and `to` ends; `None` for the links drawn in the
/// wall (the door and the narrow passage).
fn pad_names(
    kind: LinkKind,
    building: &Building,
    link: &Link,
) -> Option<(&'static str, &'static str)> {
    match kind {
        LinkKind::Door | LinkKind::NarrowPassage => None,
        LinkKind::Stairs => {
            let up = building.floor_of(link.from) < building.floor_of(link.to);
            Some(if up {
                ("stairs up", "stairs down")
            } else {
                ("stairs down", "stairs up")
            })
        }
        LinkKind::Drop => Some(("ledge", "landing")),
        LinkKind::Teleporter => Some(("teleporter", "teleporter")),
    }
}

/// A pad of `kind`'s colour under the 2x2 footprint anchored at `anchor`, with its name.
fn spawn_pad(commands: &mut Commands, nav: &NavGrid, anchor: Cell, kind: LinkKind, name: &str) {
    let center = nav.footprint_center(anchor, 2);
    commands
        .spawn((
            Sprite::from_color(kind.color().with_alpha(0.35), Vec2::splat(CELL * 2.0)),
            Transform::from_translation(center.extend(0.5)),
        ))
        .with_child((
            Text2d::new(name),
            TextFont::from_font_size(MARK_FONT_SIZE),
            TextColor(kind.color().lighter(0.2)),
            Transform::from_xyz(0.0, -CELL * 0.7, 0.1),
        ));
}

/// Shows the door shut (a solid leaf) or open (a faint one) as its link is.
fn show_door(
    nav: Res<NavGrid>,
    building: Res<Building>,
    mut leaves: Query<&mut Sprite, With<DoorLeaf>>,
) {
    if !nav.is_changed() {
        return;
    }
    let open = nav
        .grid()
        .links()
        .get(building.door)
        .is_some_and(|door| door.open);
    let color = if open {
        LinkKind::Door.color().with_alpha(0.25)
    } else {
        LinkKind::Door.color()
    };
    for mut leaf in &mut leaves {
        leaf.color = color;
    }
}
