//! Line of sight between two cell centres: a supercover walk of the segment that joins them.

use super::hex_line_of_sight::hex_line_of_sight;
use crate::{Cell, CornerRule, Grid, Movement, Neighborhood};
use core::cmp::Ordering;

/// Whether the straight segment from the centre of `a` to the centre of `b` stays on walkable
/// cells, so that an agent may move along it.
///
/// The segment is walked as a *supercover* line: every cell whose interior it enters must be
/// walkable, `a` and `b` included. Where it passes exactly through a grid corner (a diagonal
/// crossing, as a diagonal step does) it also touches the two cells beside that corner, and
/// `movement`'s corner rule decides what they need:
///
/// - [`CornerRule::Both`]: both side cells must be walkable (no corner cutting);
/// - [`CornerRule::One`]: at least one of them must be walkable;
/// - [`CornerRule::Any`]: neither is needed.
///
/// Four-connected movement has no diagonal steps, so a segment may only pass a corner whose
/// side cells are both walkable, as under [`CornerRule::Both`]. For two neighbouring cells the
/// answer is the search's own step rule (under four-connected movement, the eight-connected
/// rule without corner cutting). A segment between cell centres never runs along a grid line,
/// so these are the only cells it can touch.
///
/// Returns `false` when `a` or `b` is outside the grid or blocked. The walk visits each touched
/// cell once: `O(|dx| + |dy|)` with integer arithmetic only, so the answer is exact, and the same
/// from `a` to `b` as from `b` to `a`.
///
/// On a hexagonal grid ([`Neighborhood::Hex`]) the segment joins hex centres, and every hex it
/// touches must be walkable, including those it only passes along an edge of or through a
/// vertex of: a diagonal that is no step, such as `(0, 0)` to `(1, 1)`, needs both `(1, 0)` and
/// `(0, 1)`.
///
/// ```
/// use astar_grid::{Cell, CornerRule, Grid, Movement, line_of_sight};
///
/// let grid = Grid::from_ascii(
///     ".#..
///      #...
///      ....",
/// )?;
/// // The diagonal from (0, 0) to (1, 1) squeezes between two blocked cells.
/// assert!(!line_of_sight(&grid, Cell::new(0, 0), Cell::new(1, 1), Movement::EIGHT));
/// assert!(!line_of_sight(&grid, Cell::new(0, 0), Cell::new(1, 1), Movement::eight(CornerRule::One)));
/// assert!(line_of_sight(&grid, Cell::new(0, 0), Cell::new(1, 1), Movement::eight(CornerRule::Any)));
/// // From (1, 2) to (3, 1) the segment crosses (2, 1) and (2, 2), all walkable.
/// assert!(line_of_sight(&grid, Cell::new(1, 2), Cell::new(3, 1), Movement::EIGHT));
/// // From (0, 2) to (2, 0) it passes corners of the blocked cells (0, 1) and (1, 0).
/// assert!(!line_of_sight(&grid, Cell::new(0, 2), Cell::new(2, 0), Movement::EIGHT));
/// // On a hexagonal grid the same segment runs between (1, 0) and (0, 1).
/// assert!(!line_of_sight(&grid, Cell::new(0, 0), Cell::new(1, 1), Movement::HEX));
/// assert!(line_of_sight(&grid, Cell::new(0, 2), Cell::new(3, 1), Movement::HEX));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn line_of_sight(grid: &Grid, a: Cell, b: Cell, movement: Movement) -> bool {
    line_of_sight_within(grid, a, b, movement, u8::MAX)
}

/// Whether the straight segment from the centre of `a` to the centre of `b` stays on walkable
/// cells that cost at most `max_cost`: [`line_of_sight`] with a limit on terrain.
///
/// Every cell whose interior the segment enters, `a` and `b` included, must be walkable and have
/// a cost multiplier of at most `max_cost`. The cells beside a grid corner that the segment
/// passes exactly through are not entered: the corner rule decides whether they must be
/// walkable, as for [`line_of_sight`], and their cost does not matter. With `max_cost` equal to
/// `u8::MAX` this is [`line_of_sight`]; with `0` no cell qualifies. On a hexagonal grid the
/// hexes the segment only passes along an edge of, or through a vertex of, are not entered.
///
/// [`smooth_path`](crate::smooth_path) uses it so that a straight segment never enters terrain
/// costlier than the path it replaces.
///
/// ```
/// use astar_grid::{Cell, Grid, Movement, line_of_sight, line_of_sight_within};
///
/// let grid = Grid::from_ascii(
///     "....
///      .9..
///      ....",
/// )?;
/// let (a, b) = (Cell::new(0, 1), Cell::new(3, 1));
/// // The segment crosses the swamp cell (1, 1), which costs 9.
/// assert!(line_of_sight(&grid, a, b, Movement::EIGHT));
/// assert!(!line_of_sight_within(&grid, a, b, Movement::EIGHT, 8));
/// assert!(line_of_sight_within(&grid, a, b, Movement::EIGHT, 9));
/// // The diagonal step from (1, 0) to (2, 1) passes a corner of (1, 1) without entering it.
/// assert!(line_of_sight_within(&grid, Cell::new(1, 0), Cell::new(2, 1), Movement::EIGHT, 1));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn line_of_sight_within(
    grid: &Grid,
    a: Cell,
    b: Cell,
    movement: Movement,
    max_cost: u8,
) -> bool {
    let enterable = |x: u32, y: u32| {
        grid.cost(Cell::new(x, y))
            .is_some_and(|cost| cost <= max_cost)
    };
    if !enterable(a.x, a.y) || !enterable(b.x, b.y) {
        return false;
    }
    if movement.neighborhood == Neighborhood::Hex {
        return hex_line_of_sight(grid, a, b, max_cost);
    }
    let diagonal = diagonal_rule(movement);
    let step_x: i32 = if b.x >= a.x { 1 } else { -1 };
    let step_y: i32 = if b.y >= a.y { 1 } else { -1 };
    // With the segment parametrised by t in [0, 1], it crosses its k-th vertical grid line
    // (k = 1..=columns) at t = (2k - 1) / (2 * columns), and likewise for rows. Crossings are
    // compared by cross-multiplying those fractions. Both sides stay below 2^64: a grid has at
    // most 2^31 cells, so `columns` and `rows` are below 2^31 and `2k - 1` below 2^32.
    let columns = u64::from(a.x.abs_diff(b.x));
    let rows = u64::from(a.y.abs_diff(b.y));
    let (mut crossed_columns, mut crossed_rows) = (0u64, 0u64);
    let (mut x, mut y) = (a.x, a.y);
    while crossed_columns < columns || crossed_rows < rows {
        match next_crossing((crossed_columns, columns), (crossed_rows, rows)) {
            Ordering::Less => {
                x = x.wrapping_add_signed(step_x);
                crossed_columns += 1;
            }
            Ordering::Greater => {
                y = y.wrapping_add_signed(step_y);
                crossed_rows += 1;
            }
            Ordering::Equal => {
                if !corner_passable(grid, diagonal, (x, y), (step_x, step_y)) {
                    return false;
                }
                x = x.wrapping_add_signed(step_x);
                y = y.wrapping_add_signed(step_y);
                crossed_columns += 1;
                crossed_rows += 1;
            }
        }
        if !enterable(x, y) {
            return false;
        }
    }
    true
}

/// The rule for the grid corners a segment passes exactly through under `movement`: its own
/// corner rule, or no corner cutting for four-connected movement (which has no diagonal steps).
#[inline(always)]
fn diagonal_rule(movement: Movement) -> Movement {
    Movement::eight(match movement.neighborhood {
        Neighborhood::Four | Neighborhood::Hex => CornerRule::Both,
        Neighborhood::Eight => movement.corners,
    })
}

/// Which grid line the segment crosses next, from how many of its `columns` vertical lines and
/// `rows` horizontal lines it has crossed: `Less` a vertical one, `Greater` a horizontal one,
/// `Equal` both at once (a grid corner). At least one must be left to cross.
#[inline(always)]
fn next_crossing(
    (crossed_columns, columns): (u64, u64),
    (crossed_rows, rows): (u64, u64),
) -> Ordering {
    if crossed_columns == columns {
        Ordering::Greater
    } else if crossed_rows == rows {
        Ordering::Less
    } else {
        ((2 * crossed_columns + 1) * rows).cmp(&((2 * crossed_rows + 1) * columns))
    }
}

/// Whether `diagonal`'s corner rule lets a segment from the cell `(x, y)` pass the grid corner
/// it shares with the cell one `(step_x, step_y)` diagonal step away, given the two cells beside
/// that corner.
#[inline(always)]
fn corner_passable(
    grid: &Grid,
    diagonal: Movement,
    (x, y): (u32, u32),
    (step_x, step_y): (i32, i32),
) -> bool {
    let side_x = is_walkable_at(grid, x.wrapping_add_signed(step_x), y);
    let side_y = is_walkable_at(grid, x, y.wrapping_add_signed(step_y));
    diagonal.allows_step(1, 1, side_x, side_y)
}

fn is_walkable_at(grid: &Grid, x: u32, y: u32) -> bool {
    grid.is_walkable(Cell::new(x, y))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Grid {
        Grid::from_ascii(text).unwrap()
    }

    #[test]
    fn a_cell_sees_itself_only_when_walkable() {
        let grid = grid(".#");
        assert!(line_of_sight(
            &grid,
            Cell::new(0, 0),
            Cell::new(0, 0),
            Movement::EIGHT
        ));
        assert!(!line_of_sight(
            &grid,
            Cell::new(1, 0),
            Cell::new(1, 0),
            Movement::EIGHT
        ));
        assert!(!line_of_sight(
            &grid,
            Cell::new(0, 0),
            Cell::new(5, 0),
            Movement::EIGHT
        ));
    }

    #[test]
    fn corner_rules_decide_diagonal_crossings() {
        // (0, 0) to (2, 2) crosses the corners at (1, 1) and (2, 2) (in corner coordinates);
        // only the first has a blocked side cell, (1, 0).
        let one_side = grid(
            ".#.
             ...
             ...",
        );
        let (a, b) = (Cell::new(0, 0), Cell::new(2, 2));
        assert!(!line_of_sight(&one_side, a, b, Movement::EIGHT));
        assert!(!line_of_sight(&one_side, a, b, Movement::FOUR));
        assert!(line_of_sight(
            &one_side,
            a,
            b,
            Movement::eight(CornerRule::One)
        ));
        assert!(line_of_sight(
            &one_side,
            a,
            b,
            Movement::eight(CornerRule::Any)
        ));
        let both_sides = grid(
            ".#.
             #..
             ...",
        );
        assert!(!line_of_sight(
            &both_sides,
            a,
            b,
            Movement::eight(CornerRule::One)
        ));
        assert!(line_of_sight(
            &both_sides,
            a,
            b,
            Movement::eight(CornerRule::Any)
        ));
    }

    #[test]
    fn a_shallow_segment_enters_every_cell_it_crosses() {
        // From (0, 0) to (4, 1) the segment (slope 1/4) changes rows at x = 2.5, inside column 2:
        // it enters (0, 0), (1, 0), (2, 0), (2, 1), (3, 1) and (4, 1), but not (3, 0) or (1, 1).
        let (a, b) = (Cell::new(0, 0), Cell::new(4, 1));
        let beside = grid(
            "...#.
             .#...",
        );
        assert!(line_of_sight(&beside, a, b, Movement::EIGHT));
        let across = grid(
            "..#..
             .....",
        );
        assert!(!line_of_sight(
            &across,
            a,
            b,
            Movement::eight(CornerRule::Any)
        ));
        assert!(!line_of_sight(
            &across,
            b,
            a,
            Movement::eight(CornerRule::Any)
        ));
    }

    #[test]
    fn a_segment_through_a_corner_touches_both_side_cells() {
        // From (0, 0) to (3, 1) the segment's midpoint is the grid corner (2, 1): it touches
        // (2, 0) and (1, 1) there without entering them.
        let (a, b) = (Cell::new(0, 0), Cell::new(3, 1));
        let one_side = grid(
            "..#.
             ....",
        );
        assert!(!line_of_sight(&one_side, a, b, Movement::EIGHT));
        assert!(line_of_sight(
            &one_side,
            a,
            b,
            Movement::eight(CornerRule::One)
        ));
        let both_sides = grid(
            "..#.
             .#..",
        );
        assert!(!line_of_sight(
            &both_sides,
            a,
            b,
            Movement::eight(CornerRule::One)
        ));
        assert!(line_of_sight(
            &both_sides,
            a,
            b,
            Movement::eight(CornerRule::Any)
        ));
    }
}
