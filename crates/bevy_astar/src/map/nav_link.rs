//! Links as entities: the `NavLink` component, whose insertion, change and removal edit the
//! navigation grid's links, and the system that keeps the two in step.

use super::NavGrid;
use astar_grid::{Link, LinkError, LinkId};
use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;

/// A link of the navigation grid as an entity: a door, a ladder, stairs between floors, a
/// one-way drop or a teleporter ([`Link`]).
///
/// Inserting it adds the link to the [`NavGrid`]; changing it (closing a door:
/// `nav_link.0.open = false`) edits the link; removing it, or despawning the entity, removes
/// the link. Each is a map change like [`NavGrid::add_link`] and friends make, published in the
/// same frame when made before [`PathfindingSystems::Invalidate`](crate::PathfindingSystems::Invalidate).
/// A link the grid refuses (an end off the map or blocked, a bad cost) is not added: its
/// [`NavLinkState::error`] says why, and a warning is logged. A new [`NavGrid`] takes every
/// `NavLink` again.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, AStarPlugin::default()))
///     .insert_resource(NavGrid::new(Grid::new(16, 8)));
/// let door = app
///     .world_mut()
///     .spawn(NavLink(Link::new(Cell::new(3, 3), Cell::new(12, 3), 1.0)))
///     .id();
/// app.update();
/// let id = app.world().get::<NavLinkState>(door).and_then(NavLinkState::id);
/// let nav = app.world().resource::<NavGrid>();
/// assert_eq!(id.and_then(|id| nav.grid().links().get(id)).map(|link| link.open), Some(true));
/// // Closing the door is a change of the component.
/// app.world_mut().get_mut::<NavLink>(door).unwrap().0.open = false;
/// app.update();
/// let nav = app.world().resource::<NavGrid>();
/// assert_eq!(id.and_then(|id| nav.grid().links().get(id)).map(|link| link.open), Some(false));
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Component, Clone, Debug, PartialEq)]
#[require(NavLinkState)]
pub struct NavLink(pub Link);

/// Where a [`NavLink`] stands in the navigation grid: the link's id there, or why the grid
/// refused it. Kept by the plugin.
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Component, Clone, Debug, Default, PartialEq)]
pub struct NavLinkState {
    id: Option<LinkId>,
    error: Option<LinkError>,
    /// The identity of the grid the link was added to.
    grid: u64,
}

impl NavLinkState {
    /// The link's id in the navigation grid, once added.
    #[must_use]
    pub const fn id(&self) -> Option<LinkId> {
        self.id
    }

    /// Why the grid refused the link, if it did.
    #[must_use]
    pub const fn error(&self) -> Option<&LinkError> {
        self.error.as_ref()
    }
}

/// The link each [`NavLink`] entity added, so that it is removed with the entity.
#[derive(Resource, Default)]
pub(crate) struct NavLinkIds(EntityHashMap<LinkId>);

/// What the link sync reads and writes of a link entity.
type LinkEntity = (Entity, Ref<'static, NavLink>, &'static mut NavLinkState);

/// Brings the navigation grid's links in step with the [`NavLink`] entities: removes the links
/// of those removed or despawned, adds the new ones, and edits the changed ones (opening or
/// closing in place; any other change replaces the link). On a new grid, adds them all again.
pub(crate) fn sync_nav_links(
    nav: Option<ResMut<NavGrid>>,
    mut ids: ResMut<NavLinkIds>,
    mut links: Query<LinkEntity>,
    mut removed: RemovedComponents<NavLink>,
) {
    let Some(mut nav) = nav else {
        removed.clear();
        return;
    };
    for entity in removed.read() {
        if let Some(id) = ids.0.remove(&entity) {
            // Gone already when the grid was replaced since.
            let _ = nav.remove_link(id);
        }
    }
    let grid = nav.id();
    for (entity, link, mut state) in &mut links {
        let fresh_grid = state.grid != grid;
        if !(fresh_grid || link.is_changed()) {
            continue;
        }
        let kept = state
            .id
            .filter(|_| !fresh_grid)
            .and_then(|id| Some((id, *nav.grid().links().get(id)?)));
        let outcome = match kept {
            Some((id, before))
                if Link {
                    open: link.0.open,
                    ..before
                } == link.0 =>
            {
                nav.set_link_open(id, link.0.open).map(|_| id)
            }
            Some((id, _)) => {
                let _ = nav.remove_link(id);
                nav.add_link(link.0)
            }
            None => nav.add_link(link.0),
        };
        *state = record(entity, outcome, grid, &mut ids);
    }
}

/// The state of link entity `entity` after the grid (identity `grid`) answered with
/// `outcome`, noted in `ids`; a refusal is logged.
fn record(
    entity: Entity,
    outcome: Result<LinkId, LinkError>,
    grid: u64,
    ids: &mut NavLinkIds,
) -> NavLinkState {
    match outcome {
        Ok(id) => {
            ids.0.insert(entity, id);
            NavLinkState {
                id: Some(id),
                error: None,
                grid,
            }
        }
        Err(error) => {
            ids.0.remove(&entity);
            warn!("the navigation grid refused the link of {entity}: {error}");
            NavLinkState {
                id: None,
                error: Some(error),
                grid,
            }
        }
    }
}
