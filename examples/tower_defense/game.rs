//! The match: before the first wave the player builds and sends it; the later waves follow a
//! countdown (or come at once when sent); the game is won when the last of [`WAVES_TO_WIN`]
//! waves is beaten and lost when the lives run out. `Space` pauses, `R` restarts.
//!
//! The rules are pure functions of [`Progress`]; the systems only carry them out. The game's
//! clock is Bevy's virtual time: pausing it, or the end of the game, stops the creeps (the
//! plugin moves them by it), the towers, the spawns and the countdown, while the plugin's
//! searches and the windows go on.

use crate::GameSystems;
use crate::creeps::{Creep, StressTest};
use crate::economy::{Economy, Restart};
use crate::profile::timed;
use crate::waves::Waves;
use bevy::prelude::*;

/// Waves to beat to win.
pub(crate) const WAVES_TO_WIN: u32 = 10;

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Game>()
        .add_message::<TogglePause>()
        .add_systems(
            Update,
            (
                timed("toggle_pause", toggle_pause).in_set(GameSystems::Build),
                timed("judge_game", judge_game).in_set(GameSystems::Judge),
            ),
        )
        .add_systems(PostUpdate, timed("run_the_clock", run_the_clock))
        .add_systems(PreUpdate, timed("game::reset", reset_on_restart));
}

/// Pauses the game, or resumes it.
#[derive(Message, Clone, Copy, Debug, Default)]
pub(crate) struct TogglePause;

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Before the first wave: the player builds, then sends it.
    Preparing,
    /// Waves are under way.
    Waves,
    /// Every wave was beaten.
    Won,
    /// The lives ran out.
    Lost,
}

impl Phase {
    /// Whether the game has ended, won or lost.
    pub(crate) const fn is_over(self) -> bool {
        matches!(self, Self::Won | Self::Lost)
    }
}

/// The game's phase and whether the player paused it.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Game {
    pub(crate) phase: Phase,
    pub(crate) paused: bool,
}

impl Default for Game {
    fn default() -> Self {
        Self {
            phase: Phase::Preparing,
            paused: false,
        }
    }
}

impl Game {
    /// Whether the game's clock runs: creeps walk, towers shoot, waves come, counters count.
    pub(crate) const fn is_running(self) -> bool {
        clock_runs(self.phase, self.paused)
    }
}

/// What the rules judge the game on, each frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    /// Lives left.
    pub(crate) lives: u32,
    /// Waves started so far.
    pub(crate) waves_started: u32,
    /// Creeps of the current wave not spawned yet.
    pub(crate) creeps_to_come: usize,
    /// Wave creeps on the field (stress-test creeps do not count).
    pub(crate) wave_creeps_alive: usize,
}

/// The phase after a frame that left `progress`: the end is final (until a restart); no lives
/// left loses; the last wave started, spawned and cleared wins; the first wave sent starts the
/// waves.
pub(crate) const fn next_phase(phase: Phase, progress: Progress) -> Phase {
    if phase.is_over() {
        return phase;
    }
    if progress.lives == 0 {
        return Phase::Lost;
    }
    let last_wave_beaten = progress.waves_started >= WAVES_TO_WIN
        && progress.creeps_to_come == 0
        && progress.wave_creeps_alive == 0;
    if last_wave_beaten {
        Phase::Won
    } else if progress.waves_started > 0 {
        Phase::Waves
    } else {
        Phase::Preparing
    }
}

/// Whether the player may send the next wave now: before the end, while waves remain.
pub(crate) const fn may_send_wave(phase: Phase, waves_started: u32) -> bool {
    !phase.is_over() && waves_started < WAVES_TO_WIN
}

/// Whether the countdown to the next wave runs: once the player sent the first, between two
/// waves (the current one all spawned), while waves remain and the game goes on.
pub(crate) const fn countdown_runs(
    phase: Phase,
    waves_started: u32,
    creeps_to_come: usize,
) -> bool {
    matches!(phase, Phase::Waves) && creeps_to_come == 0 && may_send_wave(phase, waves_started)
}

/// Whether the game's clock runs: not paused, and the game not over.
pub(crate) const fn clock_runs(phase: Phase, paused: bool) -> bool {
    !paused && !phase.is_over()
}

/// Whether a pause asked for is taken: only while the game goes on (the end stops the clock
/// anyway).
pub(crate) const fn pause_after_toggle(phase: Phase, paused: bool) -> bool {
    !paused && !phase.is_over()
}

/// Runs a system only while the game's clock runs (not paused, not over): the systems that
/// count kills and losses.
pub(crate) fn game_is_running(game: Res<Game>) -> bool {
    game.is_running()
}

fn toggle_pause(mut toggles: MessageReader<TogglePause>, mut game: ResMut<Game>) {
    for _ in toggles.read() {
        game.paused = pause_after_toggle(game.phase, game.paused);
    }
}

/// Judges the frame's outcome, after the creeps moved and the towers shot.
fn judge_game(
    economy: Res<Economy>,
    waves: Res<Waves>,
    wave_creeps: Query<(), (With<Creep>, Without<StressTest>)>,
    mut game: ResMut<Game>,
) {
    let progress = Progress {
        lives: economy.lives,
        waves_started: waves.number,
        creeps_to_come: waves.pending(),
        wave_creeps_alive: wave_creeps.iter().len(),
    };
    let phase = next_phase(game.phase, progress);
    if phase != game.phase {
        info!("the game is now {phase:?}");
        game.phase = phase;
    }
}

/// Stops the game's clock while the game is paused or over, and runs it otherwise.
fn run_the_clock(game: Res<Game>, mut time: ResMut<Time<Virtual>>) {
    let runs = game.is_running();
    if runs && time.is_paused() {
        time.unpause();
    } else if !runs && !time.is_paused() {
        time.pause();
    }
}

fn reset_on_restart(mut restarts: MessageReader<Restart>, mut game: ResMut<Game>) {
    if restarts.read().count() > 0 {
        *game = Game::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(lives: u32, waves_started: u32, to_come: usize, alive: usize) -> Progress {
        Progress {
            lives,
            waves_started,
            creeps_to_come: to_come,
            wave_creeps_alive: alive,
        }
    }

    #[test]
    fn the_first_wave_waits_for_the_player() {
        assert_eq!(
            next_phase(Phase::Preparing, progress(20, 0, 0, 0)),
            Phase::Preparing
        );
        assert!(!countdown_runs(Phase::Preparing, 0, 0), "no countdown");
        assert!(may_send_wave(Phase::Preparing, 0));
        assert_eq!(
            next_phase(Phase::Preparing, progress(20, 1, 9, 0)),
            Phase::Waves
        );
    }

    #[test]
    fn the_countdown_runs_between_waves_only() {
        assert!(!countdown_runs(Phase::Waves, 3, 5), "wave 3 still spawning");
        assert!(countdown_runs(Phase::Waves, 3, 0));
        assert!(
            !countdown_runs(Phase::Waves, WAVES_TO_WIN, 0),
            "none after the last"
        );
        assert!(!may_send_wave(Phase::Waves, WAVES_TO_WIN));
        for over in [Phase::Won, Phase::Lost] {
            assert!(!countdown_runs(over, 3, 0));
            assert!(!may_send_wave(over, 3));
        }
    }

    #[test]
    fn the_game_is_won_when_the_last_wave_is_cleared() {
        let last = WAVES_TO_WIN;
        assert_eq!(
            next_phase(Phase::Waves, progress(5, last, 1, 0)),
            Phase::Waves
        );
        assert_eq!(
            next_phase(Phase::Waves, progress(5, last, 0, 2)),
            Phase::Waves
        );
        assert_eq!(
            next_phase(Phase::Waves, progress(5, last - 1, 0, 0)),
            Phase::Waves,
            "a cleared wave before the last is no win"
        );
        assert_eq!(
            next_phase(Phase::Waves, progress(5, last, 0, 0)),
            Phase::Won
        );
    }

    #[test]
    fn the_game_is_lost_with_the_last_life_and_the_end_is_final() {
        assert_eq!(next_phase(Phase::Waves, progress(0, 4, 3, 7)), Phase::Lost);
        // The last life lost with the last creep of the last wave still loses.
        assert_eq!(
            next_phase(Phase::Waves, progress(0, WAVES_TO_WIN, 0, 0)),
            Phase::Lost
        );
        assert_eq!(next_phase(Phase::Lost, progress(20, 0, 0, 0)), Phase::Lost);
        assert_eq!(next_phase(Phase::Won, progress(0, 3, 9, 9)), Phase::Won);
    }

    #[test]
    fn the_clock_stops_when_paused_or_over() {
        assert!(clock_runs(Phase::Preparing, false));
        assert!(clock_runs(Phase::Waves, false));
        assert!(!clock_runs(Phase::Waves, true));
        assert!(!clock_runs(Phase::Won, false));
        assert!(!clock_runs(Phase::Lost, false));
        assert!(pause_after_toggle(Phase::Waves, false));
        assert!(!pause_after_toggle(Phase::Waves, true));
        assert!(
            !pause_after_toggle(Phase::Lost, false),
            "no pause after the end"
        );
        let game = Game {
            phase: Phase::Waves,
            paused: true,
        };
        assert!(!game.is_running());
    }
}
