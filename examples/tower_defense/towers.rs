//! Towers: a left click on a free tile builds one, unless it would cut every route from the spawn
//! to the goal or trap a creep, for walkers of any size (judged on the plugin's connectivity
//! before anything changes); the tile becomes a tower tile, which walking creeps cannot enter,
//! and only the creeps whose paths crossed it search again. Towers shoot the nearest creep in
//! range.

use crate::GameSystems;
use crate::creeps::{Creep, CreepImage, CreepProfiles, walkers_on_field};
use crate::economy::{Economy, Restart, TOWER_COST};
use crate::field::CreepField;
use crate::game::{Game, Phase, game_is_running};
use crate::map::{Battlefield, Layout, TILE, Terrain};
use crate::profile::timed;
use crate::routes::{BOSS_SIZE, Blocking, CutOff, RouteCheck, Walkers};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_astar::NavConnectivity;
use bevy_astar::prelude::*;
use bevy_astar::tilemap::cell_to_tile_pos;
use bevy_ecs_tilemap::prelude::*;
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

/// Reach of a tower, in tiles.
pub(crate) const RANGE: f32 = 3.2;
/// Seconds between two shots of a tower.
const RELOAD: f32 = 0.4;
/// Damage of one shot.
const DAMAGE: f32 = 6.0;
/// Seconds a shot's beam stays visible.
const BEAM: f32 = 0.08;
/// Seconds a refusal's text floats over its tile.
const REFUSAL_TEXT: f32 = 2.2;

pub(crate) fn plugin(app: &mut App) {
    app.add_message::<PlaceTower>()
        .init_resource::<HoveredCell>()
        .init_resource::<PlacementLog>()
        .add_systems(
            Update,
            (
                timed("hover_and_click", hover_and_click)
                    .in_set(GameSystems::Input)
                    .run_if(resource_exists::<NavGrid>),
                timed("build_towers", build_towers)
                    .in_set(GameSystems::Build)
                    .run_if(resource_exists::<NavGrid>.and_then(resource_exists::<Battlefield>)),
                (
                    timed("shoot", shoot).run_if(game_is_running),
                    timed("draw_beams", draw_beams),
                    timed("draw_hover", draw_hover),
                    timed("float_refusals", float_refusals),
                )
                    .chain()
                    .in_set(GameSystems::Play)
                    .run_if(resource_exists::<NavGrid>),
            ),
        )
        .add_systems(
            EguiPrimaryContextPass,
            timed("paint_refusals", paint_refusals),
        )
        .add_systems(PreUpdate, timed("towers::reset", reset_on_restart));
}

/// Asks to build a tower on a cell; a click and a scripted placement both send it.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlaceTower(pub(crate) Cell);

/// A tower and its weapon.
#[derive(Component, Clone, Debug, PartialEq)]
pub(crate) struct Tower {
    pub(crate) cell: Cell,
    reload: f32,
    /// Where the last shot hit, and for how much longer its beam shows.
    beam: Option<(Vec2, f32)>,
}

/// The tile under the cursor (`None` off the map or over a window), and what building there
/// would give.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub(crate) struct HoveredCell {
    pub(crate) cell: Option<Cell>,
    pub(crate) verdict: Option<Result<(), Refusal>>,
}

/// Why a tower was not built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    Terrain(&'static str),
    Gold,
    GameOver,
    Blocking(Blocking),
}

impl core::fmt::Display for Refusal {
    fn fmt(&self, formatter: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Terrain(reason) => formatter.write_str(reason),
            Self::Gold => write!(formatter, "not enough gold: a tower costs {TOWER_COST}"),
            Self::GameOver => formatter.write_str("the game is over: press R to play again"),
            Self::Blocking(Blocking::CutsRoute(CutOff::LargeKinds)) => write!(
                formatter,
                "it would leave no route {BOSS_SIZE} tiles wide from the spawn to the goal: \
                 bosses ({BOSS_SIZE}x{BOSS_SIZE}) could not pass, smaller creeps could"
            ),
            Self::Blocking(Blocking::CutsRoute(CutOff::Everyone)) => formatter.write_str(
                "it would close the last route from the spawn to the goal: no creep on foot \
                 could pass",
            ),
            Self::Blocking(Blocking::TrapsCreeps(1)) => {
                formatter.write_str("it would trap a creep with no way to the goal")
            }
            Self::Blocking(Blocking::TrapsCreeps(count)) => {
                write!(
                    formatter,
                    "it would trap {count} creeps with no way to the goal"
                )
            }
            Self::Blocking(Blocking::CreepOnCell) => {
                formatter.write_str("a creep is standing there")
            }
            Self::Blocking(Blocking::NotReady) => {
                formatter.write_str("the routes of the map are still being worked out")
            }
        }
    }
}

impl Refusal {
    /// The reason in a few words, for the text floating over the tile.
    fn short(&self) -> String {
        match self {
            Self::Terrain(_) => "not a free tile".to_owned(),
            Self::Gold => "not enough gold".to_owned(),
            Self::GameOver => "game over".to_owned(),
            Self::Blocking(Blocking::CutsRoute(CutOff::LargeKinds)) => {
                "bosses could not pass".to_owned()
            }
            Self::Blocking(Blocking::CutsRoute(CutOff::Everyone)) => {
                "no creep could pass".to_owned()
            }
            Self::Blocking(Blocking::TrapsCreeps(1)) => "it would trap a creep".to_owned(),
            Self::Blocking(Blocking::TrapsCreeps(count)) => format!("it would trap {count} creeps"),
            Self::Blocking(Blocking::CreepOnCell) => "a creep is there".to_owned(),
            Self::Blocking(Blocking::NotReady) => "not yet".to_owned(),
        }
    }
}

/// What the last placements did, for the game window.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub(crate) struct PlacementLog {
    /// The last refusal and its cell (kept when a later tower is built).
    pub(crate) refusal: Option<(Cell, Refusal)>,
    /// The last tower built.
    pub(crate) last_tower: Option<TowerReport>,
}

/// A tower as it landed, with the plugin's counters at that moment, so that the window can
/// show the paths it cut (the plugin's count of paths invalidated since) and the work done
/// since.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TowerReport {
    pub(crate) cell: Cell,
    /// Creeps on the field then.
    pub(crate) creeps: usize,
    /// The plugin's counters just before the tower landed.
    pub(crate) stats_before: PathfindingStats,
}

/// Judges building on `cell` with `gold` in the purse: the game, the tile, the purse, then the
/// routes of the spawn and the creeps.
fn judge(
    cell: Cell,
    terrain: Terrain,
    (gold, phase): (u32, Phase),
    routes: &RouteCheck,
) -> Result<(), Refusal> {
    if phase.is_over() {
        return Err(Refusal::GameOver);
    }
    if let Some(reason) = terrain.unbuildable_reason() {
        return Err(Refusal::Terrain(reason));
    }
    if gold < TOWER_COST {
        return Err(Refusal::Gold);
    }
    routes.check(cell).map_err(Refusal::Blocking)
}

/// The terrain a tile shows now (towers included).
fn terrain_at(
    cell: Cell,
    storage: &TileStorage,
    tiles: &Query<&mut TileTextureIndex>,
) -> Option<Terrain> {
    let tile = storage.checked_get(&cell_to_tile_pos(cell))?;
    Terrain::from_texture(tiles.get(tile).ok().copied())
}

/// Tracks the tile under the cursor and turns a left click on the map into [`PlaceTower`].
fn hover_and_click(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform), With<Camera2d>>,
    egui_input: Option<Res<EguiWantsInput>>,
    buttons: Res<ButtonInput<MouseButton>>,
    nav: Res<NavGrid>,
    mut hovered: ResMut<HoveredCell>,
    mut place: MessageWriter<PlaceTower>,
) {
    // Only a window under the cursor takes the click (egui's pointer-over-area test), not egui
    // wanting the pointer at large.
    let over_window = egui_input.is_some_and(|input| input.is_pointer_over_area());
    let (camera, transform) = *camera;
    let cell = window
        .cursor_position()
        .filter(|_| !over_window)
        .and_then(|position| camera.viewport_to_world_2d(transform, position).ok())
        .and_then(|world| nav.world_to_cell(world));
    if hovered.cell != cell {
        hovered.cell = cell;
    }
    if let Some(cell) = cell
        && buttons.just_pressed(MouseButton::Left)
    {
        place.write(PlaceTower(cell));
    }
}

/// The resources building a tower reads and changes.
#[derive(bevy::ecs::system::SystemParam)]
struct Builder<'w, 's> {
    commands: Commands<'w, 's>,
    economy: ResMut<'w, Economy>,
    game: Res<'w, Game>,
    connectivity: Res<'w, NavConnectivity>,
    profiles: Res<'w, CreepProfiles>,
    log: ResMut<'w, PlacementLog>,
    hovered: ResMut<'w, HoveredCell>,
    stats: Res<'w, PathfindingStats>,
    image: Option<Res<'w, CreepImage>>,
    battlefield: Res<'w, Battlefield>,
    storages: Query<'w, 's, &'static TileStorage>,
    tiles: Query<'w, 's, &'static mut TileTextureIndex>,
}

/// Frames between two judgements of the hovered tile while it stays the same and nothing is
/// built (creeps move meanwhile, and may stand on it or be shut in by it).
const PREVIEW_FRAMES: u32 = 8;

/// Whether the hovered tile is judged again this frame: when a tower was asked for, when the
/// cursor moved to another tile, or every [`PREVIEW_FRAMES`] frames.
const fn preview_due(asked_for: bool, hovered_changed: bool, frames_since: u32) -> bool {
    asked_for || hovered_changed || frames_since >= PREVIEW_FRAMES
}

/// The hovered tile judged last, and the frames since.
#[derive(Default)]
struct LastPreview {
    cell: Option<Cell>,
    frames_since: u32,
}

/// Builds the requested towers that pass [`judge`]; the others leave a refusal on the map and
/// in the log. Also judges the hovered tile for the preview (when [`preview_due`]). Each tower
/// is judged with every tower standing and those built before it in this frame, which the
/// plugin has not seen yet.
fn build_towers(
    mut requests: MessageReader<PlaceTower>,
    mut builder: Builder,
    nav: Res<NavGrid>,
    towers: Query<&Tower>,
    creeps: Query<(&Creep, &Transform)>,
    mut last_preview: Local<LastPreview>,
) {
    let asked_for = !requests.is_empty();
    let hovered = builder.hovered.cell;
    last_preview.frames_since += 1;
    if !preview_due(
        asked_for,
        hovered != last_preview.cell,
        last_preview.frames_since,
    ) {
        return;
    }
    *last_preview = LastPreview {
        cell: hovered,
        frames_since: 0,
    };
    let Ok(storage) = builder.storages.get(builder.battlefield.tilemap) else {
        return;
    };
    let storage = storage.clone();
    let mut tower_cells: Vec<Cell> = towers.iter().map(|tower| tower.cell).collect();
    let mut walkers = None;
    let mut positions = || walkers_on_field(&nav, creeps.iter());
    for &PlaceTower(cell) in requests.read() {
        let walkers = walkers.get_or_insert_with(&mut positions);
        let Some(terrain) = terrain_at(cell, &storage, &builder.tiles) else {
            continue;
        };
        let routes = RouteCheck {
            connectivity: &builder.connectivity,
            walker: builder.profiles.walker,
            towers: &tower_cells,
            creeps: walkers,
        };
        let verdict = judge(
            cell,
            terrain,
            (builder.economy.gold, builder.game.phase),
            &routes,
        );
        if let Err(refusal) = verdict {
            builder.commands.spawn(refusal_text(&nav, cell, &refusal));
            builder.log.refusal = Some((cell, refusal));
            continue;
        }
        if !builder.economy.buy_tower() {
            continue;
        }
        // The tile becomes a tower tile: `bevy_astar`'s tilemap sync changes its cell in the
        // `NavGrid`, and the plugin re-queues exactly the creeps whose paths it cut.
        if let Some(tile) = storage.checked_get(&cell_to_tile_pos(cell))
            && let Ok(mut texture) = builder.tiles.get_mut(tile)
        {
            *texture = Terrain::Tower.texture();
        }
        tower_cells.push(cell);
        builder.log.last_tower = Some(TowerReport {
            cell,
            creeps: creeps.iter().len(),
            stats_before: builder.stats.clone(),
        });
        spawn_tower(&mut builder.commands, &nav, builder.image.as_deref(), cell);
    }
    // The preview: what a click on the hovered tile would do.
    if hovered.is_none() {
        builder.hovered.set_if_neq(HoveredCell::default());
        return;
    }
    let walkers = walkers.get_or_insert_with(positions);
    preview_hovered(&mut builder, &storage, &tower_cells, walkers);
}

/// Judges the hovered tile for the preview, with the towers and creeps the placements saw.
fn preview_hovered(
    builder: &mut Builder,
    storage: &TileStorage,
    tower_cells: &[Cell],
    walkers: &Walkers,
) {
    let verdict = builder.hovered.cell.and_then(|cell| {
        let terrain = terrain_at(cell, storage, &builder.tiles)?;
        let routes = RouteCheck {
            connectivity: &builder.connectivity,
            walker: builder.profiles.walker,
            towers: tower_cells,
            creeps: walkers,
        };
        Some(judge(
            cell,
            terrain,
            (builder.economy.gold, builder.game.phase),
            &routes,
        ))
    });
    if builder.hovered.verdict != verdict {
        builder.hovered.verdict = verdict;
    }
}

fn spawn_tower(commands: &mut Commands, nav: &NavGrid, image: Option<&CreepImage>, cell: Cell) {
    let turret = Sprite {
        image: image.map(CreepImage::handle).unwrap_or_default(),
        color: Color::srgb(0.55, 0.75, 0.95),
        custom_size: Some(Vec2::splat(TILE * 0.62)),
        ..default()
    };
    commands.spawn((
        turret,
        Transform::from_translation(nav.cell_center(cell).extend(2.0)),
        Tower {
            cell,
            reload: 0.0,
            beam: None,
        },
    ));
}

/// A refusal's reason floating over its tile for a moment.
#[derive(Component, Clone, Debug)]
struct FloatingText {
    text: String,
    /// Where it floats, in world units.
    at: Vec2,
    age: f32,
}

/// The refusal's reason, starting just above its tile.
fn refusal_text(nav: &NavGrid, cell: Cell, refusal: &Refusal) -> FloatingText {
    FloatingText {
        text: format!("No: {}", refusal.short()),
        at: nav.cell_center(cell) + Vec2::new(0.0, TILE * 0.9),
        age: 0.0,
    }
}

/// How visible a floating text of this age is, 1 to 0.
fn fade(age: f32) -> f32 {
    (1.0 - (age / REFUSAL_TEXT).powi(3)).clamp(0.0, 1.0)
}

/// Floats the refusals up and fades them, on the real clock: they go on fading while the game
/// is paused or over.
fn float_refusals(
    mut commands: Commands,
    time: Res<Time<Real>>,
    mut texts: Query<(Entity, &mut FloatingText)>,
) {
    for (entity, mut text) in &mut texts {
        text.age += time.delta_secs();
        if text.age >= REFUSAL_TEXT {
            commands.entity(entity).try_despawn();
            continue;
        }
        text.at.y += time.delta_secs() * 10.0;
    }
}

/// Paints the floating refusals on a dark plate in egui's foreground layer, above the creeps and
/// the search overlay, so that they can always be read.
fn paint_refusals(
    mut contexts: EguiContexts,
    camera: Single<(&Camera, &GlobalTransform), With<Camera2d>>,
    texts: Query<&FloatingText>,
) -> Result {
    if texts.is_empty() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::new("tower_refusals"),
    ));
    let (camera, transform) = *camera;
    for text in &texts {
        let Ok(at) = camera.world_to_viewport(transform, text.at.extend(0.0)) else {
            continue;
        };
        let visible = fade(text.age);
        let color = egui::Color32::from_rgba_unmultiplied(255, 130, 115, (255.0 * visible) as u8);
        let galley =
            painter.layout_no_wrap(text.text.clone(), egui::FontId::proportional(15.0), color);
        let plate = egui::Align2::CENTER_CENTER
            .anchor_size(egui::pos2(at.x, at.y), galley.size())
            .expand2(egui::vec2(6.0, 3.0));
        painter.rect_filled(
            plate,
            4.0,
            egui::Color32::from_black_alpha((210.0 * visible) as u8),
        );
        painter.galley(plate.min + egui::vec2(6.0, 3.0), galley, color);
    }
    Ok(())
}

/// Each loaded tower shoots the nearest creep in range (looked for among the creeps near it
/// only); kills pay their bounty.
fn shoot(
    mut commands: Commands,
    time: Res<Time>,
    field: Res<CreepField>,
    mut economy: ResMut<Economy>,
    mut towers: Query<(&mut Tower, &Transform), Without<Creep>>,
    mut creeps: Query<(&mut Creep, &mut Sprite)>,
) {
    let delta = time.delta_secs();
    for (mut tower, transform) in &mut towers {
        let tower = &mut *tower;
        if let Some((_, left)) = &mut tower.beam {
            *left -= delta;
        }
        tower.beam = tower.beam.filter(|&(_, left)| left > 0.0);
        tower.reload = (tower.reload - delta).max(0.0);
        if tower.reload > 0.0 {
            continue;
        }
        let from = transform.translation.truncate();
        let target = field
            .near(from, RANGE * TILE)
            .filter(|&(entity, ..)| {
                creeps
                    .get(entity)
                    .is_ok_and(|(creep, _)| creep.health > 0.0)
            })
            .min_by(|a, b| a.2.total_cmp(&b.2));
        let Some((entity, at, _)) = target else {
            continue;
        };
        let Ok((mut creep, mut sprite)) = creeps.get_mut(entity) else {
            continue;
        };
        tower.reload = RELOAD;
        tower.beam = Some((at, BEAM));
        if creep.hurt(DAMAGE) {
            commands.entity(entity).try_despawn();
            if !creep.stress {
                economy.reward_kill(creep.kind.bounty());
            }
        } else {
            sprite.color = creep.tint();
        }
    }
}

fn draw_beams(towers: Query<(&Tower, &Transform)>, mut gizmos: Gizmos) {
    for (tower, transform) in &towers {
        if let Some((target, _)) = tower.beam {
            let from = transform.translation.truncate();
            gizmos.line_2d(from, target, Color::srgb(0.6, 0.95, 1.0));
        }
    }
}

/// Outlines the hovered tile, green when a tower may go there and red when not, with the
/// tower's reach.
fn draw_hover(hovered: Res<HoveredCell>, nav: Res<NavGrid>, mut gizmos: Gizmos) {
    let (Some(cell), Some(verdict)) = (hovered.cell, &hovered.verdict) else {
        return;
    };
    let centre = nav.cell_center(cell);
    let color = if verdict.is_ok() {
        Color::srgb(0.4, 1.0, 0.5)
    } else {
        Color::srgb(1.0, 0.35, 0.3)
    };
    gizmos.rect_2d(centre, Vec2::splat(TILE), color);
    if verdict.is_ok() {
        gizmos.circle_2d(centre, RANGE * TILE, color.with_alpha(0.35));
    }
}

/// The tilemap's tiles, to put their textures back.
#[derive(bevy::ecs::system::SystemParam)]
struct Tiles<'w, 's> {
    battlefield: Option<Res<'w, Battlefield>>,
    storages: Query<'w, 's, &'static TileStorage>,
    textures: Query<'w, 's, &'static mut TileTextureIndex>,
}

fn reset_on_restart(
    mut commands: Commands,
    mut restarts: MessageReader<Restart>,
    layout: Res<Layout>,
    mut tiles: Tiles,
    towers: Query<(Entity, &Tower)>,
    mut log: ResMut<PlacementLog>,
) {
    if restarts.read().count() == 0 {
        return;
    }
    let Tiles {
        battlefield,
        storages,
        textures,
    } = &mut tiles;
    let storage = battlefield
        .as_ref()
        .and_then(|battlefield| storages.get(battlefield.tilemap).ok());
    for (entity, tower) in &towers {
        commands.entity(entity).despawn();
        if let Some(tile) =
            storage.and_then(|storage| storage.checked_get(&cell_to_tile_pos(tower.cell)))
            && let Ok(mut texture) = textures.get_mut(tile)
        {
            *texture = layout.get(tower.cell).texture();
        }
    }
    *log = PlacementLog::default();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::{GOAL, SPAWN};
    use crate::routes::tests::headless_app;

    #[test]
    fn placements_are_judged_in_order_game_tile_gold_routes() {
        let (app, profiles) = headless_app(&Layout::generate(1));
        let rich = (1_000, Phase::Waves);
        let poor = (TOWER_COST - 1, Phase::Waves);
        let open = Cell::new(SPAWN.x + 2, SPAWN.y);
        let none = Walkers::default();
        let on_open = Walkers {
            small: vec![open],
            bosses: Vec::new(),
        };
        let routes = |creeps| RouteCheck {
            connectivity: app.world().resource::<NavConnectivity>(),
            walker: profiles.walker,
            towers: &[],
            creeps,
        };
        assert_eq!(judge(open, Terrain::Grass, rich, &routes(&none)), Ok(()));
        assert_eq!(
            judge(
                open,
                Terrain::Grass,
                (1_000, Phase::Preparing),
                &routes(&none)
            ),
            Ok(()),
            "building before the first wave"
        );
        assert_eq!(
            judge(open, Terrain::Grass, poor, &routes(&none)),
            Err(Refusal::Gold)
        );
        assert!(matches!(
            judge(open, Terrain::Rock, rich, &routes(&none)),
            Err(Refusal::Terrain(_))
        ));
        assert_eq!(
            judge(open, Terrain::Grass, rich, &routes(&on_open)),
            Err(Refusal::Blocking(Blocking::CreepOnCell))
        );
        // The goal itself is not a free tile, whatever the routes say.
        assert!(matches!(
            judge(GOAL, Terrain::Goal, rich, &routes(&none)),
            Err(Refusal::Terrain(_))
        ));
        // The tile beside the goal is free, but a boss needs it to stand on the goal.
        assert_eq!(
            judge(
                Cell::new(GOAL.x - 1, GOAL.y),
                Terrain::Grass,
                rich,
                &routes(&none)
            ),
            Err(Refusal::Blocking(Blocking::CutsRoute(CutOff::LargeKinds)))
        );
        for over in [Phase::Won, Phase::Lost] {
            assert_eq!(
                judge(open, Terrain::Grass, (1_000, over), &routes(&none)),
                Err(Refusal::GameOver)
            );
        }
    }

    /// A headless app that runs [`build_towers`] on `layout`, its tiles in a tile storage that
    /// nothing syncs into the navigation grid: towers built are not published.
    fn builder_app(layout: &Layout) -> App {
        let (mut app, _) = headless_app(layout);
        let size = TilemapSize {
            x: crate::map::MAP_WIDTH,
            y: crate::map::MAP_HEIGHT,
        };
        let mut storage = TileStorage::empty(size);
        for y in 0..size.y {
            for x in 0..size.x {
                let cell = Cell::new(x, y);
                let tile = app.world_mut().spawn(layout.get(cell).texture()).id();
                storage.set(&cell_to_tile_pos(cell), tile);
            }
        }
        let tilemap = app.world_mut().spawn(storage).id();
        app.insert_resource(Battlefield { tilemap })
            .insert_resource(Economy {
                gold: 1_000,
                ..Economy::default()
            })
            .init_resource::<Game>()
            .init_resource::<PlacementLog>()
            .init_resource::<HoveredCell>()
            .add_message::<PlaceTower>()
            .add_systems(Update, build_towers.before(PathfindingSystems::Invalidate));
        app
    }

    fn towers_on(app: &mut App) -> Vec<Cell> {
        let mut towers = app.world_mut().query::<&Tower>();
        towers.iter(app.world()).map(|tower| tower.cell).collect()
    }

    #[test]
    fn two_towers_asked_for_in_one_frame_are_judged_together() {
        let mut app = builder_app(&Layout::without_boulders(0));
        // The wall at x = 16 is open in rows 0 to 4 and 19 to 23; narrow both openings to two
        // tiles (published), then ask for a tower in each in the same frame.
        crate::routes::tests::build(&mut app, &[0, 1, 2, 19, 20, 21].map(|y| Cell::new(16, y)));
        let (top, bottom) = (Cell::new(16, 3), Cell::new(16, 22));
        app.world_mut().write_message(PlaceTower(top));
        app.world_mut().write_message(PlaceTower(bottom));
        app.update();
        assert_eq!(towers_on(&mut app), vec![top]);
        assert_eq!(
            app.world().resource::<PlacementLog>().refusal,
            Some((
                bottom,
                Refusal::Blocking(Blocking::CutsRoute(CutOff::LargeKinds))
            ))
        );
        // A frame later, the tower built (still not in the navigation grid) counts as well.
        app.world_mut().write_message(PlaceTower(bottom));
        app.update();
        assert_eq!(towers_on(&mut app), vec![top]);
        assert_eq!(app.world().resource::<Economy>().towers_built, 1);
    }

    #[test]
    fn the_preview_is_judged_again_on_a_move_a_click_or_after_a_while() {
        assert!(!preview_due(false, false, 1));
        assert!(!preview_due(false, false, PREVIEW_FRAMES - 1));
        assert!(preview_due(false, false, PREVIEW_FRAMES));
        assert!(preview_due(true, false, 1), "a tower asked for");
        assert!(preview_due(false, true, 1), "another tile hovered");
    }

    #[test]
    fn refusals_say_who_is_cut_off() {
        let everyone = Refusal::Blocking(Blocking::CutsRoute(CutOff::Everyone));
        let bosses = Refusal::Blocking(Blocking::CutsRoute(CutOff::LargeKinds));
        assert!(everyone.to_string().contains("no creep on foot could pass"));
        assert!(!everyone.to_string().contains("bosses"));
        assert_eq!(everyone.short(), "no creep could pass");
        assert!(bosses.to_string().contains("bosses (2x2) could not pass"));
        assert!(bosses.to_string().contains("smaller creeps could"));
        assert_eq!(bosses.short(), "bosses could not pass");
        assert!(
            Refusal::Blocking(Blocking::TrapsCreeps(3))
                .to_string()
                .contains("3 creeps")
        );
        assert!(Refusal::Gold.to_string().contains(&TOWER_COST.to_string()));
    }
}
