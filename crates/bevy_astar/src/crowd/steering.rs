//! Where an avoiding agent steers: its next waypoint (passed within reach, or from behind once
//! the next leg is in sight), the furthest waypoint ahead its cell sees, and the velocity it
//! would take with nobody in the way; with [`CrowdSight`], the lines of sight it already drew.

use super::space::GridSpace;
use crate::{Path, PathFollower};
use astar_grid::crowd::{CrowdAgent, Vector, disc_passes};
use astar_grid::{Cell, Grid, Movement, line_of_sight};
use bevy::prelude::*;
use std::sync::Arc;

/// What steering reads of an agent's [`Path`]: its revision, its own waypoints (world space),
/// and whether it reaches the goal. Copied from the path when the crowd is gathered (sharing
/// the waypoints' memory), so that the crowd's step can run beside the frame.
#[derive(Clone, Debug, Default)]
pub(super) struct Route {
    revision: u64,
    waypoints: Option<Arc<[Vec2]>>,
    found: bool,
}

impl Route {
    /// What steering reads of `path`.
    pub(super) fn of(path: &Path) -> Self {
        Self {
            revision: path.revision,
            waypoints: path.own_waypoints_shared().cloned(),
            found: path.is_found(),
        }
    }

    /// The path's own waypoints; none for a route on a goal's shared tree, or no path.
    fn waypoints(&self) -> &[Vec2] {
        self.waypoints.as_deref().unwrap_or_default()
    }
}

/// An agent's next waypoint, in grid space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Target {
    pub(super) point: Vector,
    pub(super) last: bool,
    /// The path revision and the waypoint's index.
    pub(super) key: (u64, usize),
    /// Whether the agent's cell sees the point (a straight line crosses no wall); a one-cell
    /// agent the crowd pushed out of sight of its path searches again sooner.
    pub(super) seen: bool,
}

/// The lines of sight an avoiding agent's cell drew towards its path, kept for as long as the
/// walls, the agent's cell and its next waypoint stay the same: a line of sight runs from cell
/// centre to cell centre, so its answer holds until one of them changes. An agent walking at
/// a few cells a second crosses a cell every dozen frames or so, and draws its lines again only
/// then.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct CrowdSight {
    /// The waypoint after the next one (world space), copied from the path so that a frame
    /// reads nothing from the path's heap memory, and the next waypoint it follows; `None`
    /// until asked.
    after: Option<((u64, usize), Option<Vec2>)>,
    /// What the answers below hold for.
    situation: Option<Situation>,
    /// Whether the cell sees the waypoint after the next one; `None` until asked.
    sees_after: Option<bool>,
    /// Where the look-ahead aims; `None` until asked.
    aim: Option<Aim>,
    /// For an agent held up: the eighth of a cell it stood in when its disc was last checked
    /// for the way to the aim from where it stands, and the answer; `None` until asked.
    passes_from: Option<((i64, i64), bool)>,
}

/// The eighths of a cell in which [`CrowdSight::passes_from`] keeps its answer.
const PASS_CHECK_STEPS: f32 = 8.0;

/// The waypoint [`look_ahead`] aims at.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Aim {
    /// Its index: the next waypoint's own when the cell sees none further.
    index: usize,
    /// It, in world space.
    point: Vec2,
    /// Whether it is the path's last.
    last: bool,
    /// Whether the agent's cell sees it.
    seen: bool,
}

/// The walls, the agent's cell and its next waypoint, which decide a line of sight's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Situation {
    /// The crowd's walls, numbered afresh whenever they are replaced.
    walls: u64,
    cell: (i64, i64),
    /// The path revision and the index of the next waypoint.
    waypoint: (u64, usize),
}

impl CrowdSight {
    /// Whether the disc passes from `position` to the aim, by `check` when the agent has moved
    /// into another eighth of a cell since it last asked (a held-up agent moves slowly, so it
    /// asks again every few frames, not every frame).
    fn passes_from(&mut self, position: Vector, check: impl FnOnce() -> bool) -> bool {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a finite coordinate's floor, saturated to i64, names its eighth of a cell"
        )]
        let at = (
            (position.x * PASS_CHECK_STEPS).floor() as i64,
            (position.y * PASS_CHECK_STEPS).floor() as i64,
        );
        match self.passes_from {
            Some((known, passes)) if known == at => passes,
            _ => {
                let passes = check();
                self.passes_from = Some((at, passes));
                passes
            }
        }
    }

    /// The remembered answers for `situation`, forgetting those of any other.
    fn for_situation(&mut self, situation: Option<Situation>) -> &mut Self {
        if self.situation != situation || situation.is_none() {
            *self = Self {
                after: self.after,
                situation,
                ..Self::default()
            };
        }
        self
    }

    /// The waypoint of `route` after waypoint `key` (a path revision and an index).
    fn waypoint_after(&mut self, route: &Route, key: (u64, usize)) -> Option<Vec2> {
        match self.after {
            Some((known, after)) if known == key => after,
            _ => {
                let after = route.waypoints().get(key.1 + 1).copied();
                self.after = Some((key, after));
                after
            }
        }
    }
}

/// The walls an agent steers by, and the number that tells them apart from earlier ones.
#[derive(Clone, Copy)]
pub(super) struct Walls<'a> {
    pub(super) grid: &'a Grid,
    pub(super) epoch: u64,
}

impl Walls<'_> {
    /// The situation of an agent at `position` heading for waypoint `waypoint`; `None` for a
    /// position that is not finite.
    fn situation(self, position: Vector, waypoint: (u64, usize)) -> Option<Situation> {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a finite coordinate's floor, saturated to i64, names its cell"
        )]
        position.is_finite().then(|| Situation {
            walls: self.epoch,
            cell: (position.x.floor() as i64, position.y.floor() as i64),
            waypoint,
        })
    }
}

/// Passes the waypoints the agent at `position` is done with, and returns the next one. A
/// waypoint is done with within `reach` cells of it, or once the agent is past it along the
/// leg that follows and sees the waypoint after it (pushed aside by the crowd, it need not come
/// back to the point itself, but a wall between it and the next leg keeps it on this one);
/// the last is done with within [`LAST_REACH`]. Without walls (an agent larger than a cell,
/// for which a one-cell line of sight says nothing) only reach counts.
pub(super) fn next_target(
    follower: &mut PathFollower,
    route: &Route,
    (space, walls): (GridSpace, Option<Walls<'_>>),
    (position, reach): (Vector, f32),
    sight: &mut CrowdSight,
) -> Option<Target> {
    loop {
        let point = space.point(follower.target()?);
        let index = follower.next_waypoint();
        let key = (route.revision, index);
        let last = index + 1 >= route.waypoints().len();
        // The last waypoint is reached on it, not near it.
        let reach = if last { reach.min(LAST_REACH) } else { reach };
        let within = (point - position).length_squared() <= reach * reach;
        let past = sight.waypoint_after(route, key).is_some_and(|next| {
            let next = space.point(next);
            (position - point).dot(next - point) > 0.0
                && walls.is_some_and(|walls| {
                    let remembered = sight.for_situation(walls.situation(position, key));
                    *remembered
                        .sees_after
                        .get_or_insert_with(|| sees(walls.grid, position, next))
                })
        });
        if within || past {
            follower.pass_waypoint(route.waypoints());
            if last {
                return None;
            }
            continue;
        }
        return Some(Target {
            point,
            last,
            key,
            seen: true,
        });
    }
}

/// How near the last waypoint, in cells, an agent has reached it.
pub(super) const LAST_REACH: f32 = 0.05;

/// How many waypoints past the next one an agent may steer for.
const LOOKAHEAD: usize = 4;

/// Aims `target` at the furthest of the next [`LOOKAHEAD`] waypoints that the agent's cell sees
/// (a straight line between them crosses no wall) and that its disc of `radius` passes to in a
/// straight line from the cell's centre ([`disc_passes`]), so that an agent the crowd pushed
/// aside heads on along its path rather than back to the waypoint it missed.
///
/// An agent `held_up` (moving at under half its speed) keeps to `target` when its disc does
/// not pass to the waypoint ahead from where it stands: off its cell's centre, pressed on a
/// corner by others, the straight way the cell's centre has would keep it pinned there, while
/// the next waypoint draws it round the corner.
pub(super) fn look_ahead(
    target: Target,
    route: &Route,
    (space, walls): (GridSpace, Walls<'_>),
    (position, radius, held_up): (Vector, f32, bool),
    sight: &mut CrowdSight,
) -> Target {
    let remembered = sight.for_situation(walls.situation(position, target.key));
    let aim = *remembered
        .aim
        .get_or_insert_with(|| aim_ahead(target, route, (space, walls.grid), (position, radius)));
    let ahead = aim.index != target.key.1;
    if ahead && held_up {
        let point = space.point(aim.point);
        let check = || disc_passes(walls.grid, position, point, radius);
        if !remembered.passes_from(position, check) {
            return target;
        }
    }
    if !ahead {
        Target {
            seen: aim.seen,
            ..target
        }
    } else {
        // Progress is measured towards the waypoint aimed at.
        Target {
            point: space.point(aim.point),
            last: aim.last,
            key: (target.key.0, aim.index),
            seen: aim.seen,
        }
    }
}

/// Where [`look_ahead`] aims.
fn aim_ahead(
    target: Target,
    route: &Route,
    (space, walls): (GridSpace, &Grid),
    (position, radius): (Vector, f32),
) -> Aim {
    let index = target.key.1;
    let waypoints = route.waypoints();
    let end = (index + LOOKAHEAD).min(waypoints.len().saturating_sub(1));
    let centre = cell_centre(position);
    let ahead = (index + 1..=end).rev().find_map(|ahead| {
        let point = waypoints[ahead];
        let grid_point = space.point(point);
        // The disc must pass too: aimed past a corner it would only clip, an agent off its
        // cell's centre is pinned on the corner.
        let clear =
            sees(walls, position, grid_point) && disc_passes(walls, centre, grid_point, radius);
        clear.then_some(Aim {
            index: ahead,
            point,
            last: ahead + 1 == waypoints.len(),
            seen: true,
        })
    });
    ahead.unwrap_or(Aim {
        index,
        point: space.world(target.point),
        last: target.last,
        seen: sees(walls, position, target.point),
    })
}

/// The centre of the cell `position` lies in (grid space).
fn cell_centre(position: Vector) -> Vector {
    Vector::new(position.x.floor() + 0.5, position.y.floor() + 0.5)
}

/// Whether the cell at `from` sees the cell at `to` (grid space): a straight line between their
/// centres crosses no wall.
pub(super) fn sees(walls: &Grid, from: Vector, to: Vector) -> bool {
    let cell_of = |point: Vector| {
        (point.x >= 0.0 && point.y >= 0.0).then(|| Cell::new(point.x as u32, point.y as u32))
    };
    cell_of(from)
        .zip(cell_of(to))
        .is_some_and(|(from, to)| line_of_sight(walls, from, to, Movement::EIGHT))
}
/// The velocity an agent would take with nobody in the way: full speed towards an
/// intermediate waypoint, slowing to stop on the last.
pub(super) fn preferred_velocity(agent: &CrowdAgent, target: Target, time_step: f32) -> Vector {
    if target.last {
        agent.velocity_towards(target.point, time_step)
    } else {
        (target.point - agent.position).normalize_or_zero() * agent.max_speed
    }
}

/// The velocity of an agent that has arrived: none, unless the crowd has pushed it more than
/// its arrival reach from the end of its path, where it then walks back.
pub(super) fn holding_velocity(
    agent: &CrowdAgent,
    route: &Route,
    space: GridSpace,
    time_step: f32,
) -> Vector {
    let Some(&end) = route.waypoints().last().filter(|_| route.found) else {
        return Vector::ZERO;
    };
    let end = space.point(end);
    if (end - agent.position).length() <= arrival_reach(agent.radius) {
        Vector::ZERO
    } else {
        agent.velocity_towards(end, time_step)
    }
}

/// How near the end of its path an agent counts as arrived when others keep it from the end
/// itself, in cells.
pub(super) fn arrival_reach(radius: f32) -> f32 {
    4.0 * radius + 1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PathStatus;

    /// Six waypoints along row 0, at the cell centres.
    fn row_path() -> Path {
        let waypoints: Vec<Vec2> = (0..6u8)
            .map(|x| Vec2::new(f32::from(x) + 0.5, 0.5))
            .collect();
        let mut path = Path::with_cells([], waypoints, 0.0);
        path.status = PathStatus::Queued;
        path.revision = 1;
        path
    }

    fn aim_from(
        position: Vector,
        (grid, epoch): (&Grid, u64),
        path: &Path,
        sight: &mut CrowdSight,
    ) -> usize {
        let space = GridSpace::default();
        let target = Target {
            point: space.point(path.waypoints()[1]),
            last: false,
            key: (path.revision, 1),
            seen: true,
        };
        let walls = Walls { grid, epoch };
        let route = Route::of(path);
        look_ahead(
            target,
            &route,
            (space, walls),
            (position, 0.45, false),
            sight,
        )
        .key
        .1
    }

    #[test]
    fn the_look_ahead_is_drawn_again_when_the_cell_or_the_walls_change() {
        let open = Grid::new(8, 2);
        let walled = Grid::from_ascii("...#....\n........").expect("a grid");
        let path = row_path();
        let mut sight = CrowdSight::default();
        let start = Vector::new(0.5, 0.5);
        // On open ground the furthest waypoint in reach is aimed at.
        assert_eq!(aim_from(start, (&open, 1), &path, &mut sight), 5);
        // New walls (a new number) hide it: the agent aims short of the wall.
        assert_eq!(aim_from(start, (&walled, 2), &path, &mut sight), 2);
        // The same cell and walls give the remembered answer...
        assert_eq!(
            aim_from(Vector::new(0.9, 0.1), (&walled, 2), &path, &mut sight),
            2
        );
        // ...and the next cell draws its lines again (the wall still hides the far ones).
        assert_eq!(
            aim_from(Vector::new(1.5, 0.5), (&walled, 2), &path, &mut sight),
            2
        );
        assert_eq!(
            aim_from(Vector::new(1.5, 0.5), (&open, 3), &path, &mut sight),
            5
        );
    }

    #[test]
    fn the_look_ahead_skips_a_waypoint_whose_way_clips_a_corner() {
        // A wall at (2, 0); the way from cell (1, 1) to (5.5, 0.5) passes its corner (3, 1) an
        // eighth of a cell off: the cell sees the point, a thin disc passes, a body does not.
        let grid = Grid::from_ascii("..#...\n......").expect("a grid");
        let waypoints =
            [(0.5, 1.5), (1.5, 1.5), (3.5, 1.5), (5.5, 0.5)].map(|(x, y)| Vec2::new(x, y));
        let mut path = Path::with_cells([], waypoints, 0.0);
        path.status = PathStatus::Queued;
        path.revision = 1;
        let space = GridSpace::default();
        let target = Target {
            point: space.point(path.waypoints()[1]),
            last: false,
            key: (1, 1),
            seen: true,
        };
        let aim_from = |position: Vector, radius: f32, held_up: bool| {
            let walls = Walls {
                grid: &grid,
                epoch: 1,
            };
            let mut sight = CrowdSight::default();
            let agent = (position, radius, held_up);
            look_ahead(target, &Route::of(&path), (space, walls), agent, &mut sight)
                .key
                .1
        };
        let aim = |radius, held_up| aim_from(Vector::new(1.2, 1.1), radius, held_up);
        assert_eq!(aim(0.05, false), 3);
        assert_eq!(aim(0.45, false), 2);
        // Held up where it stands, below its cell's centre, the way to waypoint 2 clips the
        // wall too: it keeps to its next waypoint.
        assert_eq!(aim(0.45, true), 1);
        // Held up at its cell's centre, it still looks ahead.
        assert_eq!(aim_from(Vector::new(1.5, 1.5), 0.45, true), 2);
    }

    #[test]
    fn a_held_up_agent_checks_its_way_again_once_it_moves_an_eighth_of_a_cell() {
        let mut sight = CrowdSight::default();
        let mut checks = 0;
        let mut ask = |x: f32, answer: bool| {
            sight.passes_from(Vector::new(x, 1.5), || {
                checks += 1;
                answer
            })
        };
        assert!(!ask(1.01, false));
        // Within the same eighth the answer is kept, even where a check would say otherwise.
        assert!(!ask(1.1, true));
        // In the next eighth it checks again.
        assert!(ask(1.13, true));
        assert_eq!(checks, 2);
    }

    #[test]
    fn the_waypoint_after_the_next_is_read_once_per_waypoint() {
        let mut path = row_path();
        let mut sight = CrowdSight::default();
        assert_eq!(
            sight.waypoint_after(&Route::of(&path), (1, 1)),
            Some(path.waypoints()[2])
        );
        // A new revision reads the path again; the last waypoint has none after it.
        let mut waypoints = path.waypoints().to_vec();
        waypoints[3] = Vec2::new(9.0, 9.0);
        path = Path::with_cells([], waypoints, 0.0);
        path.revision = 2;
        path.status = PathStatus::Queued;
        assert_eq!(
            sight.waypoint_after(&Route::of(&path), (2, 2)),
            Some(Vec2::new(9.0, 9.0))
        );
        assert_eq!(sight.waypoint_after(&Route::of(&path), (2, 5)), None);
    }
}
