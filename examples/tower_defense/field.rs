//! Where the creeps stand this frame, bucketed by tile, for the systems that look for creeps
//! near a point (a tower's reach, the goal): one pass over the creeps a frame instead of one
//! per tower.

use crate::GameSystems;
use crate::creeps::Creep;
use crate::profile::timed;
use bevy::prelude::*;
use bevy_astar::prelude::*;

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<CreepField>().add_systems(
        Update,
        timed("index_creeps", index_creeps)
            .in_set(GameSystems::Locate)
            .run_if(resource_exists::<NavGrid>),
    );
}

/// The creeps' positions this frame, in square buckets of one tile over the map (creeps off the
/// map count in the nearest edge bucket).
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub(crate) struct CreepField {
    /// World position of the buckets' lower corner.
    min: Vec2,
    /// Side of a bucket in world units.
    side: f32,
    /// Buckets per row and per column.
    size: UVec2,
    /// Each bucket's creeps and their positions, row by row.
    buckets: Vec<Vec<(Entity, Vec2)>>,
}

impl CreepField {
    /// Empties the buckets and lays them out anew (keeping their memory when nothing changed).
    fn reshape(&mut self, min: Vec2, side: f32, size: UVec2) {
        let count = (size.x * size.y) as usize;
        if (self.min, self.side, self.size) != (min, side, size) {
            *self = Self {
                min,
                side,
                size,
                buckets: vec![Vec::new(); count],
            };
        }
        self.buckets.iter_mut().for_each(Vec::clear);
    }

    /// The bucket of a world position, clamped to the field.
    fn bucket_of(&self, position: Vec2) -> UVec2 {
        let relative = ((position - self.min) / self.side.max(f32::EPSILON)).floor();
        let last = self.size.saturating_sub(UVec2::ONE).as_vec2();
        relative.clamp(Vec2::ZERO, last).as_uvec2()
    }

    /// Adds a creep at `position`.
    pub(crate) fn insert(&mut self, entity: Entity, position: Vec2) {
        let bucket = self.bucket_of(position);
        let index = (bucket.y * self.size.x + bucket.x) as usize;
        if let Some(bucket) = self.buckets.get_mut(index) {
            bucket.push((entity, position));
        }
    }

    /// The creeps within `reach` world units of `centre`, with their positions and squared
    /// distances.
    pub(crate) fn near(
        &self,
        centre: Vec2,
        reach: f32,
    ) -> impl Iterator<Item = (Entity, Vec2, f32)> + '_ {
        let (low, high) = (
            self.bucket_of(centre - Vec2::splat(reach)),
            self.bucket_of(centre + Vec2::splat(reach)),
        );
        let reach_squared = reach * reach;
        (low.y..=high.y)
            .flat_map(move |y| (low.x..=high.x).map(move |x| (y * self.size.x + x) as usize))
            .filter_map(|index| self.buckets.get(index))
            .flatten()
            .map(move |&(entity, at)| (entity, at, at.distance_squared(centre)))
            .filter(move |&(_, _, distance)| distance <= reach_squared)
    }
}

/// Buckets every creep by where it stands, over the navigation grid's cells.
fn index_creeps(
    nav: Res<NavGrid>,
    creeps: Query<(Entity, &Transform), With<Creep>>,
    mut field: ResMut<CreepField>,
) {
    let size = UVec2::new(nav.width(), nav.height());
    field.reshape(nav.origin(), nav.cell_size().min_element(), size);
    for (entity, transform) in &creeps {
        field.insert(entity, transform.translation.truncate());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creeps_near_a_point_are_found_and_no_others() {
        let mut field = CreepField::default();
        field.reshape(Vec2::new(-50.0, -50.0), 10.0, UVec2::new(10, 10));
        let mut world = World::new();
        let entities: Vec<Entity> = (0..6).map(|_| world.spawn_empty().id()).collect();
        let at = [
            Vec2::new(0.0, 0.0),
            Vec2::new(14.0, 0.0),
            Vec2::new(0.0, -21.0),
            Vec2::new(40.0, 40.0),
            // Off the field: kept in the edge bucket, at its true position.
            Vec2::new(-80.0, 3.0),
            // In a bucket the reach of 15 from the centre touches, but 17 away.
            Vec2::new(12.0, 12.0),
        ];
        for (&entity, &position) in entities.iter().zip(&at) {
            field.insert(entity, position);
        }
        let mut near: Vec<Entity> = field
            .near(Vec2::ZERO, 15.0)
            .map(|(entity, _, _)| entity)
            .collect();
        near.sort();
        let mut expected = vec![entities[0], entities[1]];
        expected.sort();
        assert_eq!(near, expected);
        let (_, position, distance) = field
            .near(Vec2::new(0.0, -20.0), 2.0)
            .next()
            .expect("the creep one unit away");
        assert_eq!((position, distance), (at[2], 1.0));
        let edge: Vec<Entity> = field
            .near(Vec2::new(-75.0, 0.0), 6.0)
            .map(|(entity, _, _)| entity)
            .collect();
        assert_eq!(edge, vec![entities[4]]);
        // Every creep is within reach of a point when the reach covers the map.
        assert_eq!(field.near(Vec2::ZERO, 200.0).count(), 6);
        field.reshape(Vec2::new(-50.0, -50.0), 10.0, UVec2::new(10, 10));
        assert_eq!(field.near(Vec2::ZERO, 200.0).count(), 0, "emptied");
    }
}
