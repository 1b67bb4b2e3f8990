//! Waypoint smoothing: drops path cells that a straight line from an earlier kept cell can pass,
//! for agents that move at any angle.
//!
//! The core crate finds grid paths only, so this small line-of-sight pass lives here.

use astar_grid::{Cell, Grid};

/// The cells of `path` to keep as waypoints: the first and last, and every cell where a straight
/// line from the previous kept cell would cross a blocked cell, squeeze between two blocked
/// corners, or enter terrain costlier than the stretch of path it replaces.
pub(crate) fn smooth_path(grid: &Grid, path: &[Cell]) -> Vec<Cell> {
    let [first, .., last] = path else {
        return path.to_vec();
    };
    if path.len() <= 2 {
        return path.to_vec();
    }
    let cost = |cell: Cell| grid.value(cell);
    let mut waypoints = vec![*first];
    let mut anchor = 0;
    let mut stretch_max = cost(path[0]).max(cost(path[1]));
    for candidate in 1..path.len() - 1 {
        let next = path[candidate + 1];
        stretch_max = stretch_max.max(cost(next));
        if !line_is_clear(grid, path[anchor], next, stretch_max) {
            waypoints.push(path[candidate]);
            anchor = candidate;
            stretch_max = cost(path[candidate]).max(cost(next));
        }
    }
    waypoints.push(*last);
    waypoints
}

/// Whether the straight line between the centres of `from` and `to` crosses only walkable cells
/// costing at most `max_cost`; where it passes exactly through a grid corner, both cells beside
/// the corner must qualify too.
fn line_is_clear(grid: &Grid, from: Cell, to: Cell, max_cost: u8) -> bool {
    let passable = |x: i64, y: i64| match (u32::try_from(x), u32::try_from(y)) {
        (Ok(x), Ok(y)) => grid
            .cost(Cell::new(x, y))
            .is_some_and(|cost| cost <= max_cost),
        _ => false,
    };
    let (mut x, mut y) = (i64::from(from.x), i64::from(from.y));
    let (dx, dy) = (i64::from(to.x) - x, i64::from(to.y) - y);
    let (step_x, step_y) = (dx.signum(), dy.signum());
    let (nx, ny) = (dx.abs(), dy.abs());
    let (mut ix, mut iy) = (0, 0);
    if !passable(x, y) {
        return false;
    }
    while ix < nx || iy < ny {
        // Compare where the line leaves the current cell: through a vertical side, a horizontal
        // side, or exactly through the corner.
        let decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx;
        if decision == 0 {
            if !passable(x + step_x, y) || !passable(x, y + step_y) {
                return false;
            }
            x += step_x;
            y += step_y;
            ix += 1;
            iy += 1;
        } else if decision < 0 {
            x += step_x;
            ix += 1;
        } else {
            y += step_y;
            iy += 1;
        }
        if !passable(x, y) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_ground_keeps_only_the_ends() {
        let grid = Grid::new(10, 10);
        let path: Vec<Cell> = (0..8).map(|i| Cell::new(i, i / 3)).collect();
        assert_eq!(smooth_path(&grid, &path), vec![path[0], path[7]]);
    }

    #[test]
    fn walls_keep_the_corner_waypoint() {
        // Path goes right along the top row, then down the right column, around a wall.
        let grid = Grid::from_ascii(
            "....
             ###.
             ###.",
        )
        .unwrap();
        let path = [
            Cell::new(0, 0),
            Cell::new(1, 0),
            Cell::new(2, 0),
            Cell::new(3, 0),
            Cell::new(3, 1),
            Cell::new(3, 2),
        ];
        let smoothed = smooth_path(&grid, &path);
        assert_eq!(
            smoothed,
            vec![Cell::new(0, 0), Cell::new(3, 0), Cell::new(3, 2)]
        );
    }

    #[test]
    fn lines_through_corners_need_both_sides() {
        let grid = Grid::from_ascii(
            ".#
             ..",
        )
        .unwrap();
        assert!(!line_is_clear(&grid, Cell::new(0, 0), Cell::new(1, 1), 1));
        assert!(line_is_clear(
            &Grid::new(2, 2),
            Cell::new(0, 0),
            Cell::new(1, 1),
            1
        ));
    }

    #[test]
    fn costly_terrain_is_not_cut_through() {
        let mut grid = Grid::new(5, 3);
        grid.set_cost(Cell::new(2, 1), 9).unwrap();
        assert!(!line_is_clear(&grid, Cell::new(0, 1), Cell::new(4, 1), 1));
        assert!(line_is_clear(&grid, Cell::new(0, 1), Cell::new(4, 1), 9));
    }
}
