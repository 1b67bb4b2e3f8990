//! Progress along a route: whether an agent comes closer to the waypoint it aims at, and what
//! it is when it does not (arrived beside its goal, or held up, for the knot rules to judge).

use super::progress::{AgentProgress, ProgressSettings};
use super::route::{RouteTarget, arrival_reach};

/// The share of [`ProgressSettings::stuck_after`] an agent out of sight of its waypoint waits
/// without progress before it is held up.
pub const BLIND_PATIENCE: f32 = 1.0 / 6.0;

/// What an agent's progress along its route says ([`RouteProgress::judge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressVerdict {
    /// Closer to its waypoint, or not yet waiting long.
    Moving,
    /// Held up near its goal, which others stand on: it stops there.
    Arrived,
    /// Held up: the knot rules decide whether it queues or is stuck
    /// ([`AgentProgress::judge_held_up`]); it may queue only when it sees its waypoint.
    HeldUp {
        /// Whether its cell sees its waypoint.
        seen: bool,
    },
}

/// How far an agent has got towards the waypoint it aims at, to tell when it is held up.
///
/// Progress is measured towards the waypoint aimed at: coming [`ProgressSettings::stuck_distance`]
/// closer to it, or aiming at a waypoint further along the route than ever before. Aiming back
/// and forth between waypoints aimed at before is not progress (an agent on the line between
/// two cells may aim at one from each).
///
/// ```
/// use astar_grid::crowd::{ProgressSettings, ProgressVerdict, RouteProgress, RouteTarget, Vector};
///
/// let settings = ProgressSettings::default();
/// let target = RouteTarget { point: Vector::new(9.0, 0.0), last: false, key: (1, 1), seen: true };
/// let mut progress = RouteProgress::default();
/// // Standing 5 cells off for three seconds: held up.
/// let verdicts: Vec<_> = (0..4).map(|_| progress.judge(target, (5.0, 0.35), 1.0, &settings)).collect();
/// assert_eq!(verdicts[..3], [ProgressVerdict::Moving; 3]);
/// assert_eq!(verdicts[3], ProgressVerdict::HeldUp { seen: true });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RouteProgress {
    /// The route number and waypoint being measured.
    target: (u64, usize),
    /// The furthest waypoint of that route aimed at so far.
    furthest: usize,
    /// The smallest distance to the measured waypoint so far, in cells.
    best: f32,
    /// The time since the last progress, and whether the agent steps aside: the knot rules.
    pub knot: AgentProgress,
}

impl RouteProgress {
    /// Updates the progress of an agent `distance` cells from `target`, of `radius`, after
    /// `time_step` more seconds, and says what it is.
    pub fn judge(
        &mut self,
        target: RouteTarget,
        (distance, radius): (f32, f32),
        time_step: f32,
        settings: &ProgressSettings,
    ) -> ProgressVerdict {
        let (route, index) = target.key;
        let new_route = self.target.0 != route;
        let closer = self.target == target.key && distance < self.best - settings.stuck_distance;
        if new_route || index > self.furthest || closer {
            self.target = target.key;
            self.furthest = if new_route {
                index
            } else {
                index.max(self.furthest)
            };
            self.best = distance;
            self.knot.restart();
            return ProgressVerdict::Moving;
        }
        if self.target != target.key {
            // Back to a waypoint aimed at before: measured afresh, not progress.
            self.target = target.key;
            self.best = distance;
        }
        // Out of sight of its waypoint (pushed behind a corner), it waits less.
        let patience = if target.seen { 1.0 } else { BLIND_PATIENCE };
        if !self.knot.wait(time_step, settings.stuck_after * patience) {
            return ProgressVerdict::Moving;
        }
        self.best = distance;
        if target.seen && target.last && distance <= arrival_reach(radius) {
            ProgressVerdict::Arrived
        } else {
            ProgressVerdict::HeldUp { seen: target.seen }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::Vector;

    fn target(key: (u64, usize), last: bool) -> RouteTarget {
        RouteTarget {
            point: Vector::new(5.0, 5.0),
            last,
            key,
            seen: true,
        }
    }

    const HELD_UP: ProgressVerdict = ProgressVerdict::HeldUp { seen: true };

    #[test]
    fn progress_resets_on_a_new_waypoint_and_on_real_progress() {
        let settings = ProgressSettings::default();
        let mut progress = RouteProgress::default();
        let step = 0.5;
        let first = target((1, 1), false);
        let judge = |progress: &mut RouteProgress, target, distance| {
            progress.judge(target, (distance, 0.45), step, &settings)
        };
        assert_eq!(judge(&mut progress, first, 10.0), ProgressVerdict::Moving);
        // Creeping closer by less than stuck_distance does not count; after stuck_after
        // seconds the agent is held up.
        let mut outcome = ProgressVerdict::Moving;
        let mut waited = 0.0;
        while outcome == ProgressVerdict::Moving {
            waited += step;
            outcome = judge(&mut progress, first, 9.9);
        }
        assert_eq!(outcome, HELD_UP);
        assert!((waited - settings.stuck_after).abs() < 1e-3);
        // Real progress resets the clock.
        judge(&mut progress, first, 9.9);
        assert_eq!(judge(&mut progress, first, 9.0), ProgressVerdict::Moving);
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
        let settings = ProgressSettings::default();
        let mut progress = RouteProgress::default();
        let step = 0.1;
        let (near, far) = (target((1, 2), false), target((1, 5), false));
        let mut waited = 0.0;
        let mut frame = 0_u32;
        let outcome = loop {
            // On the line between two cells: one sees waypoint 5, the other only waypoint 2.
            let aimed = if frame.is_multiple_of(2) { far } else { near };
            frame += 1;
            waited += step;
            match progress.judge(aimed, (3.0, 0.45), step, &settings) {
                ProgressVerdict::Moving if waited < 10.0 => {}
                outcome => break outcome,
            }
        };
        assert_eq!(outcome, HELD_UP);
        assert!(
            (waited - settings.stuck_after).abs() < 2.5 * step,
            "{waited}"
        );
        // Aiming further than ever before is progress.
        progress.judge(near, (3.0, 0.45), step, &settings);
        let further = target((1, 6), false);
        progress.judge(further, (3.0, 0.45), step, &settings);
        assert_eq!((progress.knot.waited(), progress.furthest), (0.0, 6));
    }

    #[test]
    fn an_agent_out_of_sight_of_its_waypoint_is_held_up_sooner() {
        let settings = ProgressSettings::default();
        let blind = RouteTarget {
            seen: false,
            ..target((1, 1), false)
        };
        let mut progress = RouteProgress::default();
        progress.judge(blind, (9.0, 0.45), 0.1, &settings);
        let mut waited = 0.0;
        let outcome = loop {
            waited += 0.1;
            match progress.judge(blind, (9.0, 0.45), 0.1, &settings) {
                ProgressVerdict::Moving => {}
                outcome => break outcome,
            }
        };
        assert_eq!(outcome, ProgressVerdict::HeldUp { seen: false });
        assert!(waited < settings.stuck_after * 0.25, "{waited}");
    }

    #[test]
    fn an_agent_held_up_beside_its_goal_has_arrived() {
        let settings = ProgressSettings {
            stuck_after: 0.0,
            ..ProgressSettings::default()
        };
        let last = target((1, 4), true);
        let mut near = RouteProgress::default();
        near.judge(last, (1.5, 0.45), 0.1, &settings);
        assert_eq!(
            near.judge(last, (1.5, 0.45), 0.1, &settings),
            ProgressVerdict::Arrived
        );
        let mut far = RouteProgress::default();
        far.judge(last, (30.0, 0.45), 0.1, &settings);
        assert_eq!(far.judge(last, (30.0, 0.45), 0.1, &settings), HELD_UP);
    }
}
