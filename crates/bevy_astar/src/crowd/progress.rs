//! What an avoiding agent does on what the core's crowd step reports of it: counted when it
//! was put back on legal ground, and searched again from where it stands when it is stuck.

use crate::request::search_again_from;
use crate::{NavGrid, PathRequest, PathfindingStats};
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
