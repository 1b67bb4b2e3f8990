//! The map on screen: one texel per cell in a sprite, redrawn whenever the grid changes.

use crate::VisualiserSystems;
use crate::terrain::terrain_color;
use bevy::asset::RenderAssetUsages;
use bevy::image::ImageSampler;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy_astar::prelude::*;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_map_sprite)
        .add_systems(Update, redraw_map.in_set(VisualiserSystems::Show));
}

#[derive(Component)]
struct MapSprite;

fn spawn_map_sprite(mut commands: Commands) {
    commands.spawn((MapSprite, Sprite::default(), Transform::default()));
}

/// The grid as an image, texel (x, y) for cell (x, y): row 0 on top, as the grid is laid out.
fn grid_image(grid: &Grid) -> Image {
    let data = grid
        .cells()
        .flat_map(|(_, value)| terrain_color(value))
        .collect();
    let mut image = Image::new(
        Extent3d {
            width: grid.width(),
            height: grid.height(),
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    image.sampler = ImageSampler::nearest();
    image
}

fn redraw_map(
    nav: Res<NavGrid>,
    mut images: ResMut<Assets<Image>>,
    sprite: Single<(&mut Sprite, &mut Transform), With<MapSprite>>,
) {
    if !nav.is_changed() || nav.grid().is_empty() {
        return;
    }
    let (mut sprite, mut transform) = sprite.into_inner();
    let grid = nav.grid();
    let extent = Vec2::new(grid.width() as f32, grid.height() as f32) * nav.cell_size();
    sprite.image = images.add(grid_image(grid));
    sprite.custom_size = Some(extent.abs());
    // Texel rows run downwards; flip when the grid's rows run upwards.
    sprite.flip_y = nav.cell_size().y > 0.0;
    transform.translation = (nav.origin() + extent / 2.0).extend(0.0);
}
