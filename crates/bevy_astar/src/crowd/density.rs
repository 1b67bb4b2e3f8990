//! Density-aware routes: the avoiding agents counted on the map a few times a second, as the
//! crowd's cost layer that the goals' shared trees weigh, and avoiding agents reading their
//! routes again off a tree that weighed a newer count.

use super::progress::search_again_from;
use super::space::GridSpace;
use super::{CrowdAvoidance, CrowdProgress, CrowdSettings};
use crate::map::{CrowdCostLayer, CrowdCosts};
use crate::{NavGrid, Path, PathRequest, PathfindingStats};
use bevy::prelude::*;
use std::sync::Arc;

/// The time since the crowd was last counted, and the counting's memory.
#[derive(Resource, Default)]
pub(crate) struct DensityCount {
    since: f32,
    /// Agents per cell, row by row.
    counts: Vec<u16>,
}

/// Counts the avoiding agents on each cell every [`CrowdSettings::route_density_interval`] and
/// makes the crowd's cost layer of the count, replacing the one in use when it differs; with
/// no weight, clears the layer.
pub(crate) fn count_crowd_density(
    (time, settings): (Res<Time>, Res<CrowdSettings>),
    nav: Option<Res<NavGrid>>,
    mut count: ResMut<DensityCount>,
    mut costs: ResMut<CrowdCosts>,
    agents: Query<&Transform, With<CrowdAvoidance>>,
) {
    let weight = settings.route_density_weight;
    let Some(nav) = nav.filter(|_| weight > 0.0 && weight.is_finite()) else {
        if costs.layer.is_some() {
            costs.layer = None;
        }
        return;
    };
    count.since += time.delta_secs();
    if count.since < settings.route_density_interval.as_secs_f32() && costs.layer.is_some() {
        return;
    }
    count.since = 0.0;
    let grid = nav.grid();
    let size = (grid.width(), grid.height());
    let space = GridSpace::of(&nav);
    let counts = &mut count.counts;
    counts.clear();
    counts.resize(grid.width() as usize * grid.height() as usize, 0);
    for transform in &agents {
        let point = space.point(transform.translation.truncate());
        if let Some(index) = cell_index(size, (point.x, point.y)) {
            counts[index] = counts[index].saturating_add(1);
        }
    }
    let layer = CrowdCostLayer::of_counts(size, counts, weight);
    if layer.as_ref() != costs.layer.as_deref() {
        costs.layer = layer.map(Arc::new);
    }
}

/// The row-by-row index of the cell of a `width` x `height` map at grid-space `point`; `None`
/// outside it.
fn cell_index((width, height): (u32, u32), (x, y): (f32, f32)) -> Option<usize> {
    let inside = x >= 0.0 && y >= 0.0 && x < width as f32 && y < height as f32;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a non-negative coordinate inside the map, floored"
    )]
    inside.then(|| y as usize * width as usize + x as usize)
}

/// Whether an avoiding agent reads its route again: its route was read off a tree that has
/// moved on, and it last read it `every` seconds or more before `now`.
fn reads_again(moved_on: bool, (now, read_at): (f32, f32), every: f32) -> bool {
    moved_on && now - read_at >= every
}

/// Has every avoiding agent whose route was read off a goal's shared tree that moved on since
/// search again from where it stands (the tree answers it at once), at most once per two
/// [`CrowdSettings::route_density_interval`]s each; with no weight, reads no agent.
pub(crate) fn reread_crowded_routes(
    (time, settings): (Res<Time>, Res<CrowdSettings>),
    nav: Option<Res<NavGrid>>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<
        (&Path, &mut PathRequest, &mut CrowdProgress, &Transform),
        With<CrowdAvoidance>,
    >,
) {
    let Some(nav) = nav.filter(|_| settings.route_density_weight > 0.0) else {
        return;
    };
    let now = time.elapsed_secs();
    let every = 2.0 * settings.route_density_interval.as_secs_f32();
    for (path, mut request, mut progress, transform) in &mut agents {
        let moved_on = path.copied_tree_moved_on();
        if !reads_again(moved_on, (now, progress.route_read_at), every) {
            continue;
        }
        progress.route_read_at = now;
        let anchor = nav.footprint_anchor(transform.translation.truncate(), request.size);
        search_again_from(&mut request, anchor);
        stats.crowd_routes_reread += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_name_their_cell_row_by_row_and_nothing_outside() {
        assert_eq!(cell_index((4, 3), (0.5, 0.5)), Some(0));
        assert_eq!(cell_index((4, 3), (3.9, 2.1)), Some(11));
        assert_eq!(cell_index((4, 3), (4.0, 1.0)), None);
        assert_eq!(cell_index((4, 3), (-0.1, 1.0)), None);
        assert_eq!(cell_index((4, 3), (f32::NAN, 1.0)), None);
    }

    #[test]
    fn an_agent_reads_again_once_its_tree_moved_on_and_not_too_often() {
        assert!(reads_again(true, (10.0, 8.0), 1.0));
        assert!(!reads_again(false, (10.0, 8.0), 1.0));
        assert!(!reads_again(true, (10.0, 9.5), 1.0));
    }
}
