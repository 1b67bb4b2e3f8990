//! Tile sheets painted in code: RGBA pixels made into an image `bevy_ecs_tilemap` can draw from.

use bevy::asset::RenderAssetUsages;
use bevy::image::ImageSampler;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat, TextureUsages};

/// A `width` x `height` image of sRGB `rgba` pixels, row by row, sampled without smoothing and
/// usable as a tilemap's texture (which the tilemap copies into its texture array).
#[must_use]
pub fn tile_sheet_image(width: u32, height: u32, rgba: Vec<u8>) -> Image {
    let mut image = Image::new(
        Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        rgba,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    image.texture_descriptor.usage =
        TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_SRC | TextureUsages::COPY_DST;
    image.sampler = ImageSampler::nearest();
    image
}
