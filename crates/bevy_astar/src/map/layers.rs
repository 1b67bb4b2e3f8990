//! The derived grid of each agent kind in use, built on first use and kept up to date with the
//! published map changes.

use super::{NavCellChange, NavChange, NavGrid, NavLinkChange};
use crate::kinds::{KindError, KindKey, TerrainProfiles};
use astar_grid::{AgentGrid, Cell, Grid};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use std::sync::Arc;

/// The derived grids of the agent kinds in use (every kind but the default).
#[derive(Resource, Default)]
pub(crate) struct AgentLayers {
    layers: HashMap<KindKey, Layer>,
    /// The navigation grid and profile revision the layers were built for.
    built_for: Option<(u64, u64)>,
    /// Set when [`AgentLayers::grid_for`] dropped the layers between two publications (the
    /// grid or the profiles changed): the next publication tells every kind.
    reset_pending: bool,
}

/// What a publication changed for the agent kinds.
#[derive(Default)]
pub(crate) struct KindChanges {
    /// The change of each kind's derived grid that changed.
    pub kinds: Vec<(KindKey, Arc<NavChange>)>,
    /// Whether every derived grid was dropped (the grid was replaced, or the profiles
    /// changed): every kind but the default then sees the whole map change.
    pub reset: bool,
}

impl KindChanges {
    /// Whether nothing changed for any kind.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty() && !self.reset
    }
}

/// One kind's derived grid, and the snapshot of it that searches read.
struct Layer {
    agent: AgentGrid,
    snapshot: Arc<Grid>,
    /// Whether [`AgentLayers::grid_for`] handed it out since the last sweep
    /// ([`AgentLayers::evict_unused`]).
    used: bool,
}

/// Frames between two sweeps of the derived grids that nothing uses
/// ([`AgentLayers::evict_unused`]).
pub(crate) const SWEEP_FRAMES: u32 = 256;

/// The grid a kind searches: a snapshot to hand to a background search, and the kind's derived
/// grid when it has one.
pub(crate) struct KindGrid<'a> {
    pub snapshot: Arc<Grid>,
    pub agent: Option<&'a AgentGrid>,
}

impl AgentLayers {
    /// The grid agents of `kind` search now: the navigation grid for the default kind, else the
    /// kind's derived grid, built from the navigation grid on first use.
    ///
    /// # Errors
    /// [`KindError`] for an unknown profile, or a size out of range or larger than the map.
    pub fn grid_for(
        &mut self,
        kind: KindKey,
        nav: &NavGrid,
        profiles: &TerrainProfiles,
    ) -> Result<KindGrid<'_>, KindError> {
        if kind.is_default() {
            return Ok(KindGrid {
                snapshot: nav.snapshot(),
                agent: None,
            });
        }
        kind.checked_size()?;
        let profile = profiles
            .get(kind.profile)
            .ok_or(KindError::UnknownProfile(kind.profile))?;
        if self.built_for != Some((nav.id(), profiles.revision())) {
            // Built for another grid or other profiles: dropped, and the next publication
            // tells every kind that the whole map changed.
            self.layers.clear();
            self.built_for = Some((nav.id(), profiles.revision()));
            self.reset_pending = true;
        }
        let layer = match self.layers.entry(kind) {
            bevy::platform::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
            bevy::platform::collections::hash_map::Entry::Vacant(entry) => {
                let footprint = nav.shape().footprint();
                let agent = AgentGrid::with_footprint(nav.grid(), profile, kind.size, footprint)?;
                let snapshot = Arc::new(agent.grid().clone());
                entry.insert(Layer {
                    agent,
                    snapshot,
                    used: true,
                })
            }
        };
        layer.used = true;
        Ok(KindGrid {
            snapshot: Arc::clone(&layer.snapshot),
            agent: Some(&layer.agent),
        })
    }

    /// Brings every layer up to date with `change`, just published for `nav`; returns the
    /// change as each layer's kind sees it. When the grid was replaced or the profiles changed,
    /// the layers are dropped, to be built again on use, and every kind but the default sees
    /// the whole map change ([`KindChanges::reset`]).
    pub fn apply(
        &mut self,
        nav: &NavGrid,
        profiles: &TerrainProfiles,
        change: &NavChange,
    ) -> KindChanges {
        let current = Some((nav.id(), profiles.revision()));
        if change.is_whole_map() || self.built_for != current || self.reset_pending {
            self.built_for = current;
            self.reset_pending = false;
            self.layers.clear();
            return KindChanges {
                kinds: Vec::new(),
                reset: true,
            };
        }
        let changed: Vec<Cell> = change.cells().map(|cell| cell.cell).collect();
        if changed.is_empty() && change.links().is_empty() {
            return KindChanges::default();
        }
        let mut kinds = Vec::new();
        let mut broken = Vec::new();
        for (&kind, layer) in &mut self.layers {
            match layer.update(nav.grid(), &changed, change.links()) {
                Ok(derived) if derived.is_empty() => {}
                Ok(derived) => kinds.push((kind, Arc::new(derived))),
                Err(error) => {
                    warn!("derived grid of {kind:?} not updated ({error}); it will be rebuilt");
                    broken.push(kind);
                }
            }
        }
        for kind in broken {
            self.layers.remove(&kind);
            kinds.push((kind, Arc::new(NavChange::whole_map())));
        }
        KindChanges {
            kinds,
            reset: false,
        }
    }
}

impl AgentLayers {
    /// Drops the derived grids of the kinds that no request names (`in_use` says which do) and
    /// that [`AgentLayers::grid_for`] has not handed out since the last sweep (a search, the
    /// connectivity of a tracked kind); returns their kinds, which then see the whole map
    /// change, so that no cached result of theirs outlives the grid. A dropped kind's grid is
    /// built again on its next use.
    pub fn evict_unused(&mut self, in_use: impl Fn(KindKey) -> bool) -> Vec<KindKey> {
        let mut evicted = Vec::new();
        self.layers.retain(|&kind, layer| {
            let keep = core::mem::take(&mut layer.used) || in_use(kind);
            if !keep {
                evicted.push(kind);
            }
            keep
        });
        evicted.sort_unstable_by_key(|kind| (kind.profile.index(), kind.size));
        evicted
    }

    /// Whether no derived grid is held.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// Forgets every derived grid when the navigation grid is gone: every kind but the
    /// default sees the whole map change.
    pub fn grid_removed(&mut self) -> KindChanges {
        self.layers.clear();
        self.built_for = None;
        self.reset_pending = false;
        KindChanges {
            kinds: Vec::new(),
            reset: true,
        }
    }
}

impl Layer {
    /// Updates the derived grid for the terrain cells `changed` and the changed `links`, and
    /// writes the derived cells that changed into the snapshot (copying it only while a search
    /// still reads it); returns them, with the links, as a map change.
    fn update(
        &mut self,
        terrain: &Grid,
        changed: &[Cell],
        links: &[NavLinkChange],
    ) -> Result<NavChange, KindError> {
        let derived = self.agent.update(terrain, changed)?;
        if !links.is_empty() && self.snapshot.links() != self.agent.grid().links() {
            // The kind's links changed (a link it may take): the snapshot takes the grid whole.
            let before = Arc::clone(&self.snapshot);
            self.snapshot = Arc::new(self.agent.grid().clone());
            let cells = derived.into_iter().map(|cell| NavCellChange {
                cell,
                before: before.cost(cell).unwrap_or(0),
                after: self.agent.grid().cost(cell).unwrap_or(0),
            });
            return Ok(NavChange::from_cells(cells).with_links(links.iter().copied()));
        }
        if derived.is_empty() {
            // No cell changed for this kind, nor any link it may take: the snapshot stays the
            // one searches hold.
            return Ok(NavChange::default());
        }
        let snapshot = Arc::make_mut(&mut self.snapshot);
        let mut changes = Vec::with_capacity(derived.len());
        for cell in derived {
            let before = snapshot.cost(cell).unwrap_or(0);
            let after = self.agent.grid().cost(cell).unwrap_or(0);
            snapshot.set_cost(cell, after).map_err(|_| {
                KindError::Agent(astar_grid::agent::AgentError::OutOfBounds {
                    cell,
                    width: terrain.width(),
                    height: terrain.height(),
                })
            })?;
            changes.push(NavCellChange {
                cell,
                before,
                after,
            });
        }
        Ok(NavChange::from_cells(changes))
    }
}
