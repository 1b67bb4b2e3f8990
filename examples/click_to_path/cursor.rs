//! The cell under the mouse cursor, unless the cursor is over the panels; drawn as a white
//! outline.

use crate::VisualiserSystems;
use crate::panel::PanelLayout;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_astar::prelude::*;

/// The outline of the cell under the cursor.
pub const HOVER_COLOR: Color = Color::srgb(0.4, 0.9, 1.0);

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<CursorCell>().add_systems(
        Update,
        (
            track_cursor.in_set(VisualiserSystems::Input),
            outline_hovered_cell.in_set(VisualiserSystems::Show),
        ),
    );
}

/// Where the cursor points on the map this frame.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct CursorCell {
    /// The cell under the cursor, `None` off the map or over a panel.
    pub cell: Option<Cell>,
}

/// Finds the cell under the cursor through the camera.
fn track_cursor(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform), With<Camera2d>>,
    layout: Res<PanelLayout>,
    nav: Res<NavGrid>,
    mut cursor: ResMut<CursorCell>,
) {
    let (camera, transform) = *camera;
    let cell = window
        .cursor_position()
        .filter(|&position| !layout.covers(position))
        .and_then(|position| camera.viewport_to_world_2d(transform, position).ok())
        .and_then(|world| nav.world_to_cell(world));
    cursor.set_if_neq(CursorCell { cell });
}

fn outline_hovered_cell(cursor: Res<CursorCell>, nav: Res<NavGrid>, mut gizmos: Gizmos) {
    if let Some(cell) = cursor.cell {
        gizmos.rect_2d(
            nav.cell_center(cell),
            nav.cell_size().abs() * 1.1,
            HOVER_COLOR,
        );
    }
}
