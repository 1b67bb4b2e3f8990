//! Headless tests of the pathfinding diagnostics: every figure is in Bevy's `DiagnosticsStore`,
//! measured each frame from the plugin's statistics and stage times, and `LogDiagnosticsPlugin`
//! logs them.

pub mod common;

use bevy::diagnostic::{Diagnostic, DiagnosticPath, DiagnosticsStore, LogDiagnosticsPlugin};
use bevy::log::tracing::field::{Field, Visit};
use bevy::log::tracing::{Event, Subscriber};
use bevy::log::tracing_subscriber::layer::Context;
use bevy::log::tracing_subscriber::prelude::*;
use bevy::log::tracing_subscriber::{self, Layer};
use bevy::prelude::*;
use bevy_astar::diagnostics::{self, PathfindingDiagnosticsPlugin};
use bevy_astar::prelude::*;
use common::{FRAME, MAX_FRAMES, app_with_grid, block, is_settled, path, spawn, spawn_all, stats};
use core::fmt;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Six agents crossing a 32 x 32 open map, each to a goal of its own.
fn requests() -> [PathRequest; 6] {
    [
        ((0, 0), (31, 31)),
        ((0, 31), (31, 0)),
        ((5, 5), (25, 10)),
        ((10, 0), (10, 31)),
        ((31, 15), (0, 15)),
        ((3, 28), (28, 3)),
    ]
    .map(|((sx, sy), (gx, gy))| PathRequest::new(Cell::new(sx, sy), Cell::new(gx, gy)))
}

/// A headless app on a 32 x 32 open map with the diagnostics (keeping every measurement) and
/// `log_plugin`, updated once: real time does not move in the first update, so that every
/// later frame measures its rates.
fn diagnostics_app(log_plugin: Option<LogDiagnosticsPlugin>) -> App {
    // Two searches a frame, so that six agents leave some queued at the end of a frame.
    let plugin = AStarPlugin::default().with_max_searches_per_frame(2);
    let mut app = app_with_grid(plugin, Grid::new(32, 32));
    app.add_plugins(PathfindingDiagnosticsPlugin::new(100_000));
    if let Some(log_plugin) = log_plugin {
        app.add_plugins(log_plugin);
    }
    app.update();
    app
}

fn diagnostic<'a>(app: &'a App, path: &DiagnosticPath) -> &'a Diagnostic {
    app.world()
        .resource::<DiagnosticsStore>()
        .get(path)
        .unwrap_or_else(|| panic!("{path} is registered"))
}

/// Measurements `path` holds.
fn measured(app: &App, path: &DiagnosticPath) -> usize {
    diagnostic(app, path).history_len()
}

/// The latest measurement of `path`.
fn latest(app: &App, path: &DiagnosticPath) -> f64 {
    diagnostic(app, path)
        .value()
        .unwrap_or_else(|| panic!("{path} was measured"))
}

fn assert_close(found: f64, expected: f64, what: &str) {
    assert!(
        (found - expected).abs() <= 1e-9 * expected.abs().max(1.0),
        "{what}: measured {found}, expected {expected}"
    );
}

/// What one frame measured.
#[derive(Clone, Copy, Debug, Default)]
struct FrameFigures {
    searches_per_second: f64,
    paths_cut_per_second: f64,
    cache_hit_percent: Option<f64>,
    queue_length: f64,
    stage_ms: [f64; 4],
}

/// Updates `app` once and checks that every diagnostic measured the frame as the statistics
/// before and after it say; returns the frame's figures.
fn checked_update(app: &mut App) -> FrameFigures {
    let before = stats(app);
    let counts_before = diagnostics::ALL.map(|path| measured(app, &path));
    let update_began = Instant::now();
    app.update();
    let update_ms = update_began.elapsed().as_secs_f64() * 1e3;
    let after = stats(app);
    let seconds = FRAME.as_secs_f64();
    let hits = after.cache_hits - before.cache_hits;
    let lookups = hits + after.cache_misses - before.cache_misses;
    for (path, count_before) in diagnostics::ALL.iter().zip(counts_before) {
        // The hit percentage is measured in frames with lookups only; the rest every frame.
        let expected = usize::from(*path != diagnostics::CACHE_HIT_PERCENT || lookups > 0);
        assert_eq!(
            measured(app, path) - count_before,
            expected,
            "measurements of {path} in one frame"
        );
    }
    for (path, expected) in [
        (diagnostics::QUEUE_LENGTH, after.queue_length),
        (diagnostics::IN_FLIGHT, after.in_flight),
        (diagnostics::FLOW_FIELDS, after.flow_fields),
        (diagnostics::GOAL_TREES, after.goal_trees),
        (
            diagnostics::HIERARCHY_SECTORS_WAITING,
            after.hierarchy_sectors_waiting,
        ),
    ] {
        assert_eq!(latest(app, &path), expected as f64, "{path}");
    }
    let per_second = |before: u64, after: u64| (after - before) as f64 / seconds;
    let figures = FrameFigures {
        searches_per_second: latest(app, &diagnostics::SEARCHES_PER_SECOND),
        paths_cut_per_second: latest(app, &diagnostics::PATHS_CUT_PER_SECOND),
        cache_hit_percent: (lookups > 0).then(|| latest(app, &diagnostics::CACHE_HIT_PERCENT)),
        queue_length: latest(app, &diagnostics::QUEUE_LENGTH),
        stage_ms: [
            diagnostics::INVALIDATE_MS,
            diagnostics::DISPATCH_MS,
            diagnostics::APPLY_MS,
            diagnostics::FOLLOW_MS,
        ]
        .map(|path| latest(app, &path)),
    };
    assert_close(
        figures.searches_per_second,
        per_second(before.searches_started, after.searches_started),
        "searches per second",
    );
    assert_close(
        figures.paths_cut_per_second,
        per_second(before.paths_invalidated, after.paths_invalidated),
        "paths cut per second",
    );
    if let Some(percent) = figures.cache_hit_percent {
        let expected = hits as f64 * 100.0 / lookups as f64;
        assert_close(percent, expected, "cache hit percent");
    }
    for ms in figures.stage_ms {
        assert!(ms.is_finite() && ms >= 0.0, "stage time {ms} ms");
    }
    // The stages run one after the other within the update: this frame's times, not more.
    let stages_ms: f64 = figures.stage_ms.iter().sum();
    assert!(
        stages_ms <= update_ms + 1e-6,
        "stages took {stages_ms} ms in an update of {update_ms} ms"
    );
    figures
}

/// Runs checked frames until every agent has a final status and nothing is queued or running;
/// returns the frames' figures.
fn settle_checked(app: &mut App, agents: &[Entity]) -> Vec<FrameFigures> {
    let mut frames = Vec::new();
    for _ in 0..MAX_FRAMES {
        frames.push(checked_update(app));
        if is_settled(app, agents) {
            return frames;
        }
    }
    panic!("requests still pending after {MAX_FRAMES} frames");
}

#[test]
fn every_figure_is_in_the_store_as_the_frame_measured_it() {
    let mut app = diagnostics_app(None);
    let requests = requests();
    let agents = spawn_all(&mut app, &requests);
    let mut frames = settle_checked(&mut app, &agents);
    assert!(
        frames.iter().any(|frame| frame.searches_per_second > 0.0),
        "searches started"
    );
    assert!(
        frames.iter().any(|frame| frame.queue_length > 0.0),
        "requests waited in the queue"
    );
    // The same request again is served from the cache.
    let again = spawn(&mut app, requests[1]);
    let cached = settle_checked(&mut app, &[again]);
    assert!(
        cached
            .iter()
            .any(|frame| frame.cache_hit_percent == Some(100.0)),
        "a frame whose only lookup hit: {cached:?}"
    );
    frames.extend(cached);
    // A wall across the first agent's path cuts it.
    let cells = path(&app, agents[0]).cells().clone();
    block(&mut app, cells[cells.len() / 2]);
    let cut = settle_checked(&mut app, &agents);
    assert!(
        cut.iter().any(|frame| frame.paths_cut_per_second > 0.0),
        "a path was cut: {cut:?}"
    );
    frames.extend(cut);
    // Each stage took some time in the run.
    for stage in 0..4 {
        let total: f64 = frames.iter().map(|frame| frame.stage_ms[stage]).sum();
        assert!(total > 0.0, "stage {stage} took no time over the run");
    }
}

/// Lines logged by `LogDiagnosticsPlugin` (target `bevy_diagnostic`), from any thread.
static DIAGNOSTIC_LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Keeps the lines `LogDiagnosticsPlugin` logs in [`DIAGNOSTIC_LINES`].
struct DiagnosticLines;

/// The message and the `log` target of an event (`LogDiagnosticsPlugin` logs through the
/// `log` crate, whose records reach `tracing` with their target as a field).
#[derive(Default)]
struct LoggedFields {
    target: Option<String>,
    message: String,
}

impl Visit for LoggedFields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "log.target" => self.target = Some(value.to_owned()),
            "message" => value.clone_into(&mut self.message),
            _ => {}
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        }
    }
}

impl<S: Subscriber> Layer<S> for DiagnosticLines {
    fn on_event(&self, event: &Event<'_>, _context: Context<'_, S>) {
        let mut fields = LoggedFields::default();
        event.record(&mut fields);
        let target = fields
            .target
            .as_deref()
            .unwrap_or(event.metadata().target());
        if target == "bevy_diagnostic" {
            DIAGNOSTIC_LINES
                .lock()
                .expect("no test panicked while holding the lines")
                .push(fields.message);
        }
    }
}

/// Installs [`DiagnosticLines`] as the process's subscriber and `log` logger, once. The
/// systems that log run on any of the executor's threads, so the capture cannot be a scoped
/// default of the test's thread.
fn capture_diagnostic_lines() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        tracing_subscriber::registry()
            .with(DiagnosticLines)
            .try_init()
            .expect("no other subscriber or logger in this test binary");
    });
}

#[test]
fn log_diagnostics_plugin_logs_every_pathfinding_figure() {
    capture_diagnostic_lines();
    let mut app = diagnostics_app(Some(LogDiagnosticsPlugin {
        wait_duration: FRAME * 4,
        ..LogDiagnosticsPlugin::default()
    }));
    spawn_all(&mut app, &requests());
    for _ in 0..20 {
        app.update();
    }
    let lines = DIAGNOSTIC_LINES
        .lock()
        .expect("no test panicked while holding the lines")
        .clone();
    for path in diagnostics::ALL {
        let logged: Vec<&String> = lines
            .iter()
            .filter(|line| line.split(':').next().map(str::trim) == Some(path.as_str()))
            .collect();
        // Logged every 4 frames of the 20, each time with a number (and its unit).
        assert!(
            logged.len() >= 4,
            "{path} logged {} times in {lines:#?}",
            logged.len()
        );
        for line in logged {
            let value = line
                .split(':')
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|number| number.trim_end_matches(['m', 's', '/', '%']).parse().ok());
            assert!(
                value.is_some_and(|value: f64| value.is_finite() && value >= 0.0),
                "a value in {line:?}"
            );
        }
    }
    let invalidate = lines
        .iter()
        .find(|line| line.starts_with(diagnostics::INVALIDATE_MS.as_str()))
        .expect("the invalidate time is logged");
    assert!(
        invalidate.contains("ms (avg"),
        "with its unit: {invalidate:?}"
    );
}
