//! `PathfindingDiagnosticsPlugin`: registers the pathfinding diagnostics and measures them, the
//! stage times with marks between the [`PathfindingSystems`] sets, the rest from [`PathfindingStats`]
//! once a frame.

use super::{
    APPLY_MS, CACHE_HIT_PERCENT, DISPATCH_MS, FLOW_FIELDS, FOLLOW_MS, GOAL_TREES,
    HIERARCHY_SECTORS_WAITING, IN_FLIGHT, INVALIDATE_MS, PATHS_CUT_PER_SECOND, QUEUE_LENGTH,
    SEARCHES_PER_SECOND, STAGE_MS,
};
use crate::{PathfindingStats, PathfindingSystems};
use bevy::diagnostic::{
    DEFAULT_MAX_HISTORY_LENGTH, Diagnostic, DiagnosticPath, Diagnostics, RegisterDiagnostic,
};
use bevy::platform::sync::atomic::{AtomicU64, Ordering};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::time::Real;
use core::time::Duration;

/// Registers the pathfinding figures as Bevy [`Diagnostic`]s (the paths in
/// [`crate::diagnostics`]) and measures them every frame, so that `LogDiagnosticsPlugin`,
/// diagnostics overlays and inspectors show them.
///
/// Add it after [`AStarPlugin`](crate::AStarPlugin): it marks the time between the
/// [`PathfindingSystems`] sets in the schedule the pathfinding runs in
/// ([`AStarPlugin::in_schedule`](crate::AStarPlugin::in_schedule)), and reads
/// [`PathfindingStats`] in [`Last`]. The cost is five reads of the clock in the pathfinding
/// schedule and ten measurements in `Last` a frame.
///
/// ```
/// use bevy::diagnostic::{Diagnostic, DiagnosticsStore, LogDiagnosticsPlugin};
/// use bevy::prelude::*;
/// use bevy_astar::diagnostics::{self, PathfindingDiagnosticsPlugin};
/// use bevy_astar::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, AStarPlugin::default()))
///     .add_plugins(PathfindingDiagnosticsPlugin::default())
///     // Logs the diagnostics every second; `LogDiagnosticsPlugin::filtered` with
///     // `diagnostics::ALL` would log these alone.
///     .add_plugins(LogDiagnosticsPlugin::default())
///     .insert_resource(NavGrid::new(Grid::new(32, 32)));
/// app.world_mut().spawn(PathRequest::new(Cell::new(0, 0), Cell::new(31, 20)));
/// for _ in 0..3 {
///     app.update();
/// }
/// let store = app.world().resource::<DiagnosticsStore>();
/// let queued = store.get(&diagnostics::QUEUE_LENGTH).and_then(Diagnostic::value);
/// let stats = app.world().resource::<PathfindingStats>();
/// assert_eq!(queued, Some(stats.queue_length as f64));
/// let dispatch_ms = store.get(&diagnostics::DISPATCH_MS).and_then(Diagnostic::smoothed);
/// assert!(dispatch_ms.is_some_and(|ms| ms >= 0.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathfindingDiagnosticsPlugin {
    /// Measurements each diagnostic keeps, over which
    /// [`Diagnostic::average`] is taken (Bevy's default, 120).
    pub max_history_length: usize,
    /// The smoothing of [`Diagnostic::smoothed`], in seconds: about the time a jump in a figure
    /// takes to show in it (`2 / (max_history_length + 1)` by default, as Bevy's frame time).
    pub smoothing_factor: f64,
}

impl Default for PathfindingDiagnosticsPlugin {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_HISTORY_LENGTH)
    }
}

impl PathfindingDiagnosticsPlugin {
    /// Keeps `max_history_length` measurements per diagnostic, with the smoothing Bevy's
    /// `FrameTimeDiagnosticsPlugin` takes for that length.
    #[must_use]
    pub fn new(max_history_length: usize) -> Self {
        Self {
            max_history_length,
            smoothing_factor: 2.0 / (max_history_length as f64 + 1.0),
        }
    }
}

/// Each diagnostic with the suffix its values are logged with.
const SUFFIXES: [(DiagnosticPath, &str); 12] = [
    (INVALIDATE_MS, "ms"),
    (DISPATCH_MS, "ms"),
    (APPLY_MS, "ms"),
    (FOLLOW_MS, "ms"),
    (SEARCHES_PER_SECOND, "/s"),
    (PATHS_CUT_PER_SECOND, "/s"),
    (CACHE_HIT_PERCENT, "%"),
    (QUEUE_LENGTH, ""),
    (IN_FLIGHT, ""),
    (FLOW_FIELDS, ""),
    (GOAL_TREES, ""),
    (HIERARCHY_SECTORS_WAITING, ""),
];

/// Indices of the stages in [`StageClock::frame`] and [`STAGE_MS`].
const INVALIDATE: usize = 0;
const DISPATCH: usize = 1;
const APPLY: usize = 2;
const FOLLOW: usize = 3;

impl Plugin for PathfindingDiagnosticsPlugin {
    fn build(&self, app: &mut App) {
        for (path, suffix) in SUFFIXES {
            app.register_diagnostic(
                Diagnostic::new(path)
                    .with_suffix(suffix)
                    .with_max_history_length(self.max_history_length)
                    .with_smoothing_factor(self.smoothing_factor),
            );
        }
        let schedule = crate::schedule::pathfinding_schedule(app, "PathfindingDiagnosticsPlugin");
        app.init_resource::<StageClock>()
            .add_systems(
                schedule,
                (
                    marked
                        .run_if(start_stages)
                        .before(PathfindingSystems::Invalidate),
                    marked
                        .run_if(end_stage::<INVALIDATE>)
                        .after(PathfindingSystems::Invalidate)
                        .before(PathfindingSystems::Dispatch),
                    marked
                        .run_if(end_stage::<DISPATCH>)
                        .after(PathfindingSystems::Dispatch)
                        .before(PathfindingSystems::Apply),
                    marked
                        .run_if(end_stage::<APPLY>)
                        .after(PathfindingSystems::Apply)
                        .before(PathfindingSystems::Follow),
                    marked
                        .run_if(end_stage::<FOLLOW>)
                        .after(PathfindingSystems::Follow),
                )
                    .in_set(StageMarks),
            )
            // After the marks even when the pathfinding runs in `Last` too.
            .add_systems(Last, publish_diagnostics.after(StageMarks));
    }
}

/// The marks of the clock between the stages.
///
/// Each mark is the run condition of a system that never runs ([`marked`]): Bevy's executor
/// evaluates a condition itself, where it decides what to run next, and goes straight on to the
/// systems after a skipped one, whereas a system that runs is handed to a thread of the task
/// pool and its completion sent back. On a two-core machine, five marks as systems added 12 to
/// 22 us a frame (the more while searches kept the threads busy); the whole plugin with the
/// marks as conditions adds 2 to 12 us, most of it the one system in `Last`.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct StageMarks;

/// The system the marks are the run conditions of; they always skip it.
fn marked() {}

/// "No mark yet" in [`StageClock::mark`].
const NO_MARK: u64 = u64::MAX;

/// Wall time of each stage in the current frame, and the clock's last mark, in nanoseconds since
/// `epoch`. Atomic, because run conditions only read the world.
#[derive(Resource)]
struct StageClock {
    epoch: Instant,
    /// When the previous stage ended (or the first began) in this run of the schedule.
    mark: AtomicU64,
    /// Time of each stage so far this frame, summed over the runs of the schedule.
    frame: [AtomicU64; 4],
}

impl Default for StageClock {
    fn default() -> Self {
        Self {
            epoch: Instant::now(),
            mark: AtomicU64::new(NO_MARK),
            frame: Default::default(),
        }
    }
}

impl StageClock {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(NO_MARK - 1)
    }

    /// Adds the time since the last mark to `stage` and marks its end.
    fn end_stage(&self, stage: usize) {
        let now = self.now();
        let mark = self.mark.swap(now, Ordering::Relaxed);
        if mark != NO_MARK {
            self.frame[stage].fetch_add(now.saturating_sub(mark), Ordering::Relaxed);
        }
    }

    /// The time of each stage this frame; starts the next frame from zero.
    fn take_frame(&self) -> [Duration; 4] {
        self.frame
            .each_ref()
            .map(|nanos| Duration::from_nanos(nanos.swap(0, Ordering::Relaxed)))
    }
}

/// Marks the start of the stages (a run condition: see [`StageMarks`]).
fn start_stages(clock: Res<StageClock>) -> bool {
    let now = clock.now();
    clock.mark.store(now, Ordering::Relaxed);
    false
}

/// Marks the end of stage `STAGE` (a run condition: see [`StageMarks`]).
fn end_stage<const STAGE: usize>(clock: Res<StageClock>) -> bool {
    clock.end_stage(STAGE);
    false
}

/// The counters the rates are taken from, as read at the last measurement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counters {
    searches_started: u64,
    paths_invalidated: u64,
    cache_hits: u64,
    cache_misses: u64,
}

impl Counters {
    fn read(stats: &PathfindingStats) -> Self {
        Self {
            searches_started: stats.searches_started,
            paths_invalidated: stats.paths_invalidated,
            cache_hits: stats.cache_hits,
            cache_misses: stats.cache_misses,
        }
    }
}

/// The rates of one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FrameRates {
    searches_per_second: f64,
    paths_cut_per_second: f64,
    /// `None` when the frame looked nothing up in the cache.
    cache_hit_percent: Option<f64>,
}

/// The rates from `before` to `after`, `seconds` of real time apart; `None` when no time passed
/// (the first frame), the counts then to be taken over the next frame. A counter that went down
/// (the stats were replaced) counts as unchanged.
fn frame_rates(before: Counters, after: Counters, seconds: f64) -> Option<FrameRates> {
    if !seconds.is_finite() || seconds <= 0.0 {
        return None;
    }
    let grown = |before: u64, after: u64| after.saturating_sub(before) as f64;
    let hits = grown(before.cache_hits, after.cache_hits);
    let lookups = hits + grown(before.cache_misses, after.cache_misses);
    Some(FrameRates {
        searches_per_second: grown(before.searches_started, after.searches_started) / seconds,
        paths_cut_per_second: grown(before.paths_invalidated, after.paths_invalidated) / seconds,
        cache_hit_percent: (lookups > 0.0).then(|| hits * 100.0 / lookups),
    })
}

/// Records the frame's measurements: the stage times (then zeroed for the next frame), the
/// queue, searches and flow fields held, and the rates since the last measurement.
fn publish_diagnostics(
    stats: Option<Res<PathfindingStats>>,
    time: Res<Time<Real>>,
    clock: Res<StageClock>,
    mut counted: Local<Counters>,
    mut diagnostics: Diagnostics,
) {
    for (path, elapsed) in STAGE_MS.iter().zip(clock.take_frame()) {
        diagnostics.add_measurement(path, || elapsed.as_secs_f64() * 1e3);
    }
    let Some(stats) = stats else {
        return;
    };
    diagnostics.add_measurement(&QUEUE_LENGTH, || stats.queue_length as f64);
    diagnostics.add_measurement(&IN_FLIGHT, || stats.in_flight as f64);
    diagnostics.add_measurement(&FLOW_FIELDS, || stats.flow_fields as f64);
    diagnostics.add_measurement(&GOAL_TREES, || stats.goal_trees as f64);
    diagnostics.add_measurement(&HIERARCHY_SECTORS_WAITING, || {
        stats.hierarchy_sectors_waiting as f64
    });
    let now = Counters::read(&stats);
    let Some(rates) = frame_rates(*counted, now, time.delta_secs_f64()) else {
        return;
    };
    *counted = now;
    diagnostics.add_measurement(&SEARCHES_PER_SECOND, || rates.searches_per_second);
    diagnostics.add_measurement(&PATHS_CUT_PER_SECOND, || rates.paths_cut_per_second);
    if let Some(percent) = rates.cache_hit_percent {
        diagnostics.add_measurement(&CACHE_HIT_PERCENT, || percent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::ALL;

    fn counters(searches_started: u64, paths_invalidated: u64, hits: u64, misses: u64) -> Counters {
        Counters {
            searches_started,
            paths_invalidated,
            cache_hits: hits,
            cache_misses: misses,
        }
    }

    #[test]
    fn rates_are_the_growth_over_the_frame_time() {
        let rates = frame_rates(counters(10, 4, 3, 1), counters(14, 5, 6, 2), 0.5);
        assert_eq!(
            rates,
            Some(FrameRates {
                searches_per_second: 8.0,
                paths_cut_per_second: 2.0,
                cache_hit_percent: Some(75.0),
            })
        );
    }

    #[test]
    fn a_frame_without_lookups_has_no_hit_percentage_and_a_frame_without_time_no_rates() {
        let same = counters(1, 2, 3, 4);
        let rates = frame_rates(same, same, 0.25).expect("time passed");
        assert_eq!(rates.cache_hit_percent, None);
        assert_eq!(rates.searches_per_second, 0.0);
        assert_eq!(frame_rates(same, counters(9, 9, 9, 9), 0.0), None);
        assert_eq!(frame_rates(same, counters(9, 9, 9, 9), f64::NAN), None);
    }

    #[test]
    fn replaced_stats_count_as_no_growth() {
        let rates = frame_rates(counters(50, 50, 50, 50), counters(0, 1, 0, 0), 1.0);
        assert_eq!(
            rates,
            Some(FrameRates {
                searches_per_second: 0.0,
                paths_cut_per_second: 0.0,
                cache_hit_percent: None,
            })
        );
    }

    #[test]
    fn every_diagnostic_has_its_suffix_once() {
        for (index, path) in ALL.iter().enumerate() {
            assert_eq!(
                SUFFIXES.iter().filter(|(named, _)| named == path).count(),
                1,
                "{path}"
            );
            assert_eq!(SUFFIXES[index].0, *path, "same order as ALL");
        }
        for (stage, path) in [INVALIDATE, DISPATCH, APPLY, FOLLOW].into_iter().zip(ALL) {
            assert_eq!(STAGE_MS[stage], path);
        }
    }
}
