//! [`PathFollowPlugin`]: registers [`PathFollower`] and moves followers along their paths in
//! [`PathfindingSystems::Follow`].

use super::PathFollower;
use super::crossing::{LinkAnnouncer, LinkCrossed, LinkCrossing, LinkLookup, LinkReached};
use crate::crowd::{CrowdAvoidance, CrowdSettings};
use crate::goal_tree::CellBox;
use crate::kinds::KindKey;
use crate::map::NavChanged;
use crate::request::search_again_from;
use crate::schedule::pathfinding_schedule;
use crate::{NavGrid, Path, PathRequest, PathfindingSystems};
use bevy::prelude::*;

/// Moves [`PathFollower`]s along their [`Path`]s, in [`PathfindingSystems::Follow`] of the schedule
/// the [`AStarPlugin`](crate::AStarPlugin) runs in (add it after that plugin, as
/// [`PathfindingPlugins`](crate::PathfindingPlugins) does). Without it, paths are still found
/// and kept up to date, and the game moves its agents itself.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// App::new().add_plugins((MinimalPlugins, AStarPlugin::default(), PathFollowPlugin));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PathFollowPlugin;

impl Plugin for PathFollowPlugin {
    fn build(&self, app: &mut App) {
        let schedule = pathfinding_schedule(app, "PathFollowPlugin");
        app.register_type::<PathFollower>()
            .add_message::<LinkReached>()
            .add_message::<LinkCrossed>()
            .add_systems(schedule, follow_paths.in_set(PathfindingSystems::Follow));
    }
}

/// What the follow system reads and writes of an agent.
type FollowerParts = (
    Entity,
    Ref<'static, Path>,
    &'static mut PathFollower,
    &'static mut Transform,
    Has<CrowdAvoidance>,
    Option<&'static mut PathRequest>,
);

/// Advances every follower along its path but those the crowd systems steer: with
/// [`CrowdAvoidance`] and a [`PathRequest`] (which says its kind), while the
/// [`CrowdPlugin`](crate::crowd::CrowdPlugin) is added (its [`CrowdSettings`] exist). Without
/// that plugin, avoiding agents are followed as the others are.
///
/// Most frames move an agent part of the way to its next waypoint; the waypoint is kept in the
/// follower, so those frames touch only the follower and the transform. The path itself is read
/// when it changed (its change tick, which lies apart from the paths, says so), when the
/// follower is new or was replaced, and when a waypoint is reached (the system's own writes to
/// the follower do not count as changes on its next run).
pub(crate) fn follow_paths(
    time: Res<Time>,
    (crowds, nav): (Option<Res<CrowdSettings>>, Option<Res<NavGrid>>),
    mut changes: MessageReader<NavChanged>,
    mut followers: Query<FollowerParts>,
    mut announce: LinkAnnouncer,
) {
    let delta = time.delta_secs();
    let crowds_steer = crowds.is_some();
    let cuts = FrameCuts::of(changes.read());
    let any_nav = nav.as_deref();
    let nav = any_nav.filter(|nav| !nav.grid().links().is_empty());
    for (entity, path, mut follower, mut transform, avoids, mut request) in &mut followers {
        if crowds_steer && avoids && request.is_some() {
            continue;
        }
        // Walking, or given a new path: a stop from here on may be short of the goal.
        let may_stop_short = !follower.finished || !follower.walks(&path);
        if path.is_changed() || follower.is_changed() {
            follower.sync_with(&path);
        }
        let mut position = transform.translation.truncate();
        if let Some(route) = path.shared_route() {
            let kind = request.as_deref().map_or(KindKey::DEFAULT, KindKey::of);
            if !follower.finished && cuts.crosses(kind, follower.run_box()) {
                // The tree is being updated for a change across the run ahead: wait for it.
                follower.hold();
            }
            if route.tree.generation() != follower.generation
                && follower.aims_by_an_older_tree(route)
            {
                // The tree changed under the agent: aim again from where it stands (a crossing
                // goes on only if the new way on takes the same link).
                follower.interrupted = follower.crossing.take();
                let aimed = follower.aim_on_tree(route, |tree| tree.anchor_at(position));
                if !aimed {
                    follower.finish();
                }
            }
            if follower.waits_for_the_tree() {
                continue;
            }
        }
        if follower.finished {
            if may_stop_short {
                search_again_if_short(&path, request.as_mut(), any_nav, position);
            }
            continue;
        }
        let follower = follower.into_inner();
        let links = nav.map(|nav| LinkLookup::of(nav, request.as_deref()));
        if follower.crossing.is_some() {
            let Some(crossed) = follower.advance_crossing(delta, nav) else {
                continue;
            };
            position = follower.target;
            announce.crossed(entity, crossed);
        }
        let budget = follower.speed.max(0.0) * delta;
        let reached;
        (position, reached) = walk(follower, &path, position, budget, links);
        transform.translation = position.extend(transform.translation.z);
        if let Some(crossing) = reached {
            announce.reached(entity, crossing);
        }
        if follower.finished {
            search_again_if_short(&path, request.as_mut(), any_nav, position);
        }
    }
}

/// Has an agent on a shared route that stopped at `position` short of its goal search again
/// from where it stands (`request` moved there): the route no longer leads on from it (the
/// goal was walled off, or the route's newest version does not answer there), and nothing
/// else reads an agent on a shared route. An agent at its goal is left alone.
fn search_again_if_short(
    path: &Path,
    request: Option<&mut Mut<PathRequest>>,
    nav: Option<&NavGrid>,
    position: Vec2,
) {
    let (Some(request), Some(nav)) = (request, nav) else {
        return;
    };
    if path.shared_route().is_none() {
        return;
    }
    let anchor = nav.footprint_anchor(position, request.size);
    if anchor != Some(request.goal) {
        search_again_from(request, anchor);
    }
}

/// This frame's map changes, read once for every follower.
struct FrameCuts<'a> {
    changes: Vec<&'a NavChanged>,
}

impl<'a> FrameCuts<'a> {
    fn of(changes: impl Iterator<Item = &'a NavChanged>) -> Self {
        Self {
            changes: changes.collect(),
        }
    }

    /// Whether this frame's changes of `kind`'s grid may touch `run` (every run, for a change
    /// of the whole map), by each change's bounds.
    fn crosses(&self, kind: KindKey, run: Option<CellBox>) -> bool {
        let Some(run) = run else {
            return false;
        };
        self.changes
            .iter()
            .filter_map(|changed| changed.change_for_kind(kind))
            .any(|change| change.may_touch_rect(run.min, run.max))
    }
}

/// Moves `follower`, at `position`, up to `budget` world units along `path`, aiming on at
/// each waypoint it reaches; returns where it ends, and the link it stopped at, if any.
///
/// On a map with `links`, each move to a new target is checked first: a move along a link
/// stops the follower at its near end, crossing it ([`PathFollower::crossing`]), and straight
/// runs are not walked through at once (a run's steps may hide a link).
fn walk(
    follower: &mut PathFollower,
    path: &Path,
    mut position: Vec2,
    mut budget: f32,
    links: Option<LinkLookup>,
) -> (Vec2, Option<LinkCrossing>) {
    loop {
        if let Some(links) = links.filter(|_| !follower.link_checked) {
            follower.link_checked = true;
            let interrupted = follower.interrupted.take();
            if let Some(crossing) = links.crossing(position, follower.target, follower.speed) {
                let same = |kept: &LinkCrossing| {
                    (kept.link, kept.from, kept.to) == (crossing.link, crossing.from, crossing.to)
                };
                if let Some(going_on) = interrupted.filter(|kept| same(kept)) {
                    follower.crossing = Some(going_on);
                    return (position, None);
                }
                follower.crossing = Some(Box::new(crossing));
                return (position, Some(crossing));
            }
        }
        let distance = position.distance(follower.target);
        if distance > budget {
            let moved = position + (follower.target - position) / distance * budget;
            return (moved, None);
        }
        position = follower.target;
        budget -= distance;
        let aimed = match path.shared_route() {
            Some(route) => {
                let reached = follower.tree_cell();
                follower.aim_on_tree(route, |_| Some(reached))
            }
            None if links.is_some() => {
                follower.next_waypoint += 1;
                follower.aim(path.own_waypoints())
            }
            None => {
                follower.next_waypoint += 1;
                follower.aim_straight_on(path.own_waypoints())
            }
        };
        if !aimed {
            follower.finished = true;
            return (position, None);
        }
    }
}
