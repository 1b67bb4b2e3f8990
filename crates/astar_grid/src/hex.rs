//! Hexagonal maps: how their tiles are numbered, how they are stored on a [`Grid`] in axial
//! coordinates, and where hex centres lie.
//!
//! A hexagonal grid is a [`Grid`] searched with [`Movement::HEX`](crate::Movement::HEX): cell
//! `(x, y)` is the hex of axial coordinates `(q, r) = (x, y)` (shifted so that no coordinate
//! is negative), and its six neighbours are `(x ± 1, y)`, `(x, y ± 1)`, `(x + 1, y - 1)` and
//! `(x - 1, y + 1)`. Every tool of the crate that takes a [`Movement`](crate::Movement) works
//! on it unchanged: A*, smoothing, flow fields, connectivity, repair and the rest.
//!
//! Maps drawn as rectangles of hexes number their tiles in *offset* coordinates, each row (or
//! column) shifted half a hex from the last. A [`HexMap`] converts, losslessly, between a
//! map's tile numbers in any [`HexLayout`] and the cells of its axial grid. The cells of the
//! axial grid that hold no tile are blocked.

use crate::{Cell, Grid, GridError};

/// How a map numbers its hexes: the six coordinate systems of `bevy_ecs_tilemap`.
///
/// `Row` layouts have pointy-topped hexes in rows (a row's neighbours sit half a hex to either
/// side in the rows above and below); `Column` layouts have flat-topped hexes in columns.
/// Tile `(column, row)` grows `row` upwards in the pointy layouts' geometry, as the
/// [`HexMap::center`] coordinates do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HexLayout {
    /// Pointy-topped hexes numbered in axial coordinates `(q, r)`: a parallelogram of rows,
    /// each row half a hex further along than the last.
    #[default]
    Row,
    /// Pointy-topped hexes in a rectangle whose odd rows are shifted half a hex forwards
    /// ("odd-r").
    RowOdd,
    /// Pointy-topped hexes in a rectangle whose even rows are shifted half a hex forwards
    /// ("even-r").
    RowEven,
    /// Flat-topped hexes numbered in axial coordinates `(q, r)`: a parallelogram of columns.
    Column,
    /// Flat-topped hexes in a rectangle whose odd columns are shifted half a hex up ("odd-q").
    ColumnOdd,
    /// Flat-topped hexes in a rectangle whose even columns are shifted half a hex up
    /// ("even-q").
    ColumnEven,
}

impl HexLayout {
    /// Every layout, for menus, tests and command lines.
    pub const ALL: [Self; 6] = [
        Self::Row,
        Self::RowOdd,
        Self::RowEven,
        Self::Column,
        Self::ColumnOdd,
        Self::ColumnEven,
    ];

    /// The layout's name in map files: `hex-row`, `hex-row-odd`, `hex-row-even`,
    /// `hex-column`, `hex-column-odd` or `hex-column-even`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Row => "hex-row",
            Self::RowOdd => "hex-row-odd",
            Self::RowEven => "hex-row-even",
            Self::Column => "hex-column",
            Self::ColumnOdd => "hex-column-odd",
            Self::ColumnEven => "hex-column-even",
        }
    }

    /// The layout named `name` ([`HexLayout::name`]), if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|layout| layout.name() == name)
    }

    /// Whether the hexes are pointy-topped, in rows.
    #[must_use]
    pub const fn is_row(self) -> bool {
        matches!(self, Self::Row | Self::RowOdd | Self::RowEven)
    }

    /// How far the axial coordinate that the offset shifts moves back at offset `line` (a row
    /// for row layouts, a column for column layouts): `floor(line / 2)` for odd layouts,
    /// `ceil(line / 2)` for even ones, 0 for axial ones.
    const fn shift(self, line: u32) -> u32 {
        match self {
            Self::Row | Self::Column => 0,
            Self::RowOdd | Self::ColumnOdd => line / 2,
            Self::RowEven | Self::ColumnEven => line.div_ceil(2),
        }
    }
}

impl core::fmt::Display for HexLayout {
    fn fmt(&self, formatter: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A rectangle of `columns` x `rows` tiles in a [`HexLayout`], stored on an axial [`Grid`].
///
/// ```
/// use astar_grid::hex::{HexLayout, HexMap};
/// use astar_grid::{Cell, Movement, SearchOptions, Searcher};
///
/// // Five rows of six pointy hexes, odd rows shifted forwards.
/// let map = HexMap::new(HexLayout::RowOdd, 6, 5)?;
/// let grid = map.grid_from_tiles(|_| 1)?;
/// assert_eq!(grid.width(), 6 + 2); // row 4 starts two columns back in axial terms
/// let (start, goal) = (map.cell_of((0, 0)).unwrap(), map.cell_of((5, 4)).unwrap());
/// assert_eq!(map.tile_of(goal), Some((5, 4)));
///
/// let options = SearchOptions::default().with_movement(Movement::HEX);
/// let path = Searcher::new().find_path(&grid, start, goal, &options)?.found().unwrap().clone();
/// // Four rows up gain two columns on the way; three more remain: seven steps.
/// assert_eq!(path.cost, 7.0);
/// assert!(path.cells.iter().all(|&cell| map.tile_of(cell).is_some()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HexMap {
    layout: HexLayout,
    columns: u32,
    rows: u32,
    /// How far axial coordinates are shifted to keep every tile's cell non-negative.
    offset: u32,
}

/// Why a [`HexMap`] cannot be stored on a grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HexMapError {
    /// The axial grid that holds the map would be too large for a [`Grid`].
    #[error("a {columns} x {rows} hex map needs a grid too large to hold")]
    TooLarge {
        /// Tile columns.
        columns: u32,
        /// Tile rows.
        rows: u32,
    },
}

impl From<HexMapError> for GridError {
    fn from(HexMapError::TooLarge { columns, rows }: HexMapError) -> Self {
        Self::TooLarge {
            width: columns,
            height: rows,
        }
    }
}

impl HexMap {
    /// A map of `columns` x `rows` tiles numbered in `layout`.
    ///
    /// # Errors
    /// [`HexMapError::TooLarge`] when its axial grid would be larger than a [`Grid`] holds.
    pub fn new(layout: HexLayout, columns: u32, rows: u32) -> Result<Self, HexMapError> {
        let lines = if layout.is_row() { rows } else { columns };
        let offset = layout.shift(lines.saturating_sub(1));
        let map = Self {
            layout,
            columns,
            rows,
            offset,
        };
        let (width, height) = map
            .grid_size_checked()
            .ok_or(HexMapError::TooLarge { columns, rows })?;
        Grid::buffer_len(width, height).ok_or(HexMapError::TooLarge { columns, rows })?;
        Ok(map)
    }

    fn grid_size_checked(&self) -> Option<(u32, u32)> {
        if self.layout.is_row() {
            Some((self.columns.checked_add(self.offset)?, self.rows))
        } else {
            Some((self.columns, self.rows.checked_add(self.offset)?))
        }
    }

    /// The layout.
    #[must_use]
    pub const fn layout(&self) -> HexLayout {
        self.layout
    }

    /// Tile columns and rows.
    #[must_use]
    pub const fn tiles(&self) -> (u32, u32) {
        (self.columns, self.rows)
    }

    /// The width and height of the axial grid that holds the map.
    #[must_use]
    pub const fn grid_size(&self) -> (u32, u32) {
        if self.layout.is_row() {
            (self.columns + self.offset, self.rows)
        } else {
            (self.columns, self.rows + self.offset)
        }
    }

    /// The grid cell of tile `(column, row)`, or `None` off the map.
    #[must_use]
    pub const fn cell_of(&self, (column, row): (u32, u32)) -> Option<Cell> {
        if column >= self.columns || row >= self.rows {
            return None;
        }
        Some(if self.layout.is_row() {
            Cell::new(column + self.offset - self.layout.shift(row), row)
        } else {
            Cell::new(column, row + self.offset - self.layout.shift(column))
        })
    }

    /// The tile `(column, row)` of grid `cell`, or `None` for a cell of the axial grid that
    /// holds no tile (or lies off it).
    #[must_use]
    pub fn tile_of(&self, cell: Cell) -> Option<(u32, u32)> {
        let tile = if self.layout.is_row() {
            let column = cell
                .x
                .checked_add(self.layout.shift(cell.y))?
                .checked_sub(self.offset)?;
            (column, cell.y)
        } else {
            let row = cell
                .y
                .checked_add(self.layout.shift(cell.x))?
                .checked_sub(self.offset)?;
            (cell.x, row)
        };
        (tile.0 < self.columns && tile.1 < self.rows).then_some(tile)
    }

    /// The axial grid of the map, each tile's cell costing `cost(tile)` (0 blocks it) and every
    /// cell that holds no tile blocked.
    ///
    /// # Errors
    /// As [`Grid::try_new`].
    pub fn grid_from_tiles(
        &self,
        mut cost: impl FnMut((u32, u32)) -> u8,
    ) -> Result<Grid, GridError> {
        let (width, height) = self.grid_size();
        let mut grid = Grid::try_new(width, height)?;
        for y in 0..height {
            for x in 0..width {
                let cell = Cell::new(x, y);
                let value = self.tile_of(cell).map_or(0, &mut cost);
                let _ = grid.set_cost(cell, value);
            }
        }
        Ok(grid)
    }

    /// The centre of the hex at `cell`, with tile `(0, 0)` at the origin, in units of the
    /// tile's width (`x`) and height (`y`) as `bevy_ecs_tilemap` lays hexes out: pointy rows
    /// `0.75` of a height apart, each hex of a row one width from the next; flat columns `0.75`
    /// of a width apart. `y` grows with the row.
    #[must_use]
    pub fn center(&self, cell: Cell) -> (f64, f64) {
        self.position((f64::from(cell.x), f64::from(cell.y)))
    }

    /// Where the point of fractional grid coordinates `(x, y)` lies, in the units of
    /// [`HexMap::center`]: a cell's centre at whole coordinates, and in between the map from
    /// cells to centres carried on linearly (the centre of an agent's footprint, say).
    ///
    /// ```
    /// use astar_grid::hex::{HexLayout, HexMap};
    /// use astar_grid::Cell;
    ///
    /// let map = HexMap::new(HexLayout::Column, 3, 3)?;
    /// let (a, b) = (map.center(Cell::new(0, 1)), map.center(Cell::new(1, 1)));
    /// let half_way = map.position((0.5, 1.0));
    /// assert_eq!(half_way, ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0));
    /// # Ok::<(), astar_grid::hex::HexMapError>(())
    /// ```
    #[must_use]
    pub fn position(&self, point: (f64, f64)) -> (f64, f64) {
        let (q, r) = self.axial(point);
        if self.layout.is_row() {
            (q + r / 2.0, 0.75 * r)
        } else {
            (0.75 * q, r + q / 2.0)
        }
    }

    /// The cell of the hex holding the point `(x, y)` (in the units of [`HexMap::center`]),
    /// or `None` when that hex lies off the axial grid. Points on an edge between two hexes go
    /// to one of them.
    #[must_use]
    pub fn cell_at(&self, point: (f64, f64)) -> Option<Cell> {
        self.cell_in(point, self.grid_size())
    }

    /// [`HexMap::cell_at`] on a grid of `width` x `height` cells laid out as this map's axial
    /// grid, which may be larger than it: floors of the map stacked in one grid, say. `None`
    /// when the hex lies off that grid.
    ///
    /// ```
    /// use astar_grid::hex::{HexLayout, HexMap};
    /// use astar_grid::Cell;
    ///
    /// let map = HexMap::new(HexLayout::Row, 4, 3)?;
    /// let above = map.center(Cell::new(1, 5)); // two rows above the map's own grid
    /// assert_eq!(map.cell_at(above), None);
    /// assert_eq!(map.cell_in(above, (4, 8)), Some(Cell::new(1, 5)));
    /// # Ok::<(), astar_grid::hex::HexMapError>(())
    /// ```
    #[must_use]
    pub fn cell_in(&self, (x, y): (f64, f64), (width, height): (u32, u32)) -> Option<Cell> {
        let (q, r) = if self.layout.is_row() {
            let r = y / 0.75;
            (x - r / 2.0, r)
        } else {
            let q = x / 0.75;
            (q, y - q / 2.0)
        };
        let (q, r) = round_axial(q, r);
        let shift = f64::from(self.offset);
        let (x, y) = if self.layout.is_row() {
            (q + shift, r)
        } else {
            (q, r + shift)
        };
        let inside = |value: f64, limit: u32| value >= 0.0 && value < f64::from(limit);
        (inside(x, width) && inside(y, height)).then(|| Cell::new(x as u32, y as u32))
    }

    /// The axial coordinates of the grid point `(x, y)`, with tile `(0, 0)` at `(0, 0)`.
    fn axial(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let shift = f64::from(self.offset);
        if self.layout.is_row() {
            (x - shift, y)
        } else {
            (x, y - shift)
        }
    }
}

/// The hex holding fractional axial coordinates `(q, r)`: cube rounding, which rounds each of
/// `q`, `r` and `s = -q - r` and mends the one that moved most.
fn round_axial(q: f64, r: f64) -> (f64, f64) {
    let s = -q - r;
    let (mut rq, mut rr, rs) = (q.round(), r.round(), s.round());
    let (dq, dr, ds) = ((rq - q).abs(), (rr - r).abs(), (rs - s).abs());
    if dq > dr && dq > ds {
        rq = -rr - rs;
    } else if dr > ds {
        rr = -rq - rs;
    }
    (rq, rr)
}

/// The number of steps between two hexes of an axial grid, walls aside:
/// `max(|dq|, |dr|, |dq + dr|)`.
///
/// ```
/// use astar_grid::{Cell, hex::hex_distance};
///
/// assert_eq!(hex_distance(Cell::new(0, 3), Cell::new(3, 0)), 3);
/// assert_eq!(hex_distance(Cell::new(0, 0), Cell::new(3, 3)), 6);
/// ```
#[must_use]
pub fn hex_distance(a: Cell, b: Cell) -> u64 {
    steps_between((a.x, a.y), (b.x, b.y))
}

/// [`hex_distance`] between two columns and rows (padded or not alike).
#[inline]
pub(crate) fn steps_between(a: (u32, u32), b: (u32, u32)) -> u64 {
    let dq = i64::from(b.0) - i64::from(a.0);
    let dr = i64::from(b.1) - i64::from(a.1);
    dq.unsigned_abs()
        .max(dr.unsigned_abs())
        .max((dq + dr).unsigned_abs())
}

/// The distance between the centres of two hexes `dq` columns and `dr` rows apart, hexes one
/// apart being neighbours: `sqrt(dq² + dq·dr + dr²)`.
#[inline]
pub(crate) fn center_distance(dq: f64, dr: f64) -> f64 {
    (dq * dq + dq * dr + dr * dr).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Neighborhood;

    /// The neighbours of an offset tile, written out from the offset rules themselves: the
    /// six tiles around it, which depend on the parity of its row (or column).
    fn offset_neighbours(layout: HexLayout, (column, row): (i64, i64)) -> Vec<(i64, i64)> {
        let (line, odd_shifts) = match layout {
            HexLayout::Row | HexLayout::Column => {
                return [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]
                    .iter()
                    .map(|&(dq, dr)| (column + dq, row + dr))
                    .collect();
            }
            HexLayout::RowOdd | HexLayout::ColumnOdd => (layout.is_row(), true),
            HexLayout::RowEven | HexLayout::ColumnEven => (layout.is_row(), false),
        };
        let along = if line { row } else { column };
        // Whether this line sits half a hex forwards of its neighbours.
        let forwards = (along.rem_euclid(2) == 1) == odd_shifts;
        let (back, ahead) = if forwards { (0, 1) } else { (-1, 0) };
        let across = [
            (back, 1),
            (ahead, 1),
            (back, -1),
            (ahead, -1),
            (1, 0),
            (-1, 0),
        ];
        across
            .iter()
            .map(|&(a, b)| {
                if line {
                    (column + a, row + b)
                } else {
                    (column + b, row + a)
                }
            })
            .collect()
    }

    #[test]
    fn tiles_and_cells_convert_both_ways_for_every_layout() {
        for layout in HexLayout::ALL {
            for (columns, rows) in [(1, 1), (5, 4), (4, 7), (2, 9)] {
                let map = HexMap::new(layout, columns, rows).expect("small");
                let (width, height) = map.grid_size();
                let mut seen = 0;
                for y in 0..height {
                    for x in 0..width {
                        if let Some(tile) = map.tile_of(Cell::new(x, y)) {
                            assert_eq!(map.cell_of(tile), Some(Cell::new(x, y)), "{layout}");
                            seen += 1;
                        }
                    }
                }
                assert_eq!(seen, columns * rows, "{layout} {columns}x{rows}");
                assert_eq!(map.cell_of((columns, 0)), None);
                assert_eq!(map.cell_of((0, rows)), None);
            }
        }
    }

    #[test]
    fn neighbouring_tiles_are_neighbouring_cells() {
        for layout in HexLayout::ALL {
            let map = HexMap::new(layout, 6, 7).expect("small");
            for row in 0..7 {
                for column in 0..6 {
                    let cell = map.cell_of((column, row)).expect("on the map");
                    let around = offset_neighbours(layout, (i64::from(column), i64::from(row)));
                    for other_row in 0..7 {
                        for other_column in 0..6 {
                            let other = map.cell_of((other_column, other_row)).expect("on the map");
                            let expected =
                                around.contains(&(i64::from(other_column), i64::from(other_row)));
                            assert_eq!(
                                Neighborhood::Hex.are_neighbours(cell, other),
                                expected,
                                "{layout} ({column}, {row}) ({other_column}, {other_row})"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn centres_map_back_to_their_cells_and_neighbours_lie_one_hex_apart() {
        for layout in HexLayout::ALL {
            let map = HexMap::new(layout, 5, 6).expect("small");
            for (column, row) in (0..5).flat_map(|c| (0..6).map(move |r| (c, r))) {
                let cell = map.cell_of((column, row)).expect("on the map");
                let (x, y) = map.center(cell);
                assert_eq!(map.cell_at((x, y)), Some(cell));
                // A point a third of the way to any neighbour's centre is still this hex.
                for other in [(1, 0), (0, 1), (-1, 0), (0, -1), (1, -1), (-1, 1)]
                    .iter()
                    .filter_map(|&(dx, dy)| cell.offset(dx, dy))
                {
                    let (ox, oy) = map.center(other);
                    let near = (x + (ox - x) / 3.0, y + (oy - y) / 3.0);
                    assert_eq!(map.cell_at(near), Some(cell), "{layout} {cell:?} {other:?}");
                }
            }
            // Tile (0, 0) sits at the origin; tile (1, 0) one width along (or 0.75 of one).
            let origin = map.cell_of((0, 0)).expect("on the map");
            assert_eq!(map.center(origin), (0.0, 0.0));
        }
    }

    #[test]
    fn cells_far_off_the_map_hold_no_tile() {
        for layout in HexLayout::ALL {
            let map = HexMap::new(layout, 4, 4).expect("small");
            for cell in [
                Cell::new(u32::MAX, 1),
                Cell::new(1, u32::MAX),
                Cell::new(u32::MAX, u32::MAX),
            ] {
                assert_eq!(map.tile_of(cell), None, "{layout} {cell}");
            }
        }
    }

    #[test]
    fn a_huge_map_is_refused() {
        assert_eq!(
            HexMap::new(HexLayout::RowOdd, u32::MAX, 3),
            Err(HexMapError::TooLarge {
                columns: u32::MAX,
                rows: 3
            })
        );
        assert!(HexMap::new(HexLayout::ColumnEven, 3, u32::MAX).is_err());
    }
}
