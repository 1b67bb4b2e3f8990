//! The shape of a navigation grid's cells in the world: square, isometric (diamond or
//! staggered) or hexagonal, and the conversions between cells and world positions each needs.

use astar_grid::agent::Footprint;
use astar_grid::hex::HexMap;
use astar_grid::{Cell, Movement};
use bevy::prelude::*;

/// How a [`NavGrid`](crate::NavGrid)'s cells lie in the world, as `bevy_ecs_tilemap` lays out
/// the tiles of its map types.
///
/// Positions are measured in cell sizes ([`NavGrid::cell_size`](crate::NavGrid::cell_size))
/// from the centre of cell `(0, 0)`:
/// - [`NavShape::Square`]: cell `(x, y)` at `(x, y)`;
/// - [`NavShape::Diamond`]: isometric diamonds, cell `(x, y)` at `((x + y) / 2, (y - x) / 2)`;
/// - [`NavShape::Staggered`]: `bevy_ecs_tilemap`'s staggered isometric layout, the diamond
///   of `(x, y + x)`;
/// - [`NavShape::Hex`]: hexagons, the grid holding the map's tiles in axial coordinates
///   ([`astar_grid::hex`]); cell centres as [`HexMap::center`] places them.
///
/// Square and isometric grids are square grids searched as they are. A hexagonal grid is
/// searched with [`Movement::HEX`], which every request on it takes ([`NavShape::movement_for`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NavShape {
    /// Square cells, rows along +Y.
    #[default]
    Square,
    /// Isometric diamonds.
    Diamond,
    /// Isometric diamonds in `bevy_ecs_tilemap`'s staggered layout.
    Staggered,
    /// Hexagons of a map in one of the layouts of [`astar_grid::hex::HexLayout`].
    Hex(HexMap),
}

impl NavShape {
    /// The movement rule searches on this shape take instead of `requested`: [`Movement::HEX`]
    /// on a hexagonal grid, `requested` on the others.
    ///
    /// ```
    /// use bevy_astar::prelude::*;
    /// use bevy_astar::NavShape;
    /// use astar_grid::hex::{HexLayout, HexMap};
    ///
    /// let hex = NavShape::Hex(HexMap::new(HexLayout::RowOdd, 4, 4)?);
    /// assert_eq!(hex.movement_for(Movement::EIGHT), Movement::HEX);
    /// assert_eq!(NavShape::Diamond.movement_for(Movement::FOUR), Movement::FOUR);
    /// # Ok::<(), astar_grid::hex::HexMapError>(())
    /// ```
    #[must_use]
    pub const fn movement_for(self, requested: Movement) -> Movement {
        match self {
            Self::Hex(_) => Movement::HEX,
            Self::Square | Self::Diamond | Self::Staggered => requested,
        }
    }

    /// The grid cell of tile `(x, y)` of a tilemap of this shape: the same coordinates for
    /// square and isometric maps, the axial cell on a hexagonal one (`None` off its map).
    #[must_use]
    pub const fn cell_of_tile(self, (x, y): (u32, u32)) -> Option<Cell> {
        match self {
            Self::Hex(map) => map.cell_of((x, y)),
            Self::Square | Self::Diamond | Self::Staggered => Some(Cell::new(x, y)),
        }
    }

    /// The tile of grid cell `cell` ([`NavShape::cell_of_tile`] undone): `None` for a cell of
    /// a hexagonal grid that holds no tile.
    #[must_use]
    pub fn tile_of_cell(self, cell: Cell) -> Option<(u32, u32)> {
        match self {
            Self::Hex(map) => map.tile_of(cell),
            Self::Square | Self::Diamond | Self::Staggered => Some((cell.x, cell.y)),
        }
    }

    /// The corners of a cell around its centre, in cell sizes, in order around it (what the
    /// debug overlay draws).
    #[cfg(any(feature = "debug", test))]
    pub(crate) fn outline(self) -> &'static [Vec2] {
        const SQUARE: [Vec2; 4] = [
            Vec2::new(0.5, 0.5),
            Vec2::new(-0.5, 0.5),
            Vec2::new(-0.5, -0.5),
            Vec2::new(0.5, -0.5),
        ];
        const DIAMOND: [Vec2; 4] = [
            Vec2::new(0.5, 0.0),
            Vec2::new(0.0, 0.5),
            Vec2::new(-0.5, 0.0),
            Vec2::new(0.0, -0.5),
        ];
        const POINTY: [Vec2; 6] = [
            Vec2::new(0.0, 0.5),
            Vec2::new(-0.5, 0.25),
            Vec2::new(-0.5, -0.25),
            Vec2::new(0.0, -0.5),
            Vec2::new(0.5, -0.25),
            Vec2::new(0.5, 0.25),
        ];
        const FLAT: [Vec2; 6] = [
            Vec2::new(0.5, 0.0),
            Vec2::new(0.25, 0.5),
            Vec2::new(-0.25, 0.5),
            Vec2::new(-0.5, 0.0),
            Vec2::new(-0.25, -0.5),
            Vec2::new(0.25, -0.5),
        ];
        match self {
            Self::Square => &SQUARE,
            Self::Diamond | Self::Staggered => &DIAMOND,
            Self::Hex(map) if map.layout().is_row() => &POINTY,
            Self::Hex(_) => &FLAT,
        }
    }

    /// The shape of agents' footprints on this grid: discs of hexes around their centre on a
    /// hexagonal grid, squares from their top-left cell otherwise.
    #[must_use]
    pub const fn footprint(self) -> Footprint {
        match self {
            Self::Hex(_) => Footprint::Hex,
            Self::Square | Self::Diamond | Self::Staggered => Footprint::Square,
        }
    }

    /// Whether the cells are hexagons.
    #[must_use]
    pub const fn is_hex(self) -> bool {
        matches!(self, Self::Hex(_))
    }

    /// The centre of the grid point `(x, y)` (a cell centre at whole coordinates), in cell
    /// sizes from the centre of cell `(0, 0)`.
    pub(crate) fn point(self, x: f32, y: f32) -> Vec2 {
        match self {
            Self::Square => Vec2::new(x, y),
            Self::Diamond => Vec2::new(x + y, y - x) / 2.0,
            Self::Staggered => Vec2::new(2.0 * x + y, y) / 2.0,
            Self::Hex(map) => {
                let (x, y) = map.position((f64::from(x), f64::from(y)));
                Vec2::new(x as f32, y as f32)
            }
        }
    }

    /// The cell holding the point `from_corner` (in cell sizes from the outer corner of cell
    /// `(0, 0)`, half a cell before its centre either way) on a grid of `width` x `height` cells,
    /// or `None` outside it.
    pub(crate) fn cell_at(self, from_corner: Vec2, (width, height): (u32, u32)) -> Option<Cell> {
        let local = from_corner - 0.5;
        let (x, y) = match self {
            // Square cells are read from the corner itself, so that no rounding of the half
            // cell moves a point just outside the grid into it.
            Self::Square => (from_corner.x.floor(), from_corner.y.floor()),
            Self::Diamond => (
                (local.x - local.y).round_ties_up(),
                (local.x + local.y).round_ties_up(),
            ),
            Self::Staggered => {
                let x = (local.x - local.y).round_ties_up();
                (x, (local.x + local.y).round_ties_up() - x)
            }
            Self::Hex(map) => {
                let point = (f64::from(local.x), f64::from(local.y));
                return map.cell_in(point, (width, height));
            }
        };
        let inside = x.is_finite() && x >= 0.0 && y >= 0.0 && x < width as f32 && y < height as f32;
        inside.then(|| Cell::new(x as u32, y as u32))
    }
}

/// Rounding with halves going up, as `floor(value + 0.5)`: the rule that puts a point on the
/// border of two square cells in the cell above or to the right.
trait RoundTiesUp {
    fn round_ties_up(self) -> Self;
}

impl RoundTiesUp for f32 {
    fn round_ties_up(self) -> Self {
        (self + 0.5).floor()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::hex::HexLayout;

    fn shapes() -> Vec<NavShape> {
        let mut shapes = vec![NavShape::Square, NavShape::Diamond, NavShape::Staggered];
        shapes.extend(
            HexLayout::ALL
                .iter()
                .map(|&layout| NavShape::Hex(HexMap::new(layout, 7, 6).expect("small"))),
        );
        shapes
    }

    /// The cell holding `local`, measured from the centre of cell `(0, 0)`.
    fn cell_at(shape: NavShape, local: Vec2, bounds: (u32, u32)) -> Option<Cell> {
        shape.cell_at(local + 0.5, bounds)
    }

    fn size(shape: NavShape) -> (u32, u32) {
        match shape {
            NavShape::Hex(map) => map.grid_size(),
            _ => (7, 6),
        }
    }

    #[test]
    fn every_cell_centre_and_points_near_it_map_back_to_the_cell() {
        for shape in shapes() {
            let bounds = size(shape);
            for y in 0..bounds.1 {
                for x in 0..bounds.0 {
                    let cell = Cell::new(x, y);
                    if let NavShape::Hex(map) = shape
                        && map.tile_of(cell).is_none()
                    {
                        continue;
                    }
                    let center = shape.point(x as f32, y as f32);
                    assert_eq!(cell_at(shape, center, bounds), Some(cell), "{shape:?}");
                    // A fifth of the way towards any neighbour's centre stays in the cell.
                    for (dx, dy) in [(1, 0), (0, 1), (-1, 0), (0, -1), (1, -1), (-1, 1)] {
                        let other = shape.point(x as f32 + dx as f32, y as f32 + dy as f32);
                        let near = center + (other - center) / 5.0;
                        assert_eq!(cell_at(shape, near, bounds), Some(cell), "{shape:?} {cell}");
                    }
                }
            }
        }
    }

    #[test]
    fn tile_zero_sits_at_the_origin_and_far_points_lie_outside() {
        for shape in shapes() {
            let zero = match shape {
                NavShape::Hex(map) => map.cell_of((0, 0)).expect("on the map"),
                _ => Cell::new(0, 0),
            };
            let at = shape.point(zero.x as f32, zero.y as f32);
            assert!(at.length() < 1e-5, "{shape:?}: {at}");
            assert_eq!(cell_at(shape, Vec2::splat(-40.0), size(shape)), None);
            assert_eq!(cell_at(shape, Vec2::NAN, size(shape)), None);
        }
    }

    /// Each cell's outline holds its centre and reaches half-way to every neighbour's centre:
    /// the midpoint between two neighbouring centres lies on both outlines' boundary.
    #[test]
    fn outlines_meet_half_way_between_neighbours() {
        for shape in shapes() {
            let corners = shape.outline();
            // Distance from the centre to the outline along `direction`, by the polygon's edges.
            let reach = |direction: Vec2| {
                (0..corners.len())
                    .filter_map(|index| {
                        let (a, b) = (corners[index], corners[(index + 1) % corners.len()]);
                        let edge = b - a;
                        let denominator = direction.perp_dot(edge);
                        if denominator.abs() < 1e-6 {
                            return None;
                        }
                        let t = a.perp_dot(edge) / denominator;
                        let u = a.perp_dot(direction) / denominator;
                        (t > 0.0 && (-1e-5..=1.0 + 1e-5).contains(&u)).then_some(t)
                    })
                    .fold(f32::INFINITY, f32::min)
            };
            let steps: &[(i32, i32)] = if shape.is_hex() {
                &[(1, 0), (0, 1), (-1, 0), (0, -1), (1, -1), (-1, 1)]
            } else {
                &[(1, 0), (0, 1), (-1, 0), (0, -1)]
            };
            for &(dx, dy) in steps {
                let toward = shape.point(3.0 + dx as f32, 3.0 + dy as f32) - shape.point(3.0, 3.0);
                let t = reach(toward);
                assert!((t - 0.5).abs() < 1e-4, "{shape:?} ({dx}, {dy}): {t}");
            }
        }
    }

    #[test]
    fn tiles_and_cells_convert_both_ways() {
        for shape in shapes() {
            for (x, y) in [(0, 0), (6, 5), (3, 2)] {
                let cell = shape.cell_of_tile((x, y)).expect("on the map");
                assert_eq!(shape.tile_of_cell(cell), Some((x, y)), "{shape:?}");
            }
        }
    }

    /// Square cells are read from the cells' corners, so a point a hair outside the grid stays
    /// outside (a half-cell shift, rounded, would bring it in).
    #[test]
    fn square_points_just_outside_the_grid_are_outside() {
        let nav = crate::NavGrid::new(astar_grid::Grid::new(4, 4));
        assert_eq!(nav.world_to_cell(Vec2::new(-1e-8, 0.5)), None);
        assert_eq!(
            nav.world_to_cell(Vec2::new(0.0, 0.0)),
            Some(Cell::new(0, 0))
        );
        assert_eq!(
            nav.world_to_cell(Vec2::new(3.999, 1.0)),
            Some(Cell::new(3, 1))
        );
        assert_eq!(nav.world_to_cell(Vec2::new(4.0, 1.0)), None);
        let wide =
            crate::NavGrid::new(astar_grid::Grid::new(4, 4)).with_cell_size(Vec2::splat(32.0));
        assert_eq!(wide.world_to_cell(Vec2::new(5.0, -4e-7)), None);
    }

    /// A hexagonal grid taller than its map (floors stacked) finds cells on every floor.
    #[test]
    fn stacked_hex_floors_have_cells_under_their_points() {
        let map = HexMap::new(HexLayout::RowOdd, 5, 4).expect("small");
        let (width, height) = map.grid_size();
        let upper = Cell::new(3, height + 2);
        let shape = NavShape::Hex(map);
        let center = shape.point(upper.x as f32, upper.y as f32);
        assert_eq!(cell_at(shape, center, (width, 2 * height + 1)), Some(upper));
        assert_eq!(cell_at(shape, center, (width, height)), None);
    }

    #[test]
    fn isometric_layouts_match_bevy_ecs_tilemap() {
        // The diamond basis maps (1, 0) to (0.5, -0.5) and (0, 1) to (0.5, 0.5); staggered
        // tile (x, y) is diamond tile (x, y + x).
        assert_eq!(NavShape::Diamond.point(1.0, 0.0), Vec2::new(0.5, -0.5));
        assert_eq!(NavShape::Diamond.point(0.0, 1.0), Vec2::new(0.5, 0.5));
        assert_eq!(
            NavShape::Staggered.point(3.0, 2.0),
            NavShape::Diamond.point(3.0, 5.0)
        );
    }
}
