//! Terrain painting: a right click toggles a cell between the brush's terrain (a wall by
//! default, or swamp, water or trees) and ground, and dragging with the right button paints the
//! same change along the way (never over the start or goal).

use crate::VisualiserSystems;
use crate::cursor::CursorCell;
use crate::endpoints::Endpoints;
use crate::terrain::Brush;
use bevy::prelude::*;
use bevy_astar::prelude::*;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(Update, paint_walls.in_set(VisualiserSystems::Edit));
}

/// A right-button stroke in progress: the terrain value it paints and the last cell it reached.
#[derive(Clone, Copy, Debug)]
struct Stroke {
    value: u8,
    last: Cell,
}

fn paint_walls(
    buttons: Res<ButtonInput<MouseButton>>,
    cursor: Res<CursorCell>,
    endpoints: Res<Endpoints>,
    brush: Res<Brush>,
    mut nav: ResMut<NavGrid>,
    mut stroke: Local<Option<Stroke>>,
) {
    // A quick click can press and release within one frame (likely at low frame rates): it
    // still toggles its cell.
    let held = buttons.pressed(MouseButton::Right);
    if !held && !buttons.just_pressed(MouseButton::Right) {
        *stroke = None;
        return;
    }
    let Some(cell) = cursor.cell else {
        return;
    };
    let under = nav.grid().value(cell);
    let mut paint = |cell: Cell, value: u8| {
        if endpoints.contains(cell) {
            return;
        }
        // The cells come from the cursor or a line between two of its cells: in bounds.
        let _ = nav.set_cost(cell, value);
    };
    match *stroke {
        None if buttons.just_pressed(MouseButton::Right) => {
            let value = brush.paints_over(under);
            paint(cell, value);
            *stroke = Some(Stroke { value, last: cell });
        }
        None => {}
        Some(Stroke { value, last }) if last != cell => {
            for step in line(last, cell).skip(1) {
                paint(step, value);
            }
            *stroke = Some(Stroke { value, last: cell });
        }
        Some(_) => {}
    }
    if !held {
        *stroke = None;
    }
}

/// The cells of a straight line from `from` to `to`, both included (Bresenham), so a fast drag
/// leaves no gaps.
fn line(from: Cell, to: Cell) -> impl Iterator<Item = Cell> {
    let (x1, y1) = (i64::from(to.x), i64::from(to.y));
    let (mut x, mut y) = (i64::from(from.x), i64::from(from.y));
    let (dx, dy) = ((x1 - x).abs(), -(y1 - y).abs());
    let (sx, sy) = ((x1 - x).signum(), (y1 - y).signum());
    let mut error = dx + dy;
    let mut done = false;
    core::iter::from_fn(move || {
        if done {
            return None;
        }
        let cell = Cell::new(x as u32, y as u32);
        if x == x1 && y == y1 {
            done = true;
        } else {
            let doubled = 2 * error;
            if doubled >= dy {
                error += dy;
                x += sx;
            }
            if doubled <= dx {
                error += dx;
                y += sy;
            }
        }
        Some(cell)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_gapless_and_end_where_asked() {
        for (from, to) in [
            (Cell::new(0, 0), Cell::new(7, 3)),
            (Cell::new(9, 2), Cell::new(1, 8)),
            (Cell::new(4, 4), Cell::new(4, 4)),
            (Cell::new(3, 9), Cell::new(3, 0)),
        ] {
            let cells: Vec<Cell> = line(from, to).collect();
            assert_eq!(cells.first(), Some(&from));
            assert_eq!(cells.last(), Some(&to));
            for pair in cells.windows(2) {
                assert!(pair[0].x.abs_diff(pair[1].x) <= 1 && pair[0].y.abs_diff(pair[1].y) <= 1);
                assert_ne!(pair[0], pair[1]);
            }
            let longest = from.x.abs_diff(to.x).max(from.y.abs_diff(to.y));
            assert_eq!(cells.len() as u32, longest + 1);
        }
    }
}
