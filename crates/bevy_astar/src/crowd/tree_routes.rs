//! Routes on a goal's shared tree, read for the crowd beside the frame: an avoiding agent whose
//! path is a route on its goal's tree takes its waypoints off the tree's newest version when the
//! path is new, and again, from where it stands, when a new version changed cells the rest of
//! its route crosses. A map change then costs the agents whose routes it reaches, read on the
//! crowd's threads, rather than a new path for every agent it cut, read on the main thread.

use super::space::GridSpace;
use crate::goal_tree::{CellBox, SharedRoute};
use astar_grid::Cell;
use astar_grid::crowd::{ChunkRunner, RouteCrowd, RouteWalker, Vector};
use bevy::math::Vec2;
use std::sync::Arc;

/// The most routes a crowd reads again in one step after its goals' trees changed; the others
/// wait for the next steps, walking their last routes meanwhile. New paths are read at once,
/// however many (dispatch caps them a frame).
pub(super) const MOST_ROUTES_REREAD_A_STEP: usize = 512;

/// Routes read per job of the step's threads.
const ROUTES_PER_JOB: usize = 64;

/// Where a crowd member's route comes from: the waypoints its follower aims by (world
/// positions), and, for a route on a goal's shared tree, the tree it is read from.
#[derive(Default)]
pub(super) struct MemberRoute {
    /// The waypoints of the route the core's walker walks, in the world.
    pub waypoints: Arc<[Vec2]>,
    /// The route on the goal's shared tree, for a path that is one.
    pub tree: Option<TreeRoute>,
    /// Whether the last step read new waypoints, so that the follower aims again.
    pub reread: bool,
}

/// A route on a goal's shared tree, and the version of the tree its waypoints were read from.
pub(super) struct TreeRoute {
    route: SharedRoute,
    /// The version read; `None` until the first reading.
    generation: Option<u64>,
    due: Due,
}

/// Whether a route's waypoints are to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Due {
    /// Read, and still good.
    No,
    /// A new path: read from its start.
    Fresh,
    /// The tree changed across it: read again from where the agent stands.
    Again,
}

impl TreeRoute {
    /// A new path's route on a tree, to be read from its start.
    pub(super) const fn new(route: SharedRoute) -> Self {
        Self {
            route,
            generation: None,
            due: Due::Fresh,
        }
    }

    /// A route on a tree walked part of the way already (by an agent that comes back to the
    /// crowd from a link), to be read from where the agent stands.
    pub(super) const fn resumed(route: SharedRoute) -> Self {
        Self {
            route,
            generation: None,
            due: Due::Again,
        }
    }

    /// Whether the route is to be read now: a new one, or one whose tree published a version
    /// that changed cells the rest of the route (walked by `walker`, an agent of `radius`
    /// cells) crosses, or that followed more than one version on from the one read (the
    /// changes in between are not known). A finished walk is not read again, nor a route on a
    /// tree that weighs the crowd: its versions follow the crowd's counts, and the density
    /// check ([`reread_crowded_routes`](super::density::reread_crowded_routes)) asks for a new
    /// route where the tree offers a better way.
    ///
    /// In the open box of a map that is not square (`open`, [`GridSpace::open`]) a route's
    /// points are no grid cells, so any change of its tree counts as crossing it.
    fn due_now(&mut self, walker: &RouteWalker, radius: f32, open: bool) -> Due {
        if self.due != Due::No || walker.is_finished() {
            return self.due;
        }
        let Some((generation, changed)) = self.route.tree.latest_change() else {
            return Due::No;
        };
        let Some(read) = self.generation.filter(|&read| read != generation) else {
            return Due::No;
        };
        let crossed = open
            || generation != read + 1
            || changed.is_none_or(|changed| {
                changed
                    .boxes()
                    .any(|changed| rest_meets(walker, radius, changed))
            });
        let weighs_the_crowd = || {
            let published = self.route.tree.current();
            published.is_some_and(|published| published.crowd.is_some())
        };
        if crossed && !weighs_the_crowd() {
            self.due = Due::Again;
        } else {
            self.generation = Some(generation);
        }
        self.due
    }

    /// Reads the route off the tree's newest version: from its start when it is new, else
    /// from the cell of an agent at `position` (grid space of `space`). The version read and
    /// its waypoints (`None` where the tree does not reach the goal from there); `None` when
    /// no version was published.
    fn read(&self, position: Vector, space: GridSpace) -> Option<(u64, Option<Arc<[Vec2]>>)> {
        let generation = self.route.tree.generation();
        let published = self.route.tree.current()?;
        let from = if self.due == Due::Fresh {
            Some(self.route.start)
        } else {
            published.anchor_at(space.world(position))
        };
        let waypoints = from.and_then(|from| self.route.waypoints_on(&published, from));
        Some((generation, waypoints))
    }
}

/// Whether the rest of `walker`'s route, from the waypoint it left to the last, may cross a
/// cell of `changed` with the footprint of an agent of `radius` cells: the box of some leg,
/// grown by the footprint, meets it. A route that crosses no changed cell keeps its cost, and
/// blocking cells makes no other way cheaper, so it stays a shortest one.
fn rest_meets(walker: &RouteWalker, radius: f32, changed: CellBox) -> bool {
    let waypoints = walker.route().waypoints();
    let rest = waypoints
        .get(walker.next_waypoint().saturating_sub(1)..)
        .unwrap_or_default();
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a radius in cells is small and positive; the cast saturates"
    )]
    let grow = radius.max(0.0).ceil() as u32 + 1;
    let cell = |point: Vector| {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "the casts saturate, and a box only needs to cover the leg"
        )]
        Cell::new(point.x.max(0.0) as u32, point.y.max(0.0) as u32)
    };
    let leg_meets = |from: Cell, to: Cell| {
        let leg = CellBox {
            min: Cell::new(
                from.x.min(to.x).saturating_sub(grow),
                from.y.min(to.y).saturating_sub(grow),
            ),
            max: Cell::new(
                from.x.max(to.x).saturating_add(grow),
                from.y.max(to.y).saturating_add(grow),
            ),
        };
        leg.meets(&changed)
    };
    match rest {
        [] => false,
        [only] => leg_meets(cell(*only), cell(*only)),
        _ => rest
            .windows(2)
            .any(|leg| leg_meets(cell(leg[0]), cell(leg[1]))),
    }
}

/// Reads the routes due of a crowd's members (`routes`, by the index of `core`'s agents): every
/// new one, and at most [`MOST_ROUTES_REREAD_A_STEP`] whose trees changed across them, the
/// readings run by `runner`. Each read route replaces the walker's, converted by `space`; a new
/// route the tree no longer reaches leaves the agent with none. Returns how many it read.
pub(super) fn read_tree_routes(
    core: &mut RouteCrowd,
    routes: &mut [MemberRoute],
    space: GridSpace,
    runner: &impl ChunkRunner,
) -> usize {
    let mut chosen = Vec::new();
    let mut again = 0;
    for (index, route) in routes.iter_mut().enumerate() {
        route.reread = false;
        let Some(tree) = &mut route.tree else {
            continue;
        };
        let open = space.open().is_some();
        match tree.due_now(&core.walkers()[index], core.agents()[index].radius, open) {
            Due::Fresh => chosen.push(index),
            Due::Again if again < MOST_ROUTES_REREAD_A_STEP => {
                again += 1;
                chosen.push(index);
            }
            Due::Again | Due::No => {}
        }
    }
    if chosen.is_empty() {
        return 0;
    }
    let mut read = vec![None; chosen.len()];
    {
        let (agents, routes) = (core.agents(), &*routes);
        let jobs = chosen
            .chunks(ROUTES_PER_JOB)
            .zip(read.chunks_mut(ROUTES_PER_JOB))
            .map(|(indices, out)| {
                Box::new(move || {
                    for (&index, slot) in indices.iter().zip(out) {
                        let tree = routes[index].tree.as_ref();
                        *slot = tree.and_then(|tree| tree.read(agents[index].position, space));
                    }
                }) as Box<dyn FnOnce() + Send + '_>
            })
            .collect();
        runner.run_all(jobs);
    }
    let count = chosen.len();
    for (index, reading) in chosen.into_iter().zip(read) {
        take_reading(
            (&mut core.walkers_mut()[index], &mut routes[index]),
            reading,
            space,
        );
    }
    count
}

/// Gives a member its route's `reading` (see [`TreeRoute::read`]).
fn take_reading(
    (walker, route): (&mut RouteWalker, &mut MemberRoute),
    reading: Option<(u64, Option<Arc<[Vec2]>>)>,
    space: GridSpace,
) {
    let (Some(tree), Some((generation, waypoints))) = (&mut route.tree, reading) else {
        // No version published yet: it stays due.
        return;
    };
    let fresh = tree.due == Due::Fresh;
    tree.due = Due::No;
    tree.generation = Some(generation);
    let waypoints = match waypoints {
        Some(waypoints) => waypoints,
        // Read again where the tree no longer reaches the goal from its cell (blocked under
        // it): it walks on until it is pushed out and searches again.
        None if !fresh => return,
        None => Arc::default(),
    };
    walker.set_route(space.route(&waypoints, !waypoints.is_empty()));
    route.waypoints = waypoints;
    route.reread = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walker along an L: east along row 2 from x 2 to 30, then south along column 30 to
    /// row 30; it has left the first waypoint.
    fn walker_on_an_l() -> RouteWalker {
        let corner = [(2.5, 2.5), (30.5, 2.5), (30.5, 30.5)];
        let points = corner.map(|(x, y)| Vector::new(x, y)).to_vec();
        RouteWalker::new(astar_grid::crowd::Route::new(points, true), true)
    }

    fn cell_box(min: (u32, u32), max: (u32, u32)) -> CellBox {
        CellBox {
            min: Cell::new(min.0, min.1),
            max: Cell::new(max.0, max.1),
        }
    }

    #[test]
    fn a_change_meets_a_route_only_near_one_of_its_legs() {
        let walker = walker_on_an_l();
        // On each leg, and within the footprint beside one.
        assert!(rest_meets(&walker, 0.35, cell_box((15, 2), (15, 2))));
        assert!(rest_meets(&walker, 0.35, cell_box((30, 20), (30, 20))));
        assert!(rest_meets(&walker, 0.35, cell_box((15, 4), (15, 4))));
        // Inside the box round the whole route, away from both legs.
        assert!(!rest_meets(&walker, 0.35, cell_box((10, 20), (12, 22))));
        // A wider agent's footprint reaches further.
        assert!(!rest_meets(&walker, 0.35, cell_box((26, 20), (26, 20))));
        assert!(rest_meets(&walker, 2.5, cell_box((26, 20), (26, 20))));
    }

    #[test]
    fn legs_already_walked_do_not_count() {
        let mut walker = walker_on_an_l();
        let changed = cell_box((15, 2), (15, 2));
        assert!(rest_meets(&walker, 0.35, changed));
        // Steered from past the corner, heading south: the first leg is behind it.
        let mut agent = astar_grid::crowd::CrowdAgent::new(Vector::new(30.5, 10.5), 0.35, 3.0);
        let grid = astar_grid::Grid::new(40, 40);
        let walls = astar_grid::crowd::Walls {
            grid: &grid,
            epoch: 0,
        };
        walker.steer(&mut agent, walls, 0.1);
        assert_eq!(walker.next_waypoint(), 2);
        assert!(!rest_meets(&walker, 0.35, changed));
    }
}
