//! Walls for the crowd: blocked cells as ORCA half-planes, moving a disc without entering a
//! blocked cell, and pushing a disc out of cells that were blocked under it.
//!
//! A blocked cell (grid byte 0) is the closed square `[x, x + 1] x [y, y + 1]`; everything
//! outside the grid counts as blocked. A disc of radius `r` centred at `p` *overlaps* a blocked
//! square when the distance from `p` to the square is below `r`; touching is allowed. A disc
//! *fits* ([`disc_fits`]) when it overlaps no blocked square. Radii below [`MIN_RADIUS`] count
//! as [`MIN_RADIUS`].
//!
//! Coordinates are `f32` cell units: below 4,096 cells from the origin, rounding stays under
//! the [`WALL_SKIN`] the mover keeps from walls.

use super::{HalfPlane, Vector};
use crate::Grid;

/// The smallest radius the wall functions work with; smaller radii count as this one.
pub const MIN_RADIUS: f32 = 0.01;

/// The gap [`move_within_walls`] leaves between a disc it stops and the wall that stopped it, in
/// cells: a disc resting against a wall then does not touch it, so moving along the wall later
/// does not catch on the next cell of the same wall through rounding.
pub const WALL_SKIN: f32 = 1e-3;

/// How far inside a blocked square a disc may start and still count as merely touching it.
const TOUCH_TOLERANCE: f32 = 1e-4;

/// Whether cell (`x`, `y`) is blocked; cells outside the grid are.
fn is_blocked(grid: &Grid, x: i64, y: i64) -> bool {
    let (Ok(column), Ok(row)) = (usize::try_from(x), usize::try_from(y)) else {
        return true;
    };
    if column >= grid.width() as usize || row >= grid.height() as usize {
        return true;
    }
    grid.raw()[(row + 1) * grid.stride() + column + 1] == 0
}

/// The whole number at or below `value`, saturating at the ends of `i64` (NaN gives 0).
#[expect(
    clippy::cast_possible_truncation,
    reason = "the cast saturates, and callers bound the coordinates first"
)]
fn floor_cell(value: f32) -> i64 {
    value.floor() as i64
}

/// A cell coordinate as `f32` (exact: callers bound coordinates well below 2^24).
#[expect(
    clippy::cast_precision_loss,
    reason = "coordinates are bounded far below 2^24"
)]
fn cell_coordinate(value: i64) -> f32 {
    value as f32
}

/// The distance from `value` to the interval `[low, low + 1]` (0 inside it).
fn gap_to_cell(value: f32, low: f32) -> f32 {
    (low - value).max(value - (low + 1.0)).max(0.0)
}

/// The point of square (`x`, `y`) nearest to `position`.
fn closest_point(position: Vector, x: i64, y: i64) -> Vector {
    let (low_x, low_y) = (cell_coordinate(x), cell_coordinate(y));
    Vector::new(
        position.x.clamp(low_x, low_x + 1.0),
        position.y.clamp(low_y, low_y + 1.0),
    )
}

/// Whether the disc of `radius` at `position` could ever fit on `grid` as far as its size and
/// distance from the grid go (the disc must fit inside the grid's rectangle).
fn within_grid(grid: &Grid, position: Vector, radius: f32) -> bool {
    #[expect(
        clippy::cast_precision_loss,
        reason = "a bound needs no precision; sides above 2^24 are already beyond f32 cells"
    )]
    let (width, height) = (grid.width() as f32, grid.height() as f32);
    position.is_finite()
        && position.x - radius >= 0.0
        && position.y - radius >= 0.0
        && position.x + radius <= width
        && position.y + radius <= height
}

/// Whether the disc of `radius` centred at `position` overlaps no blocked cell and stays inside
/// the grid (touching a wall or the edge is allowed).
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{Vector, disc_fits};
///
/// let grid = Grid::from_ascii("...\n.#.\n...")?;
/// assert!(disc_fits(&grid, Vector::new(0.5, 0.5), 0.5)); // touches the wall and the edge
/// assert!(!disc_fits(&grid, Vector::new(0.5, 0.5), 0.6)); // pokes out of the grid
/// assert!(!disc_fits(&grid, Vector::new(1.5, 0.6), 0.45)); // overlaps the wall
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn disc_fits(grid: &Grid, position: Vector, radius: f32) -> bool {
    let radius = radius.max(MIN_RADIUS);
    if !within_grid(grid, position, radius) {
        return false;
    }
    let radius_squared = radius * radius;
    for y in floor_cell(position.y - radius)..=floor_cell(position.y + radius) {
        for x in floor_cell(position.x - radius)..=floor_cell(position.x + radius) {
            if is_blocked(grid, x, y)
                && (closest_point(position, x, y) - position).length_squared() < radius_squared
            {
                return false;
            }
        }
    }
    true
}

/// Whether a disc of `radius` moving in a straight line from `from` to `to` overlaps no blocked
/// cell and stays inside the grid on the way (touching a wall or the edge is allowed): where
/// [`disc_fits`] asks of one position, this asks of every position on the segment. An agent
/// steering straight for a point it passes this test for is not caught on a corner.
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{Vector, disc_passes};
///
/// // A wall at (2, 1): along row 0 a disc of radius 0.45 passes it, a disc from row 0 to
/// // row 2 across its column does not.
/// let grid = Grid::from_ascii(".....\n..#..\n.....")?;
/// assert!(disc_passes(&grid, Vector::new(0.5, 0.5), Vector::new(4.5, 0.5), 0.45));
/// assert!(!disc_passes(&grid, Vector::new(0.5, 0.5), Vector::new(4.5, 2.5), 0.45));
/// // A thin disc passes the wall's corner the thick one would clip.
/// assert!(!disc_passes(&grid, Vector::new(1.5, 0.5), Vector::new(3.5, 0.9), 0.45));
/// assert!(disc_passes(&grid, Vector::new(1.5, 0.5), Vector::new(3.5, 0.9), 0.05));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn disc_passes(grid: &Grid, from: Vector, to: Vector, radius: f32) -> bool {
    let radius = radius.max(MIN_RADIUS);
    // The grid's rectangle shrunk by the radius is convex: both ends inside it keep the whole
    // segment inside.
    if !(within_grid(grid, from, radius) && within_grid(grid, to, radius)) {
        return false;
    }
    // Row by row, the squares within `radius` of the part of the segment near the row: each
    // square the moving disc could overlap is looked at once.
    let delta = to - from;
    let rows = floor_cell(from.y.min(to.y) - radius)..=floor_cell(from.y.max(to.y) + radius);
    rows.into_iter().all(|y| {
        let Some((enter, leave)) = span_near_row(from.y, delta.y, cell_coordinate(y), radius)
        else {
            return true;
        };
        let (a, b) = (from.x + delta.x * enter, from.x + delta.x * leave);
        let columns = floor_cell(a.min(b) - radius)..=floor_cell(a.max(b) + radius);
        columns
            .into_iter()
            .all(|x| !is_blocked(grid, x, y) || segment_square_distance(from, to, x, y) >= radius)
    })
}

/// The part `[enter, leave]` of the segment's parameter (0 to 1) where its `y`, starting at
/// `start` and changing by `delta`, lies within `radius` of row `[row, row + 1]`; `None` when
/// no part does.
fn span_near_row(start: f32, delta: f32, row: f32, radius: f32) -> Option<(f32, f32)> {
    let (low, high) = (row - radius, row + 1.0 + radius);
    if delta == 0.0 {
        return (low..=high).contains(&start).then_some((0.0, 1.0));
    }
    let (t0, t1) = ((low - start) / delta, (high - start) / delta);
    let (enter, leave) = (t0.min(t1).max(0.0), t0.max(t1).min(1.0));
    (enter <= leave).then_some((enter, leave))
}

/// The distance from the segment `from`-`to` to square (`x`, `y`): 0 when they meet, else the
/// least of the ends' distances to the square and the corners' distances to the segment.
fn segment_square_distance(from: Vector, to: Vector, x: i64, y: i64) -> f32 {
    let low = Vector::new(cell_coordinate(x), cell_coordinate(y));
    if segment_meets_square(from, to, low) {
        return 0.0;
    }
    let ends = [from, to].map(|end| (closest_point(end, x, y) - end).length());
    let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
        .map(|(dx, dy)| point_segment_distance(low + Vector::new(dx, dy), from, to));
    ends.into_iter()
        .chain(corners)
        .fold(f32::INFINITY, f32::min)
}

/// Whether the segment `from`-`to` meets the unit square with lower corner `low` (clipping the
/// segment's parameter against the square's four sides).
fn segment_meets_square(from: Vector, to: Vector, low: Vector) -> bool {
    let delta = to - from;
    let (mut enter, mut leave) = (0.0_f32, 1.0_f32);
    let sides = [
        (-delta.x, from.x - low.x),
        (delta.x, low.x + 1.0 - from.x),
        (-delta.y, from.y - low.y),
        (delta.y, low.y + 1.0 - from.y),
    ];
    for (direction, room) in sides {
        if direction == 0.0 {
            if room < 0.0 {
                return false;
            }
        } else if direction < 0.0 {
            enter = enter.max(room / direction);
        } else {
            leave = leave.min(room / direction);
        }
    }
    enter <= leave
}

/// The distance from `point` to the segment `from`-`to`.
fn point_segment_distance(point: Vector, from: Vector, to: Vector) -> f32 {
    let delta = to - from;
    let length_squared = delta.length_squared();
    let along = if length_squared > 0.0 {
        ((point - from).dot(delta) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (from + delta * along - point).length()
}

/// Scratch memory for [`wall_half_planes`]: the blocked cells in range and the accepted faces.
#[derive(Clone, Debug, Default)]
pub(crate) struct WallScratch {
    /// Blocked cells in range: squared distance, column, row.
    cells: Vec<(f32, i64, i64)>,
    /// Accepted constraints: the nearest point of the square and the unit normal towards the
    /// agent.
    faces: Vec<(Vector, Vector)>,
}

/// Appends to `out` the ORCA half-planes that keep a disc of `radius` at `position`, moving at
/// most `max_speed`, off the blocked cells for `wall_time_horizon` seconds.
///
/// For a blocked square with nearest point `q` at distance `d` from the position, and
/// `n = (position - q) / d`, the constraint is `n . v >= -max(d - radius, 0) / wall_time_horizon`.
/// It is sound: the square is convex, so it lies in the half-plane `n . (x - q) <= 0` behind
/// `q`; under the constraint the centre's distance to that half-plane stays at least
/// `d - t (d - radius) / horizon >= radius` for every `t` up to the horizon, so the disc
/// reaches neither the half-plane nor the square. Only the approach speed is limited (to the
/// gap over the horizon): motion along the wall is free, so agents slow down as they near a
/// wall and slide along it. The half-plane is conservative near a convex corner (it forbids
/// some velocities that would slip past the corner), which makes agents round corners with a
/// little room. `v = 0` satisfies every such constraint, so together they are always feasible
/// and the solver never has to relax one.
///
/// Cells farther than `wall_time_horizon * max_speed + radius` cannot be reached within the
/// horizon and are skipped. The others are taken nearest first, and a square that lies
/// entirely behind an already accepted half-plane is skipped as well, because that constraint
/// already keeps the disc off it: a straight wall of many cells gives one constraint, an inner
/// corner two. A square containing the centre (an illegal position) takes its normal from the
/// square's centre.
pub(crate) fn wall_half_planes(
    grid: &Grid,
    (position, radius, max_speed): (Vector, f32, f32),
    wall_time_horizon: f32,
    scratch: &mut WallScratch,
    out: &mut Vec<HalfPlane>,
) {
    let radius = radius.max(MIN_RADIUS);
    let horizon = wall_time_horizon.max(super::MIN_TIME_HORIZON);
    let reach = horizon * max_speed.max(0.0) + radius;
    if !position.is_finite() || !reach.is_finite() {
        return;
    }
    if no_blocked_cell_near(grid, position, reach) {
        return;
    }
    collect_blocked_cells(grid, position, reach, &mut scratch.cells);
    scratch.faces.clear();
    for &(_, x, y) in &scratch.cells {
        let corner = Vector::new(cell_coordinate(x), cell_coordinate(y));
        let shadowed = scratch.faces.iter().any(|&(point, normal)| {
            normal.dot(corner - point) + normal.x.max(0.0) + normal.y.max(0.0) <= 1e-5
        });
        if shadowed {
            continue;
        }
        let point = closest_point(position, x, y);
        let offset = position - point;
        let distance = offset.length();
        let normal = if distance > 1e-6 {
            offset / distance
        } else {
            (position - corner - Vector::new(0.5, 0.5)).normalize_or_zero()
        };
        if normal == Vector::ZERO {
            continue;
        }
        scratch.faces.push((point, normal));
        out.push(HalfPlane::from_normal(
            normal,
            -(distance - radius).max(0.0) / horizon,
        ));
    }
}

/// Whether no blocked cell (outside ones included) lies in the box of cells that
/// [`collect_blocked_cells`] scans for `reach` around `position`: the grid's rows under the box
/// hold no zero byte. The grid's buffer keeps a blocked border, which stands for every cell
/// outside, so the test reads one run of bytes per row; for most agents, away from walls, it
/// is all the wall planning costs.
fn no_blocked_cell_near(grid: &Grid, position: Vector, reach: f32) -> bool {
    let raw = grid.raw();
    if raw.is_empty() {
        return false;
    }
    let (width, height) = (i64::from(grid.width()), i64::from(grid.height()));
    // Cells from -1 to the side are the border and the grid; in the buffer they are columns
    // (and rows) 0 to side + 1.
    let buffer_index =
        |value: f32, side: i64| usize::try_from(floor_cell(value).clamp(-1, side) + 1).unwrap_or(0);
    let (first_column, last_column) = (
        buffer_index(position.x - reach, width),
        buffer_index(position.x + reach, width),
    );
    let (first_row, last_row) = (
        buffer_index(position.y - reach, height),
        buffer_index(position.y + reach, height),
    );
    let stride = grid.stride();
    (first_row..=last_row).all(|row| {
        raw.get(row * stride + first_column..=row * stride + last_column)
            .is_some_and(|bytes| !bytes.contains(&0))
    })
}

/// Writes to `cells` the blocked cells (outside ones included) whose squares are within `reach`
/// of `position`, nearest first (then by row and column).
fn collect_blocked_cells(
    grid: &Grid,
    position: Vector,
    reach: f32,
    cells: &mut Vec<(f32, i64, i64)>,
) {
    cells.clear();
    // Cells beyond the ring just outside the grid lie behind that ring's squares.
    let (width, height) = (i64::from(grid.width()), i64::from(grid.height()));
    let clamp_x = |value: f32| floor_cell(value).clamp(-1, width);
    let clamp_y = |value: f32| floor_cell(value).clamp(-1, height);
    let reach_squared = reach * reach;
    for y in clamp_y(position.y - reach)..=clamp_y(position.y + reach) {
        let dy = gap_to_cell(position.y, cell_coordinate(y));
        if dy * dy > reach_squared {
            continue;
        }
        for x in clamp_x(position.x - reach)..=clamp_x(position.x + reach) {
            if !is_blocked(grid, x, y) {
                continue;
            }
            let dx = gap_to_cell(position.x, cell_coordinate(x));
            let distance_squared = dx * dx + dy * dy;
            if distance_squared <= reach_squared {
                cells.push((distance_squared, x, y));
            }
        }
    }
    cells.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)).then(a.1.cmp(&b.1)));
}

/// Moves the disc of `radius` at `position` by `displacement` without letting it overlap a
/// blocked cell or leave the grid, and returns its new position.
///
/// The move is swept, one axis at a time, the axis of the larger component first: along each
/// axis the disc goes as far as asked or stops [`WALL_SKIN`] short of the first blocked square
/// in its way, so it never passes through a wall however long the displacement, and when one
/// axis is stopped the other still moves, so the disc slides along walls. When nothing is in
/// the way the result is exactly `position + displacement`. Squares the disc already overlaps
/// at the start (a cell blocked under it) do not stop it, so it can move out of them; use
/// [`nearest_legal_position`] to place it legally first. A position that is not finite or not
/// inside the grid, or a displacement that is not finite, leaves the position unchanged.
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{Vector, WALL_SKIN, move_within_walls};
///
/// // A wall in column 3: the disc stops against it and slides down along it.
/// let grid = Grid::from_ascii("...#..\n...#..\n......")?;
/// let start = Vector::new(1.5, 0.5);
/// let moved = move_within_walls(&grid, start, 0.4, Vector::new(4.0, 1.0));
/// assert!((moved.x - (3.0 - 0.4 - WALL_SKIN)).abs() < 1e-5);
/// assert_eq!(moved.y, 1.5);
/// // On open ground the move is exact.
/// assert_eq!(move_within_walls(&grid, start, 0.4, Vector::new(0.5, 1.25)), Vector::new(2.0, 1.75));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn move_within_walls(
    grid: &Grid,
    position: Vector,
    radius: f32,
    displacement: Vector,
) -> Vector {
    let radius = radius.max(MIN_RADIUS);
    let slack = radius + 1.0;
    #[expect(clippy::cast_precision_loss, reason = "a bound needs no precision")]
    let inside = position.is_finite()
        && position.x >= -slack
        && position.y >= -slack
        && position.x <= grid.width() as f32 + slack
        && position.y <= grid.height() as f32 + slack
        && radius <= grid.width().max(grid.height()) as f32;
    if !inside || !displacement.is_finite() {
        return position;
    }
    let mut moved = position;
    if displacement.x.abs() >= displacement.y.abs() {
        moved.x = sweep(grid, moved, radius, displacement.x, Axis::X);
        moved.y = sweep(grid, moved, radius, displacement.y, Axis::Y);
    } else {
        moved.y = sweep(grid, moved, radius, displacement.y, Axis::Y);
        moved.x = sweep(grid, moved, radius, displacement.x, Axis::X);
    }
    moved
}

/// The axis a sweep moves along.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Axis {
    /// Along the columns.
    X,
    /// Along the rows.
    Y,
}

/// The coordinate along `axis` that the disc at `position` reaches moving `delta` along it.
fn sweep(grid: &Grid, position: Vector, radius: f32, delta: f32, axis: Axis) -> f32 {
    let (along, across) = match axis {
        Axis::X => (position.x, position.y),
        Axis::Y => (position.y, position.x),
    };
    if delta == 0.0 {
        return along;
    }
    let target = along + delta;
    // Work mirrored so that the motion is towards +infinity: cell c of the mirrored line is
    // cell -c - 1 of the real one.
    let sign = delta.signum();
    let start = along * sign;
    let end = target * sign;
    let blocked = |cell: i64, line: i64| {
        let cell = if sign > 0.0 { cell } else { -cell - 1 };
        match axis {
            Axis::X => is_blocked(grid, cell, line),
            Axis::Y => is_blocked(grid, line, cell),
        }
    };
    let lines = floor_cell(across - radius)..=floor_cell(across + radius);
    let radius_squared = radius * radius;
    let mut contact = f32::INFINITY;
    let mut cell = floor_cell(start);
    while cell_coordinate(cell) - radius <= contact.min(end + WALL_SKIN) {
        for line in lines.clone() {
            let gap = gap_to_cell(across, cell_coordinate(line));
            if gap >= radius || !blocked(cell, line) {
                continue;
            }
            let touch = cell_coordinate(cell) - (radius_squared - gap * gap).sqrt();
            if touch >= start - TOUCH_TOLERANCE {
                contact = contact.min(touch);
            }
        }
        cell += 1;
    }
    let stop = contact - WALL_SKIN;
    if end <= stop {
        target
    } else {
        stop.max(start) * sign
    }
}

/// The point nearest to `position`, at most `max_distance` from it, at which the disc of
/// `radius` fits ([`disc_fits`]): `position` itself when the disc fits there, else the nearest
/// point of the half-cell lattice (both coordinates multiples of 1/2: cell centres, edge
/// midpoints and corners, where the footprints of odd and even sized agents are centred)
/// where it fits; of several at exactly the same distance, the one of the lowest `y`, then of
/// the lowest `x`. `None` when there is none within `max_distance`.
///
/// This is what an agent needs when a cell under it was just blocked: the search runs ring by
/// ring outwards from the position and stops at the first ring farther than the best point, so
/// it costs little when a legal point is near; at worst it visits every lattice point within
/// `max_distance` (bounded by the grid).
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{Vector, nearest_legal_position};
///
/// // A tower landed on cell (1, 1), under the agent.
/// let grid = Grid::from_ascii("....\n.#..\n....")?;
/// let pushed = nearest_legal_position(&grid, Vector::new(1.4, 1.5), 0.45, 3.0);
/// assert_eq!(pushed, Some(Vector::new(0.5, 1.5)));
/// // Where the disc fits, it stays.
/// assert_eq!(
///     nearest_legal_position(&grid, Vector::new(2.6, 1.5), 0.45, 3.0),
///     Some(Vector::new(2.6, 1.5))
/// );
/// // Nothing fits a disc wider than the grid.
/// assert_eq!(nearest_legal_position(&grid, Vector::new(1.4, 1.5), 2.0, 3.0), None);
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn nearest_legal_position(
    grid: &Grid,
    position: Vector,
    radius: f32,
    max_distance: f32,
) -> Option<Vector> {
    if disc_fits(grid, position, radius) {
        return Some(position);
    }
    #[expect(clippy::cast_precision_loss, reason = "a bound needs no precision")]
    let extent = (grid.width() as f32 + grid.height() as f32) + 1.0;
    let max_distance = max_distance.min(extent);
    let near_grid = position.x >= -max_distance
        && position.y >= -max_distance
        && position.x <= extent + max_distance
        && position.y <= extent + max_distance;
    if !position.is_finite() || max_distance.is_nan() || max_distance < 0.0 || !near_grid {
        return None;
    }
    let centre = (
        floor_cell(position.x * 2.0 + 0.5),
        floor_cell(position.y * 2.0 + 0.5),
    );
    let limit = max_distance * max_distance;
    let mut best: Option<(f32, Vector)> = None;
    for ring in 0.. {
        // Every lattice point of this ring is at least this far from the position.
        let nearest = (cell_coordinate(ring) * 0.5 - 0.25).max(0.0);
        let bound = best.map_or(limit, |(distance_squared, _)| distance_squared);
        if nearest * nearest > bound {
            break;
        }
        for (i, j) in ring_points(centre, ring) {
            let point = Vector::new(cell_coordinate(i) * 0.5, cell_coordinate(j) * 0.5);
            let distance_squared = (point - position).length_squared();
            if distance_squared > limit || !disc_fits(grid, point, radius) {
                continue;
            }
            let better = best.is_none_or(|(best_squared, best_point)| {
                (distance_squared, point.y, point.x) < (best_squared, best_point.y, best_point.x)
            });
            if better {
                best = Some((distance_squared, point));
            }
        }
    }
    best.map(|(_, point)| point)
}

/// The lattice points at Chebyshev distance `ring` from `centre`.
fn ring_points((x, y): (i64, i64), ring: i64) -> impl Iterator<Item = (i64, i64)> {
    let rows = (y - ring)..=(y + ring);
    rows.flat_map(move |j| {
        let edge = j == y - ring || j == y + ring;
        let step = if edge || ring == 0 { 1 } else { 2 * ring };
        ((x - ring)..=(x + ring))
            .step_by(usize::try_from(step).unwrap_or(1))
            .map(move |i| (i, j))
    })
}
