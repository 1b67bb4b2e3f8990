//! What an avoiding agent does on what the core's crowd step reports of it: counted when it
//! was put back on legal ground, and searched again from where it stands when it is stuck.

use crate::{NavGrid, PathRequest, PathfindingStats};
use astar_grid::Cell;
use astar_grid::crowd::RouteEvent;
use bevy::prelude::*;

/// Acts on `event`, which the crowd step reported of the agent with `request`, standing at
/// `at` (world space) on the map `nav`: a stuck agent searches again from the cell it stands
/// on; the others are only counted in `stats` (an agent that arrived has its walk finished by
/// the step).
pub(super) fn act_on_event(
    event: RouteEvent,
    (request, at): (&mut Mut<'_, PathRequest>, Vec2),
    nav: Option<&NavGrid>,
    stats: &mut PathfindingStats,
) {
    match event {
        RouteEvent::PushedOut => stats.crowd_agents_pushed_out += 1,
        RouteEvent::Arrived => {}
        RouteEvent::Stuck => {
            stats.crowd_searches_when_stuck += 1;
            let anchor = nav.and_then(|nav| nav.footprint_anchor(at, request.size));
            search_again_from(request, anchor);
        }
    }
}

/// Makes `request` search again from `anchor`, where the agent stands (from wherever it stands
/// with [`PathRequest::start_at_agent`]).
pub(super) fn search_again_from(request: &mut Mut<'_, PathRequest>, anchor: Option<Cell>) {
    match anchor {
        Some(anchor) if !request.start_at_agent && anchor != request.start => {
            request.start = anchor;
        }
        _ => request.set_changed(),
    }
}
