//! A read-only copy of what a [`SectorFlowField`](super::SectorFlowField) has measured
//! ([`SectorFieldView`]), for readers on other threads while the field measures on.

use super::field::{ComingRound, Measured, SectorCosts, finish_by_search};
use super::{Hierarchy, NodeNumbers};
use crate::{Cell, Grid, Path};
use std::sync::Arc;

/// What a [`SectorFlowField`](super::SectorFlowField) had measured when the view was taken
/// ([`SectorFlowField::view`](super::SectorFlowField::view)): the costs and steps of the cells
/// of its measured sectors, read without a lock and without measuring more.
///
/// - **What it answers.** [`cost_at`](SectorFieldView::cost_at),
///   [`next_step`](SectorFieldView::next_step) and [`path_from`](SectorFieldView::path_from)
///   give what the field gives for the cells of the measured sectors, and nothing elsewhere. A
///   walk that goes on into a sector not measured gets no path:
///   [`SectorFlowField::measure_ahead`](super::SectorFlowField::measure_ahead), until nothing is
///   left ahead, before the view is taken makes every walk from a measured cell stay on
///   measured sectors.
/// - **Its grid.** It reads the grid the field was measured on, as it was then; steps the grid
///   no longer allows are not given.
/// - **Cost.** It holds a copy of the hierarchy (a reference per sector), the nodes' ways (4
///   bytes a node) and a reference per measured sector: its sectors' costs are the field's.
///
/// ```
/// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, SectorFlowField};
/// use std::sync::Arc;
///
/// let mut grid = Grid::new(64, 64);
/// grid.fill_rect(Cell::new(30, 0), Cell::new(33, 60), 0); // a wall with a gap at the bottom
/// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(16))?;
/// let goal = Cell::new(60, 2);
/// let mut field = SectorFlowField::new(&hierarchy, &grid, goal)?;
/// field.cost_at(&hierarchy, &grid, Cell::new(2, 2))?;
/// field.measure_ahead(&hierarchy, &grid, usize::MAX)?;
/// let view = Arc::new(field.view(&hierarchy)?);
///
/// // Another thread reads the way round the wall while the field goes on measuring.
/// let reader = Arc::clone(&view);
/// let grid_read = grid.clone();
/// let walk = std::thread::spawn(move || reader.path_from(&grid_read, Cell::new(5, 5)));
/// let walk = walk.join().expect("no panic").expect("a measured sector");
/// assert_eq!(walk.cells.last(), Some(&goal));
/// assert_eq!(view.cost_at(Cell::new(5, 5)), field.cost_at(&hierarchy, &grid, Cell::new(5, 5))?);
/// # Ok::<(), astar_grid::HierarchyError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SectorFieldView {
    pub(super) goal: Cell,
    pub(super) hierarchy: Hierarchy,
    pub(super) numbers: NodeNumbers,
    /// The nodes' ways, shared with the views patched from this one.
    pub(super) via: Arc<[u32]>,
    pub(super) sectors: Box<[Option<Arc<SectorCosts>>]>,
    pub(super) measured: usize,
    /// Whether it was patched for a changed grid ([`SectorFieldView::patched`]).
    pub(super) patched: bool,
}

impl SectorFieldView {
    /// A view of a field towards `goal` over `hierarchy`.
    pub(super) fn new(
        (goal, hierarchy): (Cell, Hierarchy),
        numbers: NodeNumbers,
        via: Arc<[u32]>,
        (sectors, measured): (Box<[Option<Arc<SectorCosts>>]>, usize),
    ) -> Self {
        Self {
            goal,
            hierarchy,
            numbers,
            via,
            sectors,
            measured,
            patched: false,
        }
    }

    pub(super) fn reading(&self) -> Measured<'_> {
        Measured {
            numbers: &self.numbers,
            via: &self.via,
            sectors: &self.sectors,
        }
    }

    /// The goal.
    #[must_use]
    pub const fn goal(&self) -> Cell {
        self.goal
    }

    /// The hierarchy the field was measured over.
    #[must_use]
    pub const fn hierarchy(&self) -> &Hierarchy {
        &self.hierarchy
    }

    /// How many sectors were measured.
    #[must_use]
    pub const fn sectors_measured(&self) -> usize {
        self.measured
    }

    /// Whether it was patched for a changed grid ([`SectorFieldView::patched`]): its walks then
    /// may cost more than its costs say, and it is not patched again.
    #[must_use]
    pub const fn is_patched(&self) -> bool {
        self.patched
    }

    /// Whether `cell`'s sector was measured, so that the view answers for it.
    #[must_use]
    pub fn is_measured(&self, cell: Cell) -> bool {
        self.reading().sector(&self.hierarchy, cell).is_some()
    }

    /// The cost from `cell` to the goal along the field; `None` where its sector was not
    /// measured, where the goal cannot be reached from it, and off the grid.
    #[must_use]
    pub fn cost_at(&self, cell: Cell) -> Option<f64> {
        self.reading().cost(&self.hierarchy, cell)
    }

    /// The cell to step onto from `cell` towards the goal on `grid` (the grid the field was
    /// measured on): a neighbour, or the far end of an open link. `None` at the goal, where it
    /// cannot be reached, where `cell`'s sector was not measured, and where `grid` does not
    /// allow the step.
    #[must_use]
    pub fn next_step(&self, grid: &Grid, cell: Cell) -> Option<Cell> {
        self.hierarchy.check_grid(grid).ok()?;
        self.step(grid, cell).map(|(next, _)| next)
    }

    /// The cell the field steps to from `cell` as it measured it, read without a grid: a step
    /// that the grid the field was measured on allows, as [`SectorFieldView::next_step`] gives
    /// it on that grid. Cheaper where the caller holds that grid unchanged (no cell read to
    /// check the step); on another grid, use [`next_step`](SectorFieldView::next_step). `None`
    /// at the goal, where it cannot be reached, and where `cell`'s sector was not measured.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Hierarchy, HierarchyOptions, SectorFlowField};
    ///
    /// let grid = Grid::new(32, 32);
    /// let hierarchy = Hierarchy::build(&grid, HierarchyOptions::default().with_sector_size(8))?;
    /// let mut field = SectorFlowField::new(&hierarchy, &grid, Cell::new(30, 30))?;
    /// field.cost_at(&hierarchy, &grid, Cell::new(1, 1))?;
    /// while field.measure_ahead(&hierarchy, &grid, 4)? == 4 {}
    /// let view = field.view(&hierarchy)?;
    /// let from = Cell::new(1, 1);
    /// assert_eq!(view.next_measured_step(from), view.next_step(&grid, from));
    /// assert!(view.next_measured_step(from).is_some());
    /// # Ok::<(), astar_grid::HierarchyError>(())
    /// ```
    #[must_use]
    pub fn next_measured_step(&self, cell: Cell) -> Option<Cell> {
        let sector = self.hierarchy.sector_of(cell)?;
        let (next, _) = self.reading().next_in(&self.hierarchy, sector, cell)?;
        Some(next)
    }

    /// The cells from `cell` to the goal along [`SectorFieldView::next_step`] on `grid`, and
    /// what their steps cost: the walk the field gives. `None` where the walk meets a sector
    /// not measured or a step `grid` does not allow, and where the goal cannot be reached.
    #[must_use]
    pub fn path_from(&self, grid: &Grid, cell: Cell) -> Option<Path> {
        self.hierarchy.check_grid(grid).ok()?;
        self.cost_at(cell)?;
        let mut path = Path {
            cells: vec![cell],
            cost: 0.0,
        };
        let mut rounds = ComingRound::new(cell);
        let most = grid.width() as usize * grid.height() as usize;
        let mut at = cell;
        while at != self.goal {
            let (next, step) = self.step(grid, at)?;
            let index = path.cells.len();
            if index > most {
                return None;
            }
            if let Some(first) = rounds.came_round(next, step, index) {
                return finish_by_search((&self.hierarchy, grid), self.goal, path, first);
            }
            path.cells.push(next);
            path.cost += step;
            at = next;
        }
        Some(path)
    }

    /// The step from `cell` and its cost, on `grid` of the hierarchy's size.
    fn step(&self, grid: &Grid, cell: Cell) -> Option<(Cell, f64)> {
        let sector = self.hierarchy.sector_of(cell)?;
        self.reading()
            .step_in(&self.hierarchy, grid, sector, cell)
            .map(|(next, cost, _)| (next, cost))
    }

    /// Bytes held besides the sectors' costs, which the field and its other views share.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.numbers.memory_bytes()
            + self.via.len() * size_of::<u32>()
            + self.sectors.len() * size_of::<Option<Arc<SectorCosts>>>()
    }
}
