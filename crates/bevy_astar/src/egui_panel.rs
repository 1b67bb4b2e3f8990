//! An egui window with the pathfinding statistics, the run-time settings and the debug overlay
//! toggles, added to any app with one plugin (feature `egui`). The figures that are also Bevy
//! diagnostics ([`crate::diagnostics`]) are read from the `DiagnosticsStore` when
//! [`PathfindingDiagnosticsPlugin`](crate::diagnostics::PathfindingDiagnosticsPlugin) measures
//! them.

use crate::debug::PathfindingGizmos;
use crate::diagnostics;
use crate::trace::PathDebugSettings;
use crate::{
    BackgroundPause, CarriedOver, InvalidationPolicy, Path, PathStatus, PathfindingSettings,
    PathfindingStats, SearchThread,
};
use bevy::diagnostic::{DiagnosticPath, DiagnosticsStore};
use bevy::gizmos::config::GizmoConfigStore;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use core::time::Duration;

/// Adds an egui window, "Pathfinding", showing [`PathfindingStats`], the agents by
/// [`PathStatus`] and the frame time, with controls for every field of [`PathfindingSettings`]
/// and for the [`PathfindingDebugPlugin`](crate::debug::PathfindingDebugPlugin) overlays.
///
/// With [`PathfindingDiagnosticsPlugin`](crate::diagnostics::PathfindingDiagnosticsPlugin), the
/// searches started per second, the searches in flight, the queue length and the cache hit
/// rate are the smoothed values of their diagnostics (the hit rate then of recent lookups
/// rather than of the whole run), and the window adds the time of each stage; without it they
/// come from [`PathfindingStats`] and the window's own frame measurement
/// ([`PathfindingFrameTimes`]).
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
/// use bevy_astar::egui_panel::PathfindingPanelPlugin;
///
/// App::new()
///     .add_plugins((DefaultPlugins, AStarPlugin::default(), PathfindingDebugPlugin::default()))
///     .add_plugins(PathfindingPanelPlugin::default())
///     .run();
/// ```
///
/// It adds bevy_egui's [`EguiPlugin`] unless the app already has it (add `EguiPlugin` first when
/// you configure it yourself). The window needs a camera (egui draws on the primary context,
/// created for the first camera) and bevy_egui's `render` feature. The debug toggles act on the
/// [`PathfindingGizmos`] gizmo group and on [`PathDebugSettings`]; they are shown greyed out when the
/// debug plugin is missing. The [`PathfindingPanel`] resource opens and closes the window.
///
/// The window starts collapsed to its title bar, so that it covers no more of the game than
/// that until it is unfolded (a click on the arrow in its title bar, or a double click on the
/// title; [`PathfindingPanelPlugin::with_collapsed`] and [`PathfindingPanel::collapsed`] set it from
/// code). A collapsed window takes the pointer only
/// over its title bar: games that leave the pointer to egui where
/// [`EguiWantsInput::is_pointer_over_area`](bevy_egui::input::EguiWantsInput::is_pointer_over_area)
/// says so get every click elsewhere.
#[derive(Clone, Debug)]
pub struct PathfindingPanelPlugin {
    panel: PathfindingPanel,
}

impl Default for PathfindingPanelPlugin {
    fn default() -> Self {
        Self {
            panel: PathfindingPanel {
                open: true,
                collapsed: true,
                title: "Pathfinding".to_owned(),
                anchor: None,
            },
        }
    }
}

impl PathfindingPanelPlugin {
    /// Sets the window's title (also its egui identity: two panels need two titles).
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.panel.title = title.into();
        self
    }

    /// Pins the window to a corner of the screen, `offset` points away from it (for example
    /// `(egui::Align2::RIGHT_TOP, [-8.0, 8.0])`), instead of letting it float from the top left.
    #[must_use]
    pub fn with_anchor(mut self, corner: egui::Align2, offset: [f32; 2]) -> Self {
        self.panel.anchor = Some((corner, offset.into()));
        self
    }

    /// Starts with the window open or closed (open by default; it can be opened later through
    /// [`PathfindingPanel::open`]).
    #[must_use]
    pub fn with_open(mut self, open: bool) -> Self {
        self.panel.open = open;
        self
    }

    /// Starts with the window collapsed to its title bar, or unfolded (collapsed by default: the
    /// statistics and controls then cover nothing until the player asks for them). The arrow in
    /// the title bar, a double click on the title, or [`PathfindingPanel::collapsed`] folds and
    /// unfolds it later.
    #[must_use]
    pub fn with_collapsed(mut self, collapsed: bool) -> Self {
        self.panel.collapsed = collapsed;
        self
    }
}

impl Plugin for PathfindingPanelPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        app.insert_resource(self.panel.clone())
            .init_resource::<PathfindingFrameTimes>()
            .register_type::<PathfindingPanel>()
            .register_type::<PathfindingFrameTimes>()
            .add_systems(Last, measure_frame_time)
            .add_systems(EguiPrimaryContextPass, draw_panel);
    }
}

/// The state of the window added by [`PathfindingPanelPlugin`].
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Resource, Clone, Debug, PartialEq)]
pub struct PathfindingPanel {
    /// Whether the window is shown; its close button sets this to `false`.
    pub open: bool,
    /// Whether the window shows its title bar only (`true` at the start unless
    /// [`PathfindingPanelPlugin::with_collapsed`] says otherwise). The arrow in the title bar and
    /// a double click on the title flip it; setting it folds or unfolds the window on the next
    /// frame.
    pub collapsed: bool,
    /// The window's title.
    pub title: String,
    /// The screen corner the window is pinned to and its offset from it, or `None` for a
    /// window that floats (and can be dragged) from the top left.
    pub anchor: Option<(egui::Align2, egui::Vec2)>,
}

/// Frame times measured by [`PathfindingPanelPlugin`] over the last half second, on the wall clock
/// (also when [`Time<Real>`] is driven manually, as in Bevy's scripted CI runs).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Resource, Debug, Default, PartialEq)]
pub struct PathfindingFrameTimes {
    /// Mean time between two frames.
    pub mean: Duration,
    /// Longest time between two frames.
    pub worst: Duration,
    /// Frames measured.
    pub frames: u32,
    /// Searches started per second of real time.
    pub searches_per_second: f64,
    /// Requests served from the result cache per second of real time.
    pub cache_hits_per_second: f64,
}

impl PathfindingFrameTimes {
    /// Frames per second matching [`PathfindingFrameTimes::mean`] (0 before the first measurement).
    #[must_use]
    pub fn fps(&self) -> f64 {
        let mean = self.mean.as_secs_f64();
        if mean > 0.0 { 1.0 / mean } else { 0.0 }
    }
}

/// Length of one frame-time measurement window.
const WINDOW: Duration = Duration::from_millis(500);

/// Frame times and counters of the window being measured.
#[derive(Default)]
struct Window {
    elapsed: Duration,
    worst: Duration,
    frames: u32,
    searches_started: u64,
    cache_hits: u64,
}

fn measure_frame_time(
    stats: Option<Res<PathfindingStats>>,
    mut summary: ResMut<PathfindingFrameTimes>,
    mut window: Local<Window>,
    mut last_frame: Local<Option<Instant>>,
) {
    let now = Instant::now();
    let Some(delta) = last_frame
        .replace(now)
        .map(|last| now.saturating_duration_since(last))
    else {
        return;
    };
    window.elapsed += delta;
    window.worst = window.worst.max(delta);
    window.frames += 1;
    if window.elapsed < WINDOW {
        return;
    }
    let (started, hits) = stats.map_or((0, 0), |stats| (stats.searches_started, stats.cache_hits));
    let seconds = window.elapsed.as_secs_f64();
    *summary = PathfindingFrameTimes {
        mean: window.elapsed / window.frames,
        worst: window.worst,
        frames: window.frames,
        searches_per_second: started.saturating_sub(window.searches_started) as f64 / seconds,
        cache_hits_per_second: hits.saturating_sub(window.cache_hits) as f64 / seconds,
    };
    *window = Window {
        searches_started: started,
        cache_hits: hits,
        ..Window::default()
    };
}

/// Everything the panel reads and edits.
#[derive(bevy::ecs::system::SystemParam)]
struct PanelData<'w, 's> {
    panel: ResMut<'w, PathfindingPanel>,
    frame: Res<'w, PathfindingFrameTimes>,
    stats: Option<Res<'w, PathfindingStats>>,
    diagnostics_store: Option<Res<'w, DiagnosticsStore>>,
    settings: Option<ResMut<'w, PathfindingSettings>>,
    gizmos: Option<ResMut<'w, GizmoConfigStore>>,
    debug: Option<ResMut<'w, PathDebugSettings>>,
    paths: Query<'w, 's, &'static Path>,
}

fn draw_panel(mut contexts: EguiContexts, data: PanelData) {
    let PanelData {
        mut panel,
        frame,
        stats,
        diagnostics_store,
        settings,
        gizmos,
        debug,
        paths,
    } = data;
    if !panel.open {
        return;
    }
    let Ok(ctx) = contexts.ctx_mut() else {
        return;
    };
    let figures = ShownFigures::read(stats.as_deref(), &frame, diagnostics_store.as_deref());
    let mut shown = panel.clone();
    show_panel(ctx, &mut shown, |ui| {
        frame_ui(ui, &frame, &figures);
        ui.separator();
        agents_ui(ui, &paths);
        if let Some(stats) = &stats {
            egui::CollapsingHeader::new("Statistics")
                .default_open(true)
                .show(ui, |ui| stats_table(ui, stats, &figures));
        }
        if let Some(mut settings) = settings {
            egui::CollapsingHeader::new("Settings")
                .default_open(false)
                .show(ui, |ui| {
                    let mut edited = settings.clone();
                    if settings_ui(ui, &mut edited) {
                        *settings = edited;
                    }
                });
        }
        egui::CollapsingHeader::new("Debug overlay")
            .default_open(true)
            .show(ui, |ui| {
                debug_ui(ui, gizmos.map(Into::into), debug.map(Into::into));
            });
    });
    panel.set_if_neq(shown);
}

/// Shows the window of `panel` with `contents`, folded or unfolded as `panel.collapsed` says;
/// writes back what the player did to it this pass (closed it, or folded or unfolded it with a
/// click on its title bar).
fn show_panel(
    ctx: &egui::Context,
    panel: &mut PathfindingPanel,
    contents: impl FnOnce(&mut egui::Ui),
) {
    let title = panel.title.as_str();
    // The window keeps its folding in egui's memory under this id; the resource says what it
    // is to be, so that code can fold or unfold it.
    let window_id = egui::Id::new(title);
    let folding_id = window_id.with("collapsing");
    let mut folding =
        egui::collapsing_header::CollapsingState::load_with_default_open(ctx, folding_id, true);
    if folding.is_open() == panel.collapsed {
        folding.set_open(!panel.collapsed);
        folding.store(ctx);
    }
    let mut open = true;
    let mut window = egui::Window::new(title)
        .id(window_id)
        .open(&mut open)
        .default_pos([12.0, 12.0])
        .default_width(250.0)
        .resizable(false);
    if let Some((corner, offset)) = panel.anchor {
        window = window.anchor(corner, offset);
    }
    window.show(ctx, contents);
    if let Some(folding) = egui::collapsing_header::CollapsingState::load(ctx, folding_id) {
        panel.collapsed = !folding.is_open();
    }
    panel.open = open;
}

/// The window's figures that are also [`crate::diagnostics`]: the smoothed value of each
/// diagnostic measured by
/// [`PathfindingDiagnosticsPlugin`](crate::diagnostics::PathfindingDiagnosticsPlugin), else
/// the matching figure of [`PathfindingStats`] or [`PathfindingFrameTimes`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct ShownFigures {
    searches_per_second: f64,
    in_flight: f64,
    queue_length: f64,
    /// Of recent lookups with the diagnostics, of the whole run without.
    cache_hit_percent: f64,
    /// Milliseconds of each stage, in their order; only with the diagnostics.
    stage_ms: Option<[f64; 4]>,
}

impl ShownFigures {
    fn read(
        stats: Option<&PathfindingStats>,
        frame: &PathfindingFrameTimes,
        store: Option<&DiagnosticsStore>,
    ) -> Self {
        let smoothed = |path: &DiagnosticPath| {
            store?
                .get(path)
                .filter(|diagnostic| diagnostic.is_enabled)?
                .smoothed()
        };
        let (in_flight, queue_length, hits, misses) = stats.map_or((0, 0, 0, 0), |stats| {
            (
                stats.in_flight,
                stats.queue_length,
                stats.cache_hits,
                stats.cache_misses,
            )
        });
        let run_hit_percent = if hits + misses == 0 {
            0.0
        } else {
            hits as f64 * 100.0 / (hits + misses) as f64
        };
        let stage_ms = match diagnostics::STAGE_MS.map(|path| smoothed(&path)) {
            [Some(invalidate), Some(dispatch), Some(apply), Some(follow)] => {
                Some([invalidate, dispatch, apply, follow])
            }
            _ => None,
        };
        Self {
            searches_per_second: smoothed(&diagnostics::SEARCHES_PER_SECOND)
                .unwrap_or(frame.searches_per_second),
            in_flight: smoothed(&diagnostics::IN_FLIGHT).unwrap_or(in_flight as f64),
            queue_length: smoothed(&diagnostics::QUEUE_LENGTH).unwrap_or(queue_length as f64),
            cache_hit_percent: smoothed(&diagnostics::CACHE_HIT_PERCENT).unwrap_or(run_hit_percent),
            stage_ms,
        }
    }
}

fn frame_ui(ui: &mut egui::Ui, frame: &PathfindingFrameTimes, figures: &ShownFigures) {
    ui.label(format!(
        "Frame {:.2} ms ({:.0} fps), worst {:.2} ms",
        frame.mean.as_secs_f64() * 1e3,
        frame.fps(),
        frame.worst.as_secs_f64() * 1e3,
    ));
    ui.label(format!(
        "{:.0} searches/s, {:.0} cache hits/s",
        figures.searches_per_second, frame.cache_hits_per_second
    ));
}

fn agents_ui(ui: &mut egui::Ui, paths: &Query<&Path>) {
    let (mut found, mut pending, mut failed) = (0_usize, 0_usize, 0_usize);
    for path in paths {
        match path.status {
            PathStatus::Found => found += 1,
            status if status.is_pending() => pending += 1,
            _ => failed += 1,
        }
    }
    ui.label(format!(
        "Agents: {} ({found} with a path, {pending} waiting, {failed} failed)",
        found + pending + failed
    ));
}

/// Draws [`PathfindingStats`] as a two-column table, for embedding in a window of your own.
///
/// Every figure comes from `stats` (the cache hit rate of the whole run); the window of
/// [`PathfindingPanelPlugin`] reads some of them from the diagnostics instead, and adds the stage
/// times.
pub fn stats_ui(ui: &mut egui::Ui, stats: &PathfindingStats) {
    let figures = ShownFigures::read(Some(stats), &PathfindingFrameTimes::default(), None);
    stats_table(ui, stats, &figures);
}

/// Draws the statistics table: `stats`, with the figures of `figures` in place of theirs.
fn stats_table(ui: &mut egui::Ui, stats: &PathfindingStats, figures: &ShownFigures) {
    let mut rows = search_rows(stats, figures);
    rows.extend(carried_over_rows(&stats.carried_over));
    if let Some(stage_ms) = figures.stage_ms {
        rows.extend(stage_time_rows(stage_ms));
    }
    rows.extend(result_rows(stats));
    egui::Grid::new("bevy_astar_stats")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for (name, value) in rows {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            }
        });
}

/// The table's first rows, name and value: the searches, the cache, the sharing of searches
/// and the paths invalidated.
fn search_rows(stats: &PathfindingStats, figures: &ShownFigures) -> Vec<(&'static str, String)> {
    vec![
        ("Searches started", stats.searches_started.to_string()),
        ("  last frame", stats.started_last_frame.to_string()),
        ("  finished", stats.searches_finished.to_string()),
        ("  cancelled", stats.searches_cancelled.to_string()),
        (
            "In flight / queued",
            format!("{:.0} / {:.0}", figures.in_flight, figures.queue_length),
        ),
        (
            "Cache hits",
            format!("{} ({:.1}%)", stats.cache_hits, figures.cache_hit_percent),
        ),
        ("Cache misses", stats.cache_misses.to_string()),
        ("Joined a running search", stats.shared_searches.to_string()),
        (
            "Goal batches / sector fields (requests)",
            format!(
                "{} / {} ({})",
                stats.goal_batches, stats.sector_field_batches, stats.batched_requests
            ),
        ),
        (
            "First cells shown at once",
            stats.first_cells_shown.to_string(),
        ),
        ("Paths invalidated", stats.paths_invalidated.to_string()),
        (
            "Sector routes renewed (patched first) / moved onto",
            format!(
                "{} ({}) / {}",
                stats.sector_routes_renewed,
                stats.sector_routes_patched,
                stats.paths_moved_onto_routes
            ),
        ),
    ]
}

/// The rows of the work each stage left for a later frame: two short rows rather than one long
/// one, so that the window stays narrow.
fn carried_over_rows(carried_over: &CarriedOver) -> [(&'static str, String); 3] {
    [
        ("Carried over", String::new()),
        (
            "  scans / queue / dispatch",
            format!(
                "{} / {} / {}",
                carried_over.scans, carried_over.invalidations, carried_over.dispatches
            ),
        ),
        (
            "  batched / apply / searches",
            format!(
                "{} / {} / {}",
                carried_over.batched, carried_over.results, carried_over.searches
            ),
        ),
    ]
}

/// The rows of the stages' times, from the milliseconds of each stage in their order: two
/// short rows again, as the carried-over counters.
fn stage_time_rows([invalidate, dispatch, apply, follow]: [f64; 4]) -> [(&'static str, String); 3] {
    [
        ("Stage time (ms)", String::new()),
        (
            "  invalidate / dispatch",
            format!("{invalidate:.2} / {dispatch:.2}"),
        ),
        ("  apply / follow", format!("{apply:.2} / {follow:.2}")),
    ]
}

/// The table's last rows: the results dropped and the search times.
fn result_rows(stats: &PathfindingStats) -> [(&'static str, String); 4] {
    [
        (
            "Stale results dropped",
            stats.stale_results_dropped.to_string(),
        ),
        (
            "Superseded results",
            stats.superseded_results_dropped.to_string(),
        ),
        ("Mean search", format_duration(stats.mean_search_time())),
        ("Longest search", format_duration(stats.max_search_time)),
    ]
}

/// Draws controls for every field of [`PathfindingSettings`]; returns whether one was changed.
///
/// Edit a copy and write it back only when this returns `true`, so that the resource's change
/// detection fires only on real edits.
pub fn settings_ui(ui: &mut egui::Ui, settings: &mut PathfindingSettings) -> bool {
    // Every field is named here, so that a new setting without a control does not compile.
    let PathfindingSettings {
        max_searches_per_frame,
        max_in_flight,
        min_search_interval,
        cache_capacity,
        invalidation,
        repair_cut_paths,
        goal_batch_min,
        shared_goal_min_agents,
        announce_shared_route_changes,
        max_paths_applied_per_frame,
        stage_budget,
        max_flow_fields,
        background_pause,
        search_thread,
    } = settings;
    let mut changed = false;
    changed |= count_slider(ui, max_searches_per_frame, 0..=1024, "searches / frame");
    changed |= count_slider(ui, max_in_flight, 1..=4096, "in flight");
    changed |= duration_slider(
        ui,
        min_search_interval,
        (0..=5_000, Duration::from_millis(1)),
        "min interval (ms)",
    );
    changed |= count_slider(ui, cache_capacity, 0..=65_536, "cache capacity");
    changed |= count_slider(ui, goal_batch_min, 0..=256, "goal batch from (0: off)");
    changed |= count_slider(
        ui,
        shared_goal_min_agents,
        0..=1024,
        "goal tree from (0: off)",
    );
    changed |= ui
        .checkbox(announce_shared_route_changes, "announce tree re-paths")
        .changed();
    changed |= count_slider(
        ui,
        max_paths_applied_per_frame,
        1..=65_536,
        "paths applied / frame",
    );
    changed |= duration_slider(
        ui,
        stage_budget,
        (10..=100_000, Duration::from_micros(1)),
        "stage budget (us)",
    );
    changed |= count_slider(ui, max_flow_fields, 0..=256, "flow fields kept");
    changed |= ui
        .checkbox(repair_cut_paths, "repair cut paths locally")
        .changed();
    changed |= policy_choices(ui, (invalidation, background_pause, search_thread));
    changed
}

/// The rows of radio buttons of the settings that pick a way of working: what a change
/// re-searches on, when background work pauses, and where searches run; returns whether one
/// was picked.
fn policy_choices(
    ui: &mut egui::Ui,
    (invalidation, background_pause, search_thread): (
        &mut InvalidationPolicy,
        &mut BackgroundPause,
        &mut SearchThread,
    ),
) -> bool {
    let mut picked = choice_row(
        ui,
        "Re-search on",
        invalidation,
        &[
            (InvalidationPolicy::TouchedCells, "touched cells"),
            (InvalidationPolicy::TouchedOrOpened, "also openings"),
        ],
    );
    picked |= choice_row(
        ui,
        "Pause background work",
        background_pause,
        &[
            (BackgroundPause::Never, "never"),
            (BackgroundPause::OnFewCores, "on two cores"),
            (BackgroundPause::Always, "always"),
        ],
    );
    picked |= choice_row(
        ui,
        "Searches run on",
        search_thread,
        &[
            (SearchThread::TaskPool, "task pool"),
            (SearchThread::MainThread, "main thread"),
            (SearchThread::IdleThreads, "idle threads"),
        ],
    );
    picked
}

/// A logarithmic slider over a count within `range`; returns whether it moved.
fn count_slider<N: egui::emath::Numeric>(
    ui: &mut egui::Ui,
    value: &mut N,
    range: core::ops::RangeInclusive<N>,
    text: &str,
) -> bool {
    ui.add(egui::Slider::new(value, range).logarithmic(true).text(text))
        .changed()
}

/// A row of radio buttons, `label` then one per choice; returns whether one was picked.
fn choice_row<T: PartialEq + Copy>(
    ui: &mut egui::Ui,
    label: &str,
    value: &mut T,
    choices: &[(T, &str)],
) -> bool {
    ui.horizontal(|ui| {
        ui.label(label);
        let mut picked = false;
        for &(choice, text) in choices {
            picked |= ui.radio_value(value, choice, text).changed();
        }
        picked
    })
    .inner
}

/// A logarithmic slider over `value` in whole `unit`s within `range`; returns whether it moved.
fn duration_slider(
    ui: &mut egui::Ui,
    value: &mut Duration,
    (range, unit): (core::ops::RangeInclusive<u64>, Duration),
    text: &str,
) -> bool {
    let unit_nanos = unit.as_nanos().max(1);
    let mut units = u64::try_from(value.as_nanos() / unit_nanos)
        .unwrap_or(u64::MAX)
        .min(*range.end());
    let moved = ui
        .add(
            egui::Slider::new(&mut units, range)
                .logarithmic(true)
                .text(text),
        )
        .changed();
    if moved {
        *value = unit.saturating_mul(u32::try_from(units).unwrap_or(u32::MAX));
    }
    moved
}

/// Draws the debug overlay toggles: the [`PathfindingGizmos`] group on or off, grid lines, blocked
/// cells, and recording every agent's search ([`PathDebugSettings::trace_all_agents`]). Toggles
/// whose resource is missing are shown disabled.
pub fn debug_ui(
    ui: &mut egui::Ui,
    gizmos: Option<Mut<GizmoConfigStore>>,
    debug: Option<Mut<PathDebugSettings>>,
) {
    gizmo_toggles(ui, gizmos);
    trace_toggle(ui, debug);
}

/// The toggles of the [`PathfindingGizmos`] group (drawing on or off, grid lines, blocked
/// cells, line width), written back only when one was used; a disabled toggle when the group
/// is not registered.
fn gizmo_toggles(ui: &mut egui::Ui, gizmos: Option<Mut<GizmoConfigStore>>) {
    let current = gizmos.as_ref().and_then(|store| {
        store
            .get_config::<PathfindingGizmos>()
            .map(|(config, colors)| {
                (
                    config.enabled,
                    colors.draw_grid,
                    colors.draw_blocked,
                    config.line.width,
                )
            })
    });
    match (gizmos, current) {
        (Some(mut store), Some((mut enabled, mut grid, mut blocked, mut width))) => {
            let toggled = [
                ui.checkbox(&mut enabled, "Draw searches and paths")
                    .changed(),
                ui.checkbox(&mut grid, "Grid lines").changed(),
                ui.checkbox(&mut blocked, "Blocked cells").changed(),
                ui.add(egui::Slider::new(&mut width, 0.5..=6.0).text("line width"))
                    .changed(),
            ];
            if toggled.contains(&true)
                && let Some((config, colors)) = store.get_config_mut::<PathfindingGizmos>()
            {
                config.enabled = enabled;
                config.line.width = width;
                colors.draw_grid = grid;
                colors.draw_blocked = blocked;
            }
        }
        _ => {
            ui.add_enabled(
                false,
                egui::Checkbox::new(&mut false, "Draw searches and paths"),
            )
            .on_disabled_hover_text("add PathfindingDebugPlugin to draw searches");
        }
    }
}

/// The toggle of [`PathDebugSettings::trace_all_agents`], written back only when used; shown
/// disabled without the settings.
fn trace_toggle(ui: &mut egui::Ui, debug: Option<Mut<PathDebugSettings>>) {
    match debug {
        Some(mut debug) => {
            let mut all = debug.trace_all_agents;
            if ui
                .checkbox(&mut all, "Trace every agent")
                .on_hover_text("record and draw the search of every agent, not only PathDebug ones (from their next search on)")
                .changed()
            {
                debug.trace_all_agents = all;
            }
        }
        None => {
            ui.add_enabled(false, egui::Checkbox::new(&mut false, "Trace every agent"))
                .on_disabled_hover_text("add PathfindingDebugPlugin to trace searches");
        }
    }
}

fn format_duration(duration: Duration) -> String {
    let micros = duration.as_secs_f64() * 1e6;
    if micros < 1_000.0 {
        format!("{micros:.0} µs")
    } else {
        format!("{:.2} ms", micros / 1e3)
    }
}

// The names before the naming rule, kept for one release.
/// The former name of [`PathfindingPanelPlugin`].
#[deprecated(note = "renamed to `PathfindingPanelPlugin` (the naming rule in ARCHITECTURE.md)")]
pub type AStarEguiPanelPlugin = PathfindingPanelPlugin;

/// The former name of [`PathfindingPanel`].
#[deprecated(note = "renamed to `PathfindingPanel` (the naming rule in ARCHITECTURE.md)")]
pub type AStarEguiPanel = PathfindingPanel;

/// The former name of [`PathfindingFrameTimes`].
#[deprecated(note = "renamed to `PathfindingFrameTimes` (the naming rule in ARCHITECTURE.md)")]
pub type FrameTimeSummary = PathfindingFrameTimes;

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the text `label` was drawn in `output`, if anywhere.
    fn text_at(output: &egui::FullOutput, label: &str) -> Option<egui::Pos2> {
        fn find(shape: &egui::Shape, label: &str) -> Option<egui::Pos2> {
            match shape {
                egui::Shape::Text(text) if text.galley.text() == label => {
                    Some(text.pos + text.galley.rect.center().to_vec2())
                }
                egui::Shape::Vec(shapes) => shapes.iter().find_map(|shape| find(shape, label)),
                _ => None,
            }
        }
        output
            .shapes
            .iter()
            .find_map(|clipped| find(&clipped.shape, label))
    }

    /// Runs one pass of `settings_ui` with `events`; returns what the pass drew and whether it
    /// reported a change.
    fn pass(
        context: &egui::Context,
        settings: &mut PathfindingSettings,
        events: Vec<egui::Event>,
    ) -> (egui::FullOutput, bool) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(800.0, 800.0),
            )),
            events,
            ..egui::RawInput::default()
        };
        let mut changed = false;
        let mut output = context.run_ui(input, |ui| changed |= settings_ui(ui, settings));
        // No renderer takes the font texture here.
        output.textures_delta.clear();
        (output, changed)
    }

    fn press(pos: egui::Pos2, pressed: bool) -> egui::Event {
        egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::default(),
        }
    }

    #[test]
    fn the_settings_change_only_when_a_control_is_used() {
        let context = egui::Context::default();
        let mut settings = PathfindingSettings::default();
        let (output, changed) = pass(&context, &mut settings, Vec::new());
        assert!(!changed);
        assert_eq!(settings, PathfindingSettings::default());
        // Picking "always" for the background pause changes that setting and nothing else.
        let at = text_at(&output, "always").expect("the background pause choices are drawn");
        let mut reported = false;
        for events in [
            vec![egui::Event::PointerMoved(at)],
            vec![press(at, true)],
            vec![press(at, false)],
            Vec::new(),
        ] {
            reported |= pass(&context, &mut settings, events).1;
        }
        assert!(reported);
        assert_eq!(
            settings,
            PathfindingSettings {
                background_pause: BackgroundPause::Always,
                ..PathfindingSettings::default()
            }
        );
    }

    /// A store with `figures` measured once each, as the diagnostics plugin registers them.
    fn store_with(figures: &[(DiagnosticPath, f64)]) -> DiagnosticsStore {
        let mut store = DiagnosticsStore::default();
        for (path, value) in figures {
            let mut diagnostic = bevy::diagnostic::Diagnostic::new(path.clone());
            diagnostic.add_measurement(bevy::diagnostic::DiagnosticMeasurement {
                time: Instant::now(),
                value: *value,
            });
            store.add(diagnostic);
        }
        store
    }

    #[test]
    fn the_window_reads_the_diagnostics_where_they_are_measured_and_the_stats_elsewhere() {
        let stats = PathfindingStats {
            in_flight: 4,
            queue_length: 9,
            cache_hits: 1,
            cache_misses: 3,
            ..PathfindingStats::default()
        };
        let frame = PathfindingFrameTimes {
            searches_per_second: 12.0,
            ..PathfindingFrameTimes::default()
        };
        let from_stats = ShownFigures {
            searches_per_second: 12.0,
            in_flight: 4.0,
            queue_length: 9.0,
            cache_hit_percent: 25.0,
            stage_ms: None,
        };
        assert_eq!(ShownFigures::read(Some(&stats), &frame, None), from_stats);
        // A store without the pathfinding diagnostics (no plugin) changes nothing.
        let other = store_with(&[(DiagnosticPath::const_new("fps"), 60.0)]);
        assert_eq!(
            ShownFigures::read(Some(&stats), &frame, Some(&other)),
            from_stats
        );
        let measured = store_with(&[
            (diagnostics::SEARCHES_PER_SECOND, 30.0),
            (diagnostics::IN_FLIGHT, 2.0),
            (diagnostics::QUEUE_LENGTH, 5.0),
            (diagnostics::CACHE_HIT_PERCENT, 80.0),
            (diagnostics::INVALIDATE_MS, 0.25),
            (diagnostics::DISPATCH_MS, 0.5),
            (diagnostics::APPLY_MS, 0.75),
            (diagnostics::FOLLOW_MS, 1.0),
        ]);
        assert_eq!(
            ShownFigures::read(Some(&stats), &frame, Some(&measured)),
            ShownFigures {
                searches_per_second: 30.0,
                in_flight: 2.0,
                queue_length: 5.0,
                cache_hit_percent: 80.0,
                stage_ms: Some([0.25, 0.5, 0.75, 1.0]),
            }
        );
        // A disabled diagnostic is not read; the stage times show only when all four are.
        let mut partly = measured;
        if let Some(diagnostic) = partly.get_mut(&diagnostics::QUEUE_LENGTH) {
            diagnostic.is_enabled = false;
        }
        if let Some(diagnostic) = partly.get_mut(&diagnostics::FOLLOW_MS) {
            diagnostic.is_enabled = false;
        }
        let shown = ShownFigures::read(Some(&stats), &frame, Some(&partly));
        assert_eq!(shown.queue_length, 9.0);
        assert_eq!(shown.in_flight, 2.0);
        assert_eq!(shown.stage_ms, None);
    }

    #[test]
    fn the_table_shows_the_stage_times_only_when_they_are_measured() {
        let context = egui::Context::default();
        let stats = PathfindingStats {
            in_flight: 3,
            queue_length: 7,
            ..PathfindingStats::default()
        };
        let draw = |figures: &ShownFigures| {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(800.0, 800.0),
                )),
                ..egui::RawInput::default()
            };
            let mut output = context.run_ui(input, |ui| stats_table(ui, &stats, figures));
            output.textures_delta.clear();
            output
        };
        let mut figures = ShownFigures::read(Some(&stats), &PathfindingFrameTimes::default(), None);
        let output = draw(&figures);
        assert!(text_at(&output, "3 / 7").is_some(), "in flight / queued");
        assert_eq!(text_at(&output, "Stage time (ms)"), None);
        figures.stage_ms = Some([0.25, 0.5, 1.0, 2.125]);
        let output = draw(&figures);
        assert!(text_at(&output, "Stage time (ms)").is_some());
        assert!(
            text_at(&output, "0.25 / 0.50").is_some(),
            "invalidate / dispatch"
        );
        assert!(text_at(&output, "1.00 / 2.12").is_some(), "apply / follow");
    }

    /// Text drawn in the panel's body by [`panel_pass`].
    const BODY: &str = "the panel's contents";

    /// Runs one pass of [`show_panel`] with a tall body at time `time` (seconds) with `events`.
    fn panel_pass(
        context: &egui::Context,
        panel: &mut PathfindingPanel,
        (time, events): (f64, Vec<egui::Event>),
    ) -> egui::FullOutput {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(800.0, 600.0),
            )),
            time: Some(time),
            events,
            ..egui::RawInput::default()
        };
        let mut output = context.run_ui(input, |ui| {
            show_panel(ui.ctx(), panel, |ui| {
                ui.label(BODY);
                ui.add_space(400.0);
            });
        });
        output.textures_delta.clear();
        output
    }

    #[test]
    fn the_window_starts_collapsed_and_leaves_the_pointer_below_its_title_to_the_game() {
        let context = egui::Context::default();
        let mut panel = PathfindingPanelPlugin::default()
            .with_anchor(egui::Align2::RIGHT_TOP, [-8.0, 8.0])
            .panel;
        assert!(panel.collapsed, "collapsed by default");
        let mut time = 0.0;
        let mut pass = |panel: &mut PathfindingPanel, events: Vec<egui::Event>| {
            time += 1.0 / 60.0;
            panel_pass(&context, panel, (time, events))
        };
        // The first passes size the window.
        pass(&mut panel, Vec::new());
        let output = pass(&mut panel, Vec::new());
        let title = text_at(&output, "Pathfinding").expect("the title bar is drawn");
        assert_eq!(text_at(&output, BODY), None, "the body is folded away");
        // Where the unfolded body would be, the pointer is the game's: egui is not under it.
        let below = title + egui::vec2(0.0, 150.0);
        pass(&mut panel, vec![egui::Event::PointerMoved(below)]);
        assert!(!context.is_pointer_over_egui());
        pass(&mut panel, vec![egui::Event::PointerMoved(title)]);
        assert!(context.is_pointer_over_egui());
        // A double click on the title unfolds it, and the resource says so.
        for _ in 0..2 {
            pass(&mut panel, vec![press(title, true)]);
            pass(&mut panel, vec![press(title, false)]);
        }
        assert!(!panel.collapsed, "unfolded by the double click");
        let mut output = pass(&mut panel, Vec::new());
        for _ in 0..30 {
            output = pass(&mut panel, Vec::new());
        }
        assert!(text_at(&output, BODY).is_some(), "the body is drawn");
        pass(&mut panel, vec![egui::Event::PointerMoved(below)]);
        assert!(
            context.is_pointer_over_egui(),
            "the unfolded body covers it"
        );
        // Code folds it again.
        panel.collapsed = true;
        for _ in 0..30 {
            output = pass(&mut panel, vec![egui::Event::PointerMoved(below)]);
        }
        assert_eq!(text_at(&output, BODY), None);
        assert!(!context.is_pointer_over_egui());
        assert!(panel.collapsed);
    }
}
