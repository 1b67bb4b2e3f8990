//! The game window (lives, gold, waves, the last placement and the searches it caused, frame
//! time, buttons) and the keyboard shortcuts; the pathfinding window beside it is the plugin's.

use crate::GameSystems;
use crate::creeps::{Creep, CreepKind, CreepTally};
use crate::economy::{Economy, Restart, TOWER_COST};
use crate::map::LEFT_RESERVE;
use crate::towers::{HoveredCell, PlacementLog, Tower};
use crate::waves::{SendWave, Stress, Waves};
use bevy::gizmos::config::GizmoConfigStore;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy_astar::egui_panel::FrameTimeSummary;
use bevy_astar::prelude::*;
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use core::time::Duration;

/// Creeps the stress test releases.
pub(crate) const STRESS_CREEPS: u32 = 2_000;
/// Seconds between two frame-time lines in the log (with `TOWER_DEFENSE_LOG_FRAMES` set).
const LOG_INTERVAL: f32 = 5.0;

pub(crate) fn plugin(app: &mut App) {
    let logging = || std::env::var_os("TOWER_DEFENSE_LOG_FRAMES").is_some();
    app.init_resource::<UpdateTimer>()
        .add_systems(Update, shortcuts.in_set(GameSystems::Input))
        .add_systems(EguiPrimaryContextPass, game_window)
        .add_systems(First, start_update_timer.run_if(logging))
        .add_systems(Last, log_frame_times.run_if(logging));
}

/// Something the player asked for, by key or button.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    SendWave,
    Stress,
    ToggleOverlay,
    Restart,
}

/// The messages and settings the actions change.
#[derive(bevy::ecs::system::SystemParam)]
struct Actions<'w> {
    send: MessageWriter<'w, SendWave>,
    stress: MessageWriter<'w, Stress>,
    restart: MessageWriter<'w, Restart>,
    gizmos: ResMut<'w, GizmoConfigStore>,
}

impl Actions<'_> {
    fn perform(&mut self, action: Action) {
        match action {
            Action::SendWave => {
                self.send.write(SendWave);
            }
            Action::Stress => {
                self.stress.write(Stress(STRESS_CREEPS));
            }
            Action::ToggleOverlay => {
                if let Some((config, _)) = self.gizmos.get_config_mut::<AStarGizmos>() {
                    config.enabled = !config.enabled;
                }
            }
            Action::Restart => {
                self.restart.write(Restart);
            }
        }
    }

    fn overlay_enabled(&self) -> bool {
        self.gizmos
            .get_config::<AStarGizmos>()
            .is_some_and(|(config, _)| config.enabled)
    }
}

fn shortcuts(
    keys: Res<ButtonInput<KeyCode>>,
    egui_input: Option<Res<EguiWantsInput>>,
    mut actions: Actions,
) {
    if egui_input.is_some_and(|input| input.wants_any_keyboard_input()) {
        return;
    }
    let pressed = [
        (KeyCode::Space, Action::SendWave),
        (KeyCode::KeyS, Action::Stress),
        (KeyCode::KeyD, Action::ToggleOverlay),
        (KeyCode::KeyR, Action::Restart),
    ];
    for (key, action) in pressed {
        if keys.just_pressed(key) {
            actions.perform(action);
        }
    }
}

/// What the game window shows.
#[derive(bevy::ecs::system::SystemParam)]
struct Shown<'w, 's> {
    economy: Res<'w, Economy>,
    waves: Res<'w, Waves>,
    tally: Res<'w, CreepTally>,
    log: Res<'w, PlacementLog>,
    hovered: Res<'w, HoveredCell>,
    stats: Res<'w, PathfindingStats>,
    frame: Res<'w, FrameTimeSummary>,
    creeps: Query<'w, 's, &'static Creep>,
    towers: Query<'w, 's, (), With<Tower>>,
}

const GOLD: egui::Color32 = egui::Color32::from_rgb(240, 200, 80);
const RED: egui::Color32 = egui::Color32::from_rgb(255, 110, 100);
const GREEN: egui::Color32 = egui::Color32::from_rgb(130, 230, 140);

fn game_window(mut contexts: EguiContexts, shown: Shown, mut actions: Actions) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut clicked = None;
    egui::Window::new("Tower defense")
        .anchor(egui::Align2::LEFT_TOP, [8.0, 8.0])
        .resizable(false)
        .collapsible(false)
        .default_width(LEFT_RESERVE - 30.0)
        .show(ctx, |ui| {
            // The buttons come first, so that they stay put while the lines below come and go.
            status_section(ui, &shown);
            ui.separator();
            let overlay = actions.overlay_enabled();
            let buttons = [
                ("Send the next wave  [Space]", Action::SendWave),
                ("Release 2,000 creeps  [S]", Action::Stress),
                (
                    if overlay {
                        "Hide the search overlay  [D]"
                    } else {
                        "Show the search overlay  [D]"
                    },
                    Action::ToggleOverlay,
                ),
                ("Restart  [R]", Action::Restart),
            ];
            for (label, action) in buttons {
                if ui.button(label).clicked() {
                    clicked = Some(action);
                }
            }
            ui.separator();
            ui.label(format!(
                "Frame time {:.1} ms ({:.0} fps)",
                shown.frame.mean.as_secs_f64() * 1e3,
                shown.frame.fps(),
            ));
            ui.label(format!(
                "Worst frame {:.1} ms",
                shown.frame.worst.as_secs_f64() * 1e3
            ));
            ui.separator();
            placement_section(ui, &shown);
        });
    if let Some(action) = clicked {
        actions.perform(action);
    }
    Ok(())
}

fn status_section(ui: &mut egui::Ui, shown: &Shown) {
    let economy = &*shown.economy;
    if economy.is_over() {
        ui.label(
            egui::RichText::new("Game over: press R to play again")
                .color(RED)
                .strong()
                .size(16.0),
        );
    }
    ui.horizontal(|ui| {
        ui.label(
            egui::RichText::new(format!("♥ {}", economy.lives))
                .color(RED)
                .strong(),
        );
        ui.label(
            egui::RichText::new(format!("{} gold", economy.gold))
                .color(GOLD)
                .strong(),
        );
        ui.label(format!("{} kills", economy.kills));
    });
    let waves = &*shown.waves;
    if waves.pending() > 0 {
        ui.label(format!(
            "Wave {}: {} creeps still to come",
            waves.number,
            waves.pending()
        ));
    } else {
        ui.label(format!(
            "Wave {} next in {:.0} s",
            waves.number + 1,
            waves.countdown.max(0.0).ceil()
        ));
    }
    let (mut wave_creeps, mut stress_creeps, mut bosses, mut flyers) = (0, 0, 0, 0);
    for creep in &shown.creeps {
        if creep.stress {
            stress_creeps += 1;
        } else {
            wave_creeps += 1;
        }
        match creep.kind {
            CreepKind::Boss => bosses += 1,
            CreepKind::Flyer => flyers += 1,
            CreepKind::Grunt | CreepKind::Runner | CreepKind::Brute => {}
        }
    }
    ui.label(format!(
        "Creeps on the field: {wave_creeps} (+{stress_creeps} stress)"
    ));
    if bosses + flyers > 0 {
        ui.label(format!("of which {bosses} bosses (2x2), {flyers} flyers"));
    }
    ui.label(format!(
        "{} towers; {} creeps got through",
        shown.towers.iter().len(),
        economy.leaked
    ));
    if shown.tally.stuck > 0 {
        ui.colored_label(RED, format!("{} creeps found no way", shown.tally.stuck));
    }
}

fn placement_section(ui: &mut egui::Ui, shown: &Shown) {
    ui.label(format!(
        "Left click a free tile to build a tower ({TOWER_COST} gold)."
    ));
    match (&shown.hovered.cell, &shown.hovered.verdict) {
        (Some(cell), Some(Ok(()))) => {
            ui.colored_label(GREEN, format!("Tile {cell}: a tower fits"));
        }
        (Some(cell), Some(Err(refusal))) => {
            ui.colored_label(RED, format!("Tile {cell}: {refusal}"));
        }
        _ => {
            ui.weak("Point at a tile to see whether a tower fits.");
        }
    }
    if let Some((cell, refusal)) = &shown.log.refusal {
        ui.colored_label(RED, format!("Refused at {cell}: {refusal}"));
    }
    if let Some(report) = &shown.log.last_tower {
        let before = &report.stats_before;
        let now = &*shown.stats;
        ui.label(format!(
            "Last tower at {}: it cut {} of {} creep paths.",
            report.cell, report.paths_cut, report.creeps
        ));
        egui::Grid::new("since_last_tower")
            .num_columns(2)
            .show(ui, |ui| {
                let rows = [
                    (
                        "paths invalidated",
                        now.paths_invalidated - before.paths_invalidated,
                    ),
                    ("searched", now.searches_started - before.searches_started),
                    ("served from the cache", now.cache_hits - before.cache_hits),
                    (
                        "joined a running search",
                        now.shared_searches - before.shared_searches,
                    ),
                ];
                ui.label("Since then:");
                ui.end_row();
                for (name, value) in rows {
                    ui.label(format!("  {name}"));
                    ui.label(value.to_string());
                    ui.end_row();
                }
            });
    }
}

/// When the main world's update of this frame started, and the update times since the last
/// log line: what the game and the plugin cost, apart from rendering.
#[derive(Resource, Default)]
struct UpdateTimer {
    started: Option<Instant>,
    total: Duration,
    worst: Duration,
    frames: u32,
}

fn start_update_timer(mut timer: ResMut<UpdateTimer>) {
    timer.started = Some(Instant::now());
}

/// Logs the frame time, the main world's update time, the creep count and the plugin's work
/// every few seconds of wall-clock time.
fn log_frame_times(
    frame: Res<FrameTimeSummary>,
    stats: Res<PathfindingStats>,
    creeps: Query<(), With<Creep>>,
    mut timer: ResMut<UpdateTimer>,
    mut next: Local<Option<Instant>>,
) {
    let now = Instant::now();
    if let Some(started) = timer.started.take() {
        let update = now.saturating_duration_since(started);
        timer.total += update;
        timer.worst = timer.worst.max(update);
        timer.frames += 1;
    }
    if next.is_some_and(|next| now < next) {
        return;
    }
    *next = Some(now + Duration::from_secs_f32(LOG_INTERVAL));
    let update_mean = timer.total / timer.frames.max(1);
    info!(
        "frame {:.2} ms mean, {:.2} ms worst; update {:.2} ms mean, {:.2} ms worst; {} creeps, \
         {} searches ({} cache hits, {} joined) so far",
        frame.mean.as_secs_f64() * 1e3,
        frame.worst.as_secs_f64() * 1e3,
        update_mean.as_secs_f64() * 1e3,
        timer.worst.as_secs_f64() * 1e3,
        creeps.iter().len(),
        stats.searches_started,
        stats.cache_hits,
        stats.shared_searches,
    );
    *timer = UpdateTimer::default();
}
