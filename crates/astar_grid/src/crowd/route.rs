//! Route following for crowd agents: the waypoint an agent heads for (passed within reach, or
//! from behind once the next leg is in sight), the furthest waypoint ahead its cell sees, and
//! the velocity it would take with nobody in the way; [`RouteSight`] keeps the lines of sight
//! already drawn.

use super::{CrowdAgent, Vector, disc_passes};
use crate::{Cell, Grid, Movement, line_of_sight};
use std::sync::Arc;

/// The waypoints an agent follows, in grid space (cells; see [`crate::crowd`]), and whether
/// they reach its goal (a route to the closest reachable cell does not). Cloning shares the
/// waypoints' memory.
///
/// ```
/// use astar_grid::crowd::{Route, Vector};
///
/// let route = Route::new(vec![Vector::new(0.5, 0.5), Vector::new(4.5, 0.5)], true);
/// assert_eq!(route.waypoints().len(), 2);
/// assert!(route.reaches_goal());
/// assert!(Route::default().waypoints().is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route {
    waypoints: Option<Arc<[Vector]>>,
    reaches_goal: bool,
}

impl Route {
    /// A route through `waypoints`, the first where the agent starts.
    #[must_use]
    pub fn new(waypoints: impl Into<Arc<[Vector]>>, reaches_goal: bool) -> Self {
        Self {
            waypoints: Some(waypoints.into()),
            reaches_goal,
        }
    }

    /// The waypoints; none for no route.
    #[must_use]
    pub fn waypoints(&self) -> &[Vector] {
        self.waypoints.as_deref().unwrap_or_default()
    }

    /// Whether the route reaches the goal asked for.
    #[must_use]
    pub const fn reaches_goal(&self) -> bool {
        self.reaches_goal
    }
}

/// The waypoint an agent heads for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RouteTarget {
    /// Where it is, in grid space.
    pub point: Vector,
    /// Whether it is the route's last.
    pub last: bool,
    /// The route's number (see [`RouteWalker::route_number`]) and the waypoint's index.
    pub key: (u64, usize),
    /// Whether the agent's cell sees it (a straight line crosses no wall): a one-cell agent
    /// the crowd pushed out of sight of its route is held up sooner.
    pub seen: bool,
}

/// The walls an agent steers by, and the number that tells them apart from earlier ones (see
/// [`RouteSight`]).
#[derive(Clone, Copy, Debug)]
pub struct Walls<'a> {
    /// Blocked cells, and everything outside the grid, are walls.
    pub grid: &'a Grid,
    /// A number that changes whenever the walls do.
    pub epoch: u64,
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

/// The lines of sight an agent's cell drew towards its route, kept for as long as the walls,
/// the agent's cell and its next waypoint stay the same: a line of sight runs from cell centre
/// to cell centre, so its answer holds until one of them changes. An agent walking at a few
/// cells a second crosses a cell every dozen steps or so, and draws its lines again only then.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RouteSight {
    /// The waypoint after the next one, and the next waypoint it follows; `None` until asked.
    after: Option<((u64, usize), Option<Vector>)>,
    /// What the answers below hold for.
    situation: Option<Situation>,
    /// Whether the cell sees the waypoint after the next one; `None` until asked.
    sees_after: Option<bool>,
    /// Where the look-ahead aims; `None` until asked.
    aim: Option<Aim>,
    /// For an agent held up: the eighth of a cell it stood in when its disc was last checked
    /// for the way to the aim from where it stands, and the answer; `None` until asked.
    passes_from: Option<((i64, i64), bool)>,
    /// For an agent past its next waypoint: the eighth of a cell it stood in when its disc was
    /// last checked for the straight way on to the waypoint after it, and the answer.
    passes_after: Option<((i64, i64), bool)>,
}

/// The eighths of a cell in which [`RouteSight::passes_from`] keeps its answer.
const PASS_CHECK_STEPS: f32 = 8.0;

/// The answer `slot` remembers for the eighth of a cell `position` lies in, or `check`'s,
/// remembered in its place.
fn remembered_by_eighths(
    slot: &mut Option<((i64, i64), bool)>,
    position: Vector,
    check: impl FnOnce() -> bool,
) -> bool {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a finite coordinate's floor, saturated to i64, names its eighth of a cell"
    )]
    let at = (
        (position.x * PASS_CHECK_STEPS).floor() as i64,
        (position.y * PASS_CHECK_STEPS).floor() as i64,
    );
    match *slot {
        Some((known, passes)) if known == at => passes,
        _ => {
            let passes = check();
            *slot = Some((at, passes));
            passes
        }
    }
}

/// The waypoint [`look_ahead`] aims at.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Aim {
    /// Its index: the next waypoint's own when the cell sees none further.
    index: usize,
    point: Vector,
    /// Whether it is the route's last.
    last: bool,
    /// Whether the agent's cell sees it.
    seen: bool,
}

/// The walls, the agent's cell and its next waypoint, which decide a line of sight's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Situation {
    walls: u64,
    cell: (i64, i64),
    /// The route's number and the index of the next waypoint.
    waypoint: (u64, usize),
}

impl RouteSight {
    /// Whether the disc passes from `position` to the aim, by `check` when the agent has moved
    /// into another eighth of a cell since it last asked (a held-up agent moves slowly, so it
    /// asks again every few steps, not every step).
    fn passes_from(&mut self, position: Vector, check: impl FnOnce() -> bool) -> bool {
        remembered_by_eighths(&mut self.passes_from, position, check)
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

    /// The waypoint of `route` after waypoint `key` (a route number and an index).
    fn waypoint_after(&mut self, route: &Route, key: (u64, usize)) -> Option<Vector> {
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

/// How near the last waypoint, in cells, an agent has reached it.
pub const LAST_REACH: f32 = 0.05;

/// How many waypoints past the next one a one-cell agent may steer for ([`look_ahead`]).
pub const LOOKAHEAD: usize = 4;

/// One agent's walk along its [`Route`]: the waypoint it heads for, and the lines of sight it
/// drew ([`RouteSight`]).
///
/// A walk starts at the route's second waypoint (the first is where the agent starts). A
/// waypoint is done with within the agent's radius of it, or once the agent is past it along
/// the leg that follows, its cell sees the waypoint after it and its disc passes straight on
/// to that one (pushed aside by the crowd, it need not come back to the point itself, but a
/// wall between it and the next leg keeps it on this one); the last is done with within [`LAST_REACH`]. A *sighted* walker (a one-cell
/// agent, for which a line of sight between cell centres says where it can go) also aims ahead
/// ([`look_ahead`]); others keep to their waypoints, passed by reach only.
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{CrowdAgent, Route, RouteWalker, Vector, Walls};
///
/// let grid = Grid::new(8, 1);
/// let waypoints: Vec<Vector> = (0..6).map(|x| Vector::new(x as f32 + 0.5, 0.5)).collect();
/// let mut walker = RouteWalker::new(Route::new(waypoints, true), true);
/// let mut agent = CrowdAgent::new(Vector::new(0.5, 0.5), 0.35, 2.0);
/// let walls = Walls { grid: &grid, epoch: 0 };
/// // The cell sees four waypoints ahead: it heads for the fifth at full speed.
/// let target = walker.steer(&mut agent, walls, 0.1).expect("a waypoint ahead");
/// assert_eq!(target.key.1, 5);
/// assert_eq!(agent.preferred_velocity, Vector::new(2.0, 0.0));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RouteWalker {
    route: Route,
    /// Counts the routes given; names the waypoints of this one in [`RouteTarget::key`].
    route_number: u64,
    next: usize,
    /// Waypoint `next` as last read, kept here so that most steps read nothing of the route's
    /// memory (which lies apart for each agent: reading it was most of a step's steering).
    heading: Option<(usize, Vector)>,
    finished: bool,
    sighted: bool,
    sight: RouteSight,
}

impl RouteWalker {
    /// A walker along `route`, from its second waypoint; `sighted` for a one-cell agent, which
    /// aims ahead by lines of sight.
    #[must_use]
    pub fn new(route: Route, sighted: bool) -> Self {
        let mut walker = Self {
            sighted,
            ..Self::default()
        };
        walker.set_route(route);
        walker
    }

    /// Walks `route` from its second waypoint on (its first, if it has one only).
    pub fn set_route(&mut self, route: Route) {
        self.next = usize::from(route.waypoints().len() > 1);
        self.heading = None;
        self.finished = route.waypoints().is_empty();
        self.route = route;
        self.route_number += 1;
    }

    /// Walks `route` from waypoint `next` on (at most its last), for an agent that is done
    /// with the waypoints before it: one that left the crowd for a while (to cross a link) and
    /// comes back where its walk was.
    ///
    /// ```
    /// use astar_grid::crowd::{Route, RouteWalker, Vector};
    ///
    /// let waypoints: Vec<Vector> = (0..4).map(|x| Vector::new(x as f32 + 0.5, 0.5)).collect();
    /// let mut walker = RouteWalker::default();
    /// walker.set_route_from(Route::new(waypoints.clone(), true), 2);
    /// assert_eq!(walker.next_waypoint(), 2);
    /// walker.set_route_from(Route::new(waypoints, true), 9);
    /// assert_eq!(walker.next_waypoint(), 3);
    /// ```
    pub fn set_route_from(&mut self, route: Route, next: usize) {
        let last = route.waypoints().len().saturating_sub(1);
        self.set_route(route);
        self.next = self.next.max(next.min(last));
    }

    /// The route walked.
    #[must_use]
    pub const fn route(&self) -> &Route {
        &self.route
    }

    /// The number of routes given so far, counting this one: it tells the waypoints of this
    /// route from those of earlier ones ([`RouteTarget::key`]).
    #[must_use]
    pub const fn route_number(&self) -> u64 {
        self.route_number
    }

    /// The index of the waypoint the agent heads for next (not counting the look-ahead).
    #[must_use]
    pub const fn next_waypoint(&self) -> usize {
        self.next
    }

    /// Whether the agent is done with its route's last waypoint (or has no route).
    #[must_use]
    pub const fn is_finished(&self) -> bool {
        self.finished
    }

    /// Ends the walk where the agent stands.
    pub const fn finish(&mut self) {
        self.finished = true;
    }

    /// Forgets the lines of sight drawn, when a change of the walls from cell `min` to cell
    /// `max` (inclusive) may alter them, for an agent at `position` of `radius`: those drawn
    /// from its cell to the waypoints it may aim at (the next and the [`LOOKAHEAD`] after it)
    /// lie in the box round them, widened by the radius and a cell. Returns whether it forgot
    /// them.
    pub fn forget_sight_within(
        &mut self,
        (min, max): (Cell, Cell),
        (position, radius): (Vector, f32),
    ) -> bool {
        let waypoints = self.route.waypoints();
        let ahead = waypoints
            .get(self.next..)
            .unwrap_or_default()
            .iter()
            .take(LOOKAHEAD + 1);
        let (mut low, mut high) = (position, position);
        for point in ahead {
            low = Vector::new(low.x.min(point.x), low.y.min(point.y));
            high = Vector::new(high.x.max(point.x), high.y.max(point.y));
        }
        let margin = radius.max(0.0) + 1.0;
        #[expect(
            clippy::cast_precision_loss,
            reason = "cell coordinates of a grid are far below f32's exact integers"
        )]
        let touches = low.x - margin <= max.x as f32 + 1.0
            && high.x + margin >= min.x as f32
            && low.y - margin <= max.y as f32 + 1.0
            && high.y + margin >= min.y as f32;
        // A position that is not finite touches nothing, and its sight holds nothing either.
        if touches || !position.is_finite() {
            self.sight = RouteSight::default();
        }
        touches
    }

    /// Whether the walker aims ahead by lines of sight.
    #[must_use]
    pub const fn is_sighted(&self) -> bool {
        self.sighted
    }

    /// Says whether the walker aims ahead by lines of sight (a one-cell agent does).
    pub fn set_sighted(&mut self, sighted: bool) {
        if self.sighted != sighted {
            self.sighted = sighted;
            self.sight = RouteSight::default();
        }
    }

    /// Steers `agent` for a step of `time_step` seconds within `walls`: passes the waypoints
    /// it is done with, aims it at its next one (or, sighted, the furthest ahead its cell
    /// sees: [`look_ahead`]), and sets its preferred velocity: full speed towards an
    /// intermediate waypoint, slowing to stop on the last; once finished, none, unless the
    /// crowd has pushed it beyond [`arrival_reach`] of the route's end, where it walks back.
    /// Returns the waypoint it heads for; `None` once finished.
    pub fn steer(
        &mut self,
        agent: &mut CrowdAgent,
        walls: Walls<'_>,
        time_step: f32,
    ) -> Option<RouteTarget> {
        let target = self.next_target(agent, walls).map(|next| {
            if self.sighted {
                let held_up = agent.velocity.length() < 0.5 * agent.max_speed;
                let at = (agent.position, agent.radius, held_up);
                look_ahead(next, &self.route, (walls, at), &mut self.sight)
            } else {
                next
            }
        });
        agent.preferred_velocity = match target {
            Some(target) => preferred_velocity(agent, target, time_step),
            None => holding_velocity(agent, &self.route, time_step),
        };
        target
    }

    /// Waypoint `next` of the route, read once for each `next`; `None` past the last.
    fn heading(&mut self) -> Option<Vector> {
        match self.heading {
            Some((index, point)) if index == self.next => Some(point),
            _ => {
                let point = *self.route.waypoints().get(self.next)?;
                self.heading = Some((self.next, point));
                Some(point)
            }
        }
    }

    /// Passes the waypoints the agent is done with, and returns the next one.
    fn next_target(&mut self, agent: &CrowdAgent, walls: Walls<'_>) -> Option<RouteTarget> {
        let position = agent.position;
        while !self.finished {
            let Some(point) = self.heading() else {
                self.finished = true;
                break;
            };
            let waypoints = self.route.waypoints();
            let key = (self.route_number, self.next);
            let last = self.next + 1 >= waypoints.len();
            // The last waypoint is reached on it, not near it.
            let reach = if last {
                agent.radius.min(LAST_REACH)
            } else {
                agent.radius
            };
            let within = (point - position).length_squared() <= reach * reach;
            let sighted = self.sighted;
            let sight = &mut self.sight;
            let past = sight.waypoint_after(&self.route, key).is_some_and(|next| {
                if !(sighted && (position - point).dot(next - point) > 0.0) {
                    return false;
                }
                let remembered = sight.for_situation(walls.situation(position, key));
                // The cell must see the waypoint after, and the disc pass straight on to it:
                // one whose way on clips a corner would slide back to where it came from.
                *remembered
                    .sees_after
                    .get_or_insert_with(|| sees(walls.grid, position, next))
                    && remembered_by_eighths(&mut remembered.passes_after, position, || {
                        disc_passes(walls.grid, position, next, agent.radius)
                    })
            });
            if !(within || past) {
                return Some(RouteTarget {
                    point,
                    last,
                    key,
                    seen: true,
                });
            }
            if last {
                self.finished = true;
            } else {
                self.next += 1;
            }
        }
        None
    }
}

/// Aims `target` at the furthest of the next [`LOOKAHEAD`] waypoints of `route` that the
/// agent's cell sees (a straight line between them crosses no wall) and that its disc passes
/// to in a straight line from the cell's centre ([`disc_passes`]), so that an agent the crowd
/// pushed aside heads on along its route rather than back to the waypoint it missed. The
/// agent is at `position`, of `radius`, and `held_up` when it moves at under half its speed.
///
/// A held-up agent keeps to `target` when its disc does not pass to the waypoint ahead from
/// where it stands: off its cell's centre, pressed on a corner by others, the straight way the
/// cell's centre has would keep it pinned there, while the next waypoint draws it round the
/// corner.
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{Route, RouteSight, RouteTarget, Vector, Walls, look_ahead};
///
/// let grid = Grid::from_ascii("...#....\n........")?;
/// let waypoints: Vec<Vector> = (0..6).map(|x| Vector::new(x as f32 + 0.5, 0.5)).collect();
/// let route = Route::new(waypoints, true);
/// let target = RouteTarget { point: Vector::new(1.5, 0.5), last: false, key: (1, 1), seen: true };
/// let walls = Walls { grid: &grid, epoch: 1 };
/// let agent = (Vector::new(0.5, 0.5), 0.35, false);
/// // The wall at (3, 0) hides everything past waypoint 2.
/// let aimed = look_ahead(target, &route, (walls, agent), &mut RouteSight::default());
/// assert_eq!(aimed.key.1, 2);
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn look_ahead(
    target: RouteTarget,
    route: &Route,
    (walls, (position, radius, held_up)): (Walls<'_>, (Vector, f32, bool)),
    sight: &mut RouteSight,
) -> RouteTarget {
    let remembered = sight.for_situation(walls.situation(position, target.key));
    let aim = *remembered
        .aim
        .get_or_insert_with(|| aim_ahead(target, route, walls.grid, (position, radius)));
    let ahead = aim.index != target.key.1;
    if ahead && held_up {
        let check = || disc_passes(walls.grid, position, aim.point, radius);
        if !remembered.passes_from(position, check) {
            return target;
        }
    }
    if ahead {
        // Progress is measured towards the waypoint aimed at.
        RouteTarget {
            point: aim.point,
            last: aim.last,
            key: (target.key.0, aim.index),
            seen: aim.seen,
        }
    } else {
        RouteTarget {
            seen: aim.seen,
            ..target
        }
    }
}

/// Where [`look_ahead`] aims.
fn aim_ahead(
    target: RouteTarget,
    route: &Route,
    walls: &Grid,
    (position, radius): (Vector, f32),
) -> Aim {
    let index = target.key.1;
    let waypoints = route.waypoints();
    let end = (index + LOOKAHEAD).min(waypoints.len().saturating_sub(1));
    let centre = cell_centre(position);
    let ahead = (index + 1..=end).rev().find_map(|ahead| {
        let point = waypoints[ahead];
        // The disc must pass too: aimed past a corner it would only clip, an agent off its
        // cell's centre is pinned on the corner.
        let clear = sees(walls, position, point) && disc_passes(walls, centre, point, radius);
        clear.then_some(Aim {
            index: ahead,
            point,
            last: ahead + 1 == waypoints.len(),
            seen: true,
        })
    });
    ahead.unwrap_or(Aim {
        index,
        point: target.point,
        last: target.last,
        seen: sees(walls, position, target.point),
    })
}

/// The centre of the cell `position` lies in.
fn cell_centre(position: Vector) -> Vector {
    Vector::new(position.x.floor() + 0.5, position.y.floor() + 0.5)
}

/// Whether the cell at `from` sees the cell at `to`: a straight line between their centres
/// crosses no wall.
///
/// ```
/// use astar_grid::Grid;
/// use astar_grid::crowd::{Vector, sees};
///
/// let grid = Grid::from_ascii("..#..\n.....")?;
/// assert!(!sees(&grid, Vector::new(0.5, 0.5), Vector::new(4.5, 0.5)));
/// assert!(sees(&grid, Vector::new(0.5, 1.5), Vector::new(4.5, 1.5)));
/// # Ok::<(), astar_grid::ParseError>(())
/// ```
#[must_use]
pub fn sees(walls: &Grid, from: Vector, to: Vector) -> bool {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a non-negative coordinate, saturated to u32, names its cell"
    )]
    let cell_of = |point: Vector| {
        (point.x >= 0.0 && point.y >= 0.0).then(|| Cell::new(point.x as u32, point.y as u32))
    };
    cell_of(from)
        .zip(cell_of(to))
        .is_some_and(|(from, to)| line_of_sight(walls, from, to, Movement::EIGHT))
}

/// The velocity an agent would take with nobody in the way: full speed towards an
/// intermediate waypoint, slowing to stop on the last.
///
/// ```
/// use astar_grid::crowd::{CrowdAgent, RouteTarget, Vector, preferred_velocity};
///
/// let agent = CrowdAgent::new(Vector::new(0.0, 0.0), 0.35, 2.0);
/// let mut target = RouteTarget { point: Vector::new(0.1, 0.0), last: false, key: (1, 1), seen: true };
/// assert_eq!(preferred_velocity(&agent, target, 0.1), Vector::new(2.0, 0.0));
/// target.last = true;
/// assert_eq!(preferred_velocity(&agent, target, 0.1), Vector::new(1.0, 0.0));
/// ```
#[must_use]
pub fn preferred_velocity(agent: &CrowdAgent, target: RouteTarget, time_step: f32) -> Vector {
    if target.last {
        agent.velocity_towards(target.point, time_step)
    } else {
        (target.point - agent.position).normalize_or_zero() * agent.max_speed
    }
}

/// The velocity of an agent that has finished `route`: none, unless the crowd has pushed it
/// more than [`arrival_reach`] from the route's end (of a route that reaches its goal), where it
/// then walks back.
///
/// ```
/// use astar_grid::crowd::{CrowdAgent, Route, Vector, holding_velocity};
///
/// let route = Route::new(vec![Vector::new(0.5, 0.5), Vector::new(9.5, 0.5)], true);
/// let near = CrowdAgent::new(Vector::new(8.5, 0.5), 0.35, 2.0);
/// assert_eq!(holding_velocity(&near, &route, 0.1), Vector::ZERO);
/// let pushed = CrowdAgent::new(Vector::new(5.5, 0.5), 0.35, 2.0);
/// assert_eq!(holding_velocity(&pushed, &route, 0.1), Vector::new(2.0, 0.0));
/// ```
#[must_use]
pub fn holding_velocity(agent: &CrowdAgent, route: &Route, time_step: f32) -> Vector {
    let Some(&end) = route.waypoints().last().filter(|_| route.reaches_goal) else {
        return Vector::ZERO;
    };
    if (end - agent.position).length() <= arrival_reach(agent.radius) {
        Vector::ZERO
    } else {
        agent.velocity_towards(end, time_step)
    }
}

/// How near the end of its route, in cells, an agent of `radius` counts as arrived when others
/// keep it from the end itself.
///
/// ```
/// use astar_grid::crowd::arrival_reach;
///
/// assert_eq!(arrival_reach(0.25), 2.0);
/// ```
#[must_use]
pub fn arrival_reach(radius: f32) -> f32 {
    4.0 * radius + 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Six waypoints along row 0, at the cell centres.
    fn row_route() -> Route {
        let waypoints: Vec<Vector> = (0..6u8)
            .map(|x| Vector::new(f32::from(x) + 0.5, 0.5))
            .collect();
        Route::new(waypoints, true)
    }

    fn aim_from(position: Vector, (grid, epoch): (&Grid, u64), sight: &mut RouteSight) -> usize {
        let route = row_route();
        let target = RouteTarget {
            point: route.waypoints()[1],
            last: false,
            key: (1, 1),
            seen: true,
        };
        let walls = Walls { grid, epoch };
        look_ahead(target, &route, (walls, (position, 0.45, false)), sight)
            .key
            .1
    }

    #[test]
    fn the_look_ahead_is_drawn_again_when_the_cell_or_the_walls_change() {
        let open = Grid::new(8, 2);
        let walled = Grid::from_ascii("...#....\n........").expect("a grid");
        let mut sight = RouteSight::default();
        let start = Vector::new(0.5, 0.5);
        // On open ground the furthest waypoint in reach is aimed at.
        assert_eq!(aim_from(start, (&open, 1), &mut sight), 5);
        // New walls (a new number) hide it: the agent aims short of the wall.
        assert_eq!(aim_from(start, (&walled, 2), &mut sight), 2);
        // The same cell and walls give the remembered answer...
        assert_eq!(aim_from(Vector::new(0.9, 0.1), (&walled, 2), &mut sight), 2);
        // ...and the next cell draws its lines again (the wall still hides the far ones).
        assert_eq!(aim_from(Vector::new(1.5, 0.5), (&walled, 2), &mut sight), 2);
        assert_eq!(aim_from(Vector::new(1.5, 0.5), (&open, 3), &mut sight), 5);
    }

    #[test]
    fn the_look_ahead_skips_a_waypoint_whose_way_clips_a_corner() {
        // A wall at (2, 0); the way from cell (1, 1) to (5.5, 0.5) passes its corner (3, 1) an
        // eighth of a cell off: the cell sees the point, a thin disc passes, a body does not.
        let grid = Grid::from_ascii("..#...\n......").expect("a grid");
        let waypoints =
            [(0.5, 1.5), (1.5, 1.5), (3.5, 1.5), (5.5, 0.5)].map(|(x, y)| Vector::new(x, y));
        let route = Route::new(waypoints.to_vec(), true);
        let target = RouteTarget {
            point: waypoints[1],
            last: false,
            key: (1, 1),
            seen: true,
        };
        let aim_from = |position: Vector, radius: f32, held_up: bool| {
            let walls = Walls {
                grid: &grid,
                epoch: 1,
            };
            let mut sight = RouteSight::default();
            look_ahead(
                target,
                &route,
                (walls, (position, radius, held_up)),
                &mut sight,
            )
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
        let mut sight = RouteSight::default();
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
        let route = row_route();
        let mut sight = RouteSight::default();
        assert_eq!(
            sight.waypoint_after(&route, (1, 1)),
            Some(route.waypoints()[2])
        );
        // Another route number reads the route again; the last waypoint has none after it.
        let mut waypoints = route.waypoints().to_vec();
        waypoints[3] = Vector::new(9.0, 9.0);
        let other = Route::new(waypoints, true);
        assert_eq!(
            sight.waypoint_after(&other, (2, 2)),
            Some(Vector::new(9.0, 9.0))
        );
        assert_eq!(sight.waypoint_after(&other, (2, 5)), None);
    }

    #[test]
    fn a_walker_passes_waypoints_within_reach_or_from_behind_and_finishes_on_the_last() {
        let grid = Grid::from_ascii("......\n......").expect("a grid");
        let walls = Walls {
            grid: &grid,
            epoch: 1,
        };
        let route = row_route();
        let mut walker = RouteWalker::new(route, false);
        assert_eq!(walker.next_waypoint(), 1);
        // Unsighted, being past waypoint 1 along the next leg is not enough...
        let mut agent = CrowdAgent::new(Vector::new(2.0, 1.5), 0.35, 2.0);
        assert_eq!(
            walker.steer(&mut agent, walls, 0.1).map(|t| t.key.1),
            Some(1)
        );
        // ...sighted, it is.
        walker.set_sighted(true);
        let target = walker.steer(&mut agent, walls, 0.1).expect("a waypoint");
        assert_eq!(walker.next_waypoint(), 2);
        assert_eq!(target.key.1, 5);
        // Walking the row, it passes each waypoint on reaching it, and finishes on the last,
        // where it holds still.
        walker.set_sighted(false);
        for x in 2..6_u8 {
            agent.position = Vector::new(f32::from(x) + 0.5, 0.5);
            walker.steer(&mut agent, walls, 0.1);
        }
        assert!(walker.is_finished());
        assert_eq!(walker.steer(&mut agent, walls, 0.1), None);
        assert_eq!(agent.preferred_velocity, Vector::ZERO);
        // A new route starts afresh, under a new number.
        walker.set_route(row_route());
        assert_eq!((walker.next_waypoint(), walker.is_finished()), (1, false));
        assert_eq!(walker.route_number(), 2);
        walker.set_route(Route::default());
        assert!(walker.is_finished());
    }
}
