//! Crowd agents at links: an avoiding agent whose walk reached the near end of a link of its
//! path crosses it at once, put at the far end, where the crowd takes it on from.

use crate::follow::crossing::{LinkAnnouncer, LinkCrossing, LinkLookup};
use crate::{CrowdAvoidance, NavGrid, PathFollower, PathRequest};
use bevy::prelude::*;

/// What the link crossing reads and writes of an avoiding agent.
type CrossingAgent = (
    Entity,
    &'static PathFollower,
    &'static mut Transform,
    &'static PathRequest,
);

/// Puts every avoiding agent that stands on the near end of a link of its path, heading for
/// the far end, at the far end, announcing [`LinkReached`](crate::LinkReached) and
/// [`LinkCrossed`](crate::LinkCrossed) together: a crowd agent crosses at once (it neither
/// waits the link's cost in time nor can be held), so that the crowd never steers it into the
/// wall a link passes. The crowd's next gathering takes the agent's new place as a move by the
/// game, and its walk goes on from the far end. Nothing to do on a map without links.
pub(crate) fn cross_crowd_links(
    nav: Option<Res<NavGrid>>,
    mut agents: Query<CrossingAgent, With<CrowdAvoidance>>,
    mut announce: LinkAnnouncer,
) {
    let Some(nav) = nav.filter(|nav| !nav.grid().links().is_empty()) else {
        return;
    };
    for (entity, follower, mut transform, request) in &mut agents {
        let Some(target) = follower.target() else {
            continue;
        };
        let links = LinkLookup::of(&nav, Some(request));
        let position = transform.translation.truncate();
        let Some((link, from, to, cost)) = links.between(position, target) else {
            continue;
        };
        let crossing = LinkCrossing {
            link,
            from,
            to,
            cost,
            remaining: 0.0,
            held: false,
        };
        announce.reached(entity, crossing);
        transform.translation = target.extend(transform.translation.z);
        announce.crossed(entity, crossing);
    }
}
