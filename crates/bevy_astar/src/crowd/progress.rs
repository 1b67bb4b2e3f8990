//! Whether an avoiding agent is making progress towards its waypoint, and what it does when it
//! is not: stop beside its goal, or (by the core's knot rules) wait in a queue or search again
//! from where it stands, stepping aside first when it is the last of a knot.

use super::CrowdProgress;
use super::steering::{Target, arrival_reach};
use crate::PathRequest;
use astar_grid::Cell;
use astar_grid::crowd::ProgressSettings;
use bevy::prelude::*;

/// The share of [`CrowdSettings::stuck_after`](super::CrowdSettings::stuck_after) an agent out
/// of sight of its waypoint waits without progress before it searches again.
const BLIND_PATIENCE: f32 = 1.0 / 6.0;

/// What an agent's progress says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Progress {
    /// Closer to its waypoint, or not yet waiting long.
    Moving,
    /// Stuck near its goal, which others stand on: it stops there.
    Arrived,
    /// Held up: the core's knot rules decide whether it queues or is stuck
    /// ([`astar_grid::crowd::AgentProgress::judge_held_up`]); it may queue only when it sees
    /// its waypoint.
    HeldUp {
        /// Whether its cell sees its waypoint.
        seen: bool,
    },
}

/// Updates `progress` with the agent `distance` cells from `target` after `time_step` more
/// seconds, and says what to do.
pub(super) fn judge_progress(
    progress: &mut CrowdProgress,
    target: Target,
    (distance, radius): (f32, f32),
    time_step: f32,
    settings: &ProgressSettings,
) -> Progress {
    let (revision, index) = target.key;
    let new_path = progress.target.0 != revision;
    let closer =
        progress.target == target.key && distance < progress.best - settings.stuck_distance;
    if new_path || index > progress.furthest || closer {
        progress.target = target.key;
        progress.furthest = if new_path {
            index
        } else {
            index.max(progress.furthest)
        };
        progress.best = distance;
        progress.knot.restart();
        return Progress::Moving;
    }
    if progress.target != target.key {
        // Back to a waypoint aimed at before (an agent on the line between two cells may aim
        // at one from the first and another from the second): measured afresh, not progress.
        progress.target = target.key;
        progress.best = distance;
    }
    // Out of sight of its waypoint (pushed behind a corner), it waits less, and not for a queue.
    let patience = if target.seen { 1.0 } else { BLIND_PATIENCE };
    if !progress
        .knot
        .wait(time_step, settings.stuck_after * patience)
    {
        return Progress::Moving;
    }
    progress.best = distance;
    if target.seen && target.last && distance <= arrival_reach(radius) {
        Progress::Arrived
    } else {
        Progress::HeldUp { seen: target.seen }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CrowdSettings;
    use astar_grid::crowd::Vector;

    fn settings() -> ProgressSettings {
        CrowdSettings::default().progress()
    }

    fn target(key: (u64, usize), last: bool) -> Target {
        Target {
            point: Vector::new(5.0, 5.0),
            last,
            key,
            seen: true,
        }
    }

    const HELD_UP: Progress = Progress::HeldUp { seen: true };

    #[test]
    fn progress_resets_on_a_new_waypoint_and_on_real_progress() {
        let settings = settings();
        let mut progress = CrowdProgress::default();
        let step = 0.5;
        let first = target((1, 1), false);
        let judge = |progress: &mut CrowdProgress, target, distance| {
            judge_progress(progress, target, (distance, 0.45), step, &settings)
        };
        assert_eq!(judge(&mut progress, first, 10.0), Progress::Moving);
        // Creeping closer by less than stuck_distance does not count; after stuck_after
        // seconds the agent is held up.
        let mut outcome = Progress::Moving;
        let mut waited = 0.0;
        while outcome == Progress::Moving {
            waited += step;
            outcome = judge(&mut progress, first, 9.9);
        }
        assert_eq!(outcome, HELD_UP);
        assert!((waited - settings.stuck_after).abs() < 1e-3);
        // Real progress resets the clock.
        judge(&mut progress, first, 9.9);
        assert_eq!(judge(&mut progress, first, 9.0), Progress::Moving);
        assert_eq!(progress.knot.waited(), 0.0);
        // So does a new waypoint.
        judge(&mut progress, first, 9.0);
        assert!(progress.knot.waited() > 0.0);
        let second = target((1, 2), false);
        judge(&mut progress, second, 9.0);
        assert_eq!((progress.target, progress.knot.waited()), ((1, 2), 0.0));
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
            match judge_progress(&mut progress, aimed, (3.0, 0.45), step, &settings) {
                Progress::Moving if waited < 10.0 => {}
                outcome => break outcome,
            }
        };
        assert_eq!(outcome, HELD_UP);
        assert!(
            (waited - settings.stuck_after).abs() < 2.5 * step,
            "{waited}"
        );
        // Aiming further than ever before is progress.
        judge_progress(&mut progress, near, (3.0, 0.45), step, &settings);
        let further = target((1, 6), false);
        judge_progress(&mut progress, further, (3.0, 0.45), step, &settings);
        assert_eq!((progress.knot.waited(), progress.furthest), (0.0, 6));
    }

    #[test]
    fn an_agent_out_of_sight_of_its_waypoint_is_held_up_sooner_and_may_not_queue() {
        let settings = settings();
        let blind = Target {
            seen: false,
            ..target((1, 1), false)
        };
        let mut progress = CrowdProgress::default();
        judge_progress(&mut progress, blind, (9.0, 0.45), 0.1, &settings);
        let mut waited = 0.0;
        let outcome = loop {
            waited += 0.1;
            match judge_progress(&mut progress, blind, (9.0, 0.45), 0.1, &settings) {
                Progress::Moving => {}
                outcome => break outcome,
            }
        };
        assert_eq!(outcome, Progress::HeldUp { seen: false });
        assert!(waited < settings.stuck_after * 0.25, "{waited}");
    }

    #[test]
    fn an_agent_stuck_beside_its_goal_stops_rather_than_searching_again() {
        let settings = ProgressSettings {
            stuck_after: 0.0,
            ..settings()
        };
        let last = target((1, 4), true);
        let mut progress = CrowdProgress::default();
        judge_progress(&mut progress, last, (1.5, 0.45), 0.1, &settings);
        assert_eq!(
            judge_progress(&mut progress, last, (1.5, 0.45), 0.1, &settings),
            Progress::Arrived
        );
        let mut far = CrowdProgress::default();
        judge_progress(&mut far, last, (30.0, 0.45), 0.1, &settings);
        assert_eq!(
            judge_progress(&mut far, last, (30.0, 0.45), 0.1, &settings),
            HELD_UP
        );
    }
}
