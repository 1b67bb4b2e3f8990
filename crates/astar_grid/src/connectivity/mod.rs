//! Connected components of a grid under a movement rule, kept up to date as cells change, and
//! the tower-defense question "would blocking these cells cut anyone off?".

mod blocking;
mod error;
mod lockstep;
pub(crate) mod step_rule;

pub use blocking::BlockingCheck;
pub use error::ConnectivityError;

use crate::links::Links;
use crate::{Cell, CornerRule, Grid, Movement, Neighborhood};
use core::num::NonZeroU32;
use lockstep::{Lockstep, StampedOwners};
use step_rule::StepRule;

/// The label of one connected component of a [`Components`].
///
/// Labels are stable while a component only grows or shrinks without splitting; after an
/// update a label may be reused for a different component, so do not keep them across updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComponentId(NonZeroU32);

impl ComponentId {
    /// The label as a number (at least 1), for example to colour a debug view.
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0.get()
    }
}

/// The work one [`Components::update`] did, in cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnectivityUpdate {
    /// Listed cells whose walkability actually changed.
    pub changed: usize,
    /// Cells the split checks and merges visited.
    pub visited: usize,
    /// Cells that received a different label.
    pub relabeled: usize,
}

/// Connected-component labels of a [`Grid`] under one [`Movement`], so that an unreachable goal
/// is rejected in O(1) ([`Components::same_component`]) before any search runs.
///
/// Two walkable cells share a component exactly when a search with the same movement finds a
/// path between them: diagonal steps obey the corner rule just as in the search, so under
/// [`CornerRule::Both`](crate::CornerRule::Both) two cells that touch only diagonally between
/// two walls are in different components. Under `Both` and
/// [`CornerRule::One`](crate::CornerRule::One) every legal diagonal step has a walkable corner
/// cell, through which two straight steps lead to the same place; so the components of those
/// rules are the four-connected ones, and the labels are computed with four neighbours (fewer
/// cells to look at, the same answer). Only [`CornerRule::Any`](crate::CornerRule::Any) joins
/// cells through diagonal gaps. On a hexagonal grid ([`Neighborhood::Hex`]) the labels follow
/// its six neighbours, two of them diagonal.
///
/// A grid's open links ([`Grid::add_link`]) join their two ends into one component, whichever
/// way they lead: so two cells in different components never reach each other, but with a
/// one-way link two cells of one component may reach each other one way only (a search then
/// answers). The labels follow the links the grid had when they were made: after changing
/// links, call [`Components::update_links`]; the tower check ([`Components::check_blocking`])
/// follows the same links.
///
/// # Costs
/// - [`Components::new`]: one flood fill, O(cells); 4 bytes per cell (plus 8 per cell of
///   scratch once the first edit that blocks a cell runs).
/// - Opening a cell merges the components around it: the smaller ones are relabelled into the
///   largest, O(cells of all but the largest).
/// - Blocking a cell may split its component. Flood fills start from its walkable neighbours
///   in that component, one cell each in turn, merging when they meet; they stop as soon as
///   only one is still growing. Blocking a cell in open ground visits about a dozen cells; a
///   real split costs about (number of neighbours) x (cells of the pieces split off), never the
///   size of the largest piece, and only the pieces split off are relabelled.
/// - Changing a cell's terrain cost without blocking or opening it costs nothing.
///
/// ```
/// use astar_grid::{Cell, Components, Grid, Movement};
///
/// let mut grid = Grid::from_ascii(
///     "..#..
///      .....
///      ..#..",
/// )?;
/// let mut components = Components::new(&grid, Movement::EIGHT);
/// let (left, right) = (Cell::new(0, 0), Cell::new(4, 2));
/// assert!(components.same_component(left, right));
///
/// // Wall off the gap: the component splits, and the labels follow the grid.
/// components.set_blocked(&mut grid, Cell::new(2, 1), true)?;
/// assert!(!components.same_component(left, right));
/// assert_eq!(components.component_count(), 2);
///
/// // Or edit the grid yourself and name the changed cells.
/// grid.set_blocked(Cell::new(2, 0), false)?;
/// components.update(&grid, &[Cell::new(2, 0)])?;
/// assert!(components.same_component(left, right));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Components {
    movement: Movement,
    rule: StepRule,
    width: u32,
    height: u32,
    /// Padded like the grid's buffer: 0 for blocked cells (and the border), else the label.
    labels: Vec<u32>,
    /// Cells per label; `sizes[0]` is unused and a free label has size 0.
    sizes: Vec<u32>,
    /// Labels no component uses.
    free: Vec<u32>,
    /// Components in use.
    count: usize,
    /// Scratch for split checks.
    flood: Lockstep,
    owners: StampedOwners,
    /// Scratch for flood fills.
    stack: Vec<u32>,
    /// Scratch for opening a cell: the labels it joins, each with a cell of it.
    joined: Vec<(u32, usize)>,
    /// The grid's links as of the last labelling ([`Components::new`],
    /// [`Components::update_links`]): open ones join their ends, whichever way they lead.
    links: Links,
}

impl Components {
    /// Labels the components of `grid` under `movement`; O(cells).
    #[must_use]
    pub fn new(grid: &Grid, movement: Movement) -> Self {
        let mut components = Self {
            movement,
            rule: StepRule::new(reachability_rule(movement), grid.stride()),
            width: grid.width(),
            height: grid.height(),
            labels: Vec::new(),
            sizes: vec![0],
            free: Vec::new(),
            count: 0,
            flood: Lockstep::default(),
            owners: StampedOwners::default(),
            stack: Vec::new(),
            joined: Vec::new(),
            links: Links::default(),
        };
        components.label_all(grid);
        components
    }

    /// Labels every cell afresh, taking the grid's links.
    fn label_all(&mut self, grid: &Grid) -> usize {
        let raw = grid.raw();
        self.links = grid.links().clone();
        self.labels.clear();
        self.labels.resize(raw.len(), 0);
        self.sizes.clear();
        self.sizes.push(0);
        self.free.clear();
        self.count = 0;
        let mut labelled = 0;
        for start in 0..raw.len() {
            if raw[start] != 0 && self.labels[start] == 0 {
                let label = self.new_label();
                self.labels[start] = label;
                let size = fill(
                    (&self.rule, &self.links),
                    &mut self.labels,
                    &mut self.stack,
                    (start, label, 0),
                    |_, index| raw[index] != 0,
                );
                self.sizes[label as usize] = size;
                labelled += size as usize;
            }
        }
        labelled
    }

    /// Takes the links of `grid` after they changed (added, removed, opened or closed) and
    /// labels the components afresh: O(cells). Cell edits are still given to
    /// [`Components::update`]; call this one after every change of links, before the next
    /// update or question.
    ///
    /// ```
    /// use astar_grid::{Cell, Components, Grid, Link, Movement};
    ///
    /// let mut grid = Grid::from_ascii("..#..\n..#..")?;
    /// let mut components = Components::new(&grid, Movement::EIGHT);
    /// let (left, right) = (Cell::new(0, 0), Cell::new(4, 1));
    /// assert!(!components.same_component(left, right));
    /// let door = grid.add_link(Link::new(Cell::new(1, 0), Cell::new(3, 0), 1.0))?;
    /// components.update_links(&grid)?;
    /// assert!(components.same_component(left, right));
    /// grid.set_link_open(door, false)?;
    /// components.update_links(&grid)?;
    /// assert!(!components.same_component(left, right));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ConnectivityError::GridMismatch`] when `grid` is not the size the labels were built
    /// for; nothing is changed then.
    pub fn update_links(&mut self, grid: &Grid) -> Result<ConnectivityUpdate, ConnectivityError> {
        self.check_grid(grid)?;
        let labelled = self.label_all(grid);
        Ok(ConnectivityUpdate {
            changed: 0,
            visited: labelled,
            relabeled: labelled,
        })
    }

    /// The movement rule the labels follow.
    #[must_use]
    pub const fn movement(&self) -> Movement {
        self.movement
    }

    /// The component of `cell`, or `None` when it is blocked or outside the grid.
    #[must_use]
    pub fn component(&self, cell: Cell) -> Option<ComponentId> {
        self.label(cell).and_then(NonZeroU32::new).map(ComponentId)
    }

    /// Whether a path joins `a` and `b`: both walkable and in the same component. O(1).
    #[must_use]
    pub fn same_component(&self, a: Cell, b: Cell) -> bool {
        match (self.label(a), self.label(b)) {
            (Some(a), Some(b)) => a != 0 && a == b,
            _ => false,
        }
    }

    /// Number of cells in component `id` (0 for a label no component uses).
    #[must_use]
    pub fn component_size(&self, id: ComponentId) -> usize {
        self.sizes
            .get(id.get() as usize)
            .map_or(0, |&size| size as usize)
    }

    /// Number of components.
    #[must_use]
    pub const fn component_count(&self) -> usize {
        self.count
    }

    /// Bytes held by the labels and the scratch memory.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        (self.labels.capacity() + self.sizes.capacity() + self.free.capacity()) * size_of::<u32>()
            + self.owners.memory_bytes()
            + self.joined.capacity() * size_of::<(u32, usize)>()
    }

    /// Brings the labels up to date after the cells in `changed` were edited in `grid`.
    ///
    /// List every cell whose walkability changed since the labels last matched the grid (cells
    /// whose terrain cost changed may be listed too; they cost nothing). Cells are applied in
    /// order; listing a cell twice is harmless. See the type's documentation for what each
    /// blocked or opened cell costs.
    ///
    /// # Errors
    /// [`ConnectivityError::GridMismatch`] when `grid` is not the size the labels were built
    /// for, [`ConnectivityError::OutOfBounds`] for a cell outside it; nothing is changed then.
    pub fn update(
        &mut self,
        grid: &Grid,
        changed: &[Cell],
    ) -> Result<ConnectivityUpdate, ConnectivityError> {
        self.check_grid(grid)?;
        for &cell in changed {
            self.check_cell(cell)?;
        }
        let raw = grid.raw();
        let mut work = ConnectivityUpdate::default();
        for &cell in changed {
            let index = grid.index(cell);
            match (self.labels[index] != 0, raw[index] != 0) {
                (false, true) => self.open_cell(index, &mut work),
                (true, false) => self.block_cell(index, &mut work),
                _ => continue,
            }
            work.changed += 1;
        }
        Ok(work)
    }

    /// Sets `cell`'s cost in `grid` (0 blocks it) and updates the labels.
    ///
    /// # Errors
    /// As [`Components::update`].
    pub fn set_cost(
        &mut self,
        grid: &mut Grid,
        cell: Cell,
        cost: u8,
    ) -> Result<ConnectivityUpdate, ConnectivityError> {
        self.check_grid(grid)?;
        self.check_cell(cell)?;
        grid.set_cost(cell, cost)?;
        self.update(grid, &[cell])
    }

    /// Blocks `cell` in `grid`, or opens it with cost 1, and updates the labels.
    ///
    /// # Errors
    /// As [`Components::update`].
    pub fn set_blocked(
        &mut self,
        grid: &mut Grid,
        cell: Cell,
        blocked: bool,
    ) -> Result<ConnectivityUpdate, ConnectivityError> {
        self.set_cost(grid, cell, u8::from(!blocked))
    }

    /// The raw label of `cell` (0 when blocked), or `None` outside the grid.
    fn label(&self, cell: Cell) -> Option<u32> {
        self.contains(cell).then(|| self.labels[self.index(cell)])
    }

    const fn contains(&self, cell: Cell) -> bool {
        cell.x < self.width && cell.y < self.height
    }

    /// Padded index of an in-bounds cell, as [`Grid`] lays it out.
    const fn index(&self, cell: Cell) -> usize {
        (cell.y as usize + 1) * (self.width as usize + 2) + cell.x as usize + 1
    }

    fn check_grid(&self, grid: &Grid) -> Result<(), ConnectivityError> {
        if grid.width() == self.width && grid.height() == self.height {
            Ok(())
        } else {
            Err(ConnectivityError::GridMismatch {
                width: self.width,
                height: self.height,
                found_width: grid.width(),
                found_height: grid.height(),
            })
        }
    }

    fn check_cell(&self, cell: Cell) -> Result<(), ConnectivityError> {
        if self.contains(cell) {
            Ok(())
        } else {
            Err(ConnectivityError::OutOfBounds {
                cell,
                width: self.width,
                height: self.height,
            })
        }
    }

    fn new_label(&mut self) -> u32 {
        self.count += 1;
        self.free.pop().unwrap_or_else(|| {
            self.sizes.push(0);
            (self.sizes.len() - 1) as u32
        })
    }

    fn release_label(&mut self, label: u32) {
        self.sizes[label as usize] = 0;
        self.free.push(label);
        self.count -= 1;
    }

    /// Opens padded index `index`: it joins, and merges, the components it can step into and
    /// those its links join it to.
    fn open_cell(&mut self, index: usize, work: &mut ConnectivityUpdate) {
        let mut joined = core::mem::take(&mut self.joined);
        joined.clear();
        {
            // The cell is walkable from now on; its neighbours' labels say whether they are.
            let labels = &self.labels;
            let open = |at: usize| at == index || labels[at] != 0;
            let stepped = (0..self.rule.directions)
                .filter_map(|direction| self.rule.step(index, direction, open));
            let linked = linked_cells(&self.links, index).filter(|&at| labels[at] != 0);
            for next in stepped.chain(linked) {
                let label = labels[next];
                if !joined.iter().any(|&(seen, _)| seen == label) {
                    joined.push((label, next));
                }
            }
        }
        self.merge_into_one(index, &joined, work);
        self.joined = joined;
    }

    /// Gives the newly opened cell at padded `index` the largest of the components of
    /// `joined` (each label with a cell of it), relabelling the others into it; a new label
    /// when it joins none.
    fn merge_into_one(
        &mut self,
        index: usize,
        joined: &[(u32, usize)],
        work: &mut ConnectivityUpdate,
    ) {
        let Some(&(keep, _)) = joined
            .iter()
            .max_by_key(|&&(label, _)| self.sizes[label as usize])
        else {
            let label = self.new_label();
            self.labels[index] = label;
            self.sizes[label as usize] = 1;
            return;
        };
        self.labels[index] = keep;
        self.sizes[keep as usize] += 1;
        for &(label, start) in joined {
            if label == keep {
                continue;
            }
            self.labels[start] = keep;
            let moved = fill(
                (&self.rule, &self.links),
                &mut self.labels,
                &mut self.stack,
                (start, keep, label),
                |labels, at| labels[at] != 0,
            );
            work.visited += moved as usize;
            work.relabeled += moved as usize;
            self.sizes[keep as usize] += moved;
            self.release_label(label);
        }
    }

    /// Blocks padded index `index`; its component may split into pieces.
    fn block_cell(&mut self, index: usize, work: &mut ConnectivityUpdate) {
        let label = self.labels[index];
        self.labels[index] = 0;
        self.sizes[label as usize] -= 1;
        if self.sizes[label as usize] == 0 {
            self.release_label(label);
            return;
        }
        let labels = &self.labels;
        let seeds = self
            .rule
            .block(index)
            .into_iter()
            .skip(1)
            .chain(linked_cells(&self.links, index))
            .filter(|&at| labels[at] == label);
        self.owners.reset(labels.len());
        let steps = (&self.rule, &self.links);
        self.flood
            .run(seeds, steps, |at| labels[at] != 0, &mut self.owners);
        work.visited += self.flood.visited();
        let flood = core::mem::take(&mut self.flood);
        for piece in flood.closed_pieces() {
            let new = self.new_label();
            for &cell in piece {
                self.labels[cell as usize] = new;
            }
            let size = piece.len() as u32;
            self.sizes[new as usize] = size;
            self.sizes[label as usize] -= size;
            work.relabeled += piece.len();
        }
        self.flood = flood;
    }
}

/// A movement with the same components as `movement`: four neighbours unless diagonals may pass
/// between two blocked corners (see [`Components`]), or the grid is hexagonal (whose two
/// diagonal steps need no corner).
const fn reachability_rule(movement: Movement) -> Movement {
    match (movement.neighborhood, movement.corners) {
        (Neighborhood::Eight, CornerRule::Any) | (Neighborhood::Hex, _) => movement,
        _ => Movement::FOUR,
    }
}

/// The padded indices of the cells the open links of `links` join to the cell at padded
/// `index`, whichever way they lead.
pub(crate) fn linked_cells(links: &Links, index: usize) -> impl Iterator<Item = usize> + '_ {
    let leaving = links.steps_from(index).iter().map(|step| step.to as usize);
    leaving.chain(links.steps_to(index).iter().map(|step| step.from as usize))
}

/// Flood fill from `start` (already labelled `label`) over the cells labelled `from`, giving them
/// `label`, by the steps of `rule` and the links of `links`; `open(labels, index)` says whether a
/// cell is walkable. Returns the cells labelled, `start` included.
fn fill(
    (rule, links): (&StepRule, &Links),
    labels: &mut [u32],
    stack: &mut Vec<u32>,
    (start, label, from): (usize, u32, u32),
    open: impl Fn(&[u32], usize) -> bool,
) -> u32 {
    stack.clear();
    stack.push(start as u32);
    let mut count = 1;
    while let Some(index) = stack.pop() {
        for direction in 0..rule.directions {
            let next = rule.step(index as usize, direction, |at| open(labels, at));
            if let Some(next) = next
                && labels[next] == from
            {
                labels[next] = label;
                stack.push(next as u32);
                count += 1;
            }
        }
        for next in linked_cells(links, index as usize) {
            if labels[next] == from && open(labels, next) {
                labels[next] = label;
                stack.push(next as u32);
                count += 1;
            }
        }
    }
    count
}
