//! Whether an avoiding agent is making progress towards its waypoint, and what it does when it
//! is not: wait in a queue, stop beside its goal, or search again from where it stands.

use super::steering::{Target, arrival_reach};
use super::{CrowdProgress, CrowdSettings};
use crate::PathRequest;
use astar_grid::Cell;
use astar_grid::crowd::{CrowdAgent, Neighbour, NeighbourGrid, Vector};
use bevy::prelude::*;

/// The share of [`CrowdSettings::stuck_after`] an agent out of sight of its waypoint waits
/// without progress before it searches again.
const BLIND_PATIENCE: f32 = 1.0 / 6.0;

/// What an agent's progress says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Progress {
    /// Closer to its waypoint, or not yet waiting long.
    Moving,
    /// Stuck near its goal, which others stand on: it stops there.
    Arrived,
    /// Held up by agents ahead that move its way: it waits its turn.
    Queueing,
    /// Stuck: it searches again from where it stands.
    Stuck,
}

/// Updates `progress` with the agent `distance` cells from `target` after `time_step` more
/// seconds, and says what to do; `queue_ahead` tells whether agents ahead of it move its way.
pub(super) fn judge_progress(
    progress: &mut CrowdProgress,
    target: Target,
    (distance, radius): (f32, f32),
    queue_ahead: impl FnOnce() -> bool,
    time_step: f32,
    settings: &CrowdSettings,
) -> Progress {
    let (revision, index) = target.key;
    let new_path = progress.target.0 != revision;
    let closer =
        progress.target == target.key && distance < progress.best - settings.stuck_distance;
    if new_path || index > progress.furthest || closer {
        *progress = CrowdProgress {
            target: target.key,
            furthest: if new_path {
                index
            } else {
                index.max(progress.furthest)
            },
            best: distance,
            waited: 0.0,
            giving_way: progress.giving_way,
            aside: progress.aside,
        };
        return Progress::Moving;
    }
    if progress.target != target.key {
        // Back to a waypoint aimed at before (an agent on the line between two cells may aim
        // at one from the first and another from the second): measured afresh, not progress.
        progress.target = target.key;
        progress.best = distance;
    }
    progress.waited += time_step;
    // Out of sight of its waypoint (pushed behind a corner), it waits less, and not for a queue.
    let patience = if target.seen { 1.0 } else { BLIND_PATIENCE };
    if progress.waited < settings.stuck_after.as_secs_f32() * patience {
        return Progress::Moving;
    }
    progress.waited = 0.0;
    progress.best = distance;
    if !target.seen {
        Progress::Stuck
    } else if target.last && distance <= arrival_reach(radius) {
        Progress::Arrived
    } else if queue_ahead() {
        Progress::Queueing
    } else {
        Progress::Stuck
    }
}

/// Whether an agent of `agents` ahead of agent `index` (within a body length) wants to go the
/// same way: the agent is in a queue, moving or not, rather than at a dead end or face to face
/// with agents coming the other way.
///
/// Of two agents going the same way, exactly one is ahead of the other: the one further along
/// the sum of their headings (the lower index on a tie). Two agents side by side at a door one
/// agent wide, each pressing on its own corner, would otherwise each wait for the other for
/// ever in a queue; this way the one behind waits and the one ahead is stuck.
pub(super) fn moves_in_a_queue(
    (agents, neighbours): (&[CrowdAgent], &NeighbourGrid),
    index: usize,
    found: &mut Vec<Neighbour>,
) -> bool {
    let agent = &agents[index];
    let heading = agent.preferred_velocity.normalize_or_zero();
    find_nearby((agents, neighbours), index, found);
    found.iter().any(|neighbour| {
        let other = &agents[neighbour.index];
        let same_way = other.preferred_velocity.dot(heading) > 0.0;
        same_way && is_ahead((agents, index), neighbour.index)
    })
}

/// Finds into `found` the agents within a body length of agent `index` of `agents` (six at
/// most, nearest first): those it queues behind or steps aside for.
fn find_nearby(
    (agents, neighbours): (&[CrowdAgent], &NeighbourGrid),
    index: usize,
    found: &mut Vec<Neighbour>,
) {
    let agent = &agents[index];
    let reach = 3.0 * agent.radius + 0.5;
    neighbours.nearest(agent.position, Some(index), reach, 6, found);
}

/// Whether agent `other` of `agents` is ahead of agent `index`: further along the sum of their
/// headings, or of the lower index on a tie. Of any two agents, exactly one is ahead.
fn is_ahead((agents, index): (&[CrowdAgent], usize), other: usize) -> bool {
    let (agent, neighbour) = (&agents[index], &agents[other]);
    let headings = agent.preferred_velocity.normalize_or_zero()
        + neighbour.preferred_velocity.normalize_or_zero();
    let along = (neighbour.position - agent.position).dot(headings);
    along > 0.0 || (along == 0.0 && other < index)
}

/// The way agent `index` of `agents` stands aside when it makes no progress: a unit vector
/// away from the agents within a body length that want to move (an agent that prefers to
/// stand still is not in anyone's way), if it yields to all of them: each has a higher
/// [`CrowdAgent::priority`], or the same one and is ahead of it ([`is_ahead`]); `None`
/// otherwise, or with nobody near.
///
/// ORCA keeps agents off each other's velocities, not off each other's places: a knot of agents
/// pressing on each other at a door, each pinned on a corner, stands still for ever, since none
/// may press into a neighbour that does not move. The order is strict, so the last of a knot
/// yields to the others, and it steps out of their way.
pub(super) fn way_aside(
    (agents, neighbours): (&[CrowdAgent], &NeighbourGrid),
    index: usize,
    found: &mut Vec<Neighbour>,
) -> Option<Vector> {
    let agent = &agents[index];
    find_nearby((agents, neighbours), index, found);
    let mut away = Vector::ZERO;
    let mut anyone = false;
    for neighbour in found.iter() {
        let other = &agents[neighbour.index];
        if other.preferred_velocity == Vector::ZERO {
            continue;
        }
        let yields = other.priority > agent.priority
            || (other.priority == agent.priority && is_ahead((agents, index), neighbour.index));
        if !yields {
            return None;
        }
        anyone = true;
        away += (agent.position - other.position).normalize_or_zero();
    }
    // Away from them, or back the way it came where they stand all round it.
    let away = away.normalize_or_zero();
    let back = -agent.preferred_velocity.normalize_or_zero();
    anyone.then_some(if away == Vector::ZERO { back } else { away })
}

/// The share of its top speed at which an agent standing aside steps away.
pub(super) const ASIDE_SPEED: f32 = 0.25;

/// The share of [`CrowdSettings::stuck_after`] for which an agent steps aside
/// ([`way_aside`]) before it goes on.
pub(super) const GIVE_WAY_SHARE: f32 = 1.0 / 3.0;

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-cell agent at `position` that prefers `velocity` (cells a second; top speed 3).
    fn walker(position: Vector, velocity: Vector) -> CrowdAgent {
        let mut agent = CrowdAgent::new(position, 0.45, 3.0);
        agent.preferred_velocity = velocity;
        agent
    }

    fn settings() -> CrowdSettings {
        CrowdSettings::default()
    }

    fn target(key: (u64, usize), last: bool) -> Target {
        Target {
            point: Vector::new(5.0, 5.0),
            last,
            key,
            seen: true,
        }
    }

    #[test]
    fn progress_resets_on_a_new_waypoint_and_on_real_progress() {
        let settings = settings();
        let mut progress = CrowdProgress::default();
        let step = 0.5;
        let first = target((1, 1), false);
        assert_eq!(
            judge_progress(
                &mut progress,
                first,
                (10.0, 0.45),
                || false,
                step,
                &settings
            ),
            Progress::Moving
        );
        // Creeping closer by less than stuck_distance does not count; waiting stuck_after
        // seconds then searches again.
        let mut outcome = Progress::Moving;
        let mut waited = 0.0;
        while outcome == Progress::Moving {
            waited += step;
            outcome = judge_progress(&mut progress, first, (9.9, 0.45), || false, step, &settings);
        }
        assert_eq!(outcome, Progress::Stuck);
        assert!((waited - settings.stuck_after.as_secs_f32()).abs() < 1e-3);
        // Real progress resets the clock.
        assert_eq!(
            judge_progress(&mut progress, first, (9.0, 0.45), || false, step, &settings),
            Progress::Moving
        );
        assert_eq!(progress.waited, 0.0);
        // So does a new waypoint.
        progress.waited = 2.9;
        let second = target((1, 2), false);
        judge_progress(
            &mut progress,
            second,
            (9.0, 0.45),
            || false,
            step,
            &settings,
        );
        assert_eq!((progress.target, progress.waited), ((1, 2), 0.0));
    }

    #[test]
    fn aiming_back_and_forth_between_waypoints_is_not_progress() {
        let settings = settings();
        let mut progress = CrowdProgress::default();
        let step = 0.1;
        let (near, far) = (target((1, 2), false), target((1, 5), false));
        let mut waited = 0.0;
        let mut frame = 0_u32;
        let outcome = loop {
            // On the line between two cells: one sees waypoint 5, the other only waypoint 2.
            let aimed = if frame.is_multiple_of(2) { far } else { near };
            frame += 1;
            waited += step;
            match judge_progress(&mut progress, aimed, (3.0, 0.45), || false, step, &settings) {
                Progress::Moving if waited < 10.0 => {}
                outcome => break outcome,
            }
        };
        assert_eq!(outcome, Progress::Stuck);
        let patience = settings.stuck_after.as_secs_f32();
        assert!((waited - patience).abs() < 2.5 * step, "{waited}");
        // Aiming further than ever before is progress.
        progress.waited = 1.0;
        let further = target((1, 6), false);
        judge_progress(
            &mut progress,
            further,
            (3.0, 0.45),
            || false,
            step,
            &settings,
        );
        assert_eq!((progress.waited, progress.furthest), (0.0, 6));
    }

    #[test]
    fn of_two_agents_side_by_side_at_a_door_exactly_one_waits_for_the_other() {
        use astar_grid::crowd::{CrowdAgent, NeighbourGrid};
        // Both head west for a door at (15.5, 3.5), each pressing on its own corner of it.
        let door = Vector::new(15.5, 3.5);
        let pair = [Vector::new(16.45, 3.93), Vector::new(16.45, 3.03)];
        let mut agents: Vec<CrowdAgent> = pair
            .iter()
            .map(|&position| walker(position, (door - position).normalize_or_zero() * 3.0))
            .collect();
        fn waiting(agents: &[CrowdAgent]) -> [bool; 2] {
            let mut neighbours = NeighbourGrid::new();
            neighbours.rebuild(agents, 1.5);
            let mut found = Vec::new();
            [0, 1].map(|index| moves_in_a_queue((agents, &neighbours), index, &mut found))
        }
        let queued = waiting(&agents);
        assert_eq!(queued.iter().filter(|&&queued| queued).count(), 1);
        // The same, mirrored so that each stands where the other stood.
        agents.swap(0, 1);
        let swapped = waiting(&agents);
        assert_eq!(swapped, [queued[1], queued[0]]);
        // Exactly abreast, heading the same way: the lower index is ahead.
        for (agent, y) in agents.iter_mut().zip([4.0, 3.0]) {
            agent.position = Vector::new(16.5, y);
            agent.preferred_velocity = Vector::new(-3.0, 0.0);
        }
        assert_eq!(waiting(&agents), [false, true]);
        // One behind the other, the one behind waits.
        agents[1].position = Vector::new(17.5, 4.0);
        assert_eq!(waiting(&agents), [false, true]);
    }

    #[test]
    fn the_lowest_priority_of_a_knot_steps_away_from_the_others() {
        use astar_grid::crowd::{CrowdAgent, NeighbourGrid};
        let agent = |(x, y), (vx, vy), priority| {
            let mut agent = walker(Vector::new(x, y), Vector::new(vx, vy));
            agent.priority = priority;
            agent
        };
        let aside = |agents: &[CrowdAgent]| {
            let mut neighbours = NeighbourGrid::new();
            neighbours.rebuild(agents, 1.5);
            way_aside((agents, &neighbours), 0, &mut Vec::new())
        };
        let stuck = agent((5.0, 5.0), (-3.0, 0.0), 1);
        let above = agent((5.0, 5.9), (-3.0, 0.5), 2);
        let facing = agent((4.1, 5.0), (3.0, 0.0), 3);
        let standing = agent((5.0, 4.1), (0.0, 0.0), 0);
        let far = agent((9.0, 5.0), (-3.0, 0.0), 0);
        // Away from the one above: down; an agent standing still or far off changes nothing.
        let way = aside(&[stuck, above]).expect("steps aside");
        assert!((way - Vector::new(0.0, -1.0)).length() < 1e-5, "{way:?}");
        assert_eq!(aside(&[stuck, above, standing, far]), Some(way));
        // Away from both, whichever way they go.
        let both = aside(&[stuck, above, facing]).expect("steps aside");
        let expected = Vector::new(1.0, -1.0).normalize_or_zero();
        assert!((both - expected).length() < 1e-5, "{both:?}");
        // One of lower or equal priority near: it is not the one to step aside.
        assert_eq!(aside(&[above, stuck]), None);
        assert_eq!(aside(&[stuck, agent((5.0, 5.9), (-3.0, 0.0), 1)]), None);
        // Of one priority, it yields to one ahead of it, and the one ahead does not yield.
        let ahead = agent((4.2, 5.0), (-3.0, 0.0), 1);
        assert_eq!(aside(&[stuck, ahead]), Some(Vector::new(1.0, 0.0)));
        assert_eq!(aside(&[ahead, stuck]), None);
        // Alone, it has nobody to step aside for.
        assert_eq!(aside(&[stuck, standing]), None);
        // Between two, it backs away the way it came.
        let below = agent((5.0, 4.1), (-3.0, -0.5), 2);
        assert_eq!(aside(&[stuck, above, below]), Some(Vector::new(1.0, 0.0)));
    }

    #[test]
    fn an_agent_out_of_sight_of_its_waypoint_searches_again_sooner_even_in_a_queue() {
        let settings = settings();
        let blind = Target {
            seen: false,
            ..target((1, 1), false)
        };
        let mut progress = CrowdProgress::default();
        judge_progress(&mut progress, blind, (9.0, 0.45), || true, 0.1, &settings);
        let mut waited = 0.0;
        let outcome = loop {
            waited += 0.1;
            match judge_progress(&mut progress, blind, (9.0, 0.45), || true, 0.1, &settings) {
                Progress::Moving => {}
                outcome => break outcome,
            }
        };
        assert_eq!(outcome, Progress::Stuck);
        assert!(
            waited < settings.stuck_after.as_secs_f32() * 0.25,
            "{waited}"
        );
    }

    #[test]
    fn an_agent_stuck_beside_its_goal_stops_rather_than_searching_again() {
        let settings = CrowdSettings {
            stuck_after: core::time::Duration::ZERO,
            ..CrowdSettings::default()
        };
        let last = target((1, 4), true);
        let mut progress = CrowdProgress::default();
        judge_progress(&mut progress, last, (1.5, 0.45), || false, 0.1, &settings);
        assert_eq!(
            judge_progress(&mut progress, last, (1.5, 0.45), || false, 0.1, &settings),
            Progress::Arrived
        );
        let mut queued = CrowdProgress::default();
        judge_progress(&mut queued, last, (30.0, 0.45), || true, 0.1, &settings);
        assert_eq!(
            judge_progress(&mut queued, last, (30.0, 0.45), || true, 0.1, &settings),
            Progress::Queueing
        );
        let mut far = CrowdProgress::default();
        judge_progress(&mut far, last, (30.0, 0.45), || false, 0.1, &settings);
        assert_eq!(
            judge_progress(&mut far, last, (30.0, 0.45), || false, 0.1, &settings),
            Progress::Stuck
        );
    }
}
