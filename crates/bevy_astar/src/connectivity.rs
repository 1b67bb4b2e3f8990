//! Connectivity in the plugin: the connected regions of the map as each tracked agent kind and
//! movement rule sees it, kept in sync with the published map changes, answering "is there a
//! path?" and "would blocking these cells cut someone off?" without touching the grid.

use crate::KindError;
use crate::kinds::KindKey;
use crate::map::AgentLayers;
use crate::{NavChanged, NavGrid, ProfileId, TerrainProfiles};
use astar_grid::agent::Footprint;
use astar_grid::{BlockingCheck, Cell, Components, ConnectivityError, Grid, Movement};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

/// The connected regions of the [`NavGrid`] for each agent kind and movement rule asked for
/// with [`NavConnectivity::track`], kept up to date by the plugin in
/// [`PathfindingSystems::Invalidate`](crate::PathfindingSystems::Invalidate) from every published
/// [`NavChanged`]: the answers hold for the map as last published, so an edit made this frame
/// counts from the next frame's Invalidate on.
///
/// For agents larger than one cell, points are footprint anchors (top-left cells) and blocked
/// cells are cells of the map: blocking a cell takes away every anchor whose footprint covers
/// it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
/// use bevy_astar::NavConnectivity;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, AStarPlugin::default()));
/// app.insert_resource(NavGrid::new(Grid::from_ascii("...\n.#.\n...").expect("a map")));
/// let eight = Movement::EIGHT;
/// app.world_mut().resource_mut::<NavConnectivity>().track(ProfileId::DEFAULT, 1, eight);
/// app.update();
/// let regions = app.world().resource::<NavConnectivity>();
/// let (corner, far) = (Cell::new(0, 0), Cell::new(2, 2));
/// assert_eq!(regions.reaches(ProfileId::DEFAULT, 1, eight, corner, far), Some(true));
/// // Walling (1, 0) and (0, 1) as well would shut the corner in.
/// let check = regions
///     .check_blocking(ProfileId::DEFAULT, 1, eight, &[Cell::new(1, 0), Cell::new(0, 1)], &[corner], far)
///     .expect("tracked")
///     .expect("cells on the map");
/// assert!(check.disconnects());
/// ```
#[derive(Resource, Clone, Default, Reflect)]
#[reflect(opaque)]
#[reflect(Resource, Default)]
pub struct NavConnectivity {
    regions: HashMap<(KindKey, Movement), Tracked>,
    /// The navigation grid and profile revision the regions were built for.
    built_for: Option<(u64, u64)>,
}

/// Where the regions of one tracked kind and movement rule stand.
#[derive(Clone)]
enum Tracked {
    /// To be built in the next Invalidate stage.
    Pending,
    /// Built and kept up to date.
    Built(Box<Regions>),
    /// The plugin cannot search the kind on this grid with these profiles (an unknown profile,
    /// a bad size): tried again when the grid or the profiles change.
    Refused(KindError),
}

/// The labels of one kind and movement rule, with the grid size they were built for.
#[derive(Clone)]
struct Regions {
    components: Components,
    width: u32,
    height: u32,
}

impl NavConnectivity {
    /// Keeps the regions of agents of `size` cells under `profile` moving by `movement`; they
    /// are built in the next Invalidate stage. A kind the plugin cannot search (an unknown
    /// profile, a bad size) stays tracked without regions, its reason in
    /// [`NavConnectivity::refusal`], and is tried again whenever the grid or the profiles
    /// change (a profile registered later is picked up).
    pub fn track(&mut self, profile: ProfileId, size: u8, movement: Movement) {
        self.regions
            .entry((KindKey { profile, size }, movement))
            .or_insert(Tracked::Pending);
    }

    /// Stops keeping the regions of the kind and movement rule.
    pub fn untrack(&mut self, profile: ProfileId, size: u8, movement: Movement) {
        self.regions.remove(&(KindKey { profile, size }, movement));
    }

    /// Why a tracked kind has no regions: the plugin cannot search it on this grid with these
    /// profiles. `None` when it is built, pending, or not tracked.
    #[must_use]
    pub fn refusal(&self, profile: ProfileId, size: u8, movement: Movement) -> Option<KindError> {
        match self.regions.get(&(KindKey { profile, size }, movement))? {
            Tracked::Refused(error) => Some(*error),
            Tracked::Pending | Tracked::Built(_) => None,
        }
    }

    /// Whether an agent of the kind at `from` can reach `to`; `None` until the kind is tracked
    /// and built.
    #[must_use]
    pub fn reaches(
        &self,
        profile: ProfileId,
        size: u8,
        movement: Movement,
        from: Cell,
        to: Cell,
    ) -> Option<bool> {
        let regions = self.regions(profile, size, movement)?;
        Some(regions.components.same_component(from, to))
    }

    /// What blocking the map cells `blocked` would do to the connections of agents of the kind
    /// from the anchors `from` to the anchor `to` ([`Components::check_blocking`], on the
    /// anchors the cells take away); `None` until the kind is tracked and built.
    ///
    /// # Errors
    /// [`ConnectivityError::OutOfBounds`] for a cell or anchor outside the map.
    pub fn check_blocking(
        &self,
        profile: ProfileId,
        size: u8,
        movement: Movement,
        blocked: &[Cell],
        from: &[Cell],
        to: Cell,
    ) -> Option<Result<BlockingCheck, ConnectivityError>> {
        let regions = self.regions(profile, size, movement)?;
        let footprint = Footprint::for_movement(movement);
        let bounds = (regions.width, regions.height);
        let anchors = match covering_anchors(blocked, (size, footprint), bounds) {
            Ok(anchors) => anchors,
            Err(cell) => {
                return Some(Err(ConnectivityError::OutOfBounds {
                    cell,
                    width: regions.width,
                    height: regions.height,
                }));
            }
        };
        Some(regions.components.check_blocking(&anchors, from, to))
    }

    /// The built regions of a kind, if any.
    fn regions(&self, profile: ProfileId, size: u8, movement: Movement) -> Option<&Regions> {
        match self.regions.get(&(KindKey { profile, size }, movement))? {
            Tracked::Built(regions) => Some(regions),
            Tracked::Pending | Tracked::Refused(_) => None,
        }
    }
}

/// The anchors whose `footprint` of `size` covers one of `cells`, on a `width` x `height` map,
/// each once ([`Footprint::anchors_covering`]); `Err` with the first cell outside the map.
fn covering_anchors(
    cells: &[Cell],
    (size, footprint): (u8, Footprint),
    (width, height): (u32, u32),
) -> Result<Vec<Cell>, Cell> {
    if let Some(&outside) = cells
        .iter()
        .find(|cell| cell.x >= width || cell.y >= height)
    {
        return Err(outside);
    }
    Ok(footprint.anchors_covering(cells, size, width, height))
}

/// Brings the tracked regions up to date with this frame's published changes, and builds
/// those tracked since. Without a navigation grid every tracked kind waits, without regions.
pub(crate) fn sync_connectivity(
    mut changes: MessageReader<NavChanged>,
    nav: Option<Res<NavGrid>>,
    profiles: Res<TerrainProfiles>,
    mut layers: ResMut<AgentLayers>,
    mut connectivity: ResMut<NavConnectivity>,
) {
    let connectivity = connectivity.bypass_change_detection();
    let current = nav.as_ref().map(|nav| (nav.id(), profiles.revision()));
    if connectivity.built_for != current {
        connectivity.built_for = current;
        for tracked in connectivity.regions.values_mut() {
            *tracked = Tracked::Pending;
        }
    }
    let Some(nav) = nav else {
        return;
    };
    let messages: Vec<&NavChanged> = changes.read().collect();
    for (&(kind, movement), tracked) in &mut connectivity.regions {
        if matches!(tracked, Tracked::Refused(_)) {
            continue;
        }
        let grid = match layers.grid_for(kind, &nav, &profiles) {
            Ok(grid) => grid.snapshot,
            Err(error) => {
                warn!(
                    "connectivity of {kind:?} not kept until the grid or profiles change: {error}"
                );
                *tracked = Tracked::Refused(error);
                continue;
            }
        };
        if let Tracked::Built(built) = tracked
            && built.update(&grid, &messages, kind)
        {
            continue;
        }
        *tracked = Tracked::Built(Box::new(Regions {
            components: Components::new(&grid, movement),
            width: grid.width(),
            height: grid.height(),
        }));
    }
}

impl Regions {
    /// Applies the changes of `kind`'s grid in `messages` (`grid` is that grid now); false when
    /// the regions must be built anew (a whole-map change, or an update the labels refused).
    fn update(&mut self, grid: &Grid, messages: &[&NavChanged], kind: KindKey) -> bool {
        for message in messages {
            let Some(change) = message.change_for_kind(kind) else {
                continue;
            };
            if change.is_whole_map() {
                return false;
            }
            let cells: Vec<Cell> = change.cells().map(|changed| changed.cell).collect();
            if self.components.update(grid, &cells).is_err() {
                return false;
            }
            if !change.links().is_empty() && self.components.update_links(grid).is_err() {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covering_anchors_reach_up_and_left_within_the_map() {
        assert_eq!(
            covering_anchors(&[Cell::new(1, 1)], (2, Footprint::Square), (4, 4)),
            Ok(vec![
                Cell::new(0, 0),
                Cell::new(1, 0),
                Cell::new(0, 1),
                Cell::new(1, 1)
            ])
        );
        assert_eq!(
            covering_anchors(
                &[Cell::new(0, 0), Cell::new(0, 0)],
                (3, Footprint::Square),
                (4, 4)
            ),
            Ok(vec![Cell::new(0, 0)])
        );
        assert_eq!(
            covering_anchors(&[Cell::new(4, 0)], (1, Footprint::Square), (4, 4)),
            Err(Cell::new(4, 0))
        );
    }
}
