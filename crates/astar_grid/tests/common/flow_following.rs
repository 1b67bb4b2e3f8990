//! How the crowd tests' agents follow a flow field: the preferred velocity towards the furthest
//! cell ahead that the agent's disc passes to.

use astar_grid::crowd::{CrowdAgent, Vector, disc_passes};
use astar_grid::{Cell, FlowField, Grid};

/// How many cells along its flow field an agent looks for a point to head for.
pub const LOOKAHEAD: usize = 6;

/// The centre of `cell` in grid space.
#[must_use]
pub fn centre(cell: Cell) -> Vector {
    Vector::new(cell.x as f32 + 0.5, cell.y as f32 + 0.5)
}

/// The preferred velocity of `agent` following `field` to `goal`: full speed at the furthest
/// of the next [`LOOKAHEAD`] cells of its way whose centre its disc passes to in a straight
/// line (the next cell's when it passes to none), slowing to stop on the goal's centre in
/// steps of `step` seconds.
#[must_use]
pub fn follow(
    agent: &CrowdAgent,
    field: &FlowField,
    (goal, grid): (Cell, &Grid),
    step: f32,
) -> Vector {
    let position = agent.position;
    let Some(mut cell) = (position.x >= 0.0 && position.y >= 0.0)
        .then(|| Cell::new(position.x as u32, position.y as u32))
    else {
        return Vector::ZERO;
    };
    let (mut aim, mut next) = (None, None);
    for _ in 0..LOOKAHEAD {
        let Some(next_cell) = field.next_step(cell) else {
            break;
        };
        cell = next_cell;
        next.get_or_insert(next_cell);
        if disc_passes(grid, position, centre(next_cell), agent.radius) {
            aim = Some(next_cell);
        }
    }
    match aim.or(next) {
        Some(aim) if aim != goal => (centre(aim) - position).normalize_or_zero() * agent.max_speed,
        _ => agent.velocity_towards(centre(goal), step),
    }
}
