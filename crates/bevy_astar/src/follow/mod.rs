//! Path following: the `PathFollower` component, which walks an agent's `Transform` along its
//! path's waypoints; [`PathFollowPlugin`](crate::PathFollowPlugin) moves it in
//! [`PathfindingSystems::Follow`](crate::PathfindingSystems::Follow).

pub(crate) mod crossing;
pub(crate) mod plugin;

use crate::Path;
use crate::goal_tree::{CellBox, PublishedTree, SharedRoute};
use astar_grid::Cell;
use bevy::prelude::*;
use crossing::LinkCrossing;

/// Moves the agent's [`Transform`] along its [`Path`]'s waypoints at `speed` world units per
/// second, in the XY plane (the Z coordinate is kept).
///
/// A new path (a new [`Path::revision`]) restarts the walk at its second waypoint: the first one
/// is the centre of the start cell, where the agent already is.
///
/// The agent walks straight through other agents; with [`CrowdAvoidance`](crate::CrowdAvoidance) it is steered round the
/// other avoiding agents and along the walls instead (see [`crate::crowd`]).
///
/// At a link of its path (a door, a ladder, stairs, a teleporter: [`NavGrid::add_link`](crate::NavGrid::add_link))
/// the agent stops and [`LinkReached`](crate::LinkReached) is sent; it waits there for the
/// link's cost in time ([`PathFollower::crossing`]), or until released when the game holds it
/// ([`PathFollower::hold_crossing`]), then appears at the far end
/// ([`LinkCrossed`](crate::LinkCrossed)) and walks on. An agent with
/// [`CrowdAvoidance`](crate::CrowdAvoidance) does the same, out of the crowd while it crosses.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// let agent = (
///     PathRequest::new(Cell::new(0, 0), Cell::new(7, 3)),
///     PathFollower::new(120.0),
///     Transform::default(),
/// );
/// # let _ = agent;
/// ```
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq)]
#[require(Transform)]
pub struct PathFollower {
    /// World units per second.
    pub speed: f32,
    next_waypoint: usize,
    /// A copy of the waypoint at `next_waypoint`, so that a frame that does not reach it reads
    /// nothing from the path's heap memory.
    target: Vec2,
    revision: u64,
    finished: bool,
    /// On a route of a goal's shared tree: the cell whose centre `target` is.
    #[reflect(ignore)]
    cell: Cell,
    /// On a route of a goal's shared tree: the cell the straight run to `cell` starts at.
    #[reflect(ignore)]
    run_from: Cell,
    /// On a route of a goal's shared tree: the tree's version `target` was read from (or
    /// found to hold for).
    pub(crate) generation: u64,
    /// On a route of a goal's shared tree: frames left to stand still, waiting for the version
    /// after `generation`, because a map change crossed the run ahead.
    held_frames: u32,
    /// The link the agent stands at, crossing it (boxed, as the next one: most followers cross
    /// none, and every frame reads every follower).
    #[reflect(ignore)]
    pub(crate) crossing: Option<Box<LinkCrossing>>,
    /// Whether the move to `target` was checked for a link (only on maps with links).
    #[reflect(ignore)]
    pub(crate) link_checked: bool,
    /// The link the agent was crossing when a new path came: the crossing goes on, unheard
    /// of again, if the new path's first move takes the same link.
    #[reflect(ignore)]
    pub(crate) interrupted: Option<Box<LinkCrossing>>,
}

impl PathFollower {
    /// A follower moving at `speed` world units per second.
    #[must_use]
    pub const fn new(speed: f32) -> Self {
        Self {
            speed,
            next_waypoint: 0,
            target: Vec2::ZERO,
            revision: 0,
            finished: true,
            cell: Cell::new(0, 0),
            run_from: Cell::new(0, 0),
            generation: 0,
            held_frames: 0,
            crossing: None,
            link_checked: false,
            interrupted: None,
        }
    }

    /// The index in [`Path::waypoints`] the agent is heading for. Without
    /// [`CrowdAvoidance`](crate::CrowdAvoidance), that may be the last waypoint of a straight run rather than the next one:
    /// the agent walks through a run's waypoints in a straight line.
    #[must_use]
    pub const fn next_waypoint(&self) -> usize {
        self.next_waypoint
    }

    /// Whether the agent has reached the last waypoint of its current path (or has none).
    #[must_use]
    pub const fn is_finished(&self) -> bool {
        self.finished
    }

    /// The link the agent stands at, crossing it, if any.
    #[must_use]
    pub fn crossing(&self) -> Option<&LinkCrossing> {
        self.crossing.as_deref()
    }

    /// Holds the agent at the link it is crossing until [`PathFollower::release_crossing`]
    /// (to play a door or climb animation first); false when it is crossing none. A new path
    /// lets go of the link, unless it goes on along the same link (the crossing then goes on,
    /// held or not, and is not announced again); else the agent walks the new path from where
    /// it stands.
    pub fn hold_crossing(&mut self) -> bool {
        match &mut self.crossing {
            Some(crossing) => {
                crossing.held = true;
                true
            }
            None => false,
        }
    }

    /// Lets the agent held at a link come out at its far end in the next move, whatever time
    /// the crossing had left; false when it is crossing none.
    pub fn release_crossing(&mut self) -> bool {
        match &mut self.crossing {
            Some(crossing) => {
                crossing.held = false;
                crossing.remaining = 0.0;
                true
            }
            None => false,
        }
    }
}

/// Frames a follower on a goal's shared tree stands still at most, waiting for the tree's
/// update after a map change crossed its run ([`PathFollower::hold`]): a tree whose update is
/// slower lets it walk on by the version it has.
const MOST_FRAMES_HELD: u32 = 30;

/// Waypoints in line a follower may look past at once ([`PathFollower::aim_straight_on`]).
const MOST_WAYPOINTS_AHEAD: usize = 32;

impl PathFollower {
    /// Restarts the walk at the second waypoint when `path` is new (a new revision); on a
    /// route of a goal's shared tree, at the end of the tree's first straight run from the
    /// route's start. The whole path of the first cells it walks ([`Path::extends`]) is walked
    /// on from the waypoint it heads for (or the first after them, once it reached their end).
    pub(crate) fn sync_with(&mut self, path: &Path) {
        if self.revision != path.revision {
            let walked = core::mem::replace(&mut self.revision, path.revision);
            if path.extends() == Some(walked) {
                self.finished = !self.aim(path.own_waypoints());
                return;
            }
            self.next_waypoint = 0;
            self.interrupted = self.crossing.take();
            if let Some(route) = path.shared_route() {
                self.finished = !self.aim_on_tree(route, |_| Some(route.start));
            } else {
                let waypoints = path.own_waypoints();
                self.next_waypoint = usize::from(waypoints.len() > 1);
                self.finished = !self.aim(waypoints);
            }
        }
    }

    /// Whether the follower walks `path` already (it has seen its revision).
    pub(crate) fn walks(&self, path: &Path) -> bool {
        self.revision == path.revision
    }

    /// Whether the follower must aim again on `route` because its tree changed: a newer
    /// version than the one it aimed by, unless it is the next one and its changed cells lie
    /// away from the straight run the follower walks (which then still holds; the next run is
    /// read from the new version). Read without a lock, every frame.
    pub(crate) fn aims_by_an_older_tree(&mut self, route: &SharedRoute) -> bool {
        if self.finished {
            return false;
        }
        let Some((generation, changed)) = route.tree.latest_change() else {
            return true;
        };
        if generation == self.generation {
            return false;
        }
        let run = self.run_box();
        let clear_of_run = changed
            .zip(run)
            .is_some_and(|(changed, run)| !changed.meets(&run));
        if generation == self.generation + 1 && clear_of_run {
            self.generation = generation;
            self.held_frames = 0;
            return false;
        }
        true
    }

    /// Points the follower at the end of the straight run of the tree's next steps from the
    /// cell `from` picks (given the tree's newest version; the route's start, the cell just
    /// reached, or the cell the agent stands on), or, from a cell cut off, at the neighbour it
    /// steps out onto ([`PublishedTree::way_on_from`]); false at the goal, where the goal
    /// cannot be reached, and before the tree has a version.
    pub(crate) fn aim_on_tree(
        &mut self,
        route: &SharedRoute,
        from: impl FnOnce(&PublishedTree) -> Option<Cell>,
    ) -> bool {
        self.generation = route.tree.generation();
        let Some(published) = route.tree.current() else {
            return false;
        };
        let Some(from_cell) = from(&published) else {
            return false;
        };
        let Some((cell, target)) = published.way_on_from(from_cell) else {
            return false;
        };
        self.run_from = from_cell;
        self.cell = cell;
        self.target = target;
        self.link_checked = false;
        self.held_frames = 0;
        self.next_waypoint += 1;
        true
    }

    /// The box of the straight run the follower walks on a route of a goal's shared tree.
    pub(crate) fn run_box(&self) -> Option<CellBox> {
        CellBox::around([self.run_from, self.cell])
    }

    /// Stands the follower still until its tree's next version (a map change crossed the run
    /// ahead, and the tree is being updated), for at most [`MOST_FRAMES_HELD`] frames.
    pub(crate) const fn hold(&mut self) {
        self.held_frames = MOST_FRAMES_HELD;
    }

    /// Whether the follower stands still this frame, waiting for its tree's next version;
    /// counts the frame.
    pub(crate) const fn waits_for_the_tree(&mut self) -> bool {
        if self.held_frames == 0 {
            return false;
        }
        self.held_frames -= 1;
        true
    }

    /// The cell the follower is heading for on a route of a goal's shared tree.
    pub(crate) const fn tree_cell(&self) -> Cell {
        self.cell
    }

    /// The waypoint the agent is heading for, unless it has finished.
    pub(crate) const fn target(&self) -> Option<Vec2> {
        if self.finished {
            None
        } else {
            Some(self.target)
        }
    }

    /// Takes the walk of the agent's crowd: heading for waypoint `next` of `waypoints` (the
    /// path's own), or finished.
    pub(crate) fn walk_as(&mut self, next: usize, finished: bool, waypoints: &[Vec2]) {
        self.next_waypoint = next;
        self.finished = finished || !self.aim(waypoints);
    }

    /// Ends the walk where the agent stands.
    pub(crate) const fn finish(&mut self) {
        self.finished = true;
    }

    /// Points the follower, which has just reached its target, at waypoint `next_waypoint`, or
    /// further on along the same line: the waypoints after it that repeat the same step (a
    /// straight run of cells) are walked through in a straight line, so the follower aims at
    /// the last of them, at most [`MOST_WAYPOINTS_AHEAD`] on, and reads the path's memory once
    /// per run instead of once per cell. False when the path has no more waypoints.
    fn aim_straight_on(&mut self, waypoints: &[Vec2]) -> bool {
        let reached = self.target;
        if !self.aim(waypoints) {
            return false;
        }
        let step = self.target - reached;
        let ahead = waypoints
            .get(self.next_waypoint..)
            .unwrap_or_default()
            .windows(2)
            .take(MOST_WAYPOINTS_AHEAD)
            .take_while(|pair| pair[1] - pair[0] == step)
            .count();
        self.next_waypoint += ahead;
        self.aim(waypoints)
    }

    /// Points the follower at waypoint `next_waypoint`; false when the path has no more.
    fn aim(&mut self, waypoints: &[Vec2]) -> bool {
        match waypoints.get(self.next_waypoint) {
            Some(&target) => {
                self.target = target;
                self.link_checked = false;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::goal_tree::{ChangedCells, PublishedTree, SharedTree};
    use crate::map::CellGeometry;
    use crate::path::PathRoute;
    use crate::{NavVersion, Path};
    use astar_grid::{CostModel, GoalTree, Grid, Movement};
    use std::sync::Arc;

    /// A version of a tree to `goal` on `grid`, made out of the one before by a change of the
    /// cells in `changed` (`None`: not known).
    fn version(grid: &Grid, goal: Cell, changed: Option<CellBox>) -> PublishedTree {
        let tree = GoalTree::build(grid, &[goal], Movement::EIGHT, CostModel::Octile)
            .expect("a walkable goal");
        PublishedTree {
            tree: crate::goal_tree::RouteTree::Goal(Arc::new(tree)),
            grid: Arc::new(grid.clone()),
            map_version: NavVersion::default(),
            geometry: CellGeometry::default(),
            size: 1,
            complete: true,
            changed: changed.map(ChangedCells::of_box),
            crowd: None,
        }
    }

    #[test]
    fn a_change_away_from_the_run_keeps_it_and_one_on_it_aims_again() {
        let grid = Grid::new(40, 8);
        let goal = Cell::new(39, 0);
        let tree = Arc::new(SharedTree::default());
        tree.publish(version(&grid, goal, None));
        let route = SharedRoute {
            tree: Arc::clone(&tree),
            start: Cell::new(0, 0),
            smoothing: false,
            movement: Movement::EIGHT,
        };
        let mut follower = PathFollower::new(1.0);
        let mut path = Path::default();
        path.revision = 1;
        path.replace_route(PathRoute::Shared(route.clone()));
        follower.sync_with(&path);
        // Along row 0 to the east: a straight run of 32 cells.
        assert_eq!(
            (follower.run_from, follower.cell),
            (Cell::new(0, 0), Cell::new(32, 0))
        );
        let box_at = |x, y| CellBox::around([Cell::new(x, y)]);
        // A change far below the run: the run holds, and the follower takes the new version.
        tree.publish(version(&grid, goal, box_at(10, 6)));
        assert!(!follower.aims_by_an_older_tree(&route));
        assert_eq!(follower.generation, tree.generation());
        // A change on the run: aim again.
        tree.publish(version(&grid, goal, box_at(20, 0)));
        assert!(follower.aims_by_an_older_tree(&route));
        // Two versions past the one it aimed by, or a change not known: aim again.
        follower.generation = tree.generation() - 2;
        assert!(follower.aims_by_an_older_tree(&route));
        follower.generation = tree.generation();
        tree.publish(version(&grid, goal, None));
        assert!(follower.aims_by_an_older_tree(&route));
    }

    /// Waypoints one unit apart along row 0, from cell 0 to cell `to`.
    fn row(to: u32) -> (Arc<[Cell]>, Arc<[Vec2]>) {
        let cells: Arc<[Cell]> = (0..=to).map(|x| Cell::new(x, 0)).collect();
        let waypoints = cells
            .iter()
            .map(|cell| Vec2::new(cell.x as f32, 0.0))
            .collect();
        (cells, waypoints)
    }

    /// The whole path of the first cells a follower walks is walked on from the waypoint it
    /// heads for, or, once it reached their end, from the first after them; any other new path
    /// starts again at its second waypoint.
    #[test]
    fn the_whole_path_of_the_first_cells_is_walked_on_and_another_path_starts_again() {
        let (first_cells, first_waypoints) = row(5);
        let (cells, waypoints) = row(12);
        for (reached, heads_for) in [(3, 3), (6, 6)] {
            let mut path = Path::default();
            let _ =
                path.show_first_cells(Arc::clone(&first_cells), Arc::clone(&first_waypoints), 5.0);
            let mut follower = PathFollower::new(1.0);
            follower.sync_with(&path);
            follower.next_waypoint = reached;
            follower.finished = !follower.aim(path.own_waypoints());
            let shown = path.revision;
            let _ = path.replace_route(PathRoute::Own {
                cells: Arc::clone(&cells),
                waypoints: Arc::clone(&waypoints),
                cost: 12.0,
            });
            path.revision += 1;
            let mut other = path.clone();
            path.set_extends(shown);
            let mut walked_on = follower.clone();
            walked_on.sync_with(&path);
            assert_eq!(walked_on.next_waypoint(), heads_for);
            assert_eq!(walked_on.target(), Some(waypoints[heads_for]));
            // The same cells, not marked as their whole path: from the second waypoint.
            other.revision += 1;
            follower.sync_with(&other);
            assert_eq!(follower.next_waypoint(), 1);
        }
    }
}
