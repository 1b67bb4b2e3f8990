//! Where a path may enter or leave a sector: the entrances along its four sides, the gaps a
//! diagonal may squeeze through at its border, and the ends of links that leave it.

use super::local::Rect;
use crate::{Cell, Grid, Movement};

/// The cells of `rect`'s sector that the hierarchy keeps as nodes, sorted and without repeats,
/// written to `out`.
///
/// - **Entrances.** Along each side that has a neighbouring sector, the maximal runs of
///   positions where the cell inside and the cell across are both walkable. In each run the
///   inside cells at both ends, and every `spacing` cells from the first end, are nodes. The
///   neighbour finds the same runs from the same cells, so each node has its partner across.
/// - **Squeezes.** Under a movement that lets a diagonal pass between two blocked cells, a
///   border cell with such a diagonal step into another sector.
/// - **Link ends.** A cell of the sector at one end of an open link whose other end lies
///   outside it, even when an end is blocked (so that blocking a cell changes the nodes of
///   its own sector only).
pub(crate) fn sector_nodes(
    grid: &Grid,
    movement: Movement,
    rect: Rect,
    spacing: u32,
    out: &mut Vec<Cell>,
) {
    out.clear();
    side_entrances(grid, rect, spacing, out);
    if movement.allows_step(1, 1, false, false) {
        squeezes(grid, rect, out);
    }
    for step in grid.links.steps() {
        let from = grid.cell_at(step.from as usize);
        let to = grid.cell_at(step.to as usize);
        if rect.contains(from) != rect.contains(to) {
            out.push(if rect.contains(from) { from } else { to });
        }
    }
    out.sort_unstable_by_key(|cell| (cell.y, cell.x));
    out.dedup();
}

/// The entrances along the four sides of `rect`.
fn side_entrances(grid: &Grid, rect: Rect, spacing: u32, out: &mut Vec<Cell>) {
    let (min, max) = (rect.min, rect.max);
    let open = |x: u32, y: u32| grid.is_walkable(Cell::new(x, y));
    if min.x > 0 {
        runs(min.y..=max.y, spacing, |y| {
            open(min.x, y) && open(min.x - 1, y)
        })
        .for_each(|y| out.push(Cell::new(min.x, y)));
    }
    if max.x + 1 < grid.width() {
        runs(min.y..=max.y, spacing, |y| {
            open(max.x, y) && open(max.x + 1, y)
        })
        .for_each(|y| out.push(Cell::new(max.x, y)));
    }
    if min.y > 0 {
        runs(min.x..=max.x, spacing, |x| {
            open(x, min.y) && open(x, min.y - 1)
        })
        .for_each(|x| out.push(Cell::new(x, min.y)));
    }
    if max.y + 1 < grid.height() {
        runs(min.x..=max.x, spacing, |x| {
            open(x, max.y) && open(x, max.y + 1)
        })
        .for_each(|x| out.push(Cell::new(x, max.y)));
    }
}

/// The chosen positions of the runs of `positions` where `open` holds: each run's ends and
/// every `spacing` positions from its first.
fn runs(
    positions: core::ops::RangeInclusive<u32>,
    spacing: u32,
    open: impl Fn(u32) -> bool,
) -> impl Iterator<Item = u32> {
    let mut chosen = Vec::new();
    let mut start = None;
    let last = *positions.end();
    for position in positions {
        match (open(position), start) {
            (true, None) => start = Some(position),
            (false, Some(first)) => {
                place(first, position - 1, spacing, &mut chosen);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(first) = start {
        place(first, last, spacing, &mut chosen);
    }
    chosen.into_iter()
}

fn place(first: u32, last: u32, spacing: u32, chosen: &mut Vec<u32>) {
    chosen.extend((first..last).step_by(spacing.max(1) as usize));
    chosen.push(last);
}

/// The border cells of `rect` with a diagonal step into another sector between two blocked
/// cells.
fn squeezes(grid: &Grid, rect: Rect, out: &mut Vec<Cell>) {
    let border = (rect.min.x..=rect.max.x)
        .flat_map(|x| [Cell::new(x, rect.min.y), Cell::new(x, rect.max.y)])
        .chain(
            (rect.min.y..=rect.max.y)
                .flat_map(|y| [Cell::new(rect.min.x, y), Cell::new(rect.max.x, y)]),
        );
    for cell in border {
        if !grid.is_walkable(cell) {
            continue;
        }
        for (dx, dy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            let Some(next) = cell.offset(dx, dy) else {
                continue;
            };
            let blocked = |x, y| !grid.is_walkable(Cell::new(x, y));
            if !rect.contains(next)
                && grid.is_walkable(next)
                && blocked(next.x, cell.y)
                && blocked(cell.x, next.y)
            {
                out.push(cell);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(open: &[bool], spacing: u32) -> Vec<u32> {
        runs(0..=(open.len() as u32 - 1), spacing, |p| open[p as usize]).collect()
    }

    #[test]
    fn runs_keep_both_ends_and_every_spacing() {
        let open = [true, true, true, true, true, true, true, false, true, false];
        assert_eq!(chosen(&open, 3), [0, 3, 6, 8]);
        assert_eq!(chosen(&open, 8), [0, 6, 8]);
        assert_eq!(chosen(&[false; 4], 2), Vec::<u32>::new());
        assert_eq!(chosen(&[true; 4], 1), [0, 1, 2, 3]);
    }

    #[test]
    fn a_squeeze_is_a_node_only_where_diagonals_may_slip_between_walls() {
        // (1, 1) steps diagonally to (2, 2), outside the sector, between the walls (2, 1) and
        // (1, 2).
        let grid = Grid::from_ascii(
            "....
             ..#.
             .#..
             ....",
        )
        .expect("valid");
        let rect = Rect {
            min: Cell::new(0, 0),
            max: Cell::new(1, 1),
        };
        let mut nodes = Vec::new();
        sector_nodes(&grid, Movement::EIGHT, rect, 4, &mut nodes);
        assert_eq!(nodes, [Cell::new(1, 0), Cell::new(0, 1)]);
        sector_nodes(
            &grid,
            Movement::eight(crate::CornerRule::Any),
            rect,
            4,
            &mut nodes,
        );
        assert_eq!(nodes, [Cell::new(1, 0), Cell::new(0, 1), Cell::new(1, 1)]);
    }

    #[test]
    fn a_link_leaving_the_sector_makes_its_end_a_node() {
        let mut grid = Grid::from_ascii(
            "....
             ####
             ....",
        )
        .expect("valid");
        let rect = Rect {
            min: Cell::new(0, 0),
            max: Cell::new(3, 1),
        };
        grid.add_link(crate::Link::new(Cell::new(2, 0), Cell::new(2, 2), 1.0).one_way())
            .expect("open ends");
        let mut nodes = Vec::new();
        sector_nodes(&grid, Movement::EIGHT, rect, 4, &mut nodes);
        assert_eq!(nodes, [Cell::new(2, 0)]);
    }
}
