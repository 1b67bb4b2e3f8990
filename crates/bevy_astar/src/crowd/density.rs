//! Density-aware routes: the avoiding agents counted on the map a few times a second, as the
//! crowd's cost layer that the goals' shared trees weigh, and avoiding agents reading their
//! routes again off a tree that weighed a newer count.

use super::{CrowdAvoidance, CrowdSettings};
use crate::map::{CrowdCostLayer, CrowdCosts};
use crate::request::search_again_from;
use crate::{NavGrid, Path, PathFollower, PathRequest, PathfindingStats};
use astar_grid::Cell;
use bevy::prelude::*;
use std::sync::Arc;

/// The time since the crowd was last counted, and the counting's memory.
#[derive(Resource, Default)]
pub(crate) struct DensityCount {
    since: f32,
    /// The cells the avoiding agents stand on, one per agent.
    cells: Vec<Cell>,
}

/// Counts the avoiding agents on each cell every [`CrowdSettings::route_density_interval`] and
/// makes the crowd's cost layer of the count, replacing the one in use when it differs; with
/// no weight, clears the layer. The count and the layer cost the agents, not the map's cells.
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
    let cells = &mut count.cells;
    cells.clear();
    cells.extend(
        agents
            .iter()
            .filter_map(|transform| nav.world_to_cell(transform.translation.truncate())),
    );
    let layer = CrowdCostLayer::of_cells(size, cells.iter().copied(), weight);
    if layer.as_ref() != costs.layer.as_deref() {
        costs.layer = layer.map(Arc::new);
    }
}

/// How much cheaper, in straight steps, a goal's tree must offer an avoiding agent a way than
/// the one it follows for it to read its route again: a little more than nothing, so that
/// two ways of nearly equal cost do not swap at every count.
const BETTER_BY_STEPS: f64 = 2.0;

/// The most avoiding agents checked against their tree's newest version in one frame: a
/// version reaches every agent on it at once, and the checks spread over the frames after it.
const MOST_CHECKS_A_FRAME: usize = 1024;

/// The most avoiding agents that read their routes again in one frame.
const MOST_REREADS_A_FRAME: usize = 128;

/// The version of the goal's shared tree an avoiding agent last checked its route against, for
/// density-aware routes.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CrowdRouteCheck {
    tree_version: u64,
}

/// What checking an avoiding agent's route reads and writes.
type CheckedAgent<'a> = (
    &'a Path,
    &'a PathFollower,
    &'a mut PathRequest,
    &'a mut CrowdRouteCheck,
    &'a Transform,
);

/// Checks each avoiding agent whose route lies on a goal's shared tree that has published a
/// version it was not checked against: where the tree, weighing the crowd, offers it a way
/// cheaper by more than [`BETTER_BY_STEPS`], it searches again from where it stands (the tree
/// answers at once). Checks and new searches are capped a frame ([`MOST_CHECKS_A_FRAME`],
/// [`MOST_REREADS_A_FRAME`]); with no weight, reads no agent.
pub(crate) fn reread_crowded_routes(
    settings: Res<CrowdSettings>,
    nav: Option<Res<NavGrid>>,
    mut stats: ResMut<PathfindingStats>,
    mut agents: Query<CheckedAgent<'static>, With<CrowdAvoidance>>,
) {
    let Some(nav) = nav.filter(|_| settings.route_density_weight > 0.0) else {
        return;
    };
    let (mut checked, mut reread) = (0, 0);
    for (path, follower, mut request, mut check, transform) in &mut agents {
        let Some(tree) = path.shared_route().map(|route| &route.tree) else {
            continue;
        };
        let generation = tree.generation();
        if check.tree_version == generation {
            continue;
        }
        if checked == MOST_CHECKS_A_FRAME || reread == MOST_REREADS_A_FRAME {
            break;
        }
        checked += 1;
        check.tree_version = generation;
        let size = request.size;
        let from = nav.footprint_anchor(transform.translation.truncate(), size);
        let towards = follower
            .target()
            .and_then(|target| nav.footprint_anchor(target, size));
        let better = tree
            .current()
            .zip(from.zip(towards))
            .is_some_and(|(tree, (from, to))| tree.offers_a_better_way(from, to, BETTER_BY_STEPS));
        if better {
            search_again_from(&mut request, from);
            stats.crowd_routes_reread += 1;
            reread += 1;
        }
    }
}
