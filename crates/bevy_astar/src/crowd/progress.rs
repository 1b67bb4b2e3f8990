//! Whether an avoiding agent is making progress towards its waypoint, and what it does when it
//! is not: wait in a queue, stop beside its goal, or search again from where it stands.

use super::steering::{Target, arrival_reach};
use super::{CrowdProgress, CrowdSettings};
use crate::PathRequest;
use astar_grid::Cell;
use astar_grid::crowd::{CrowdAgent, Neighbour, NeighbourGrid};
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
    if progress.target != target.key || distance < progress.best - settings.stuck_distance {
        *progress = CrowdProgress {
            target: target.key,
            best: distance,
            waited: 0.0,
        };
        return Progress::Moving;
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

/// Whether an agent of `agents` ahead of agent `index` (towards its preferred velocity, within
/// a body length) wants to go the same way: the agent is in a queue, moving or not, rather than
/// at a dead end or face to face with agents coming the other way.
pub(super) fn moves_in_a_queue(
    (agents, neighbours): (&[CrowdAgent], &NeighbourGrid),
    index: usize,
    found: &mut Vec<Neighbour>,
) -> bool {
    let agent = &agents[index];
    let heading = agent.preferred_velocity.normalize_or_zero();
    let reach = 3.0 * agent.radius + 0.5;
    neighbours.nearest(agent.position, Some(index), reach, 6, found);
    found.iter().any(|neighbour| {
        let other = &agents[neighbour.index];
        let ahead = (other.position - agent.position).dot(heading) > 0.0;
        ahead && other.preferred_velocity.dot(heading) > 0.0
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::crowd::Vector;

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
