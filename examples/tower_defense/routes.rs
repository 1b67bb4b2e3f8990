//! The routes a tower must leave open: from the spawn to the goal, and from every walking creep
//! to the goal, for each size of walker (one-cell creeps and the 2x2 bosses), asked of the
//! plugin's `NavConnectivity` before anything changes.

use crate::creeps::CreepProfiles;
use crate::map::{GOAL, SPAWN};
use bevy::prelude::*;
use bevy_astar::NavConnectivity;
use bevy_astar::prelude::*;

/// Side of a boss's square footprint, in tiles.
pub(crate) const BOSS_SIZE: u8 = 2;
/// The sizes of walking creeps whose routes towers may not cut.
pub(crate) const WALKER_SIZES: [u8; 2] = [1, BOSS_SIZE];

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(Startup, track_walkers);
}

/// The movement rule of every creep (their requests keep the default search options).
pub(crate) fn creep_movement() -> Movement {
    SearchOptions::default().movement
}

/// The anchor (top-left cell) of the footprint of a creep of `size` on the spawn: the footprint
/// reaches right and down from the spawn tile.
pub(crate) const fn spawn_anchor(_size: u8) -> Cell {
    SPAWN
}

/// The anchor of the footprint of a creep of `size` on the goal: the goal tile is on the right
/// edge, so the footprint covers it from the left.
pub(crate) fn goal_anchor(size: u8) -> Cell {
    Cell::new((GOAL.x + 1).saturating_sub(u32::from(size)), GOAL.y)
}

/// Asks the plugin to keep the regions of every size of walker.
pub(crate) fn track_walkers(
    profiles: Res<CreepProfiles>,
    mut connectivity: ResMut<NavConnectivity>,
) {
    for size in WALKER_SIZES {
        connectivity.track(profiles.walker, size, creep_movement());
    }
}

/// Why a tower may not be built, from the routes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Blocking {
    /// These walkers would have no route from the spawn to the goal.
    CutsRoute(CutOff),
    /// Creeps would be shut in, away from the goal.
    TrapsCreeps(usize),
    /// A walking creep stands on the tile (under the footprint, for a boss).
    CreepOnCell,
    /// The plugin has not worked out the routes of the map yet.
    NotReady,
}

/// Who a tower would cut off from the goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CutOff {
    /// Every walking creep: no route at all would be left from the spawn.
    Everyone,
    /// Only the large kinds (the 2x2 bosses): no route would be wide enough for them, while
    /// the one-cell creeps still pass.
    LargeKinds,
}

/// Who would be cut off, from whether the spawn keeps a route to the goal for each size of
/// walker, in the order of [`WALKER_SIZES`] (smallest first): nobody, the large kinds only, or
/// everyone once the smallest have no route (whatever the larger ones' answer says).
pub(crate) const fn who_is_cut_off(keeps_route: [bool; WALKER_SIZES.len()]) -> Option<CutOff> {
    match keeps_route {
        [true, true] => None,
        [true, false] => Some(CutOff::LargeKinds),
        [false, _] => Some(CutOff::Everyone),
    }
}

/// The footprint anchors of the walking creeps on the field, by size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Walkers {
    /// One-cell creeps.
    pub(crate) small: Vec<Cell>,
    /// Bosses.
    pub(crate) bosses: Vec<Cell>,
}

impl Walkers {
    /// The anchors of the walkers of `size`.
    pub(crate) fn of_size(&self, size: u8) -> &[Cell] {
        if size == BOSS_SIZE {
            &self.bosses
        } else {
            &self.small
        }
    }
}

/// What a placement's routes are judged on.
#[derive(Clone, Copy)]
pub(crate) struct RouteCheck<'a> {
    /// The plugin's regions, as last published.
    pub(crate) connectivity: &'a NavConnectivity,
    /// The profile walkers move by.
    pub(crate) walker: ProfileId,
    /// Tower cells to count as blocked with the candidate: every tower standing (those the
    /// plugin has published change nothing; the others, built this frame or not yet synced
    /// from the tilemap, are judged together with the candidate).
    pub(crate) towers: &'a [Cell],
    /// The walking creeps on the field.
    pub(crate) creeps: &'a Walkers,
}

impl RouteCheck<'_> {
    /// Whether a tower on `candidate` leaves the spawn and every walking creep, of every size,
    /// a route to the goal. The most lasting reason comes first: a cut route from the spawn
    /// stays cut (and says who it cuts off: [`who_is_cut_off`]), a creep moves on.
    pub(crate) fn check(&self, candidate: Cell) -> Result<(), Blocking> {
        let blocked: Vec<Cell> = self.towers.iter().copied().chain([candidate]).collect();
        let mut trapped = 0;
        let mut on_a_creep = false;
        let mut keeps_route = [true; WALKER_SIZES.len()];
        for (keeps, size) in keeps_route.iter_mut().zip(WALKER_SIZES) {
            let (spawn, goal) = (spawn_anchor(size), goal_anchor(size));
            let points: Vec<Cell> = core::iter::once(spawn)
                .chain(self.creeps.of_size(size).iter().copied())
                .collect();
            let answer = self.connectivity.check_blocking(
                self.walker,
                size,
                creep_movement(),
                &blocked,
                &points,
                goal,
            );
            let check = match answer {
                None => return Err(Blocking::NotReady),
                // Only cells outside the map are refused, and none are asked about.
                Some(Err(_)) => {
                    *keeps = false;
                    continue;
                }
                Some(Ok(check)) => check,
            };
            let covered = |cell: Cell| check.covered.contains(&cell);
            *keeps = !(check.cut_off.contains(&spawn) || covered(spawn) || covered(goal));
            on_a_creep |= !check.covered.is_empty();
            trapped += check.cut_off.len();
        }
        if let Some(cut_off) = who_is_cut_off(keeps_route) {
            Err(Blocking::CutsRoute(cut_off))
        } else if on_a_creep {
            Err(Blocking::CreepOnCell)
        } else if trapped > 0 {
            Err(Blocking::TrapsCreeps(trapped))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::map::Layout;
    use bevy_astar::TerrainProfiles;
    use bevy_astar::astar_grid::agent::moving_ai::TREES;

    /// A headless app with the plugin on `layout`'s navigation grid and the walkers' regions
    /// tracked and built.
    pub(crate) fn headless_app(layout: &Layout) -> (App, CreepProfiles) {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AStarPlugin::default()));
        let profiles =
            CreepProfiles::register(&mut app.world_mut().resource_mut::<TerrainProfiles>());
        app.insert_resource(profiles)
            .insert_resource(NavGrid::new(layout.nav_grid()))
            .add_systems(Startup, track_walkers);
        app.update();
        (app, profiles)
    }

    /// Builds towers on `cells` in the navigation grid and lets the plugin publish them.
    pub(crate) fn build(app: &mut App, cells: &[Cell]) {
        let mut nav = app.world_mut().resource_mut::<NavGrid>();
        for &cell in cells {
            nav.set_cost(cell, TREES).expect("on the map");
        }
        app.update();
    }

    fn check(
        app: &App,
        walker: ProfileId,
        towers: &[Cell],
        creeps: &Walkers,
        cell: Cell,
    ) -> Result<(), Blocking> {
        RouteCheck {
            connectivity: app.world().resource::<NavConnectivity>(),
            walker,
            towers,
            creeps,
        }
        .check(cell)
    }

    #[test]
    fn the_generated_maps_let_walkers_of_every_size_through() {
        for seed in 0..20 {
            let (app, profiles) = headless_app(&Layout::generate(seed));
            let connectivity = app.world().resource::<NavConnectivity>();
            for size in WALKER_SIZES {
                let (from, to) = (spawn_anchor(size), goal_anchor(size));
                let reaches =
                    connectivity.reaches(profiles.walker, size, creep_movement(), from, to);
                assert_eq!(reaches, Some(true), "seed {seed}, size {size}");
            }
        }
    }

    #[test]
    fn the_last_two_tiles_of_a_gap_stay_open_for_bosses_and_the_last_one_for_everyone() {
        let (mut app, profiles) = headless_app(&Layout::without_boulders(0));
        let none = Walkers::default();
        // The first gap, x = 8, rows 9 to 14: four of its tiles are built one after another.
        for y in 9..13 {
            let cell = Cell::new(8, y);
            assert_eq!(check(&app, profiles.walker, &[], &none, cell), Ok(()));
            build(&mut app, &[cell]);
        }
        // Rows 13 and 14 are left: one more tower would let one-cell creeps through, not bosses.
        let (row_13, row_14) = (Cell::new(8, 13), Cell::new(8, 14));
        for cell in [row_13, row_14] {
            assert_eq!(
                check(&app, profiles.walker, &[], &none, cell),
                Err(Blocking::CutsRoute(CutOff::LargeKinds))
            );
        }
        // Judged together (two towers in one frame), the two cut every route.
        assert_eq!(
            check(&app, profiles.walker, &[row_13], &none, row_14),
            Err(Blocking::CutsRoute(CutOff::Everyone))
        );
    }

    #[test]
    fn who_is_cut_off_is_everyone_once_the_smallest_have_no_route() {
        assert_eq!(who_is_cut_off([true, true]), None);
        assert_eq!(who_is_cut_off([true, false]), Some(CutOff::LargeKinds));
        assert_eq!(who_is_cut_off([false, false]), Some(CutOff::Everyone));
        assert_eq!(who_is_cut_off([false, true]), Some(CutOff::Everyone));
    }

    #[test]
    fn a_tower_closing_the_last_tile_of_the_only_route_cuts_everyone_off() {
        let (mut app, profiles) = headless_app(&Layout::without_boulders(0));
        let none = Walkers::default();
        // The first gap, x = 8, rows 9 to 14, closed but for row 13 (bosses are cut off already:
        // built directly, past the placement rules).
        build(&mut app, &[9, 10, 11, 12, 14].map(|y| Cell::new(8, y)));
        assert_eq!(
            check(&app, profiles.walker, &[], &none, Cell::new(8, 13)),
            Err(Blocking::CutsRoute(CutOff::Everyone))
        );
        // Elsewhere a tower cuts nobody new off.
        assert_eq!(
            check(&app, profiles.walker, &[], &none, Cell::new(20, 20)),
            Ok(())
        );
    }

    #[test]
    fn towers_not_yet_published_are_judged_with_the_candidate() {
        let (mut app, profiles) = headless_app(&Layout::without_boulders(0));
        let none = Walkers::default();
        // The wall at x = 16 is open in rows 0 to 4 and 19 to 23: narrow both openings to two
        // tiles.
        let narrowing: Vec<Cell> = [0, 1, 2, 19, 20, 21].map(|y| Cell::new(16, y)).to_vec();
        build(&mut app, &narrowing);
        let (top, bottom) = (Cell::new(16, 3), Cell::new(16, 22));
        // Either tower alone leaves the bosses the other opening.
        assert_eq!(check(&app, profiles.walker, &[], &none, top), Ok(()));
        assert_eq!(check(&app, profiles.walker, &[], &none, bottom), Ok(()));
        // With one built but not published, the other is refused.
        assert_eq!(
            check(&app, profiles.walker, &[top], &none, bottom),
            Err(Blocking::CutsRoute(CutOff::LargeKinds))
        );
        // Once published, the built one counts without being named.
        build(&mut app, &[top]);
        assert_eq!(
            check(&app, profiles.walker, &[], &none, bottom),
            Err(Blocking::CutsRoute(CutOff::LargeKinds))
        );
    }

    #[test]
    fn creeps_are_neither_shut_in_nor_built_on() {
        let (mut app, profiles) = headless_app(&Layout::without_boulders(0));
        // A creep with towers on three of its four sides is trapped by the fourth.
        let creep = Cell::new(20, 2);
        build(
            &mut app,
            &[Cell::new(19, 2), Cell::new(20, 1), Cell::new(20, 3)],
        );
        let small = Walkers {
            small: vec![creep],
            bosses: Vec::new(),
        };
        assert_eq!(
            check(&app, profiles.walker, &[], &small, Cell::new(21, 2)),
            Err(Blocking::TrapsCreeps(1))
        );
        assert_eq!(
            check(&app, profiles.walker, &[], &small, creep),
            Err(Blocking::CreepOnCell)
        );
        assert_eq!(
            check(&app, profiles.walker, &[], &small, Cell::new(22, 2)),
            Ok(())
        );
        // A boss anchored at (11, 20) covers (11..=12, 20..=21): a tower on any of those is on
        // it, one beside them is not.
        let boss = Walkers {
            small: Vec::new(),
            bosses: vec![Cell::new(11, 20)],
        };
        for cell in [Cell::new(11, 20), Cell::new(12, 21)] {
            assert_eq!(
                check(&app, profiles.walker, &[], &boss, cell),
                Err(Blocking::CreepOnCell)
            );
        }
        assert_eq!(
            check(&app, profiles.walker, &[], &boss, Cell::new(13, 21)),
            Ok(())
        );
        // A boss in the corner at (10, 0) is shut in by a third tower around it, where a
        // one-cell creep still gets out between them.
        build(&mut app, &[Cell::new(12, 1), Cell::new(9, 1)]);
        let cornered = Walkers {
            small: Vec::new(),
            bosses: vec![Cell::new(10, 0)],
        };
        assert_eq!(
            check(&app, profiles.walker, &[], &cornered, Cell::new(10, 2)),
            Err(Blocking::TrapsCreeps(1))
        );
        let small_in_the_corner = Walkers {
            small: vec![Cell::new(10, 0)],
            bosses: Vec::new(),
        };
        assert_eq!(
            check(
                &app,
                profiles.walker,
                &[],
                &small_in_the_corner,
                Cell::new(10, 2)
            ),
            Ok(())
        );
        // Cutting the spawn off is the reason given even with a creep on the tile.
        let on_the_gap = Walkers {
            small: vec![Cell::new(8, 14)],
            bosses: Vec::new(),
        };
        let rest_of_the_gap: Vec<Cell> = (9..14).map(|y| Cell::new(8, y)).collect();
        assert_eq!(
            check(
                &app,
                profiles.walker,
                &rest_of_the_gap,
                &on_the_gap,
                Cell::new(8, 14)
            ),
            Err(Blocking::CutsRoute(CutOff::Everyone))
        );
    }

    #[test]
    fn nothing_is_built_before_the_routes_are_known() {
        let layout = Layout::without_boulders(0);
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AStarPlugin::default()));
        let profiles =
            CreepProfiles::register(&mut app.world_mut().resource_mut::<TerrainProfiles>());
        app.insert_resource(NavGrid::new(layout.nav_grid()));
        // Not tracked: the plugin has no regions to answer from.
        app.update();
        assert_eq!(
            check(
                &app,
                profiles.walker,
                &[],
                &Walkers::default(),
                Cell::new(4, 4)
            ),
            Err(Blocking::NotReady)
        );
    }
}
