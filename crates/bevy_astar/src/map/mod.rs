//! The map model every stage shares: the navigation grid, its versions and the changes between
//! them, the footprints that rule most paths out of a change, the derived grid of each agent
//! kind in use, the shape of the cells, and the crowd's cost layer. The stages import it from here; it imports nothing of theirs.

mod crowd_costs;
mod footprint;
mod layers;
mod link_change;
mod nav_grid;
mod nav_link;
mod shape;
mod touches;

pub(crate) use crowd_costs::{CrowdCostLayer, CrowdCosts, CrowdLayerChange, same_layer};
pub(crate) use footprint::{PathFootprint, step_corner_cells};
pub(crate) use layers::{AgentLayers, KindChanges, SWEEP_FRAMES};
pub use link_change::NavLinkChange;
pub(crate) use nav_grid::CellGeometry;
pub use nav_grid::NavGrid;
pub use nav_link::{NavLink, NavLinkState};
pub(crate) use nav_link::{NavLinkIds, sync_nav_links};
pub use shape::NavShape;

use crate::ProfileId;
use crate::kinds::KindKey;
use astar_grid::Cell;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use std::sync::Arc;

/// The version of the navigation map: 0 before any [`NavGrid`](crate::NavGrid) exists, then one more for every
/// frame in which cells changed (and for every new or removed grid).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Reflect)]
#[reflect(Resource, Debug, Default, PartialEq, Hash)]
pub struct NavVersion(u64);

impl NavVersion {
    /// The version number.
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// The version after this one.
    pub(crate) const fn next(self) -> Self {
        Self(self.0 + 1)
    }
}

/// One cell's change between two map versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NavCellChange {
    /// The cell.
    pub cell: Cell,
    /// Its value before: 0 blocked, else the terrain cost.
    pub before: u8,
    /// Its value after: 0 blocked, else the terrain cost.
    pub after: u8,
}

impl NavCellChange {
    /// Whether the cell was walkable and is now blocked.
    #[must_use]
    pub const fn became_blocked(&self) -> bool {
        self.before != 0 && self.after == 0
    }

    /// Whether the cell was blocked and is now walkable.
    #[must_use]
    pub const fn became_walkable(&self) -> bool {
        self.before == 0 && self.after != 0
    }

    /// Whether the cell opened or got cheaper to enter: a change that can shorten paths.
    #[must_use]
    pub const fn improves(&self) -> bool {
        self.after != 0 && (self.before == 0 || self.after < self.before)
    }
}

/// The cells and links that changed between two map versions, or a whole-map replacement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NavChange {
    cells: HashMap<Cell, NavCellChange>,
    links: Vec<NavLinkChange>,
    bounds: Option<(Cell, Cell)>,
    whole_map: bool,
}

impl NavChange {
    /// A change of every cell: the grid was inserted, replaced or removed.
    #[must_use]
    pub fn whole_map() -> Self {
        Self {
            whole_map: true,
            ..Self::default()
        }
    }

    /// A change of the given cells; entries whose value did not actually change are left out.
    pub fn from_cells(changes: impl IntoIterator<Item = NavCellChange>) -> Self {
        let mut change = Self::default();
        for cell_change in changes {
            if cell_change.before == cell_change.after {
                continue;
            }
            change.widen_bounds(cell_change.cell);
            change.cells.insert(cell_change.cell, cell_change);
        }
        change
    }

    /// This change with the link changes `links` too; entries that change nothing are left
    /// out. The links' ends count in [`NavChange::bounds`].
    #[must_use]
    pub fn with_links(mut self, links: impl IntoIterator<Item = NavLinkChange>) -> Self {
        for link in links {
            if link.before == link.after {
                continue;
            }
            for end in link.ends() {
                self.widen_bounds(end);
            }
            self.links.push(link);
        }
        self
    }

    /// Grows the bounding box to hold `cell`.
    fn widen_bounds(&mut self, cell: Cell) {
        self.bounds = Some(match self.bounds {
            None => (cell, cell),
            Some((min, max)) => (
                Cell::new(min.x.min(cell.x), min.y.min(cell.y)),
                Cell::new(max.x.max(cell.x), max.y.max(cell.y)),
            ),
        });
    }

    /// The smallest rectangle holding every changed cell and the ends of every changed link,
    /// as its lowest and highest corners (inclusive); `None` for a whole-map change (which
    /// lists no cells) and for no change.
    ///
    /// ```
    /// use bevy_astar::{NavCellChange, NavChange};
    /// use bevy_astar::astar_grid::Cell;
    ///
    /// let change = NavChange::from_cells([
    ///     NavCellChange { cell: Cell::new(4, 9), before: 1, after: 0 },
    ///     NavCellChange { cell: Cell::new(6, 2), before: 1, after: 0 },
    /// ]);
    /// assert_eq!(change.bounds(), Some((Cell::new(4, 2), Cell::new(6, 9))));
    /// assert_eq!(NavChange::whole_map().bounds(), None);
    /// ```
    #[must_use]
    pub const fn bounds(&self) -> Option<(Cell, Cell)> {
        if self.whole_map { None } else { self.bounds }
    }

    /// Whether the whole map was replaced (every cell counts as changed).
    #[must_use]
    pub const fn is_whole_map(&self) -> bool {
        self.whole_map
    }

    /// Whether nothing changed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !self.whole_map && self.cells.is_empty() && self.links.is_empty()
    }

    /// Number of changed cells (0 for a whole-map change, which lists none).
    #[must_use]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// The changed cells, in no particular order.
    pub fn cells(&self) -> impl Iterator<Item = &NavCellChange> {
        self.cells.values()
    }

    /// The changed links, in the order they were first changed.
    #[must_use]
    pub fn links(&self) -> &[NavLinkChange] {
        &self.links
    }

    /// The ends of the changed links, before and after each change; a cell may come twice.
    pub fn link_ends(&self) -> impl Iterator<Item = Cell> + '_ {
        self.links.iter().flat_map(NavLinkChange::ends)
    }

    /// The change of `cell`, if it changed.
    #[must_use]
    pub fn get(&self, cell: Cell) -> Option<&NavCellChange> {
        self.cells.get(&cell)
    }

    /// Whether `cell` changed (always true for a whole-map change).
    #[must_use]
    pub fn touches(&self, cell: Cell) -> bool {
        self.whole_map || self.cells.contains_key(&cell)
    }

    /// Whether any cell opened, or any link was added, opened or widened
    /// ([`NavLinkChange::improves`]): a change that may join cells that were apart.
    #[must_use]
    pub fn opens_any(&self) -> bool {
        self.whole_map
            || self.cells.values().any(NavCellChange::became_walkable)
            || self.links.iter().any(NavLinkChange::improves)
    }

    /// Whether any cell opened or got cheaper, or any link improved.
    #[must_use]
    pub fn improves_any(&self) -> bool {
        self.whole_map
            || self.cells.values().any(NavCellChange::improves)
            || self.links.iter().any(NavLinkChange::improves)
    }
}

/// Sent once per frame in which the map changed, with the new version and every cell changed
/// since the previous version, for the navigation grid and for the derived grid of each agent
/// kind in use ([`crate::kinds`]).
#[derive(Message, Clone, Debug)]
pub struct NavChanged {
    /// The new map version.
    pub version: NavVersion,
    /// What changed in the navigation grid since the previous version.
    pub change: Arc<NavChange>,
    /// The changes of the derived grids, for the kinds whose grid changed.
    pub(crate) kinds: Vec<(KindKey, Arc<NavChange>)>,
    /// A whole-map change for every other kind but the default, when the derived grids were
    /// dropped (the grid was replaced, or a profile was added or replaced).
    pub(crate) kinds_reset: Option<Arc<NavChange>>,
}

impl NavChanged {
    /// What changed for agents of `size` cells under `profile`: the navigation grid's change
    /// for one-cell agents of the default profile, else the change of their kind's derived grid
    /// (the whole map when the derived grids were rebuilt or the navigation grid removed, or
    /// when the kind's grid was dropped because no request named it for a while; `None` when
    /// it did not change, or no agent of that kind has searched yet).
    #[must_use]
    pub fn change_for(&self, profile: ProfileId, size: u8) -> Option<&NavChange> {
        self.change_for_kind(KindKey { profile, size })
            .map(|change| &**change)
    }

    /// A message of `change` to the navigation grid alone.
    #[cfg(test)]
    pub(crate) fn navigation_only(change: NavChange) -> Self {
        Self {
            version: NavVersion::default(),
            change: Arc::new(change),
            kinds: Vec::new(),
            kinds_reset: None,
        }
    }

    /// What changed for agents of `kind`, as [`NavChanged::change_for`].
    pub(crate) fn change_for_kind(&self, kind: KindKey) -> Option<&Arc<NavChange>> {
        if kind.is_default() {
            return Some(&self.change);
        }
        self.kinds
            .iter()
            .find(|(changed, _)| *changed == kind)
            .map(|(_, change)| change)
            .or(self.kinds_reset.as_ref())
    }
}
