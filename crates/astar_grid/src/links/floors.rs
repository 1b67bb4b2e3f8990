//! Buildings of several floors ([`FloorPlan`]): floors of one size stacked in one grid, a
//! blocked row between each two, so that every tool works on them as on any grid and only
//! links lead from floor to floor.

use crate::{Cell, Grid, GridError};

/// A cell of a floor: the floor's number, from 0, and the cell on that floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FloorCell {
    /// The floor, from 0.
    pub floor: u32,
    /// The cell on it.
    pub cell: Cell,
}

impl FloorCell {
    /// Cell `(x, y)` of floor `floor`.
    #[must_use]
    pub const fn new(floor: u32, x: u32, y: u32) -> Self {
        Self {
            floor,
            cell: Cell::new(x, y),
        }
    }
}

/// Why a floor plan could not be made, or a floor's cell found in it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FloorPlanError {
    /// No floors, or floors of no cells.
    #[error("a floor plan needs at least one floor of at least one cell")]
    Empty,
    /// The stacked grid would be too large.
    #[error(transparent)]
    TooLarge(#[from] GridError),
    /// The floors given to [`FloorPlan::stack`] differ in size.
    #[error("floor {floor} is {width}x{height}, not {expected_width}x{expected_height} as floor 0")]
    SizesDiffer {
        /// The floor that differs.
        floor: u32,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
        /// Floor 0's width.
        expected_width: u32,
        /// Floor 0's height.
        expected_height: u32,
    },
    /// The floor does not exist.
    #[error("floor {floor} does not exist: the plan has {floors} floors")]
    NoSuchFloor {
        /// The floor asked for.
        floor: u32,
        /// How many the plan has.
        floors: u32,
    },
    /// The cell lies outside its floor.
    #[error("cell {cell} is outside the {width}x{height} floor")]
    OutOfBounds {
        /// The cell.
        cell: Cell,
        /// A floor's width.
        width: u32,
        /// A floor's height.
        height: u32,
    },
}

/// How floors of `width` x `height` cells are stacked in one grid: floor `f` takes rows
/// `f * (height + 1)` to `f * (height + 1) + height - 1`, and the row after each floor but the
/// last is blocked. Cells of a floor are neighbours only of cells of the same floor; links
/// ([`Grid::add_link`]) join the floors, so that a request's start and goal may lie on
/// different floors and every tool that honours links takes the stairs.
///
/// ```
/// use astar_grid::{Cell, FloorCell, FloorPlan, Grid, Link, SearchOptions, find_path};
///
/// // Two open floors of 6x4, joined by stairs from (5, 3) downstairs to (5, 3) upstairs.
/// let plan = FloorPlan::new(6, 4, 2)?;
/// let mut grid = plan.grid()?;
/// let stairs = Link::new(plan.cell(FloorCell::new(0, 5, 3))?, plan.cell(FloorCell::new(1, 5, 3))?, 3.0);
/// grid.add_link(stairs)?;
/// let start = plan.cell(FloorCell::new(0, 0, 3))?;
/// let goal = plan.cell(FloorCell::new(1, 0, 3))?;
/// let path = find_path(&grid, start, goal, &SearchOptions::default())?.found().cloned().expect("by the stairs");
/// assert_eq!(path.cost, 5.0 + 3.0 + 5.0);
/// assert_eq!(plan.floor_cell(path.cells[6]), Some(FloorCell::new(1, 5, 3)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloorPlan {
    width: u32,
    height: u32,
    floors: u32,
}

impl FloorPlan {
    /// A plan of `floors` floors of `width` x `height` cells.
    ///
    /// # Errors
    /// [`FloorPlanError::Empty`] without floors or cells, [`FloorPlanError::TooLarge`] when the
    /// stacked grid would exceed a grid's size limit.
    pub fn new(width: u32, height: u32, floors: u32) -> Result<Self, FloorPlanError> {
        if width == 0 || height == 0 || floors == 0 {
            return Err(FloorPlanError::Empty);
        }
        let plan = Self {
            width,
            height,
            floors,
        };
        let too_large = GridError::TooLarge {
            width,
            height: u32::MAX,
        };
        let rows = plan.grid_height().ok_or(too_large.clone())?;
        Grid::buffer_len(width, rows).ok_or(too_large)?;
        Ok(plan)
    }

    /// The plan of `floors` stacked, and the stacked grid holding their cells (blocked rows
    /// between them, no links).
    ///
    /// # Errors
    /// As [`FloorPlan::new`], and [`FloorPlanError::SizesDiffer`] when a floor's size is not
    /// floor 0's.
    pub fn stack(floors: &[Grid]) -> Result<(Self, Grid), FloorPlanError> {
        let first = floors.first().ok_or(FloorPlanError::Empty)?;
        let (width, height) = (first.width(), first.height());
        for (floor, grid) in (0..).zip(floors) {
            if (grid.width(), grid.height()) != (width, height) {
                return Err(FloorPlanError::SizesDiffer {
                    floor,
                    width: grid.width(),
                    height: grid.height(),
                    expected_width: width,
                    expected_height: height,
                });
            }
        }
        let count = u32::try_from(floors.len()).map_err(|_| GridError::TooLarge {
            width,
            height: u32::MAX,
        })?;
        let plan = Self::new(width, height, count)?;
        let mut grid = plan.grid()?;
        for (floor, source) in (0..).zip(floors) {
            for (cell, value) in source.cells() {
                let at = plan.cell(FloorCell { floor, cell })?;
                grid.set_cost(at, value)?;
            }
        }
        Ok((plan, grid))
    }

    /// The stacked grid of open floors: every cell of every floor walkable at cost 1, the rows
    /// between floors blocked.
    ///
    /// # Errors
    /// [`FloorPlanError::TooLarge`] as [`FloorPlan::new`] checked.
    pub fn grid(&self) -> Result<Grid, FloorPlanError> {
        let rows = self.grid_height().ok_or(GridError::TooLarge {
            width: self.width,
            height: u32::MAX,
        })?;
        let mut grid = Grid::try_new(self.width, rows)?;
        for floor in 1..self.floors {
            let row = floor * (self.height + 1) - 1;
            grid.fill_rect(Cell::new(0, row), Cell::new(self.width - 1, row), 0);
        }
        Ok(grid)
    }

    /// A floor's width.
    #[must_use]
    pub const fn width(&self) -> u32 {
        self.width
    }

    /// A floor's height.
    #[must_use]
    pub const fn height(&self) -> u32 {
        self.height
    }

    /// The number of floors.
    #[must_use]
    pub const fn floors(&self) -> u32 {
        self.floors
    }

    /// The cell of the stacked grid that is `at`.
    ///
    /// # Errors
    /// [`FloorPlanError::NoSuchFloor`] or [`FloorPlanError::OutOfBounds`].
    pub fn cell(&self, at: FloorCell) -> Result<Cell, FloorPlanError> {
        if at.floor >= self.floors {
            return Err(FloorPlanError::NoSuchFloor {
                floor: at.floor,
                floors: self.floors,
            });
        }
        if at.cell.x >= self.width || at.cell.y >= self.height {
            return Err(FloorPlanError::OutOfBounds {
                cell: at.cell,
                width: self.width,
                height: self.height,
            });
        }
        Ok(Cell::new(
            at.cell.x,
            at.floor * (self.height + 1) + at.cell.y,
        ))
    }

    /// The floor and cell that cell `cell` of the stacked grid is; `None` for a row between
    /// floors or a cell outside the grid.
    #[must_use]
    pub fn floor_cell(&self, cell: Cell) -> Option<FloorCell> {
        let floor = cell.y / (self.height + 1);
        let y = cell.y % (self.height + 1);
        (cell.x < self.width && floor < self.floors && y < self.height).then_some(FloorCell {
            floor,
            cell: Cell::new(cell.x, y),
        })
    }

    /// Rows of the stacked grid, or `None` past `u32`.
    fn grid_height(&self) -> Option<u32> {
        self.floors
            .checked_mul(self.height.checked_add(1)?)?
            .checked_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_cells_round_trip_and_the_rows_between_floors_are_no_floors_cells() {
        let plan = FloorPlan::new(3, 2, 3).expect("plan");
        let grid = plan.grid().expect("grid");
        assert_eq!((grid.width(), grid.height()), (3, 8));
        for (cell, value) in grid.cells() {
            match plan.floor_cell(cell) {
                Some(at) => {
                    assert_eq!(plan.cell(at), Ok(cell));
                    assert_eq!(value, 1);
                }
                None => assert_eq!(value, 0, "{cell} lies between floors"),
            }
        }
        assert_eq!(
            plan.cell(FloorCell::new(3, 0, 0)),
            Err(FloorPlanError::NoSuchFloor {
                floor: 3,
                floors: 3
            })
        );
        assert!(matches!(
            plan.cell(FloorCell::new(0, 0, 2)),
            Err(FloorPlanError::OutOfBounds { .. })
        ));
        assert_eq!(plan.floor_cell(Cell::new(0, 8)), None);
    }

    #[test]
    fn bad_plans_are_refused() {
        assert_eq!(FloorPlan::new(3, 3, 0), Err(FloorPlanError::Empty));
        assert!(matches!(
            FloorPlan::new(65_536, 65_536, 4),
            Err(FloorPlanError::TooLarge(_))
        ));
        assert!(matches!(
            FloorPlan::new(1, u32::MAX, 3),
            Err(FloorPlanError::TooLarge(_))
        ));
        let floors = [Grid::new(3, 3), Grid::new(3, 4)];
        assert!(matches!(
            FloorPlan::stack(&floors),
            Err(FloorPlanError::SizesDiffer { floor: 1, .. })
        ));
    }

    #[test]
    fn stacked_floors_keep_their_cells() {
        let ground = Grid::from_ascii("..#\n...").expect("grid");
        let upstairs = Grid::from_ascii("#..\n.5.").expect("grid");
        let (plan, grid) = FloorPlan::stack(&[ground.clone(), upstairs.clone()]).expect("stack");
        for (floor, source) in [(0, &ground), (1, &upstairs)] {
            for (cell, value) in source.cells() {
                let at = plan.cell(FloorCell { floor, cell }).expect("inside");
                assert_eq!(grid.value(at), value);
            }
        }
    }
}
