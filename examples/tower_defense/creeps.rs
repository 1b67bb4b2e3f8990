//! Creeps: five kinds, each an agent with a `PathRequest` to the goal and a `PathFollower`; they
//! search again from where they stand when a tower cuts their path, and cost a life at the goal.
//! Bosses are 2x2 walkers, who need routes two tiles wide; flyers fly over rock and towers.

use crate::GameSystems;
use crate::economy::{Economy, Restart};
use crate::field::CreepField;
use crate::game::{Game, game_is_running};
use crate::map::TILE;
use crate::profile::timed;
use crate::routes::{BOSS_SIZE, Walkers, goal_anchor};
use bevy::asset::RenderAssetUsages;
use bevy::gizmos::config::GizmoConfigStore;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::sprite::Anchor;
use bevy_astar::prelude::*;
use rand::RngExt;

pub(crate) fn plugin(app: &mut App) {
    let profiles =
        CreepProfiles::register(&mut app.world_mut().get_resource_or_init::<TerrainProfiles>());
    app.insert_resource(profiles)
        .init_resource::<CreepTally>()
        .add_systems(Startup, (make_creep_image, show_walls_as_walkers_see_them))
        .add_systems(
            Update,
            (
                timed("reach_goal", reach_goal).run_if(game_is_running),
                timed("drop_stuck_creeps", drop_stuck_creeps),
                timed("outline_bosses", outline_bosses),
            )
                .in_set(GameSystems::Play)
                .run_if(resource_exists::<NavGrid>),
        )
        .add_systems(PreUpdate, timed("creeps::reset", despawn_on_restart));
}

/// The terrain profiles creeps move by, registered in the plugin's [`TerrainProfiles`]: the map's
/// rock and towers are trees ([`Terrain::nav_value`](crate::map::Terrain::nav_value)), which
/// walkers cannot enter.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CreepProfiles {
    /// Creeps on foot: [`TerrainProfile::walker`].
    pub(crate) walker: ProfileId,
    /// Flying creeps: [`TerrainProfile::flyer`].
    pub(crate) flyer: ProfileId,
}

impl CreepProfiles {
    /// Registers the creeps' profiles in `profiles` (a profile of the same name registered
    /// already is taken as it is).
    pub(crate) fn register(profiles: &mut TerrainProfiles) -> Self {
        Self {
            walker: profile_named(profiles, "walker", TerrainProfile::walker()),
            flyer: profile_named(profiles, "flyer", TerrainProfile::flyer()),
        }
    }
}

/// The overlay's blocked cells are those walkers cannot enter (rock and towers are trees).
fn show_walls_as_walkers_see_them(
    profiles: Res<CreepProfiles>,
    store: Option<ResMut<GizmoConfigStore>>,
) {
    if let Some(mut store) = store
        && let Some((_, colors)) = store.get_config_mut::<PathfindingGizmos>()
    {
        colors.blocked_profile = profiles.walker;
    }
}

/// The id of the profile called `name`, registered as `profile` if there is none.
fn profile_named(profiles: &mut TerrainProfiles, name: &str, profile: TerrainProfile) -> ProfileId {
    profiles.id(name).unwrap_or_else(|| {
        profiles
            .add(name, profile)
            .expect("a new name, and the presets pass ground")
    })
}

/// The kinds of creep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CreepKind {
    /// Average in everything.
    Grunt,
    /// Fast and frail.
    Runner,
    /// Slow, big and tough.
    Brute,
    /// Two tiles by two, slowest and toughest: it needs routes two tiles wide.
    Boss,
    /// Frail, flies over rock and towers straight to the goal.
    Flyer,
}

impl CreepKind {
    /// Every kind, in the order the script names them.
    pub(crate) const ALL: [Self; 5] = [
        Self::Grunt,
        Self::Runner,
        Self::Brute,
        Self::Boss,
        Self::Flyer,
    ];

    /// The kind's name in scripts.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Grunt => "grunt",
            Self::Runner => "runner",
            Self::Brute => "brute",
            Self::Boss => "boss",
            Self::Flyer => "flyer",
        }
    }

    /// The kind called `name`.
    pub(crate) fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// Tiles per second.
    pub(crate) const fn speed(self) -> f32 {
        match self {
            Self::Grunt => 1.7,
            Self::Runner => 2.8,
            Self::Brute => 1.05,
            Self::Boss => 0.9,
            Self::Flyer => 2.1,
        }
    }

    const fn health_factor(self) -> f32 {
        match self {
            Self::Grunt => 1.0,
            Self::Runner => 0.55,
            Self::Brute => 3.2,
            Self::Boss => 14.0,
            Self::Flyer => 0.8,
        }
    }

    /// Gold paid for a kill.
    pub(crate) const fn bounty(self) -> u32 {
        match self {
            Self::Grunt | Self::Runner => 3,
            Self::Flyer => 4,
            Self::Brute => 7,
            Self::Boss => 30,
        }
    }

    pub(crate) fn color(self) -> Color {
        match self {
            Self::Grunt => Color::srgb(0.95, 0.45, 0.25),
            Self::Runner => Color::srgb(0.98, 0.86, 0.3),
            Self::Brute => Color::srgb(0.75, 0.4, 0.95),
            Self::Boss => Color::srgb(0.9, 0.15, 0.3),
            Self::Flyer => Color::srgb(0.97, 0.97, 1.0),
        }
    }

    /// Side of the creep's square footprint, in tiles.
    pub(crate) const fn footprint(self) -> u8 {
        match self {
            Self::Grunt | Self::Runner | Self::Brute | Self::Flyer => 1,
            Self::Boss => BOSS_SIZE,
        }
    }

    /// Whether the creep walks (rock and towers stop it) rather than flies.
    pub(crate) const fn walks(self) -> bool {
        !matches!(self, Self::Flyer)
    }

    /// The terrain profile the creep moves by.
    pub(crate) const fn profile(self, profiles: &CreepProfiles) -> ProfileId {
        if self.walks() {
            profiles.walker
        } else {
            profiles.flyer
        }
    }

    /// The sprite's side, in tiles: a boss fills most of its 2x2 footprint.
    const fn sprite_size(self) -> f32 {
        match self {
            Self::Grunt => 0.42,
            Self::Runner => 0.34,
            Self::Brute => 0.6,
            Self::Boss => 1.7,
            Self::Flyer => 0.5,
        }
    }

    /// Height of the sprite above the map: flyers pass over the towers.
    const fn depth(self) -> f32 {
        if self.walks() { 3.0 } else { 5.0 }
    }
}

/// Health of a creep of `kind` in wave `wave` (1 for the first).
pub(crate) fn creep_health(kind: CreepKind, wave: u32) -> f32 {
    let growth = 1.2_f32.powi(wave.saturating_sub(1).min(60) as i32);
    10.0 * growth * kind.health_factor()
}

/// A creep: its kind and health. Stress-test creeps cost no life and pay no gold.
#[derive(Component, Clone, Debug, PartialEq)]
pub(crate) struct Creep {
    pub(crate) kind: CreepKind,
    pub(crate) health: f32,
    pub(crate) max_health: f32,
    pub(crate) stress: bool,
}

impl Creep {
    /// Takes `damage`; returns whether it died.
    pub(crate) fn hurt(&mut self, damage: f32) -> bool {
        self.health -= damage;
        self.health <= 0.0
    }

    /// The sprite colour for the creep's health: darker as it is hurt.
    pub(crate) fn tint(&self) -> Color {
        let alive = (self.health / self.max_health).clamp(0.0, 1.0);
        let color = self.kind.color().to_linear() * (0.3 + 0.7 * alive);
        let alpha = if self.stress { 0.75 } else { 1.0 };
        Color::from(color).with_alpha(alpha)
    }
}

/// Marks a stress-test creep, so that counting them is not a pass over every creep.
#[derive(Component, Clone, Copy, Debug, Default)]
pub(crate) struct StressTest;

/// Marks a boss.
#[derive(Component, Clone, Copy, Debug, Default)]
pub(crate) struct Boss;

/// Marks a flying creep.
#[derive(Component, Clone, Copy, Debug, Default)]
pub(crate) struct Flying;

/// Counts of creeps that left the field other than by dying.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CreepTally {
    /// Stress-test creeps that reached the goal (free of charge).
    pub(crate) stress_arrived: u32,
    /// Creeps removed because their search failed (none should be: placements that could
    /// cause it are refused).
    pub(crate) stuck: u32,
}

/// The round sprite every wave creep wears, tinted per kind, and the hollow ring of the
/// stress-test creeps.
#[derive(Resource, Clone, Debug)]
pub(crate) struct CreepImage {
    disc: Handle<Image>,
    ring: Handle<Image>,
}

impl CreepImage {
    /// The disc image (also the towers' turret).
    pub(crate) fn handle(&self) -> Handle<Image> {
        self.disc.clone()
    }

    /// The image of a creep: a ring for a stress-test creep, else the disc.
    fn of(&self, stress: bool) -> Handle<Image> {
        if stress {
            self.ring.clone()
        } else {
            self.disc.clone()
        }
    }
}

/// Side of the creep images, in pixels.
const IMAGE_SIDE: u32 = 16;

/// The grey value and opacity of the disc image at `offset` from its centre, in pixels: lighter
/// towards the top left, a dark rim, a little volume.
fn disc_pixel(offset: Vec2) -> (f32, f32) {
    let radius = offset.length() / (IMAGE_SIDE as f32 / 2.0);
    let alpha = ((1.0 - radius) * 6.0).clamp(0.0, 1.0);
    let light = 1.0 - 0.35 * radius - 0.02 * (offset.x + offset.y);
    let rim = if radius > 0.8 { 0.45 } else { 1.0 };
    (light * rim, alpha)
}

/// The ring image: the disc's outer quarter, hollow inside.
fn ring_pixel(offset: Vec2) -> (f32, f32) {
    let radius = offset.length() / (IMAGE_SIDE as f32 / 2.0);
    let alpha = ((1.0 - radius) * 6.0)
        .min((radius - 0.55) * 6.0)
        .clamp(0.0, 1.0);
    (1.0, alpha)
}

fn creep_image(pixel: fn(Vec2) -> (f32, f32)) -> Image {
    let side = IMAGE_SIDE;
    let mut data = Vec::with_capacity((side * side * 4) as usize);
    for y in 0..side {
        for x in 0..side {
            let offset = Vec2::new(x as f32 + 0.5, y as f32 + 0.5) - side as f32 / 2.0;
            let (light, alpha) = pixel(offset);
            let value = (light * 255.0).clamp(0.0, 255.0) as u8;
            data.extend([value, value, value, (alpha * 255.0) as u8]);
        }
    }
    Image::new(
        Extent3d {
            width: side,
            height: side,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

fn make_creep_image(mut commands: Commands, mut images: ResMut<Assets<Image>>) {
    commands.insert_resource(CreepImage {
        disc: images.add(creep_image(disc_pixel)),
        ring: images.add(creep_image(ring_pixel)),
    });
}

/// Everything that decides a new creep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CreepSpawn {
    pub(crate) kind: CreepKind,
    /// The anchor (top-left cell) of its footprint.
    pub(crate) cell: Cell,
    pub(crate) wave: u32,
    pub(crate) stress: bool,
    /// Record its searches for the debug overlay.
    pub(crate) traced: bool,
}

/// Spawns a creep with its footprint anchored on `spawn.cell` that asks for a path to the goal,
/// by its kind's size and terrain profile.
pub(crate) fn spawn_creep(
    commands: &mut Commands,
    nav: &NavGrid,
    image: &CreepImage,
    profiles: &CreepProfiles,
    rng: &mut impl RngExt,
    spawn: CreepSpawn,
) {
    let CreepSpawn {
        kind,
        cell,
        wave,
        stress,
        traced,
    } = spawn;
    let health = creep_health(kind, wave);
    let creep = Creep {
        kind,
        health,
        max_health: health,
        stress,
    };
    // Creeps walk the centres of their footprints and avoid each other (`CrowdAvoidance`), so a wave
    // flows round itself and queues at gaps; the sprite is drawn where the creep is.
    let jitter = Vec2::ZERO;
    let speed = kind.speed() * TILE * rng.random_range(0.92..1.08);
    let size = kind.footprint();
    let mut entity = commands.spawn((
        Sprite {
            image: image.of(stress),
            color: creep.tint(),
            custom_size: Some(Vec2::splat(kind.sprite_size() * TILE)),
            ..default()
        },
        Anchor(jitter),
        Transform::from_translation(nav.footprint_center(cell, size).extend(kind.depth())),
        // The request is all a creep needs to get a path; the follower walks it. When a tower
        // cuts the path, the new search starts from the cell the creep has got to.
        PathRequest::new(cell, goal_anchor(size))
            .with_start_at_agent(true)
            .with_profile(kind.profile(profiles))
            .with_size(size),
        PathFollower::new(speed),
        creep,
    ));
    // Wave creeps avoid each other. The stress test's thousands, released across the whole
    // map at once, would not fit on it side by side (they would jam every gap, and the crowd's
    // cost would be theirs): they test the pathfinding alone, drawn as rings to tell them
    // apart, and walk through one another.
    if stress {
        entity.insert(StressTest);
    } else {
        entity.insert(CrowdAvoidance::default());
    }
    if kind == CreepKind::Boss {
        entity.insert(Boss);
    }
    if !kind.walks() {
        entity
            .insert(Flying)
            .with_child(flyer_shadow(image, kind, jitter));
    }
    if traced {
        entity.insert(PathDebug);
    }
}

/// A flyer's shadow on the ground, below and behind it (a child of the flyer).
fn flyer_shadow(image: &CreepImage, kind: CreepKind, jitter: Vec2) -> impl Bundle {
    (
        Sprite {
            image: image.handle(),
            color: Color::BLACK.with_alpha(0.5),
            custom_size: Some(Vec2::splat(kind.sprite_size() * TILE * 0.8)),
            ..default()
        },
        Anchor(jitter),
        Transform::from_xyz(TILE * 0.25, -TILE * 0.4, -2.5),
    )
}

/// The footprint anchors the walking creeps stand on now, by size (for the placement check).
pub(crate) fn walkers_on_field<'a>(
    nav: &NavGrid,
    creeps: impl IntoIterator<Item = (&'a Creep, &'a Transform)>,
) -> Walkers {
    let mut walkers = Walkers::default();
    for (creep, transform) in creeps.into_iter().filter(|(creep, _)| creep.kind.walks()) {
        let size = creep.kind.footprint();
        let Some(anchor) = nav.footprint_anchor(transform.translation.truncate(), size) else {
            continue;
        };
        if size == BOSS_SIZE {
            walkers.bosses.push(anchor);
        } else {
            walkers.small.push(anchor);
        }
    }
    for anchors in [&mut walkers.small, &mut walkers.bosses] {
        anchors.sort_unstable_by_key(|cell| (cell.y, cell.x));
        anchors.dedup();
    }
    walkers
}

/// How near the goal, in tiles, a creep that has finished its walk leaves: the crowd stops
/// creeps short of a goal that others stand on.
const GOAL_REACH: f32 = 3.0;

/// Creeps that have walked to the goal (within [`GOAL_REACH`] of it) leave, taking a life
/// (stress-test creeps are free). Only the creeps near the goal are looked at.
fn reach_goal(
    mut commands: Commands,
    nav: Res<NavGrid>,
    field: Res<CreepField>,
    mut economy: ResMut<Economy>,
    mut tally: ResMut<CreepTally>,
    creeps: Query<(&Creep, &PathFollower)>,
) {
    // The goal tile's centre; a boss's footprint centre on the goal is within a tile of it.
    let goal_tile = nav.cell_center(goal_anchor(1));
    for (entity, at, _) in field.near(goal_tile, TILE * (GOAL_REACH + 1.0)) {
        let Ok((creep, follower)) = creeps.get(entity) else {
            continue;
        };
        let size = creep.kind.footprint();
        let goal = nav.footprint_center(goal_anchor(size), size);
        if at.distance(goal) < TILE * GOAL_REACH && follower.is_finished() {
            commands.entity(entity).try_despawn();
            if creep.stress {
                tally.stress_arrived += 1;
            } else {
                economy.lose_life();
            }
        }
    }
}

/// Creeps whose search failed leave the field (a refused placement should make this rare);
/// after the end of the game they are no longer counted.
fn drop_stuck_creeps(
    mut commands: Commands,
    mut failures: MessageReader<PathNotFound>,
    game: Res<Game>,
    mut tally: ResMut<CreepTally>,
    creeps: Query<(), With<Creep>>,
) {
    for failure in failures.read() {
        if !creeps.contains(failure.entity) {
            continue;
        }
        warn!(
            "a creep could not reach the goal ({}) and leaves the field",
            failure.reason
        );
        commands.entity(failure.entity).try_despawn();
        if game.is_running() {
            tally.stuck += 1;
        }
    }
}

/// Outlines each boss's 2x2 footprint on the map.
fn outline_bosses(bosses: Query<&Transform, With<Boss>>, mut gizmos: Gizmos) {
    let side = f32::from(BOSS_SIZE) * TILE;
    for transform in &bosses {
        gizmos.rect_2d(
            transform.translation.truncate(),
            Vec2::splat(side - 2.0),
            CreepKind::Boss.color().with_alpha(0.8),
        );
    }
}

fn despawn_on_restart(
    mut commands: Commands,
    mut restarts: MessageReader<Restart>,
    mut tally: ResMut<CreepTally>,
    creeps: Query<Entity, With<Creep>>,
) {
    if restarts.read().count() == 0 {
        return;
    }
    for entity in &creeps {
        commands.entity(entity).despawn();
    }
    *tally = CreepTally::default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_waves_are_tougher_and_bosses_toughest() {
        for kind in CreepKind::ALL {
            assert!(creep_health(kind, 5) > creep_health(kind, 1));
            assert!(creep_health(kind, 1_000).is_finite());
        }
        assert!(creep_health(CreepKind::Brute, 1) > creep_health(CreepKind::Grunt, 1));
        assert!(creep_health(CreepKind::Runner, 1) < creep_health(CreepKind::Grunt, 1));
        assert!(CreepKind::Runner.speed() > CreepKind::Brute.speed());
        assert!(creep_health(CreepKind::Boss, 1) > creep_health(CreepKind::Brute, 1));
        assert!(CreepKind::Boss.speed() < CreepKind::Brute.speed());
    }

    #[test]
    fn bosses_are_big_walkers_and_flyers_fly() {
        let profiles = CreepProfiles::register(&mut TerrainProfiles::default());
        assert_eq!(CreepKind::Boss.footprint(), BOSS_SIZE);
        assert_eq!(CreepKind::Boss.profile(&profiles), profiles.walker);
        assert_eq!(CreepKind::Flyer.footprint(), 1);
        assert_eq!(CreepKind::Flyer.profile(&profiles), profiles.flyer);
        assert_ne!(profiles.walker, profiles.flyer);
        for kind in CreepKind::ALL {
            assert_eq!(CreepKind::named(kind.name()), Some(kind));
        }
        assert_eq!(CreepKind::named("dragon"), None);
    }

    #[test]
    fn walkers_on_the_field_are_anchored_by_size_and_flyers_left_out() {
        let nav = NavGrid::new(Grid::new(8, 8)).with_cell_size(Vec2::splat(10.0));
        let creep = |kind| Creep {
            kind,
            health: 1.0,
            max_health: 1.0,
            stress: false,
        };
        let at = |x, y| Transform::from_xyz(x, y, 0.0);
        let (grunt, boss, flyer) = (
            creep(CreepKind::Grunt),
            creep(CreepKind::Boss),
            creep(CreepKind::Flyer),
        );
        // The boss's footprint centre (30, 20) is the corner its four cells share.
        let positions = [
            (at(15.0, 25.0), &grunt),
            (at(30.0, 20.0), &boss),
            (at(55.0, 55.0), &flyer),
        ];
        let walkers = walkers_on_field(
            &nav,
            positions
                .iter()
                .map(|(transform, creep)| (*creep, transform)),
        );
        assert_eq!(walkers.small, vec![Cell::new(1, 2)]);
        assert_eq!(walkers.bosses, vec![Cell::new(2, 1)]);
    }

    #[test]
    fn creeps_die_when_health_runs_out() {
        let mut creep = Creep {
            kind: CreepKind::Grunt,
            health: 10.0,
            max_health: 10.0,
            stress: false,
        };
        assert!(!creep.hurt(4.0));
        assert!(!creep.hurt(5.9));
        assert!(creep.hurt(0.2));
    }
}
