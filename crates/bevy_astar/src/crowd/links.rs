//! Crowd agents at links: an avoiding agent whose walk reached the near end of a link of its
//! path leaves the crowd while it crosses (waiting the link's cost in time, or as long as the
//! game holds it), then comes back at the far end, where its walk goes on.

use crate::follow::crossing::{LinkAnnouncer, LinkLookup};
use crate::{CrowdAvoidance, NavGrid, PathFollower, PathRequest};
use bevy::prelude::*;

/// What the link crossing reads and writes of an avoiding agent.
type CrossingAgent = (
    Entity,
    &'static mut PathFollower,
    &'static mut Transform,
    &'static PathRequest,
);

/// Moves every avoiding agent on along the links of its path, as a [`PathFollower`] without
/// the crowd is: one standing on the near end of a link, heading for the far end, starts
/// crossing ([`LinkReached`](crate::LinkReached)); one crossing waits the link's cost in time,
/// or while held or while the link is closed, and then is put at the far end
/// ([`LinkCrossed`](crate::LinkCrossed)). The crowd's gathering leaves crossing agents out, so
/// that the crowd neither steers them into the wall a link passes nor counts them stuck, and
/// takes them back at the far end. Nothing to do on a map without links.
pub(crate) fn cross_crowd_links(
    time: Res<Time>,
    nav: Option<Res<NavGrid>>,
    mut agents: Query<CrossingAgent, With<CrowdAvoidance>>,
    mut announce: LinkAnnouncer,
) {
    let Some(nav) = nav.filter(|nav| !nav.grid().links().is_empty()) else {
        return;
    };
    let delta = time.delta_secs();
    for (entity, mut follower, mut transform, request) in &mut agents {
        if follower.crossing.is_some() {
            if let Some(crossed) = follower.advance_crossing(delta, Some(&nav)) {
                if let Some(target) = follower.target() {
                    transform.translation = target.extend(transform.translation.z);
                }
                announce.crossed(entity, crossed);
            }
            continue;
        }
        let Some(target) = follower.target() else {
            continue;
        };
        let links = LinkLookup::of(&nav, Some(request));
        let position = transform.translation.truncate();
        let Some(crossing) = links.crossing(position, target, follower.speed) else {
            continue;
        };
        follower.crossing = Some(Box::new(crossing));
        announce.reached(entity, crossing);
    }
}
