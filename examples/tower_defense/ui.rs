//! The game window (lives, gold, the wave and its countdown, the last placement and the
//! searches it caused, frame time, buttons, the keys), the headline over the map, and the
//! keyboard shortcuts; the pathfinding window on the right is the plugin's.

use crate::GameSystems;
use crate::creeps::{Boss, Creep, CreepTally, Flying, StressTest};
use crate::economy::{Economy, Restart, TOWER_COST};
use crate::game::{Game, Phase, TogglePause, WAVES_TO_WIN, may_send_wave};
use crate::map::{LEFT_RESERVE, RIGHT_RESERVE};
use crate::profile::timed;
use crate::towers::{HoveredCell, PlacementLog, Tower, TowerReport};
use crate::waves::{SendWave, Stress, Waves};
use bevy::gizmos::config::GizmoConfigStore;
use bevy::prelude::*;
use bevy_astar::egui_panel::PathfindingFrameTimes;
use bevy_astar::prelude::*;
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

/// Creeps the stress test releases.
pub(crate) const STRESS_CREEPS: u32 = 2_000;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(Startup, hide_the_overlay)
        .add_systems(
            Update,
            timed("shortcuts", shortcuts).in_set(GameSystems::Input),
        )
        .add_systems(
            EguiPrimaryContextPass,
            (
                timed("game_window", game_window),
                timed("paint_headline", paint_headline),
            ),
        );
}

/// Something the player asked for, by key or button.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    SendWave,
    TogglePause,
    ToggleOverlay,
    Stress,
    Restart,
}

/// The keys, their names in the help line, and what they do there.
const KEYS: [(KeyCode, &str, &str, Action); 5] = [
    (KeyCode::KeyN, "N", "next wave", Action::SendWave),
    (KeyCode::Space, "Space", "pause", Action::TogglePause),
    (KeyCode::KeyD, "D", "search overlay", Action::ToggleOverlay),
    (KeyCode::KeyS, "S", "stress test", Action::Stress),
    (KeyCode::KeyR, "R", "restart", Action::Restart),
];

/// The help line: every key and what it does.
fn help_line() -> String {
    let keys: Vec<String> = KEYS
        .iter()
        .map(|(_, key, what, _)| format!("{key} {what}"))
        .collect();
    format!("Keys: {}", keys.join(" · "))
}

/// The messages and settings the actions change.
#[derive(bevy::ecs::system::SystemParam)]
struct Actions<'w> {
    send: MessageWriter<'w, SendWave>,
    pause: MessageWriter<'w, TogglePause>,
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
            Action::TogglePause => {
                self.pause.write(TogglePause);
            }
            Action::Stress => {
                self.stress.write(Stress(STRESS_CREEPS));
            }
            Action::ToggleOverlay => {
                if let Some((config, _)) = self.gizmos.get_config_mut::<PathfindingGizmos>() {
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
            .get_config::<PathfindingGizmos>()
            .is_some_and(|(config, _)| config.enabled)
    }
}

/// The search overlay starts hidden: `D` (or the button) shows it.
fn hide_the_overlay(mut store: ResMut<GizmoConfigStore>) {
    if let Some((config, _)) = store.get_config_mut::<PathfindingGizmos>() {
        config.enabled = false;
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
    for (key, _, _, action) in KEYS {
        if keys.just_pressed(key) {
            actions.perform(action);
        }
    }
}

/// How a headline is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tone {
    Calm,
    Urgent,
    Good,
    Bad,
}

impl Tone {
    const fn color(self) -> egui::Color32 {
        match self {
            Self::Calm => egui::Color32::from_rgb(225, 230, 235),
            Self::Urgent => GOLD,
            Self::Good => GREEN,
            Self::Bad => RED,
        }
    }
}

/// What the headline over the map says: what to do before the first wave, the countdown to the
/// next, the pause, the end.
fn headline(game: Game, waves: &Waves) -> (String, Tone) {
    let (started, to_come) = (waves.number, waves.pending());
    match game.phase {
        Phase::Won => (
            format!("Victory! All {WAVES_TO_WIN} waves beaten.  R plays again"),
            Tone::Good,
        ),
        Phase::Lost => (
            format!(
                "Defeat: the lives ran out in wave {started} of {WAVES_TO_WIN}.  R plays again"
            ),
            Tone::Bad,
        ),
        _ if game.paused => ("Paused.  Space resumes".to_owned(), Tone::Urgent),
        Phase::Preparing => (
            format!("Build towers, then send wave 1 of {WAVES_TO_WIN}:  N"),
            Tone::Urgent,
        ),
        Phase::Waves if to_come > 0 => (
            format!("Wave {started} of {WAVES_TO_WIN}: {to_come} creeps still to come"),
            Tone::Calm,
        ),
        Phase::Waves if !may_send_wave(game.phase, started) => {
            ("Last wave: clear it to win".to_owned(), Tone::Calm)
        }
        Phase::Waves => (
            format!(
                "Wave {} of {WAVES_TO_WIN} in {:.0} s  (N: now)",
                started + 1,
                waves.countdown.max(0.0).ceil()
            ),
            Tone::Calm,
        ),
    }
}

/// Paints the headline over the top of the map, on a dark plate, in egui's foreground; painted
/// only, so that it takes no clicks from the map.
fn paint_headline(mut contexts: EguiContexts, game: Res<Game>, waves: Res<Waves>) -> Result {
    let ctx = contexts.ctx_mut()?;
    let (text, tone) = headline(*game, &waves);
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::new("tower_headline"),
    ));
    let screen = ctx.content_rect();
    let map_centre =
        screen.left() + LEFT_RESERVE + (screen.width() - LEFT_RESERVE - RIGHT_RESERVE) / 2.0;
    let galley = painter.layout_no_wrap(text, egui::FontId::proportional(20.0), tone.color());
    let plate = egui::Align2::CENTER_TOP
        .anchor_size(egui::pos2(map_centre, screen.top() + 10.0), galley.size())
        .expand2(egui::vec2(10.0, 5.0));
    painter.rect_filled(plate, 6.0, egui::Color32::from_black_alpha(190));
    painter.galley(plate.min + egui::vec2(10.0, 5.0), galley, tone.color());
    Ok(())
}

/// What the game window shows.
#[derive(bevy::ecs::system::SystemParam)]
struct Shown<'w, 's> {
    game: Res<'w, Game>,
    economy: Res<'w, Economy>,
    waves: Res<'w, Waves>,
    tally: Res<'w, CreepTally>,
    log: Res<'w, PlacementLog>,
    hovered: Res<'w, HoveredCell>,
    stats: Res<'w, PathfindingStats>,
    frame: Res<'w, PathfindingFrameTimes>,
    creeps: FieldCount<'w, 's>,
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
            clicked = buttons(ui, &shown, &actions);
            ui.label(legend(&help_line()));
            ui.separator();
            ui.label(format!(
                "Frame time {:.1} ms ({:.0} fps), worst {:.1} ms",
                shown.frame.mean.as_secs_f64() * 1e3,
                shown.frame.fps(),
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

/// The buttons; returns the one clicked.
fn buttons(ui: &mut egui::Ui, shown: &Shown, actions: &Actions) -> Option<Action> {
    let game = *shown.game;
    let next = shown.waves.number + 1;
    let send = if may_send_wave(game.phase, shown.waves.number) {
        format!("Send wave {next} of {WAVES_TO_WIN} now  [N]")
    } else if game.phase.is_over() {
        "Send the next wave  [N]".to_owned()
    } else {
        "No more waves to send  [N]".to_owned()
    };
    let pause = if game.paused {
        "Resume  [Space]"
    } else {
        "Pause  [Space]"
    };
    let overlay = if actions.overlay_enabled() {
        "Hide the search overlay  [D]"
    } else {
        "Show the search overlay  [D]"
    };
    let over = game.phase.is_over();
    let rows = [
        (
            send,
            Action::SendWave,
            may_send_wave(game.phase, shown.waves.number),
        ),
        (pause.to_owned(), Action::TogglePause, !over),
        (overlay.to_owned(), Action::ToggleOverlay, true),
        (
            format!("Release {STRESS_CREEPS} stress-test creeps  [S]"),
            Action::Stress,
            !over,
        ),
        ("Restart  [R]".to_owned(), Action::Restart, true),
    ];
    let mut clicked = None;
    for (label, action, enabled) in rows {
        if ui.add_enabled(enabled, egui::Button::new(label)).clicked() {
            clicked = Some(action);
        }
    }
    clicked
}

/// The creeps on the field, by what the window tells apart (each counted from its marker's
/// archetypes, not creep by creep).
#[derive(bevy::ecs::system::SystemParam)]
struct FieldCount<'w, 's> {
    wave: Query<'w, 's, (), (With<Creep>, Without<StressTest>)>,
    stress: Query<'w, 's, (), With<StressTest>>,
    bosses: Query<'w, 's, (), With<Boss>>,
    flyers: Query<'w, 's, (), With<Flying>>,
}

fn status_section(ui: &mut egui::Ui, shown: &Shown) {
    let economy = &*shown.economy;
    let (headline, tone) = headline(*shown.game, &shown.waves);
    ui.label(egui::RichText::new(headline).color(tone.color()).strong());
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
    let count = &shown.creeps;
    let (bosses, flyers) = (count.bosses.iter().len(), count.flyers.iter().len());
    let mut on_field = format!("Creeps on the field: {}", count.wave.iter().len());
    if bosses + flyers > 0 {
        on_field += &format!(" ({bosses} bosses 2x2, {flyers} flyers)");
    }
    ui.label(on_field);
    let stress = count.stress.iter().len();
    if stress > 0 {
        ui.label(format!("+ {stress} stress-test creeps"));
        ui.label(legend(STRESS_LEGEND));
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

/// A legend's text: smaller than the lines it explains, still easy to read.
fn legend(text: &str) -> egui::RichText {
    egui::RichText::new(text)
        .size(11.5)
        .color(egui::Color32::from_gray(165))
}

/// What the stress-test creeps are, beside their count.
const STRESS_LEGEND: &str = "Stress-test creeps (hollow rings) test the pathfinding alone: \
     they do not avoid each other, so they walk through one another in lines.";

/// The line about the last tower: what it cut and how the plugin answered since.
fn tower_line(report: &TowerReport, now: &PathfindingStats) -> String {
    let before = &report.stats_before;
    let since = |now: u64, before: u64| now.saturating_sub(before);
    let trees = since(now.flow_fields_updated, before.flow_fields_updated);
    format!(
        "{} of {} cut · {trees} {} updated · {} searched · {} cached · {} joined",
        since(now.paths_invalidated, before.paths_invalidated),
        report.creeps,
        if trees == 1 { "tree" } else { "trees" },
        since(now.searches_started, before.searches_started),
        since(now.cache_hits, before.cache_hits),
        since(now.shared_searches, before.shared_searches),
    )
}

/// What each number of [`tower_line`] counts.
const TOWER_LEGEND: &str = "cut: creeps whose own path crossed the tile, of those on the \
     field when it landed; only they look for a new path. trees updated: a crowd heading for \
     the goal (the stress test's creeps) shares one tree of routes, which the tower updates \
     instead of cutting each creep's path. searched / cached / joined: how the plugin \
     answered every request since, new creeps' too: with a search of its own, with a path \
     from its cache, or by joining a search already running.";

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
        ui.label(format!("Last tower at {}:", report.cell));
        ui.label(egui::RichText::new(tower_line(report, &shown.stats)).strong());
        ui.label(legend(TOWER_LEGEND));
    }
}
