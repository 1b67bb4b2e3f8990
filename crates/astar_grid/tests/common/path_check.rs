//! Checks that a returned path is a legal walk on the grid and that its cost adds up.

use astar_grid::{
    Cell, CornerRule, CostModel, Grid, Movement, Neighborhood, Path, SearchError, SearchWindow,
};

/// Relative tolerance for comparing path costs that were summed in different orders.
pub const COST_TOLERANCE: f64 = 1e-9;

/// Whether two costs agree within [`COST_TOLERANCE`] (relative, and absolute near 0).
pub fn costs_match(a: f64, b: f64) -> bool {
    (a - b).abs() <= COST_TOLERANCE * a.abs().max(b.abs()).max(1.0)
}

/// The documented cost of one step from `from` to the adjacent `to` under `movement`: the
/// straight or diagonal base cost times the multiplier of the cell stepped onto. Every step of
/// a hexagonal grid costs a straight step.
pub fn step_cost(grid: &Grid, from: Cell, to: Cell, movement: Movement, cost: CostModel) -> f64 {
    let (straight, diagonal) = match cost {
        CostModel::Octile => (1.0, 2f64.sqrt()),
        CostModel::Integer { straight, diagonal } => (f64::from(straight), f64::from(diagonal)),
    };
    let slanted = from.x != to.x && from.y != to.y;
    let base = if slanted && movement.neighborhood != Neighborhood::Hex {
        diagonal
    } else {
        straight
    };
    base * f64::from(grid.value(to))
}

/// Checks `path` against the rules: it runs from `start` to `end`, every cell is walkable and
/// appears once, consecutive cells are one legal step apart under `movement` (corner rule
/// included), and `path.cost` is the sum of the step costs. Returns what is wrong, if anything.
pub fn check_path(
    grid: &Grid,
    path: &Path,
    start: Cell,
    end: Cell,
    movement: Movement,
    cost: CostModel,
) -> Result<(), String> {
    if path.cells.first() != Some(&start) {
        return Err(format!(
            "path starts at {:?}, not {start}",
            path.cells.first()
        ));
    }
    if path.cells.last() != Some(&end) {
        return Err(format!("path ends at {:?}, not {end}", path.cells.last()));
    }
    if let Some(blocked) = path.cells.iter().find(|&&cell| !grid.is_walkable(cell)) {
        return Err(format!("path crosses blocked or outside cell {blocked}"));
    }
    let mut seen = path.cells.clone();
    seen.sort_unstable();
    if seen.windows(2).any(|pair| pair[0] == pair[1]) {
        return Err("path visits a cell twice".to_owned());
    }
    let mut total = 0.0;
    for pair in path.cells.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        check_step(grid, from, to, movement)?;
        total += step_cost(grid, from, to, movement, cost);
    }
    if !costs_match(total, path.cost) {
        return Err(format!(
            "path cost {} differs from the sum of its steps {total}",
            path.cost
        ));
    }
    Ok(())
}

/// Checks that one step from `from` to `to` is allowed by `movement` on `grid`.
fn check_step(grid: &Grid, from: Cell, to: Cell, movement: Movement) -> Result<(), String> {
    let dx = i64::from(to.x) - i64::from(from.x);
    let dy = i64::from(to.y) - i64::from(from.y);
    if (dx, dy) == (0, 0) || dx.abs() > 1 || dy.abs() > 1 {
        return Err(format!("{from} -> {to} is not a single step"));
    }
    if dx == 0 || dy == 0 {
        return Ok(());
    }
    // The two cells the diagonal squeezes between: (to.x, from.y) and (from.x, to.y).
    let corner_a = grid.is_walkable(Cell::new(to.x, from.y));
    let corner_b = grid.is_walkable(Cell::new(from.x, to.y));
    let allowed = match (movement.neighborhood, movement.corners) {
        (Neighborhood::Four, _) => false,
        // The hex neighbours (1, -1) and (-1, 1); (1, 1) and (-1, -1) are two steps away.
        (Neighborhood::Hex, _) => dx == -dy,
        (Neighborhood::Eight, CornerRule::Both) => corner_a && corner_b,
        (Neighborhood::Eight, CornerRule::One) => corner_a || corner_b,
        (Neighborhood::Eight, CornerRule::Any) => true,
    };
    if allowed {
        Ok(())
    } else {
        Err(format!(
            "diagonal {from} -> {to} breaks {movement:?} (corners walkable: {corner_a}, {corner_b})"
        ))
    }
}

/// Checks that every cell of `path` lies inside `window`.
pub fn check_inside_window(path: &Path, window: SearchWindow) -> Result<(), String> {
    match path.cells.iter().find(|&&cell| !window.contains(cell)) {
        Some(outside) => Err(format!("path leaves the window at {outside}")),
        None => Ok(()),
    }
}

/// Number of diagonal steps in `path`.
pub fn diagonal_steps(path: &Path) -> usize {
    path.cells
        .windows(2)
        .filter(|pair| pair[0].x != pair[1].x && pair[0].y != pair[1].y)
        .count()
}

/// Number of times consecutive steps of `path` change direction.
pub fn direction_changes(path: &Path) -> usize {
    let directions: Vec<(i64, i64)> = path
        .cells
        .windows(2)
        .map(|pair| {
            (
                i64::from(pair[1].x) - i64::from(pair[0].x),
                i64::from(pair[1].y) - i64::from(pair[0].y),
            )
        })
        .collect();
    directions
        .windows(2)
        .filter(|pair| pair[0] != pair[1])
        .count()
}

/// Whether two search errors are the same variant with the same payload, NaN weights equal to
/// themselves.
pub fn same_error(a: &SearchError, b: &SearchError) -> bool {
    match (a, b) {
        (SearchError::InvalidWeight(x), SearchError::InvalidWeight(y)) => {
            x.to_bits() == y.to_bits()
        }
        _ => a == b,
    }
}
