//! Flood fills from several seeds at once, one cell per front in turn, that stop as soon as at
//! most one front is still growing: the work a split check needs is bounded by the small pieces.

use super::linked_cells;
use super::step_rule::StepRule;
use crate::links::Links;
use std::collections::HashMap;

/// Which front claimed each visited cell.
pub(crate) trait Owners {
    /// The front that claimed padded index `index`, if any.
    fn owner(&self, index: usize) -> Option<u32>;
    /// Records that `front` claimed `index`.
    fn claim(&mut self, index: usize, front: u32);
}

/// Owners in a hash map: memory proportional to the cells visited, for queries on `&self`.
impl Owners for HashMap<u32, u32> {
    fn owner(&self, index: usize) -> Option<u32> {
        self.get(&(index as u32)).copied()
    }

    fn claim(&mut self, index: usize, front: u32) {
        self.insert(index as u32, front);
    }
}

/// Owners in per-cell arrays reset in O(1) by a generation stamp.
#[derive(Clone, Debug, Default)]
pub(crate) struct StampedOwners {
    stamp: Vec<u32>,
    owner: Vec<u32>,
    generation: u32,
}

impl StampedOwners {
    /// Forgets every claim; grows to `cells` padded cells.
    pub fn reset(&mut self, cells: usize) {
        if self.stamp.len() < cells {
            self.stamp.resize(cells, 0);
            self.owner.resize(cells, 0);
        }
        self.generation = match self.generation.checked_add(1) {
            Some(next) => next,
            None => {
                self.stamp.fill(0);
                1
            }
        };
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        (self.stamp.capacity() + self.owner.capacity()) * size_of::<u32>()
    }
}

impl Owners for StampedOwners {
    #[inline]
    fn owner(&self, index: usize) -> Option<u32> {
        (self.stamp[index] == self.generation).then(|| self.owner[index])
    }

    #[inline]
    fn claim(&mut self, index: usize, front: u32) {
        self.stamp[index] = self.generation;
        self.owner[index] = front;
    }
}

/// One flood: the cells it still has to expand and every cell it claimed.
#[derive(Clone, Debug, Default)]
struct Front {
    pending: Vec<u32>,
    visited: Vec<u32>,
    /// Union-find parent; a front is a root when it is its own parent.
    parent: u32,
}

/// Where a cell ended up after a [`Lockstep::run`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// In the closed piece with this front id (see [`Lockstep::closed_pieces`]).
    Closed(u32),
    /// In the piece of the front still growing when the floods stopped (or not reached).
    Rest,
}

/// Lockstep flood fills, reusable between runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lockstep {
    fronts: Vec<Front>,
    /// Fronts in use in this run.
    used: usize,
    /// Root fronts still growing.
    active: Vec<u32>,
    /// Root fronts that ran out of cells before meeting any other: each is a whole piece.
    closed: Vec<u32>,
    /// Cells claimed in this run.
    visited: usize,
}

impl Lockstep {
    /// Floods from `seeds` over the cells where `open` holds, stepping by `rule` and along the
    /// open links of `links`, whichever way they lead.
    ///
    /// Fronts that meet merge. A front that runs out of cells has explored a whole piece and is
    /// closed. The run stops when at most one front is still growing, so it costs about
    /// (number of fronts) x (cells of every piece but the largest). Seeds already claimed (given
    /// twice) are skipped; `owners` must be empty.
    pub fn run(
        &mut self,
        seeds: impl IntoIterator<Item = usize>,
        steps: (&StepRule, &Links),
        open: impl Fn(usize) -> bool,
        owners: &mut impl Owners,
    ) {
        self.reset();
        self.seed(seeds, owners);
        while self.active.len() > 1 {
            let mut slot = 0;
            while slot < self.active.len() {
                let front = self.active[slot];
                let Some(index) = self.fronts[front as usize].pending.pop() else {
                    self.closed.push(front);
                    self.active.remove(slot);
                    if self.active.len() <= 1 {
                        return;
                    }
                    continue;
                };
                if self.expand_cell(front, index as usize, steps, &open, owners, &mut slot) {
                    return;
                }
                slot += 1;
            }
        }
    }

    /// Starts a front at each seed not claimed yet.
    #[inline(always)]
    fn seed(&mut self, seeds: impl IntoIterator<Item = usize>, owners: &mut impl Owners) {
        for seed in seeds {
            if owners.owner(seed).is_none() {
                let front = self.new_front(seed);
                owners.claim(seed, front);
                self.active.push(front);
            }
        }
    }

    /// Expands the cell at padded `index` for root `front`, the active front in `slot`: claims
    /// its unclaimed open neighbours and merges `front` with the fronts that claimed the others
    /// (`slot` follows `front` as merged fronts leave the active list). Returns whether at most
    /// one front is still growing, which ends the run.
    #[inline(always)]
    fn expand_cell(
        &mut self,
        front: u32,
        index: usize,
        (rule, links): (&StepRule, &Links),
        open: &impl Fn(usize) -> bool,
        owners: &mut impl Owners,
        slot: &mut usize,
    ) -> bool {
        let stepped =
            (0..rule.directions).filter_map(|direction| rule.step(index, direction, open));
        let linked = linked_cells(links, index).filter(|&next| open(next));
        for next in stepped.chain(linked) {
            match owners.owner(next) {
                None => {
                    owners.claim(next, front);
                    let grower = &mut self.fronts[front as usize];
                    grower.pending.push(next as u32);
                    grower.visited.push(next as u32);
                    self.visited += 1;
                }
                Some(other) => {
                    if self.meet(front, other, slot) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Root `front`, the active front in `slot`, reached a cell that front `other` claimed:
    /// merges their roots if they differ, taking the other off the active list. Returns whether
    /// at most one front is still growing.
    #[inline(always)]
    fn meet(&mut self, front: u32, other: u32, slot: &mut usize) -> bool {
        let other = self.root(other);
        if other == front {
            return false;
        }
        self.merge(front, other);
        if let Some(position) = self.active.iter().position(|&active| active == other) {
            self.active.remove(position);
            if position < *slot {
                *slot -= 1;
            }
        }
        self.active.len() <= 1
    }

    /// The piece a cell belongs to, for a cell of the flooded region.
    pub fn piece_of(&mut self, index: usize, owners: &impl Owners) -> Piece {
        match owners.owner(index) {
            Some(front) => {
                let root = self.root(front);
                if self.closed.contains(&root) {
                    Piece::Closed(root)
                } else {
                    Piece::Rest
                }
            }
            None => Piece::Rest,
        }
    }

    /// The closed pieces: each one's padded cell indices.
    pub fn closed_pieces(&self) -> impl Iterator<Item = &[u32]> {
        self.closed
            .iter()
            .map(|&front| self.fronts[front as usize].visited.as_slice())
    }

    /// Cells claimed in the last run, seeds included.
    pub const fn visited(&self) -> usize {
        self.visited
    }

    fn reset(&mut self) {
        for front in &mut self.fronts[..self.used] {
            front.pending.clear();
            front.visited.clear();
        }
        self.used = 0;
        self.active.clear();
        self.closed.clear();
        self.visited = 0;
    }

    fn new_front(&mut self, seed: usize) -> u32 {
        let id = self.used as u32;
        if self.used == self.fronts.len() {
            self.fronts.push(Front::default());
        }
        let front = &mut self.fronts[self.used];
        front.parent = id;
        front.pending.push(seed as u32);
        front.visited.push(seed as u32);
        self.used += 1;
        self.visited += 1;
        id
    }

    fn root(&mut self, mut front: u32) -> u32 {
        let mut root = front;
        while self.fronts[root as usize].parent != root {
            root = self.fronts[root as usize].parent;
        }
        while front != root {
            let parent = self.fronts[front as usize].parent;
            self.fronts[front as usize].parent = root;
            front = parent;
        }
        root
    }

    /// Folds root `gone` into root `keep`, moving the smaller cell lists into the larger.
    fn merge(&mut self, keep: u32, gone: u32) {
        let (keep, gone) = (keep as usize, gone as usize);
        self.fronts[gone].parent = keep as u32;
        let mut pending = core::mem::take(&mut self.fronts[gone].pending);
        let mut visited = core::mem::take(&mut self.fronts[gone].visited);
        let kept = &mut self.fronts[keep];
        if pending.len() > kept.pending.len() {
            core::mem::swap(&mut pending, &mut kept.pending);
        }
        kept.pending.append(&mut pending);
        if visited.len() > kept.visited.len() {
            core::mem::swap(&mut visited, &mut kept.visited);
        }
        kept.visited.append(&mut visited);
        // Hand the (now empty) buffers back so their capacity is reused.
        self.fronts[gone].pending = pending;
        self.fronts[gone].visited = visited;
    }
}
