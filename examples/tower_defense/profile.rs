//! Frame-time measurements, with `TOWER_DEFENSE_LOG_FRAMES` set: every few seconds of wall-clock
//! time the log gets the frame time, the main world's update, the time each of the game's own
//! systems took (each is added through [`timed`], which times its run) and their sum, and the
//! span of the plugin's stages (`Invalidate` to `Follow`), with the creep count and the
//! plugin's work.
//!
//! The game's systems are timed exactly, run by run. The plugin's span is read between two
//! marker systems, so it also holds whatever the executor runs between them (other plugins'
//! systems, command flushes): it is the plugin's cost as the frame sees it, an upper bound.
//!
//! ```text
//! TOWER_DEFENSE_LOG_FRAMES=1 cargo run --example tower_defense
//! ```

use crate::GameSystems;
use crate::creeps::Creep;
use bevy::ecs::system::{Adapt, IntoAdapterSystem, RunSystemError, SystemIn};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy_astar::egui_panel::PathfindingFrameTimes;
use bevy_astar::prelude::*;
use core::time::Duration;
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

/// Seconds between two frame-time lines in the log.
const LOG_INTERVAL: f32 = 5.0;

/// Whether the frame times are measured and logged.
fn logging() -> bool {
    static LOGGING: OnceLock<bool> = OnceLock::new();
    *LOGGING.get_or_init(|| std::env::var_os("TOWER_DEFENSE_LOG_FRAMES").is_some())
}

/// The time each timed system took since the last log line, by name.
static SYSTEM_TIMES: Mutex<BTreeMap<&'static str, Duration>> = Mutex::new(BTreeMap::new());

/// `system`, timed under `name` when the frame times are logged.
pub(crate) fn timed<Marker, S>(name: &'static str, system: S) -> IntoAdapterSystem<Timed, S>
where
    S: IntoSystem<(), (), Marker>,
{
    IntoAdapterSystem::new(Timed(name), system)
}

/// Times the system it adapts (see [`timed`]).
pub(crate) struct Timed(&'static str);

impl<S: System<In = ()>> Adapt<S> for Timed {
    type In = ();
    type Out = S::Out;

    fn adapt(
        &mut self,
        (): (),
        run_system: impl FnOnce(SystemIn<'_, S>) -> Result<S::Out, RunSystemError>,
    ) -> Result<S::Out, RunSystemError> {
        if !logging() {
            return run_system(());
        }
        let started = Instant::now();
        let out = run_system(());
        let took = started.elapsed();
        if let Ok(mut times) = SYSTEM_TIMES.lock() {
            *times.entry(self.0).or_default() += took;
        }
        out
    }
}

pub(crate) fn plugin(app: &mut App) {
    if !logging() {
        return;
    }
    app.init_resource::<Spans>()
        .add_systems(First, start(Span::Update))
        .add_systems(
            Update,
            (
                start(Span::Plugin)
                    .after(GameSystems::Build)
                    .before(PathfindingSystems::Invalidate),
                stop(Span::Plugin)
                    .after(PathfindingSystems::Follow)
                    .before(GameSystems::Locate),
            ),
        )
        .add_systems(Last, (stop(Span::Update), log_frame_times).chain());
}

/// A span of the frame that is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Span {
    /// The main world's update, `First` to `Last`.
    Update,
    /// The plugin's stages, `Invalidate` to `Follow`.
    Plugin,
}

const SPANS: usize = 2;

impl Span {
    const fn index(self) -> usize {
        self as usize
    }
}

/// The spans measured since the last log line.
#[derive(Resource, Default)]
struct Spans {
    started: [Option<Instant>; SPANS],
    total: [Duration; SPANS],
    worst: [Duration; SPANS],
    /// The span of this frame so far (a span may be measured in pieces).
    this_frame: [Duration; SPANS],
    frames: u32,
}

fn start(span: Span) -> impl Fn(ResMut<Spans>) {
    move |mut spans: ResMut<Spans>| spans.started[span.index()] = Some(Instant::now())
}

fn stop(span: Span) -> impl Fn(ResMut<Spans>) {
    move |mut spans: ResMut<Spans>| {
        if let Some(started) = spans.started[span.index()].take() {
            spans.this_frame[span.index()] += started.elapsed();
        }
    }
}

/// Milliseconds of a duration.
fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// Closes the frame's spans and logs the means and worsts every few seconds.
fn log_frame_times(
    frame: Res<PathfindingFrameTimes>,
    stats: Res<PathfindingStats>,
    creeps: Query<(), With<Creep>>,
    mut spans: ResMut<Spans>,
    mut next: Local<Option<Instant>>,
) {
    let spans = &mut *spans;
    for index in 0..SPANS {
        let this_frame = core::mem::take(&mut spans.this_frame[index]);
        spans.total[index] += this_frame;
        spans.worst[index] = spans.worst[index].max(this_frame);
    }
    spans.frames += 1;
    let now = Instant::now();
    if next.is_some_and(|next| now < next) {
        return;
    }
    *next = Some(now + Duration::from_secs_f32(LOG_INTERVAL));
    let mean = |span: Span| millis(spans.total[span.index()] / spans.frames.max(1));
    let worst = |span: Span| millis(spans.worst[span.index()]);
    let systems = SYSTEM_TIMES
        .lock()
        .map(|mut times| core::mem::take(&mut *times))
        .unwrap_or_default();
    let frames = f64::from(spans.frames.max(1));
    let systems_total: f64 = systems.values().map(|&took| millis(took)).sum::<f64>() / frames;
    let by_system: Vec<String> = systems
        .iter()
        .map(|(name, &took)| format!("{name} {:.3}", millis(took) / frames))
        .collect();
    info!(
        "frame {:.2} ms mean, {:.2} ms worst; update {:.2} ms mean, {:.2} ms worst; game \
         systems {systems_total:.2} ms a frame; plugin stages' span {:.2} ms mean, {:.2} ms \
         worst; {} creeps, {} searches ({} cache hits, {} joined) so far",
        millis(frame.mean),
        millis(frame.worst),
        mean(Span::Update),
        worst(Span::Update),
        mean(Span::Plugin),
        worst(Span::Plugin),
        creeps.iter().len(),
        stats.searches_started,
        stats.cache_hits,
        stats.shared_searches,
    );
    info!("game systems, ms a frame: {}", by_system.join(", "));
    let started = core::mem::take(&mut spans.started);
    *spans = Spans {
        started,
        ..Spans::default()
    };
}
