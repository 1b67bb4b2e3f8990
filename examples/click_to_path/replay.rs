//! Step-by-step replay of the recorded search: play, pause, step and speed, from the panel, the
//! keyboard or a scripted run. The plugin's overlay draws the search as it stood after the chosen
//! number of expansions; the cell being expanded and its way back to the start are highlighted.

use crate::VisualiserSystems;
use crate::search::{SearchAgent, TraceLookup};
use bevy::gizmos::config::GizmoConfigStore;
use bevy::prelude::*;
use bevy_astar::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;

const CURRENT_COLOR: Color = Color::srgb(1.0, 1.0, 1.0);
const BRANCH_COLOR: Color = Color::srgba(1.0, 0.95, 0.75, 0.7);

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Replay>()
        .add_message::<ReplayCommand>()
        .add_systems(
            Update,
            (
                replay_keys
                    .run_if(not(egui_wants_any_keyboard_input))
                    .in_set(VisualiserSystems::Input),
                (
                    follow_new_search,
                    run_replay,
                    show_replay_step,
                    draw_expansion,
                )
                    .chain()
                    .in_set(VisualiserSystems::Show)
                    .after(crate::search::index_trace),
            ),
        );
}

/// The replay's state.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct Replay {
    /// Whether the overlay shows a replay step instead of the finished search.
    pub active: bool,
    /// Whether the replay advances by itself.
    pub playing: bool,
    /// Expansions shown.
    pub step: u32,
    /// Expansions per second while playing.
    pub speed: f32,
    /// Replay every new search from its first expansion.
    pub autoplay: bool,
    /// Fraction of an expansion carried over between frames.
    carry: f32,
    /// The [`Path::revision`] being replayed.
    revision: u64,
}

impl Default for Replay {
    fn default() -> Self {
        Self {
            active: false,
            playing: false,
            step: 0,
            speed: 400.0,
            autoplay: false,
            carry: 0.0,
            revision: 0,
        }
    }
}

/// What the replay controls ask for.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayCommand {
    /// Start again from the first expansion, playing.
    Restart,
    /// Play if paused (from the start if the replay had ended), pause if playing.
    TogglePlay,
    /// Pause and move by this many expansions.
    Step(i32),
    /// Pause at this many expansions.
    Seek(u32),
    /// Stop replaying: show the finished search and its path.
    Finish,
}

impl Replay {
    /// Applies a command to a replay of a search with `total` expansions.
    pub fn command(&mut self, command: ReplayCommand, total: u32) {
        match command {
            ReplayCommand::Restart => self.restart(),
            ReplayCommand::TogglePlay if self.active && self.step < total => {
                self.playing = !self.playing;
            }
            ReplayCommand::TogglePlay => self.restart(),
            ReplayCommand::Step(delta) => {
                let from = if self.active { self.step } else { total };
                self.active = true;
                self.playing = false;
                self.step = from.saturating_add_signed(delta).min(total);
            }
            ReplayCommand::Seek(step) => {
                self.active = true;
                self.playing = false;
                self.step = step.min(total);
            }
            ReplayCommand::Finish => {
                self.active = false;
                self.playing = false;
            }
        }
    }

    /// Advances a playing replay by `seconds`; reaching the end finishes it.
    pub fn advance(&mut self, seconds: f32, total: u32) {
        if !(self.active && self.playing) {
            return;
        }
        self.carry += self.speed.max(0.0) * seconds;
        let whole = self.carry.floor();
        self.carry -= whole;
        self.step = self.step.saturating_add(whole as u32).min(total);
        if self.step >= total {
            self.active = false;
            self.playing = false;
        }
    }

    /// Whether the overlay shows a search still in progress (so the path is hidden).
    pub fn hides_path(&self, total: u32) -> bool {
        self.active && self.step < total
    }

    fn restart(&mut self) {
        self.active = true;
        self.playing = true;
        self.step = 0;
        self.carry = 0.0;
    }
}

fn replay_keys(keys: Res<ButtonInput<KeyCode>>, mut commands: MessageWriter<ReplayCommand>) {
    let stride = if keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]) {
        10
    } else {
        1
    };
    let pressed = [
        (KeyCode::Space, ReplayCommand::TogglePlay),
        (KeyCode::ArrowRight, ReplayCommand::Step(stride)),
        (KeyCode::ArrowLeft, ReplayCommand::Step(-stride)),
        (KeyCode::Home, ReplayCommand::Restart),
        (KeyCode::End, ReplayCommand::Finish),
    ];
    for (key, command) in pressed {
        if keys.just_pressed(key) {
            commands.write(command);
        }
    }
}

/// Number of expansions in the agent's recorded search.
fn expansions(trace: Option<&PathTrace>) -> u32 {
    trace.map_or(0, |trace| {
        u32::try_from(trace.trace.expansions.len()).unwrap_or(u32::MAX)
    })
}

/// A new result ends the replay of the old one, or starts its own with autoplay.
fn follow_new_search(mut replay: ResMut<Replay>, agent: Single<Option<&Path>, With<SearchAgent>>) {
    let revision = agent.map_or(0, |path| path.revision);
    if replay.revision != revision {
        replay.revision = revision;
        if replay.autoplay {
            replay.restart();
        } else {
            replay.command(ReplayCommand::Finish, 0);
        }
    }
}

fn run_replay(
    time: Res<Time>,
    mut replay: ResMut<Replay>,
    mut commands: MessageReader<ReplayCommand>,
    agent: Single<Option<&PathTrace>, With<SearchAgent>>,
) {
    let total = expansions(*agent);
    for &command in commands.read() {
        replay.command(command, total);
    }
    replay.advance(time.delta_secs(), total);
}

/// Hands the replay step to the plugin's overlay, and hides the path until the search is done.
fn show_replay_step(
    replay: Res<Replay>,
    mut agent: Single<Option<&mut PathTrace>, With<SearchAgent>>,
    mut store: ResMut<GizmoConfigStore>,
    mut saved_path_color: Local<Option<Color>>,
) {
    let total = agent.as_deref().map_or(0, |trace| expansions(Some(trace)));
    if let Some(trace) = agent.as_deref_mut() {
        let step = replay.active.then_some(replay.step);
        if trace.replay_step != step {
            trace.replay_step = step;
        }
    }
    let (_, colors) = store.config_mut::<PathfindingGizmos>();
    match (replay.hides_path(total), *saved_path_color) {
        (true, None) => {
            *saved_path_color = Some(colors.path_color);
            colors.path_color = Color::NONE;
        }
        (false, Some(color)) => {
            colors.path_color = color;
            *saved_path_color = None;
        }
        _ => {}
    }
}

/// Marks the cell the replay just expanded and the branch that reached it.
fn draw_expansion(
    replay: Res<Replay>,
    nav: Res<NavGrid>,
    lookup: Res<TraceLookup>,
    agent: Single<Option<&PathTrace>, With<SearchAgent>>,
    mut gizmos: Gizmos,
) {
    let Some(trace) = *agent else {
        return;
    };
    if !replay.active || replay.step == 0 {
        return;
    }
    let Some(&current) = trace.trace.expansions.get(replay.step as usize - 1) else {
        return;
    };
    let size = nav.cell_size().abs();
    gizmos.rect_2d(nav.cell_center(current), size * 0.9, CURRENT_COLOR);
    let mut branch = vec![nav.cell_center(current)];
    let mut cell = current;
    // The parents form a tree rooted at the start (its own parent); the bound guards the loop.
    for _ in 0..trace.trace.cells.len() {
        let Some(&position) = lookup.index.get(&cell) else {
            break;
        };
        let parent = trace.trace.cells[position].parent;
        if parent == cell {
            break;
        }
        branch.push(nav.cell_center(parent));
        cell = parent;
    }
    gizmos.linestrip_2d(branch, BRANCH_COLOR);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playing_to_the_end_finishes_the_replay() {
        let mut replay = Replay::default();
        replay.command(ReplayCommand::Restart, 100);
        replay.speed = 40.0;
        replay.advance(1.0, 100);
        assert_eq!(replay.step, 40);
        assert!(replay.hides_path(100));
        replay.advance(0.5, 100);
        assert_eq!(replay.step, 60);
        replay.advance(10.0, 100);
        assert!(!replay.active && !replay.playing);
        assert!(!replay.hides_path(100));
    }

    #[test]
    fn fractions_of_an_expansion_carry_over() {
        let mut replay = Replay {
            speed: 1.0,
            ..Replay::default()
        };
        replay.command(ReplayCommand::Restart, 10);
        for _ in 0..4 {
            replay.advance(0.25, 10);
        }
        assert_eq!(replay.step, 1);
    }

    #[test]
    fn steps_pause_and_stay_in_range() {
        let mut replay = Replay::default();
        replay.command(ReplayCommand::Step(-1), 50);
        assert_eq!(
            (replay.active, replay.playing, replay.step),
            (true, false, 49)
        );
        replay.command(ReplayCommand::Seek(3), 50);
        replay.command(ReplayCommand::Step(-10), 50);
        assert_eq!(replay.step, 0);
        replay.command(ReplayCommand::Step(500), 50);
        assert_eq!(replay.step, 50);
        replay.command(ReplayCommand::TogglePlay, 50);
        assert_eq!(
            (replay.playing, replay.step),
            (true, 0),
            "at the end, play restarts"
        );
        replay.command(ReplayCommand::TogglePlay, 50);
        assert!(!replay.playing && replay.active);
    }
}
