//! The camera over the floor shown, and the two bars above and below it: the keys and the
//! legend on top, the status of the door and of each agent at the bottom. The bars hide the
//! other floor, which lies right above or below the one shown in the stacked grid.

use crate::agents::{Agent, Selection};
use crate::crossings::agent_status;
use crate::layout::{Building, LinkKind, floor_name};
use crate::{BuildingSystems, ShownFloor};
use bevy::camera::ScalingMode;
use bevy::camera::visibility::RenderLayers;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_astar::prelude::*;
use bevy_egui::PrimaryEguiContext;
use core::fmt::Write as _;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_camera_and_bars).add_systems(
        Update,
        (place_camera, write_status).in_set(BuildingSystems::Show),
    );
}

/// The part of the world the camera shows at least: the floor in the middle, the bars above
/// and below it.
const VIEW: Vec2 = Vec2::new(1280.0, 800.0);
const BAR_COLOR: Color = Color::srgb(0.09, 0.1, 0.12);
/// World units the bars reach past the view, for windows of other shapes.
const BAR_REACH: f32 = 2000.0;
const TEXT_COLOR: Color = Color::srgb(0.9, 0.9, 0.92);
/// Where the lines of text start, from the camera's centre.
const TEXT_LEFT: f32 = -VIEW.x / 2.0 + 16.0;

/// The status lines under the floor.
#[derive(Component)]
struct StatusText;

/// The camera over the floor shown (the one clicks are read through).
#[derive(Component)]
pub struct FloorCamera;

/// The render layer of the bars and their text. A second camera, on top of the first, draws
/// it: the plugin's gizmos, which the first camera draws over every sprite, stay off the bars.
const BAR_LAYER: usize = 1;

/// The camera, centred on the ground floor, with the bars' camera, the bars, the help and the
/// status as its children (so that they stay in place when it moves to the other floor).
fn spawn_camera_and_bars(mut commands: Commands, nav: Res<NavGrid>, building: Res<Building>) {
    let projection = Projection::Orthographic(OrthographicProjection {
        scaling_mode: ScalingMode::AutoMin {
            min_width: VIEW.x,
            min_height: VIEW.y,
        },
        ..OrthographicProjection::default_2d()
    });
    let center = building.floor_center(&nav, 0);
    let floor = building.floor_size();
    commands
        .spawn((
            FloorCamera,
            Camera2d,
            projection.clone(),
            Transform::from_translation(center.extend(0.0)),
        ))
        .with_children(|camera| {
            camera.spawn((
                Camera2d,
                Camera {
                    order: 1,
                    clear_color: ClearColorConfig::None,
                    ..default()
                },
                projection,
                RenderLayers::layer(BAR_LAYER),
                // The plugin's statistics window is drawn on top of the bars.
                PrimaryEguiContext,
            ));
            for side in [1.0, -1.0] {
                let bar = Sprite::from_color(BAR_COLOR, Vec2::new(BAR_REACH * 2.0, BAR_REACH));
                let y = side * (floor.y + BAR_REACH) / 2.0;
                camera.spawn((bar, Transform::from_xyz(0.0, y, 0.0), bar_layer()));
            }
            spawn_help(camera, floor);
            camera.spawn((
                StatusText,
                Text2d::default(),
                TextFont::from_font_size(15.0),
                TextColor(TEXT_COLOR),
                TextLayout::justify(Justify::Left),
                Anchor::TOP_LEFT,
                Transform::from_xyz(TEXT_LEFT, -floor.y / 2.0 - 10.0, 1.0),
                bar_layer(),
            ));
        });
}

fn bar_layer() -> RenderLayers {
    RenderLayers::layer(BAR_LAYER)
}

/// The title and the keys in the top bar, and right above the floor the legend: each kind of
/// link in the colour of its marks.
fn spawn_help(camera: &mut ChildSpawnerCommands, floor: Vec2) {
    camera.spawn((
        help_text(),
        TextFont::from_font_size(16.0),
        TextColor(TEXT_COLOR),
        TextLayout::justify(Justify::Left),
        Anchor::BOTTOM_LEFT,
        Transform::from_xyz(TEXT_LEFT, floor.y / 2.0 + 40.0, 1.0),
        bar_layer(),
    ));
    let mut legend = camera.spawn((
        Text2d::new("Links:"),
        TextFont::from_font_size(16.0),
        TextColor(TEXT_COLOR),
        Anchor::BOTTOM_LEFT,
        Transform::from_xyz(TEXT_LEFT, floor.y / 2.0 + 10.0, 1.0),
        bar_layer(),
    ));
    for kind in [
        LinkKind::Door,
        LinkKind::NarrowPassage,
        LinkKind::Stairs,
        LinkKind::Drop,
        LinkKind::Teleporter,
    ] {
        let note = match kind {
            LinkKind::NarrowPassage => " (not for the boss)",
            LinkKind::Drop => " (one way, down)",
            _ => "",
        };
        legend.with_child((
            TextSpan::new(format!("  {}{note}", kind.name())),
            TextFont::from_font_size(16.0),
            TextColor(kind.color()),
        ));
    }
}

/// The keys, under the title.
fn help_text() -> Text2d {
    Text2d::new(
        "bevy_astar: building. Two floors in one grid, joined by links; agents stop at each link.\n\
         Left click: send the selected agents to a cell of the floor shown (a goal on the other\n\
         floor is reached by the stairs, the drop or the teleporters).   1-4: select an agent   \
         A: select all\n\
         F or Tab: show the other floor   D: open or close the door\n\
         Arcs: the plugin's links (cyan open, red with a cross closed, arrow one way). Lines: paths.",
    )
}

/// Moves the camera over the floor shown.
fn place_camera(
    shown: Res<ShownFloor>,
    nav: Res<NavGrid>,
    building: Res<Building>,
    mut camera: Single<&mut Transform, With<FloorCamera>>,
) {
    if shown.is_changed() {
        let center = building.floor_center(&nav, shown.0);
        camera.translation = center.extend(camera.translation.z);
    }
}

/// Writes the status lines: the floor shown, the door, the selection, and each agent's floor
/// and doing.
fn write_status(
    shown: Res<ShownFloor>,
    nav: Res<NavGrid>,
    building: Res<Building>,
    selection: Res<Selection>,
    agents: Query<(&Agent, &Path, &PathFollower, &PathRequest, &Transform)>,
    mut status: Single<&mut Text2d, With<StatusText>>,
) {
    let door = match nav.grid().links().get(building.door) {
        Some(door) if door.open => "open",
        Some(_) => "closed",
        None => "gone",
    };
    let selected = match selection.0 {
        Some(number) => format!("agent {}", number + 1),
        None => "all agents".to_owned(),
    };
    let mut text = format!(
        "Showing the {} (floor {})   door {door}   selected: {selected}",
        floor_name(shown.0),
        shown.0
    );
    let mut rows: Vec<_> = agents.iter().collect();
    rows.sort_by_key(|(agent, ..)| agent.number);
    for (agent, path, follower, request, transform) in rows {
        let position = transform.translation.truncate();
        let floor = nav
            .footprint_anchor(position, request.size)
            .and_then(|cell| building.floor_of(cell))
            .map_or_else(|| "?".to_owned(), |floor| floor.to_string());
        let doing = agent_status(&nav, &building, (path, request), follower);
        let _ = write!(
            text,
            "\n{} {:<5} floor {floor}  {doing}   (links crossed: {})",
            agent.number + 1,
            agent.name,
            agent.crossings
        );
    }
    if status.0 != text {
        status.0 = text;
    }
}
