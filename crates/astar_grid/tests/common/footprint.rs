//! Brute-force models of agents with a square footprint and a terrain profile, written from the
//! documented rules cell by cell and without the crate's agent code: the eroded grid, the
//! legality and cost of a fat agent's path, and its line of sight.

use astar_grid::{Cell, CornerRule, CostModel, Grid, Movement, Neighborhood, Path, TerrainProfile};

/// The profile cost of terrain cell `(x, y)`, `None` when it is impassable or off the map.
pub fn cell_cost(terrain: &Grid, profile: &TerrainProfile, x: i64, y: i64) -> Option<u8> {
    if x < 0 || y < 0 || x >= i64::from(terrain.width()) || y >= i64::from(terrain.height()) {
        return None;
    }
    profile.cost(terrain.value(Cell::new(x as u32, y as u32)))
}

/// The highest profile cost over the `size` x `size` footprint whose top-left cell is
/// `(x, y)`, or `None` when any of its cells is impassable or off the map.
pub fn footprint_cost(
    terrain: &Grid,
    profile: &TerrainProfile,
    size: u8,
    x: i64,
    y: i64,
) -> Option<u8> {
    let mut highest = 0;
    for dy in 0..i64::from(size) {
        for dx in 0..i64::from(size) {
            highest = highest.max(cell_cost(terrain, profile, x + dx, y + dy)?);
        }
    }
    Some(highest)
}

/// Whether the footprint anchored at `(x, y)` fits.
pub fn fits(terrain: &Grid, profile: &TerrainProfile, size: u8, x: i64, y: i64) -> bool {
    footprint_cost(terrain, profile, size, x, y).is_some()
}

/// The terrain eroded by the footprint: for every anchor, its `size` x `size` cells looked at
/// one by one; the highest profile cost where all are passable, else 0.
pub fn eroded_grid(terrain: &Grid, profile: &TerrainProfile, size: u8) -> Grid {
    Grid::from_fn(terrain.width(), terrain.height(), |anchor| {
        footprint_cost(
            terrain,
            profile,
            size,
            i64::from(anchor.x),
            i64::from(anchor.y),
        )
        .unwrap_or(0)
    })
}

/// The (smallest) side of the largest square of passable cells anchored at each cell, capped at
/// `cap`, by trying every size in turn.
pub fn clearance_of(terrain: &Grid, profile: &TerrainProfile, cap: u8, anchor: Cell) -> u8 {
    let (x, y) = (i64::from(anchor.x), i64::from(anchor.y));
    (1..=cap)
        .take_while(|&size| fits(terrain, profile, size, x, y))
        .last()
        .unwrap_or(0)
}

/// Checks a fat agent's path of anchors on the terrain: it runs from `start` to `goal`, every
/// footprint along it fits, consecutive anchors are one step apart, each diagonal step's swept
/// `(size + 1)` x `(size + 1)` block obeys the corner rule (its two cells outside both
/// footprints: both free under `Both`, one under `One`, none needed under `Any`, no diagonal
/// at all under four neighbours), and the cost is the sum of base step costs times the highest
/// profile cost over the footprint stepped onto.
pub fn check_fat_path(
    terrain: &Grid,
    profile: &TerrainProfile,
    size: u8,
    path: &Path,
    (start, goal): (Cell, Cell),
    movement: Movement,
    cost: CostModel,
) -> Result<(), String> {
    if path.cells.first() != Some(&start) || path.cells.last() != Some(&goal) {
        return Err(format!("path does not run from {start} to {goal}"));
    }
    let at = |cell: Cell| (i64::from(cell.x), i64::from(cell.y));
    let (straight, diagonal) = match cost {
        CostModel::Octile => (1.0, 2f64.sqrt()),
        CostModel::Integer { straight, diagonal } => (f64::from(straight), f64::from(diagonal)),
    };
    if let Some(&cell) = path.cells.iter().find(|&&cell| {
        let (x, y) = at(cell);
        !fits(terrain, profile, size, x, y)
    }) {
        return Err(format!("the footprint at {cell} does not fit"));
    }
    let mut total = 0.0;
    for pair in path.cells.windows(2) {
        let ((x0, y0), (x1, y1)) = (at(pair[0]), at(pair[1]));
        let (dx, dy) = (x1 - x0, y1 - y0);
        if (dx, dy) == (0, 0) || dx.abs() > 1 || dy.abs() > 1 {
            return Err(format!("{} -> {} is not one step", pair[0], pair[1]));
        }
        let base = if dx != 0 && dy != 0 {
            check_swept_block(terrain, profile, size, (x0, y0), (x1, y1), movement)
                .map_err(|problem| format!("{} -> {}: {problem}", pair[0], pair[1]))?;
            diagonal
        } else {
            straight
        };
        let entered = footprint_cost(terrain, profile, size, x1, y1).unwrap_or(0);
        total += base * f64::from(entered);
    }
    if (total - path.cost).abs() > 1e-9 * total.abs().max(1.0) {
        return Err(format!(
            "cost {} but the steps add up to {total}",
            path.cost
        ));
    }
    Ok(())
}

/// The diagonal step from `from` to `to` against the movement: the cells of its swept block
/// that neither footprint covers, and how many of them the corner rule lets be blocked.
fn check_swept_block(
    terrain: &Grid,
    profile: &TerrainProfile,
    size: u8,
    from: (i64, i64),
    to: (i64, i64),
    movement: Movement,
) -> Result<(), String> {
    let n = i64::from(size);
    let covers = |anchor: (i64, i64), x: i64, y: i64| {
        (anchor.0..anchor.0 + n).contains(&x) && (anchor.1..anchor.1 + n).contains(&y)
    };
    let (left, top) = (from.0.min(to.0), from.1.min(to.1));
    let mut outside_both = Vec::new();
    for y in top..=top + n {
        for x in left..=left + n {
            if !covers(from, x, y) && !covers(to, x, y) {
                outside_both.push((x, y));
            }
        }
    }
    if outside_both.len() != 2 {
        return Err(format!(
            "{} cells outside both footprints",
            outside_both.len()
        ));
    }
    let blocked = outside_both
        .iter()
        .filter(|&&(x, y)| cell_cost(terrain, profile, x, y).is_none())
        .count();
    let allowed = match (movement.neighborhood, movement.corners) {
        (Neighborhood::Four | Neighborhood::Hex, _) => 0,
        (Neighborhood::Eight, CornerRule::Both) => usize::from(blocked == 0),
        (Neighborhood::Eight, CornerRule::One) => usize::from(blocked <= 1),
        (Neighborhood::Eight, CornerRule::Any) => 1,
    };
    if allowed == 1 {
        Ok(())
    } else {
        Err(format!(
            "{blocked} blocked cells of the swept block under {movement:?}"
        ))
    }
}

/// Whether the fat agent sees from anchor `a` to anchor `b`, by exact geometry: every anchor
/// cell whose interior the segment between the two anchor centres enters must fit, and at each
/// grid corner the segment passes exactly through, the corner rule decides what the two anchors
/// beside that corner need (four-connected movement as `Both`).
pub fn fat_line_of_sight(
    terrain: &Grid,
    profile: &TerrainProfile,
    size: u8,
    (a, b): (Cell, Cell),
    movement: Movement,
) -> bool {
    let segment = Segment::new(a, b);
    let fits_at = |(x, y): (i64, i64)| fits(terrain, profile, size, x, y);
    let corners = match movement.neighborhood {
        Neighborhood::Four | Neighborhood::Hex => CornerRule::Both,
        Neighborhood::Eight => movement.corners,
    };
    segment.entered_cells().into_iter().all(fits_at)
        && segment.corner_sides().into_iter().all(|sides| {
            let free = sides.into_iter().filter(|&side| fits_at(side)).count();
            match corners {
                CornerRule::Both => free == 2,
                CornerRule::One => free >= 1,
                CornerRule::Any => true,
            }
        })
}

/// The segment between two cell centres in doubled coordinates, where cell `(i, j)` is the
/// open square `(2i, 2i + 2) x (2j, 2j + 2)` and the segment runs from the odd point `start`
/// by `delta`; its parameter `t` in `[0, 1]` is scaled by `scale`, so that every crossing of a
/// grid line falls on an integer.
struct Segment {
    start: (i64, i64),
    delta: (i64, i64),
    scale: i64,
    /// The cells of the segment's bounding box: `(min_x, min_y)` to `(max_x, max_y)`.
    min: (i64, i64),
    max: (i64, i64),
}

impl Segment {
    fn new(a: Cell, b: Cell) -> Self {
        let (a, b) = (
            (i64::from(a.x), i64::from(a.y)),
            (i64::from(b.x), i64::from(b.y)),
        );
        let delta = (2 * (b.0 - a.0), 2 * (b.1 - a.1));
        Self {
            start: (2 * a.0 + 1, 2 * a.1 + 1),
            delta,
            scale: delta.0.abs().max(1) * delta.1.abs().max(1),
            min: (a.0.min(b.0), a.1.min(b.1)),
            max: (a.0.max(b.0), a.1.max(b.1)),
        }
    }

    /// The scaled parameters between which the segment lies strictly inside the strip
    /// `(low, low + 2)` of one axis: all of them when it runs along the strip, none when beside.
    fn strip(&self, low: i64, start: i64, delta: i64) -> Option<(i64, i64)> {
        if delta == 0 {
            return (low < start && start < low + 2).then_some((i64::MIN, i64::MAX));
        }
        let enter = (low - start) * self.scale / delta;
        let leave = (low + 2 - start) * self.scale / delta;
        Some((enter.min(leave), enter.max(leave)))
    }

    /// The cells whose open interior the closed segment enters.
    fn entered_cells(&self) -> Vec<(i64, i64)> {
        let mut entered = Vec::new();
        for j in self.min.1..=self.max.1 {
            for i in self.min.0..=self.max.0 {
                let (Some(x_range), Some(y_range)) = (
                    self.strip(2 * i, self.start.0, self.delta.0),
                    self.strip(2 * j, self.start.1, self.delta.1),
                ) else {
                    continue;
                };
                let (low, high) = (x_range.0.max(y_range.0), x_range.1.min(y_range.1));
                if low < high && low < self.scale && high > 0 {
                    entered.push((i, j));
                }
            }
        }
        entered
    }

    /// For each grid corner on the open segment, the two cells beside it that the segment
    /// does not enter.
    fn corner_sides(&self) -> Vec<[(i64, i64); 2]> {
        let ((ax, ay), (dx, dy)) = (self.start, self.delta);
        if dx == 0 || dy == 0 {
            return Vec::new();
        }
        let mut sides = Vec::new();
        for i in self.min.0..=self.max.0 + 1 {
            // Where the segment crosses the vertical line 2i; a corner when y is even there.
            let t = (2 * i - ax) * self.scale / dx;
            let y_scaled = ay * self.scale + t * dy;
            if t <= 0 || t >= self.scale || y_scaled % (2 * self.scale) != 0 {
                continue;
            }
            let j = y_scaled / (2 * self.scale);
            sides.push(if (dx > 0) == (dy > 0) {
                [(i, j - 1), (i - 1, j)]
            } else {
                [(i - 1, j - 1), (i, j)]
            });
        }
        sides
    }
}
