//! A [`SectorFieldView`] patched for a grid that changed after its field measured it: the
//! sectors around the changed cells flooded again on the new grid, towards the ways out the
//! field had found, so that every walk is legal at once, before a renewed field is measured.

use super::{SectorCosts, flood_base, flood_sector, step_cost};
use crate::hierarchy::local::LocalSearch;
use crate::hierarchy::{Hierarchy, SectorFieldView};
use crate::{Cell, Grid};
use std::collections::HashSet;
use std::sync::Arc;

/// How far above the cost a view gave a cell a patched view may put it and still count it the
/// same: far below the price of a step, above the rounding of the `f32` costs.
const RAISE_TOLERANCE: f64 = 1e-6;

impl SectorFieldView {
    /// This view, patched for `grid`: the grid it was measured on (`measured_on`) with the
    /// cells `changed` changed (blocked, opened, or their costs), and nothing else. Each
    /// measured sector within a cell of a changed cell is flooded again on `grid`, from the
    /// ways out of it the field had found that `grid` still allows; every other sector keeps
    /// its costs, since no step of its walks meets a changed cell.
    ///
    /// Every walk of the patched view (its [`next_step`](SectorFieldView::next_step)s on
    /// `grid`) from a cell it gives a cost is legal and ends at the goal; a cell of a patched
    /// sector that reaches none of the sector's ways out on `grid` gets none. Its walks may
    /// cost more than a renewed field's ([`SectorFlowField::renewed`]), which a caller
    /// measures meanwhile: the ways between sectors are those found before the change, and
    /// its costs outside the patched sectors are the field's as it was. Where a walk entering
    /// a patched sector could come round, or find no way on, there is no patched view
    /// (`None`), and none either:
    /// - where either grid has links, or the grids' sizes differ from the hierarchy's;
    /// - for a view patched already ([`SectorFieldView::is_patched`]).
    ///
    /// Cost: a flood of each sector patched, and a walk from each cell where walks enter such
    /// a sector at a higher cost than before, until it costs less than any of those cells did
    /// before.
    ///
    /// [`SectorFlowField::renewed`]: super::SectorFlowField::renewed
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, SectorFlowField};
    ///
    /// let grid = Grid::new(64, 16);
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(8))?;
    /// let (start, goal) = (Cell::new(1, 8), Cell::new(62, 8));
    /// let mut field = SectorFlowField::new(&hierarchy, &grid, goal)?;
    /// field.cost_at(&hierarchy, &grid, start)?;
    /// while field.measure_ahead(&hierarchy, &grid, 8)? == 8 {}
    /// let view = field.view(&hierarchy)?;
    ///
    /// // A wall across the way, with a gap at the top.
    /// let mut walled = grid.clone();
    /// walled.fill_rect(Cell::new(30, 0), Cell::new(30, 12), 0);
    /// let changed: Vec<Cell> = (0..=12).map(|y| Cell::new(30, y)).collect();
    /// assert!(view.path_from(&walled, start).is_none()); // the old walk crosses the wall
    /// let patched = view.patched((&grid, &walled), &changed).expect("a way round");
    /// let walk = patched.path_from(&walled, start).expect("legal on the walled grid");
    /// assert_eq!(walk.cells.last(), Some(&goal));
    /// assert!(walk.cells.iter().any(|cell| cell.x == 30 && cell.y > 12));
    /// # Ok::<(), astar_grid::HierarchyError>(())
    /// ```
    #[must_use]
    pub fn patched(&self, (measured_on, grid): (&Grid, &Grid), changed: &[Cell]) -> Option<Self> {
        let hierarchy = &self.hierarchy;
        let unlinked = !measured_on.links.has_steps() && !grid.links.has_steps();
        let sized = hierarchy.check_grid(measured_on).is_ok() && hierarchy.check_grid(grid).is_ok();
        if self.patched || !unlinked || !sized {
            return None;
        }
        let around = sectors_around(hierarchy, changed);
        let mut sectors = self.sectors.clone();
        let mut scratch = LocalSearch::default();
        for &sector in &around {
            let Some(costs) = self.sectors[sector].as_deref() else {
                continue;
            };
            let patched = self.reflooded(grid, (sector, costs), &mut scratch);
            sectors[sector] = Some(Arc::new(patched));
        }
        let view = Self {
            goal: self.goal,
            hierarchy: self.hierarchy.clone(),
            numbers: self.numbers.clone(),
            via: Arc::clone(&self.via),
            sectors,
            measured: self.measured,
            patched: true,
        };
        let raised = view.raised_entries(self, &around);
        view.walks_end(grid, &raised).then_some(view)
    }

    /// `sector` (measured as `costs`) flooded again on `grid` from the seeds `grid` still
    /// allows: the goal where it is walkable, and each node whose step out of the sector onto
    /// its way's next node `grid` still allows, at the cost it had.
    fn reflooded(
        &self,
        grid: &Grid,
        (sector, costs): (usize, &SectorCosts),
        scratch: &mut LocalSearch,
    ) -> SectorCosts {
        let hierarchy = &self.hierarchy;
        let reading = self.reading();
        let seeds: Vec<(Cell, f64)> = costs
            .seeds
            .iter()
            .copied()
            .filter(|&(cell, _)| {
                if !grid.is_walkable(cell) {
                    return false;
                }
                match reading.next_in(hierarchy, sector, cell) {
                    Some((next, Some(_))) => {
                        step_cost(grid, hierarchy.rules(), cell, next).is_some()
                    }
                    // The goal, where walks arrive.
                    _ => cell == self.goal,
                }
            })
            .collect();
        let base = flood_base(&seeds);
        let rect = hierarchy.sector_rect_of(sector);
        let (offsets, next) = flood_sector(
            scratch,
            (grid, hierarchy.rules(), self.goal),
            (rect, &seeds),
            base,
        );
        SectorCosts {
            base,
            offsets,
            next,
            build: costs.build,
            seeds: seeds.into_boxed_slice(),
        }
    }

    /// The cells where walks enter a sector of `around` (the node a way out of a measured
    /// sector beside it steps onto) that this view, patched from `before`, reaches at a higher
    /// cost than `before` did, or not at all; each with the cost `before` gave it.
    fn raised_entries(&self, before: &Self, around: &[usize]) -> Vec<(Cell, Option<f64>)> {
        let hierarchy = &self.hierarchy;
        let reading = self.reading();
        let mut raised = Vec::new();
        let mut seen = HashSet::new();
        for sector in beside(hierarchy, around) {
            let Some(costs) = self.sectors[sector].as_deref() else {
                continue;
            };
            for &(seed, _) in &costs.seeds {
                let Some((entry, Some(_))) = reading.next_in(hierarchy, sector, seed) else {
                    continue;
                };
                let into = hierarchy.sector_of(entry);
                if !into.is_some_and(|into| into != sector && around.contains(&into))
                    || !seen.insert(entry)
                {
                    continue;
                }
                let now = reading.cost(hierarchy, entry);
                let then = before.reading().cost(hierarchy, entry);
                let higher = match (now, then) {
                    (Some(now), Some(then)) => now > then + RAISE_TOLERANCE * then.max(1.0),
                    _ => true,
                };
                if higher {
                    raised.push((entry, then));
                }
            }
        }
        raised
    }

    /// Whether the walk from each of `entries` (each with the cost the view before gave it) on
    /// `grid` goes on legally, without coming round, until it reaches the goal or a cell that
    /// costs less than any of them did before. From there it reaches the goal: costs fall
    /// along every walk but where it enters a sector patched at a cost higher than before, and
    /// a walk enters a cell only from one that costs at least a step more than that cell did
    /// before. A walk that meets a node an earlier walk left a sector from ends as that one
    /// did.
    fn walks_end(&self, grid: &Grid, entries: &[(Cell, Option<f64>)]) -> bool {
        let hierarchy = &self.hierarchy;
        let reading = self.reading();
        let lowest = entries
            .iter()
            .map(|&(_, then)| then.unwrap_or(f64::NEG_INFINITY))
            .fold(f64::INFINITY, f64::min);
        let below = lowest - RAISE_TOLERANCE * lowest.abs().max(1.0);
        let most = grid.width() as usize * grid.height() as usize;
        let mut checked: HashSet<u32> = HashSet::new();
        let mut left: Vec<u32> = Vec::new();
        for &(entry, _) in entries {
            left.clear();
            let mut at = entry;
            let mut steps = 0usize;
            let ends = loop {
                let cost = reading.cost(hierarchy, at);
                if at == self.goal || cost.is_some_and(|cost| cost < below) {
                    break true;
                }
                steps += 1;
                if steps > most {
                    break false;
                }
                let Some(sector) = hierarchy.sector_of(at) else {
                    break false;
                };
                let Some((next, _, leaving)) = reading.step_in(hierarchy, grid, sector, at) else {
                    break false;
                };
                if let Some(node) = leaving {
                    if checked.contains(&node) {
                        break true;
                    }
                    if left.contains(&node) {
                        break false; // it came round
                    }
                    left.push(node);
                }
                at = next;
            };
            if !ends {
                return false;
            }
            checked.extend(left.iter().copied());
        }
        true
    }
}

/// The sectors of `sectors` and those beside each (eight at most), each once.
fn beside(hierarchy: &Hierarchy, sectors: &[usize]) -> Vec<usize> {
    let mut near: Vec<usize> = sectors
        .iter()
        .flat_map(|&sector| {
            let rect = hierarchy.sector_rect_of(sector);
            let xs = [
                rect.min.x.checked_sub(1),
                Some(rect.min.x),
                rect.max.x.checked_add(1),
            ];
            let ys = [
                rect.min.y.checked_sub(1),
                Some(rect.min.y),
                rect.max.y.checked_add(1),
            ];
            xs.into_iter()
                .flatten()
                .flat_map(move |x| ys.into_iter().flatten().map(move |y| Cell::new(x, y)))
        })
        .filter_map(|cell| hierarchy.sector_of(cell))
        .collect();
    near.sort_unstable();
    near.dedup();
    near
}

/// The sectors within a cell of a cell of `changed` (those an edit marks,
/// [`Hierarchy::cells_changed`]), each once, in order.
fn sectors_around(hierarchy: &Hierarchy, changed: &[Cell]) -> Vec<usize> {
    let mut sectors: Vec<usize> = changed
        .iter()
        .flat_map(|&cell| hierarchy.sectors_near(cell))
        .flatten()
        .collect();
    sectors.sort_unstable();
    sectors.dedup();
    sectors
}
