//! Sectors' regions and the summary of where they lead: what a coarse route over the regions
//! ([`super::HierarchySearcher::first_cells`]) reads.
//!
//! A sector's **region** is a set of its nodes joined inside it (the cheapest cost between each
//! two is finite), named by the smallest index among them. Two regions of neighbouring sectors
//! meet where a node of one steps onto a node of the other. Where every sector is built and the
//! grid has no links, the regions and their meetings tell exactly which cells reach which: a
//! way out of a sector leaves through a node of its region (each stretch of border a path may
//! cross has nodes at both ends, and its cells join along it).
//!
//! Each sector keeps a **summary of reach** in two bytes, in one array for the whole hierarchy,
//! so that a coarse route steps across sectors that are one region without reading them.

use super::local::Rect;
use super::{Hierarchy, Sector, SectorState};
use crate::Cell;
use crate::movement::DIRECTIONS;

/// In a summary of reach, bits 0 to 8 tell, per sector of the 3 x 3 around (numbered by
/// [`around`]), whether a node of the sector steps onto a node there; this bit, whether the
/// sector is one region.
pub(super) const REACH_ONE_REGION: u16 = 1 << 9;
/// In a summary of reach: measured with the sector and every sector around it built as they
/// are (a mark clears the sector's summary, and a build measures again those around it).
pub(super) const REACH_CURRENT: u16 = 1 << 10;

/// The place of the sector holding `cell` among the 3 x 3 sectors around the one of `rect`:
/// `dx + 1 + 3 * (dy + 1)`.
pub(super) fn around(rect: Rect, cell: Cell) -> usize {
    let side = |at: u32, min: u32, max: u32| match at {
        _ if at < min => 0,
        _ if at > max => 2,
        _ => 1,
    };
    side(cell.x, rect.min.x, rect.max.x) + 3 * side(cell.y, rect.min.y, rect.max.y)
}

/// The offset, in sectors, of place `place` of the 3 x 3 around (see [`around`]).
pub(super) const fn offset_of(place: usize) -> (i64, i64) {
    ((place % 3) as i64 - 1, (place / 3) as i64 - 1)
}

/// The name of the region of `sector`'s node `local`: the smallest index of a node it joins
/// inside the sector (its own at most).
pub(super) fn region_name(sector: &Sector, local: usize) -> u8 {
    let count = sector.nodes.len();
    let row = &sector.costs[local * count..][..count];
    row.iter()
        .position(|&cost| cost != f32::INFINITY)
        .unwrap_or(local) as u8
}

/// The names of the regions of `sector`'s nodes, each read from its row of costs only when the
/// sector is not one region (the first row tells, and a sector's rows lie apart in memory).
pub(super) fn region_names(sector: &Sector) -> impl Fn(usize) -> u8 + '_ {
    let one = is_one_region(sector);
    move |local| if one { 0 } else { region_name(sector, local) }
}

/// Whether every node of `sector` joins every other inside it.
pub(super) fn is_one_region(sector: &Sector) -> bool {
    sector.costs[..sector.nodes.len()]
        .iter()
        .all(|&cost| cost != f32::INFINITY)
}

impl Hierarchy {
    /// Measures again the summary of reach of each sector of `built` and of those around it.
    pub(super) fn measure_reach(&mut self, built: &[u32]) {
        let mut sectors: Vec<usize> = built
            .iter()
            .flat_map(|&sector| self.sectors_around(sector as usize))
            .collect();
        sectors.sort_unstable();
        sectors.dedup();
        for sector in sectors {
            self.reach[sector] = self.reach_of(sector);
        }
    }

    /// The summary of reach of `sector`, 0 for one not measured.
    pub(super) fn reach(&self, sector: usize) -> u16 {
        self.reach.get(sector).copied().unwrap_or(0)
    }

    /// `sector` and the sectors around it, those on the grid.
    fn sectors_around(&self, sector: usize) -> impl Iterator<Item = usize> + use<> {
        let columns = i64::from(self.columns).max(1);
        let rows = self.sectors.len() as i64 / columns;
        let (column, row) = (sector as i64 % columns, sector as i64 / columns);
        (0..9).filter_map(move |place| {
            let (dx, dy) = offset_of(place);
            let (x, y) = (column + dx, row + dy);
            ((0..columns).contains(&x) && (0..rows).contains(&y))
                .then_some((y * columns + x) as usize)
        })
    }

    /// The summary of reach of `sector`: 0 unless it and every sector around it are built.
    fn reach_of(&self, sector: usize) -> u16 {
        let entry = &self.sectors[sector];
        let built = |sector: usize| self.sectors[sector].state == SectorState::Built;
        if !self.sectors_around(sector).all(built) {
            return 0;
        }
        let rect = self.sector_rect_of(sector);
        let mut reach = REACH_CURRENT;
        if is_one_region(entry) {
            reach |= REACH_ONE_REGION;
        }
        for (&node, exits) in entry.nodes.iter().zip(&entry.exits) {
            for (&(dx, dy), &value) in DIRECTIONS.iter().zip(exits) {
                let to_cell = node.offset(dx, dy).filter(|_| value != 0);
                let onto_node = to_cell.and_then(|to_cell| {
                    let next = self.sector_of(to_cell)?;
                    self.node_index(next, to_cell)
                        .map(|_| around(rect, to_cell))
                });
                if let Some(place) = onto_node {
                    reach |= 1 << place;
                }
            }
        }
        reach
    }
}
