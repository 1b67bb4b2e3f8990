//! Path smoothing: terrain-aware line-of-sight string pulling that turns a grid path into a few
//! waypoints.

mod hex_line_of_sight;
mod line_of_sight;

pub use line_of_sight::{line_of_sight, line_of_sight_within};

pub use crate::cell::Waypoint;
use crate::{Cell, Grid, Movement, Neighborhood};
use core::f64::consts::SQRT_2;
use core::num::NonZeroUsize;

/// How [`smooth_path`] may shorten a path.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SmoothingOptions {
    /// The longest segment allowed between two waypoints, in cells (straight-line distance
    /// between cell centres), or `None` for no limit. A limit keeps waypoints close enough
    /// together for agents that steer from one to the next. It must be finite and at least
    /// `sqrt(2)`, the length of a diagonal step, so that every path can be followed.
    pub max_segment: Option<f64>,
    /// How many later path cells to consider from each waypoint, or `None` for the whole rest of
    /// the path. Smoothing costs `O(waypoints * lookahead)` line-of-sight checks, so a limit
    /// (a few dozen cells) bounds the work on very long, winding paths at the price of keeping a
    /// waypoint where the path leaves and re-enters view farther ahead.
    pub max_lookahead: Option<NonZeroUsize>,
}

impl SmoothingOptions {
    /// Limits segments to `max` cells.
    #[must_use]
    pub const fn with_max_segment(mut self, max: f64) -> Self {
        self.max_segment = Some(max);
        self
    }

    /// Considers at most `cells` later path cells from each waypoint.
    #[must_use]
    pub const fn with_max_lookahead(mut self, cells: NonZeroUsize) -> Self {
        self.max_lookahead = Some(cells);
        self
    }
}

/// Why a path could not be smoothed.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SmoothingError {
    /// The path has no cells.
    #[error("the path is empty")]
    EmptyPath,
    /// The maximum segment length is not finite or is shorter than a diagonal step.
    #[error("invalid maximum segment length {0}: it must be finite and at least sqrt(2)")]
    InvalidMaxSegment(f64),
    /// A cell of the path lies outside the grid.
    #[error("path cell {index}, {cell}, is outside the grid")]
    OutOfBounds {
        /// Position of the cell in the path.
        index: usize,
        /// The cell.
        cell: Cell,
    },
    /// A cell of the path is blocked.
    #[error("path cell {index}, {cell}, is blocked")]
    Blocked {
        /// Position of the cell in the path.
        index: usize,
        /// The cell.
        cell: Cell,
    },
    /// Two consecutive cells of the path are not neighbours under the movement rule (or are
    /// the same cell): under four-connected movement, diagonal neighbours are not neighbours.
    #[error("path cells {index} and {} are not neighbours", index + 1)]
    NotAdjacent {
        /// Position of the first of the two cells in the path.
        index: usize,
    },
    /// A diagonal step of the path passes a corner that the movement rule does not allow.
    #[error("the diagonal step from path cell {index} cuts a blocked corner")]
    CornerBlocked {
        /// Position of the step's first cell in the path.
        index: usize,
    },
}

/// Smooths a grid path by string pulling and returns its waypoints as cell centres (see
/// [`Waypoint`]): the first is the centre of the path's first cell, the last the centre of its
/// last cell, and every waypoint is the centre of a path cell, in path order.
///
/// From each waypoint the next one is the farthest later path cell in
/// [`line_of_sight`] under `movement` (within [`SmoothingOptions::max_segment`] and
/// [`SmoothingOptions::max_lookahead`]), so the
/// straight segments between waypoints never cross a blocked cell or pass a corner the
/// movement rule forbids, and the smoothed route is never longer than the grid path. `path` must
/// be a path of neighbouring walkable cells that can be walked under `movement`, as
/// [`Searcher::find_path`](crate::Searcher::find_path) returns with the same movement rule.
///
/// Smoothing respects terrain costs: a segment from one path cell to a later one replaces the
/// stretch of path between them (both included), and it is taken only when every cell it enters
/// costs at most the costliest cell of that stretch (see [`line_of_sight_within`]). A path that
/// goes around a swamp is therefore never pulled through it, while a path that crosses a swamp
/// may still be straightened within it. The limit is on the costliest cell a segment enters,
/// not on its total cost: a segment that replaces a stretch with one costly cell may enter
/// several cells of that cost (crossing a swamp band at a slant, say). On a grid without
/// terrain costs every walkable cell qualifies.
///
/// Cost: each waypoint checks the later path cells from the far end until one is visible, each
/// check walking at most the segment's length and stopping at its first blocked or too costly
/// cell: up to `O(w * n * d)` for `n` path cells, `w` waypoints and segments `d` cells long.
/// That is nothing next to the search for the paths of moving agents; on very long winding
/// paths (thousands of cells through a maze) set [`SmoothingOptions::max_lookahead`] to make it
/// `O(w * k * d)`.
///
/// ```
/// use astar_grid::{Cell, Grid, Movement, SearchOptions, Searcher, SmoothingOptions, Waypoint, smooth_path};
///
/// let grid = Grid::from_ascii(
///     "........
///      ........
///      ...##...
///      ........",
/// )?;
/// let (start, goal) = (Cell::new(0, 3), Cell::new(7, 0));
/// let path = Searcher::new()
///     .find_path(&grid, start, goal, &SearchOptions::default())?
///     .path
///     .expect("reachable");
/// let waypoints = smooth_path(&grid, &path.cells, Movement::EIGHT, SmoothingOptions::default())?;
/// assert_eq!(waypoints.first(), Some(&Waypoint::new(0.5, 3.5)));
/// assert_eq!(waypoints.last(), Some(&Waypoint::new(7.5, 0.5)));
/// assert!(waypoints.len() < path.cells.len());
///
/// let short = smooth_path(&grid, &path.cells, Movement::EIGHT, SmoothingOptions::default().with_max_segment(3.0))?;
/// assert!(short.windows(2).all(|pair| pair[0].distance(pair[1]) <= 3.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A step between two cells that are not neighbours, or whose diagonal the movement rule
/// forbids, is a link step when the grid has an open link from the first to the second
/// ([`Grid::add_link`]): both its ends are kept, and no segment crosses it, so a smoothed path
/// takes the same links as the grid path.
///
/// # Errors
/// [`SmoothingError`] for an empty path, an invalid maximum segment length, or a path that is not
/// a walkable sequence of neighbouring cells under `movement` (or of cells joined by open
/// links).
pub fn smooth_path(
    grid: &Grid,
    path: &[Cell],
    movement: Movement,
    options: SmoothingOptions,
) -> Result<Vec<Waypoint>, SmoothingError> {
    Ok(smooth_path_cells(grid, path, movement, options)?
        .into_iter()
        .map(Waypoint::center_of)
        .collect())
}

/// The cells whose centres [`smooth_path`] returns as waypoints: the path cells it keeps, in
/// order, first and last included.
///
/// ```
/// use astar_grid::{Cell, Grid, Movement, SmoothingOptions, smooth_path_cells};
///
/// let grid = Grid::new(5, 5);
/// let stairs = [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2), (3, 2)].map(Cell::from);
/// let kept = smooth_path_cells(&grid, &stairs, Movement::EIGHT, SmoothingOptions::default())?;
/// assert_eq!(kept, [Cell::new(0, 0), Cell::new(3, 2)]);
///
/// // A path around a swamp (cost 9) keeps the waypoints that stop it cutting through.
/// let marsh = Grid::from_ascii(
///     ".....
///      .999.
///      .....",
/// )?;
/// let around = [(0, 1), (1, 0), (2, 0), (3, 0), (4, 1)].map(Cell::from);
/// let kept = smooth_path_cells(&marsh, &around, Movement::EIGHT, SmoothingOptions::default())?;
/// assert_eq!(kept, [(0, 1), (1, 0), (3, 0), (4, 1)].map(Cell::from));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`smooth_path`].
pub fn smooth_path_cells(
    grid: &Grid,
    path: &[Cell],
    movement: Movement,
    options: SmoothingOptions,
) -> Result<Vec<Cell>, SmoothingError> {
    let max_segment = match options.max_segment {
        None => f64::INFINITY,
        Some(max) if max.is_finite() && max >= SQRT_2 => max,
        Some(max) => return Err(SmoothingError::InvalidMaxSegment(max)),
    };
    let link_steps = validate_path(grid, path, movement)?;
    let mut link_steps = link_steps.iter().copied().peekable();
    let last = path.len() - 1;
    let lookahead = options.max_lookahead.map_or(usize::MAX, NonZeroUsize::get);
    let mut kept = vec![path[0]];
    let mut anchor = 0;
    // `stretch_max[i]`: the costliest cell of `path[anchor..=anchor + i]`.
    let mut stretch_max = Vec::new();
    while anchor < last {
        let from = path[anchor];
        // No segment crosses a link step: it ends at the step's first cell, and from there the
        // step itself is the next segment.
        while link_steps.next_if(|&step| step < anchor).is_some() {}
        let before_link = match link_steps.peek() {
            Some(&step) if step == anchor => anchor + 1,
            Some(&step) => step,
            None => last,
        };
        let end = last.min(anchor.saturating_add(lookahead)).min(before_link);
        stretch_max.clear();
        stretch_max.extend(path[anchor..=end].iter().scan(0, |max, &cell| {
            *max = grid.value(cell).max(*max);
            Some(*max)
        }));
        // The next cell always qualifies: it is a valid step no longer than sqrt(2) that enters
        // only its own two cells.
        let next = (anchor + 2..=end)
            .rev()
            .find(|&candidate| {
                let to = path[candidate];
                cell_distance(from, to, movement.neighborhood) <= max_segment
                    && line_of_sight_within(
                        grid,
                        from,
                        to,
                        movement,
                        stretch_max[candidate - anchor],
                    )
            })
            .unwrap_or(anchor + 1);
        kept.push(path[next]);
        anchor = next;
    }
    Ok(kept)
}

/// The distance between the centres of two cells, one cell apart for straight neighbours (on a
/// hexagonal grid, for any two neighbours).
fn cell_distance(a: Cell, b: Cell, neighborhood: Neighborhood) -> f64 {
    let dx = f64::from(a.x) - f64::from(b.x);
    let dy = f64::from(a.y) - f64::from(b.y);
    if neighborhood == Neighborhood::Hex {
        crate::hex::center_distance(dx, dy)
    } else {
        (dx * dx + dy * dy).sqrt()
    }
}

/// Checks that `path` is a non-empty sequence of walkable cells, each a neighbour of the next
/// under `movement` with the step in line of sight under it, or joined to it by an open link;
/// returns the indices of the link steps (the first cell of each), in order.
fn validate_path(
    grid: &Grid,
    path: &[Cell],
    movement: Movement,
) -> Result<Vec<usize>, SmoothingError> {
    if path.is_empty() {
        return Err(SmoothingError::EmptyPath);
    }
    for (index, &cell) in path.iter().enumerate() {
        if !grid.contains(cell) {
            return Err(SmoothingError::OutOfBounds { index, cell });
        }
        if !grid.is_walkable(cell) {
            return Err(SmoothingError::Blocked { index, cell });
        }
    }
    let mut link_steps = Vec::new();
    for (index, step) in path.windows(2).enumerate() {
        let (from, to) = (step[0], step[1]);
        let neighbours = movement.neighborhood.are_neighbours(from, to);
        let walks = neighbours && line_of_sight(grid, from, to, movement);
        if walks {
            continue;
        }
        if grid.has_open_link(from, to) {
            link_steps.push(index);
        } else if !neighbours {
            return Err(SmoothingError::NotAdjacent { index });
        } else {
            return Err(SmoothingError::CornerBlocked { index });
        }
    }
    Ok(link_steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CornerRule;

    fn cells(list: &[(u32, u32)]) -> Vec<Cell> {
        list.iter().copied().map(Cell::from).collect()
    }

    #[test]
    fn bad_input_is_refused_with_the_reason() {
        let grid = Grid::from_ascii(
            ".#.
             #..",
        )
        .unwrap();
        let smooth = |path: &[Cell], options| {
            smooth_path_cells(&grid, path, Movement::EIGHT, options).map(|_| ())
        };
        let options = SmoothingOptions::default();
        assert_eq!(smooth(&[], options), Err(SmoothingError::EmptyPath));
        assert_eq!(
            smooth(&cells(&[(0, 0)]), options.with_max_segment(1.0)),
            Err(SmoothingError::InvalidMaxSegment(1.0))
        );
        assert!(matches!(
            smooth(&cells(&[(0, 0)]), options.with_max_segment(f64::NAN)),
            Err(SmoothingError::InvalidMaxSegment(_))
        ));
        assert_eq!(
            smooth(&cells(&[(2, 1), (3, 1)]), options),
            Err(SmoothingError::OutOfBounds {
                index: 1,
                cell: Cell::new(3, 1)
            })
        );
        assert_eq!(
            smooth(&cells(&[(2, 0), (1, 0)]), options),
            Err(SmoothingError::Blocked {
                index: 1,
                cell: Cell::new(1, 0)
            })
        );
        assert_eq!(
            smooth(&cells(&[(2, 0), (2, 1), (2, 1)]), options),
            Err(SmoothingError::NotAdjacent { index: 1 })
        );
        assert_eq!(
            smooth(&cells(&[(0, 0), (1, 1)]), options),
            Err(SmoothingError::CornerBlocked { index: 0 })
        );
        assert_eq!(
            smooth_path_cells(
                &grid,
                &cells(&[(0, 0), (1, 1)]),
                Movement::eight(CornerRule::Any),
                options
            ),
            Ok(cells(&[(0, 0), (1, 1)]))
        );
    }

    #[test]
    fn a_single_cell_path_is_one_waypoint() {
        let grid = Grid::new(2, 2);
        let waypoints = smooth_path(
            &grid,
            &cells(&[(1, 0)]),
            Movement::FOUR,
            SmoothingOptions::default(),
        )
        .unwrap();
        assert_eq!(waypoints, [Waypoint::new(1.5, 0.5)]);
    }

    #[test]
    fn a_visible_goal_is_reached_in_one_segment_unless_limited() {
        let grid = Grid::new(10, 3);
        let path: Vec<Cell> = (0..10).map(|x| Cell::new(x, 1)).collect();
        let kept = smooth_path_cells(&grid, &path, Movement::FOUR, SmoothingOptions::default());
        assert_eq!(kept, Ok(cells(&[(0, 1), (9, 1)])));
        let limited = smooth_path_cells(
            &grid,
            &path,
            Movement::FOUR,
            SmoothingOptions::default().with_max_segment(4.0),
        );
        assert_eq!(limited, Ok(cells(&[(0, 1), (4, 1), (8, 1), (9, 1)])));
        let near = smooth_path_cells(
            &grid,
            &path,
            Movement::FOUR,
            SmoothingOptions::default().with_max_lookahead(NonZeroUsize::new(3).unwrap()),
        );
        assert_eq!(near, Ok(cells(&[(0, 1), (3, 1), (6, 1), (9, 1)])));
    }

    #[test]
    fn a_pillar_keeps_the_corner_waypoint() {
        // The path goes around the pillar at (2, 1): (0, 1) cannot see (4, 1) or (3, 0).
        let grid = Grid::from_ascii(
            ".....
             ..#..
             .....",
        )
        .unwrap();
        let path = cells(&[(0, 1), (1, 0), (2, 0), (3, 0), (4, 1)]);
        let kept =
            smooth_path_cells(&grid, &path, Movement::EIGHT, SmoothingOptions::default()).unwrap();
        assert_eq!(kept.first(), Some(&Cell::new(0, 1)));
        assert_eq!(kept.last(), Some(&Cell::new(4, 1)));
        assert!(kept.len() >= 3, "{kept:?} cuts through the pillar");
    }
}
