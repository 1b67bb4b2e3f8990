//! "Would blocking these cells cut these points off from the goal?", answered on the labels
//! without touching the grid: the tower-defense placement check.

use super::lockstep::Lockstep;
use super::{Components, ConnectivityError, linked_cells};
use crate::Cell;
use std::collections::HashMap;

/// The answer of [`Components::check_blocking`]: what blocking a set of candidate cells would do
/// to the connections between some points and a goal.
///
/// ```
/// use astar_grid::{Cell, Components, Grid, Movement};
///
/// let grid = Grid::from_ascii(
///     "@@.@@
///      .....
///      @@.@@",
/// )?;
/// let components = Components::new(&grid, Movement::FOUR);
/// let (creeps, goal) = ([Cell::new(0, 1), Cell::new(2, 0)], Cell::new(4, 1));
///
/// // A tower at (3, 1) closes the only way to the goal.
/// let check = components.check_blocking(&[Cell::new(3, 1)], &creeps, goal)?;
/// assert!(check.disconnects());
/// assert_eq!(check.cut_off, creeps);
///
/// // A tower at (2, 2) is harmless, but one on a creep's cell is reported as such.
/// assert!(!components.would_disconnect(&[Cell::new(2, 2)], &creeps, goal)?);
/// let on_creep = components.check_blocking(&[Cell::new(2, 0)], &creeps, goal)?;
/// assert_eq!(on_creep.covered, [Cell::new(2, 0)]);
/// assert!(on_creep.cut_off.is_empty());
/// assert!(on_creep.disconnects()); // that creep reaches the goal now
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockingCheck {
    /// Points connected to the goal now that the candidate cells would cut off, in the order
    /// given (points under a candidate cell are in [`BlockingCheck::covered`] instead).
    pub cut_off: Vec<Cell>,
    /// Points that are not connected to the goal even now (blocked, or in another component),
    /// in the order given, whether or not they are also covered.
    pub already_unreachable: Vec<Cell>,
    /// Points, and then the goal, that are themselves candidate cells, in the order given: a
    /// tower placed on a creep, whether or not that creep could reach the goal.
    pub covered: Vec<Cell>,
    /// Cells the check visited: a measure of its cost.
    pub visited: usize,
}

impl BlockingCheck {
    /// Whether blocking the candidates would take the goal away: from a point that reaches it
    /// now (the point is cut off, or a candidate covers it), or altogether (a candidate covers
    /// the goal). A candidate on a point that cannot reach the goal anyway takes nothing from it
    /// and does not count; the point is still listed in [`BlockingCheck::covered`], for games
    /// that keep towers off creeps whatever their route.
    #[must_use]
    pub fn disconnects(&self) -> bool {
        // The goal, when covered, is the one covered cell that is never unreachable.
        !self.cut_off.is_empty()
            || self
                .covered
                .iter()
                .any(|covered| !self.already_unreachable.contains(covered))
    }
}

impl Components {
    /// Whether blocking the cells of `blocked` would disconnect from `to` any point of `from`
    /// that reaches it now (including such a point, or `to`, lying under one of those cells):
    /// [`BlockingCheck::disconnects`]. See [`Components::check_blocking`] for the details and
    /// the cost.
    ///
    /// # Errors
    /// As [`Components::check_blocking`].
    pub fn would_disconnect(
        &self,
        blocked: &[Cell],
        from: &[Cell],
        to: Cell,
    ) -> Result<bool, ConnectivityError> {
        Ok(self.check_blocking(blocked, from, to)?.disconnects())
    }

    /// What blocking the cells of `blocked` would do to the connections from the points of
    /// `from` to `to`, answered from the labels alone: the grid is not needed, not touched.
    ///
    /// Candidates that are already blocked, or lie in another component than `to`, change
    /// nothing. For the others, flood fills start from the cells around them, in lockstep, and
    /// stop as soon as only one is still growing (as when [`Components::update`] blocks a
    /// cell): a tower in open ground visits a couple of dozen cells, one that closes a corridor
    /// costs about (cells around the candidates) x (cells of the pieces it would cut off).
    /// Memory is proportional to the cells visited.
    ///
    /// # Errors
    /// [`ConnectivityError::OutOfBounds`] when any cell lies outside the grid.
    pub fn check_blocking(
        &self,
        blocked: &[Cell],
        from: &[Cell],
        to: Cell,
    ) -> Result<BlockingCheck, ConnectivityError> {
        for &cell in blocked.iter().chain(from).chain([&to]) {
            self.check_cell(cell)?;
        }
        let goal = self.index(to);
        let goal_label = self.labels[goal];
        let candidates = self.open_candidates(blocked);
        let is_candidate = |index: usize| candidates.binary_search(&index).is_ok();
        let mut check = BlockingCheck::default();
        let connected = self.sort_points(from, goal_label, is_candidate, &mut check);
        if is_candidate(goal) {
            check.covered.push(to);
            check
                .cut_off
                .extend(connected.iter().map(|&(point, _)| point));
            return Ok(check);
        }
        let in_goal_component: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&index| self.labels[index] == goal_label)
            .collect();
        if connected.is_empty() || in_goal_component.is_empty() {
            return Ok(check);
        }
        self.flood_around(
            &in_goal_component,
            is_candidate,
            goal,
            connected,
            &mut check,
        );
        Ok(check)
    }

    /// The padded indices of the open cells of `blocked`, sorted, each once: the candidates that
    /// can change anything.
    fn open_candidates(&self, blocked: &[Cell]) -> Vec<usize> {
        let mut candidates: Vec<usize> = blocked
            .iter()
            .map(|&cell| self.index(cell))
            .filter(|&index| self.labels[index] != 0)
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        candidates
    }

    /// Sorts the points of `from` into `check`'s unreachable and covered lists; returns the
    /// others, which reach the goal (labelled `goal_label`) now, with their padded indices.
    fn sort_points(
        &self,
        from: &[Cell],
        goal_label: u32,
        is_candidate: impl Fn(usize) -> bool,
        check: &mut BlockingCheck,
    ) -> Vec<(Cell, usize)> {
        let mut connected = Vec::new();
        for &point in from {
            let index = self.index(point);
            let reaches_goal = goal_label != 0 && self.labels[index] == goal_label;
            if !reaches_goal {
                check.already_unreachable.push(point);
            }
            if is_candidate(index) {
                check.covered.push(point);
            } else if reaches_goal {
                connected.push((point, index));
            }
        }
        connected
    }

    /// Floods, in lockstep, from the open cells around the candidates of `in_goal_component`
    /// (those of the goal's component) with every candidate blocked, and adds to `check` the
    /// points of `connected` that end up in another piece than the goal at padded `goal`.
    fn flood_around(
        &self,
        in_goal_component: &[usize],
        is_candidate: impl Fn(usize) -> bool + Copy,
        goal: usize,
        connected: Vec<(Cell, usize)>,
        check: &mut BlockingCheck,
    ) {
        let labels = &self.labels;
        let goal_label = labels[goal];
        let open = |index: usize| labels[index] != 0 && !is_candidate(index);
        let seeds = in_goal_component.iter().flat_map(|&candidate| {
            self.rule
                .block(candidate)
                .into_iter()
                .skip(1)
                .chain(linked_cells(&self.links, candidate))
                .filter(|&index| labels[index] == goal_label && !is_candidate(index))
        });
        let mut owners: HashMap<u32, u32> = HashMap::new();
        let mut flood = Lockstep::default();
        flood.run(seeds, (&self.rule, &self.links), open, &mut owners);
        check.visited = flood.visited();
        let goal_piece = flood.piece_of(goal, &owners);
        for (point, index) in connected {
            if flood.piece_of(index, &owners) != goal_piece {
                check.cut_off.push(point);
            }
        }
    }
}
