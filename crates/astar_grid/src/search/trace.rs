//! An opt-in record of a search, for debug views that draw or replay it.

use crate::Cell;

/// One cell the search touched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TracedCell {
    /// The cell.
    pub cell: Cell,
    /// Its best cost from the start when the search ended.
    pub g: f64,
    /// The heuristic estimate to the goal (unweighted).
    pub h: f64,
    /// `g` plus the weighted `h`, as the open list ordered it.
    pub f: f64,
    /// The cell it was reached from (the start is its own parent).
    pub parent: Cell,
    /// How many expansions had happened when it was first put on the open list.
    pub opened_at: u32,
    /// Its position in the expansion order, or `None` if it was still open at the end.
    pub closed_at: Option<u32>,
}

/// A search, recorded: every touched cell with its values and the order of expansions.
///
/// At step `k` of a replay (after `k` expansions) the closed set is `expansions[..k]` and the
/// open set is every traced cell with `opened_at <= k` that is not yet closed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchTrace {
    /// Every touched cell, in the order it was first reached.
    pub cells: Vec<TracedCell>,
    /// The closed set in expansion order.
    pub expansions: Vec<Cell>,
}

impl SearchTrace {
    /// The cells still open when the search ended.
    pub fn open_set(&self) -> impl Iterator<Item = Cell> + '_ {
        self.cells
            .iter()
            .filter(|traced| traced.closed_at.is_none())
            .map(|traced| traced.cell)
    }

    /// The open set after `step` expansions of a replay.
    pub fn open_at(&self, step: u32) -> impl Iterator<Item = Cell> + '_ {
        self.cells
            .iter()
            .filter(move |traced| {
                traced.opened_at <= step && traced.closed_at.is_none_or(|closed| closed >= step)
            })
            .map(|traced| traced.cell)
    }

    /// The closed set after `step` expansions of a replay.
    #[must_use]
    pub fn closed_at(&self, step: u32) -> &[Cell] {
        &self.expansions[..(step as usize).min(self.expansions.len())]
    }

    /// The traced values of `cell`, if the search touched it.
    #[must_use]
    pub fn get(&self, cell: Cell) -> Option<&TracedCell> {
        self.cells.iter().find(|traced| traced.cell == cell)
    }
}
