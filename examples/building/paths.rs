//! The agents' paths on the floor shown, in each agent's colour: the way still ahead, broken at
//! each link (the plugin's overlay draws the link's arc), and a square on the goal.

use crate::agents::Agent;
use crate::layout::{Building, CELL};
use crate::{BuildingSystems, ShownFloor};
use bevy::prelude::*;
use bevy_astar::prelude::*;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(Update, draw_paths.in_set(BuildingSystems::Show));
}

/// What the drawing reads of an agent.
type DrawnAgent = (
    &'static Agent,
    &'static Path,
    &'static PathFollower,
    &'static PathRequest,
    &'static Transform,
);

fn draw_paths(
    shown: Res<ShownFloor>,
    nav: Res<NavGrid>,
    building: Res<Building>,
    agents: Query<DrawnAgent>,
    mut gizmos: Gizmos,
) {
    let on_shown_floor = |cell: Cell| building.floor_of(cell) == Some(shown.0);
    for (agent, path, follower, request, transform) in &agents {
        let size = request.size;
        if on_shown_floor(request.goal) {
            let side = CELL * f32::from(size) * 0.9;
            let goal = nav.footprint_center(request.goal, size);
            gizmos.rect_2d(goal, Vec2::splat(side), agent.color);
        }
        if follower.is_finished() {
            continue;
        }
        let cells = path.cells();
        let waypoints = path.waypoints();
        if cells.len() != waypoints.len() {
            continue;
        }
        let links: Vec<usize> = path
            .link_steps(&nav, request)
            .into_iter()
            .map(|(index, _)| index)
            .collect();
        // From the agent to the waypoint it heads for, then from waypoint to waypoint; a step
        // that leaves cell `index` by a link is not drawn.
        let next = follower.next_waypoint();
        let mut from = transform.translation.truncate();
        for index in next..waypoints.len() {
            let to = waypoints[index];
            let step_from = index.checked_sub(1);
            let by_link = step_from.is_some_and(|step| links.contains(&step));
            let on_floor = on_shown_floor(cells[index])
                && step_from.is_none_or(|step| on_shown_floor(cells[step]));
            if on_floor && !by_link {
                gizmos.line_2d(from, to, agent.color);
            }
            from = to;
        }
    }
}
