//! The camera: fits the map into the part of the window the panels leave free, zooms with the
//! mouse wheel around the cursor, pans with a middle-button drag; `F` fits the map again.

use crate::VisualiserSystems;
use crate::panel::PanelLayout;
use bevy::input::mouse::AccumulatedMouseScroll;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_astar::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<CameraView>()
        .add_systems(Startup, spawn_camera)
        .add_systems(
            Update,
            (
                fit_key
                    .run_if(not(egui_wants_any_keyboard_input))
                    .in_set(VisualiserSystems::Input),
                (refit_new_maps, zoom_and_pan, place_camera)
                    .chain()
                    .in_set(VisualiserSystems::Show),
            ),
        );
}

/// How the view differs from "the whole map, centred in the free area".
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct CameraView {
    /// Magnification over the fitted view, at least 1/4.
    pub zoom: f32,
    /// World offset of the view's centre from the map's centre.
    pub pan: Vec2,
}

impl Default for CameraView {
    fn default() -> Self {
        Self {
            zoom: 1.0,
            pan: Vec2::ZERO,
        }
    }
}

impl CameraView {
    /// World units per logical pixel.
    fn scale(&self, fitted: f32) -> f32 {
        fitted / self.zoom
    }
}

fn spawn_camera(mut commands: Commands) {
    commands.spawn(Camera2d);
}

/// The map's rectangle in the world.
fn map_rect(nav: &NavGrid) -> Rect {
    let extent = Vec2::new(nav.width() as f32, nav.height() as f32) * nav.cell_size();
    Rect::from_corners(nav.origin(), nav.origin() + extent)
}

/// World units per logical pixel that fit `map` into the free area, with a small margin.
fn fitted_scale(map: Rect, free: Vec2) -> f32 {
    let free = free.max(Vec2::splat(1.0));
    (map.size() / free).max_element().max(f32::EPSILON) * 1.04
}

fn fit_key(keys: Res<ButtonInput<KeyCode>>, mut view: ResMut<CameraView>) {
    if keys.just_pressed(KeyCode::KeyF) {
        *view = CameraView::default();
    }
}

fn refit_new_maps(nav: Res<NavGrid>, mut view: ResMut<CameraView>, mut size: Local<UVec2>) {
    let dimensions = UVec2::new(nav.width(), nav.height());
    if nav.is_changed() && *size != dimensions {
        *size = dimensions;
        *view = CameraView::default();
    }
}

/// Wheel zoom keeps the world point under the cursor in place; a middle drag moves the map with
/// the cursor.
fn zoom_and_pan(
    window: Single<&Window, With<PrimaryWindow>>,
    scroll: Res<AccumulatedMouseScroll>,
    buttons: Res<ButtonInput<MouseButton>>,
    layout: Res<PanelLayout>,
    nav: Res<NavGrid>,
    mut view: ResMut<CameraView>,
    mut last_cursor: Local<Option<Vec2>>,
) {
    let cursor = window.cursor_position();
    let previous = core::mem::replace(&mut *last_cursor, cursor);
    let Some(cursor) = cursor.filter(|&cursor| !layout.covers(cursor)) else {
        return;
    };
    let fitted = fitted_scale(map_rect(&nav), layout.free_size(window.size()));
    if scroll.delta.y != 0.0 {
        let before = view.scale(fitted);
        let zoom = (view.zoom * 1.15f32.powf(scroll.delta.y.clamp(-10.0, 10.0))).clamp(0.25, 40.0);
        let after = fitted / zoom;
        // The cursor's offset from the free area's centre, in pixels, with Y up.
        let offset = (cursor - layout.free_center(window.size())) * Vec2::new(1.0, -1.0);
        view.pan += offset * (before - after);
        view.zoom = zoom;
    }
    if buttons.pressed(MouseButton::Middle)
        && let Some(previous) = previous
    {
        let moved = (cursor - previous) * Vec2::new(1.0, -1.0);
        let scale = view.scale(fitted);
        view.pan -= moved * scale;
    }
}

fn place_camera(
    window: Single<&Window, With<PrimaryWindow>>,
    layout: Res<PanelLayout>,
    nav: Res<NavGrid>,
    view: Res<CameraView>,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(orthographic) = &mut *projection else {
        return;
    };
    let map = map_rect(&nav);
    let window_size = window.size();
    let scale = view.scale(fitted_scale(map, layout.free_size(window_size)));
    // The camera looks at the window's centre; shift it so the map sits in the free area's.
    let free_offset = (layout.free_center(window_size) - window_size / 2.0) * Vec2::new(1.0, -1.0);
    let position = map.center() + view.pan - free_offset * scale;
    if orthographic.scale != scale {
        orthographic.scale = scale;
    }
    let translation = position.extend(transform.translation.z);
    if transform.translation != translation {
        transform.translation = translation;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fitted_scale_fits_the_longer_side() {
        let map = Rect::new(0.0, 0.0, 800.0, 400.0);
        let scale = fitted_scale(map, Vec2::new(400.0, 400.0));
        assert!((2.0..2.2).contains(&scale), "{scale}");
        assert!(fitted_scale(map, Vec2::ZERO).is_finite());
    }
}
