//! The jump point engine: jump point search over the grid packed for it, much faster than A* on
//! open maps, where it can honour the request: a grid without terrain costs, eight neighbours
//! without corner cutting, the octile heuristic unweighted, no window or partial path
//! ([`JpsOptions::try_from`]). Other requests run A*, at the same optimal cost, and
//! [`Path::algorithm`](crate::Path::algorithm) says which ran. It records no trace.

use super::{EngineAnswer, SearchEngine, SearchJob, astar};
use crate::{NavChange, NavChanged, NavGrid, PathAlgorithm};
use astar_grid::{Grid, JpsOptions, JumpGrid, Searcher};
use bevy::prelude::*;
use core::sync::atomic::AtomicBool;
use std::sync::{Arc, Weak};

/// The grid packed for jump point search, kept in step with the map as flow fields are: built
/// when a jump point request first needs it (O(cells)), then brought up to date from the map
/// changes since (O(1) per cell blocked or opened), and built again after a terrain edit or a
/// new grid. A grid with terrain costs has none: its requests run A*.
#[derive(Resource, Default)]
pub(crate) struct JumpPoints {
    /// The jump grid, a handle to the grid it matches, and that grid's [`NavGrid::id`].
    packed: Option<(Arc<JumpGrid>, Weak<Grid>, u64)>,
    /// Map changes published since the jump grid last matched the grid.
    changes: Vec<Arc<NavChange>>,
    /// A handle to a grid found to have terrain costs: no jump grid until it changes.
    unsupported: Option<Weak<Grid>>,
}

impl JumpPoints {
    /// The engine for a jump point request on `nav` now: jump point search over a jump grid
    /// matching it, or A* when the grid has terrain costs.
    pub(crate) fn engine_for(&mut self, nav: &NavGrid) -> SearchEngine {
        self.jump_grid(nav).map_or(SearchEngine::AStar, |grid| {
            SearchEngine::JumpPoint(Some(grid))
        })
    }

    /// Records a published map change, to be applied when the jump grid is next needed.
    fn record(&mut self, change: &Arc<NavChange>) {
        if self.packed.is_some() {
            self.changes.push(Arc::clone(change));
        }
    }

    /// A jump grid matching `nav`'s grid now, or `None` when it has terrain costs.
    fn jump_grid(&mut self, nav: &NavGrid) -> Option<Arc<JumpGrid>> {
        if let Some((jump_grid, handle, id)) = &self.packed
            && nav.is_still(handle)
            && *id == nav.id()
        {
            // Changes published since were edits made before it was packed.
            self.changes.clear();
            return Some(Arc::clone(jump_grid));
        }
        if self
            .unsupported
            .as_ref()
            .is_some_and(|handle| nav.is_still(handle))
        {
            return None;
        }
        // A jump grid of another grid (a new or replaced NavGrid) is never updated, only built.
        let updated = self
            .packed
            .take()
            .filter(|&(_, _, id)| id == nav.id())
            .and_then(|(jump_grid, _, _)| self.brought_up_to_date(jump_grid, nav));
        self.changes.clear();
        match updated.or_else(|| JumpGrid::new(nav.grid()).ok().map(Arc::new)) {
            Some(jump_grid) => {
                self.packed = Some((Arc::clone(&jump_grid), nav.handle(), nav.id()));
                self.unsupported = None;
                Some(jump_grid)
            }
            None => {
                self.unsupported = Some(nav.handle());
                None
            }
        }
    }

    /// `jump_grid` with the recorded changes and the grid's unpublished edits applied (each
    /// changed cell takes its value now, and changed links bring the grid's links), or `None`
    /// when it must be built anew: the whole map changed, or a cell got a terrain cost.
    fn brought_up_to_date(
        &self,
        mut jump_grid: Arc<JumpGrid>,
        nav: &NavGrid,
    ) -> Option<Arc<JumpGrid>> {
        let pending = nav.pending_changes();
        let changes = self.changes.iter().map(Arc::as_ref).chain([&pending]);
        let mut links_changed = false;
        for change in changes {
            if change.is_whole_map() {
                return None;
            }
            for changed in change.cells() {
                let value = nav.grid().value(changed.cell);
                if value > 1 {
                    return None;
                }
                Arc::make_mut(&mut jump_grid)
                    .set_blocked(changed.cell, value == 0)
                    .ok()?;
            }
            links_changed |= !change.links().is_empty();
        }
        if links_changed {
            Arc::make_mut(&mut jump_grid)
                .update_links(nav.grid())
                .ok()?;
        }
        Some(jump_grid)
    }
}

/// Applies this frame's [`NavChanged`] messages to the jump grid.
pub(crate) fn record_jump_point_changes(
    mut changes: MessageReader<NavChanged>,
    mut jump_points: ResMut<JumpPoints>,
) {
    for message in changes.read() {
        jump_points.record(&message.change);
    }
}

/// Runs `job` by jump point search on `jump_grid` (packed from `grid`), or by A* on `grid` when
/// its options are beyond jump point search; `None` when a fallback A* was cancelled.
pub(super) async fn run(
    searcher: &mut Searcher,
    grid: &Grid,
    jump_grid: &Arc<JumpGrid>,
    job: &SearchJob,
    cancelled: &AtomicBool,
) -> Option<EngineAnswer> {
    match JpsOptions::try_from(&job.options.with_trace(false)) {
        Ok(jps) => Some(EngineAnswer {
            result: searcher.find_path_jps(jump_grid, job.start, job.goal, &jps),
            algorithm: PathAlgorithm::JumpPoint,
            cacheable: true,
        }),
        Err(_) => astar::run(searcher, grid, job, cancelled)
            .await
            .map(EngineAnswer::astar),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::Cell;

    /// Publishes `nav`'s pending edits to `jump_points`, as the Invalidate stage does.
    fn publish(nav: &mut NavGrid, jump_points: &mut JumpPoints) {
        jump_points.record(&Arc::new(nav.take_changes()));
    }

    fn packed(jump_points: &mut JumpPoints, nav: &NavGrid) -> Option<JumpGrid> {
        jump_points.jump_grid(nav).map(Arc::unwrap_or_clone)
    }

    #[test]
    fn the_jump_grid_follows_published_and_pending_edits_and_terrain() {
        let mut nav = NavGrid::new(Grid::new(20, 12));
        let mut jump_points = JumpPoints::default();
        assert_eq!(
            packed(&mut jump_points, &nav),
            JumpGrid::new(nav.grid()).ok()
        );
        // Edits published over two frames, then edits not published yet: each cell counts
        // with its value now, whatever it was in between.
        let edits: [&[(u32, u32, u8)]; 3] = [
            &[(3, 3, 0), (4, 3, 0), (5, 3, 0)],
            &[(4, 3, 1), (10, 7, 0), (3, 3, 0)],
            &[(5, 3, 1), (11, 7, 0), (0, 0, 0)],
        ];
        for (frame, cells) in edits.iter().enumerate() {
            for &(x, y, value) in *cells {
                nav.set_cost(Cell::new(x, y), value)
                    .expect("inside the grid");
            }
            if frame < 2 {
                publish(&mut nav, &mut jump_points);
            }
        }
        assert_eq!(
            packed(&mut jump_points, &nav),
            JumpGrid::new(nav.grid()).ok()
        );
        // A terrain cost: no jump grid, until the cost is taken back.
        nav.set_cost(Cell::new(8, 8), 4).expect("inside the grid");
        assert_eq!(packed(&mut jump_points, &nav), None);
        publish(&mut nav, &mut jump_points);
        assert_eq!(packed(&mut jump_points, &nav), None);
        nav.set_cost(Cell::new(8, 8), 1).expect("inside the grid");
        assert_eq!(
            packed(&mut jump_points, &nav),
            JumpGrid::new(nav.grid()).ok()
        );
        // A new grid of another size is packed anew.
        nav.replace_grid(Grid::new(7, 5));
        jump_points.record(&Arc::new(NavChange::whole_map()));
        assert_eq!(
            packed(&mut jump_points, &nav),
            JumpGrid::new(nav.grid()).ok()
        );
    }

    #[test]
    fn a_grid_replaced_before_its_change_is_published_is_packed_anew() {
        let mut nav = NavGrid::new(Grid::new(12, 6));
        let mut jump_points = JumpPoints::default();
        assert!(packed(&mut jump_points, &nav).is_some());
        // Replaced in the same frame, after Invalidate: no change recorded yet.
        let mut walled = Grid::new(12, 6);
        walled
            .set_cost(Cell::new(6, 2), 0)
            .expect("inside the grid");
        nav.replace_grid(walled);
        let fresh = JumpGrid::new(nav.grid()).ok();
        assert_eq!(packed(&mut jump_points, &nav), fresh);
        // Its whole-map change, published next frame, leaves the right grid in place.
        jump_points.record(&Arc::new(NavChange::whole_map()));
        assert_eq!(packed(&mut jump_points, &nav), fresh);
        assert!(jump_points.changes.is_empty());
    }

    #[test]
    fn changes_already_packed_are_not_kept() {
        let mut nav = NavGrid::new(Grid::new(12, 6));
        let mut jump_points = JumpPoints::default();
        nav.block(Cell::new(3, 3)).expect("inside the grid");
        assert!(packed(&mut jump_points, &nav).is_some());
        for _ in 0..5 {
            publish(&mut nav, &mut jump_points);
            assert_eq!(
                packed(&mut jump_points, &nav),
                JumpGrid::new(nav.grid()).ok()
            );
            assert!(jump_points.changes.is_empty());
        }
    }
}
