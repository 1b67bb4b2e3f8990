//! Waves: the player sends the first, a countdown runs between the others (or the player sends
//! the next at once); each brings creeps of random kinds at random intervals from the spawn,
//! larger and tougher each time, flyers among them from the second and bosses closing every
//! fourth. Also the stress test, thousands of creeps released across the map at once.

use crate::GameSystems;
use crate::creeps::{CreepImage, CreepKind, CreepProfiles, CreepSpawn, spawn_creep};
use crate::economy::Restart;
use crate::game::{Game, countdown_runs, may_send_wave};
use crate::map::{GOAL, MAP_HEIGHT, MAP_WIDTH};
use crate::profile::timed;
use crate::routes::{creep_movement, spawn_anchor};
use bevy::prelude::*;
use bevy_astar::NavConnectivity;
use bevy_astar::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::VecDeque;

/// Seconds between the last creep of a wave and the next wave.
pub(crate) const WAVE_GAP: f32 = 10.0;
/// Seed of the waves' randomness: scripted runs see the same waves.
const WAVE_SEED: u64 = 11;
/// Every this many waves, bosses close the wave.
const BOSS_WAVES: u32 = 4;

pub(crate) fn plugin(app: &mut App) {
    app.insert_resource(Waves::new(WAVE_SEED))
        .add_message::<SendWave>()
        .add_message::<Stress>()
        .add_message::<SendCreeps>()
        .add_systems(
            Update,
            (
                timed("start_waves", start_waves),
                timed("send_creeps", send_creeps),
                timed("spawn_creeps", spawn_creeps),
                timed("release_stress", release_stress),
            )
                .chain()
                .in_set(GameSystems::Build)
                .run_if(resource_exists::<NavGrid>.and_then(resource_exists::<CreepImage>)),
        )
        .add_systems(PreUpdate, timed("waves::reset", reset_on_restart));
}

/// Starts the next wave now.
#[derive(Message, Clone, Copy, Debug, Default)]
pub(crate) struct SendWave;

/// Releases this many stress-test creeps across the map.
#[derive(Message, Clone, Copy, Debug)]
pub(crate) struct Stress(pub(crate) u32);

/// Sends this many creeps of a kind from the spawn, before the rest of the current wave.
#[derive(Message, Clone, Copy, Debug)]
pub(crate) struct SendCreeps(pub(crate) CreepKind, pub(crate) u32);

/// The wave schedule and the creeps still to come.
#[derive(Resource, Debug)]
pub(crate) struct Waves {
    /// The last wave started (0 before the first).
    pub(crate) number: u32,
    /// Seconds until the next wave, counted down while none is spawning (the first waits for
    /// the player).
    pub(crate) countdown: f32,
    /// Creeps of the current wave still to spawn.
    pending: VecDeque<CreepKind>,
    /// Seconds until the next creep of the current wave.
    next_spawn: f32,
    /// Whether the next creep is the first of its wave (its searches are traced).
    first_of_wave: bool,
    rng: StdRng,
}

impl Waves {
    fn new(seed: u64) -> Self {
        Self {
            number: 0,
            countdown: WAVE_GAP,
            pending: VecDeque::new(),
            next_spawn: 0.0,
            first_of_wave: false,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// Creeps of the current wave not yet spawned.
    pub(crate) fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Queues wave `number + 1`: more creeps each wave, runners and flyers from the second,
    /// brutes from the third, a pack of brutes every fifth, and bosses at the end of every fourth
    /// (one more each time).
    fn start_next(&mut self) {
        self.number += 1;
        let wave = self.number;
        let count = 6 + 3 * wave;
        let runners = if wave >= 2 { 0.25 } else { 0.0 };
        let flyers = if wave >= 2 { 0.15 } else { 0.0 };
        let brutes = if wave >= 3 {
            (0.04 * f64::from(wave)).min(0.3)
        } else {
            0.0
        };
        for _ in 0..count {
            let roll: f64 = self.rng.random();
            let kind = if roll < brutes {
                CreepKind::Brute
            } else if roll < brutes + runners {
                CreepKind::Runner
            } else if roll < brutes + runners + flyers {
                CreepKind::Flyer
            } else {
                CreepKind::Grunt
            };
            self.pending.push_back(kind);
        }
        if wave.is_multiple_of(5) {
            self.pending.extend([CreepKind::Brute; 3]);
        }
        if wave.is_multiple_of(BOSS_WAVES) {
            let bosses = (wave / BOSS_WAVES) as usize;
            self.pending
                .extend(core::iter::repeat_n(CreepKind::Boss, bosses));
        }
        self.first_of_wave = true;
        self.next_spawn = 0.0;
    }
}

/// Starts the next wave when the player sends it or its countdown runs out.
fn start_waves(
    time: Res<Time>,
    game: Res<Game>,
    mut sends: MessageReader<SendWave>,
    mut waves: ResMut<Waves>,
) {
    let sent = sends.read().count() > 0;
    if !may_send_wave(game.phase, waves.number) {
        return;
    }
    if countdown_runs(game.phase, waves.number, waves.pending()) {
        waves.countdown -= time.delta_secs();
    }
    if sent || waves.countdown <= 0.0 {
        waves.start_next();
        waves.countdown = WAVE_GAP;
    }
}

/// Puts the creeps asked for at the head of the queue.
fn send_creeps(mut sends: MessageReader<SendCreeps>, mut waves: ResMut<Waves>) {
    for &SendCreeps(kind, count) in sends.read() {
        for _ in 0..count {
            waves.pending.push_front(kind);
        }
    }
}

fn spawn_creeps(
    mut commands: Commands,
    time: Res<Time>,
    nav: Res<NavGrid>,
    image: Res<CreepImage>,
    profiles: Res<CreepProfiles>,
    game: Res<Game>,
    mut waves: ResMut<Waves>,
) {
    if !game.is_running() {
        return;
    }
    let waves = &mut *waves;
    waves.next_spawn -= time.delta_secs();
    while waves.next_spawn <= 0.0 {
        let Some(kind) = waves.pending.pop_front() else {
            break;
        };
        let spawn = CreepSpawn {
            kind,
            cell: spawn_anchor(kind.footprint()),
            wave: waves.number,
            stress: false,
            traced: core::mem::take(&mut waves.first_of_wave),
        };
        spawn_creep(
            &mut commands,
            &nav,
            &image,
            &profiles,
            &mut waves.rng,
            spawn,
        );
        // Mostly a steady trickle, sometimes two at once.
        waves.next_spawn += if waves.rng.random_bool(0.15) {
            0.05
        } else {
            waves.rng.random_range(0.3..0.85)
        };
    }
    if waves.pending.is_empty() {
        waves.next_spawn = 0.0;
    }
}

/// Stress-test creeps appear on random cells left of the last wall from which the goal can be
/// reached, each with its own request to the goal: thousands of agents, most sharing a start
/// cell with others.
fn release_stress(
    mut commands: Commands,
    nav: Res<NavGrid>,
    connectivity: Res<NavConnectivity>,
    image: Res<CreepImage>,
    profiles: Res<CreepProfiles>,
    (game, mut stresses): (Res<Game>, MessageReader<Stress>),
    mut waves: ResMut<Waves>,
) {
    let count: u32 = stresses.read().map(|stress| stress.0).sum();
    if count == 0 || game.phase.is_over() {
        return;
    }
    let open: Vec<Cell> = (0..MAP_HEIGHT)
        .flat_map(|y| (0..MAP_WIDTH).map(move |x| Cell::new(x, y)))
        .filter(|&cell| {
            cell.x + 8 < GOAL.x
                && connectivity.reaches(profiles.walker, 1, creep_movement(), cell, GOAL)
                    == Some(true)
        })
        .collect();
    if open.is_empty() {
        return;
    }
    let waves = &mut *waves;
    let wave = waves.number.max(1);
    for _ in 0..count {
        let cell = open[waves.rng.random_range(0..open.len())];
        let kind = match waves.rng.random_range(0..10) {
            0..=5 => CreepKind::Grunt,
            6..=8 => CreepKind::Runner,
            _ => CreepKind::Brute,
        };
        let spawn = CreepSpawn {
            kind,
            cell,
            wave,
            stress: true,
            traced: false,
        };
        spawn_creep(
            &mut commands,
            &nav,
            &image,
            &profiles,
            &mut waves.rng,
            spawn,
        );
    }
    info!("released {count} stress-test creeps");
}

fn reset_on_restart(mut restarts: MessageReader<Restart>, mut waves: ResMut<Waves>) {
    if restarts.read().count() > 0 {
        *waves = Waves::new(WAVE_SEED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waves_grow_and_mix_kinds() {
        let mut waves = Waves::new(3);
        waves.start_next();
        let first = waves.pending.len();
        assert!(waves.pending.iter().all(|&kind| kind == CreepKind::Grunt));
        waves.pending.clear();
        for _ in 0..8 {
            waves.pending.clear();
            waves.start_next();
        }
        assert_eq!(waves.number, 9);
        assert!(waves.pending.len() > first);
        for kind in [
            CreepKind::Grunt,
            CreepKind::Runner,
            CreepKind::Brute,
            CreepKind::Flyer,
        ] {
            assert!(waves.pending.contains(&kind), "{kind:?} in wave 9");
        }
        assert!(
            !waves.pending.contains(&CreepKind::Boss),
            "no boss in wave 9"
        );
        waves.pending.clear();
        waves.start_next();
        let brutes = waves
            .pending
            .iter()
            .rev()
            .take(3)
            .all(|&kind| kind == CreepKind::Brute);
        assert!(brutes, "wave 10 ends with a pack of brutes");
    }

    #[test]
    fn every_fourth_wave_ends_with_bosses() {
        let mut waves = Waves::new(3);
        for wave in 1..=12 {
            waves.pending.clear();
            waves.start_next();
            let bosses = waves
                .pending
                .iter()
                .filter(|&&kind| kind == CreepKind::Boss)
                .count();
            let expected = if wave % 4 == 0 { wave / 4 } else { 0 };
            assert_eq!(bosses, expected as usize, "wave {wave}");
            if bosses > 0 {
                assert_eq!(waves.pending.back(), Some(&CreepKind::Boss), "wave {wave}");
            }
        }
    }
}
