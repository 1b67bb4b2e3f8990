//! World space to the grid space of the core's crowd, and back: cells as units, `y` along the
//! rows, speeds by the longer cell side. Isometric and hexagonal cells are measured in cell
//! sizes along the world's axes, over an open box around the map.

use crate::{NavGrid, NavShape};
use astar_grid::Cell;
use astar_grid::crowd::{Route, Vector};
use bevy::prelude::*;

/// World space to the grid space of the core's crowd (cells, `y` along the rows).
///
/// On square cells, grid space is the navigation grid's, and the crowd's walls are its blocked
/// cells. Isometric and hexagonal cells are no squares of grid space: there grid space measures
/// cell sizes along the world's axes from a corner of a box around the map ([`GridSpace::open`]),
/// the crowd steps against no walls inside it, and writing a step back keeps each agent's
/// centre out of the cells its profile cannot enter (the routes it follows already do).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct GridSpace {
    origin: Vec2,
    cell: Vec2,
    /// For cells that are not square: the size in cells of the open box around the map.
    open: Option<(u32, u32)>,
}

impl Default for GridSpace {
    fn default() -> Self {
        Self {
            origin: Vec2::ZERO,
            cell: Vec2::ONE,
            open: None,
        }
    }
}

impl GridSpace {
    pub(super) fn of(nav: &NavGrid) -> Self {
        let cell = nav.cell_size();
        let usable = |side: f32| if side.abs() > f32::EPSILON { side } else { 1.0 };
        let cell = Vec2::new(usable(cell.x), usable(cell.y));
        if nav.shape() == NavShape::Square {
            return Self {
                origin: nav.origin(),
                cell,
                open: None,
            };
        }
        // The map's box: its outermost cell centres (a linear image of the grid's corners), and
        // a cell beyond them every way.
        let last = (nav.width().max(1) - 1, nav.height().max(1) - 1);
        let corners =
            [(0, 0), (last.0, 0), (0, last.1), last].map(|(x, y)| nav.cell_center(Cell::new(x, y)));
        let cell = cell.abs();
        let low = corners.iter().fold(Vec2::MAX, |a, &b| a.min(b)) - cell;
        let high = corners.iter().fold(Vec2::MIN, |a, &b| a.max(b)) + cell;
        let cells = ((high - low) / cell).ceil();
        Self {
            origin: low,
            cell,
            open: Some((cells.x as u32 + 1, cells.y as u32 + 1)),
        }
    }

    /// For isometric and hexagonal cells, the size in cells of the open box the crowd steps in;
    /// `None` on square cells, where the crowd steps against the grid's walls.
    pub(super) const fn open(self) -> Option<(u32, u32)> {
        self.open
    }

    pub(super) fn point(self, world: Vec2) -> Vector {
        let local = (world - self.origin) / self.cell;
        Vector::new(local.x, local.y)
    }

    pub(super) fn world(self, point: Vector) -> Vec2 {
        self.origin + Vec2::new(point.x, point.y) * self.cell
    }

    /// The route through world `waypoints`, in grid space.
    pub(super) fn route(self, waypoints: &[Vec2], reaches_goal: bool) -> Route {
        let points: Vec<Vector> = waypoints.iter().map(|&point| self.point(point)).collect();
        Route::new(points, reaches_goal)
    }

    pub(super) fn world_velocity(self, velocity: Vector) -> Vec2 {
        Vec2::new(velocity.x, velocity.y) * self.cell
    }

    /// The shorter cell side, in world units.
    pub(super) fn shorter_side(self) -> f32 {
        self.cell.x.abs().min(self.cell.y.abs())
    }

    /// A world speed in cells per second, by the longer cell side: on cells that are not
    /// square an agent is never faster than its follower's speed, along either axis.
    pub(super) fn speed_in_cells(self, speed: f32) -> f32 {
        speed / self.cell.x.abs().max(self.cell.y.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CrowdAvoidance;
    use astar_grid::crowd::footprint_radius;
    use astar_grid::{Cell, Grid};

    #[test]
    fn grid_space_round_trips_with_flipped_cells() {
        let nav = NavGrid::new(Grid::new(10, 10))
            .with_cell_size(Vec2::new(16.0, -16.0))
            .with_origin(Vec2::new(-80.0, 80.0));
        let space = GridSpace::of(&nav);
        let centre = nav.cell_center(Cell::new(3, 7));
        let point = space.point(centre);
        assert_eq!(point, Vector::new(3.5, 7.5));
        assert_eq!(space.world(point), centre);
        assert_eq!(
            space.world_velocity(Vector::new(2.0, -2.0)),
            Vec2::new(32.0, 32.0)
        );
        assert_eq!(8.0 / space.shorter_side(), 0.5);
    }

    /// On hexagonal cells every cell centre lies inside the open box, a cell from its edges.
    #[test]
    fn the_open_box_holds_every_cell_of_a_hexagonal_map() {
        use astar_grid::hex::{HexLayout, HexMap};
        for layout in HexLayout::ALL {
            let map = HexMap::new(layout, 9, 7).expect("small");
            let nav = NavGrid::new(map.grid_from_tiles(|_| 1).expect("small"))
                .with_cell_size(Vec2::new(30.0, -26.0))
                .with_origin(Vec2::new(-100.0, 40.0))
                .with_shape(NavShape::Hex(map));
            let space = GridSpace::of(&nav);
            let (width, height) = space.open().expect("an open box");
            for (cell, _) in nav.grid().cells() {
                let point = space.point(nav.cell_center(cell));
                assert!(
                    point.x >= 1.0 && point.y >= 1.0,
                    "{layout}: {cell} at {point:?}"
                );
                assert!(point.x <= width as f32 - 1.0 && point.y <= height as f32 - 1.0);
                assert!(space.world(point).distance(nav.cell_center(cell)) < 1e-3);
            }
        }
        assert_eq!(GridSpace::of(&NavGrid::new(Grid::new(3, 3))).open(), None);
    }

    #[test]
    fn a_radius_asked_for_is_at_most_the_footprints_and_speeds_never_exceed_the_followers() {
        let nav = NavGrid::new(Grid::new(4, 4)).with_cell_size(Vec2::new(32.0, 16.0));
        let space = GridSpace::of(&nav);
        let footprint = footprint_radius(1);
        let radius_of =
            |avoidance: CrowdAvoidance| avoidance.radius_in_cells(1, space.shorter_side());
        assert_eq!(radius_of(CrowdAvoidance::default()), footprint);
        assert_eq!(radius_of(CrowdAvoidance::default().with_radius(4.0)), 0.25);
        for odd in [64.0, -2.0, f32::NAN, 0.0] {
            let radius = radius_of(CrowdAvoidance::default().with_radius(odd));
            assert!(radius > 0.0 && radius <= footprint, "{odd}: {radius}");
        }
        // 4 cells a second... of the longer side: 64 world units a second along x, 32 along y.
        let speed = space.speed_in_cells(64.0);
        assert!(space.world_velocity(Vector::new(speed, 0.0)).length() <= 64.0);
        assert!(space.world_velocity(Vector::new(0.0, speed)).length() <= 64.0);
    }
}
